"""Task types own their config fields: a new type with a new field is one file and one registration.

The type ``height_above`` is registered from this file alone; it declares a field of its own, ``floor``
(a number of metres with its own check), that no other module knows. x = p_z(tip) − floor, A = J_z,
bias = J̇_z q̇. The field is accepted as a constructor keyword, a ``from_dict`` key, a YAML key, a scene
file key and a sweep parameter, checked by its declaration, and refused by every other type. Oracles:
raw Pinocchio's placement of the closed loop's final state (the floor shifts it by exactly its value).
"""

from __future__ import annotations

import ast
import math
from collections.abc import Iterator
from dataclasses import dataclass
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
from wbcpy.sweep import load_sweep, run_one
from wbcpy.tasks import Task, TaskConfig, TaskField, TaskType, VectorReference, register_task_type, task_types
from wbcpy.tasks.fields import frame_field
from wbcpy.tasks.registry import unregister_task_type

TIP = "lwr_ee"
Q0 = np.array([0.3, 0.6, -0.2, -1.2, 0.3, 0.8, 0.1])
ROOT = Path(__file__).resolve().parents[2]


def _check_floor(value: Any, label: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ConfigError(label, f"must be a finite height in metres, got {value!r}")
    return float(value)


@dataclass
class HeightAboveReference(VectorReference):
    """Reference of a ``height_above`` task (1 row)."""


class HeightAboveTask(Task):
    """World z of ``tip`` above ``floor``."""

    type = "height_above"
    config_fields = (
        frame_field("tip", required=True, doc="the frame"),
        TaskField("floor", "a number (m)", _check_floor, default=0.0, doc="the floor's height (m)"),
    )

    def __init__(self, robot: Any, config: TaskConfig, prefix: str = "", level: str = "acceleration") -> None:
        super().__init__(robot, config, level)
        self._frame = robot.frame_id(config.tip)
        self._floor = config.floor

    def compute(self) -> None:
        self._A[:] = self.robot.frame_jacobian(self._frame)[2]
        if self.level == "acceleration":
            self._bias[:] = self.robot.frame_bias(self._frame)[2]

    def position(self) -> np.ndarray:
        return self.robot.frame_placement(self._frame).translation[2:3] - self._floor

    def velocity(self) -> np.ndarray:
        return self.robot.frame_jacobian(self._frame)[2:3] @ self.robot.v


@pytest.fixture(scope="module", autouse=True)
def height_above_type() -> Iterator[TaskType]:
    spec = register_task_type(TaskType("height_above", HeightAboveTask, HeightAboveReference, rows=1))
    yield spec
    unregister_task_type("height_above")


# ---------------------------------------------------------------------------------------- the config
def test_the_field_is_a_keyword_a_dict_key_and_a_yaml_key() -> None:
    cfg = TaskConfig("h", "height_above", tip=TIP, floor=0.25)
    assert cfg.floor == 0.25 and cfg.tip == TIP
    assert TaskConfig("h", "height_above", tip=TIP).floor == 0.0  # the declared default
    assert TaskConfig.from_dict({"name": "h", "type": "height_above", "tip": TIP, "floor": 0.25}) == cfg
    (from_yaml,) = TaskConfig.from_yaml(f"- {{name: h, type: height_above, tip: {TIP}, floor: 0.25}}\n")
    assert from_yaml == cfg and from_yaml.to_dict()["floor"] == 0.25
    assert TaskConfig.from_dict(cfg.to_dict()) == cfg and cfg.copy() == cfg
    assert "floor" in TaskConfig.field_names() and "floor" in TaskConfig.field_names("height_above")
    assert "floor" not in TaskConfig.field_names("cart")


def test_the_declaration_checks_the_field() -> None:
    with pytest.raises(ConfigError) as info:
        TaskConfig("h", "height_above", tip=TIP, floor="low")
    assert info.value.field == "floor"
    with pytest.raises(ConfigError) as info:
        TaskConfig.from_yaml(f"- {{name: h, type: height_above, tip: {TIP}, floor: .nan}}\n")
    assert info.value.field == "tasks[0].floor"
    with pytest.raises(ConfigError) as info:
        TaskConfig("h", "height_above", floor=0.1)
    assert info.value.field == "tip"


def test_other_types_refuse_the_field_and_unknown_keys_are_key_errors() -> None:
    with pytest.raises(ConfigError, match="only height_above tasks take floor") as info:
        TaskConfig("ee", "cart", tip=TIP, floor=0.1)
    assert info.value.field == "floor"
    with pytest.raises(ConfigKeyError) as key_info:
        TaskConfig("h", "height_above", tip=TIP, flor=0.1)
    assert key_info.value.field == "flor" and "floor" in key_info.value.suggestions


def test_an_edited_config_is_checked_again_and_a_failed_check_changes_nothing() -> None:
    cfg = TaskConfig("h", "height_above", tip=TIP, floor=0.1)
    cfg.floor = float("inf")
    with pytest.raises(ConfigError, match="floor"):
        cfg.validate()
    with pytest.raises(ConfigKeyError):
        cfg.flor = 0.2  # (a misspelt field is not silently a new attribute)
    cfg.floor = 0.3
    cfg.validate()
    assert cfg.floor == 0.3


def test_a_field_needs_a_valid_declaration() -> None:
    with pytest.raises(ConfigError):
        TaskField("weights", "numbers", _check_floor)  # a common field's name
    with pytest.raises(ConfigError):
        TaskField("not an identifier", "numbers", _check_floor)
    with pytest.raises(ConfigKeyError):
        TaskType("bad", HeightAboveTask, HeightAboveReference, rows=1, fields=("no_such_field",))
    with pytest.raises(ConfigError, match="twice"):
        TaskType("bad", HeightAboveTask, HeightAboveReference, rows=1, fields=("tip", "tip"))


# ---------------------------------------------------------------------------------------- files, sweeps
def _raw_height(robot: Any, q: np.ndarray) -> float:
    model = robot.model
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    return float(data.oMf[model.getFrameId(TIP)].translation[2])


def _scene_doc(floor: float) -> dict[str, Any]:
    joints = list(load_robot("lwr4").joint_names)
    return {
        "robot": "lwr4",
        "q0": Q0.tolist(),
        "dt": 0.002,
        "steps": 1500,
        "tasks": [
            {"name": "h", "type": "height_above", "tip": TIP, "floor": floor, "target": [0.3], "kp": 40.0},
            {"name": "posture", "type": "jnt", "joint_names": joints, "priority": 1, "kp": 5.0},
        ],
    }


def test_a_scene_file_and_a_sweep_take_the_field(tmp_path: Path) -> None:
    (tmp_path / "h.yaml").write_text(yaml.safe_dump(_scene_doc(0.2)))
    setup = load_scene_file(tmp_path / "h.yaml")
    result = SceneSimulation(setup).run()
    assert _raw_height(setup.robot, result.q) == pytest.approx(0.5, abs=1e-3)  # target + floor
    sweep = {"scene": "h.yaml", "steps": 1500, "grid": {"tasks.h.floor": [0.1, 0.25]},
             "metrics": ["final_error"]}  # fmt: skip
    spec = load_sweep(sweep, base_dir=tmp_path)
    rows = [run_one(spec, run) for run in spec.runs()]
    assert [r["status"] for r in rows] == ["ok", "ok"]
    assert all(r["final_error.h"] < 1e-3 for r in rows)
    with pytest.raises(ConfigKeyError):  # a cart-like key on this task: not a field of its type
        load_sweep({**sweep, "grid": {"tasks.h.ref_frame": ["x"]}}, base_dir=tmp_path)


# ---------------------------------------------------------------------------------------- the layout
#: the machinery that serves every task type (the demo and the walking controller build scenes of given
#: types and use their classes: they are users, not machinery)
_ABOVE_TASKS = ("scenes", "sweep", "cli", "sim")


def _sources() -> Iterator[tuple[Path, ast.Module]]:
    for folder in _ABOVE_TASKS:
        for path in sorted((ROOT / "wbcpy" / folder).rglob("*.py")):
            yield path, ast.parse(path.read_text("utf-8"))


def test_no_built_in_type_is_special_cased_above_the_tasks() -> None:
    """The scenes, scene files, bindings, sweeps, plants and the CLI compare no task's type to a built-in
    name and import no built-in task class: they read the registered type."""
    names = set(task_types()) - {"height_above"}
    classes = {spec.task_class.__name__ for spec in task_types().values()}
    for path, tree in _sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and "tasks" in node.module:
                bad = {a.name for a in node.names} & classes
                assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                typed = any(isinstance(s, ast.Attribute) and s.attr == "type" for s in sides)
                literal = {s.value for s in sides if isinstance(s, ast.Constant) and isinstance(s.value, str)}
                assert not (typed and literal & names), f"{path.relative_to(ROOT)}:{node.lineno}"


def test_copies_and_pickles_of_a_config_are_independent_and_equal() -> None:
    import copy
    import pickle

    cfg = TaskConfig("j", "jnt", joint_names=["a", "b"], weights=[1.0, 2.0])
    for other in (cfg.copy(), copy.copy(cfg), copy.deepcopy(cfg), pickle.loads(pickle.dumps(cfg))):
        assert other == cfg and other is not cfg
        other.joint_names.append("c")
        other.weights[0] = 5.0
        assert cfg.joint_names == ["a", "b"] and cfg.weights == [1.0, 2.0]
    custom = TaskConfig("h", "height_above", tip=TIP, floor=0.25)
    assert pickle.loads(pickle.dumps(custom)) == custom and pickle.loads(pickle.dumps(custom)).floor == 0.25
    assert repr(custom).startswith("TaskConfig(name='h', type='height_above'")
    assert TaskConfig("c", "com").tip is None  # another type's field reads as its default
