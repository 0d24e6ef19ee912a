"""The frame bias J̇q̇ computed from the parent joint's kinematics (``Workspace.frame_bias``).

Oracle: Pinocchio's own ``getFrameClassicalAcceleration(LOCAL_WORLD_ALIGNED)`` on a data of its own, for
every frame of robots with a fixed base, a floating base and frames on the universe; the derivative
check along a trajectory is in ``test_robot_model.py``. The views the workspace reads must follow every
new state, in every thread's workspace.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np
import pinocchio as pin
import pytest

from wbcpy import RobotModel
from wbcpy._kernels import frame_classical_acceleration

LWA = pin.LOCAL_WORLD_ALIGNED


def _pinocchio_bias(robot: RobotModel, q: np.ndarray, v: np.ndarray, frame: int) -> np.ndarray:
    data = robot.model.createData()
    pin.forwardKinematics(robot.model, data, q, v, np.zeros(robot.nv))
    return np.array(pin.getFrameClassicalAcceleration(robot.model, data, frame, LWA).vector)


def _state(robot: RobotModel, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    q = pin.randomConfiguration(robot.model, -np.ones(robot.nq), np.ones(robot.nq))
    return q, rng.uniform(-2, 2, robot.nv)


@pytest.mark.parametrize("name", ["panda", "talos"])
def test_every_frame_bias_matches_pinocchio(name: str, example_robot: Callable[..., RobotModel]) -> None:
    robot = example_robot(name)
    rng = np.random.default_rng(3)
    frames = range(len(robot.model.frames))
    for _ in range(3):  # (new states: the views must follow them)
        q, v = _state(robot, rng)
        robot.update(q, v)
        for f in frames:
            expected = _pinocchio_bias(robot, q, v, f)
            got = robot.frame_bias_view(f)
            np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12 * (1 + np.abs(expected).max()))
    assert not np.any(robot.frame_bias(0))  # (the universe frame does not move)


def test_bias_of_a_previous_state_is_kept(example_robot: Callable[..., RobotModel]) -> None:
    robot = example_robot("panda")
    rng = np.random.default_rng(4)
    frame = robot.model.getFrameId("panda_hand")
    q0, v0 = _state(robot, rng)
    robot.update(q0, v0)
    first = robot.frame_bias_view(frame)
    robot.update(*_state(robot, rng))
    robot.frame_bias_view(frame)
    np.testing.assert_allclose(first, _pinocchio_bias(robot, q0, v0, frame), atol=1e-12)


def test_each_thread_reads_its_own_data(example_robot: Callable[..., RobotModel]) -> None:
    robot = example_robot("panda")
    rng = np.random.default_rng(5)
    frame = robot.model.getFrameId("panda_hand")
    q, v = _state(robot, rng)
    robot.update(q, v)
    out: list[np.ndarray] = []
    worker = threading.Thread(target=lambda: out.append(robot.frame_bias(frame)))
    worker.start()
    worker.join()
    expected = _pinocchio_bias(robot, q, v, frame)
    np.testing.assert_allclose(out[0], expected, atol=1e-12)
    np.testing.assert_allclose(robot.frame_bias(frame), expected, atol=1e-12)


def test_kernel_on_closed_form() -> None:
    """A frame 1 m along x of a joint spinning at ω about z (no acceleration, joint at rest): the
    centripetal acceleration −ω² r towards the axis; with the joint turned by 90° about z, along −y."""
    w = 3.0
    R = pin.utils.rotate("z", np.pi / 2)
    got = frame_classical_acceleration(R, np.array([1.0, 0, 0]), np.r_[0, 0, 0, 0, 0, w], np.zeros(6))
    np.testing.assert_allclose(got, [0, -w * w, 0, 0, 0, 0], atol=1e-12)
    # the angular acceleration ω̇ about z adds the tangential ω̇ r, and is itself rotated into world axes
    spin_up = np.r_[0, 0, 0, 0, 0, 2.0]
    got = frame_classical_acceleration(np.eye(3), np.array([1.0, 0, 0]), np.zeros(6), spin_up)
    np.testing.assert_allclose(got, [0, 2.0, 0, 0, 0, 2.0], atol=1e-12)
    with pytest.raises(ValueError):
        frame_classical_acceleration(R, np.zeros(4), np.zeros(6), np.zeros(6))
