"""Scenes: prioritised tasks turned into a hierarchical QP and solved by a swappable backend.

* :class:`AccelerationScene` — decision variable q̈ (DFKI/ARC-OPT ``wbc::AccelerationScene``).
* :class:`InverseDynamicsScene` (alias :class:`AccelerationSceneTSID`) — q̈, contact wrenches and joint
  torques under rigid contacts, friction cones and torque limits (ARC-OPT ``AccelerationSceneTSID``, TSID).
* :class:`VelocityScene` — decision variable q̇: differential IK with joint limits and collision
  avoidance (ARC-OPT ``VelocitySceneQP``, pink, mink); :class:`VelocitySceneStatus` its status.
* :class:`Scene` — the shared base (tasks, references, weights, status).
* :class:`JointCommand` — the solver output; :class:`JointLimitBounds` — limits as q̈ bounds.
* :func:`load_scene_file` — YAML scene files (:mod:`wbcpy.scenes.files`; their closed-loop simulation is
  :class:`wbcpy.sim.SceneSimulation`, used by ``wbcpy scene``).
* :class:`SurfaceContact`, :class:`PointContact`, :class:`WrenchReference` — contacts and wrench
  references (re-exported from :mod:`wbcpy.contacts`); the plant that integrates a scene's torques with
  rigid contact dynamics is :class:`wbcpy.sim.ContactSimulation`.
"""

from __future__ import annotations

from ..contacts import PointContact, SurfaceContact
from ..limits.joint_limits import JointLimitBounds
from ..tasks.references import WrenchReference
from .acceleration_scene import SCENE_OPTIONS, AccelerationScene
from .files.scene_file import SceneSetup, TaskTarget, load_scene_file
from .inverse_dynamics_scene import AccelerationSceneTSID, InverseDynamicsScene
from .joint_command import JointCommand, NoSolutionError
from .scene import Scene
from .velocity_scene import VELOCITY_SCENE_OPTIONS, VelocityScene
from .velocity_status import VelocitySceneStatus

__all__ = [
    "SCENE_OPTIONS",
    "VELOCITY_SCENE_OPTIONS",
    "AccelerationScene",
    "AccelerationSceneTSID",
    "InverseDynamicsScene",
    "JointCommand",
    "JointLimitBounds",
    "NoSolutionError",
    "PointContact",
    "Scene",
    "SceneSetup",
    "SurfaceContact",
    "TaskTarget",
    "VelocityScene",
    "VelocitySceneStatus",
    "WrenchReference",
    "load_scene_file",
]
