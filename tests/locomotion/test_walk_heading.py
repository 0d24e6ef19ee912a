"""walk()'s summary judges the heading: ``moved`` holds the base's unwrapped heading change (a turn beyond
π is not folded back), ``progress`` of a pure turn is the fraction of the turn achieved, and ``ok``
requires the heading within the spec's tolerance (0.1 rad, 0.2 rad when pushed). The figures are checked
against the log's base orientations read by raw Pinocchio."""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin
import pytest

from wbcpy.locomotion import WalkLog, WalkSummary, walk


def _summary(planned, moved, progress=1.0, pushed=False) -> WalkSummary:
    empty = np.zeros((0,))
    log = WalkLog(empty, empty, empty, empty, empty, empty, empty, empty, empty)
    return WalkSummary(
        np.array(planned, dtype=float), np.array(moved, dtype=float), progress, False, (0.0, 0.0), 0.05,
        0.1, {"friction cone": 0.0, "normal force": 0.0, "effort": 0.0}, 100.0, 2.0, 3.0, log,
        pushed=pushed, weight=900.0,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("planned_turn", "moved_turn", "pushed", "ok"),
    [
        (2 * math.pi, 0.0, False, False),  # no turn at all
        (math.pi / 2, math.pi / 2 - 0.099, False, True),
        (math.pi / 2, math.pi / 2 - 0.101, False, False),
        (math.pi / 2, math.pi / 2 + 0.15, True, True),
        (math.pi / 2, math.pi / 2 + 0.21, True, False),
        (0.0, 0.3, False, False),  # a straight walk that turned
        (3.5, 3.5 - 2 * math.pi, False, False),  # the heading folded back by 2π is not the plan
    ],
)
def test_ok_requires_the_planned_heading(planned_turn, moved_turn, pushed, ok):
    summary = _summary([0.0, 0.0, planned_turn], [0.0, 0.0, moved_turn], pushed=pushed)
    assert summary.heading_error == pytest.approx(abs(moved_turn - planned_turn))
    assert summary.ok is ok
    assert ("OK" if ok else "FAILED") in summary.text()


def _base_yaws(q: np.ndarray) -> np.ndarray:
    """The base's heading at every logged configuration: the angle of its x axis on the ground."""
    yaws = []
    for row in q:
        R = pin.Quaternion(row[6], row[3], row[4], row[5]).toRotationMatrix()
        yaws.append(math.atan2(R[1, 0], R[0, 0]))
    return np.unwrap(np.array(yaws))


def test_a_turn_beyond_pi_is_measured_unwrapped(tmp_path, example_robot):
    """Turning 3.3 rad in place over 10 steps (fewer would turn a sole onto the other): the summary's turn,
    progress (the fraction of the turn) and heading error agree with the log's orientations, and the walk is
    ok."""
    example_robot("talos")
    path = tmp_path / "turn.npz"
    summary = walk("talos", n_steps=10, length=0.0, turn=3.3, log=path)
    with np.load(path) as f:
        yaw = _base_yaws(f["q"])
    turned = float(yaw[-1] - yaw[0])
    assert turned > math.pi
    assert summary.moved[2] == pytest.approx(turned, abs=1e-9)
    assert summary.progress == pytest.approx(turned / 3.3, abs=1e-9)
    assert summary.heading_error == pytest.approx(abs(turned - 3.3), abs=1e-9)
    assert summary.ok == (abs(turned - 3.3) <= 0.1), summary.text()
    assert summary.ok, summary.text()


def test_a_pure_turn_reports_the_fraction_achieved(tmp_path, example_robot):
    example_robot("talos")
    path = tmp_path / "turn.npz"
    summary = walk("talos", n_steps=3, length=0.0, turn=0.5, log=path)
    with np.load(path) as f:
        yaw = _base_yaws(f["q"])
    assert summary.progress == pytest.approx(float(yaw[-1] - yaw[0]) / 0.5, abs=1e-9)
    assert summary.planned.tolist() == [0.0, 0.0, 0.5]
