"""The positions-only result groups of the robot's workspace (joint placements by ``forwardKinematics(q)``,
the COM and its Jacobian by ``jacobianCenterOfMass``) and the full ones (velocities, q̈ = 0 accelerations,
COM velocity and bias) read in every order over several states: every answer equals raw Pinocchio's on
fresh data (an independent computation), and a loop that reads both kinds switches the workspace to the
full passes (no quantity computed twice per state)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pinocchio as pin
import pytest

from wbcpy import RobotModel, load_robot

_LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED


def _robot() -> RobotModel:
    return load_robot("talos")


def _oracle(robot: RobotModel, q: np.ndarray, v: np.ndarray, frame: int) -> dict[str, np.ndarray]:
    model = robot.model
    data = model.createData()
    pin.forwardKinematics(model, data, q, v, np.zeros(model.nv))
    pin.computeJointJacobians(model, data, q)
    pin.forwardKinematics(model, data, q, v, np.zeros(model.nv))
    pin.updateFramePlacements(model, data)
    pin.centerOfMass(model, data, q, v, np.zeros(model.nv))
    return {
        "com": data.com[0].copy(),
        "com_jacobian": pin.jacobianCenterOfMass(model, model.createData(), q).copy(),
        "com_velocity": data.vcom[0].copy(),
        "com_bias": data.acom[0].copy(),
        "placement": data.oMf[frame].homogeneous.copy(),
        "jacobian": pin.getFrameJacobian(model, data, frame, _LWA).copy(),
        "bias": pin.getFrameClassicalAcceleration(model, data, frame, _LWA).vector.copy(),
    }


def _reads(robot: RobotModel, frame: int) -> dict[str, Callable[[], Any]]:
    return {
        "com": robot.com_position_view,
        "com_jacobian": robot.com_jacobian_view,
        "com_velocity": robot.com_velocity,
        "com_bias": robot.com_bias_view,
        "placement": lambda: robot.frame_placement_view(frame).homogeneous,
        "jacobian": lambda: robot.frame_jacobian_view(frame),
        "bias": lambda: robot.frame_bias_view(frame),
    }


def _states(robot: RobotModel, rng: np.random.Generator, n: int) -> list[tuple[np.ndarray, np.ndarray]]:
    out = []
    for _ in range(n):
        q = pin.randomConfiguration(robot.model, -np.ones(robot.model.nq), np.ones(robot.model.nq))
        q[:3] = rng.uniform(-1.0, 1.0, 3)
        out.append((q, rng.standard_normal(robot.model.nv)))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_every_order_of_reads_gives_pinocchios_values(seed: int) -> None:
    robot = _robot()
    rng = np.random.default_rng(seed)
    frame = robot.model.getFrameId("left_sole_link")
    reads = _reads(robot, frame)
    for q, v in _states(robot, rng, 5):
        if rng.random() < 0.3:
            v = np.zeros_like(v)
        robot.update(q, v)
        expected = _oracle(robot, q, v, frame)
        names = list(reads)
        for name in rng.permutation(names)[: rng.integers(1, len(names) + 1)]:
            got = np.asarray(reads[name]())
            np.testing.assert_allclose(got, expected[name], rtol=0.0, atol=1e-12, err_msg=name)


def test_velocity_level_loop_stays_positions_only() -> None:
    """COM, frame placements and frame Jacobians only (a velocity scene's step): the workspace never takes
    the full passes."""
    robot = _robot()
    frame = robot.model.getFrameId("right_sole_link")
    for q, _ in _states(robot, np.random.default_rng(1), 4):
        robot.update(q)
        robot.com_position_view(), robot.com_jacobian_view()
        robot.frame_placement_view(frame), robot.frame_jacobian_view(frame)
    assert not robot._tls.ws.full


def test_a_loop_that_reads_velocities_switches_to_full_passes() -> None:
    robot = _robot()
    frame = robot.model.getFrameId("right_sole_link")
    (q0, v0), (q1, v1) = _states(robot, np.random.default_rng(2), 2)
    robot.update(q0, v0)
    robot.frame_placement_view(frame)
    robot.frame_bias_view(frame)  # (the same state placed twice: once alone, once with velocities)
    ws = robot._tls.ws
    assert ws.full
    robot.update(q1, v1)
    placement = robot.frame_placement_view(frame).homogeneous
    assert ws.kin is robot._st  # (the full pass, once)
    expected = _oracle(robot, q1, v1, frame)
    np.testing.assert_allclose(placement, expected["placement"], rtol=0.0, atol=1e-12)
    np.testing.assert_allclose(robot.com_position_view(), expected["com"], rtol=0.0, atol=1e-12)
    np.testing.assert_allclose(robot.com_velocity(), expected["com_velocity"], rtol=0.0, atol=1e-12)
