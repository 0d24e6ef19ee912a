"""Task references: what a task should achieve at the next control step.

References are plain dataclasses; the scene validates them in ``set_reference`` (type, sizes, NaN) and
keeps a private copy, so a caller may reuse or mutate its reference object afterwards.

* :class:`JointReference` — one entry per task joint, in the task's ``joint_names`` order (rad/s², m/s²).
* :class:`CartesianReference` — 6-vectors, linear over angular, in the task's ``ref_frame`` axes
  (m/s² over rad/s²); ``pose`` and ``twist`` are informative (used by status and PD helpers).
* :class:`ComReference` — 3-vectors in world axes (m/s²).
* :class:`VectorReference` — the base of the two above and of a new vector task type's reference.
* :class:`WrenchReference` — the wrench a contact should transmit (a ``wrench`` task).

Which field a scene tracks depends on its decision variable (the task's ``level``): an
:class:`~wbcpy.AccelerationScene` requires ``acceleration``; a :class:`~wbcpy.VelocityScene`
requires ``velocity`` (``twist`` for a Cartesian task) and ignores ``acceleration``. The other fields are
informative.

``time`` is the reference's time stamp on the scene clock (seconds); ``None`` means "now" (the scene
clock is read when the reference is set). A task whose config has ``timeout > 0`` stops contributing
once ``clock() - time > timeout``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np
import pinocchio as pin
from numpy.typing import ArrayLike

from .._kernels import state_copy as _state_copy
from .._support.config_fields import checked_fields
from .._support.validation import as_vector, check_finite
from ..errors import InvalidValueError
from .registry import task_type as registered_type

#: the largest finite float: |x| ≤ _FINITE holds exactly for the finite entries
_FINITE = float(np.finfo(np.float64).max)


class ReferenceTypeError(InvalidValueError, TypeError):
    """A reference of the wrong class for its task (also a ``TypeError``)."""


def check_reference_class(ref: object, cls: type[Any], task_name: str, task_type: str) -> None:
    """Raise :class:`ReferenceTypeError` unless ``ref`` is a ``cls`` (the reference of a task named
    ``task_name`` of type ``task_type``)."""
    if not isinstance(ref, cls):
        raise ReferenceTypeError(
            f"reference of task {task_name!r}",
            cls.__name__,
            type(ref).__name__,
            reason=f"a {task_type} task takes a {cls.__name__}, got {type(ref).__name__}",
        )


@dataclass
class VectorReference:
    """Reference of a task whose variable is a vector x (the target kind ``vector`` of the task-type
    registry, :mod:`wbcpy.tasks.registry`): the base of :class:`JointReference` and :class:`ComReference`,
    and of the reference class of a new vector task type.

    Attributes:
        acceleration: desired ẍ (n,), in the task's units per s² (required by acceleration scenes).
        position: optional x (n,), informative.
        velocity: desired ẋ (n,), in the task's units per s (required by velocity scenes).
        time: time stamp on the scene clock (s); ``None`` = when set.
    """

    acceleration: ArrayLike | None = None
    position: ArrayLike | None = None
    velocity: ArrayLike | None = None
    time: float | None = None


@dataclass
class JointReference(VectorReference):
    """Joint-space reference of a ``jnt`` task.

    Attributes:
        acceleration: desired joint accelerations (n,), rad/s² or m/s² (required by acceleration scenes).
        position: optional joint positions (n,), informative.
        velocity: desired joint velocities (n,), rad/s or m/s (required by velocity scenes).
        time: time stamp on the scene clock (s); ``None`` = when set.
    """


@dataclass
class CartesianReference:
    """Cartesian reference of a ``cart`` task, in ``ref_frame`` axes, linear over angular.

    Attributes:
        acceleration: desired relative acceleration (6,), m/s² over rad/s² (required by acceleration
            scenes).
        pose: optional desired pose of the tip in the root frame (``pin.SE3``), informative.
        twist: desired relative twist (6,), m/s over rad/s (required by velocity scenes).
        time: time stamp on the scene clock (s); ``None`` = when set.
    """

    acceleration: ArrayLike | None = None
    pose: pin.SE3 | None = None
    twist: ArrayLike | None = None
    time: float | None = None


@dataclass
class ComReference(VectorReference):
    """Centre-of-mass reference of a ``com`` task, world axes.

    Attributes:
        acceleration: desired COM acceleration (3,), m/s² (required by acceleration scenes).
        position: optional COM position (3,), m, informative.
        velocity: desired COM velocity (3,), m/s (required by velocity scenes).
        time: time stamp on the scene clock (s); ``None`` = when set.
    """


#: a task reference of the acceleration/velocity task types (wrench tasks take a :class:`WrenchReference`)
Reference = VectorReference | CartesianReference


@checked_fields
@dataclass
class WrenchReference:
    """Reference of a ``wrench`` task: the wrench a contact should transmit.

    Attributes:
        wrench: desired contact wrench in the contact frame's axes, about its origin, exerted by the
            environment on the robot: 6 entries (N over N·m) for a surface contact, 3 (N) for a point
            contact.
        time: time stamp on the scene clock (s); ``None`` = when set.
    """

    wrench: Any
    time: float | None = None

    def validated(self, size: int, task_name: str = "wrench") -> WrenchReference:
        """A validated copy holding a new float64 array.

        Args:
            size: 6 for a surface contact, 3 for a point contact.
            task_name: used in error messages.

        Raises:
            InvalidValueError: a wrong size, NaN or inf, or an invalid time stamp.
        """
        label = f"{task_name}.reference"
        wrench = as_vector(self.wrench, size, f"{label}.wrench")
        t = self.time
        if t is not None:
            ok = not isinstance(t, bool) and isinstance(t, (int, float, np.floating, np.integer))
            if not ok or not math.isfinite(t):
                raise InvalidValueError(
                    f"{label}.time", "a finite time stamp in seconds or None", t, reason="invalid time"
                )
            t = float(t)
        return WrenchReference(wrench, t)


@checked_fields
@dataclass
class TargetReference:
    """Reference of a task whose target is a value the reference holds as it is (target kind ``value``:
    no control law), the base of :class:`~wbcpy.tasks.torque_task.TorqueReference` and
    :class:`~wbcpy.tasks.cop_task.CopReference`.

    Attributes:
        target: the task's target, one entry per task row (units of the task type).
        time: time stamp on the scene clock (s); ``None`` = when set.
    """

    target: Any
    time: float | None = None

    def validated(self, size: int, task_name: str = "task") -> TargetReference:
        """A validated copy of the same class holding a new float64 array.

        Raises:
            InvalidValueError: a wrong size, NaN or inf, or an invalid time stamp.
        """
        label = f"{task_name}.reference"
        return type(self)(as_vector(self.target, size, f"{label}.target"), _time(self.time, f"{label}.time"))


def _time(t: object, name: str) -> float | None:
    if t is None:
        return None
    if isinstance(t, bool) or not isinstance(t, (int, float, np.floating, np.integer)) or not np.isfinite(t):
        raise InvalidValueError(name, "a finite time stamp in seconds or None", t, reason="invalid time")
    return float(t)


def tracked_field(task_type: str, level: str) -> str:
    """The reference field a scene tracks: the type's
    :attr:`~wbcpy.tasks.registry.TaskType.acceleration_field` at the acceleration level (``acceleration``;
    ``wrench``, ``target`` for the tasks on wrenches and torques), its
    :attr:`~wbcpy.tasks.registry.TaskType.velocity_field` at the velocity level (``velocity``; ``twist``
    for a Cartesian task)."""
    spec = registered_type(task_type)
    return spec.acceleration_field if level == "acceleration" else spec.velocity_field


def validate_reference(
    task_type: str, n: int, ref: object, task_name: str, level: str = "acceleration"
) -> Reference:
    """Check a reference against its task and return a validated copy holding float64 arrays.

    Args:
        task_type: a registered task type (``"jnt"``, ``"cart"``, ``"com"``...).
        n: number of task rows.
        ref: the reference object given by the caller.
        task_name: used in error messages.
        level: ``"acceleration"`` (``acceleration`` required) or ``"velocity"`` (``velocity``, for a
            Cartesian task ``twist``, required).

    Raises:
        ReferenceTypeError: the reference class does not match the task type.
        InvalidValueError: the required field missing, a wrong size, NaN or inf in any given field, or an
            invalid time stamp.
    """
    return ReferenceCheck(task_type, n, task_name, level).validated(ref)


def _vector(x: Any, n: int, name: str) -> Any:
    """``as_vector`` (a new finite float64 vector of n values) with its compiled pass inlined."""
    fast = _state_copy(x, n, _FINITE)  # a finite float64 vector of the right size: one compiled pass
    return as_vector(x, n, name) if fast is None else fast


class ReferenceCheck:
    """The checks :func:`validate_reference` makes for one task, decided once (a task keeps one: its
    ``set_reference`` is on the control loop's hot path).

    Args:
        task_type, n, task_name, level: as for :func:`validate_reference`.

    Raises:
        ConfigKeyError: an unknown task type.
    """

    __slots__ = ("_cartesian", "_cls", "_label", "_labels", "_level", "_n", "_name", "_task_type", "_tracked")

    def __init__(self, task_type: str, n: int, task_name: str, level: str = "acceleration") -> None:
        self._cls = registered_type(task_type).reference_class
        self._cartesian = issubclass(self._cls, CartesianReference)
        self._tracked = tracked_field(task_type, level)
        self._n, self._task_type, self._level = n, task_type, level
        self._name, self._label = task_name, f"{task_name}.reference"
        # (the names of the fields in error messages, built once)
        self._labels = tuple(f"{self._label}.{f}" for f in ("acceleration", "position", "velocity", "twist"))

    def validated(self, ref: Any) -> Reference:
        """A validated copy of ``ref`` (see :func:`validate_reference`); every array is new.

        Raises:
            ReferenceTypeError, InvalidValueError: as :func:`validate_reference`.
        """
        cls, first, second, third, stamp = self.fields(ref)
        out: Reference = cls(first, second, third, stamp)
        return out

    def fields(self, ref: Any) -> tuple[Any, Any, Any, Any, float | None]:
        """What :meth:`validated` builds, not built yet: the reference class and the four fields of the
        validated copy in their order (acceleration; position or pose; velocity or twist; time), every
        array and pose new. A task keeps these and builds the reference object when it is first read.

        Raises:
            ReferenceTypeError, InvalidValueError: as :func:`validate_reference`.
        """
        cls = self._cls
        if not isinstance(ref, cls):
            raise ReferenceTypeError(
                f"reference of task {self._name!r}",
                cls.__name__,
                type(ref).__name__,
                reason=f"a {self._task_type} task takes a {cls.__name__}, got {type(ref).__name__}",
            )
        if getattr(ref, self._tracked) is None:
            self._missing()
        n, given, t = self._n, ref.acceleration, ref.time
        acc = None if given is None else _state_copy(given, n, _FINITE)  # (one compiled pass, or None)
        if acc is None and given is not None:
            acc = as_vector(given, n, self._labels[0])  # another layout, or raises naming the field
        stamp = None if t is None else _time(t, f"{self._label}.time")
        if self._cartesian:
            pose, twist = ref.pose, ref.twist
            if pose is not None:
                if not isinstance(pose, pin.SE3):
                    why = "not a pin.SE3"
                    raise InvalidValueError(f"{self._label}.pose", "pin.SE3", type(pose).__name__, reason=why)
                pose = pose.copy()
                # Eigen's isApprox, |x − y|² ≤ prec² min(|x|², |y|²) on the rotation and on the
                # translation, holds for y = x exactly when every entry is finite (NaN − NaN and
                # inf − inf are NaN): one call checks the copy
                if not pose.isApprox(pose):
                    check_finite(pose.homogeneous, f"{self._label}.pose")  # raises, naming the entries
            if twist is not None:
                twist = _vector(twist, 6, self._labels[3])
            return CartesianReference, acc, pose, twist, stamp
        pos, vel = ref.position, ref.velocity
        if pos is not None:
            pos = _vector(pos, n, self._labels[1])
        if vel is not None:
            vel = _vector(vel, n, self._labels[2])
        return cls, acc, pos, vel, stamp

    def _missing(self) -> NoReturn:
        """Raise: the reference lacks the field the task's level tracks."""
        level = self._level
        article = "an" if level[0] in "aeiou" else "a"
        why = f"required: {article} {level} scene tracks it"
        raise InvalidValueError(f"{self._label}.{self._tracked}", "a vector", None, reason=why)
