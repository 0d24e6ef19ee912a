"""The ``com_polygon`` and ``loop_closures`` sections of scene files, in closed loop: velocity scenes
integrated kinematically, an inverse-dynamics scene on its rigid-constraint plant (Pinocchio's
``constraintDynamics`` with the loop as a constraint). Oracles: raw Pinocchio's placements and COM of the
final state; the closed-form projection onto a rectangle."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pinocchio as pin
import pytest
import yaml

from wbcpy import load_robot
from wbcpy.errors import ConfigError, ConfigKeyError
from wbcpy.scenes import load_scene_file
from wbcpy.sim import SceneSimulation


def _relative(robot: Any, q: np.ndarray, a: str, b: str) -> pin.SE3:
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, q)
    return data.oMf[robot.model.getFrameId(a)].actInv(data.oMf[robot.model.getFrameId(b)])


def _write(tmp_path: Path, doc: dict[str, Any]) -> Path:
    path = tmp_path / "scene.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def _bimanual(steps: int = 400) -> dict[str, Any]:
    joints = load_robot("bimanual").joint_names
    return {
        "robot": "bimanual", "scene": "velocity", "dt": 0.01, "steps": steps,
        "q0": np.linspace(-0.4, 0.5, 15).tolist(), "joint_limits": False, "velocity_limits": False,
        "loop_closures": [{"frame_a": "left_ee", "frame_b": "right_ee", "name": "grip"}],
        "tasks": [
            {"name": "torso", "type": "jnt", "joint_names": ["torso_joint"], "target": [0.1], "kp": 2.0},
            {"name": "posture", "type": "jnt", "joint_names": joints, "priority": 1, "kp": 0.5},
        ],
    }  # fmt: skip


def test_a_velocity_file_keeps_its_loop_closed(tmp_path: Path) -> None:
    doc = _bimanual()
    setup = load_scene_file(_write(tmp_path, doc))
    assert [lp.name for lp in setup.scene.loop_closures] == ["grip"]
    start = _relative(setup.robot, setup.q0, "left_ee", "right_ee")
    result = SceneSimulation(setup).run()
    assert result.q[0] == pytest.approx(0.1, abs=1e-3)  # the torso turned from −0.4 to its target
    rel = _relative(setup.robot, result.q, "left_ee", "right_ee")
    np.testing.assert_allclose(rel.translation, start.translation, atol=1e-5)
    assert np.linalg.norm(pin.log3(rel.rotation @ start.rotation.T)) < 1e-5


def test_a_velocity_file_keeps_the_com_in_its_polygon(tmp_path: Path) -> None:
    robot = load_robot("lwr4", floating_base=True)
    c = np.asarray(pin.centerOfMass(robot.model, robot.model.createData(), robot.neutral())).tolist()
    box = [
        [c[0] - 0.1, c[1] - 0.1],
        [c[0] + 0.02, c[1] - 0.1],
        [c[0] + 0.02, c[1] + 0.1],
        [c[0] - 0.1, c[1] + 0.1],
    ]
    doc = {
        "robot": "lwr4", "floating_base": True, "scene": "velocity", "dt": 0.01, "steps": 300,
        "joint_limits": False, "velocity_limits": False,
        "com_polygon": {"vertices": box, "margin": 0.005},
        "tasks": [{"name": "com", "type": "com", "target": {"offset": [0.05, 0.03, 0.0]}, "kp": 5.0}],
    }  # fmt: skip
    setup = load_scene_file(_write(tmp_path, doc))
    result = SceneSimulation(setup).run()
    final = np.asarray(pin.centerOfMass(robot.model, robot.model.createData(), result.q))
    np.testing.assert_allclose(final[:2], [c[0] + 0.015, c[1] + 0.03], atol=1e-5)  # on the shrunk edge


def test_an_inverse_dynamics_file_simulates_its_loop(tmp_path: Path, example_robot: Any) -> None:
    robot = example_robot("ur5", floating_base=True)
    q0 = [0.0, 0.0, 0.8, 0.0, 0.0, 0.0, 0.3, -1.0, 1.2, -0.5, 0.4, 0.2]
    doc = {
        "robot": "ur5", "floating_base": True, "q0": q0, "dt": 0.002, "steps": 300, "effort_limits": False,
        "loop_closures": [{"frame_a": "tool0", "frame_b": "universe", "kind": "3d"}],
        "tasks": [{"name": "posture", "type": "jnt", "joint_names": robot.joint_names[1:],
                   "target": [0.5, -1.0, 1.2, -0.5, 0.4, 0.2], "kp": 20.0}],
    }  # fmt: skip
    setup = load_scene_file(_write(tmp_path, doc))
    data = setup.robot.model.createData()
    pin.framesForwardKinematics(setup.robot.model, data, setup.q0)
    start = data.oMf[setup.robot.model.getFrameId("tool0")].translation.copy()
    result = SceneSimulation(setup).run()
    pin.framesForwardKinematics(setup.robot.model, data, result.q)
    # the simulated arm hangs from its tool (the plant's own constraint) and moved its shoulder
    np.testing.assert_allclose(data.oMf[setup.robot.model.getFrameId("tool0")].translation, start, atol=1e-4)
    assert abs(result.q[6] - 0.3) > 0.1
    assert set(setup.scene.get_loop_wrenches()) == {"tool0|universe"}


TRIANGLE = [[0, 0], [1, 0], [0, 1]]
HANDS = {"frame_a": "left_ee", "frame_b": "right_ee"}


@pytest.mark.parametrize(
    ("section", "field", "error"),
    [
        ({"com_polygon": TRIANGLE}, "com_polygon", ConfigError),
        ({"com_polygon": {"margin": 0.1}}, "com_polygon.vertices", ConfigError),
        ({"com_polygon": {"vertices": TRIANGLE, "margn": 0.1}}, "com_polygon.margn", ConfigKeyError),
        ({"com_polygon": {"vertices": TRIANGLE, "margin": 1.0}}, "com_polygon.margin", ConfigError),
        ({"loop_closures": {"frame_a": "left_ee"}}, "loop_closures", ConfigError),
        ({"loop_closures": [{"frame_a": "left_ee"}]}, "loop_closures[0].frame_b", ConfigError),
        ({"loop_closures": [{**HANDS, "frame_b": "right_e"}]}, "loop_closures[0].frame_b", ConfigKeyError),
        ({"loop_closures": [{**HANDS, "kind": "2d"}]}, "loop_closures[0].kind", ConfigKeyError),
        ({"loop_closures": [{**HANDS, "weld": True}]}, "loop_closures[0].weld", ConfigKeyError),
    ],
)
def test_bad_sections_name_their_field(
    tmp_path: Path, section: dict[str, Any], field: str, error: type
) -> None:
    doc = {**_bimanual(10), **section}
    if "loop_closures" not in section:
        doc.pop("loop_closures")
    with pytest.raises(error) as info:
        load_scene_file(_write(tmp_path, doc))
    assert info.value.field == field
