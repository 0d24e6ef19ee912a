"""Frame placements and Jacobians from the parent joint's kinematics (``Workspace.frame_pose`` and
``Workspace.frame_jacobian`` through the compiled ``frame_pose`` / ``frame_jacobian``).

Oracles: Pinocchio's own ``updateFramePlacement`` and ``getFrameJacobian(LOCAL_WORLD_ALIGNED)`` on a data
of its own, for every frame of a fixed-base and a floating-base robot; finite differences of the
placement along q̇ for the Jacobian; closed forms for the kernels. The views the workspace reads must
follow every new state, in every thread's workspace, and Pinocchio's calls must stay the fallback.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np
import pinocchio as pin
import pytest

from wbcpy import RobotModel
from wbcpy._kernels import frame_jacobian, frame_pose, level_copy
from wbcpy.errors import StateNotSetError, UnknownNameError

LWA = pin.LOCAL_WORLD_ALIGNED


def _pinocchio(robot: RobotModel, q: np.ndarray, frame: int) -> tuple[np.ndarray, np.ndarray]:
    data = robot.model.createData()
    pin.computeJointJacobians(robot.model, data, q)
    pose = pin.updateFramePlacement(robot.model, data, frame).homogeneous
    return pose, np.array(pin.getFrameJacobian(robot.model, data, frame, LWA))


def _state(robot: RobotModel, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    q = pin.randomConfiguration(robot.model, -np.ones(robot.nq), np.ones(robot.nq))
    return q, rng.uniform(-2, 2, robot.nv)


def _close(got: np.ndarray, expected: np.ndarray) -> None:
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12 * (1 + np.abs(expected).max()))


@pytest.mark.parametrize("name", ["panda", "talos"])
def test_every_frame_matches_pinocchio(name: str, example_robot: Callable[..., RobotModel]) -> None:
    robot = example_robot(name)
    rng = np.random.default_rng(7)
    for _ in range(3):  # (new states: the views must follow them)
        q, v = _state(robot, rng)
        robot.update(q, v)
        for f in range(len(robot.model.frames)):
            pose, jac = _pinocchio(robot, q, f)
            _close(robot.frame_pose_view(f), pose)
            _close(robot.frame_jacobian_view(f), jac)
            _close(robot.frame_placement_view(f).homogeneous, pose)  # (the SE3 view agrees)
    assert not np.any(robot.frame_jacobian(0))  # (the universe frame does not move)


@pytest.mark.parametrize("name", ["panda", "talos"])
def test_jacobian_is_the_derivative_of_the_placement(
    name: str, example_robot: Callable[..., RobotModel]
) -> None:
    """J q̇ = (ṗ, ω) of the frame, world axes: central differences of the placement along q̇."""
    robot = example_robot(name)
    rng = np.random.default_rng(8)
    q, v = _state(robot, rng)
    frame = robot.model.getFrameId("panda_hand" if name == "panda" else "left_sole_link")
    h = 1e-6
    robot.update(q, v)
    J = robot.frame_jacobian_view(frame).copy()
    poses = []
    for s in (-h, h):
        robot.update(pin.integrate(robot.model, q, s * v))
        poses.append(robot.frame_pose_view(frame).copy())
    lin = (poses[1][:3, 3] - poses[0][:3, 3]) / (2 * h)
    ang = pin.log3(poses[1][:3, :3] @ poses[0][:3, :3].T) / (2 * h)
    np.testing.assert_allclose(J @ v, np.r_[lin, ang], atol=1e-6 * (1 + np.abs(J @ v).max()))


def test_pinocchio_fallback_gives_the_same(example_robot: Callable[..., RobotModel]) -> None:
    """Where the bindings would hand out copies (no sources), Pinocchio's calls give the same values."""
    robot = example_robot("panda")
    frame = robot.model.getFrameId("panda_hand")
    q, v = _state(robot, np.random.default_rng(9))
    robot.update(q, v)
    compiled = robot.frame_pose_view(frame), robot.frame_jacobian_view(frame)
    ws = robot._tls.ws
    ws._pose_sources[frame], ws._jacobian_sources[frame] = (), ()
    robot.update(q, v)
    _close(robot.frame_pose_view(frame), compiled[0])
    _close(robot.frame_jacobian_view(frame), compiled[1])


def test_values_of_a_previous_state_are_kept(example_robot: Callable[..., RobotModel]) -> None:
    robot = example_robot("panda")
    rng = np.random.default_rng(10)
    frame = robot.model.getFrameId("panda_hand")
    q0, v0 = _state(robot, rng)
    robot.update(q0, v0)
    first = robot.frame_pose_view(frame), robot.frame_jacobian_view(frame)
    robot.update(*_state(robot, rng))
    robot.frame_pose_view(frame)
    robot.frame_jacobian_view(frame)
    for got, expected in zip(first, _pinocchio(robot, q0, frame), strict=True):
        _close(got, expected)


def test_each_thread_reads_its_own_data(example_robot: Callable[..., RobotModel]) -> None:
    robot = example_robot("panda")
    frame = robot.model.getFrameId("panda_hand")
    q, v = _state(robot, np.random.default_rng(11))
    robot.update(q, v)
    out: list[np.ndarray] = []
    worker = threading.Thread(target=lambda: out.extend((robot.frame_pose_view(frame),
                                                          robot.frame_jacobian(frame))))  # fmt: skip
    worker.start()
    worker.join()
    pose, jac = _pinocchio(robot, q, frame)
    _close(out[0], pose)
    _close(out[1], jac)
    _close(robot.frame_jacobian(frame), jac)


def test_unknown_frame_is_refused(example_robot: Callable[..., RobotModel]) -> None:
    robot = example_robot("panda")
    robot.update(pin.neutral(robot.model))
    with pytest.raises(UnknownNameError):
        robot.frame_pose_view("no_such_frame")


def test_kernels_on_closed_form() -> None:
    """A joint at p = (0, 0, 1) turned by 90° about z, a frame 1 m along its x axis turned by 90° about x:
    the frame sits at (0, 1, 1) with rotation Rz Rx. Its Jacobian for a single DOF spinning about the
    world z axis through the origin (J column (0, 0, 0, 0, 0, 1)): the frame moves along (−1, 0, 0)."""
    Rz = np.array([[0.0, -1, 0], [1, 0, 0], [0, 0, 1]])
    Rx = np.array([[1.0, 0, 0], [0, 0, -1], [0, 1, 0]])
    p, t = np.array([0.0, 0, 1]), np.array([1.0, 0, 0])
    H = frame_pose(Rz, p, Rx, t)
    np.testing.assert_allclose(H, np.block([[Rz @ Rx, np.array([[0.0], [1], [1]])], [np.zeros((1, 3)), 1.0]]))
    J = np.zeros((6, 2))
    J[5, 0] = J[5, 1] = 1.0  # (column 1 is not in the support: zero in the frame Jacobian)
    got = frame_jacobian(J, Rz, p, t, np.array([0], dtype=np.intp))
    np.testing.assert_allclose(got[:, 0], [-1.0, 0, 0, 0, 0, 1], atol=1e-15)
    assert not got[:, 1].any()
    with pytest.raises(IndexError):
        frame_jacobian(J, Rz, p, t, np.array([2], dtype=np.intp))
    with pytest.raises(ValueError):
        frame_pose(Rz, np.zeros(4), Rx, t)


def test_level_copy_is_an_independent_copy() -> None:
    A, y = np.arange(6.0).reshape(2, 3).T, np.array([1.0, 2, 3])  # (a strided A)
    A2, y2 = level_copy(A, y)
    np.testing.assert_array_equal(A2, A)
    np.testing.assert_array_equal(y2, y)
    assert A2.flags.c_contiguous and not np.shares_memory(A2, A) and not np.shares_memory(y2, y)
    with pytest.raises(ValueError):
        level_copy(A, np.zeros(2))


def test_frame_motion_view_reads_one_state(example_robot: Callable[..., RobotModel]) -> None:
    """(pose, Jacobian, v) of the current state, in either order of first use; the bias that comes with
    the Jacobian at the acceleration level is Pinocchio's."""
    robot = example_robot("panda")
    frame = robot.model.getFrameId("panda_hand")
    rng = np.random.default_rng(12)
    with pytest.raises(StateNotSetError):
        robot.frame_motion_view(frame)
    for first in ("jacobian", "motion"):
        q, v = _state(robot, rng)
        robot.update(q, v)
        if first == "jacobian":
            robot.frame_jacobian_view(frame)
        pose, jac, vel = robot.frame_motion_view(frame)
        expected_pose, expected_jac = _pinocchio(robot, q, frame)
        _close(pose, expected_pose)
        _close(jac, expected_jac)
        np.testing.assert_array_equal(vel, v)
        data = robot.model.createData()
        pin.forwardKinematics(robot.model, data, q, v, np.zeros(robot.nv))
        bias = pin.getFrameClassicalAcceleration(robot.model, data, frame, LWA).vector
        _close(robot.frame_bias_view(frame), bias)
