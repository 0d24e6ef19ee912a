"""TaskConfig (dataclass, dict, YAML), reference validation and task status containers."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

from wbcpy.errors import ConfigError, ConfigKeyError, InvalidValueError, UnknownNameError
from wbcpy.tasks import (
    CartesianReference,
    ComReference,
    JointReference,
    ReferenceTypeError,
    TaskConfig,
    TasksStatus,
    TaskStatus,
)
from wbcpy.tasks.references import validate_reference


def test_defaults_fix_arc_opt_pitfalls():
    cfg = TaskConfig("ee", "cart", tip="tool")
    assert cfg.activation == 1.0 and cfg.priority == 0 and cfg.timeout == 0.0 and cfg.weights is None
    assert cfg.n_variables == 6
    assert TaskConfig("c", "com").n_variables == 3
    assert TaskConfig("j", "jnt", joint_names=("a", "b")).joint_names == ["a", "b"]
    assert TaskConfig("j", "jnt", joint_names=["a", "b"]).n_variables == 2
    assert TaskConfig("w", "com", weights=np.array([1.0, 2.0, 3.0])).weights == [1.0, 2.0, 3.0]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"name": "", "type": "com"}, "name"),
        ({"name": "x", "type": "nope"}, "type"),
        ({"name": "x", "type": "com", "priority": -1}, "priority"),
        ({"name": "x", "type": "com", "priority": 1.5}, "priority"),
        ({"name": "x", "type": "com", "priority": True}, "priority"),
        ({"name": "x", "type": "com", "activation": -0.1}, "activation"),
        ({"name": "x", "type": "com", "activation": float("nan")}, "activation"),
        ({"name": "x", "type": "com", "timeout": float("nan")}, "timeout"),
        ({"name": "x", "type": "com", "weights": [1, 1]}, "weights"),
        ({"name": "x", "type": "com", "weights": [1, 1, float("inf")]}, "weights"),
        ({"name": "x", "type": "com", "weights": [1, 1, -2]}, "weights"),
        ({"name": "x", "type": "com", "tip": "tool"}, "tip"),
        ({"name": "x", "type": "com", "joint_names": ["a"]}, "joint_names"),
        ({"name": "x", "type": "jnt"}, "joint_names"),
        ({"name": "x", "type": "jnt", "joint_names": ["a", "a"]}, "joint_names"),
        ({"name": "x", "type": "jnt", "joint_names": ["a"], "root": "base"}, "root"),
        ({"name": "x", "type": "cart"}, "tip"),
        ({"name": "x", "type": "cart", "tip": "t", "ref_frame": 3}, "ref_frame"),
    ],
)
def test_invalid_fields_raise_config_error_naming_the_field(kwargs, field):
    with pytest.raises(ConfigError) as info:
        TaskConfig(**kwargs)
    assert info.value.field == field


def test_from_dict_checks_keys_and_prefixes_fields():
    cfg = TaskConfig.from_dict({"name": "j", "type": "jnt", "joint_names": ["a"], "weights": [2.0]})
    assert cfg == TaskConfig("j", "jnt", weights=[2.0], joint_names=["a"])
    with pytest.raises(ConfigKeyError) as info:
        TaskConfig.from_dict({"name": "j", "type": "com", "prio": 1})
    assert info.value.field == "prio" and "priority" in info.value.suggestions
    with pytest.raises(ConfigError) as info:
        TaskConfig.from_dict({"type": "com"}, prefix="tasks[3].")
    assert info.value.field == "tasks[3].name"
    with pytest.raises(ConfigError) as info:
        TaskConfig.from_dict({"name": "c", "type": "com", "activation": 3}, prefix="tasks[1].")
    assert info.value.field == "tasks[1].activation"
    with pytest.raises(ConfigKeyError) as info:
        TaskConfig.from_dict({"name": "c", "type": "kom"}, prefix="tasks[0].")
    assert info.value.field == "tasks[0].type" and isinstance(info.value, KeyError)
    with pytest.raises(ConfigError):
        TaskConfig.from_dict(["not", "a", "mapping"])


def test_yaml_round_trip(tmp_path):
    text = """
tasks:
  - name: ee
    type: cart
    root: base
    tip: tool
    priority: 1
    weights: [1, 1, 1, 0.5, 0.5, 0.5]
  - {name: posture, type: jnt, joint_names: [j1, j2], activation: 0.5, timeout: 0.2}
  - {name: com, type: com}
"""
    path = tmp_path / "tasks.yaml"
    path.write_text(text)
    from_file = TaskConfig.from_yaml(path)
    assert from_file == TaskConfig.from_yaml(text) == TaskConfig.from_yaml(str(path))
    assert [c.name for c in from_file] == ["ee", "posture", "com"]
    assert from_file[0].weights == [1, 1, 1, 0.5, 0.5, 0.5] and from_file[1].timeout == 0.2
    assert [TaskConfig.from_dict(c.to_dict()) for c in from_file] == from_file
    copy = from_file[1].copy()
    copy.joint_names.append("j3")
    assert from_file[1].joint_names == ["j1", "j2"]
    with pytest.raises(ConfigError) as info:
        TaskConfig.from_yaml("- {name: a, type: com}\n- {name: b, type: com, priority: -2}\n")
    assert info.value.field == "tasks[1].priority"
    with pytest.raises(ConfigError):
        TaskConfig.from_yaml("tasks: {name: a}\n")
    with pytest.raises(ConfigError):
        TaskConfig.from_yaml("- [unbalanced\n")
    with pytest.raises(ConfigError):
        TaskConfig.from_yaml(tmp_path / "missing.yaml")


def test_reference_validation():
    ok = validate_reference(
        "cart", 6, CartesianReference(np.arange(6), pose=pin.SE3.Identity(), twist=[0] * 6), "ee"
    )
    assert ok.acceleration.dtype == float and ok.time is None and isinstance(ok.pose, pin.SE3)
    assert validate_reference("jnt", 2, JointReference([1, 2], position=[0, 0], time=3), "j").time == 3.0
    bad = [
        ("cart", 6, JointReference(np.zeros(6)), ReferenceTypeError),
        ("com", 3, CartesianReference(np.zeros(3)), ReferenceTypeError),
        ("com", 3, ComReference(np.zeros(4)), InvalidValueError),
        ("com", 3, ComReference(np.zeros(3), position=[0, np.nan, 0]), InvalidValueError),
        ("jnt", 2, JointReference([1, 2], velocity=[1]), InvalidValueError),
        ("jnt", 2, JointReference([1, 2], time="now"), InvalidValueError),
        ("cart", 6, CartesianReference(np.zeros(6), pose=np.eye(4)), InvalidValueError),
        ("cart", 6, CartesianReference(np.zeros((2, 3))), InvalidValueError),
    ]
    for kind, n, ref, exc in bad:
        with pytest.raises(exc):
            validate_reference(kind, n, ref, "t")


def _status(name, state, err):
    return TaskStatus(
        name,
        "com",
        0,
        state,
        1.0,
        np.ones(3),
        state == "timed_out",
        np.zeros(3),
        None if err is None else np.full(3, err),
        None,
        None if err is None else -np.full(3, err),
    )


def test_tasks_status_table_and_lookup():
    status = TasksStatus([_status("a", "active", 0.5), _status("b", "no_reference", None)])
    assert len(status) == 2 and status.names() == ["a", "b"] and status[1].name == "b"
    assert status["a"].error_norm == pytest.approx(np.sqrt(3) * 0.5)
    assert status["b"].error_norm is None and status["a"].measured_error_norm is None
    lines = str(status).splitlines()
    assert len(lines) == 4 and lines[2].split()[0] == "a" and "no_reference" in lines[3]
    with pytest.raises(UnknownNameError):
        status["c"]
