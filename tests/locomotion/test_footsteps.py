"""plan_footsteps: the spec's geometry, checked from the feet's placements by plain trigonometry."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from wbcpy.errors import ConfigError
from wbcpy.locomotion import plan_footsteps

FEET = ("left_sole_link", "right_sole_link")


@pytest.fixture(scope="module")
def talos(example_robot):
    robot = example_robot("talos")
    robot.update(robot.reference_configuration("half_sitting"), np.zeros(robot.nv))
    return robot


def _start(robot):
    left, right = (robot.frame_placement(f).translation for f in FEET)
    return (
        0.5 * (left[:2] + right[:2]),
        float(np.linalg.norm(left[:2] - right[:2])),
        0.5 * (left[2] + right[2]),
    )


def test_straight_walk_geometry(talos):
    mid, width, ground = _start(talos)
    steps = plan_footsteps(talos, n_steps=5, length=0.2)
    assert [s.side for s in steps] == ["left", "right", "left", "right", "left"]
    for k, s in enumerate(steps[:-1], start=1):
        sign = 1.0 if s.side == "left" else -1.0
        expect = mid + np.array([0.2 * k, sign * width / 2])
        np.testing.assert_allclose(s.xy, expect, atol=1e-9)
        assert s.placement.translation[2] == pytest.approx(ground)
    # the last lands beside the one before: the midpoint moved (n - 1) * length
    np.testing.assert_allclose(0.5 * (steps[-1].xy + steps[-2].xy), mid + np.array([0.8, 0.0]), atol=1e-9)


def test_turn_and_lateral(talos):
    mid, width, _ = _start(talos)
    steps = plan_footsteps(talos, n_steps=8, length=0.0, turn=math.pi / 2, first="right")
    assert steps[0].side == "right"
    assert steps[-1].yaw == pytest.approx(math.pi / 2, abs=1e-6)
    assert steps[-2].yaw == pytest.approx(math.pi / 2, abs=1e-6)
    for s in steps:  # turning in place: every sole at half the width from the start midpoint
        assert np.linalg.norm(s.xy - mid) == pytest.approx(width / 2, abs=1e-6)
    side = plan_footsteps(talos, n_steps=6, length=0.0, lateral=0.08)
    np.testing.assert_allclose(0.5 * (side[-1].xy + side[-2].xy), mid + np.array([0.0, 5 * 0.08]), atol=1e-9)
    assert side[-1].placement.rotation == pytest.approx(np.eye(3), abs=1e-9)


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(2, 12),
    length=st.floats(-0.3, 0.3),
    lateral=st.floats(-0.1, 0.1),
    turn=st.floats(-1.5, 1.5),
    width=st.floats(0.13, 0.3),
)
def test_consecutive_feet_keep_the_width(talos, n, length, lateral, turn, width):
    """Every footstep k < n is ±width/2 across the walking frame; the final pair is exactly beside (plans
    whose soles stay apart: tests/locomotion/test_feet_apart.py has the others)."""
    assume(width - abs(lateral) >= 0.15 + 1e-9)
    try:
        steps = plan_footsteps(talos, n_steps=n, length=length, lateral=lateral, turn=turn, width=width)
    except ConfigError as exc:  # (overlapping soles: tests/locomotion/test_feet_apart.py)
        assume(exc.field not in ("turn", "width"))
        raise
    last, before = steps[-1], steps[-2]
    assert np.linalg.norm(last.xy - before.xy) == pytest.approx(width, abs=1e-9)
    assert last.yaw == pytest.approx(before.yaw, abs=1e-12)
    assert (last.yaw - steps[0].yaw) == pytest.approx(turn - turn / (n - 1), abs=1e-9) or abs(turn) > 3.0


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"n_steps": 0}, "n_steps"),
        ({"n_steps": 2.5}, "n_steps"),
        ({"length": float("nan")}, "length"),
        ({"width": -0.1}, "width"),
        ({"first": "middle"}, "first"),
        ({"n_steps": 1, "turn": 0.3}, "turn"),
    ],
)
def test_bad_arguments(talos, kwargs, field):
    with pytest.raises(ConfigError) as info:
        plan_footsteps(talos, **kwargs)
    assert info.value.field == field
