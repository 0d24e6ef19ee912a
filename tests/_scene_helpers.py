"""Shared oracles and fixtures of the scene, task and controller tests (raw Pinocchio and numpy only)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pinocchio as pin
import pytest

from wbcpy import RobotModel, load_robot
from wbcpy.model.registry import example_robot_data_dir
from wbcpy.qp import available_solvers

BACKENDS = available_solvers()
LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED


def lwr4() -> RobotModel:
    """The shipped 7-DOF arm."""
    return load_robot("lwr4")


def example_robot(name: str) -> RobotModel:
    """A robot of example-robot-data, or skip the test with a reason when the package is absent."""
    if example_robot_data_dir() is None:
        pytest.skip("example-robot-data is not installed")
    return load_robot(name)


def random_state(
    robot: RobotModel, rng: np.random.Generator, margin: float = 0.2
) -> tuple[np.ndarray, np.ndarray]:
    """A configuration inside the joint limits (by ``margin`` rad) and a non-zero velocity."""
    model = robot.model
    lo, hi = robot.lower_position_limit, robot.upper_position_limit
    finite = np.isfinite(lo) & np.isfinite(hi)
    pad = np.where(finite, np.minimum(margin, 0.25 * (np.where(finite, hi - lo, 0.0))), 0.0)
    lo = np.where(finite, lo + pad, -1.0)
    hi = np.where(finite, hi - pad, 1.0)
    q = rng.uniform(lo, hi)
    if robot.floating_base:  # a uniform random orientation from rng (not Pinocchio's global generator)
        quat = rng.normal(size=4)
        q[3:7] = quat / np.linalg.norm(quat)
    q = pin.normalize(model, q)
    v = rng.normal(size=robot.nv)
    return q, v


def trajectory(
    model: pin.Model, q: np.ndarray, v: np.ndarray, a: np.ndarray, t: float
) -> tuple[np.ndarray, np.ndarray]:
    """State at time t of the motion with constant q̈ = a: q(t) = q ⊕ (v t + a t²/2), v(t) = v + a t."""
    return pin.integrate(model, q, v * t + 0.5 * a * t * t), v + a * t


def fd1(f: Callable[[float], np.ndarray], h: float) -> np.ndarray:
    """Fourth-order central first derivative of f at 0."""
    return (-f(2 * h) + 8 * f(h) - 8 * f(-h) + f(-2 * h)) / (12 * h)


def fd2(f: Callable[[float], np.ndarray], h: float) -> np.ndarray:
    """Fourth-order central second derivative of f at 0."""
    return (-f(2 * h) + 16 * f(h) - 30 * f(0.0) + 16 * f(-h) - f(-2 * h)) / (12 * h * h)


def frame_kinematics(model: pin.Model, data: pin.Data, q: np.ndarray, v: np.ndarray) -> None:
    """Raw Pinocchio: placements and velocities of every frame at (q, v)."""
    pin.forwardKinematics(model, data, q, v)
    pin.updateFramePlacements(model, data)


def relative_position(model: pin.Model, q: np.ndarray, root: int, tip: int) -> np.ndarray:
    """Tip origin in root coordinates: R_rootᵀ (p_tip − p_root)."""
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    Mr, Mt = data.oMf[root], data.oMf[tip]
    return Mr.rotation.T @ (Mt.translation - Mr.translation)


def relative_angular_velocity(
    model: pin.Model, q: np.ndarray, v: np.ndarray, root: int, tip: int
) -> np.ndarray:
    """(ω_tip − ω_root) in root axes, from raw Pinocchio frame velocities."""
    data = model.createData()
    frame_kinematics(model, data, q, v)
    wt = pin.getFrameVelocity(model, data, tip, LWA).angular
    wr = pin.getFrameVelocity(model, data, root, LWA).angular
    return data.oMf[root].rotation.T @ (wt - wr)


def relative_acceleration_fd(
    model: pin.Model, q: np.ndarray, v: np.ndarray, a: np.ndarray, root: int, tip: int, h: float = 1e-3
) -> np.ndarray:
    """Oracle of the Cartesian task acceleration (root axes) for q̈ = a, by finite differences:
    linear = d²/dt² of the relative position, angular = d/dt of the relative angular velocity."""

    def pos(t: float) -> np.ndarray:
        return relative_position(model, trajectory(model, q, v, a, t)[0], root, tip)

    def omega(t: float) -> np.ndarray:
        qt, vt = trajectory(model, q, v, a, t)
        return relative_angular_velocity(model, qt, vt, root, tip)

    return np.concatenate((fd2(pos, h), fd1(omega, h)))


def com_acceleration_fd(
    model: pin.Model, q: np.ndarray, v: np.ndarray, a: np.ndarray, h: float = 1e-3
) -> np.ndarray:
    """Oracle of the COM acceleration for q̈ = a: d²/dt² of the COM position along the motion."""
    data = model.createData()

    def com(t: float) -> np.ndarray:
        return pin.centerOfMass(model, data, trajectory(model, q, v, a, t)[0]).copy()

    return fd2(com, h)


def regularized_ls(rows: list[tuple[np.ndarray, np.ndarray, np.ndarray]], reg: np.ndarray) -> np.ndarray:
    """Closed-form normal equations of min Σ (A x − y)ᵀ W (A x − y) + Σ r_j x_j² for (A, y, W) triples."""
    n = reg.shape[0]
    H = np.diag(reg).astype(float)
    g = np.zeros(n)
    for A, y, W in rows:
        H += A.T @ W @ A
        g += A.T @ W @ y
    return np.linalg.solve(H, g)
