"""The registry of task types: what every layer above the tasks needs to know about a task type.

A task type is **one file plus one registration**. The file defines the task class (a subclass of
:class:`~wbcpy.tasks.task.Task` that fills ``A`` and ``bias`` for the robot's current state) and its
reference class, then registers them with :func:`register_task_type`. Everything else reads the
registered :class:`TaskType`:

* :class:`~wbcpy.tasks.TaskConfig` — the type names, the number of rows, the type-specific fields a type
  takes (and requires), the type's own config checks;
* references — :func:`~wbcpy.tasks.references.validate_reference` checks the reference class and the
  field a velocity scene tracks (``velocity``, or ``twist`` for a Cartesian task);
* scenes — :func:`~wbcpy.tasks.make_task` builds the task class (a type that ``needs_contacts`` is built
  by an :class:`~wbcpy.InverseDynamicsScene` from one of its contacts);
* bindings and YAML scene files — the kind of target (``vector``, ``pose``, ``joints``, ``wrench``) and
  the control laws the type takes per scene level; a ``vector`` type takes the generic laws
  :class:`~wbcpy.controllers.TaskPD` and :class:`~wbcpy.controllers.TaskVelocityLaw` unless it names
  laws of its own (:func:`register_law`);
* sweeps — the unit of the type's target error and its default tolerance.

Recipe: a task whose variable is a vector x(q) ∈ ℝⁿ (target kind ``vector``) with Jacobian J = ∂x/∂q
needs ``compute()`` (A = J and, at the acceleration level, bias = J̇ q̇), ``position()`` (x) and
``velocity()`` (ẋ = J q̇)::

    from dataclasses import dataclass

    from wbcpy.tasks import Task, TaskType, VectorReference, register_task_type

    @dataclass
    class BaseHeightReference(VectorReference):
        '''Reference of a ``base_height`` task (1 row, m/s²).'''

    class BaseHeightTask(Task):
        type = "base_height"

        def __init__(self, robot, config, prefix="", level="acceleration"):
            super().__init__(robot, config, level)
            self._frame = robot.frame_id(robot.root_link)

        def compute(self):
            self._A[:] = self.robot.frame_jacobian(self._frame)[2]
            if self.level == "acceleration":
                self._bias[:] = self.robot.frame_bias(self._frame)[2]

        def position(self):
            return self.robot.frame_placement(self._frame).translation[2:3].copy()

        def velocity(self):
            return self.robot.frame_jacobian(self._frame)[2:3] @ self.robot.v

    register_task_type(TaskType("base_height", BaseHeightTask, BaseHeightReference, rows=1))

The type is then usable in every scene (``TaskConfig(name="h", type="base_height")``), with
``scene.bind("h", TaskPD(kp=100, kd=20), [0.9])``, in YAML scene files (``type: base_height``, a
``target`` of one number) and in sweeps. ``tests/tasks/test_task_registry.py`` does exactly this.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConfigError, ConfigKeyError

#: what a task's target is, for bindings and scene files: an n-vector in the task's own space (e = x_d − x),
#: a pose (``pin.SE3``, the pose error), joint positions (also by joint name in files), a wrench
TARGET_KINDS = ("vector", "pose", "joints", "wrench")
#: the scene levels a law is registered for (the task's decision variable: q̈ or q̇)
LAW_LEVELS = ("acceleration", "velocity")


@dataclass(frozen=True)
class TaskType:
    """One registered task type (see the module docstring).

    Attributes:
        name: the ``type`` of a :class:`~wbcpy.tasks.TaskConfig` (``"com"``).
        task_class: the :class:`~wbcpy.tasks.task.Task` subclass, called as
            ``task_class(robot, config, prefix, level)`` (with ``contact=`` too when ``needs_contacts``).
        reference_class: the reference the type's tasks take (``set_reference``); a dataclass with
            ``acceleration`` and ``time`` fields, and ``position``/``velocity`` for a ``vector`` type.
        rows: number of task rows, or None for one row per entry of the config's ``joint_names``.
        fields: the type-specific :class:`~wbcpy.tasks.TaskConfig` fields the type takes (the others of
            that kind must stay blank), e.g. ``("root", "tip", "ref_frame")``.
        required: those of ``fields`` that must be given.
        target: the kind of target (one of :data:`TARGET_KINDS`).
        velocity_field: the reference field a velocity scene tracks (``"velocity"``; ``"twist"`` for
            Cartesian tasks).
        unit: unit of the target error in status tables, files and sweeps (``"m"``, ``"rad"``...).
        tolerance: default sweep tolerance of the target error (unit as ``unit``), None: not checked.
        needs_contacts: the task acts on a contact of an inverse-dynamics scene (built by that scene).
        check_config: optional extra check of a config, ``check_config(config, prefix)``, raising
            :class:`~wbcpy.errors.ConfigError` (run after the common checks).
        laws: law class per scene level (``"acceleration"``, ``"velocity"``), from :func:`register_law`.
    """

    name: str
    task_class: type[Any]
    reference_class: type[Any]
    rows: int | None
    fields: tuple[str, ...] = ()
    required: tuple[str, ...] = ()
    target: str = "vector"
    velocity_field: str = "velocity"
    unit: str = "m"
    tolerance: float | None = None
    needs_contacts: bool = False
    check_config: Callable[[Any, str], None] | None = None
    laws: dict[str, type[Any]] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise ConfigError("name", f"a task type name must be an identifier, got {self.name!r}")
        if self.target not in TARGET_KINDS:
            raise ConfigKeyError("target", "target kind", self.target, TARGET_KINDS)
        if self.rows is not None and (isinstance(self.rows, bool) or not isinstance(self.rows, int)):
            raise ConfigError("rows", f"must be a positive integer or None, got {self.rows!r}")
        if self.rows is not None and self.rows < 1:
            raise ConfigError("rows", f"must be a positive integer or None, got {self.rows!r}")
        missing = [f for f in self.required if f not in self.fields]
        if missing:
            raise ConfigError("required", f"{missing} are not among the type's fields {self.fields}")

    def law(self, level: str) -> type[Any] | None:
        """The law class registered for ``level``, or None (a ``vector`` type then takes the generic
        laws of :mod:`wbcpy.controllers`)."""
        return self.laws.get(level)


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
        ConfigError: a type that ``needs_contacts`` (a ``wrench`` task: an ``InverseDynamicsScene``
            builds it from its contacts), or any robot-dependent check.
    """
    spec = task_type(config.type, f"{prefix}type")
    if spec.needs_contacts:
        raise ConfigError(f"{prefix}type", f"{config.type} tasks need an InverseDynamicsScene (contacts)")
    return spec.task_class(robot, config, prefix, level)


def task_types() -> dict[str, TaskType]:
    """The registered types by name (a new dict, registration order)."""
    return dict(_TYPES)
