"""Scenes: prioritised tasks turned into a hierarchical QP and solved by a swappable backend.

The three scenes are public at the package's top level: :class:`wbcpy.AccelerationScene` (decision
variable q̈, DFKI/ARC-OPT ``wbc::AccelerationScene``), :class:`wbcpy.InverseDynamicsScene` (alias
``AccelerationSceneTSID``: q̈, contact wrenches and joint torques under rigid contacts, friction cones
and torque limits; ARC-OPT ``AccelerationSceneTSID``, TSID) and :class:`wbcpy.VelocityScene` (decision
variable q̇: differential IK with joint limits and collision avoidance; ARC-OPT ``VelocitySceneQP``,
pink, mink). Their contacts are in :mod:`wbcpy.contacts`, their limits in :mod:`wbcpy.limits` and
:mod:`wbcpy.collision`, their tasks and references in :mod:`wbcpy.tasks`. This package lists:

* :class:`Scene` — the shared base (tasks, references, weights, status); :class:`VelocitySceneStatus`
  the velocity scene's status;
* :class:`JointCommand` — the solver output; :class:`NoSolutionError` — an output read before a solve;
* :func:`load_scene_file`, :class:`SceneSetup`, :class:`TaskTarget` — YAML scene files
  (:mod:`wbcpy.scenes.files`; their closed-loop simulation is :class:`wbcpy.sim.SceneSimulation`, used
  by ``wbcpy scene``); :data:`SCENE_OPTIONS`, :data:`VELOCITY_SCENE_OPTIONS` — the scenes' options.

Deprecated paths (each warns, naming the public one): ``wbcpy.scenes.AccelerationScene``,
``InverseDynamicsScene``, ``AccelerationSceneTSID`` and ``VelocityScene`` (use ``wbcpy.<name>``),
``PointContact`` and ``SurfaceContact`` (``wbcpy.contacts``), ``WrenchReference`` (``wbcpy.tasks``),
``JointLimitBounds`` (``wbcpy.limits``).
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

from .acceleration_scene import SCENE_OPTIONS
from .files.scene_file import SceneSetup, load_scene_file
from .files.task_targets import TaskTarget
from .joint_command import JointCommand, NoSolutionError
from .scene import Scene
from .velocity_scene import VELOCITY_SCENE_OPTIONS
from .velocity_status import VelocitySceneStatus

__all__ = [
    "SCENE_OPTIONS",
    "VELOCITY_SCENE_OPTIONS",
    "JointCommand",
    "NoSolutionError",
    "Scene",
    "SceneSetup",
    "TaskTarget",
    "VelocitySceneStatus",
    "load_scene_file",
]

#: deprecated paths: name -> (the module that defines it, its public path)
_MOVED = {
    "AccelerationScene": (".acceleration_scene", "wbcpy.AccelerationScene"),
    "InverseDynamicsScene": (".inverse_dynamics_scene", "wbcpy.InverseDynamicsScene"),
    "AccelerationSceneTSID": (".inverse_dynamics_scene", "wbcpy.AccelerationSceneTSID"),
    "VelocityScene": (".velocity_scene", "wbcpy.VelocityScene"),
    "PointContact": ("..contacts.contacts", "wbcpy.contacts.PointContact"),
    "SurfaceContact": ("..contacts.contacts", "wbcpy.contacts.SurfaceContact"),
    "WrenchReference": ("..tasks.references", "wbcpy.tasks.WrenchReference"),
    "JointLimitBounds": ("..limits.joint_limits", "wbcpy.limits.JointLimitBounds"),
}


def __getattr__(name: str) -> Any:
    """A deprecated path (:data:`_MOVED`): the object, with a ``DeprecationWarning`` naming its home."""
    moved = _MOVED.get(name)
    if moved is None:
        raise AttributeError(f"module 'wbcpy.scenes' has no attribute {name!r}")
    module, home = moved
    warnings.warn(f"wbcpy.scenes.{name} is deprecated: use {home}", DeprecationWarning, stacklevel=2)
    return getattr(importlib.import_module(module, __name__), name)
