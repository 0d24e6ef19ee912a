"""The ``kinetic_energy`` task: its rows against Pinocchio's M, and below a frame task the dynamically
consistent inverse M⁻¹Jᵀ(JM⁻¹Jᵀ)⁻¹ẋ (closed form, from raw Pinocchio's CRBA and frame Jacobian)."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest
import yaml

from wbcpy import load_robot
from wbcpy.errors import ConfigError, ConfigKeyError, MissingReferenceWarning
from wbcpy.scenes import AccelerationScene, InverseDynamicsScene, VelocityScene, load_scene_file
from wbcpy.sim import SceneSimulation
from wbcpy.tasks import CartesianReference, KineticEnergyReference, TaskConfig
from wbcpy.tasks.registry import make_task

TIP = "lwr_ee"
Q0 = np.array([0.3, 0.6, -0.2, -1.2, 0.3, 0.8, 0.1])
LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED


def _raw(robot, q, v):
    """(M, J, J̇q̇) of the tip from raw Pinocchio (world-aligned axes)."""
    model = robot.model
    data = model.createData()
    M = pin.crba(model, data, q)
    M = np.triu(M) + np.triu(M, 1).T
    pin.forwardKinematics(model, data, q, v, np.zeros(model.nv))
    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)
    fid = model.getFrameId(TIP)
    J = pin.getFrameJacobian(model, data, fid, LWA)
    drift = pin.getFrameClassicalAcceleration(model, data, fid, LWA).vector
    return M, J, drift


def _consistent_inverse(M, J, xdot):
    Minv_Jt = np.linalg.solve(M, J.T)
    return Minv_Jt @ np.linalg.solve(J @ Minv_Jt, xdot)


def _configs(weights=None):
    ke = {"name": "ke", "type": "kinetic_energy", "priority": 1}
    if weights is not None:
        ke["weights"] = weights
    return [{"name": "ee", "type": "cart", "tip": TIP, "root": "universe"}, ke]


@pytest.mark.parametrize("floating", [False, True])
def test_rows_square_to_half_the_mass_matrix(floating: bool) -> None:
    robot = load_robot("lwr4", floating_base=floating)
    q = pin.randomConfiguration(robot.model, -np.ones(robot.nq), np.ones(robot.nq))
    q = pin.normalize(robot.model, q) if floating else np.clip(q, -1, 1)
    v = np.linspace(-1.0, 1.0, robot.nv)
    robot.update(q, v)
    M = _raw(robot, q, v)[0]
    for level in ("velocity", "acceleration"):
        task = make_task(robot, TaskConfig("ke", "kinetic_energy"), level=level)
        task.compute()
        assert task.n == robot.nv
        np.testing.assert_allclose(task.A.T @ task.A, 0.5 * M, atol=1e-10)
        assert not task.bias.any()
        assert task.position()[0] == pytest.approx(0.5 * v @ M @ v, rel=1e-12)


def test_velocity_scene_gives_the_dynamically_consistent_inverse() -> None:
    robot = load_robot("lwr4")
    robot.update(Q0)
    scene = VelocityScene(robot, joint_limits=False, velocity_limits=False, regularization=1e-12)
    scene.configure(_configs())
    twist = np.array([0.1, -0.05, 0.08, 0.2, -0.1, 0.3])
    scene.set_reference("ee", CartesianReference(twist=twist))
    with warnings.catch_warnings():
        warnings.simplefilter("error", MissingReferenceWarning)  # the energy needs no reference
        qd = scene.solve(scene.update()).velocity
    M, J, _ = _raw(robot, Q0, np.zeros(7))
    np.testing.assert_allclose(qd, _consistent_inverse(M, J, twist), atol=1e-7)
    assert scene.get_tasks_status()["ke"].state == "active"


def test_acceleration_scenes_give_the_dynamically_consistent_inverse() -> None:
    robot = load_robot("lwr4")
    v = np.linspace(0.3, -0.3, 7)
    acc = np.array([0.5, 0.2, -0.3, 1.0, -0.5, 0.2])
    for cls in (AccelerationScene, InverseDynamicsScene):
        robot.update(Q0, v)
        scene = cls(robot, regularization=1e-12)
        scene.configure(_configs())
        scene.set_reference("ee", CartesianReference(acceleration=acc))
        qdd = scene.solve(scene.update()).acceleration
        M, J, drift = _raw(robot, Q0, v)
        np.testing.assert_allclose(qdd, _consistent_inverse(M, J, acc - drift), atol=1e-6)


def test_a_scene_file_takes_the_task_without_target_or_gains(tmp_path: Path) -> None:
    doc = {
        "robot": "lwr4", "q0": Q0.tolist(), "scene": "velocity", "dt": 0.01, "steps": 200,
        "tasks": [{"name": "ee", "type": "cart", "tip": TIP, "target": {"offset": [0.05, 0.0, 0.0]}},
                  {"name": "ke", "type": "kinetic_energy", "priority": 1}],
    }  # fmt: skip
    path = tmp_path / "ke.yaml"
    path.write_text(yaml.safe_dump(doc))
    setup = load_scene_file(path)
    assert setup.targets[1].error_labels() == []
    result = SceneSimulation(setup).run()
    assert result.final_errors()["ee position [m]"] < 1e-3
    doc["tasks"][1]["kp"] = 1.0
    path.write_text(yaml.safe_dump(doc))
    with pytest.raises(ConfigKeyError) as info:
        load_scene_file(path)
    assert info.value.field == "tasks[1].kp"


def test_bad_inputs() -> None:
    robot = load_robot("lwr4")
    robot.update(Q0)
    scene = VelocityScene(robot)
    with pytest.raises(ConfigError) as info:
        scene.configure(_configs(weights=[1.0, 1.0]))
    assert info.value.field == "tasks[1].weights"
    with pytest.raises(ConfigError) as info:
        TaskConfig("ke", "kinetic_energy", weights=[1.0, -1.0])
    assert info.value.field == "weights"
    with pytest.raises(ConfigError) as info:
        TaskConfig("ke", "kinetic_energy", tip=TIP)
    assert info.value.field == "tip"
    with pytest.raises(ConfigError, match="per DOF"):
        _ = TaskConfig("ke", "kinetic_energy").n_variables  # (its row count needs the robot)
    scene.configure(_configs(weights=[2.0] * 7))
    task = scene.get_task("ke")
    with pytest.raises(ConfigError):
        scene.bind("ke", object(), [0.0])  # takes no law
    scene.set_reference("ke", KineticEnergyReference(velocity=np.zeros(7)))
    assert task.n == 7 and task.weights.tolist() == [2.0] * 7
