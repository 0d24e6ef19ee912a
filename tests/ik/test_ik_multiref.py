"""Tests of wbcpy.ik.MultiRefMinJerkCtrl (spec minjerk.md §4) on small chains and the planar 3R arm.

Oracles: the spec's filter coefficients re-derived here and run as a hand-written difference equation,
the spec's piecewise weight rules written out per joint, the normal equations / stacked least squares of
the blend, closed-form planar FK, raw Pinocchio kinematics (tests/_ik_helpers.py), and twin controllers
that must (or must not) agree. The 7-DOF arms and the non-ideal plant are in test_ik_multiref_robots.py.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pinocchio as pin
import pytest
from _ik_helpers import RawKinematics, serial_chain

from wbcpy import load_robot
from wbcpy.ik import CtrlPose, CtrlState, MultiRefMinJerkCtrl, blend_velocities, guard_weights

ALPHA, BETA, KAPPA = 150.765868956161, 84.9812819469538, 15.9669610709384
TS = 0.01


def ideal_coeffs(T: float, Ts: float = TS) -> tuple[np.ndarray, np.ndarray]:
    """Spec §2: Tustin of C(s) = −a/(s² − cs − b)."""
    a, b, c, k = -ALPHA / T**3, -BETA / T**2, -KAPPA / T, 2.0 / Ts
    c1 = k * (k - c) - b
    return (-a / c1) * np.array([1.0, 2.0, 1.0]), np.array(
        [1.0, -2.0 * (k * k + b) / c1, (k * (k + c) - b) / c1]
    )


def spec_weight(q: float, lo: float, hi: float, gamma: float, ratio: float) -> float:
    """Spec §4 weight rules, one joint, evaluated in the spec's order."""
    g = 0.25 * ratio * (hi - lo)
    min_ext, min_int, min_cog = lo + g, lo + 2 * g, lo + 1.5 * g
    max_ext, max_int, max_cog = hi - g, hi - 2 * g, hi - 1.5 * g
    if min_int <= q <= max_int:
        return gamma
    if q <= min_ext or q >= max_ext:
        return 0.0
    if q < min_int:
        return 0.5 * gamma * (1 + math.tanh(10 * (q - min_cog) / g))
    return 0.5 * gamma * (1 + math.tanh(-10 * (q - max_cog) / g))


def planar_fk(q: np.ndarray) -> tuple[np.ndarray, float]:
    """Closed-form planar 3R tip position (x, y) and heading, link lengths 0.3/0.25/0.15."""
    c = np.cumsum(q)
    lengths = np.array([0.3, 0.25, 0.15])
    return np.array([lengths @ np.cos(c), lengths @ np.sin(c)]), float(c[-1])


@pytest.fixture(scope="module")
def one_dof():
    return serial_chain(1, -1.0, 1.0)


@pytest.fixture(scope="module")
def planar():
    robot = load_robot("planar3r")
    return robot, robot.chain("base_link", "tip")


# ---------------------------------------------------------------------------------------------- basics
def test_initial_state(planar):
    robot, chain = planar
    q0 = np.deg2rad([20.0, 60.0, 40.0])
    c = MultiRefMinJerkCtrl(chain, CtrlPose.FULL, TS, q0=q0)
    raw = RawKinematics(robot, "tip", chain.joint_names)
    assert c.get_state() is CtrlState.RUNNING and c.get_iter() == 0 and c.get_dim() == 3
    assert c.get_gamma() == 0.05 and c.get_guard_ratio() == 0.1 and c.get_exec_time() == 1.0
    assert c.get_in_target_tol() == 5e-3 and not c.is_watchdog_on()
    assert c.get_watchdog_tol() == 1e-4 and c.get_watchdog_max_iter() == 200
    np.testing.assert_array_equal(c.get_e(), np.zeros(6))
    np.testing.assert_array_equal(c.get_qdot(), np.zeros(3))
    np.testing.assert_array_equal(c.get_weights(), np.ones(3))  # W = I before the first update
    x = c.get_x()
    M = raw.pose(q0)
    np.testing.assert_allclose(x[:3], M.translation, atol=1e-12)
    np.testing.assert_allclose(pin.exp3(x[3:6] * x[6]), M.rotation, atol=1e-12)
    np.testing.assert_allclose(c.get_J(), raw.jacobian(q0), atol=1e-12)
    assert c.algo_name == c.getAlgoName() == "multi-referential-minimum-jerk-controllers"


def test_default_q0_is_rest_clipped():
    _, chain = serial_chain(2, 0.2, 1.0)  # neutral 0 lies below the lower limit 0.2
    c = MultiRefMinJerkCtrl(chain, "xyz", TS)
    np.testing.assert_array_equal(c.get_q(), [0.2, 0.2])


def test_ctrl_pose_names_and_jacobian_2d(one_dof):
    _, chain = one_dof
    for value, expected in (("full", 0), ("XYZ", 1), ("ang", 2), (1, 1), (CtrlPose.ANG, 2)):
        c = MultiRefMinJerkCtrl(chain, value, TS)
        assert c.get_ctrl_pose() == expected
        assert c.get_J().shape == (6, 1)
    c.iterate(chain.pose7(np.array([0.5])), [0.5])
    assert c.get_J().shape == (6, 1)


def test_one_dof_robot_jacobian_is_2d():
    """A robot whose only joint is the chain's (nv = 1): J stays 6×1 (spec §0)."""
    _, chain = serial_chain(1, -1.0, 1.0, aux=False)
    c = MultiRefMinJerkCtrl(chain, "full", TS, q0=[0.2])
    c.iterate(chain.pose7(np.array([0.5])), [0.5])
    J = c.get_J()
    assert J.shape == (6, 1)
    np.testing.assert_allclose(J[:, 0], [-0.5 * np.sin(0.2), 0.5 * np.cos(0.2), 0, 0, 0, 1], atol=1e-12)


def test_error_masking_and_one_step_late_error(planar):
    robot, chain = planar
    raw = RawKinematics(robot, "tip", chain.joint_names)
    q0 = np.deg2rad([20.0, 60.0, 40.0])
    target = pin.SE3(pin.rpy.rpyToMatrix(0.0, 0.0, 0.4), np.array([0.3, 0.35, 0.0]))
    for mode in CtrlPose:
        c = MultiRefMinJerkCtrl(chain, mode, TS, q0=q0)
        for _ in range(3):
            q_before = c.get_q()
            c.iterate(target, q0)
        M = raw.pose(q_before)  # e is the error at the q *before* the last step
        e = np.concatenate((target.translation - M.translation, pin.log3(target.rotation @ M.rotation.T)))
        if mode == CtrlPose.XYZ:
            e[3:] = 0.0
        if mode == CtrlPose.ANG:
            e[:3] = 0.0
        np.testing.assert_allclose(c.get_e(), e, atol=1e-12)
        assert c.dist() == pytest.approx(np.linalg.norm(e), abs=1e-12)
        # x is FK of the *new* q; J is the Jacobian at the q before the step
        M_new = raw.pose(c.get_q())
        np.testing.assert_allclose(c.get_pose().homogeneous, M_new.homogeneous, atol=1e-12)
        np.testing.assert_allclose(c.get_x()[:3], M_new.translation, atol=1e-12)
        np.testing.assert_allclose(c.get_J(), raw.jacobian(q_before), atol=1e-12)
        np.testing.assert_allclose(c.get_xdot(), raw.jacobian(q_before) @ c.get_qdot(), atol=1e-12)


def test_se3_and_pose7_targets_agree(planar):
    _, chain = planar
    q0 = np.deg2rad([20.0, 60.0, 40.0])
    target = pin.SE3(pin.rpy.rpyToMatrix(0.0, 0.0, -0.7), np.array([0.4, -0.2, 0.0]))
    w = pin.log3(target.rotation)
    x7 = np.concatenate((target.translation, w / np.linalg.norm(w), [np.linalg.norm(w)]))
    a = MultiRefMinJerkCtrl(chain, "full", TS, q0=q0)
    b = MultiRefMinJerkCtrl(chain, "full", TS, q0=q0)
    for _ in range(20):
        qa, qb = a.iterate(target, q0), b.iterate(x7, q0)
    np.testing.assert_allclose(qa, qb, atol=1e-12)


# ------------------------------------------------------------------------------------ 3. exec time
def test_exec_time_clamp():
    _, chain = serial_chain(1)
    c = MultiRefMinJerkCtrl(chain, "full", TS)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert c.set_exec_time(0.05) == pytest.approx(0.1)  # no warning by default
    assert c.get_exec_time() == pytest.approx(0.1)
    with pytest.warns(UserWarning, match="clamped"):
        assert c.set_execTime(0.0, warn=True) == pytest.approx(0.1)
    assert c.set_exec_time(2.5) == 2.5 and c.get_execTime() == 2.5


def test_exec_time_change_mid_motion_keeps_filter_state():
    """γ = 0: q̇ is the joint filter's output; replay it with a hand-written difference equation."""
    _, chain = serial_chain(1, -3.0, 3.0)
    c = MultiRefMinJerkCtrl(chain, "full", TS, q0=[0.0])
    c.set_gamma(0.0)
    qd = np.array([1.0])
    xd = chain.pose7(qd)
    schedule = [(1.0, 30), (0.05, 20), (2.0, 25)]  # 0.05 is clamped to 0.1
    u_hist, y_hist, q_hist, coeffs = [], [], [], []
    for T, steps in schedule:
        T_used = c.set_exec_time(T)
        for _ in range(steps):
            q_hist.append(c.get_q()[0])
            u_hist.append(qd[0] - q_hist[-1])
            c.iterate(xd, qd)
            y_hist.append(c.get_qdot()[0])
            coeffs.append(ideal_coeffs(T_used))
    q_hist.append(c.get_q()[0])

    def replay(reset_at_switch: bool) -> np.ndarray:
        u_past, y_past, out = [0.0, 0.0], [0.0, 0.0], []
        for k, u in enumerate(u_hist):
            if reset_at_switch and k > 0 and coeffs[k][0][0] != coeffs[k - 1][0][0]:
                u_past, y_past = [0.0, 0.0], [0.0, 0.0]
            b, a = coeffs[k]
            y = b[0] * u + b[1] * u_past[0] + b[2] * u_past[1] - a[1] * y_past[0] - a[2] * y_past[1]
            u_past, y_past = [u, u_past[0]], [y, y_past[0]]
            out.append(y)
        return np.array(out)

    np.testing.assert_allclose(y_hist, replay(False), rtol=0, atol=1e-12)
    assert np.abs(np.array(y_hist) - replay(True)).max() > 1e-2  # a reset would be visible
    # trapezoidal integration of q̇ (no saturation here)
    y = np.concatenate(([0.0], y_hist))
    np.testing.assert_allclose(np.diff(q_hist), 0.5 * TS * (y[1:] + y[:-1]), atol=1e-14)


# -------------------------------------------------------------------------------------- 4. weights
def test_weights_spec_values(one_dof):
    _, chain = one_dof
    c = MultiRefMinJerkCtrl(chain, "full", TS)
    expected = {0.0: 0.05, 0.925: 0.025, -0.925: 0.025, 0.96: 0.0, -0.96: 0.0, 1.0: 0.0, -1.0: 0.0}
    for q, w in expected.items():
        c.set_q([q])
        assert c.compute_weight()[0] == pytest.approx(w, abs=1e-15), q
    for q in (0.95, -0.95):  # exactly MaxExt/MinExt: 0 up to the rounding of the band edge
        c.set_q([q])
        assert c.compute_weight()[0] == pytest.approx(0.0, abs=1e-5)
    assert c.get_weights()[0] == c.computeWeight()[0]


@pytest.mark.parametrize(("gamma", "ratio"), [(0.05, 0.1), (2.0, 0.4), (0.5, 1.0), (0.3, 0.0)])
def test_weights_match_rules_and_are_symmetric(gamma, ratio):
    _, chain = serial_chain(3, -1.0, 1.0)
    c = MultiRefMinJerkCtrl(chain, "full", TS)
    c.set_gamma(gamma)
    c.set_guard_ratio(ratio)
    grid = np.linspace(-1.0, 1.0, 401)[1:-1] + 1e-7  # off the band edges
    for k in range(0, grid.size - 2, 3):
        q = grid[k : k + 3]
        c.set_q(q)
        w = c.compute_weight()
        np.testing.assert_allclose(w, [spec_weight(v, -1, 1, gamma, ratio) for v in q], atol=1e-14)
        c.set_q(-q)
        np.testing.assert_allclose(c.compute_weight(), w, atol=1e-14)
    # the pure function agrees, for asymmetric and infinite limits too
    lo, hi = np.array([-0.5, -2.0, -np.inf]), np.array([1.5, 0.3, np.inf])
    for q in np.linspace(-0.49, 0.29, 7):
        qv = np.array([q, q, 50.0])
        w = guard_weights(qv, lo, hi, gamma, ratio)
        expected = [spec_weight(q, -0.5, 1.5, gamma, ratio), spec_weight(q, -2.0, 0.3, gamma, ratio), gamma]
        np.testing.assert_allclose(w, expected, atol=1e-14)


def test_guard_ratio_is_clamped(one_dof):
    _, chain = one_dof
    c = MultiRefMinJerkCtrl(chain, "full", TS)
    c.set_guard_ratio(3.0)
    assert c.get_guard_ratio() == 1.0
    c.set_guardRatio(-1.0)
    assert c.get_guardRatio() == 0.0
    c.set_q([0.999])
    assert c.compute_weight()[0] == 0.05  # no band at ratio 0


# ---------------------------------------------------------------------------------------- 5. blend
def test_blend_gamma_zero_is_joint_loop_exactly():
    rng = np.random.default_rng(3)
    for n in (1, 3, 7):
        qj, xt, J = rng.normal(size=n), rng.normal(size=6), rng.normal(size=(6, n))
        assert np.array_equal(blend_velocities(qj, xt, J, np.zeros(n)), qj)


def test_blend_solves_normal_equations():
    rng = np.random.default_rng(4)
    for n in (1, 2, 6, 7, 12):
        for _ in range(5):
            qj, xt, J = rng.normal(size=n), rng.normal(size=6), rng.normal(size=(6, n))
            w = rng.uniform(0.01, 50.0, size=n)
            qdot = blend_velocities(qj, xt, J, w)
            lhs = (np.diag(1.0 / w) + J.T @ J) @ (qdot - qj)
            np.testing.assert_allclose(lhs, J.T @ (xt - J @ qj), rtol=1e-9, atol=1e-9)
            # the minimiser of ‖q̇ − q̇_J‖²_{W⁻¹} + ‖J q̇ − ẋ_T‖² as a stacked least-squares problem
            A = np.vstack((np.diag(1.0 / np.sqrt(w)), J))
            rhs = np.concatenate((qj / np.sqrt(w), xt))
            np.testing.assert_allclose(qdot, np.linalg.lstsq(A, rhs, rcond=None)[0], rtol=1e-8, atol=1e-8)


def test_controller_gamma_zero_ignores_task(planar):
    """γ = 0: the task target and task velocity have no effect on q (pure joint-space min-jerk)."""
    _, chain = planar
    q0, qd = np.deg2rad([20.0, 60.0, 40.0]), np.deg2rad([-30.0, 90.0, -20.0])
    a = MultiRefMinJerkCtrl(chain, "full", TS, q0=q0)
    b = MultiRefMinJerkCtrl(chain, "xyz", TS, q0=q0)
    a.set_gamma(0.0)
    b.set_gamma(0.0)
    for k in range(50):
        qa = a.iterate(chain.pose7(qd), qd)
        qb = b.iterate(
            np.array([1.0, 2.0, 0.0, 0.0, 0.0, 1.0, 0.0]), qd, [0.1, 0, 0, 0, 0, 1, 2] if k % 2 else None
        )
        assert np.array_equal(qa, qb)


def test_controller_blends_task_velocity(planar):
    """With xdot_set the blend uses (v, axis·speed); q̇_J comes from a γ = 0 twin."""
    robot, chain = planar
    raw = RawKinematics(robot, "tip", chain.joint_names)
    q0, qd = np.deg2rad([20.0, 60.0, 40.0]), np.deg2rad([-30.0, 90.0, -20.0])
    a = MultiRefMinJerkCtrl(chain, "full", TS, q0=q0)
    twin = MultiRefMinJerkCtrl(chain, "full", TS, q0=q0)
    a.set_gamma(0.7)
    twin.set_gamma(0.0)
    xdot_set = np.array([0.05, -0.02, 0.0, 0.0, 0.0, 1.0, 0.3])
    for _ in range(5):
        q_before = a.get_q()
        twin.set_q(q_before)
        a.iterate(chain.pose7(qd), qd, xdot_set)
        twin.iterate(chain.pose7(qd), qd)
        xt = np.array([0.05, -0.02, 0.0, 0.0, 0.0, 0.3])
        expected = blend_velocities(twin.get_qdot(), xt, raw.jacobian(q_before), a.get_weights())
        np.testing.assert_allclose(a.get_qdot(), expected, atol=1e-12)
        np.testing.assert_allclose(a.get_weights(), np.full(3, 0.7))


# ------------------------------------------------------------------------------ 6. planar 3R reach
def test_planar_reach_and_straighter_paths_with_gamma(planar):
    _, chain = planar
    q0, qd = np.deg2rad([20.0, 60.0, 40.0]), np.deg2rad([-30.0, 90.0, -20.0])
    p0, p1 = planar_fk(q0)[0], planar_fk(qd)[0]
    seg = p1 - p0
    length = float(np.linalg.norm(seg))
    deviations = []
    for gamma in (0.0, 5.0, 50.0, 500.0):
        c = MultiRefMinJerkCtrl(chain, "full", TS, q0=q0)
        c.set_gamma(gamma)
        xd = chain.pose7(qd)
        dev = 0.0
        for _ in range(300):
            q = c.iterate(xd, qd)
            p = planar_fk(q)[0]
            s = np.clip((p - p0) @ seg / length**2, 0.0, 1.0)
            dev = max(dev, float(np.linalg.norm(p - (p0 + s * seg))))
        p, heading = planar_fk(c.get_q())
        assert np.linalg.norm(p - p1) < 1e-4, gamma
        assert abs(heading - qd.sum()) < 1e-3
        deviations.append(dev / length)
    assert all(b < a for a, b in itertools.pairwise(deviations)), deviations
    assert deviations[-1] < 0.2 * deviations[0]


# ------------------------------------------------------------------------------------ 7. saturation
def test_saturation_and_no_windup(one_dof):
    _, chain = one_dof
    c = MultiRefMinJerkCtrl(chain, "full", TS, q0=[0.0])
    outside = np.array([1.5])
    xd_out = chain.pose7(outside)
    first_at_limit = None
    for k in range(300):
        q = c.iterate(xd_out, outside)
        assert -1.0 <= q[0] <= 1.0
        if first_at_limit is None and q[0] == 1.0:
            first_at_limit = k
    assert first_at_limit is not None and c.get_q()[0] == 1.0  # pressed against the limit for long
    inside = np.array([0.0])
    xd_in = chain.pose7(inside)
    for _ in range(30):
        q = c.iterate(xd_in, inside)
        if q[0] < 1.0:
            break
    assert q[0] < 1.0, "q stayed at the limit: wind-up"
    for _ in range(300):
        q = c.iterate(xd_in, inside)
        assert -1.0 <= q[0] <= 1.0
    assert abs(q[0]) < 1e-3


def test_planar_joint_limits_never_exceeded(planar):
    robot, chain = planar
    raw = RawKinematics(robot, "tip", chain.joint_names)
    c = MultiRefMinJerkCtrl(chain, "full", TS, q0=np.deg2rad([0.0, 150.0, 10.0]))
    c.set_gamma(5.0)
    qd = np.array([0.3, 3.5, -0.2])  # joint 2 beyond its 170° limit
    for _ in range(400):
        q = c.iterate(chain.pose7(np.clip(qd, chain.lower, chain.upper)), qd)
        assert np.all(q >= raw.lower) and np.all(q <= raw.upper)
    assert c.get_q()[1] == pytest.approx(raw.upper[1], abs=1e-12)


# -------------------------------------------------------------------------------- compensation etc.
def test_compensation_lasts_one_iterate(planar):
    _, chain = planar
    q0, qd = np.deg2rad([20.0, 60.0, 40.0]), np.deg2rad([-30.0, 90.0, -20.0])
    a = MultiRefMinJerkCtrl(chain, "full", TS, q0=q0)
    b = MultiRefMinJerkCtrl(chain, "full", TS, q0=q0)
    comp = np.array([0.1, -0.2, 0.05])
    xd = chain.pose7(qd)
    for k in range(10):
        if k == 3:
            a.add_compensation(np.array([9.0, 9.0, 9.0]))
            a.add_compensation(comp)  # replaces the pending one
            qa, qb = a.iterate(xd, qd), b.iterate(xd, qd + comp)
        else:
            qa, qb = a.iterate(xd, qd), b.iterate(xd, qd)
        np.testing.assert_allclose(qa, qb, atol=1e-13)


def test_restart_matches_fresh_controller(planar):
    _, chain = planar
    q0, qd = np.deg2rad([20.0, 60.0, 40.0]), np.deg2rad([-30.0, 90.0, -20.0])
    xd = chain.pose7(qd)
    a = MultiRefMinJerkCtrl(chain, "full", TS, q0=q0)
    for _ in range(40):
        a.iterate(xd, qd)
    q_restart = np.deg2rad([10.0, 30.0, 5.0])
    a.restart(q_restart)
    assert a.get_iter() == 0 and a.get_state() == CtrlState.RUNNING
    np.testing.assert_array_equal(a.get_qdot(), np.zeros(3))
    np.testing.assert_array_equal(a.get_xdot(), np.zeros(6))
    fresh = MultiRefMinJerkCtrl(chain, "full", TS, q0=q_restart)
    for _ in range(30):
        np.testing.assert_allclose(a.iterate(xd, qd), fresh.iterate(xd, qd), atol=1e-13)
    assert a.get_iter() == 30


def test_set_q_clamps_and_resets_integrator_only(one_dof):
    _, chain = one_dof
    c = MultiRefMinJerkCtrl(chain, "full", TS, q0=[0.0])
    c.set_gamma(0.0)
    qd = np.array([0.8])
    for _ in range(10):
        c.iterate(chain.pose7(qd), qd)
    assert c.set_q([5.0])[0] == 1.0
    assert c.get_x()[:3] == pytest.approx(chain.fk(np.array([1.0])).translation)
    c.set_q([0.2])
    c.iterate(chain.pose7(qd), qd)
    qdot = c.get_qdot()[0]
    assert abs(qdot) > 0.1  # the filter kept its (non-zero) state
    assert c.get_q()[0] == pytest.approx(0.2 + 0.5 * TS * qdot, abs=1e-15)  # previous input reset to 0
