"""The unchecked hot paths of wbcpy.ik and what MultiRefMinJerkCtrl.iterate builds on them.

Covers: ``Filter.step_unchecked`` / ``get_state`` / ``set_state``, ``Integrator.integrate_unchecked`` /
``integrate_in_box_unchecked``, the controller's fused joint + task loops (a given task velocity skips the
task loop, T changes, the switch to a non-ideal joint plant), its validated-input caches (targets written
in place) and the interior-band flag (guard ratio or q changed between iterates).

Oracles: ``scipy.signal.lfilter``; a hand-written clipped trapezoid; two separate public min-jerk
controllers (n and 6 components) driven with errors from raw Pinocchio; the blend's normal equations
(W⁻¹ + JᵀJ)(q̇ − q̇_J) = Jᵀ(ẋ_T − J q̇_J) with the spec's guard weights written out in the test.
"""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin
import pytest
from _ik_helpers import RawKinematics
from scipy import signal

from wbcpy import load_robot
from wbcpy.errors import InvalidValueError
from wbcpy.ik import (
    Filter,
    Integrator,
    MinJerkVelCtrlForIdealPlant,
    MinJerkVelCtrlForNonIdealPlant,
    MultiRefMinJerkCtrl,
)
from wbcpy.ik.pose_error import parse_target
from wbcpy.model import se3_from_pose7

TS = 0.01
PLANT = {"Kp": 1.5, "Tz": 0.05, "Tw": 0.08, "Zeta": 0.6}


@pytest.fixture(scope="module")
def planar():
    robot = load_robot("planar3r")
    return robot, robot.chain("base_link", "tip")


def spec_weight(q: float, lo: float, hi: float, gamma: float, ratio: float) -> float:
    """Spec §4 guard weight, rules in the spec's order."""
    g = 0.25 * ratio * (hi - lo)
    if lo + 2 * g <= q <= hi - 2 * g:
        return gamma
    if q <= lo + g or q >= hi - g:
        return 0.0
    if q < lo + 2 * g:
        return 0.5 * gamma * (1 + math.tanh(10 * (q - (lo + 1.5 * g)) / g))
    return 0.5 * gamma * (1 + math.tanh(-10 * (q - (hi - 1.5 * g)) / g))


def pose_error(target: pin.SE3, M: pin.SE3) -> np.ndarray:
    return np.concatenate((target.translation - M.translation, pin.log3(target.rotation @ M.rotation.T)))


def assert_normal_equations(qdot, qdot_j, xdot_t, J, w):
    """(W⁻¹ + JᵀJ)(q̇ − q̇_J) = Jᵀ(ẋ_T − J q̇_J): the blend's defining equations (W ≻ 0)."""
    lhs = (np.diag(1.0 / w) + J.T @ J) @ (qdot - qdot_j)
    np.testing.assert_allclose(lhs, J.T @ (xdot_t - J @ qdot_j), rtol=1e-9, atol=1e-11)


# ------------------------------------------------------------------------------------------ Filter
@pytest.mark.parametrize("per_component", [False, True])
def test_step_unchecked_matches_lfilter_and_returns_new_arrays(per_component):
    rng = np.random.default_rng(7)
    u = rng.normal(size=(40, 3))
    num = np.array([[0.4, 0.2, -0.1], [1.0, 0.5, 0.0], [0.3, 0.0, 0.3]])
    den = np.array([[2.0, -0.4, 0.1], [1.0, 0.2, 0.05], [1.5, 0.0, -0.2]])
    if not per_component:
        num, den = num[0], den[0]
    filt = Filter(num, den, np.zeros(3))
    outs = [filt.step_unchecked(x) for x in u]
    first = outs[0].copy()
    out = np.array(outs)
    np.testing.assert_array_equal(outs[0], first)  # later steps never wrote into an earlier result
    for j in range(3):
        b, a = (num, den) if not per_component else (num[j], den[j])
        np.testing.assert_allclose(out[:, j], signal.lfilter(b, a, u[:, j]), rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(filt.get_output(), out[-1])


def test_filter_state_round_trip_and_bad_state():
    rng = np.random.default_rng(8)
    u = rng.normal(size=(30, 2))
    b, a = [0.2, 0.3, -0.1, 0.05], [1.0, -0.5, 0.2, -0.01]
    filt = Filter(b, a, np.zeros(2))
    for x in u[:10]:
        filt.filt(x)
    saved = filt.get_state()
    assert saved.shape == (3 + 3, 2)  # m − 1 = 3 past inputs, n_a − 1 = 3 past outputs
    expected = np.column_stack([signal.lfilter(b, a, u[:, j]) for j in range(2)])[10:]
    for _ in range(2):  # the second pass starts again from the saved state
        filt.set_state(saved)
        np.testing.assert_allclose([filt.filt(x) for x in u[10:]], expected, rtol=1e-12, atol=1e-14)
    before = filt.get_state()
    for bad in (saved[:-1], np.full_like(saved, np.nan), saved.ravel()):
        with pytest.raises(InvalidValueError):
            filt.set_state(bad)
    np.testing.assert_array_equal(filt.get_state(), before)


@pytest.mark.parametrize("cls", [MinJerkVelCtrlForIdealPlant, MinJerkVelCtrlForNonIdealPlant])
def test_controller_step_unchecked_equals_compute_cmd(cls):
    rng = np.random.default_rng(10)
    a, b = cls(TS, 2), cls(TS, 2)
    if cls is MinJerkVelCtrlForNonIdealPlant:  # per-component coefficients
        for c in (a, b):
            c.set_plant_parameters({"dimension_0": PLANT})
    for c in (a, b):
        c.compute_cmd(0.7, [0.0, 0.0])  # same T for both, then unchecked steps at that T
    assert isinstance(a.filter, Filter)
    for _ in range(20):
        e = rng.normal(size=2)
        np.testing.assert_array_equal(a.step_unchecked(e), b.compute_cmd(0.7, e))
        np.testing.assert_array_equal(a.filter.get_output(), b.filter.get_output())


# -------------------------------------------------------------------------------------- Integrator
def test_integrate_unchecked_and_box_follow_the_clipped_trapezoid():
    rng = np.random.default_rng(9)
    lo, hi = np.array([-1.0, -0.5, -np.inf]), np.array([1.0, 0.4, np.inf])
    box_lo, box_hi = np.array([-0.8, -0.3, -np.inf]), np.array([0.8, 0.2, np.inf])
    a = Integrator(TS, [0.1, 0.0, 3.0], np.column_stack((lo, hi)))
    b = Integrator(TS, [0.1, 0.0, 3.0], np.column_stack((lo, hi)))
    y, x_old = np.array([0.1, 0.0, 3.0]), np.zeros(3)
    seen = {True: 0, False: 0}
    for k in range(400):
        x = 4.0 * math.cos(2 * math.pi * k / 200) * np.array([1.0, 0.3, 1.0]) + rng.normal(size=3)
        y = np.clip(y + 0.5 * TS * (x + x_old), lo, hi)
        x_old = x
        ya = a.integrate_unchecked(x)
        yb, inside = b.integrate_in_box_unchecked(x, box_lo, box_hi)
        np.testing.assert_allclose(ya, y, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(yb, ya)
        assert inside == bool(np.all((box_lo <= y) & (y <= box_hi)))
        seen[inside] += 1
        ya[:] = 99.0  # the result is the caller's: the integrator's state is elsewhere
        np.testing.assert_array_equal(a.get(), yb)
    assert seen[True] > 10 and seen[False] > 10  # both branches were exercised
    empty = b.integrate_in_box_unchecked(np.zeros(3), np.full(3, np.inf), np.full(3, -np.inf))
    assert empty[1] is False


# ------------------------------------------------------------------------- controller: loops
def _run_against_separate_loops(chain, robot, ctrl, joint, task, steps, xdot_every=4, retime=None):
    """Step ``ctrl`` and the oracle controllers side by side; check q̇ by the normal equations."""
    raw = RawKinematics(robot, "tip", chain.joint_names)
    q_d = np.deg2rad([-30.0, 90.0, -20.0])
    target = raw.pose(q_d)
    xd = chain.pose7(q_d)
    for k in range(steps):
        if retime and k in retime:
            ctrl.set_exec_time(retime[k])
        T = ctrl.get_exec_time()
        q_before = ctrl.get_q()
        xdot_set = np.array([0.02, -0.01, 0.0, 0.0, 0.0, 1.0, 0.2]) if k % xdot_every == 1 else None
        ctrl.iterate(xd, q_d, xdot_set)
        qdot_j = joint.compute_cmd(T, q_d - q_before)
        if xdot_set is None:
            xdot_t = task.compute_cmd(T, pose_error(target, raw.pose(q_before)))
        else:
            xdot_t = np.concatenate((xdot_set[:3], xdot_set[3:6] * xdot_set[6]))
        J = raw.jacobian(q_before)
        limits = zip(q_before, raw.lower, raw.upper, strict=True)
        w = np.array([spec_weight(v, lo, hi, 0.7, 0.1) for v, lo, hi in limits])
        assert_normal_equations(ctrl.get_qdot(), qdot_j, xdot_t, J, w)
        np.testing.assert_allclose(ctrl.get_xdot(), J @ ctrl.get_qdot(), atol=1e-12)  # ẋ = J q̇
    return joint, task


def test_fused_loops_equal_two_separate_controllers(planar):
    """Task velocity given every 4th step (task loop skipped), T changed twice, once on a skipped step."""
    robot, chain = planar
    ctrl = MultiRefMinJerkCtrl(chain, "full", TS, q0=np.deg2rad([20.0, 60.0, 40.0]))
    ctrl.set_gamma(0.7)
    joint, task = MinJerkVelCtrlForIdealPlant(TS, 3), MinJerkVelCtrlForIdealPlant(TS, 6)
    _run_against_separate_loops(chain, robot, ctrl, joint, task, 30, retime={10: 0.5, 21: 2.0})


def test_switch_to_non_ideal_plant_keeps_task_state(planar):
    robot, chain = planar
    ctrl = MultiRefMinJerkCtrl(chain, "full", TS, q0=np.deg2rad([20.0, 60.0, 40.0]))
    ctrl.set_gamma(0.7)
    joint, task = MinJerkVelCtrlForIdealPlant(TS, 3), MinJerkVelCtrlForIdealPlant(TS, 6)
    _run_against_separate_loops(chain, robot, ctrl, joint, task, 12, retime={5: 0.6})
    params = {"dimension_1": PLANT}
    ctrl.set_plant_parameters(params)
    assert ctrl.non_ideal_plant
    fresh = MinJerkVelCtrlForNonIdealPlant(TS, 3)  # the joint loop restarts from zero state (iKin)
    fresh.set_plant_parameters(params)
    _run_against_separate_loops(chain, robot, ctrl, fresh, task, 12, retime={3: 1.0})


def test_restart_resets_both_loops(planar):
    robot, chain = planar
    ctrl = MultiRefMinJerkCtrl(chain, "full", TS, q0=np.deg2rad([20.0, 60.0, 40.0]))
    ctrl.set_gamma(0.7)
    joint, task = MinJerkVelCtrlForIdealPlant(TS, 3), MinJerkVelCtrlForIdealPlant(TS, 6)
    _run_against_separate_loops(chain, robot, ctrl, joint, task, 8)
    ctrl.restart(np.deg2rad([10.0, 50.0, 30.0]))
    joint, task = MinJerkVelCtrlForIdealPlant(TS, 3), MinJerkVelCtrlForIdealPlant(TS, 6)
    _run_against_separate_loops(chain, robot, ctrl, joint, task, 8)


# ------------------------------------------------------------------------- controller: caches
def test_targets_written_in_place_are_seen(planar):
    """The same arrays / SE3 object, changed in place between calls, act like fresh values."""
    _, chain = planar
    q0 = np.deg2rad([20.0, 60.0, 40.0])
    a = MultiRefMinJerkCtrl(chain, "full", TS, q0=q0)
    b = MultiRefMinJerkCtrl(chain, "full", TS, q0=q0)
    goals = [np.deg2rad(g) for g in ([-30.0, 90.0, -20.0], [10.0, 40.0, 30.0], [0.0, 70.0, -50.0])]
    xd, qd = chain.pose7(goals[0]), goals[0].copy()
    se3 = chain.fk(goals[0])
    for k in range(45):
        goal = goals[(k // 5) % 3]
        xd[:] = chain.pose7(goal)  # same objects, new values
        qd[:] = goal
        fresh = list(chain.pose7(goal)), list(goal)  # lists never hit a cache: the twin's oracle path
        if k % 2:
            np.testing.assert_allclose(a.iterate(xd, qd), b.iterate(*fresh), rtol=0, atol=1e-12)
        else:
            se3.translation = chain.fk(goal).translation  # in place on the same SE3
            se3.rotation = chain.fk(goal).rotation
            np.testing.assert_allclose(a.iterate(se3, qd), b.iterate(*fresh), rtol=0, atol=1e-12)
        np.testing.assert_array_equal(a.get_q_set(), goal)
    np.testing.assert_allclose(a.get_x_set(), chain.pose7(goals[(44 // 5) % 3]), atol=1e-12)


# ------------------------------------------------------------------------- controller: weights
def test_interior_flag_follows_guard_ratio_and_set_q():
    robot = load_robot("planar3r")
    chain = robot.chain("base_link", "tip")
    lo, hi = chain.lower, chain.upper
    ctrl = MultiRefMinJerkCtrl(chain, "full", TS, q0=0.5 * (lo + hi))
    ctrl.set_gamma(0.7)
    q_d = 0.5 * (lo + hi) + 0.1 * (hi - lo)
    xd = chain.pose7(q_d)

    def check(ratio):
        q_before = ctrl.get_q()
        ctrl.iterate(xd, q_d)
        expected = [spec_weight(v, a, b, 0.7, ratio) for v, a, b in zip(q_before, lo, hi, strict=True)]
        np.testing.assert_allclose(ctrl.get_weights(), expected, atol=1e-14)
        return np.array(expected)

    for _ in range(3):
        assert np.all(check(0.1) == 0.7)  # interior
    ctrl.set_guard_ratio(1.0)  # no interior band left: every weight from the smooth rules
    assert np.all(check(1.0) < 0.7)
    ctrl.set_guard_ratio(0.1)
    assert np.all(check(0.1) == 0.7)
    ctrl.set_q(lo + 0.04 * (hi - lo))  # inside every guard band
    w = check(0.1)
    assert np.all((w > 0.0) & (w < 0.7))


def test_se3_targets_are_parsed_into_copies():
    """parse_target of a pin.SE3 (one pass over its homogeneous matrix): position and rotation are copies
    of the transform's (changing the SE3 afterwards changes nothing), and the 7-vector rebuilds it
    (se3_from_pose7, exp3 of axis·angle); non-rotations, NaN and non-SE3 values raise."""
    rng = np.random.default_rng(11)
    for _ in range(20):
        M = pin.SE3(pin.exp3(rng.uniform(-3.1, 3.1, 3)), rng.uniform(-2, 2, 3))
        p_d, R_d, x7 = parse_target(M)
        np.testing.assert_array_equal(p_d, M.translation)
        np.testing.assert_array_equal(R_d, M.rotation)
        back = se3_from_pose7(x7)
        np.testing.assert_allclose(back.homogeneous, M.homogeneous, atol=1e-12)
        keep = p_d.copy(), R_d.copy()
        M.translation = M.translation + 1.0
        M.rotation = pin.exp3(np.array([0.3, 0, 0])) @ M.rotation
        np.testing.assert_array_equal(p_d, keep[0])
        np.testing.assert_array_equal(R_d, keep[1])
    bad = pin.SE3.Identity()
    bad.rotation = np.diag([1.0, 1.0, -1.0])
    nan = pin.SE3.Identity()
    nan.translation = np.array([0.0, np.nan, 0.0])
    for value in (bad, nan, np.eye(4), "pose"):
        with pytest.raises(InvalidValueError):
            parse_target(value)
