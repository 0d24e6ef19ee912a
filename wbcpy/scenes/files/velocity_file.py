"""The velocity-scene part of YAML scene files (``scene: velocity``), used by
:mod:`wbcpy.scenes.files.scene_file`.

Keys a scene file may add with ``scene: velocity`` (an acceleration scene refuses them)::

    scene: velocity            # the decision variable is q̇ (default: acceleration)
    dt: 0.01                   # control and integration step (s): q ← q ⊕ q̇ dt
    joint_limits: true         # position limits over one step as bounds on q̇ (default true)
    velocity_limits: true      # |q̇| ≤ URDF velocity limits (default true)
    limit_gain: 0.5            # fraction of the distance to a position limit allowed per step

A ``collision`` section (:mod:`wbcpy.scenes.files.collision_file`) adds velocity-damper rows on q̇.

Per task the velocity law ``ẋ_ref = K_ff ẋ_d + K_p e`` replaces the PD law: ``kp`` (1/s, default
:data:`DEFAULT_KP`), ``kff`` (default 1) and ``max_velocity`` (saturation); ``kd`` and
``max_acceleration`` are refused. Targets are written as for acceleration scenes. A ``momentum`` task
takes :class:`~wbcpy.controllers.MomentumVelocityLaw` instead, h* = K_ff h_d (``kff``, ``max_velocity``,
``target``: h_d, six numbers, default the momentum at the start): the scene commands the momentum
A_G q̇ itself, so a ``kp`` is refused (there is no error to feed back).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...controllers import VelocityLaw, law_for
from ...errors import ConfigError
from ...model.robot_model import RobotModel
from ...tasks import Task
from ..velocity_scene import VelocityScene
from .collision_file import apply_collision_section, prefixed

#: values of a scene file's ``scene`` key (the first is the default)
SCENE_KINDS = ("acceleration", "velocity")
#: top-level keys only velocity scenes accept
VELOCITY_FILE_KEYS = ("velocity_limits", "limit_gain")
#: per-task keys of the velocity law (besides ``target``)
VELOCITY_LAW_KEYS = ("kp", "kff", "max_velocity")
#: per-task keys of the PD law that a velocity scene refuses
ACCELERATION_ONLY_LAW_KEYS = ("kd", "max_acceleration")
#: default proportional gain of the velocity laws (1/s): errors decay as exp(−K_p t), 0.1 s time constant
DEFAULT_KP = 10.0


def scene_kind(doc: Mapping[str, Any]) -> str:
    """The file's ``scene`` value (default ``"acceleration"``); an acceleration scene may not use the
    velocity-only keys.

    Raises:
        ConfigError: an unknown scene kind (field ``scene``), or a velocity-only key in an acceleration
            scene (that key named).
    """
    kind = doc.get("scene", SCENE_KINDS[0])
    if not isinstance(kind, str) or kind not in SCENE_KINDS:
        raise ConfigError("scene", f"expected one of {', '.join(SCENE_KINDS)}, got {kind!r}")
    if kind == "acceleration":
        for key in VELOCITY_FILE_KEYS:
            if key in doc:
                raise ConfigError(key, "only a velocity scene takes it (add `scene: velocity`)")
    return kind


def make_velocity_scene(robot: RobotModel, doc: Mapping[str, Any], solver: Any, dt: float) -> VelocityScene:
    """The VelocityScene of a scene file (options and the ``collision`` section; tasks not configured).

    Raises:
        ConfigError: an invalid option or collision field (named; collision fields as ``collision.…``).
    """
    options = {
        k: doc[k] for k in ("regularization", "joint_limits", "velocity_limits", "limit_gain") if k in doc
    }
    if "acceleration_limit" in doc or "braking" in doc:
        key = "acceleration_limit" if "acceleration_limit" in doc else "braking"
        raise ConfigError(key, "only an acceleration scene takes it")
    scene = VelocityScene(robot, solver=solver, dt=dt, **options)
    apply_collision_section(scene, doc)
    return scene


def velocity_law(task: Task, spec: Mapping[str, Any], field: str = "") -> VelocityLaw:
    """The velocity law of one task of a scene file (``kp``, ``kff``, ``max_velocity``).

    Args:
        task: the scene task.
        spec: the task's law keys.
        field: the task's field (``"tasks[2]"``), prepended to the key in errors.

    Raises:
        ConfigError: a PD-only key (``kd``, ``max_acceleration``) or an invalid gain (the key named), or
            per-axis gains of the wrong size.
    """
    prefix = f"{field}." if field else ""
    for key in ACCELERATION_ONLY_LAW_KEYS:
        if key in spec:
            raise ConfigError(f"{prefix}{key}", "a velocity scene's tasks take kp, kff and max_velocity")
    cls = law_for(task.type, "velocity")
    if cls is None:
        raise ConfigError(f"{prefix}type", f"a velocity scene cannot track a {task.type} task")
    gains = getattr(cls, "gains", VELOCITY_LAW_KEYS)  # (a momentum task's law takes no kp)
    for key in VELOCITY_LAW_KEYS:
        if key in spec and key not in gains:
            raise ConfigError(
                f"{prefix}{key}",
                f"a {task.type} task in a velocity scene takes {', '.join(gains)} ({cls.__name__}: "
                "the scene commands the momentum h = A_G q̇ itself, so there is no error to feed back)",
            )
    kwargs = {key: spec[key] for key in gains if key in spec}
    if "kp" in gains:
        kwargs.setdefault("kp", DEFAULT_KP)
    try:
        law: VelocityLaw = cls(**kwargs)
        law.law(np.zeros(task.n))  # checks per-axis gain sizes
    except ConfigError as exc:
        raise prefixed(exc, prefix) from None
    return law
