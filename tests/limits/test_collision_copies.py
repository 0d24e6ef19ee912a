"""Copies, pickles and threads of collision avoidance at the acceleration level: a copied constraint (or
a scene that holds one) computes the rows of the original at the same state; the configuration is
read-only; two threads computing on one constraint raise ConcurrentUseError, never a mixed answer. The
rows are compared with the closed-form distances of the test arm (spheres)."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from _collision_helpers import ARM_URDF, geometry_pose, sphere_sphere
from _concurrency import COPIERS, run_together

from wbcpy import AccelerationScene, InverseDynamicsScene, RobotModel
from wbcpy.collision import AccelerationCollisionConstraint, CollisionAvoidance, Obstacle, Sphere
from wbcpy.errors import ConcurrentUseError, ReadOnlyAttributeError
from wbcpy.tasks import CartesianReference, TaskConfig

DT = 0.01
RADII = {"l3_0": 0.03, "tip_0": 0.02}


def _setup() -> tuple[RobotModel, Obstacle, CollisionAvoidance]:
    robot = RobotModel.from_urdf(ARM_URDF)
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, np.array([0.0, 0.3, 0.9]))
    centre = data.oMf[robot.model.getFrameId("tip")].translation + np.array([0.0, 0.06, 0.0])
    ball = Obstacle("ball", Sphere(0.03), pin.SE3(np.eye(3), centre))
    avoidance = CollisionAvoidance(
        pairs=[("l3", "ball"), ("tip", "ball")], obstacles=[ball], safety_distance=0.01,
        influence_distance=0.2, gain=0.3,
    )  # fmt: skip
    return robot, ball, avoidance


def _states(n: int) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(3)
    return [(np.array([0.0, 0.3, 0.9]) + rng.uniform(-0.1, 0.1, 3), rng.uniform(-1, 1, 3)) for _ in range(n)]


@pytest.mark.parametrize("how", list(COPIERS))
def test_a_copied_constraint_computes_the_original_rows(how):
    robot, ball, avoidance = _setup()
    constraint = AccelerationCollisionConstraint(robot, avoidance)
    twin = COPIERS[how](constraint)
    assert (twin.robot is robot) == (how == "copy")
    for q, v in _states(5):
        robot.update(q, v)
        twin.robot.update(q, v)
        C1, lo1 = constraint.compute(DT)
        C2, lo2 = twin.compute(DT)
        assert C1.shape[0] == 2  # (both pairs within the influence distance)
        np.testing.assert_allclose(C2, C1, atol=1e-12)
        np.testing.assert_allclose(lo2, lo1, atol=1e-9)
        # the distances are the closed-form sphere distances of the arm's spheres
        for d, g in zip(twin.distances(), RADII, strict=True):
            centre = geometry_pose(robot.model, q, g).translation
            closed = sphere_sphere(centre, RADII[g], ball.placement.translation, ball.shape.radius)
            assert d == pytest.approx(closed, abs=1e-8)


@pytest.mark.parametrize("how", list(COPIERS))
@pytest.mark.parametrize("kind", [AccelerationScene, InverseDynamicsScene])
def test_a_copied_scene_keeps_its_collision_rows(how, kind):
    robot, _, avoidance = _setup()
    scene = kind(robot, dt=DT)
    scene.configure([TaskConfig(name="tip", type="cart", tip="tip", weights=[1, 1, 1, 0, 0, 0])])
    scene.set_collision_avoidance(avoidance)
    scene.set_reference("tip", CartesianReference(np.array([0.0, 5.0, 0.0, 0.0, 0.0, 0.0])))
    twin = COPIERS[how](scene)
    assert twin.collision is not scene.collision and twin.collision_avoidance == avoidance
    for q, v in _states(4):
        scene.robot.update(q, v)
        twin.robot.update(q, v)
        a, b = scene.update().levels[0], twin.update().levels[0]
        np.testing.assert_allclose(b.C, a.C, atol=1e-12)
        np.testing.assert_allclose(b.lbC, a.lbC, atol=1e-9)
        np.testing.assert_allclose(twin.solve().acceleration, scene.solve().acceleration, atol=1e-7)


def test_the_configuration_is_read_only():
    robot, _, avoidance = _setup()
    constraint = AccelerationCollisionConstraint(robot, avoidance)
    for name in ("robot", "avoidance", "pairs", "n_pairs"):
        with pytest.raises(AttributeError):
            setattr(constraint, name, None)
    with pytest.raises(ReadOnlyAttributeError):
        constraint.avoidance = avoidance


def test_two_threads_on_one_constraint_are_detected():
    """Two threads computing on one constraint would mix its workspaces: the second raises
    ConcurrentUseError, and every answer that went through is the answer at the robot's state."""
    robot, _, avoidance = _setup()
    constraint = AccelerationCollisionConstraint(robot, avoidance)
    q, v = _states(1)[0]
    robot.update(q, v)
    C0, lo0 = AccelerationCollisionConstraint(robot, avoidance).compute(DT)
    refused, done = [], []

    def use(stop):
        while not stop.is_set():
            try:
                C, lo = constraint.compute(DT)
                constraint.drift()
            except ConcurrentUseError:
                refused.append(1)
                continue
            np.testing.assert_allclose(C, C0, atol=1e-12)
            np.testing.assert_allclose(lo, lo0, atol=1e-9)
            done.append(1)

    run_together([use, use])
    assert refused and done
