"""TaskConfig: the description of one task of a scene (ARC-OPT ``wbc::TaskConfig``).

A task config is plain data: a name, a type (``"jnt"``, ``"cart"``, ``"com"``, ``"wrench"`` or any type
registered in :mod:`wbcpy.tasks.registry`), a priority,
per-row weights, an activation, a timeout and the frames or joints it acts on. It is built directly, from a
dict (:meth:`TaskConfig.from_dict`) or from a YAML list (:meth:`TaskConfig.from_yaml`).

Construction checks everything that does not need a robot (type, priority, activation, weight count and
sign, required fields); :meth:`wbcpy.AccelerationScene.configure` checks the rest (unknown frames or
joints, duplicate names) and re-checks the fields, because a dataclass can be edited after construction.
Every failure raises :class:`~wbcpy.errors.ConfigError` naming the field.

Differences to ARC-OPT 0.4: ``activation`` defaults to 1 (ARC-OPT's 0 silently disables a task),
``weights`` default to all ones, and ``timeout ≤ 0`` means "never".
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from .._support.config_fields import checked_fields
from .._support.yaml_files import load_yaml_file, load_yaml_text
from ..errors import ConfigError, ConfigKeyError
from .registry import TaskType, task_type, task_types


class _TaskTypeRows(Mapping[str, "int | None"]):
    """Task type -> number of task rows (None: one per joint name), read live from the task-type
    registry (:mod:`wbcpy.tasks.registry`): a registered type appears here at once."""

    def __getitem__(self, name: str) -> int | None:
        return task_type(name).rows

    def __iter__(self) -> Iterator[str]:
        return iter(task_types())

    def __len__(self) -> int:
        return len(task_types())

    def __repr__(self) -> str:
        return repr(dict(self))


#: task type -> number of task rows (None: one per joint; wrench: 6, or 3 for a point contact)
TASK_TYPES: Mapping[str, int | None] = _TaskTypeRows()

#: the TaskConfig fields that belong to task types (each type takes some: the others stay blank)
TYPE_FIELDS = ("joint_names", "root", "tip", "ref_frame", "frame")


#: how errors name a missing required field
_NEEDS = {
    "joint_names": "a non-empty list of joint names",
    "tip": "a tip frame",
    "frame": "a contact frame",
}


def _is_blank(value: object) -> bool:
    return value is None or value == "" or (isinstance(value, (list, tuple)) and len(value) == 0)


@checked_fields
@dataclass
class TaskConfig:
    """One task of a scene.

    Attributes:
        name: unique task name.
        type: ``"jnt"`` (joint accelerations), ``"cart"`` (tip frame relative to root frame, 6 rows,
            linear over angular), ``"com"`` (centre of mass, 3 rows, world axes), ``"wrench"`` (a
            contact's wrench) or another registered type (:mod:`wbcpy.tasks.registry`).
        priority: 0 is the highest; levels are strict (lexicographic).
        weights: one non-negative weight per task row (n joints / 6 / 3); ``None`` means all ones. For
            ``cart`` tasks the weights are given in ``ref_frame`` axes.
        activation: scales the whole task, in [0, 1]; 0 removes it from the problem.
        timeout: seconds after a reference's time stamp at which the task stops contributing; ≤ 0 = never.
        joint_names: the 1-DOF joints of a ``jnt`` task, in the order its rows and references use.
        root: root frame of a ``cart`` task (default: the robot's base link).
        tip: tip frame of a ``cart`` task (required for ``cart``).
        ref_frame: frame whose axes references and weights of a ``cart`` task are given in (default: root).
        frame: the contact frame of a ``wrench`` task (an InverseDynamicsScene's contact; its wrench has 6
            rows for a surface contact, 3 for a point contact: give 3 weights then).
    """

    name: str
    type: str
    priority: int = 0
    weights: list[float] | None = None
    activation: float = 1.0
    timeout: float = 0.0
    joint_names: list[str] = field(default_factory=list)
    root: str | None = None
    tip: str | None = None
    ref_frame: str | None = None
    frame: str | None = None

    def __post_init__(self) -> None:
        # callers pass what YAML or numpy gives (None, tuples, arrays): normalised here, checked by validate()
        names: object = self.joint_names
        if names is None:
            self.joint_names = []
        elif isinstance(names, (list, tuple)):
            self.joint_names = list(names)
        weights: object = self.weights
        if isinstance(weights, tuple):
            self.weights = list(weights)
        elif weights is not None and hasattr(weights, "tolist"):
            self.weights = list(weights.tolist())
        self.validate()

    # ------------------------------------------------------------------ validation
    @property
    def n_variables(self) -> int:
        """Number of task rows: len(joint_names), 6 or 3 (wrench: 3 when 3 weights are given, else 6)."""
        spec = task_type(self.type)
        if spec.needs_contacts and isinstance(self.weights, list) and len(self.weights) == 3:
            return 3  # (a point contact's wrench)
        return len(self.joint_names) if spec.rows is None else spec.rows

    def validate(self, prefix: str = "") -> None:
        """Check every field that does not need a robot.

        Args:
            prefix: prepended to the field name in errors (e.g. ``"tasks[2]."``).

        Raises:
            ConfigError: naming the bad field (a :class:`ConfigKeyError`, also a ``KeyError``, for an
                unknown type).
        """
        if not isinstance(self.name, str) or not self.name.strip():
            raise ConfigError(f"{prefix}name", f"must be a non-empty string, got {self.name!r}")
        spec = task_type(self.type, f"{prefix}type")
        pri = self.priority
        if isinstance(pri, bool) or not isinstance(pri, int) or pri < 0:
            raise ConfigError(f"{prefix}priority", f"must be an integer ≥ 0 (0 = highest), got {pri!r}")
        act = self.activation
        if isinstance(act, bool) or not isinstance(act, (int, float)) or not 0.0 <= float(act) <= 1.0:
            raise ConfigError(f"{prefix}activation", f"must be a number in [0, 1], got {act!r}")
        tmo = self.timeout
        if isinstance(tmo, bool) or not isinstance(tmo, (int, float)) or math.isnan(float(tmo)):
            raise ConfigError(f"{prefix}timeout", f"must be a number of seconds (≤ 0 = never), got {tmo!r}")
        self._validate_frames(prefix, spec)
        self._validate_weights(prefix)

    def _validate_frames(self, prefix: str, spec: TaskType) -> None:
        """The fields naming what the task acts on (:data:`TYPE_FIELDS`): each type takes some of them
        (:attr:`TaskType.fields <wbcpy.tasks.registry.TaskType.fields>`), the others stay blank; a frame
        field holds a frame name; then the type's own check."""
        for key in TYPE_FIELDS:
            value = getattr(self, key)
            if key not in spec.fields:
                if not _is_blank(value):
                    takers = sorted(t.name for t in task_types().values() if key in t.fields)
                    raise ConfigError(
                        f"{prefix}{key}", f"only {'/'.join(takers)} tasks take {key} ({self.type} task)"
                    )
            elif _is_blank(value) and key in spec.required:
                raise ConfigError(f"{prefix}{key}", f"a {self.type} task needs {_NEEDS.get(key, key)}")
            elif key != "joint_names" and value is not None and (not isinstance(value, str) or not value):
                raise ConfigError(f"{prefix}{key}", f"must be a frame name, got {value!r}")
        if spec.check_config is not None:
            spec.check_config(self, prefix)

    def _validate_weights(self, prefix: str) -> None:
        w = self.weights
        if w is None:
            return
        n = self.n_variables
        if not isinstance(w, (list, tuple)):
            raise ConfigError(f"{prefix}weights", f"must be a list of {n} numbers, got {w!r}")
        if len(w) != n:
            raise ConfigError(f"{prefix}weights", f"expected {n} weights (one per task row), got {len(w)}")
        for k, value in enumerate(w):
            ok = not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)
            if not ok or value < 0:
                raise ConfigError(f"{prefix}weights", f"entry {k} must be a finite number ≥ 0, got {value!r}")

    # ------------------------------------------------------------------ conversions
    @classmethod
    def field_names(cls) -> list[str]:
        """The accepted keys of :meth:`from_dict`."""
        return [f.name for f in fields(cls)]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], prefix: str = "") -> TaskConfig:
        """Build a config from a mapping with the dataclass field names as keys.

        Raises:
            ConfigError: not a mapping, a missing ``name``/``type``, an unknown key
                (:class:`ConfigKeyError`) or any invalid field.
        """
        if not isinstance(data, Mapping):
            raise ConfigError(prefix.rstrip(".") or "task", f"must be a mapping, got {type(data).__name__}")
        valid = cls.field_names()
        for key in data:
            if key not in valid:
                raise ConfigKeyError(f"{prefix}{key}", "task config field", key, valid, show_all=True)
        for key in ("name", "type"):
            if key not in data:
                raise ConfigError(f"{prefix}{key}", "missing (required)")
        kwargs = dict(data)
        if kwargs.get("joint_names") is None:
            kwargs.pop("joint_names", None)
        try:
            cfg = cls(**kwargs)
        except ConfigKeyError as exc:
            if prefix and not exc.field.startswith(prefix):
                raise ConfigKeyError(f"{prefix}{exc.field}", exc.kind, exc.name, exc.valid) from None
            raise
        except ConfigError as exc:
            if prefix and not exc.field.startswith(prefix):
                raise ConfigError(f"{prefix}{exc.field}", exc.reason) from None
            raise
        return cfg

    @classmethod
    def from_yaml(cls, source: str | Path) -> list[TaskConfig]:
        """Read a list of task configs from a YAML file or YAML text.

        The document is either a list of task mappings or a mapping with a ``tasks`` list.

        Raises:
            ConfigError: unreadable or non-UTF-8 file, invalid YAML (line and column given), a document too
                deep or too large (see :mod:`wbcpy._support.yaml_files`), wrong layout or an invalid task.
        """
        text = str(source)
        if isinstance(source, Path) or ("\n" not in text and text.endswith((".yaml", ".yml"))):
            doc = load_yaml_file(text)
        else:
            doc = load_yaml_text(text, "yaml")
        if isinstance(doc, Mapping) and "tasks" in doc:
            doc = doc["tasks"]
        if not isinstance(doc, list):
            raise ConfigError("tasks", "expected a YAML list of task mappings")
        return [cls.from_dict(item, prefix=f"tasks[{i}].") for i, item in enumerate(doc)]

    def to_dict(self) -> dict[str, Any]:
        """The config as a plain dict (lists copied), suitable for YAML."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = list(value) if isinstance(value, list) else value
        return out

    def copy(self) -> TaskConfig:
        """A deep copy (lists copied)."""
        return TaskConfig.from_dict(self.to_dict())
