"""WalkingPattern: the ZMP in the support polygon, the COM from the LIPM equation (finite differences),
the DCM definition, swing feet at rest at both ends."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.spatial import ConvexHull

from wbcpy.errors import ConfigError
from wbcpy.locomotion import WalkingPattern, plan_footsteps
from wbcpy.locomotion.profiles import quintic

HALF = (0.1, 0.065)


@pytest.fixture(scope="module")
def talos(example_robot):
    robot = example_robot("talos")
    robot.update(robot.reference_configuration("half_sitting"), np.zeros(robot.nv))
    return robot


def _margin(point, placements):
    """Signed distance of a point inside the convex hull of the planted soles' corners (m)."""
    X, Y = HALF
    local = np.array([[X, Y, 0], [X, -Y, 0], [-X, Y, 0], [-X, -Y, 0]])
    pts = np.vstack([(local @ M.rotation.T + M.translation)[:, :2] for M in placements])
    hull = ConvexHull(pts)
    return float(-(hull.equations[:, :2] @ point + hull.equations[:, 2]).max())


def _pattern(robot, **kw):
    steps = plan_footsteps(
        robot, n_steps=kw.pop("n", 4), length=kw.pop("length", 0.2), turn=kw.pop("turn", 0.0),
        lateral=kw.pop("lateral", 0.0)
    )  # fmt: skip
    return WalkingPattern(robot, steps, **kw)


@settings(max_examples=12, deadline=None)
@given(
    n=st.integers(2, 6),
    length=st.floats(-0.15, 0.3),
    turn=st.floats(-1.5, 1.5),
    lateral=st.floats(0.0, 0.1),
)
def test_zmp_inside_the_support_polygon(talos, n, length, turn, lateral):
    try:
        pattern = _pattern(talos, n=n, length=length, turn=turn, lateral=lateral)
    except ConfigError as exc:  # (plans whose soles would overlap: tests/locomotion/test_feet_apart.py)
        assume(exc.field != "turn")
        raise
    for t in np.arange(0.0, pattern.duration, 0.01):
        margin = _margin(pattern.zmp(t), list(pattern.planted(t).values()))
        assert margin >= -1e-9, (t, pattern.phase(t).kind, margin)
        if pattern.phase(t).kind == "single":  # at the stance sole's centre
            assert margin >= min(HALF) - 1e-6  # (the start soles tilt by ~1e-3 rad)


def test_com_obeys_the_lipm(talos):
    """ẍ = ω²(x − p), ẋ and ẍ against central differences of x, ξ = x + ẋ/ω, and x starts at rest."""
    pattern = _pattern(talos, n=5, length=0.2, turn=0.4)
    w, h = pattern.omega, 1e-4
    assert w == pytest.approx(math.sqrt(9.81 / pattern.com_height))
    times = np.concatenate(
        (np.arange(h, pattern.duration - h, 0.013), [p.t0 + h for p in pattern.phases[1:]])
    )
    for t in times:
        x, v, a = pattern.com(t)
        xm, xp = pattern.com(t - h)[0], pattern.com(t + h)[0]
        np.testing.assert_allclose(v, (xp - xm) / (2 * h), atol=2e-6)
        np.testing.assert_allclose(a, (xp - 2 * x + xm) / h**2, atol=2e-3)
        np.testing.assert_allclose(a[:2], w**2 * (x[:2] - pattern.zmp(t)), atol=1e-9)
        np.testing.assert_allclose(pattern.dcm(t), x[:2] + v[:2] / w, atol=1e-9)
    x0, v0, _ = pattern.com(0.0)
    np.testing.assert_allclose(x0, [*pattern.com0[:2].tolist(), pattern.com0[2]], atol=1e-12)
    np.testing.assert_allclose(v0, 0.0, atol=1e-12)
    # at the end the robot stands over the feet's midpoint, at rest
    xe, ve, _ = pattern.com(pattern.duration)
    mid = 0.5 * (pattern.steps[-1].xy + pattern.steps[-2].xy)
    np.testing.assert_allclose(xe[:2], mid, atol=2e-3)
    assert np.linalg.norm(ve) < 0.02


def test_swing_feet(talos):
    pattern = _pattern(talos, n=3, length=0.2, turn=0.3, step_height=0.06)
    singles = [p for p in pattern.phases if p.kind == "single"]
    assert len(singles) == 3
    for ph in singles:
        side, start, v0, a0 = pattern.swing(ph.t0)
        _, end, v1, a1 = pattern.swing(ph.t1 - 1e-12)
        assert side == ph.swing
        np.testing.assert_allclose(
            start.translation, pattern.foot_before(ph.step, side).translation, atol=1e-9
        )
        np.testing.assert_allclose(end.homogeneous, pattern.steps[ph.step].placement.homogeneous, atol=1e-9)
        for vec in (v0, a0, v1, a1):
            np.testing.assert_allclose(vec, 0.0, atol=1e-6)
        mid = pattern.swing(0.5 * (ph.t0 + ph.t1))[1].translation[2]
        assert mid == pytest.approx(pattern.ground + 0.06, abs=1e-9)
        # velocity and acceleration are the derivatives of the path (central differences)
        t, h = ph.t0 + 0.37 * (ph.t1 - ph.t0), 1e-5
        _, M, v, a = pattern.swing(t)
        Mm, Mp = pattern.swing(t - h)[1], pattern.swing(t + h)[1]
        np.testing.assert_allclose(v[:3], (Mp.translation - Mm.translation) / (2 * h), atol=1e-6)
        np.testing.assert_allclose(
            v[3:], (Mm.actInv(Mp)).rotation.dot([1, 0, 0])[1] / (2 * h) * np.array([0, 0, 1]), atol=1e-4
        )
        np.testing.assert_allclose(
            a[:3], (Mp.translation - 2 * M.translation + Mm.translation) / h**2, atol=1e-3
        )
    assert pattern.swing(0.5 * pattern.start_time) is None


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"step_time": 0.0}, "step_time"),
        ({"double_support_time": 0.9}, "double_support_time"),
        ({"com_height": -1.0}, "com_height"),
        ({"step_height": float("nan")}, "step_height"),
    ],
)
def test_bad_arguments(talos, kwargs, field):
    with pytest.raises(ConfigError) as info:
        _pattern(talos, **kwargs)
    assert info.value.field == field


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.floats(-2, 2), min_size=9, max_size=9),
    st.floats(0.05, 1.0),
)
def test_quintic_boundary_conditions(values, T):
    """The re-planned swing: the quintic starts at (p0, v0, a0) and ends at (p1, 0, 0)."""
    p0, v0, a0 = (np.array(values[i : i + 3]) for i in (0, 3, 6))
    p1 = p0 + 0.3
    path = quintic(p0, v0, a0, p1, T)
    for got, want in zip(path(0.0), (p0, v0, a0), strict=True):
        np.testing.assert_allclose(got, want, atol=1e-9)
    for got, want in zip(path(T), (p1, 0 * p1, 0 * p1), strict=True):
        np.testing.assert_allclose(got, want, atol=1e-7 * (1 + 1 / T**2))
    t, h = 0.3 * T, 1e-6
    np.testing.assert_allclose(path(t)[1], (path(t + h)[0] - path(t - h)[0]) / (2 * h), atol=1e-4)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(-2, 2), min_size=6, max_size=6), st.floats(0.05, 1.0))
def test_quintic_samples_match_its_calls(values, T):
    """``samples`` gives, row by row, what the path gives at each (clamped) time; its velocity and
    acceleration are the central differences of its positions."""
    p0, v0, a0 = (np.array(values[i : i + 2]) for i in (0, 2, 4))
    path = quintic(p0, v0, a0, p0 + 0.2, T)
    times = np.array([-0.1, 0.0, 0.25 * T, 0.6 * T, T, T + 0.5])
    got = path.samples(times)
    for k, t in enumerate(times):
        for rows, want in zip(got, path(float(t)), strict=True):
            np.testing.assert_allclose(rows[k], want, rtol=1e-12, atol=1e-12 * (1 + 1 / T**3))
    h = 1e-5 * T
    pos, vel, acc = path.samples(0.4 * T + np.array([-h, 0.0, h]))
    np.testing.assert_allclose(vel[1], (pos[2] - pos[0]) / (2 * h), rtol=1e-5, atol=1e-5 * (1 + 1 / T))
    np.testing.assert_allclose(acc[1], (vel[2] - vel[0]) / (2 * h), rtol=1e-5, atol=1e-5 * (1 + 1 / T**2))
