"""The ``axis`` and ``distance`` task types against finite differences of their task functions computed
with raw Pinocchio, and in the three scenes and a scene file.

Oracles: x(q) from ``pin.framesForwardKinematics`` alone (R_tip a; ‖p_tip − p_root‖); A column by column
from central differences along q ⊕ ε e_j; the drift J̇q̇ from the second difference of x along
q(t) = q ⊕ t v (a constant generalised velocity, q̈ = 0, on the Lie group of a floating base too); the
scenes' answers from raw Pinocchio's frame velocities and classical accelerations of the solved q̇ / q̈.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pinocchio as pin
import pytest
import yaml

from wbcpy import load_robot
from wbcpy.controllers import TaskPD, TaskVelocityLaw
from wbcpy.errors import ConfigError, ConfigKeyError, InvalidValueError
from wbcpy.scenes import AccelerationScene, InverseDynamicsScene, VelocityScene, load_scene_file
from wbcpy.sim import SceneSimulation
from wbcpy.tasks import (
    AxisReference,
    DistanceReference,
    JointReference,
    ReferenceTypeError,
    TaskConfig,
    VectorReference,
)
from wbcpy.tasks.distance_task import MIN_DISTANCE
from wbcpy.tasks.registry import make_task

TIP = "lwr_ee"
Q0 = np.array([0.3, 0.6, -0.2, -1.2, 0.3, 0.8, 0.1])
LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
AXIS = np.array([0.3, -0.5, 0.8])


def _state(robot: Any, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    q = pin.randomConfiguration(robot.model, -np.ones(robot.nq), np.ones(robot.nq))
    q = pin.normalize(robot.model, q) if robot.floating_base else np.clip(q, -1.0, 1.0)
    return q, rng.uniform(-1.0, 1.0, robot.nv)


def _placements(model: pin.Model, q: np.ndarray) -> pin.Data:
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    return data


def _raw_axis(model: pin.Model, q: np.ndarray, tip: str = TIP, axis: np.ndarray = AXIS) -> np.ndarray:
    R = _placements(model, q).oMf[model.getFrameId(tip)].rotation
    return R @ (axis / np.linalg.norm(axis))


def _raw_distance(model: pin.Model, q: np.ndarray, tip: str, root: str) -> np.ndarray:
    data = _placements(model, q)
    d = data.oMf[model.getFrameId(tip)].translation - data.oMf[model.getFrameId(root)].translation
    return np.array([np.linalg.norm(d)])


def _fd_jacobian(f: Any, model: pin.Model, q: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    cols = []
    for j in range(model.nv):
        e = np.zeros(model.nv)
        e[j] = eps
        cols.append((f(pin.integrate(model, q, e)) - f(pin.integrate(model, q, -e))) / (2 * eps))
    return np.array(cols).T


def _fd_drift(f: Any, model: pin.Model, q: np.ndarray, v: np.ndarray, eps: float = 1e-4) -> np.ndarray:
    """d²/dt² x(q ⊕ t v) at t = 0 (q̈ = 0 along a constant generalised velocity)."""
    plus, minus = pin.integrate(model, q, eps * v), pin.integrate(model, q, -eps * v)
    return (f(plus) - 2.0 * f(q) + f(minus)) / eps**2


def _rows(robot: Any, cfg: TaskConfig, q: np.ndarray, v: np.ndarray, level: str = "acceleration") -> Any:
    robot.update(q, v)
    task = make_task(robot, cfg, level=level)
    task.compute()
    return task


# ---------------------------------------------------------------------------------------- axis
@pytest.mark.parametrize("floating", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_axis_rows_and_drift_are_the_finite_differences_of_r_tip_axis(floating: bool, seed: int) -> None:
    robot = load_robot("lwr4", floating_base=floating)
    q, v = _state(robot, seed)
    cfg = TaskConfig("a", "axis", tip=TIP, axis=AXIS.tolist())
    task = _rows(robot, cfg, q, v)
    model = robot.model
    f = lambda qq: _raw_axis(model, qq)  # noqa: E731
    np.testing.assert_allclose(task.position(), f(q), atol=1e-12)
    np.testing.assert_allclose(task.A, _fd_jacobian(f, model, q), atol=1e-7)
    np.testing.assert_allclose(task.bias, _fd_drift(f, model, q, v), atol=2e-5)
    np.testing.assert_allclose(task.velocity(), task.A @ v, atol=1e-12)
    # the closed form of the module docstring, from raw Pinocchio's Jacobian
    data = model.createData()
    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)
    Jw = pin.getFrameJacobian(model, data, model.getFrameId(TIP), LWA)[3:]
    np.testing.assert_allclose(task.A, -pin.skew(f(q)) @ Jw, atol=1e-12)
    velocity_rows = _rows(robot, cfg, q, v, level="velocity")
    np.testing.assert_allclose(velocity_rows.A, task.A, atol=1e-12)
    assert not velocity_rows.bias.any()


def _raw_frame_motion(robot: Any, q: np.ndarray, v: np.ndarray, a: np.ndarray, frame: str) -> tuple[Any, Any]:
    model = robot.model
    data = model.createData()
    pin.forwardKinematics(model, data, q, v, a)
    pin.updateFramePlacements(model, data)
    fid = model.getFrameId(frame)
    return pin.getFrameVelocity(model, data, fid, LWA), pin.getFrameClassicalAcceleration(
        model, data, fid, LWA
    )


def test_axis_in_an_acceleration_scene_gives_the_raw_axis_acceleration() -> None:
    robot = load_robot("lwr4")
    v = np.linspace(-0.4, 0.3, 7)
    robot.update(Q0, v)
    scene = AccelerationScene(robot)
    scene.configure([{"name": "a", "type": "axis", "tip": TIP, "axis": AXIS.tolist()}])
    binding = scene.bind("a", TaskPD(kp=20.0, kd=9.0), [0.0, 0.0, -1.0])
    a_ref = scene.get_task("a").reference.acceleration.copy()
    qdd = scene.solve(scene.update()).acceleration
    vel, acc = _raw_frame_motion(robot, Q0, v, qdd, TIP)
    x = _raw_axis(robot.model, Q0)
    xdd = np.cross(acc.angular, x) + np.cross(vel.angular, np.cross(vel.angular, x))
    # ẍ can only be perpendicular to x plus the centripetal part: the least-squares answer meets the
    # reference's component in the plane x⊥ and the fixed ω×(ω×x) along x
    P = np.eye(3) - np.outer(x, x)
    np.testing.assert_allclose(P @ xdd, P @ a_ref, atol=1e-6)
    assert list(binding.target) == [0.0, 0.0, -1.0]


def test_axis_in_a_velocity_scene_turns_towards_the_target() -> None:
    robot = load_robot("lwr4")
    robot.update(Q0)
    scene = VelocityScene(robot, dt=0.01)
    scene.configure([{"name": "a", "type": "axis", "tip": TIP, "axis": AXIS.tolist()}])
    target = np.array([0.0, 0.6, -0.8])
    binding = scene.bind("a", TaskVelocityLaw(kp=5.0), target)
    xdot_ref = scene.get_task("a").reference.velocity.copy()
    qd = scene.solve(scene.update()).velocity
    vel, _ = _raw_frame_motion(robot, Q0, qd, np.zeros(7), TIP)
    x = _raw_axis(robot.model, Q0)
    P = np.eye(3) - np.outer(x, x)  # ẋ = ω × x ⊥ x: the achievable part of the reference
    np.testing.assert_allclose(np.cross(vel.angular, x), P @ xdot_ref, atol=1e-6)
    q = Q0.copy()
    for _ in range(300):
        robot.update(q)
        binding.update()
        q = pin.integrate(robot.model, q, scene.solve(scene.update()).velocity * 0.01)
    np.testing.assert_allclose(_raw_axis(robot.model, q), target, atol=1e-4)


def test_axis_in_an_inverse_dynamics_scene_matches_rnea() -> None:
    robot = load_robot("lwr4")
    v = np.linspace(0.2, -0.2, 7)
    robot.update(Q0, v)
    scene = InverseDynamicsScene(robot)
    scene.configure([{"name": "a", "type": "axis", "tip": TIP}])  # default axis: the tip's z
    scene.bind("a", TaskPD(kp=10.0, kd=6.0), [1.0, 0.0, 0.0])
    cmd = scene.solve(scene.update())
    tau = pin.rnea(robot.model, robot.model.createData(), Q0, v, cmd.acceleration)
    np.testing.assert_allclose(cmd.effort, tau, atol=1e-6)
    assert scene.get_task("a").axis.tolist() == [0.0, 0.0, 1.0]


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"axis": [0.0, 0.0, 0.0]}, "axis"),
        ({"axis": [1.0, 0.0]}, "axis"),
        ({"axis": [1.0, float("nan"), 0.0]}, "axis"),
        ({"axis": "z"}, "axis"),
        ({"axis": [True, 0, 0]}, "axis"),
        ({"tip": None}, "tip"),
        ({"tip": 3}, "tip"),
        ({"root": "base"}, "root"),
    ],
)
def test_axis_bad_config(fields: dict[str, Any], field: str) -> None:
    with pytest.raises(ConfigError) as info:
        TaskConfig(**{"name": "a", "type": "axis", "tip": TIP, **fields})
    assert info.value.field == field


def test_axis_bad_frame_and_reference_change_nothing() -> None:
    robot = load_robot("lwr4")
    robot.update(Q0)
    scene = VelocityScene(robot)
    with pytest.raises(ConfigKeyError) as info:
        scene.configure([{"name": "a", "type": "axis", "tip": "lwr_eee"}])
    assert info.value.field == "tasks[0].tip" and TIP in info.value.suggestions
    scene.configure([{"name": "a", "type": "axis", "tip": TIP}])
    scene.set_reference("a", AxisReference(velocity=[0.1, 0.0, 0.0]))
    before = scene.get_task("a").reference
    with pytest.raises(InvalidValueError):
        scene.set_reference("a", AxisReference(velocity=[0.1, 0.0]))
    with pytest.raises(ReferenceTypeError):
        scene.set_reference("a", VectorReference(velocity=[0.1, 0.0, 0.0]))
    assert scene.get_task("a").reference is before


# ---------------------------------------------------------------------------------------- distance
@pytest.mark.parametrize(("floating", "root"), [(False, "lwr_link_2"), (True, "lwr_link_2"),
                                                (True, "universe")])  # fmt: skip
@pytest.mark.parametrize("seed", [0, 1])
def test_distance_rows_and_drift_are_the_finite_differences_of_the_norm(
    floating: bool, root: str, seed: int
) -> None:
    robot = load_robot("lwr4", floating_base=floating)
    q, v = _state(robot, seed)
    task = _rows(robot, TaskConfig("d", "distance", tip=TIP, root=root), q, v)
    model = robot.model
    f = lambda qq: _raw_distance(model, qq, TIP, root)  # noqa: E731
    np.testing.assert_allclose(task.position(), f(q), atol=1e-12)
    np.testing.assert_allclose(task.A, _fd_jacobian(f, model, q), atol=1e-7)
    np.testing.assert_allclose(task.bias, _fd_drift(f, model, q, v), atol=2e-5)
    np.testing.assert_allclose(task.velocity(), task.A @ v, atol=1e-12)


def test_distance_at_zero_keeps_the_last_direction() -> None:
    """The rule of the module docstring: below MIN_DISTANCE the last direction's signed distance."""
    robot = load_robot("lwr4", floating_base=True)
    base = robot.root_link
    cfg = TaskConfig("d", "distance", tip=base, root="universe")
    q = robot.neutral()
    q[:3] = (0.0, 0.4, 0.0)  # the base 0.4 m along world y: u = e_y
    v = np.linspace(-0.5, 0.5, robot.nv)
    robot.update(q, v)
    task = make_task(robot, cfg)
    task.compute()
    q0 = q.copy()
    q0[:3] = 0.5 * MIN_DISTANCE * np.array([1.0, 0.0, 0.0])  # now at the world origin (a hair off)
    robot.update(q0, v)
    task.compute()
    data = robot.model.createData()
    pin.computeJointJacobians(robot.model, data, q0)
    pin.updateFramePlacements(robot.model, data)
    J = pin.getFrameJacobian(robot.model, data, robot.model.getFrameId(base), LWA)
    assert np.isfinite(task.A).all() and np.isfinite(task.bias).all()
    np.testing.assert_allclose(task.A[0], J[1], atol=1e-12)  # e_yᵀ J_lin: the kept direction
    fresh = make_task(robot, cfg)  # never saw a larger distance: the world z axis
    fresh.compute()
    np.testing.assert_allclose(fresh.A[0], J[2], atol=1e-12)


def test_distance_in_the_three_scenes() -> None:
    robot = load_robot("lwr4")
    v = np.linspace(-0.3, 0.3, 7)
    cfg = [{"name": "d", "type": "distance", "tip": TIP, "root": "lwr_link_2"},
           {"name": "p", "type": "jnt", "joint_names": robot.joint_names, "priority": 1}]  # fmt: skip
    for cls in (AccelerationScene, InverseDynamicsScene):
        robot.update(Q0, v)
        scene = cls(robot)
        scene.configure(cfg)
        scene.set_reference("d", DistanceReference(acceleration=[0.7]))
        scene.set_reference("p", JointReference(acceleration=np.zeros(7)))
        qdd = scene.solve(scene.update()).acceleration
        (vt, at), (vr, ar) = (_raw_frame_motion(robot, Q0, v, qdd, f) for f in (TIP, "lwr_link_2"))
        d = _raw_distance(robot.model, Q0, TIP, "lwr_link_2")[0]
        data = _placements(robot.model, Q0)
        u = (data.oMf[robot.model.getFrameId(TIP)].translation
             - data.oMf[robot.model.getFrameId("lwr_link_2")].translation) / d  # fmt: skip
        ddot = vt.linear - vr.linear
        xdd = u @ (at.linear - ar.linear) + (ddot @ ddot - (u @ ddot) ** 2) / d
        assert xdd == pytest.approx(0.7, abs=1e-6)
    robot.update(Q0)
    scene = VelocityScene(robot, joint_limits=False, velocity_limits=False)
    scene.configure(cfg[:1])
    scene.set_reference("d", DistanceReference(velocity=[-0.2]))
    qd = scene.solve(scene.update()).velocity
    vt, _ = _raw_frame_motion(robot, Q0, qd, np.zeros(7), TIP)
    vr, _ = _raw_frame_motion(robot, Q0, qd, np.zeros(7), "lwr_link_2")
    data = _placements(robot.model, Q0)
    d = (
        data.oMf[robot.model.getFrameId(TIP)].translation
        - data.oMf[robot.model.getFrameId("lwr_link_2")].translation
    )
    assert (d / np.linalg.norm(d)) @ (vt.linear - vr.linear) == pytest.approx(-0.2, abs=1e-7)


@pytest.mark.parametrize(
    ("fields", "field", "error"),
    [
        ({"root": None}, "tasks[0].root", ConfigError),
        ({"tip": ""}, "tasks[0].tip", ConfigError),
        ({"axis": [1, 0, 0]}, "tasks[0].axis", ConfigError),
        ({"tip": "nope"}, "tasks[0].tip", ConfigKeyError),
        ({"root": TIP}, "tasks[0].tip", ConfigError),
    ],
)
def test_distance_bad_config(fields: dict[str, Any], field: str, error: type[Exception]) -> None:
    robot = load_robot("lwr4")
    scene = AccelerationScene(robot)
    with pytest.raises(error) as info:
        scene.configure([{"name": "d", "type": "distance", "tip": TIP, "root": "lwr_link_2", **fields}])
    assert info.value.field == field  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------------------- files
def test_a_scene_file_closes_the_loop_on_axis_and_distance(tmp_path: Path) -> None:
    joints = load_robot("lwr4").joint_names
    doc = {
        "robot": "lwr4", "q0": Q0.tolist(), "dt": 0.002, "steps": 2000, "scene": "velocity",
        "joint_limits": False, "velocity_limits": False,
        "tasks": [
            {"name": "a", "type": "axis", "tip": TIP, "axis": [0, 0, 1], "target": [0, 0, -1], "kp": 10},
            {"name": "d", "type": "distance", "tip": TIP, "root": "lwr_link_2", "target": [0.5], "kp": 10},
            {"name": "p", "type": "jnt", "joint_names": joints, "priority": 1, "kp": 1.0},
        ],
    }  # fmt: skip
    path = tmp_path / "axis.yaml"
    path.write_text(yaml.safe_dump(doc))
    setup = load_scene_file(path)
    assert [t.error_labels() for t in setup.targets[:2]] == [["a [1]"], ["d [m]"]]
    result = SceneSimulation(setup).run()
    np.testing.assert_allclose(_raw_axis(setup.robot.model, result.q, axis=np.array([0, 0, 1.0])), [0, 0, -1],
                               atol=1e-3)  # fmt: skip
    assert _raw_distance(setup.robot.model, result.q, TIP, "lwr_link_2")[0] == pytest.approx(0.5, abs=1e-3)
