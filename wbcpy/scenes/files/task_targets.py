"""The targets of a scene file's tasks: each task's fixed target and the feedback law that turns it into
references (:func:`make_target`; the format in :mod:`wbcpy.scenes.files.scene_file`).

A target is read by the task type's target kind (:mod:`wbcpy.tasks.registry`): a pose (position/offset
and rpy/quaternion), joint positions (a list, or a mapping by joint name), a vector in the task's own
space, a fixed value (a wrench, torques, a CoP) or none. Omitted, it is the task's current value (zero
for a fixed value).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import pinocchio as pin
from numpy.typing import NDArray

from ...controllers import law_for
from ...controllers._gains import as_gain
from ...errors import ConfigError, ConfigKeyError, safe_repr
from ...tasks import Reference, Task, task_type
from ...tasks.references import tracked_field
from ..values import is_number, numbers
from .velocity_file import velocity_law


class TargetLaw(Protocol):
    """A feedback law that turns a fixed target into a reference for its task: the PD laws
    (:class:`~wbcpy.controllers.JointPD`, ...) and the velocity laws of :mod:`wbcpy.controllers`."""

    def reference(self, task: Any, target: Any, /) -> Reference:
        """The reference for ``task`` from the robot's current state. (``task`` and ``target`` are of the
        kinds the law takes — a ``JointTask`` and joint positions for a ``JointPD`` —: types that differ
        per law, so ``Any`` here; :class:`TaskTarget` pairs each law with its own kind of task.)"""
        ...


@dataclass
class TaskTarget:
    """A task with a fixed target and the PD law that turns it into references.

    Attributes:
        task: the scene task.
        controller: :class:`JointPD`, :class:`CartesianPD` or :class:`ComPD` (a velocity law for a
            velocity scene; None for a wrench task).
        target: joint positions (n), a ``pin.SE3`` (tip in root coordinates), a COM position (3) or a
            wrench (contact axes).
    """

    task: Task
    controller: TargetLaw | None
    target: Any  # NDArray[np.float64], or a pin.SE3 (pinocchio has no type information)

    @property
    def name(self) -> str:
        """Task name."""
        return self.task.name

    def reference(self) -> Any:
        """The PD reference for the robot's current state; for a task without a law (target kind
        ``value`` or ``none``) the type's reference holding the fixed target (zero for ``none``)."""
        if self.controller is None:
            task = self.task
            spec = task_type(task.type)
            value = np.zeros(task.n) if self.target is None else self.target
            return spec.reference_class(**{tracked_field(task.type, task.level): value})
        return self.controller.reference(self.task, self.target)

    def error_labels(self) -> list[str]:
        """Labels of :meth:`errors`, by the task type's target kind (:mod:`wbcpy.tasks.registry`): a pose
        reports position and rotation separately, a fixed value or no target none (the status reports
        a wrench's error), any other target one norm in the type's unit."""
        kind = task_type(self.task.type).target
        if kind in ("value", "none"):
            return []
        if kind == "pose":
            return [f"{self.name} position [m]", f"{self.name} rotation [rad]"]
        return [f"{self.name} [{task_type(self.task.type).unit}]"]

    def errors(self) -> list[float]:
        """Current target errors (Euclidean norms) for the robot's current state."""
        task: Any = self.task
        kind = task_type(task.type).target
        if kind in ("value", "none"):
            return []
        if kind == "pose":
            M = task.pose()
            return [
                float(np.linalg.norm(self.target.translation - M.translation)),
                float(np.linalg.norm(pin.log3(self.target.rotation @ M.rotation.T))),
            ]
        current = task.positions() if kind == "joints" else task.position()
        return [float(np.linalg.norm(self.target - current))]


class _PoseTask(Protocol):
    """A task whose target kind is ``pose``: its current pose is the default target."""

    def pose(self) -> pin.SE3: ...


class _JointsTask(Protocol):
    """A task whose target kind is ``joints``: joint positions, by name too."""

    joint_names: list[str]

    def positions(self) -> NDArray[np.float64]: ...


def _cart_target(task: _PoseTask, spec: Any, field: str) -> pin.SE3:
    M = task.pose()
    if spec is None:
        return M
    if not isinstance(spec, Mapping):
        raise ConfigError(field, "expected a mapping with position/offset and rpy/quaternion")
    for key in spec:
        if key not in ("position", "offset", "rpy", "quaternion"):
            raise ConfigKeyError(
                f"{field}.{key}", "Cartesian target key", key, ["position", "offset", "rpy", "quaternion"]
            )
    if "position" in spec and "offset" in spec:
        raise ConfigError(field, "give either position or offset, not both")
    if "rpy" in spec and "quaternion" in spec:
        raise ConfigError(field, "give either rpy or quaternion, not both")
    p = M.translation.copy()
    if "position" in spec:
        p = numbers(spec["position"], 3, f"{field}.position")
    elif "offset" in spec:
        p = p + numbers(spec["offset"], 3, f"{field}.offset")
    R = M.rotation.copy()
    if "rpy" in spec:
        R = pin.rpy.rpyToMatrix(*numbers(spec["rpy"], 3, f"{field}.rpy"))
    elif "quaternion" in spec:
        xyzw = numbers(spec["quaternion"], 4, f"{field}.quaternion")
        norm = float(np.linalg.norm(xyzw))
        if norm < 1e-9:
            raise ConfigError(f"{field}.quaternion", "must be non-zero")
        x, y, z, w = xyzw / norm
        R = pin.Quaternion(w, x, y, z).toRotationMatrix()
    return pin.SE3(R, p)


def _point_target(current: NDArray[np.float64], spec: Any, field: str) -> NDArray[np.float64]:
    if spec is None:
        return current.copy()
    if isinstance(spec, Mapping):
        keys = set(spec)
        if not keys or not keys <= {"position", "offset"} or len(keys) != 1:
            raise ConfigError(field, "expected {position: [...]} or {offset: [...]}")
        if "offset" in spec:
            return current + numbers(spec["offset"], current.shape[0], f"{field}.offset")
        spec = spec["position"]
    return numbers(spec, current.shape[0], field)


def _joint_target(task: _JointsTask, spec: Any, field: str) -> NDArray[np.float64]:
    current = task.positions()
    if isinstance(spec, Mapping) and not ({"position", "offset"} & set(spec)):
        out = current.copy()
        for name, value in spec.items():
            if name not in task.joint_names:
                raise ConfigKeyError(f"{field}.{name}", "task joint", name, task.joint_names)
            if not is_number(value) or not math.isfinite(value):
                raise ConfigError(f"{field}.{name}", f"expected a finite number, got {safe_repr(value)}")
            out[task.joint_names.index(name)] = float(value)
        return out
    return _point_target(current, spec, field)


def _target(task: Any, spec: Any, field: str) -> Any:
    """The fixed target of a task from its file entry, by the type's target kind: a pose (position/offset
    and rpy/quaternion), joint positions (a list, or a mapping by joint name) or a vector in the task's
    own space (a list, or ``{position: ...}``/``{offset: ...}``); omitted: the current value."""
    kind = task_type(task.type).target
    if kind == "pose":
        return _cart_target(task, spec, field)
    if kind == "joints":
        return _joint_target(task, spec, field)
    return _point_target(np.asarray(task.position(), dtype=float), spec, field)


def _velocity_target(task: Task, spec: Mapping[str, Any], field: str) -> TaskTarget:
    """A task of a velocity scene: its velocity law (:func:`velocity_law`) and its target."""
    law: Any = velocity_law(task, spec, field)
    return TaskTarget(task, law, _target(task, spec.get("target"), f"{field}.target"))


def _fixed_target(task: Task, spec: Mapping[str, Any], field: str) -> NDArray[np.float64] | None:
    """The fixed target of a task without a law: its ``target`` (target kind ``value``: a wrench,
    torques, a CoP; n numbers, default zero), or None (kind ``none``: the task takes no key).

    Raises:
        ConfigKeyError: a key the task does not take (PD gains do not apply).
        ConfigError: a target that is not ``task.n`` finite numbers.
    """
    keys = ["target"] if task_type(task.type).target == "value" else []
    for key in spec:
        if key not in keys:
            raise ConfigKeyError(f"{field}.{key}", f"{task.type} task key", key, keys)
    if not keys:
        return None
    return numbers(spec.get("target", [0.0] * task.n), task.n, f"{field}.target")


def make_target(task: Task, spec: Mapping[str, Any], field: str, kind: str = "acceleration") -> TaskTarget:
    """The :class:`TaskTarget` of a task from its file entry ``spec`` (field ``field``): its law — a PD
    law (``kind="acceleration"``; gains ``kp``, ``kd`` = 2√kp, ``kff``, ``max_acceleration``), a velocity
    law (``kind="velocity"``) or none for a fixed value — and its target.

    Raises:
        ConfigError, ConfigKeyError: a key, a gain or a target the task does not take (field named).
    """
    if task_type(task.type).target in ("value", "none"):  # a fixed value or none: no law
        return TaskTarget(task, None, _fixed_target(task, spec, field))
    if kind == "velocity":
        return _velocity_target(task, spec, field)
    law = law_for(task.type, "acceleration")
    if law is None:
        raise ConfigError(f"{field}.type", f"a {task.type} task takes no PD law in a scene file")
    if "max_velocity" in spec:
        raise ConfigError(f"{field}.max_velocity", "only a velocity scene's tasks take it")
    kp = spec.get("kp", 100.0)
    try:
        kd_default = 2.0 * np.sqrt(as_gain(kp, "kp"))
    except ConfigError as exc:
        raise ConfigError(f"{field}.kp", exc.reason) from None
    kwargs = {"kp": kp, "kd": spec.get("kd", kd_default), "kff": spec.get("kff", 1.0)}
    kwargs["max_acceleration"] = spec.get("max_acceleration")
    try:
        target = _target(task, spec.get("target"), f"{field}.target")
        ctrl = law(**kwargs)
        if task_type(task.type).target != "pose":
            ctrl.compute(target, np.zeros(task.n), target)  # checks per-axis gain sizes
        return TaskTarget(task, ctrl, target)
    except ConfigError as exc:
        if exc.field in ("kp", "kd", "kff", "max_acceleration"):
            raise ConfigError(f"{field}.{exc.field}", exc.reason) from None
        raise
