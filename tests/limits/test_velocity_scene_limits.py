"""VelocityScene: position and velocity limits as bounds on q̇ (issue 16, acceptance point 3).

The bounds are written out in the tests from the URDF limits (read with raw Pinocchio):
lb = max(min(0, γ(q_min − q)/dt), −v_max), ub = min(max(0, γ(q_max − q)/dt), v_max).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wbcpy import VelocityScene, load_robot
from wbcpy.controllers import JointVelocityLaw
from wbcpy.tasks import JointReference, TaskConfig

DT = 0.01


def _expected_bounds(model: pin.Model, q: np.ndarray, gain: float, dt: float):
    lo, hi, vmax = model.lowerPositionLimit, model.upperPositionLimit, model.velocityLimit
    lb = np.maximum(np.minimum(0.0, gain * (lo - q) / dt), -vmax)
    ub = np.minimum(np.maximum(0.0, gain * (hi - q) / dt), vmax)
    return lb, ub


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    gain=st.floats(0.05, 1.0),
    outside=st.booleans(),
)
def test_separable_posture_gives_the_clipped_reference(seed: int, gain: float, outside: bool) -> None:
    """One joint task over every joint: the cost is separable, so q̇ = clip(y/(1 + λ), lb, ub) exactly."""
    robot = load_robot("lwr4")
    model = robot.model
    rng = np.random.default_rng(seed)
    lo, hi = model.lowerPositionLimit, model.upperPositionLimit
    q = rng.uniform(lo - (0.05 if outside else -0.01), hi + (0.05 if outside else -0.01))
    lam = 1e-6
    scene = VelocityScene(robot, dt=DT, limit_gain=gain, regularization=lam)
    scene.configure([TaskConfig(name="post", type="jnt", joint_names=robot.joint_names)])
    robot.update(q)
    y = rng.normal(scale=3.0, size=7)  # many entries beyond the velocity limits
    scene.set_reference("post", JointReference(velocity=y))
    qdot = scene.solve(scene.update()).velocity
    lb, ub = _expected_bounds(model, q, gain, DT)
    np.testing.assert_allclose(qdot, np.clip(y / (1.0 + lam), lb, ub), rtol=1e-9, atol=1e-12)
    below, above = q < lo, q > hi  # outside the range: only back towards it
    assert np.all(qdot[below] >= 0.0) and np.all(qdot[above] <= 0.0)


@pytest.mark.parametrize("gain", [0.3, 1.0])
def test_closed_loop_pushing_past_every_limit_never_leaves_them(gain: float) -> None:
    robot = load_robot("lwr4")
    model = robot.model
    lo, hi, vmax = model.lowerPositionLimit, model.upperPositionLimit, model.velocityLimit
    scene = VelocityScene(robot, dt=DT, limit_gain=gain)
    scene.configure([TaskConfig(name="post", type="jnt", joint_names=robot.joint_names)])
    law = JointVelocityLaw(kp=20.0)
    target = np.where(np.arange(7) % 2 == 0, hi + 1.0, lo - 1.0)  # every joint past a limit
    q = 0.5 * (lo + hi)
    worst = 0.0
    for step in range(800):
        if step == 400:
            target = np.where(np.arange(7) % 2 == 0, lo - 1.0, hi + 1.0)  # and back past the other one
        robot.update(q)
        scene.set_reference("post", law.reference(scene.get_task("post"), target))
        qdot = scene.solve(scene.update()).velocity
        assert np.all(np.abs(qdot) <= vmax + 1e-9)
        q = pin.integrate(model, q, qdot * DT)
        worst = max(worst, float(np.max(q - hi)), float(np.max(lo - q)))
    assert worst <= 1e-12
    np.testing.assert_allclose(q, np.where(np.arange(7) % 2 == 0, lo, hi), atol=1e-3)  # it got there


def test_switches_and_continuous_joints(example_robot) -> None:
    """Without position limits only |q̇| ≤ v_max remains; a free-flyer is unbounded."""
    robot = example_robot("talos")
    scene = VelocityScene(robot, joint_limits=False)
    scene.configure([TaskConfig(name="post", type="jnt", joint_names=robot.joint_names[1:])])
    q = robot.neutral()
    robot.update(q)
    hqp = scene.update()
    vmax = robot.velocity_limit
    np.testing.assert_array_equal(hqp.lb[6:], -vmax[6:])
    np.testing.assert_array_equal(hqp.ub[6:], vmax[6:])
    assert np.all(np.isinf(hqp.lb[:6])) and np.all(np.isinf(hqp.ub[:6]))
    scene = VelocityScene(robot, joint_limits=False, velocity_limits=False)
    scene.configure([TaskConfig(name="post", type="jnt", joint_names=robot.joint_names[1:])])
    assert scene.update().lb is None
