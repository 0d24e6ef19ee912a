"""Step-timing adaptation (wbcpy.locomotion.step_timing, WalkingPattern.retime, the swing's acceleration
limit): each decision checked against the LIPM itself — the DCM equation ξ̇ = ω(ξ − p) integrated
numerically by scipy (an independent oracle of the closed forms), the quintic's closed-form peaks
(15/8 d/T, 10/√3 d/T²) — and Romeo's 12 N·s push walked to the acceptance checks."""

from __future__ import annotations

import copy
import math
import pickle

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from wbcpy.errors import ConfigError
from wbcpy.locomotion.footsteps import plan_footsteps
from wbcpy.locomotion.pattern import WalkingPattern
from wbcpy.locomotion.step_timing import (
    capture_step,
    double_support_time,
    touchdown_choice,
    transfer_progress,
)
from wbcpy.locomotion.swing_speed import speed_limited

W = 3.4  # ω (1/s): a 0.85 m pendulum


def _dcm_after(w: float, xi0: np.ndarray, zmp, t0: float, t1: float) -> np.ndarray:
    """ξ(t1) from ξ(t0) = xi0 under ξ̇ = ω(ξ − p(t)) (numerically, either direction of time)."""
    sol = solve_ivp(lambda t, x: w * (x - zmp(t)), (t0, t1), xi0, rtol=1e-11, atol=1e-13)
    return sol.y[:, -1]


@pytest.mark.parametrize("T", [0.05, 0.2, 0.6])
def test_capture_step_lands_the_dcm_at_the_plan_offset(T):
    xi, zeta, b = np.array([0.31, 0.04]), np.array([0.27, -0.1]), np.array([0.02, -0.05])
    u = capture_step(W, xi, zeta, b, T)
    xi_td = _dcm_after(W, xi, lambda t: zeta, 0.0, T)
    np.testing.assert_allclose(xi_td - u, b, atol=1e-8)


def _speed_place(p: np.ndarray, v_max: float):
    """The footstep a foot at rest at p reaches in T towards u within a peak ground speed v_max: the
    quintic from rest over d peaks at 15/8 d/T, so d ≤ 8 v_max T / 15."""

    def place(T: float, u: np.ndarray) -> np.ndarray:
        d = u - p
        n = float(np.linalg.norm(d))
        reach = 8.0 * v_max * T / 15.0
        return u.copy() if n <= reach else p + d * (reach / n)

    return place


def test_touchdown_choice_keeps_the_plan_when_the_step_is_in_reach():
    times = [0.1, 0.15, 0.2]
    T, u, miss = touchdown_choice(W, np.array([0.3, 0.0]), np.array([0.3, -0.1]), np.zeros(2), times,
                                  lambda T, u: u.copy())  # fmt: skip
    assert T == 0.2 and miss == 0.0
    np.testing.assert_allclose(
        u, capture_step(W, np.array([0.3, 0.0]), np.array([0.3, -0.1]), np.zeros(2), 0.2)
    )


def test_touchdown_choice_lands_early_when_the_leg_is_too_slow():
    """A push towards the swing side 0.2 s before touch-down: the capture step grows as e^{ωT} faster
    than a leg of 1 m/s can follow; the choice lands earlier, nearer the step it can make, and the DCM
    then lands as far from the plan's offset as the choice says (the LIPM integrated)."""
    foot = np.array([0.4, 0.1])
    xi, zeta, b = np.array([0.32, 0.05]), np.array([0.27, -0.1]), np.array([-0.12, -0.05])
    times = list(np.linspace(0.1, 0.2, 11))
    place = _speed_place(foot, 1.0)
    T, u, miss = touchdown_choice(W, xi, zeta, b, times, place, tolerance=1e-3)

    def remainder(T: float) -> float:  # the closed form: how far the capture step lies beyond the reach
        need = float(np.linalg.norm(zeta + (xi - zeta) * math.exp(W * T) - b - foot))
        return max(0.0, need - 8.0 * T / 15.0)

    assert T < 0.2 - 1e-9
    assert remainder(T) < remainder(0.2) - 0.01
    assert min(remainder(t) for t in times) >= remainder(T) - 1e-3 - 1e-12
    assert miss == pytest.approx(remainder(T), abs=1e-12)
    xi_td = _dcm_after(W, xi, lambda t: zeta, 0.0, T)
    assert float(np.linalg.norm(xi_td - b - u)) == pytest.approx(miss, abs=1e-7)


def test_touchdown_choice_refuses_no_times():
    with pytest.raises(ValueError, match="at least one"):
        touchdown_choice(W, np.zeros(2), np.zeros(2), np.zeros(2), [], lambda T, u: u)


def _transfer_oracle(w, a, b, xi_end, T) -> float:
    """The DCM at the start of a double support of T seconds, its ZMP linear from a to b, integrated
    backward from ξ(T) = xi_end, as its progress along (b − a)."""
    zmp = lambda t: a + (b - a) * t / T  # noqa: E731
    xi0 = _dcm_after(w, xi_end, zmp, T, 0.0)
    d = b - a
    return float(d @ (xi0 - a) / np.linalg.norm(d))


@pytest.mark.parametrize("T", [0.1, 0.2, 0.6])
def test_transfer_progress_is_the_lipm_integrated_backward(T):
    a, b, xi_end = np.array([0.4, 0.17]), np.array([0.5, -0.02]), np.array([0.49, 0.01])
    assert transfer_progress(W, a, b, xi_end, T) == pytest.approx(
        _transfer_oracle(W, a, b, xi_end, T), abs=1e-8
    )


def test_double_support_time_meets_the_measured_dcm():
    """A DCM that lags its transfer gets a longer double support whose plan starts where it is, one that
    leads it a shorter one; beyond the bounds, the bounds."""
    a, b, xi_end = np.array([0.4, 0.17]), np.array([0.5, -0.02]), np.array([0.49, 0.01])
    d = (b - a) / np.linalg.norm(b - a)
    planned = _transfer_oracle(W, a, b, xi_end, 0.2)
    for shift, longer in ((-0.03, True), (0.01, False)):
        xi = a + (planned + shift) * d
        T = double_support_time(W, xi, a, b, xi_end, 0.1, 0.6)
        assert (T > 0.2) if longer else (T < 0.2)
        assert _transfer_oracle(W, a, b, xi_end, T) == pytest.approx(planned + shift, abs=1e-6)
    assert double_support_time(W, a - 0.5 * d, a, b, xi_end, 0.1, 0.6) == 0.6
    assert double_support_time(W, b + 0.5 * d, a, b, xi_end, 0.1, 0.6) == 0.1


def test_speed_limited_honours_the_acceleration_limit():
    """From rest, a quintic over d in T peaks at 10/√3 · d/T² (closed form): the acceleration limit A moves
    the footstep to d = A T² √3/10 (to the limiter's sampling of the path, a few percent, and its
    bisection's resolution); the speed limit is not the binding one."""
    zero, old, new = np.zeros(2), np.zeros(2), np.array([0.0, 0.2])
    T, A = 0.15, 15.0
    out = speed_limited(zero, zero, zero, old, new, T, 10.0, A)
    expected = A * T**2 * math.sqrt(3.0) / 10.0
    assert out[0] == 0.0 and out[1] == pytest.approx(expected, rel=0.03)
    np.testing.assert_array_equal(speed_limited(zero, zero, zero, old, new, T, 10.0), new)  # (no limit)


@pytest.fixture
def pattern(example_robot):
    robot = example_robot("talos")
    robot.update(robot.reference_configuration("half_sitting"), np.zeros(robot.nv))
    return WalkingPattern(robot, plan_footsteps(robot, 4, 0.15))


def _dcm_continuity(p: WalkingPattern) -> float:
    """The largest jump of the plan's DCM across its phase boundaries (m)."""
    jumps = []
    for ph in p.phases[1:-1]:
        before, after = p.dcm(ph.t1 - 1e-9), p.dcm(ph.t1 + 1e-9)
        jumps.append(float(np.linalg.norm(after - before)))
    return max(jumps)


@pytest.mark.parametrize(("kind", "delta"), [("single", -0.1), ("double", 0.3), ("double", -0.1)])
def test_retime_shifts_the_later_phases_and_replans(pattern, kind, delta):
    old = pattern.phases
    i = next(j for j, ph in enumerate(old) if ph.kind == kind and ph.step == 1)
    version = pattern.version
    pattern.retime(1, old[i].t1 + delta, kind)
    new = pattern.phases
    assert pattern.version == version + 1
    assert new[:i] == old[:i] and new[i].t0 == old[i].t0
    assert new[i].t1 == pytest.approx(old[i].t1 + delta)
    for a, b in zip(old[i + 1 :], new[i + 1 :], strict=True):
        assert (b.kind, b.step, b.t1 - b.t0) == (a.kind, a.step, pytest.approx(a.t1 - a.t0))
        assert b.t0 == pytest.approx(a.t0 + delta)
    assert pattern.duration == pytest.approx(new[-1].t1)
    assert _dcm_continuity(pattern) < 1e-6
    # the plan is the LIPM's over the new timeline: the DCM over the retimed phase, integrated forward
    ph = new[i]
    t0, t1 = ph.t0 + 1e-9, ph.t1 - 1e-9
    xi = _dcm_after(pattern.omega, pattern.dcm(t0), lambda t: np.array(pattern.lipm(t)[2]), t0, t1)
    np.testing.assert_allclose(xi, pattern.dcm(ph.t1 - 1e-9), atol=1e-6)


@pytest.mark.parametrize(
    ("args", "field"),
    [((1, 1e9), "t1"), ((1, -1.0), "t1"), ((1, math.nan), "t1"), ((99, 3.0), "k"), ((True, 3.0), "k"),
     ((1, 3.0, "triple"), "kind")],
)  # fmt: skip
def test_retime_refuses_bad_input_and_changes_nothing(pattern, args, field):
    before = (pattern.phases, pattern.version, pattern.duration, pattern.dcm(3.0).copy())
    with pytest.raises(ConfigError) as info:
        pattern.retime(*args)
    assert info.value.field == field
    assert (pattern.phases, pattern.version, pattern.duration) == before[:3]
    np.testing.assert_array_equal(pattern.dcm(3.0), before[3])


def test_a_retimed_copy_leaves_its_original(pattern):
    for twin in (pattern.copy(), copy.deepcopy(pattern), pickle.loads(pickle.dumps(pattern))):
        twin.retime(1, twin.phases[3].t1 - 0.1)
        assert twin.duration == pytest.approx(pattern.duration - 0.1)
    assert pattern.version == 0 and pattern.phases[3].t1 == pytest.approx(1.0 + 0.8 + 0.6)


def test_romeo_takes_a_push_late_in_its_swing(tmp_path, example_robot):
    """Romeo pushed (12 N·s to the left, 0.2 s before its left foot lands: a capture step its hips cannot
    swing in that time): the foot lands early at a step it can make, the double supports after it are
    retimed to the DCM, and the walk passes every acceptance check."""
    import warnings

    from _walk_acceptance import accept

    from wbcpy.errors import WalkingWarning
    from wbcpy.locomotion import walk

    example_robot("romeo")
    path = tmp_path / "walk.npz"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WalkingWarning)
        summary = walk("romeo", n_steps=4, length=0.12, push=(12.0, 3.0), log=path)
    with np.load(path) as f:
        log = {k: f[k] for k in f.files}
    result = accept(log, 4, 0.12, pushed=True, push_time=3.0, robot="romeo")
    assert result.failures == [], (result.failures, result.figures)
    assert summary.ok, summary.text()
    left = 0  # (the contact frames are the left sole, then the right)
    lands = np.flatnonzero(log["active"][1:, left] & ~log["active"][:-1, left]) + 1
    assert 3.1 - 1e-9 <= log["t"][lands[log["t"][lands] > 3.0][0]] < 3.2 - 1e-9
