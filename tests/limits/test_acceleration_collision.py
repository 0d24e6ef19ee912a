"""Collision avoidance at the acceleration and torque level (issue 28, part 1).

The test arm of ``_collision_helpers`` has spheres as the collision shapes of its last link and tip, so
the distances to a spherical obstacle are computed here in closed form from raw Pinocchio forward
kinematics, independently of coal and of the scenes. The closed loop integrates q̈ semi-implicitly at the
scene's dt, as the rows assume.
"""

from __future__ import annotations

import pickle

import numpy as np
import pinocchio as pin
import pytest
from _collision_helpers import ARM_URDF, geometry_pose, sphere_sphere

from wbcpy import AccelerationScene, InverseDynamicsScene, RobotModel
from wbcpy.collision import AccelerationCollisionConstraint, CollisionAvoidance, Obstacle, Sphere
from wbcpy.controllers import CartesianPD
from wbcpy.errors import ConfigError
from wbcpy.tasks import CartesianReference, TaskConfig

DT, DS, DI, GAIN = 0.01, 0.01, 0.15, 0.3
Q_START = np.array([-0.7, 0.3, 0.9])
Q_GOAL = np.array([0.7, 0.3, 0.9])
PAIRS = [("l3", "ball"), ("tip", "ball")]
RADII = {"l3_0": 0.03, "tip_0": 0.02}


def _tip(model: pin.Model, q: np.ndarray) -> np.ndarray:
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    return data.oMf[model.getFrameId("tip")].translation.copy()


def _distance(model: pin.Model, q: np.ndarray, geometry: str, ball: Obstacle) -> float:
    centre = geometry_pose(model, q, geometry).translation
    return sphere_sphere(centre, RADII[geometry], ball.placement.translation, ball.shape.radius)


def _min_distance(model: pin.Model, q: np.ndarray, ball: Obstacle) -> float:
    return min(_distance(model, q, g, ball) for g in RADII)


def _ball(model: pin.Model) -> Obstacle:
    """A ball of radius 5 cm centred 1 cm off the midpoint of the tip's straight start–goal segment."""
    mid = 0.5 * (_tip(model, Q_START) + _tip(model, Q_GOAL))
    return Obstacle("ball", Sphere(0.05), pin.SE3(np.eye(3), mid + np.array([0.0, 0.01, 0.0])))


def _avoidance(ball: Obstacle) -> CollisionAvoidance:
    return CollisionAvoidance(
        pairs=PAIRS, obstacles=[ball], safety_distance=DS, influence_distance=DI, gain=GAIN
    )


def _reach(scene: AccelerationScene, ball: Obstacle, steps: int = 400) -> tuple[np.ndarray, np.ndarray]:
    """The closed loop (PD towards Q_GOAL's tip position, q̈ integrated semi-implicitly at dt); returns
    the final q and the closed-form distances to the ball after every step."""
    robot = scene.robot
    task, law = scene.get_task("tip"), CartesianPD(kp=60.0, kd=2 * np.sqrt(60.0))
    goal = _tip(robot.model, Q_GOAL)
    q, v, distances = Q_START.copy(), np.zeros(3), []
    for _ in range(steps):
        robot.update(q, v)
        scene.set_reference("tip", law.reference(task, pin.SE3(task.pose().rotation, goal)))
        scene.solve(scene.update())
        v = v + scene.get_solver_output_raw() * DT
        q = pin.integrate(robot.model, q, v * DT)
        distances.append(_min_distance(robot.model, q, ball))
    return q, np.array(distances)


def _scene(kind: type[AccelerationScene], avoid: bool, ball: Obstacle) -> AccelerationScene:
    scene = kind(RobotModel.from_urdf(ARM_URDF), dt=DT)
    scene.configure([TaskConfig(name="tip", type="cart", tip="tip", weights=[1, 1, 1, 0, 0, 0])])
    if avoid:
        scene.set_collision_avoidance(_avoidance(ball))
    return scene


@pytest.mark.parametrize("kind", [AccelerationScene, InverseDynamicsScene])
def test_closed_loop_keeps_the_safety_distance(kind: type[AccelerationScene]) -> None:
    model = RobotModel.from_urdf(ARM_URDF).model
    ball = _ball(model)
    _, free = _reach(_scene(kind, False, ball), ball, steps=150)
    assert free.min() < -0.02  # without avoidance the arm goes through the ball
    scene = _scene(kind, True, ball)
    q, distances = _reach(scene, ball)
    assert distances.min() >= DS - 2e-3
    assert distances.min() < DS + 0.01  # it did go along the ball
    assert np.linalg.norm(_tip(model, q) - _tip(model, Q_GOAL)) < 0.02
    assert scene.collision is not None and scene.collision.pairs.penetrating == []


def test_rows_are_the_discrete_damper_of_the_closed_form_distance() -> None:
    """C = ∂d/∂q and lower = −γ(d − d_s)/dt² − J_d v/dt − ½ vᵀ∇²d v, each from the closed-form d by
    finite differences."""
    model = RobotModel.from_urdf(ARM_URDF).model
    ball = _ball(model)
    scene = _scene(AccelerationScene, False, ball)
    robot = scene.robot
    scene.set_collision_avoidance(
        CollisionAvoidance(
            pairs=[("tip", "ball")], obstacles=[ball], safety_distance=DS, influence_distance=0.5, gain=GAIN
        )
    )
    q, v = np.array([-0.2, 0.35, 0.85]), np.array([0.4, -0.3, 0.5])
    robot.update(q, v)
    scene.set_reference("tip", CartesianReference(np.zeros(6)))
    level = scene.update().levels[0]
    assert level.C.shape == (1, 3) and np.isinf(level.ubC).all()

    def d(x: np.ndarray) -> float:
        return _distance(model, x, "tip_0", ball)

    h = 1e-5
    grad = np.array([(d(q + h * e) - d(q - h * e)) / (2 * h) for e in np.eye(3)])
    curv = (d(q + h * v) - 2 * d(q) + d(q - h * v)) / h**2
    np.testing.assert_allclose(level.C[0], grad, atol=1e-7)
    expected = -GAIN * (d(q) - DS) / DT**2 - grad @ v / DT - 0.5 * curv
    np.testing.assert_allclose(level.lbC[0], expected, rtol=1e-4, atol=1e-3)
    assert scene.collision is not None
    np.testing.assert_allclose(scene.collision.drift(), [curv], rtol=1e-3)


def test_one_step_keeps_the_damped_margin() -> None:
    """A row at equality: the next distance is d_s + (1 − γ)(d − d_s) plus the remainder the derivation
    drops, dt²/2 (v⁺ᵀ∇²d v⁺ − vᵀ∇²d v) and third-order terms (∇²d from the closed-form distance)."""
    robot = RobotModel.from_urdf(ARM_URDF)
    model = robot.model
    ball = _ball(model)
    rows = AccelerationCollisionConstraint(robot, _avoidance(ball))
    q, v = np.array([-0.25, 0.35, 0.85]), np.array([0.6, -0.2, 0.3])
    robot.update(q, v)
    C, lower = rows.compute(DT)
    names = [rows.pairs.pair_names[p][0] for p in rows.pairs.active_pairs]
    assert sorted(names) == ["l3_0", "tip_0"]
    h = 1e-5
    for row, lo, g in zip(C, lower, names, strict=True):

        def d(x: np.ndarray, g: str = g) -> float:
            return _distance(model, x, g, ball)

        def curvature(u: np.ndarray) -> float:
            return (d(q + h * u) - 2 * d(q) + d(q - h * u)) / h**2

        qdd = row * lo / (row @ row)  # the least-norm q̈ on the boundary of this row
        v1 = v + qdd * DT
        d0, d1 = d(q), d(pin.integrate(model, q, v1 * DT))
        remainder = 0.5 * DT**2 * (curvature(v1) - curvature(v))
        third_order = DT**3 * float(np.linalg.norm(v1)) ** 3 * 1.0  # (m per rad³: links ≤ 1 m)
        assert d1 - DS == pytest.approx((1 - GAIN) * (d0 - DS) + remainder, abs=third_order)
        assert abs(remainder) > 1e-5  # (the remainder matters here: the row asks for a large q̈)
        assert d1 > DS


def test_rows_with_contacts_and_bounds_and_pickles() -> None:
    robot = RobotModel.from_urdf(ARM_URDF)
    ball = _ball(robot.model)
    scene = AccelerationScene(robot, dt=DT, joint_limits=True)
    scene.configure([TaskConfig(name="tip", type="cart", tip="tip", weights=[1, 1, 1, 0, 0, 0])])
    scene.set_collision_avoidance(_avoidance(ball).to_dict())
    assert scene.collision_avoidance == _avoidance(ball)
    q, v = np.array([-0.2, 0.35, 0.85]), np.array([3.0, -1.0, 1.0])
    robot.update(q, v)
    scene.set_reference("tip", CartesianReference(np.zeros(6)))
    level = scene.update().levels[0]
    lb, ub = scene._bounds(q, v)
    reach = np.maximum(level.C, 0) @ ub + np.minimum(level.C, 0) @ lb
    assert (level.lbC <= reach + 1e-12).all()  # never beyond what the bounds allow
    scene.solve()
    clone = pickle.loads(pickle.dumps(scene.collision))
    assert isinstance(clone, AccelerationCollisionConstraint) and clone.n_pairs == scene.collision.n_pairs
    scene.set_collision_avoidance(None)
    assert scene.collision is None and scene.update().levels[0].C is None


def test_bad_configuration_leaves_the_scene_unchanged() -> None:
    robot = RobotModel.from_urdf(ARM_URDF)
    scene = InverseDynamicsScene(robot, dt=DT)
    ball = _ball(robot.model)
    scene.set_collision_avoidance(_avoidance(ball))
    before = scene.collision
    with pytest.raises(ConfigError, match="pairs"):
        scene.set_collision_avoidance({"pairs": [["nope", "ball"]], "obstacles": [ball.to_dict()]})
    with pytest.raises(ConfigError, match="gain"):
        scene.set_collision_avoidance({"gain": 2.0, "obstacles": [ball.to_dict()]})
    assert scene.collision is before
    with pytest.raises(ConfigError, match="dt"):
        before.compute(0.0)


@pytest.mark.parametrize("contacts", [False, True])
def test_scene_files_take_the_collision_section(tmp_path, contacts: bool) -> None:
    from _collision_helpers import write_arm

    from wbcpy.scenes import load_scene_file
    from wbcpy.sim import SceneSimulation

    model = RobotModel.from_urdf(ARM_URDF).model
    ball = _ball(model)
    doc = {
        "robot": str(write_arm(tmp_path)),
        "q0": Q_START.tolist(),
        "dt": DT,
        "steps": 300,
        "collision": _avoidance(ball).to_dict(),
        "tasks": [
            {
                "name": "tip",
                "type": "cart",
                "tip": "tip",
                "weights": [1, 1, 1, 0, 0, 0],
                "kp": 60.0,
                "target": {"position": _tip(model, Q_GOAL).tolist()},
            }
        ],
    }
    if contacts:
        doc["effort_limits"] = False
        doc["contacts"] = []
    setup = load_scene_file(doc)
    assert isinstance(setup.scene, InverseDynamicsScene if contacts else AccelerationScene)
    assert setup.scene.collision_avoidance == _avoidance(ball)
    assert [o.name for o in setup.obstacles] == ["ball"]
    result = SceneSimulation(setup).run()
    distances = [_min_distance(model, q, ball) for q in result.q_path]
    assert min(distances) >= DS - 2e-3
    doc["collision"] = {"gain": 3.0, "obstacles": []}
    with pytest.raises(ConfigError) as info:
        load_scene_file(doc)
    assert info.value.field == "collision.gain"
