"""The registry of task types: what every layer above the tasks needs to know about a task type.

A task type is **one file plus one registration**. The file defines the task class (a subclass of
:class:`~wbcpy.tasks.task.Task` that fills ``A`` and ``bias`` for the robot's current state) and its
reference class, then registers them with :func:`register_task_type`. Everything else reads the
registered :class:`TaskType`:

* :class:`~wbcpy.tasks.TaskConfig` — the type names, the number of rows, the fields a type takes: each
  declared once by the task class (``config_fields``: :class:`~wbcpy.tasks.fields.TaskField`, with its
  kind, check, default and doc), accepted as a keyword, a mapping key and a YAML key, checked by the
  declaration; the type's own cross-field check;
* references — :func:`~wbcpy.tasks.references.validate_reference` checks the reference class and the
  field a velocity scene tracks (``velocity``, or ``twist`` for a Cartesian task);
* scenes — :func:`~wbcpy.tasks.make_task` builds the task class (a type that ``needs_contacts`` or
  ``needs_torques`` is built by an :class:`~wbcpy.InverseDynamicsScene`); the plan reads the task
  class's ``constant_rows``, ``needs_reference`` and ``columns``;
* bindings and YAML scene files — the kind of target (``vector``, ``pose``, ``joints``, ``value``,
  ``none``) and the control laws the type takes per scene level; a ``vector`` type takes the generic laws
  :class:`~wbcpy.controllers.TaskPD` and :class:`~wbcpy.controllers.TaskVelocityLaw` unless it names
  laws of its own (:func:`register_law`);
* sweeps — the unit of the type's target error and its default tolerance.

Recipe: a task whose variable is a vector x(q) ∈ ℝⁿ (target kind ``vector``) with Jacobian J = ∂x/∂q
needs ``compute()`` (A = J and, at the acceleration level, bias = J̇ q̇), ``position()`` (x) and
``velocity()`` (ẋ = J q̇)::

    from dataclasses import dataclass

    from wbcpy.tasks import Task, TaskType, VectorReference, register_task_type
    from wbcpy.tasks.fields import frame_field

    @dataclass
    class BaseHeightReference(VectorReference):
        '''Reference of a ``base_height`` task (1 row, m/s²).'''

    class BaseHeightTask(Task):
        type = "base_height"
        config_fields = (frame_field("base", doc="the frame (default: the root link)"),)

        def __init__(self, robot, config, prefix="", level="acceleration"):
            super().__init__(robot, config, level)
            self._frame = robot.frame_id(config.base or robot.root_link)

        def compute(self):
            self._A[:] = self.robot.frame_jacobian(self._frame)[2]
            if self.level == "acceleration":
                self._bias[:] = self.robot.frame_bias(self._frame)[2]

        def position(self):
            return self.robot.frame_placement(self._frame).translation[2:3].copy()

        def velocity(self):
            return self.robot.frame_jacobian(self._frame)[2:3] @ self.robot.v

    register_task_type(TaskType("base_height", BaseHeightTask, BaseHeightReference, rows=1))

The type is then usable in every scene (``TaskConfig(name="h", type="base_height", base="torso")``), with
``scene.bind("h", TaskPD(kp=100, kd=20), [0.9])``, in YAML scene files (``type: base_height``, a
``target`` of one number) and in sweeps. ``tests/tasks/test_task_registry.py`` does exactly this.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError, ConfigKeyError
from .fields import STANDARD_FIELDS, TaskField

#: what a task's target is, for bindings and scene files: an n-vector in the task's own space (e = x_d − x),
#: a pose (``pin.SE3``, the pose error), joint positions (also by joint name in files), a ``value`` the
#: reference holds as it is (a wrench, torques, a CoP: no control law, no target error), or ``none`` (the
#: task needs no reference: a regulariser such as the kinetic energy). ``"wrench"`` is read as ``"value"``.
TARGET_KINDS = ("vector", "pose", "joints", "value", "none")
#: the scene levels a law is registered for (the task's decision variable: q̈ or q̇)
LAW_LEVELS = ("acceleration", "velocity")
#: ``TaskType.rows`` of a type with one row per DOF of the robot (its row count needs the robot)
ROWS_PER_DOF = "nv"


def _resolve_fields(spec: TaskType) -> tuple[TaskField, ...]:
    """The type's field declarations: ``spec.fields`` (:class:`TaskField` objects, or names of the task
    class's ``config_fields`` or of :data:`STANDARD_FIELDS`), else the task class's ``config_fields``;
    ``spec.required`` marks more of them required."""
    own = {f.name: f for f in getattr(spec.task_class, "config_fields", ())}
    out = [_declaration(item, own) for item in spec.fields or tuple(own.values())]
    out = [replace(f, required=True) if f.name in spec.required else f for f in out]
    names = [f.name for f in out]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ConfigError("fields", f"field(s) declared twice: {dup}")
    missing = [f for f in spec.required if f not in names]
    if missing:
        raise ConfigError("required", f"{missing} are not among the type's fields {tuple(names)}")
    return tuple(out)


def _declaration(item: object, own: dict[str, TaskField]) -> TaskField:
    """A field given to :class:`TaskType`: a declaration, or the name of one of the task class's or of
    :data:`STANDARD_FIELDS`."""
    if isinstance(item, TaskField):
        return item
    if isinstance(item, str) and (item in own or item in STANDARD_FIELDS):
        return own.get(item) or STANDARD_FIELDS[item]
    raise ConfigKeyError("fields", "task field", item, sorted({*own, *STANDARD_FIELDS}))


@dataclass(frozen=True)
class TaskType:
    """One registered task type (see the module docstring).

    Attributes:
        name: the ``type`` of a :class:`~wbcpy.tasks.TaskConfig` (``"com"``).
        task_class: the :class:`~wbcpy.tasks.task.Task` subclass, called as
            ``task_class(robot, config, prefix, level)`` (with ``contact=`` too when ``needs_contacts``).
        reference_class: the reference the type's tasks take (``set_reference``); a dataclass with
            ``acceleration`` and ``time`` fields, and ``position``/``velocity`` for a ``vector`` type.
        rows: number of task rows; None for one row per entry of the config's ``joint_names``;
            :data:`ROWS_PER_DOF` (``"nv"``) for one row per DOF of the robot.
        fields: the type's config fields: :class:`~wbcpy.tasks.fields.TaskField` declarations, or names
            of the standard ones (``("root", "tip", "ref_frame")``,
            :data:`~wbcpy.tasks.fields.STANDARD_FIELDS`). Default: the task class's ``config_fields``.
            After construction, the names (:attr:`config_fields` holds the declarations).
        required: names among ``fields`` that must be given (besides the declarations' own ``required``).
        target: the kind of target (one of :data:`TARGET_KINDS`).
        velocity_field: the reference field a velocity scene tracks (``"velocity"``; ``"twist"`` for
            Cartesian tasks).
        acceleration_field: the reference field an acceleration-level scene tracks (``"acceleration"``;
            ``"wrench"`` for wrench tasks, ``"target"`` for torque and CoP tasks).
        unit: unit of the target error in status tables, files and sweeps (``"m"``, ``"rad"``...).
        tolerance: default sweep tolerance of the target error (unit as ``unit``), None: not checked.
        needs_contacts: the task acts on a contact of an inverse-dynamics scene (built by that scene with
            the contact its task class's ``contact_field`` names).
        needs_torques: the task acts on the joint torques of an inverse-dynamics scene (which hands it the
            torque rows at each update).
        check_config: optional extra check of a config, ``check_config(config, prefix)``, raising
            :class:`~wbcpy.errors.ConfigError` (run after the field checks: checks across fields).
        count_rows: optional ``count_rows(config) -> int`` for a type whose row count depends on its
            config beyond ``joint_names`` (a wrench task: 3 rows when 3 weights are given).
        laws: law class per scene level (``"acceleration"``, ``"velocity"``), from :func:`register_law`.
        config_fields: the field declarations (set from ``fields``).
    """

    name: str
    task_class: type[Any]
    reference_class: type[Any]
    rows: int | str | None
    fields: tuple[Any, ...] = ()
    required: tuple[str, ...] = ()
    target: str = "vector"
    velocity_field: str = "velocity"
    acceleration_field: str = "acceleration"
    unit: str = "m"
    tolerance: float | None = None
    needs_contacts: bool = False
    needs_torques: bool = False
    check_config: Callable[[Any, str], None] | None = None
    count_rows: Callable[[Any], int] | None = None
    laws: dict[str, type[Any]] = field(default_factory=dict, compare=False)
    config_fields: tuple[TaskField, ...] = field(default=(), init=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise ConfigError("name", f"a task type name must be an identifier, got {self.name!r}")
        if self.target == "wrench":  # (the kind's former name)
            object.__setattr__(self, "target", "value")
        if self.target not in TARGET_KINDS:
            raise ConfigKeyError("target", "target kind", self.target, TARGET_KINDS)
        rows = self.rows
        counted = rows == ROWS_PER_DOF or rows is None
        if not counted and (isinstance(rows, bool) or not isinstance(rows, int) or rows < 1):
            raise ConfigError("rows", f"must be a positive integer, None or {ROWS_PER_DOF!r}, got {rows!r}")
        declared = _resolve_fields(self)
        object.__setattr__(self, "config_fields", declared)
        object.__setattr__(self, "fields", tuple(f.name for f in declared))
        object.__setattr__(self, "required", tuple(f.name for f in declared if f.required))

    def law(self, level: str) -> type[Any] | None:
        """The law class registered for ``level``, or None (a ``vector`` type then takes the generic
        laws of :mod:`wbcpy.controllers`)."""
        return self.laws.get(level)

    def config_field(self, name: str) -> TaskField | None:
        """The declaration of the type's field ``name``, or None when the type has no such field."""
        return next((f for f in self.config_fields if f.name == name), None)

    def row_count(self, config: Any, nv: int | None = None) -> int:
        """The number of rows of a task of this type with ``config`` on a robot with ``nv`` DOFs.

        Raises:
            ConfigError: a type with one row per DOF and no ``nv`` given (field ``type``).
        """
        if self.count_rows is not None:
            return int(self.count_rows(config))
        if self.rows is None:
            return len(config.joint_names)
        if self.rows == ROWS_PER_DOF:
            if nv is None:
                raise ConfigError("type", f"a {self.name} task has a row per DOF: its count needs the robot")
            return nv
        return int(self.rows)


class TorqueRowsTask(Protocol):
    """What an inverse-dynamics scene calls on a task whose type ``needs_torques``."""

    def set_torque_rows(self, T: NDArray[np.float64], h_a: NDArray[np.float64],
                        actuated: NDArray[np.intp]) -> None:  # fmt: skip
        """Take the torque rows τ = T x + h_a of this update (``actuated``: the DOF of each row)."""
        ...

    def set_solution(self, x: NDArray[np.float64]) -> None:
        """Take the scene's solved variables x = (q̈, wrenches)."""
        ...


_TYPES: dict[str, TaskType] = {}


def register_task_type(spec: TaskType, *, replace: bool = False) -> TaskType:
    """Register a task type; its name becomes a valid ``TaskConfig.type`` everywhere.

    Args:
        spec: the type.
        replace: allow replacing a registered type of the same name (its registered laws are kept
            when the new spec names none).

    Returns:
        ``spec``.

    Raises:
        ConfigError: a type of that name exists and ``replace`` is False, or a type-specific field
            that is not a :class:`~wbcpy.tasks.TaskConfig` field (checked by the config module).
    """
    if not isinstance(spec, TaskType):
        raise ConfigError("spec", f"expected a TaskType, got {type(spec).__name__}")
    old = _TYPES.get(spec.name)
    if old is not None and not replace:
        raise ConfigError("name", f"task type {spec.name!r} is registered already (replace=True to replace)")
    if old is not None and not spec.laws:
        spec.laws.update(old.laws)
    _TYPES[spec.name] = spec
    return spec


def unregister_task_type(name: str) -> None:
    """Remove a registered task type (tests and plug-ins that register temporarily).

    Raises:
        ConfigKeyError: no such type.
    """
    task_type(name)
    del _TYPES[name]


def register_law(type_name: str, level: str, law: type[Any]) -> None:
    """Name ``law`` the control law of tasks of ``type_name`` at ``level`` (bindings check it, scene
    files build it).

    Raises:
        ConfigKeyError: an unknown type or level.
    """
    if level not in LAW_LEVELS:
        raise ConfigKeyError("level", "law level", level, LAW_LEVELS)
    task_type(type_name).laws[level] = law


def task_type(name: object, field_name: str = "type") -> TaskType:
    """The registered type called ``name``.

    Raises:
        ConfigKeyError: no such type (the message lists the registered ones); ``field_name`` names
            the field in the error.
    """
    spec = _TYPES.get(name) if isinstance(name, str) else None
    if spec is None:
        raise ConfigKeyError(field_name, "task type", name, sorted(_TYPES))
    return spec


def make_task(robot: Any, config: Any, prefix: str = "", level: str = "acceleration") -> Any:
    """Build the task object of ``config`` (a :class:`~wbcpy.tasks.TaskConfig`) for ``robot``
    (robot-dependent checks happen here), working at ``level`` (``"acceleration"`` or ``"velocity"``, the
    scene's decision variable): ``task_class(robot, config, prefix, level)`` of the registered type.

    Raises:
        ConfigError: a type that ``needs_contacts`` or ``needs_torques`` (a ``wrench`` or ``torque``
            task: an ``InverseDynamicsScene`` builds it), or any robot-dependent check.
    """
    spec = task_type(config.type, f"{prefix}type")
    if spec.needs_contacts or spec.needs_torques:
        what = "contacts" if spec.needs_contacts else "joint torques"
        raise ConfigError(f"{prefix}type", f"{config.type} tasks need an InverseDynamicsScene ({what})")
    return spec.task_class(robot, config, prefix, level)


def task_types() -> dict[str, TaskType]:
    """The registered types by name (a new dict, registration order)."""
    return dict(_TYPES)
