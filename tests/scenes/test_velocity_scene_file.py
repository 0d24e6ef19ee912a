"""Scene files select the scene (``scene: velocity``), with a ``collision`` section; ``wbcpy scene`` runs
them and draws the obstacles."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest
from _collision_helpers import write_arm

from wbcpy import AccelerationScene, VelocityScene
from wbcpy.cli import main
from wbcpy.controllers import CartesianVelocityLaw, JointVelocityLaw
from wbcpy.errors import ConfigError, ConfigKeyError
from wbcpy.scenes import load_scene_file
from wbcpy.sim import SceneSimulation

EXAMPLE_YAML = Path(__file__).resolve().parents[2] / "examples" / "velocity_obstacle.yaml"


def _arm_doc(folder: Path, **extra) -> dict:
    """A velocity scene of the test arm: its tip to a point on the other side of a ball."""
    return {
        "robot": str(write_arm(folder)),
        "scene": "velocity",
        "q0": [-0.7, 0.3, 0.9],
        "dt": 0.01,
        "steps": 400,
        "collision": {
            "safety_distance": 0.01,
            "obstacles": [
                {
                    "name": "ball",
                    "shape": {"type": "sphere", "radius": 0.05},
                    "position": [0.36155928, 0.01, -0.05121785],
                }
            ],
        },
        "tasks": [
            {
                "name": "tip",
                "type": "cart",
                "tip": "tip",
                "weights": [1, 1, 1, 0, 0, 0],
                "kp": 3.0,
                "target": {"position": [0.36155928, 0.30453718, -0.05121785]},
            },
        ],
        **extra,
    }


def test_velocity_scene_file_runs_around_the_ball(tmp_path: Path) -> None:
    setup = load_scene_file(_arm_doc(tmp_path))
    assert isinstance(setup.scene, VelocityScene) and setup.scene.dt == 0.01
    assert [o.name for o in setup.obstacles] == ["ball"]
    assert isinstance(setup.targets[0].controller, CartesianVelocityLaw)
    assert setup.targets[0].controller.kp == 3.0
    result = SceneSimulation(setup).run()
    assert result.min_distance >= 0.01 - 1e-3
    assert result.final_errors()["tip position [m]"] < 1e-3
    assert set(result.limit_violation) == {"position", "velocity"}  # no acceleration limits here
    np.testing.assert_allclose(result.v, setup.scene.get_solver_output_raw())  # v = the last q̇
    q_last = result.q_path[-2]  # the last step integrated that q̇ from the previous configuration
    np.testing.assert_allclose(result.q, pin.integrate(setup.robot.model, q_last, result.v * 0.01))


def test_acceleration_is_still_the_default(tmp_path: Path) -> None:
    doc = _arm_doc(tmp_path)
    for key in ("scene", "collision"):
        doc.pop(key)
    setup = load_scene_file(doc)
    assert isinstance(setup.scene, AccelerationScene) and setup.obstacles == []


@pytest.mark.parametrize(
    ("change", "field", "error"),
    [
        ({"scene": "torque"}, "scene", ConfigError),
        ({"scene": "acceleration", "limit_gain": 0.5}, "limit_gain", ConfigError),  # velocity-only
        ({"limit_gain": 2.0}, "limit_gain", ConfigError),
        ({"velocity_limits": "yes"}, "velocity_limits", ConfigError),
        ({"braking": True}, "braking", ConfigError),
        ({"collision": {"gain": 0.0, "obstacles": []}}, "collision.gain", ConfigError),
        ({"collision": {"pairs": [["tip", "bal"]]}}, "collision.pairs[0][1]", ConfigKeyError),
        ({"collision": {"pairs": "self", "colour": 1}}, "collision.colour", ConfigKeyError),
        (
            {"collision": {"obstacles": [{"name": "b", "shape": {"type": "sphere", "radius": -1}}]}},
            "collision.obstacles[0].shape.radius",
            ConfigError,
        ),
        ({"collision": {"safety_distance": 0.5, "pairs": "self"}}, "collision.safety_distance", ConfigError),
        ({"collision": [1, 2]}, "collision", ConfigError),
    ],
)
def test_bad_velocity_scene_files_name_the_field(
    tmp_path: Path, change: dict, field: str, error: type
) -> None:
    doc = _arm_doc(tmp_path)
    doc.update(change)
    with pytest.raises(error) as info:
        load_scene_file(doc)
    assert info.value.field == field


@pytest.mark.parametrize(
    ("law", "scene", "field"),
    [
        ({"kd": 2.0}, "velocity", "tasks[0].kd"),
        ({"max_acceleration": 1.0}, "velocity", "tasks[0].max_acceleration"),
        ({"kp": -1.0}, "velocity", "tasks[0].kp"),
        ({"max_velocity": 1.0}, "acceleration", "tasks[0].max_velocity"),
    ],
)
def test_task_laws_of_the_wrong_scene_are_refused(tmp_path: Path, law: dict, scene: str, field: str) -> None:
    doc = _arm_doc(tmp_path, scene=scene)
    if scene == "acceleration":
        doc.pop("collision")
    doc["tasks"][0].update(law)
    with pytest.raises(ConfigError) as info:
        load_scene_file(doc)
    assert info.value.field == field


def test_joint_task_laws_and_per_joint_gains(tmp_path: Path) -> None:
    doc = _arm_doc(tmp_path)
    doc["tasks"] = [{"name": "post", "type": "jnt", "joint_names": ["j1", "j2"], "kp": [1.0, 2.0],
                     "max_velocity": 0.5, "target": {"j1": 0.2}}]  # fmt: skip
    setup = load_scene_file(doc)
    law = setup.targets[0].controller
    assert isinstance(law, JointVelocityLaw) and law.max_velocity == 0.5
    np.testing.assert_allclose(setup.targets[0].target, [0.2, 0.3])
    doc["tasks"][0]["kp"] = [1.0, 2.0, 3.0]
    with pytest.raises(ConfigError) as info:
        load_scene_file(doc)
    assert info.value.field == "tasks[0].kp"


def test_cli_runs_the_velocity_example(capsys: pytest.CaptureFixture[str], example_robot) -> None:
    example_robot("panda")  # (skips without example-robot-data)
    rc = main(["scene", str(EXAMPLE_YAML), "--steps", "60", "--quiet"])
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    out = captured.out
    assert "velocity scene, robot 'panda'" in out and "60 steps" in out
    assert "units of |y_ref|, |y_ref-y_sol|, |y_ref-y|: velocities" in out
    assert "collisions: closest pair distance" in out and "joint limits: respected" in out


@pytest.mark.skipif(importlib.util.find_spec("meshcat") is None, reason="the viz extra is not installed")
def test_cli_html_draws_the_obstacles(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc_path = tmp_path / "arm.yaml"
    import yaml

    doc = _arm_doc(tmp_path)
    doc["steps"] = 20
    doc_path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    out = tmp_path / "run.html"
    assert main(["scene", str(doc_path), "--quiet", "--html", str(out)]) == 0, capsys.readouterr().err
    assert "obstacles: ball (red)" in out.read_text(encoding="utf-8")
