"""Scenes: prioritised tasks turned into a hierarchical QP and solved by a swappable backend.

* :class:`AccelerationScene` — decision variable q̈ (DFKI/ARC-OPT ``wbc::AccelerationScene``).
* :class:`InverseDynamicsScene` (alias :class:`AccelerationSceneTSID`) — q̈, contact wrenches and joint
  torques under rigid contacts, friction cones and torque limits (ARC-OPT ``AccelerationSceneTSID``, TSID).
* :class:`VelocityScene` — decision variable q̇: differential IK with joint limits and collision
  avoidance (ARC-OPT ``VelocitySceneQP``, pink, mink); :class:`VelocitySceneStatus` its status.
* :class:`Scene` — the shared base (tasks, references, weights, status).
* :class:`JointCommand` — the solver output; :class:`JointLimitBounds` — limits as q̈ bounds.
* :func:`load_scene_file` / :class:`SceneSimulation` — YAML scene files and closed-loop simulation
  (used by ``wbcpy scene``).
* :class:`SurfaceContact`, :class:`PointContact`, :class:`WrenchReference` — contacts and wrench
  references (:mod:`~wbcpy.scenes.contacts`; cones in :mod:`~wbcpy.scenes.wrench_cone`);
  :class:`ContactSimulation` — torques integrated with rigid contact dynamics.
"""

from __future__ import annotations

from .acceleration_scene import SCENE_OPTIONS, AccelerationScene
from .contact_simulation import ContactSimulation
from .contacts import PointContact, SurfaceContact, WrenchReference
from .inverse_dynamics_scene import AccelerationSceneTSID, InverseDynamicsScene
from .joint_command import JointCommand, NoSolutionError
from .joint_limits import JointLimitBounds
from .scene import Scene
from .scene_file import SceneSetup, TaskTarget, load_scene_file
from .simulation import SceneSimulation, SimulationResult
from .velocity_scene import VELOCITY_SCENE_OPTIONS, VelocityScene
from .velocity_status import VelocitySceneStatus

__all__ = [
    "SCENE_OPTIONS",
    "VELOCITY_SCENE_OPTIONS",
    "AccelerationScene",
    "AccelerationSceneTSID",
    "ContactSimulation",
    "InverseDynamicsScene",
    "JointCommand",
    "JointLimitBounds",
    "NoSolutionError",
    "PointContact",
    "Scene",
    "SceneSetup",
    "SceneSimulation",
    "SimulationResult",
    "SurfaceContact",
    "TaskTarget",
    "VelocityScene",
    "VelocitySceneStatus",
    "WrenchReference",
    "load_scene_file",
]
