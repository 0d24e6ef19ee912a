"""A task type is one file plus one registration (issue 25): a new type registered from this file alone
works in all three scenes, in a YAML scene file and in a sweep.

The new type, ``height``, is the world z coordinate of a frame (one row): x = p_z(q), A = J_z (row 2 of
the frame's LOCAL_WORLD_ALIGNED Jacobian), bias = J̇_z q̇. Oracles: raw Pinocchio's forward kinematics of
the solved q̈ (the frame's classical acceleration) and q̇ (its velocity), the inverse dynamics (RNEA) of
the solved q̈, and raw Pinocchio's placement of the closed loop's final state.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pinocchio as pin
import pytest
import yaml

from wbcpy import AccelerationScene, InverseDynamicsScene, VelocityScene, load_robot
from wbcpy.controllers import JointPD, JointVelocityLaw, TaskPD, TaskVelocityLaw, law_for
from wbcpy.errors import ConfigError, ConfigKeyError
from wbcpy.scenes import load_scene_file
from wbcpy.sim import SceneSimulation
from wbcpy.sweep import load_sweep, run_one
from wbcpy.tasks import (
    TASK_TYPES,
    ReferenceTypeError,
    Task,
    TaskConfig,
    TaskType,
    VectorReference,
    register_task_type,
    task_types,
    unregister_task_type,
)

LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
TIP = "lwr_ee"
Q0 = np.array([0.3, 0.6, -0.2, -1.2, 0.3, 0.8, 0.1])


# ---------------------------------------------------------------------------------------- the new type
@dataclass
class HeightReference(VectorReference):
    """Reference of a ``height`` task (1 row: m/s², m, m/s)."""


class HeightTask(Task):
    """World z of the config's ``tip`` frame."""

    type = "height"

    def __init__(self, robot: Any, config: TaskConfig, prefix: str = "", level: str = "acceleration") -> None:
        super().__init__(robot, config, level)
        self._frame = robot.frame_id(config.tip)

    def compute(self) -> None:
        self._A[:] = self.robot.frame_jacobian(self._frame)[2]
        if self.level == "acceleration":
            self._bias[:] = self.robot.frame_bias(self._frame)[2]

    def position(self) -> np.ndarray:
        return self.robot.frame_placement(self._frame).translation[2:3].copy()

    def velocity(self) -> np.ndarray:
        return self.robot.frame_jacobian(self._frame)[2:3] @ self.robot.v


@pytest.fixture(scope="module", autouse=True)
def height_type() -> Iterator[TaskType]:
    spec = register_task_type(
        TaskType(
            "height", HeightTask, HeightReference, rows=1, fields=("tip",), required=("tip",), tolerance=2e-3
        )
    )
    yield spec
    unregister_task_type("height")


def _height_task(priority: int = 0) -> dict[str, Any]:
    return {"name": "h", "type": "height", "tip": TIP, "priority": priority}


def _posture(robot: Any, priority: int = 1) -> dict[str, Any]:
    return {"name": "posture", "type": "jnt", "joint_names": list(robot.joint_names), "priority": priority}


# ---------------------------------------------------------------------------------------- raw oracles
def _raw_height_acceleration(robot: Any, q: np.ndarray, v: np.ndarray, a: np.ndarray) -> float:
    model = robot.model
    data = model.createData()
    pin.forwardKinematics(model, data, q, v, a)
    pin.updateFramePlacements(model, data)
    fid = model.getFrameId(TIP)
    return float(pin.getFrameClassicalAcceleration(model, data, fid, LWA).linear[2])


def _raw_height_velocity(robot: Any, q: np.ndarray, v: np.ndarray) -> float:
    model = robot.model
    data = model.createData()
    pin.forwardKinematics(model, data, q, v)
    pin.updateFramePlacements(model, data)
    return float(pin.getFrameVelocity(model, data, model.getFrameId(TIP), LWA).linear[2])


def _raw_height(robot: Any, q: np.ndarray) -> float:
    model = robot.model
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    return float(data.oMf[model.getFrameId(TIP)].translation[2])


# ---------------------------------------------------------------------------------------- registry
def test_the_type_is_known_everywhere_after_one_registration() -> None:
    assert "height" in task_types() and TASK_TYPES["height"] == 1
    assert law_for("height", "acceleration") is TaskPD
    assert law_for("height", "velocity") is TaskVelocityLaw
    cfg = TaskConfig(name="h", type="height", tip=TIP)
    assert cfg.n_variables == 1


def test_config_checks_come_from_the_registration() -> None:
    with pytest.raises(ConfigError, match="tip"):
        TaskConfig(name="h", type="height")
    with pytest.raises(ConfigError, match="joint_names"):
        TaskConfig(name="h", type="height", tip=TIP, joint_names=["j1"])
    with pytest.raises(ConfigError, match="weights"):
        TaskConfig(name="h", type="height", tip=TIP, weights=[1.0, 1.0])


def test_registration_errors() -> None:
    with pytest.raises(ConfigError, match="registered already"):
        register_task_type(TaskType("height", HeightTask, HeightReference, rows=1))
    with pytest.raises(ConfigKeyError):
        TaskType("bad", HeightTask, HeightReference, rows=1, target="nonsense")
    with pytest.raises(ConfigError):
        TaskType("bad", HeightTask, HeightReference, rows=0)
    with pytest.raises(ConfigError):
        TaskType("bad", HeightTask, HeightReference, rows=1, required=("tip",))
    with pytest.raises(ConfigKeyError):
        unregister_task_type("no_such_type")
    with pytest.raises(ConfigKeyError, match="height"):  # the error lists the registered types
        TaskConfig(name="x", type="heigth", tip=TIP)


# ---------------------------------------------------------------------------------------- three scenes
def test_acceleration_scene_tracks_the_new_type() -> None:
    robot = load_robot("lwr4")
    v = np.linspace(-0.3, 0.4, robot.nv)
    robot.update(Q0, v)
    scene = AccelerationScene(robot)
    scene.configure([_height_task(), _posture(robot)])
    h = scene.bind("h", TaskPD(kp=50.0, kd=14.0), [0.4])
    scene.bind("posture", JointPD(kp=10.0, kd=6.0), Q0)
    h.update()
    a_ref = float(scene.get_task("h").reference.acceleration[0])
    qdd = scene.solve(scene.update()).acceleration
    # the PD law (independent arithmetic) and the height acceleration raw Pinocchio gives for q̈
    z, zdot = _raw_height(robot, Q0), _raw_height_velocity(robot, Q0, v)
    assert a_ref == pytest.approx(50.0 * (0.4 - z) - 14.0 * zdot, abs=1e-9)
    assert _raw_height_acceleration(robot, Q0, v, qdd) == pytest.approx(a_ref, abs=1e-6)


def test_checked_api_and_wrong_inputs() -> None:
    robot = load_robot("lwr4")
    robot.update(Q0, np.zeros(robot.nv))
    scene = AccelerationScene(robot)
    scene.configure([_height_task(), _posture(robot)])
    task = scene.get_task("h")
    scene.set_reference("h", TaskPD(kp=10.0, kd=5.0).reference(task, [0.5]))
    assert isinstance(task.reference, HeightReference)
    with pytest.raises(ReferenceTypeError):
        scene.set_reference("h", VectorReference(acceleration=[0.0]))
    with pytest.raises(ConfigError, match="TaskPD"):
        scene.bind("h", JointPD(kp=1.0, kd=1.0), [0.5])


def test_velocity_scene_tracks_the_new_type() -> None:
    robot = load_robot("lwr4")
    robot.update(Q0, np.zeros(robot.nv))
    scene = VelocityScene(robot)
    scene.configure([_height_task(), _posture(robot)])
    scene.bind("h", TaskVelocityLaw(kp=5.0), [0.45])
    scene.bind("posture", JointVelocityLaw(kp=1.0), Q0)
    qd = scene.solve(scene.update()).velocity
    expected = 5.0 * (0.45 - _raw_height(robot, Q0))
    assert _raw_height_velocity(robot, Q0, qd) == pytest.approx(expected, abs=1e-6)


def test_inverse_dynamics_scene_tracks_the_new_type() -> None:
    robot = load_robot("lwr4")
    v = np.linspace(0.2, -0.2, robot.nv)
    robot.update(Q0, v)
    scene = InverseDynamicsScene(robot)
    scene.configure([_height_task(), _posture(robot)])
    scene.bind("h", TaskPD(kp=30.0, kd=11.0), [0.42])
    cmd = scene.solve(scene.update())
    a_ref = float(scene.get_task("h").reference.acceleration[0])
    assert _raw_height_acceleration(robot, Q0, v, cmd.acceleration) == pytest.approx(a_ref, abs=1e-6)
    tau = pin.rnea(robot.model, robot.model.createData(), Q0, v, cmd.acceleration)
    np.testing.assert_allclose(cmd.effort, tau, atol=1e-6)


# ---------------------------------------------------------------------------------------- files, sweeps
def _scene_doc(target: float) -> dict[str, Any]:
    return {
        "robot": "lwr4",
        "q0": Q0.tolist(),
        "dt": 0.002,
        "steps": 1500,
        "tasks": [
            {**_height_task(), "target": [target], "kp": 40.0},
            {**_posture(load_robot("lwr4")), "kp": 5.0},
        ],
    }


def test_scene_file_closes_the_loop_on_the_new_type(tmp_path: Path) -> None:
    target = 0.55
    path = tmp_path / "height.yaml"
    path.write_text(yaml.safe_dump(_scene_doc(target)))
    setup = load_scene_file(path)
    assert setup.targets[0].error_labels() == ["h [m]"]
    result = SceneSimulation(setup).run()
    final = _raw_height(setup.robot, result.q)
    assert final == pytest.approx(target, abs=1e-3)
    assert result.final_errors()["h [m]"] == pytest.approx(abs(final - target), abs=1e-9)


def test_sweep_runs_the_new_type(tmp_path: Path) -> None:
    (tmp_path / "height.yaml").write_text(yaml.safe_dump(_scene_doc(0.55)))
    sweep = {"scene": "height.yaml", "steps": 1500, "grid": {"tasks.h.kp": [40.0, 0.5]},
             "metrics": ["final_error", "success"]}  # fmt: skip
    spec = load_sweep(sweep, base_dir=tmp_path)
    rows = [run_one(spec, run) for run in spec.runs()]
    assert [r["status"] for r in rows] == ["ok", "ok"]
    # the type's registered tolerance (2 mm) decides success: kp 40 converges, kp 0.5 does not in 3 s
    assert rows[0]["success"] and not rows[1]["success"]
