"""WalkingPattern.swing_into (compiled) against the closed forms of its minimum-jerk and bump profiles, its
buffer checks and layouts; WalkingPattern.planted (cached per phase) against the footsteps, as copies that
follow a re-plan."""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin
import pytest

from wbcpy import load_robot
from wbcpy.errors import InvalidValueError
from wbcpy.locomotion import WalkingPattern, plan_footsteps
from wbcpy.locomotion.footsteps import yaw_of


@pytest.fixture(scope="module")
def robot():  # type: ignore[no-untyped-def]
    robot = load_robot("talos")
    robot.update(robot.reference_configuration("half_sitting"), np.zeros(robot.nv))
    return robot


@pytest.fixture()
def pattern(robot) -> WalkingPattern:  # type: ignore[no-untyped-def]
    return WalkingPattern(robot, plan_footsteps(robot, 3, 0.15, turn=0.6))


def _closed_form(pattern: WalkingPattern, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The swinging sole's pose, velocity and acceleration from the expanded polynomials: m(s) = 10s³ − 15s⁴
    + 6s⁵ and b(s) = 64 s³(1 − s)³ = 64 (s³ − 3s⁴ + 3s⁵ − s⁶), differentiated term by term."""
    ph = pattern.phase(t)
    k = ph.step
    a = pattern.foot_before(k, ph.swing)
    b = pattern.footstep(k).placement
    T = ph.t1 - ph.t0
    s = (t - ph.t0) / T
    m = 10 * s**3 - 15 * s**4 + 6 * s**5
    dm = (30 * s**2 - 60 * s**3 + 30 * s**4) / T
    ddm = (60 * s - 180 * s**2 + 120 * s**3) / T**2
    z = 64 * (s**3 - 3 * s**4 + 3 * s**5 - s**6)
    dz = 64 * (3 * s**2 - 12 * s**3 + 15 * s**4 - 6 * s**5) / T
    ddz = 64 * (6 * s - 36 * s**2 + 60 * s**3 - 30 * s**4) / T**2
    d = b.translation - a.translation
    dyaw = (yaw_of(b.rotation) - yaw_of(a.rotation) + math.pi) % (2 * math.pi) - math.pi
    h = pattern.step_height
    yaw = yaw_of(a.rotation) + m * dyaw
    M = np.eye(4)
    M[:3, :3] = pin.rpy.rpyToMatrix(0.0, 0.0, yaw)
    M[:3, 3] = a.translation + m * d + [0.0, 0.0, h * z]
    vel = np.r_[dm * d + [0.0, 0.0, h * dz], 0.0, 0.0, dm * dyaw]
    acc = np.r_[ddm * d + [0.0, 0.0, h * ddz], 0.0, 0.0, ddm * dyaw]
    return M, vel, acc


def test_swing_matches_the_closed_form_in_every_single_support(pattern: WalkingPattern) -> None:
    singles = [ph for ph in pattern.phases if ph.kind == "single"]
    assert len(singles) == 3
    for ph in singles:
        for t in np.linspace(ph.t0, ph.t1, 23)[1:-1]:
            M, vel, acc = np.full((4, 4), 9.0), np.zeros(6), np.zeros(6)
            assert pattern.swing_into(float(t), M, vel, acc) == ph.swing
            M_cf, vel_cf, acc_cf = _closed_form(pattern, float(t))
            np.testing.assert_allclose(M[:3], M_cf[:3], rtol=0.0, atol=1e-12)
            np.testing.assert_array_equal(M[3], 9.0)  # (the last row is the caller's)
            np.testing.assert_allclose(vel, vel_cf, rtol=0.0, atol=1e-11)
            np.testing.assert_allclose(acc, acc_cf, rtol=0.0, atol=1e-10)


def test_swing_is_the_derivative_of_its_pose(pattern: WalkingPattern) -> None:
    ph = next(ph for ph in pattern.phases if ph.kind == "single")
    t, h = 0.5 * (ph.t0 + ph.t1) + 0.013, 1e-6
    out = [(np.eye(4), np.zeros(6), np.zeros(6)) for _ in range(3)]
    for (M, vel, acc), tt in zip(out, (t - h, t, t + h), strict=True):
        pattern.swing_into(tt, M, vel, acc)
    (Ma, va, _), (_, v, a), (Mb, vb, _) = out
    np.testing.assert_allclose(v[:3], (Mb[:3, 3] - Ma[:3, 3]) / (2 * h), atol=1e-7)
    np.testing.assert_allclose(a, (vb - va) / (2 * h), atol=1e-6)
    assert v[5] == pytest.approx((yaw_of(Mb[:3, :3]) - yaw_of(Ma[:3, :3])) / (2 * h), abs=1e-7)


def test_swing_writes_into_strided_and_shared_buffers(pattern: WalkingPattern) -> None:
    t = pattern.phases[1].t0 + 0.2
    M, vel, acc = np.eye(4), np.zeros(6), np.zeros(6)
    pattern.swing_into(t, M, vel, acc)
    big, wide = np.zeros((8, 8)), np.zeros(12)  # (strided views: the layout the kernel does not take)
    assert pattern.swing_into(t, big[::2, ::2], wide[::2], acc.copy()) is not None
    np.testing.assert_array_equal(big[:6:2, ::2], M[:3])
    np.testing.assert_array_equal(wide[::2], vel)
    same = np.zeros(6)  # (one array as both: written as velocity, then acceleration)
    pattern.swing_into(t, np.eye(4), same, same)
    np.testing.assert_array_equal(same, acc)


class _Sub(np.ndarray):
    """An ndarray subclass (not taken as a buffer)."""


@pytest.mark.parametrize("bad", ["float32", "read-only", "shape", "list", "subclass"])
@pytest.mark.parametrize("t", [0.5, 1.3])  # (both feet planted, and a swing)
def test_bad_buffers_raise_and_write_nothing(pattern: WalkingPattern, bad: str, t: float) -> None:
    vel, acc = np.zeros(6), np.zeros(6)
    M = {"float32": np.eye(4, dtype=np.float32), "shape": np.eye(3), "list": np.eye(4).tolist(),
         "subclass": np.eye(4).view(_Sub), "read-only": np.eye(4)}[bad]  # fmt: skip
    if bad == "read-only":
        M.setflags(write=False)
    with pytest.raises(InvalidValueError, match="M"):
        pattern.swing_into(t, M, vel, acc)
    assert not vel.any() and not acc.any()
    with pytest.raises(InvalidValueError, match="t"):
        pattern.swing_into(float("nan"), np.eye(4), vel, acc)


def test_planted_soles_follow_the_schedule(pattern: WalkingPattern) -> None:
    start = pattern.start
    for ph in pattern.phases:
        t = 0.5 * (ph.t0 + ph.t1)
        planted = pattern.planted(t)
        if ph.kind == "start":
            expected = start
        elif ph.kind == "single":
            expected = {ph.stance: pattern.foot_before(ph.step, ph.stance)}
        else:
            k = len(pattern.steps) if ph.kind == "end" else ph.step + 1
            expected = {side: pattern.foot_before(k, side) for side in ("left", "right")}
        assert list(planted) == list(expected)
        for side, M in expected.items():
            assert planted[side].isApprox(M, 1e-15)


def test_planted_returns_copies_that_follow_a_replan(pattern: WalkingPattern) -> None:
    t = pattern.phases[-1].t0 + 0.1  # (the end: both feet on their last footsteps)
    first = pattern.planted(t)
    first["left"].translation = np.array([9.0, 9.0, 9.0])  # (a copy: the pattern is not changed)
    again = pattern.planted(t)
    assert not again["left"].isApprox(first["left"])
    last = len(pattern.steps) - 1
    side = pattern.steps[last].side
    moved = pattern.steps[last].placement
    moved.translation = moved.translation + np.array([0.02, 0.0, 0.0])
    pattern.set_step(last, moved)
    assert pattern.planted(t)[side].isApprox(moved, 1e-15)
    single = pattern.phases[1]
    before = pattern.planted(single.t1 - 0.05)
    pattern.retime(0, single.t1 - 0.1)  # (the touch-down earlier: that time is now double support)
    assert len(pattern.planted(single.t1 - 0.05)) == 2 and len(before) == 1


def test_sample_is_the_plan_in_closed_form(pattern: WalkingPattern) -> None:
    """sample (compiled) against lipm (the Python closed form) at every phase, and the DCM dynamics
    ξ̇ = ω (ξ − p) and ẋ, ẍ against finite differences of the samples."""
    w, h = pattern.omega, 1e-6
    for t in np.linspace(0.0, pattern.duration, 131)[1:-1]:
        pos, vel, acc, zmp, dcm = pattern.sample(float(t))
        x, xi, p = pattern.lipm(float(t))
        np.testing.assert_allclose(pos[:2], x, rtol=0.0, atol=1e-14)
        np.testing.assert_allclose(dcm, xi, rtol=0.0, atol=1e-14)
        np.testing.assert_allclose(zmp, p, rtol=0.0, atol=1e-14)
        before, after = pattern.sample(float(t) - h), pattern.sample(float(t) + h)
        np.testing.assert_allclose((after[4] - before[4]) / (2 * h), w * (dcm - zmp), atol=1e-6)
        np.testing.assert_allclose((after[0] - before[0]) / (2 * h), vel, atol=1e-6)
        np.testing.assert_allclose((after[1] - before[1]) / (2 * h), acc, atol=1e-5)
    with pytest.raises(InvalidValueError, match="t"):
        pattern.sample(float("inf"))
