"""Feet kept apart: the footprint gap against an exact oracle (the distance between two rectangles from
corner–edge distances, overlap from a linear program), footstep plans refused exactly when the spec's
walking frame puts two soles on top of each other (the footsteps rebuilt here from the spec's formula),
sideways walks widened to keep a clearance, and the step adaptation's landing region off the stance sole."""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from wbcpy.errors import ConfigError
from wbcpy.locomotion import WalkingController, WalkingPattern, plan_footsteps
from wbcpy.locomotion.footsteps import feet_frame
from wbcpy.locomotion.push_recovery import reachable
from wbcpy.locomotion.sole_gap import SOLE_CLEARANCE, footprint_gap

HALF = (0.1, 0.065)


def _rz(yaw):
    c, s = math.cos(yaw), math.sin(yaw)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _placement(x, y, yaw):
    return pin.SE3(_rz(yaw), np.array([x, y, 0.0]))


def _corners(M, half=HALF):
    X, Y = half
    local = np.array([[X, Y], [X, -Y], [-X, -Y], [-X, Y]])
    return local @ M.rotation[:2, :2].T + M.translation[:2]


def _half_planes(a, b, half=HALF) -> tuple[np.ndarray, np.ndarray]:
    """(N, d): the points p inside both rectangles are those with N p ≤ d."""
    rows, rhs = [], []
    for M in (a, b):
        R, p = M.rotation[:2, :2], M.translation[:2]
        for axis, h in ((R[:, 0], half[0]), (R[:, 1], half[1])):
            rows += [axis, -axis]
            rhs += [h + axis @ p, h - axis @ p]
    return np.array(rows), np.array(rhs)


def _overlap(a, b, half=HALF) -> bool:
    """A point in both rectangles (linear program on the half-planes of both)."""
    N, d = _half_planes(a, b, half)
    res = linprog(np.zeros(2), A_ub=N, b_ub=d - 1e-9, bounds=[(None, None)] * 2)
    return bool(res.status == 0)


def _overlap_depth(a, b, half=HALF) -> float:
    """The largest margin t (m) by which one point lies inside both rectangles (linear program): > 0 when
    they overlap, 0 when they touch, < 0 when apart (then not their distance)."""
    N, d = _half_planes(a, b, half)
    A = np.hstack((N, np.ones((len(N), 1))))
    res = linprog([0.0, 0.0, -1.0], A_ub=A, b_ub=d, bounds=[(None, None)] * 2 + [(None, 1.0)])
    assert res.status == 0
    return float(res.x[2])


def _distance(a, b, half=HALF) -> float:
    """Distance between two disjoint rectangles: the smallest corner-to-edge distance either way."""

    def point_segment(p, s0, s1):
        d = s1 - s0
        u = min(max(float((p - s0) @ d / (d @ d)), 0.0), 1.0)
        return float(np.linalg.norm(p - (s0 + u * d)))

    ca, cb = _corners(a, half), _corners(b, half)
    best = math.inf
    for P, Q in ((ca, cb), (cb, ca)):
        for p in P:
            for i in range(4):
                best = min(best, point_segment(p, Q[i], Q[(i + 1) % 4]))
    return best


@settings(max_examples=200, deadline=None)
@given(
    x=st.floats(-0.4, 0.4),
    y=st.floats(-0.4, 0.4),
    ya=st.floats(-math.pi, math.pi),
    yb=st.floats(-math.pi, math.pi),
)
def test_gap_against_the_exact_distance(x, y, ya, yb):
    """The gap is negative exactly when the footprints overlap, never more than the true distance, and
    equal to it for parallel soles side by side (the common case of a walk)."""
    a, b = _placement(0.0, 0.0, ya), _placement(x, y, yb)
    gap = footprint_gap(a, b, HALF)
    if _overlap(a, b):
        assert gap <= 1e-9
    else:
        assert -1e-9 <= gap <= _distance(a, b) + 1e-9
    side = _placement(0.0, 0.2 + abs(y), ya)
    beside = pin.SE3(a.rotation, a.rotation @ side.translation)
    assert footprint_gap(a, beside, HALF) == pytest.approx(_distance(a, beside), abs=1e-9)


@pytest.fixture(scope="module")
def talos(example_robot):
    robot = example_robot("talos")
    robot.update(robot.reference_configuration("half_sitting"), np.zeros(robot.nv))
    return robot


def _spec_footsteps(robot, n, length, width, turn, lateral, first="left"):
    """The spec's walking frame (specs/walking.md), rebuilt here: placements of the start stance sole and
    of every footstep."""
    mid, theta0, _, ground = feet_frame(robot)
    dth = turn / (n - 1) if n > 1 else 0.0
    sides = ["left", "right"]
    out = [robot.frame_placement("right_sole_link" if first == "left" else "left_sole_link")]
    m, theta = mid.copy(), theta0
    for k in range(1, n + 1):
        side = sides[(sides.index(first) + k - 1) % 2]
        if k < n:
            theta = theta0 + k * dth
            m = m + _rz(theta)[:2, :2] @ np.array([length, lateral])
        xy = m + _rz(theta)[:2, :2] @ np.array([0.0, (0.5 if side == "left" else -0.5) * width])
        out.append(pin.SE3(_rz(theta), np.array([xy[0], xy[1], ground])))
    return out


#: soles this close (m) touch: the LP's feasibility tolerance, and the rounding of a plan whose sole edges
#: meet exactly (a 0.2 m step of 0.2 m long soles), decide whether they overlap
TOUCH = 1e-6


@settings(max_examples=60, deadline=None)
@example(n=2, length=0.2, turn=0.0, lateral=-0.09375)  # (edges meet: the first footstep and the start)
@given(
    n=st.integers(2, 6), length=st.floats(-0.25, 0.3), turn=st.floats(-2.5, 2.5), lateral=st.floats(-0.1, 0.1)
)
def test_plans_are_refused_exactly_when_soles_overlap(talos, n, length, turn, lateral):
    width = 0.16 + abs(lateral)  # (wide enough for the sideways steps: the turn decides)
    planned = _spec_footsteps(talos, n, length, width, turn, lateral)
    depths = [_overlap_depth(planned[k - 1], planned[k]) for k in range(1, len(planned))]
    overlaps = any(d > TOUCH for d in depths)
    touching = any(abs(d) <= TOUCH for d in depths)  # (either answer: rounding decides)
    too_sharp = abs(turn / (n - 1)) > 0.5 * math.pi  # (refused too: at most π/2 per footstep)
    try:
        steps = plan_footsteps(talos, n, length, width, turn, lateral)
    except ConfigError as exc:
        assert exc.field in ("turn", "width")
        assert overlaps or too_sharp or touching
        return
    assert not overlaps and not too_sharp
    for s, M in zip(steps, planned[1:], strict=True):
        assert s.placement.isApprox(M, 1e-9)


def test_a_sideways_walk_is_widened_and_a_narrow_width_refused(talos):
    """6 × 0.08 m sideways: the trailing foot lands width − 0.08 from the leading one; width None widens the
    start's 0.17 m to the sole width + clearance + 0.08 = 0.23 m; 0.2 m is refused."""
    steps = plan_footsteps(talos, 6, 0.0, lateral=0.08)
    placements = [talos.frame_placement("right_sole_link")] + [s.placement for s in steps]
    gaps = [_distance(placements[k - 1], placements[k]) for k in range(1, len(placements))]
    assert min(gaps) == pytest.approx(SOLE_CLEARANCE, abs=1e-9)
    assert np.linalg.norm(steps[-1].xy - steps[-2].xy) == pytest.approx(0.13 + SOLE_CLEARANCE + 0.08)
    with pytest.raises(ConfigError) as info:
        plan_footsteps(talos, 6, 0.0, width=0.2, lateral=0.08)
    assert info.value.field == "width"
    forward = plan_footsteps(talos, 4, 0.2)  # (the start's width where nothing needs more)
    assert np.linalg.norm(forward[-1].xy - forward[-2].xy) == pytest.approx(feet_frame(talos)[2], abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(dx=st.floats(-0.6, 0.6), dy=st.floats(-0.6, 0.6), yaw=st.floats(-0.8, 0.8))
def test_the_adapted_footstep_keeps_off_the_stance_sole(talos, dx, dy, yaw):
    """Wherever the capture point asks the swing foot (left) to land, at whatever heading, the adaptation's
    landing region keeps its footprint at least the clearance away from the stance sole's."""
    pattern = WalkingPattern(talos, plan_footsteps(talos, 3, 0.1))
    ctrl = WalkingController(talos, pattern)
    ph = pattern.phase(1.2)
    assert ph.swing == "left"
    stance = pattern.foot_before(ph.step, "right")
    apart = (ctrl.half_size, ctrl.clearance)
    target = reachable(pattern, ph, stance.translation[:2] + np.array([dx, dy]), yaw, ctrl.reach, apart)
    landed = _placement(target[0], target[1], yaw)
    heading = math.atan2(stance.rotation[1, 0], stance.rotation[0, 0])
    stance_flat = _placement(stance.translation[0], stance.translation[1], heading)
    assert not _overlap(stance_flat, landed)
    assert _distance(stance_flat, landed) >= SOLE_CLEARANCE - 1e-6  # (the start soles tilt by 1.7 mrad)
