"""Joint-limit bounds (spec formula, braking stage) and closed-loop PD reaches on the 7-DOF arm.

The bound oracles are scalar re-implementations of the documented formulas, joint by joint. The
closed-loop runs integrate with semi-implicit Euler (v ← v + q̈ dt, q ← q + v dt) and check every limit at
every step with the robot's URDF limits.
"""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin
import pytest
from _joint_limit_oracle import joint_bounds as _oracle
from _scene_helpers import BACKENDS, lwr4

from wbcpy import AccelerationScene
from wbcpy.controllers import CartesianPD, JointPD
from wbcpy.errors import ConfigError
from wbcpy.limits import JointLimitBounds
from wbcpy.qp import default_solver
from wbcpy.tasks import TaskConfig

Q0 = np.array([0.3, 0.6, -0.2, -1.2, 0.3, 0.8, 0.1])


@pytest.fixture(scope="module")
def arm():
    return lwr4()


@pytest.mark.parametrize("braking", [False, True])
def test_bounds_match_the_formula(arm, braking):
    rng = np.random.default_rng(40)
    dt = 0.002
    bounds = JointLimitBounds(arm, dt, acceleration_limit=15.0, braking=braking)
    qmin, qmax, vmax = arm.dof_lower_limit, arm.dof_upper_limit, arm.velocity_limit
    for _ in range(300):
        # states inside and outside every limit, including velocities beyond v_max
        q = rng.uniform(qmin - 0.05, qmax + 0.05)
        edge = rng.random(7) < 0.4
        q[edge] = np.where(rng.random(edge.sum()) < 0.5, qmin[edge], qmax[edge]) + rng.normal(
            0, 1e-3, edge.sum()
        )
        v = rng.uniform(-1.3, 1.3, 7) * vmax
        lb, ub = bounds.compute(q, v)
        assert (lb <= ub).all()
        for j in range(7):
            expected = _oracle(q[j], v[j], qmin[j], qmax[j], vmax[j], 15.0, dt, braking)
            np.testing.assert_allclose((lb[j], ub[j]), expected, rtol=1e-12, atol=1e-9)


def test_full_braking_and_defaults(arm):
    bounds = JointLimitBounds(arm, 0.001)
    np.testing.assert_allclose(bounds.acceleration_limit, 10 * arm.velocity_limit)  # documented default
    vmax, amax = arm.velocity_limit, bounds.acceleration_limit
    # far above the velocity limit: both bounds brake at -a_max (interval not empty)
    lb, ub = bounds.compute(np.zeros(7), 2 * vmax)
    np.testing.assert_allclose(lb, -amax)
    np.testing.assert_allclose(ub, -amax)
    # beyond the upper position limit, at rest: pushed back, never towards the limit
    q = arm.dof_upper_limit + 0.01
    lb, ub = bounds.compute(q, np.zeros(7))
    assert (ub <= 0).all() and (lb <= ub).all()
    with pytest.raises(ConfigError):
        JointLimitBounds(arm, 0.001, acceleration_limit=[1.0, 2.0])
    with pytest.raises(ConfigError):
        JointLimitBounds(arm, 0.0)


def _reach(arm, target_fn, seconds, solver, joint_limits, check=None, dt=0.001):
    """Closed loop: PD references, update, solve, semi-implicit Euler. Returns (scene, tasks, q, v)."""
    scene = AccelerationScene(arm, solver=solver, dt=dt, joint_limits=joint_limits)
    scene.configure(
        [
            TaskConfig("ee", "cart", tip="lwr_ee"),
            TaskConfig("posture", "jnt", joint_names=arm.joint_names, priority=1),
        ]
    )
    q, v = Q0.copy(), np.zeros(7)
    arm.update(q, v)
    ee, posture = scene.get_task("ee"), scene.get_task("posture")
    target, q_target = target_fn(ee)
    cpd, jpd = CartesianPD(100.0, 20.0), JointPD(10.0, 2 * math.sqrt(10.0))
    for _ in range(round(seconds / dt)):
        scene.set_reference("ee", cpd.reference(ee, target))
        scene.set_reference("posture", jpd.reference(posture, q_target))
        scene.solve(scene.update())
        qdd = scene.get_solver_output_raw()
        v = v + qdd * dt
        q = pin.integrate(arm.model, q, v * dt)
        arm.update(q, v)
        if check is not None:
            check(q, v, qdd)
    return scene, ee, target, q, v


def test_pd_reach_converges(arm):
    def target(ee):
        M = ee.pose()
        R = pin.rpy.rpyToMatrix(0.3, -0.2, 0.5) @ M.rotation
        return pin.SE3(R, M.translation + np.array([0.1, -0.15, 0.1])), Q0

    _, ee, goal, _, _ = _reach(arm, target, 3.0, default_solver(), joint_limits=False)
    M = ee.pose()
    assert np.linalg.norm(goal.translation - M.translation) < 1e-3
    assert np.linalg.norm(pin.log3(goal.rotation @ M.rotation.T)) < 1e-3
    # independent check of the pose with raw Pinocchio
    data = arm.model.createData()
    pin.framesForwardKinematics(arm.model, data, arm.q)
    assert np.linalg.norm(data.oMf[arm.model.getFrameId("lwr_ee")].translation - goal.translation) < 1e-3


def test_reach_outside_the_limits_respects_every_limit(arm):
    qmin, qmax, vmax = arm.dof_lower_limit, arm.dof_upper_limit, arm.velocity_limit
    amax = 10 * vmax
    worst = {"q": 0.0, "v": 0.0, "a": 0.0}

    def check(q, v, qdd):
        worst["q"] = max(worst["q"], float(np.max(q - qmax)), float(np.max(qmin - q)))
        worst["v"] = max(worst["v"], float(np.max(np.abs(v) - vmax)))
        worst["a"] = max(worst["a"], float(np.max(np.abs(qdd) - amax)))

    def target(ee):
        # next to the shoulder: reachable only by folding the elbow beyond its ±120° limit
        M = ee.pose()
        return pin.SE3(M.rotation, np.array([0.05, 0.0, 0.45])), Q0

    _, ee, goal, q, v = _reach(arm, target, 5.0, default_solver(), joint_limits=True, check=check)
    assert worst["q"] <= 1e-9 and worst["v"] <= 1e-9 and worst["a"] <= 1e-9, worst
    assert np.min(np.minimum(q - qmin, qmax - q)) < 1e-3  # a joint ends at its limit...
    assert np.linalg.norm(goal.translation - ee.pose().translation) > 0.05  # ...short of the target
    assert np.max(np.abs(v)) < 1e-3  # at rest


@pytest.mark.parametrize("solver", BACKENDS)
def test_backends_agree_along_a_limited_reach(arm, solver):
    """Every backend gives the default backend's q̈ (1e-5) along the first steps of the limited reach."""
    ref = default_solver()
    steps = []

    def run(name):
        out = []

        def check(q, v, qdd):
            out.append((q.copy(), v.copy(), qdd.copy()))

        def target(ee):
            return pin.SE3(ee.pose().rotation, np.array([0.05, 0.0, 0.45])), np.array(
                [0, 2.5, 0, -2.5, 0, 0, 0]
            )

        _reach(arm, target, 0.15, name, joint_limits=True, check=check, dt=0.001)
        return out

    steps = run(ref)
    mine = run(solver)
    for (_, _, a_ref), (_, _, a) in zip(steps, mine, strict=True):
        np.testing.assert_allclose(a, a_ref, atol=1e-5, rtol=0)
