"""VelocityScene with collision avoidance (issue 16, acceptance point 4).

The test arm of ``_collision_helpers`` has primitive collision shapes (spheres and a box), so every
distance is computed in the tests in closed form from raw Pinocchio forward kinematics, independently
of coal and of the scene.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from _collision_helpers import ARM_GEOMETRY, ARM_URDF, geometry_pose, sphere_box, sphere_sphere
from _scene_helpers import BACKENDS

from wbcpy import RobotModel, VelocityScene, load_robot
from wbcpy.collision import CollisionAvoidance, Obstacle, Sphere
from wbcpy.controllers import CartesianVelocityLaw
from wbcpy.errors import ConfigError, ConfigKeyError, QPSolveError
from wbcpy.tasks import CartesianReference, JointReference, TaskConfig

DT, DS, DI, GAIN = 0.01, 0.01, 0.1, 0.5
Q_START = np.array([-0.7, 0.3, 0.9])
Q_GOAL = np.array([0.7, 0.3, 0.9])


def _tip(model: pin.Model, q: np.ndarray) -> np.ndarray:
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    return data.oMf[model.getFrameId("tip")].translation.copy()


def _distance(model: pin.Model, q: np.ndarray, geometry: str, ball: Obstacle) -> float:
    """Closed-form signed distance between a robot geometry of the arm and a spherical obstacle."""
    _, _, shape = ARM_GEOMETRY[geometry]
    pose = geometry_pose(model, q, geometry)
    centre, radius = ball.placement.translation, ball.shape.radius
    if shape[0] == "sphere":
        return sphere_sphere(pose.translation, shape[1], centre, radius)
    return sphere_box(centre, radius, pose, shape[1])


def _min_distance(model: pin.Model, q: np.ndarray, ball: Obstacle) -> float:
    return min(_distance(model, q, g, ball) for g, (link, _, _) in ARM_GEOMETRY.items() if link != "base")


def _ball_on_the_straight_path(model: pin.Model) -> Obstacle:
    """A ball of radius 5 cm centred 1 cm off the midpoint of the tip's straight start–goal segment."""
    mid = 0.5 * (_tip(model, Q_START) + _tip(model, Q_GOAL))
    return Obstacle("ball", Sphere(0.05), pin.SE3(np.eye(3), mid + np.array([0.0, 0.01, 0.0])))


def _reach(robot: RobotModel, ball: Obstacle, avoid: bool = True, steps: int = 600):
    """The closed loop towards Q_GOAL's tip position; returns (q, closed-form distances to the ball per
    step, scene)."""
    scene = VelocityScene(robot, dt=DT)
    scene.configure([TaskConfig(name="tip", type="cart", tip="tip", weights=[1, 1, 1, 0, 0, 0])])
    if avoid:
        scene.set_collision_avoidance(
            CollisionAvoidance(obstacles=[ball], safety_distance=DS, influence_distance=DI, gain=GAIN)
        )
    task, law = scene.get_task("tip"), CartesianVelocityLaw(kp=3.0)
    goal = _tip(robot.model, Q_GOAL)
    q, distances = Q_START.copy(), []
    for _ in range(steps):
        robot.update(q)
        target = pin.SE3(task.pose().rotation, goal)  # position only (orientation weights are 0)
        scene.set_reference("tip", law.reference(task, target))
        q = pin.integrate(robot.model, q, scene.solve(scene.update()).velocity * DT)
        distances.append(_min_distance(robot.model, q, ball))
    return q, np.array(distances), scene


def test_closed_loop_goes_around_the_obstacle() -> None:
    robot = RobotModel.from_urdf(ARM_URDF)
    model = robot.model
    ball = _ball_on_the_straight_path(model)
    goal = _tip(model, Q_GOAL)
    # the tip's straight start–goal segment cuts through the ball, and so does the loop without avoidance
    samples = np.linspace(0.0, 1.0, 50)
    straight = [_tip(model, Q_START) + s * (goal - _tip(model, Q_START)) for s in samples]
    assert min(np.linalg.norm(p - ball.placement.translation) for p in straight) < 0.05 - 0.02
    assert _reach(RobotModel.from_urdf(ARM_URDF), ball, avoid=False, steps=150)[1].min() < -0.02
    # with avoidance: never closer than the safety distance (minus 1 mm), and the goal is reached
    q, distances, scene = _reach(robot, ball)
    assert distances.min() >= DS - 1e-3
    assert distances.min() < DS + 0.01  # it did go along the ball, not far away from it
    assert np.linalg.norm(_tip(model, q) - goal) < 1e-3
    assert scene.update_tasks_status().penetrating == []


def test_scene_rows_are_the_derivative_of_the_distances() -> None:
    robot = RobotModel.from_urdf(ARM_URDF)
    model = robot.model
    ball = _ball_on_the_straight_path(model)
    scene = VelocityScene(robot, dt=DT, joint_limits=False, velocity_limits=False)
    scene.configure([TaskConfig(name="tip", type="cart", tip="tip")])
    scene.set_collision_avoidance(
        CollisionAvoidance(obstacles=[ball], safety_distance=DS, influence_distance=0.5, gain=GAIN)
    )
    q = np.array([-0.2, 0.35, 0.85])
    robot.update(q)
    scene.set_reference("tip", CartesianReference(twist=np.zeros(6)))
    level = scene.update().levels[0]
    names = [s.geometry_a for s in scene.collision.status()]
    order = {n: i for i, n in enumerate(g for g, _ in scene.collision.pair_names)}
    assert level.C.shape == (len(names), 3) and np.all(np.isinf(level.ubC))
    h = 1e-6
    for row, lower in zip(level.C, level.lbC, strict=True):
        # identify the pair of the row by its right-hand side (distances differ)
        d_all = {g: _distance(model, q, g, ball) for g in order}
        g = min(d_all, key=lambda k: abs(-GAIN * (d_all[k] - DS) / DT - lower))
        np.testing.assert_allclose(lower, -GAIN * (d_all[g] - DS) / DT, rtol=1e-7)
        fd = [(_distance(model, q + h * e, g, ball) - _distance(model, q - h * e, g, ball)) / (2 * h)
              for e in np.eye(3)]  # fmt: skip
        np.testing.assert_allclose(row, fd, atol=1e-6)


def test_penetration_is_reported_and_pushes_apart() -> None:
    robot = RobotModel.from_urdf(ARM_URDF)
    model = robot.model
    q = np.array([0.2, 0.4, 0.7])
    tip = _tip(model, q)
    outward = (tip - geometry_pose(model, q, "l3_0").translation) / 0.05  # along the last link
    ball = Obstacle("ball", Sphere(0.03), pin.SE3(np.eye(3), tip + 0.04 * outward))
    assert _distance(model, q, "tip_0", ball) < 0.0  # the tip sphere (r 2 cm) is 1 cm inside
    assert _distance(model, q, "l3_0", ball) > 0.0
    scene = VelocityScene(robot, dt=DT)
    scene.configure([TaskConfig(name="tip", type="cart", tip="tip", weights=[1, 1, 1, 0, 0, 0])])
    scene.set_collision_avoidance(CollisionAvoidance(obstacles=[ball], safety_distance=DS, gain=GAIN))
    robot.update(q)
    scene.set_reference("tip", CartesianReference(twist=[*(0.5 * outward), 0, 0, 0]))  # pushing further in
    qdot = scene.solve(scene.update()).velocity
    status = scene.update_tasks_status()
    assert [(p.geometry_a, p.geometry_b) for p in status.penetrating] == [("tip_0", "ball")]
    np.testing.assert_allclose(status.penetrating[0].distance, _distance(model, q, "tip_0", ball), atol=1e-6)
    assert "PENETRATING" in str(status)
    d0 = _distance(model, q, "tip_0", ball)
    assert _distance(model, pin.integrate(model, q, qdot * DT), "tip_0", ball) > d0  # moves apart


def test_contradicting_rows_raise_and_keep_the_last_output() -> None:
    robot = RobotModel.from_urdf(ARM_URDF)
    model = robot.model
    q = np.array([0.2, 0.4, 0.7])
    tip = _tip(model, q)
    scene = VelocityScene(robot, dt=DT)
    scene.configure([TaskConfig(name="tip", type="cart", tip="tip", weights=[1, 1, 1, 0, 0, 0])])
    robot.update(q)
    scene.set_reference("tip", CartesianReference(twist=np.zeros(6)))
    good = scene.solve(scene.update()).velocity
    squeeze = [
        Obstacle(f"ball{i}", Sphere(0.02), pin.SE3(np.eye(3), tip + np.array([0.0, 0.0, s * 0.035])))
        for i, s in enumerate((1.0, -1.0))
    ]  # the tip sphere penetrates both, from opposite sides: both rows ask to move away
    scene.set_collision_avoidance(CollisionAvoidance(pairs=[("tip", "ball0"), ("tip", "ball1")],
                                                     obstacles=squeeze, gain=1.0))  # fmt: skip
    with pytest.raises(QPSolveError):
        scene.solve(scene.update())
    np.testing.assert_array_equal(scene.get_solver_output_raw(), good)


def test_bad_collision_configuration_raises_and_changes_nothing() -> None:
    robot = RobotModel.from_urdf(ARM_URDF)
    scene = VelocityScene(robot)
    ball = Obstacle("ball", Sphere(0.05), pin.SE3(np.eye(3), np.array([0.3, 0.3, 0.3])))
    scene.set_collision_avoidance(CollisionAvoidance(obstacles=[ball]))
    before = scene.collision
    cases = [
        ({"pairs": [("tip", "bal")], "obstacles": [ball.to_dict()]}, "pairs[0][1]", ConfigKeyError),
        (
            {"safety_distance": 0.2, "influence_distance": 0.1, "pairs": "self"},
            "safety_distance",
            ConfigError,
        ),
        ({"pairs": "self", "gain": 0.0}, "gain", ConfigError),
        ({"pairs": "self", "colour": "red"}, "colour", ConfigKeyError),
    ]
    for mapping, field, error in cases:
        with pytest.raises(error) as info:
            scene.set_collision_avoidance(mapping)
        assert info.value.field == field
        assert scene.collision is before
    lwr = VelocityScene(load_robot("lwr4"))  # no <collision> elements in its URDF
    with pytest.raises(ConfigError) as info:
        lwr.set_collision_avoidance(CollisionAvoidance(pairs="self"))
    assert info.value.field == "pairs" and lwr.collision is None
    scene.set_collision_avoidance(None)
    assert scene.collision is None and scene.collision_avoidance is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_backend_agrees_on_collision_rows_or_raises(backend: str) -> None:
    """Active damper rows (inequalities of the first level) under two levels and the joint bounds."""
    robot = RobotModel.from_urdf(ARM_URDF)
    model = robot.model
    q = np.array([-0.25, 0.3, 0.9])
    goal = _tip(model, Q_GOAL)
    towards = (goal - _tip(model, q)) / np.linalg.norm(goal - _tip(model, q))
    centre = _tip(model, q) + (0.02 + 0.05 + 0.012) * towards  # 12 mm ahead of the tip sphere
    ball = Obstacle("ball", Sphere(0.05), pin.SE3(np.eye(3), centre))
    results = {}
    for name in ("daqp", backend):
        scene = VelocityScene(robot, solver=name, dt=DT)
        scene.configure(
            [
                TaskConfig(name="tip", type="cart", tip="tip", weights=[1, 1, 1, 0, 0, 0]),
                TaskConfig(name="post", type="jnt", joint_names=["j1", "j2", "j3"], priority=1),
            ]
        )
        scene.set_collision_avoidance(CollisionAvoidance(obstacles=[ball], safety_distance=DS, gain=GAIN))
        robot.update(q)
        scene.set_reference("tip", CartesianReference(twist=[*(2.0 * towards), 0, 0, 0]))
        scene.set_reference("post", JointReference(velocity=[0.0, -1.0, 1.0]))
        hqp = scene.update()
        level = hqp.levels[0]
        assert level.C is not None and level.C.shape[0] >= 1
        try:
            x = scene.solve(hqp).velocity
        except QPSolveError:
            assert name != "daqp"
            return
        assert np.all(level.C @ x >= level.lbC - 1e-7)  # the damper rows hold
        results[name] = x
    assert np.any(level.C @ results["daqp"] <= level.lbC + 1e-7)  # one of them is active
    np.testing.assert_allclose(results[backend], results["daqp"], atol=1e-5)


def test_copies_and_pickles_are_independent_scenes() -> None:
    import copy
    import pickle

    robot = RobotModel.from_urdf(ARM_URDF)
    ball = _ball_on_the_straight_path(robot.model)
    scene = VelocityScene(robot, dt=DT)
    scene.configure([TaskConfig(name="tip", type="cart", tip="tip", weights=[1, 1, 1, 0, 0, 0])])
    scene.set_collision_avoidance(CollisionAvoidance(obstacles=[ball], safety_distance=DS))
    q = np.array([-0.25, 0.3, 0.9])
    robot.update(q)
    scene.set_reference("tip", CartesianReference(twist=[0.0, 0.5, 0.0, 0, 0, 0]))
    x = scene.solve(scene.update()).velocity
    for other in (copy.deepcopy(scene), pickle.loads(pickle.dumps(scene))):
        assert other.robot is not robot and other.collision.robot is other.robot
        other.robot.update(q)
        np.testing.assert_allclose(other.solve(other.update()).velocity, x, atol=1e-12)
        other.robot.update(np.zeros(3))
        other.set_reference("tip", CartesianReference(twist=np.zeros(6)))
        other.solve(other.update())
    np.testing.assert_array_equal(scene.get_solver_output_raw(), x)  # the original is untouched
    np.testing.assert_array_equal(robot.q, q)
