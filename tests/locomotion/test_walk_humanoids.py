"""walk() on Unitree G1, iCub and Romeo beside Talos: every log judged by raw Pinocchio as Talos's walks
are (tests/locomotion/_walk_acceptance.py; the sole frames wbcpy added come from the log's
``contact_parents``/``contact_placements``). Short walks here; the issue's table (forward, turning,
sideways, pushed) in slow-marked tests (WBCPY_SLOW=1)."""

from __future__ import annotations

import math
import os
import warnings

import numpy as np
import pinocchio as pin
import pytest
from _walk_acceptance import accept

from wbcpy import RobotModel
from wbcpy.errors import EffortLimitWarning, WalkingWarning
from wbcpy.locomotion import walk
from wbcpy.locomotion.controller import WalkingController
from wbcpy.locomotion.footsteps import plan_footsteps
from wbcpy.locomotion.pattern import WalkingPattern

SKIP_SLOW = pytest.mark.skipif(not os.environ.get("WBCPY_SLOW"), reason="full walks: set WBCPY_SLOW=1")


def _walk(tmp_path, example_robot, robot, **kwargs):
    example_robot(robot)  # (skips without example-robot-data)
    path = tmp_path / "walk.npz"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WalkingWarning)
        summary = walk(robot, log=path, **kwargs)
    with np.load(path) as f:
        log = {k: f[k] for k in f.files}
    return summary, log


@pytest.mark.parametrize(("robot", "length"), [("g1", 0.15), ("icub", 0.08), ("romeo", 0.12)])
def test_short_walks_pass_the_acceptance_checks(tmp_path, example_robot, robot, length):
    summary, log = _walk(tmp_path, example_robot, robot, n_steps=3, length=length)
    result = accept(log, 3, length, robot=robot)
    assert result.failures == [], (result.failures, result.figures)
    assert summary.ok, summary.text()
    assert summary.progress == pytest.approx(result.figures["progress"], abs=1e-9)
    assert summary.cop_margin == pytest.approx(result.figures["cop_margin"], abs=1e-9)


def test_log_describes_the_added_sole_frames(tmp_path, example_robot):
    summary, log = _walk(tmp_path, example_robot, "g1", n_steps=2, length=0.1)
    assert list(log["contact_frames"]) == ["left_sole", "right_sole"]
    assert list(log["contact_parents"]) == ["left_ankle_roll_link", "right_ankle_roll_link"]
    assert log["contact_placements"].shape == (2, 4, 4) and log["locked_joints"].shape == (0,)
    assert log["locked_positions"].shape == (0,)
    np.testing.assert_allclose(log["half_size"], [0.085, 0.03], atol=1e-12)
    assert float(log["mu"]) == 0.3
    # the logged frame, rebuilt on the raw URDF model, is where the controller's sole was (first step)
    robot = summary.robot
    model, data = robot.model, robot.model.createData()
    pin.framesForwardKinematics(model, data, log["q"][0])
    parent = data.oMf[model.getFrameId("left_ankle_roll_link")]
    M = log["contact_placements"][0]
    assert data.oMf[model.getFrameId("left_sole")].isApprox(parent * pin.SE3(M[:3, :3], M[:3, 3]), 1e-12)
    assert summary.robot.model.existFrame("left_sole")


def test_talos_log_has_its_urdf_soles(tmp_path, example_robot):
    _, log = _walk(tmp_path, example_robot, "talos", n_steps=1, length=0.0)
    assert list(log["contact_parents"]) == ["left_sole_link", "right_sole_link"]
    np.testing.assert_array_equal(log["contact_placements"], np.stack([np.eye(4)] * 2))


def test_missing_effort_limits_are_named_and_the_others_kept(example_robot):
    """A URDF effort limit of 0 (none) on a hip: a warning names it, the scene leaves it unbounded and keeps
    every other URDF limit."""
    talos = example_robot("talos")
    model = pin.Model(talos.model)
    joint = model.joints[model.getJointId("leg_left_1_joint")]
    model.effortLimit[joint.idx_v] = 0.0
    robot = RobotModel(model, name=talos.name)
    robot.update(talos.reference_configuration("half_sitting"), np.zeros(robot.nv))
    pattern = WalkingPattern(robot, plan_footsteps(robot, 2, 0.1))
    with pytest.warns(EffortLimitWarning, match="leg_left_1_joint") as record:
        ctrl = WalkingController(robot, pattern)
    assert record[0].message.joints == ["leg_left_1_joint"]
    limits = ctrl.scene.effort_limit
    expected = np.array(talos.model.effortLimit[6:], dtype=float)
    expected[joint.idx_v - 6] = np.inf
    np.testing.assert_array_equal(limits, expected)
    talos.update(talos.reference_configuration("half_sitting"), np.zeros(talos.nv))
    with warnings.catch_warnings():
        warnings.simplefilter("error", EffortLimitWarning)
        WalkingController(talos, WalkingPattern(talos, plan_footsteps(talos, 2, 0.1)))  # (every limit given)


def test_controller_refuses_a_robot_without_the_sole_frames(example_robot):
    from wbcpy.errors import ConfigError
    from wbcpy.locomotion.sole_finder import find_feet

    robot = example_robot("g1")
    feet = find_feet(robot)
    robot.update(robot.neutral(), np.zeros(robot.nv))
    pattern = WalkingPattern(robot, plan_footsteps(robot, 2, 0.1, feet=feet), feet=feet)
    with pytest.raises(ConfigError, match="attach") as info:
        WalkingController(robot, pattern)
    assert info.value.field == "feet"


#: the issue's table: robot -> [(n, length, turn, lateral, push N·s at t = 3 s)]
TABLE = {
    "g1": [(8, 0.15, 0.0, 0.0, None), (8, 0.075, math.pi / 2, 0.0, None), (6, 0.0, 0.0, 0.05, None),
           (8, 0.15, 0.0, 0.0, 10.0)],
    "icub": [(8, 0.08, 0.0, 0.0, None), (8, 0.04, math.pi / 2, 0.0, None), (6, 0.0, 0.0, 0.03, None),
             (8, 0.08, 0.0, 0.0, 8.0)],
    "romeo": [(8, 0.12, 0.0, 0.0, None), (8, 0.06, math.pi / 2, 0.0, None), (6, 0.0, 0.0, 0.05, None),
              (8, 0.12, 0.0, 0.0, 12.0)],
}  # fmt: skip
FULL = [pytest.param(robot, *row) for robot, rows in TABLE.items() for row in rows]


@pytest.mark.slow
@SKIP_SLOW
@pytest.mark.parametrize(("robot", "n", "length", "turn", "lateral", "push"), FULL)
def test_full_table(tmp_path, example_robot, robot, n, length, turn, lateral, push):
    pushed = push is not None
    summary, log = _walk(
        tmp_path, example_robot, robot, n_steps=n, length=length, turn=turn, lateral=lateral,
        push=(push, 3.0) if pushed else None,
    )  # fmt: skip
    result = accept(
        log, n, length, lateral, turn, pushed=pushed, push_time=3.0 if pushed else None, robot=robot
    )
    print(robot, n, length, turn, lateral, push, summary.realtime, result.figures)
    assert result.failures == [], (result.failures, result.figures)
    assert summary.ok, summary.text()
