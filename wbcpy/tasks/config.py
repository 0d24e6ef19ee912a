"""TaskConfig: the description of one task of a scene (ARC-OPT ``wbc::TaskConfig``).

A task config is plain data: a name, a type (``"jnt"``, ``"cart"``, ``"com"``, ``"wrench"`` or any type
registered in :mod:`wbcpy.tasks.registry`), a priority, per-row weights, an activation, a timeout, and the
fields of its type (the frames, joints or axis it acts on), which the type declares
(:mod:`wbcpy.tasks.fields`). It is built directly, from a dict (:meth:`TaskConfig.from_dict`) or from a
YAML list (:meth:`TaskConfig.from_yaml`).

Construction checks everything that does not need a robot (type, priority, activation, weight count and
sign, the type's fields through their declarations); :meth:`wbcpy.AccelerationScene.configure`
checks the rest (unknown frames or joints, duplicate names) and re-checks the fields, because a config can
be edited after construction. Every failure raises :class:`~wbcpy.errors.ConfigError` naming the field.

Differences to ARC-OPT 0.4: ``activation`` defaults to 1 (ARC-OPT's 0 silently disables a task),
``weights`` default to all ones, and ``timeout ≤ 0`` means "never".
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from .._support.yaml_files import load_yaml_file, load_yaml_text
from ..errors import ConfigError, ConfigKeyError
from .fields import COMMON_FIELDS, TaskField, is_blank
from .registry import ROWS_PER_DOF, TaskType, task_type, task_types


class _TaskTypeRows(Mapping[str, "int | str | None"]):
    """Task type -> number of task rows (None: one per joint name), read live from the task-type
    registry (:mod:`wbcpy.tasks.registry`): a registered type appears here at once."""

    def __getitem__(self, name: str) -> int | str | None:
        return task_type(name).rows

    def __iter__(self) -> Iterator[str]:
        return iter(task_types())

    def __len__(self) -> int:
        return len(task_types())

    def __repr__(self) -> str:
        return repr(dict(self))


#: task type -> number of task rows (None: one per joint; ``"nv"``: one per DOF of the robot; wrench: 6,
#: or 3 for a point contact)
TASK_TYPES: Mapping[str, int | str | None] = _TaskTypeRows()

#: a required constructor argument left out (``TaskConfig(name="x")``)
_MISSING: Any = object()


def _number_field(value: object) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float))


class TaskConfig:
    """One task of a scene: the common fields below, plus the fields of its task type.

    Attributes:
        name: unique task name.
        type: ``"jnt"`` (joint accelerations), ``"cart"`` (tip frame relative to root frame, 6 rows,
            linear over angular), ``"com"`` (centre of mass, 3 rows, world axes), ``"wrench"`` (a
            contact's wrench) or another registered type (:mod:`wbcpy.tasks.registry`; the list with
            every type's fields: the docs page *Task types and constraints*).
        priority: 0 is the highest; levels are strict (lexicographic).
        weights: one non-negative weight per task row (n joints / 6 / 3); ``None`` means all ones. For
            ``cart`` tasks the weights are given in ``ref_frame`` axes.
        activation: scales the whole task, in [0, 1]; 0 removes it from the problem.
        timeout: seconds after a reference's time stamp at which the task stops contributing; ≤ 0 = never.

    The type's own fields (:class:`~wbcpy.tasks.fields.TaskField`, declared by its task class) are
    keyword arguments, ``from_dict`` keys and YAML keys like the common ones, and attributes of the
    config: ``TaskConfig("ee", "cart", tip="lwr_ee").tip``. The built-in types take ``joint_names``
    (``jnt``, ``torque``), ``root``/``tip``/``ref_frame`` (``cart``), ``tip``/``axis`` (``axis``),
    ``tip``/``root`` (``distance``), ``frame`` (``wrench``) and ``contact`` (``cop``). Reading a field
    of another registered type gives its default (``TaskConfig("c", "com").tip`` is None); giving one a
    value raises.

    A config is plain mutable data: fields may be edited after construction; :meth:`validate` (called by
    the constructor and by the scenes' ``configure``) checks them again.
    """

    name: str
    type: str
    priority: int
    weights: list[float] | None
    activation: float
    timeout: float

    def __init__(
        self,
        name: str = _MISSING,
        type: str = _MISSING,  # (ARC-OPT's field name)
        priority: int = 0,
        weights: Any = None,
        activation: float = 1.0,
        timeout: float = 0.0,
        *surplus: Any,
        **fields: Any,
    ) -> None:
        """Build and validate a config.

        Raises:
            ConfigError: a missing ``name``/``type``, a surplus positional argument, or any invalid field
                (named); :class:`ConfigKeyError` for a key no registered type takes (close names listed).
        """
        if name is _MISSING or type is _MISSING or surplus:
            what = "missing name or type" if not surplus else f"{len(surplus)} surplus positional argument(s)"
            raise ConfigError("TaskConfig", f"{what}; fields: {', '.join(self.field_names())}")
        known = self.field_names()
        for key in fields:
            if key not in known:
                raise ConfigKeyError(str(key), "TaskConfig field", key, known)
        # callers pass what YAML or numpy gives (tuples, arrays): normalised here, checked by validate()
        if isinstance(weights, tuple):
            weights = list(weights)
        elif weights is not None and hasattr(weights, "tolist"):
            weights = list(weights.tolist())
        self.__dict__.update(
            name=name, type=type, priority=priority, weights=weights, activation=activation, timeout=timeout
        )
        self.__dict__["_fields"] = dict(fields)
        self.validate()

    # ------------------------------------------------------------------ the type's fields as attributes
    def __getattr__(self, key: str) -> Any:
        """A type field: its value, or its default when not given (also for another type's field)."""
        if key.startswith("_"):  # (copies and pickles look up special names before __dict__ is filled)
            raise AttributeError(key)
        given = self.__dict__.get("_fields", {})
        if key in given:
            return given[key]
        declaration = _declaration(self.__dict__.get("type"), key)
        if declaration is None:
            raise AttributeError(f"{type(self).__name__!r} has no field {key!r}")
        return declaration.default_value()

    def __setattr__(self, key: str, value: Any) -> None:
        """Set a common or a type field (checked by the next :meth:`validate`).

        Raises:
            ConfigKeyError: a name that is neither a common field nor any registered type's field.
        """
        if key in COMMON_FIELDS:
            self.__dict__[key] = value
            return
        known = self.field_names()
        if key not in known:
            raise ConfigKeyError(key, "TaskConfig field", key, known)
        self.__dict__["_fields"][key] = value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TaskConfig):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # (mutable)

    def __copy__(self) -> TaskConfig:
        """``copy.copy`` is a deep copy: a shallow one would share the type fields' dict (and lists) with
        the original, so that editing one would edit both. Not validated (as an edited config may be)."""
        new = object.__new__(TaskConfig)
        new.__dict__.update(copy.deepcopy(self.__dict__))
        return new

    def __repr__(self) -> str:
        items = ", ".join(f"{k}={v!r}" for k, v in self.to_dict().items())
        return f"TaskConfig({items})"

    @property
    def type_fields(self) -> dict[str, Any]:
        """The values of the type's own fields (defaults for those not given), by name (a new dict)."""
        spec = task_type(self.type)
        return {f.name: getattr(self, f.name) for f in spec.config_fields}

    # ------------------------------------------------------------------ validation
    @property
    def n_variables(self) -> int:
        """Number of task rows: len(joint_names), 6 or 3 (wrench: 3 when 3 weights are given, else 6).

        Raises:
            ConfigError: a type with one row per DOF of the robot (``kinetic_energy``): its count needs
                the robot (the task's ``n``).
        """
        return task_type(self.type).row_count(self)

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
        if not _number_field(act) or not 0.0 <= float(act) <= 1.0:
            raise ConfigError(f"{prefix}activation", f"must be a number in [0, 1], got {act!r}")
        tmo = self.timeout
        if not _number_field(tmo) or math.isnan(float(tmo)):
            raise ConfigError(f"{prefix}timeout", f"must be a number of seconds (≤ 0 = never), got {tmo!r}")
        self._validate_type_fields(prefix, spec)
        self._validate_weights(prefix, spec)

    def _validate_type_fields(self, prefix: str, spec: TaskType) -> None:
        """Each given field through its declaration (the value kept is the check's); a field of another
        type must stay blank; then the type's own cross-field check."""
        given: dict[str, Any] = self.__dict__["_fields"]
        own = {f.name for f in spec.config_fields}
        for key, value in given.items():
            if key not in own and not is_blank(value):
                takers = sorted(t.name for t in task_types().values() if key in t.fields)
                if not takers:
                    raise ConfigKeyError(f"{prefix}{key}", "TaskConfig field", key, self.field_names())
                who = "/".join(takers)
                raise ConfigError(f"{prefix}{key}", f"only {who} tasks take {key} ({self.type} task)")
        checked = {}
        for declaration in spec.config_fields:
            key = declaration.name
            if key in given or declaration.required:
                value = given.get(key)
                if is_blank(value) and declaration.required:
                    raise ConfigError(f"{prefix}{key}", f"a {self.type} task needs {key}: {declaration.kind}")
                checked[key] = declaration.validated(value, f"{prefix}{key}")
        given.update(checked)  # (every check passed: normalised values, e.g. a tuple as a list)
        if spec.check_config is not None:
            spec.check_config(self, prefix)

    def _validate_weights(self, prefix: str, spec: TaskType) -> None:
        w = self.weights
        if w is None:
            return
        n: int | None = None if spec.rows == ROWS_PER_DOF else self.n_variables  # (per DOF: at build)
        expected = f"{n}" if n is not None else "one per DOF:"
        if not isinstance(w, (list, tuple)):
            raise ConfigError(f"{prefix}weights", f"must be a list of {expected} numbers, got {w!r}")
        if n is not None and len(w) != n:
            raise ConfigError(f"{prefix}weights", f"expected {n} weights (one per task row), got {len(w)}")
        for k, value in enumerate(w):
            ok = _number_field(value) and math.isfinite(value)
            if not ok or value < 0:
                raise ConfigError(f"{prefix}weights", f"entry {k} must be a finite number ≥ 0, got {value!r}")

    # ------------------------------------------------------------------ conversions
    @classmethod
    def field_names(cls, type_name: str | None = None) -> list[str]:
        """The accepted keys of :meth:`from_dict`: the common fields, then the fields of ``type_name`` (a
        registered type), or of every registered type when None.

        Raises:
            ConfigKeyError: an unknown ``type_name``.
        """
        specs = task_types().values() if type_name is None else [task_type(type_name)]
        names = list(COMMON_FIELDS)
        for spec in specs:
            names += [n for n in spec.fields if n not in names]
        return names

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], prefix: str = "") -> TaskConfig:
        """Build a config from a mapping with the field names as keys.

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
        try:
            cfg = cls(**data)
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
        """The config as a plain dict: the common fields, then the type's own fields (defaults included;
        lists copied), suitable for YAML."""
        out: dict[str, Any] = {key: self.__dict__[key] for key in COMMON_FIELDS}
        if isinstance(out["weights"], list):
            out["weights"] = list(out["weights"])
        spec = _registered(self.type)
        given: dict[str, Any] = self.__dict__["_fields"]
        names = [f.name for f in spec.config_fields] if spec is not None else list(given)
        for key in names:
            out[key] = copy.deepcopy(given[key] if key in given else getattr(self, key))
        return out

    def copy(self) -> TaskConfig:
        """A deep copy (lists copied)."""
        return TaskConfig.from_dict(self.to_dict())


def _registered(type_name: object) -> TaskType | None:
    """The registered type called ``type_name``, or None."""
    return task_types().get(type_name) if isinstance(type_name, str) else None


def _declaration(type_name: object, key: str) -> TaskField | None:
    """The declaration of field ``key``: the config's type's, else the first registered type's that has
    one (reading another type's field gives its default)."""
    spec = _registered(type_name)
    own = None if spec is None else spec.config_field(key)
    if own is not None:
        return own
    for other in task_types().values():
        found = other.config_field(key)
        if found is not None:
            return found
    return None
