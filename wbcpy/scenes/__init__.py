"""Scenes: prioritised tasks turned into a hierarchical QP and solved by a swappable backend.

* :class:`AccelerationScene` — decision variable q̈ (DFKI/ARC-OPT ``wbc::AccelerationScene``).
* :class:`Scene` — the shared base (tasks, references, weights, status).
* :class:`JointCommand` — the solver output; :class:`JointLimitBounds` — limits as q̈ bounds.
* :func:`load_scene_file` / :class:`SceneSimulation` — YAML scene files and closed-loop simulation
  (used by ``wbcpy scene``).
"""

from __future__ import annotations

from .acceleration_scene import SCENE_OPTIONS, AccelerationScene
from .joint_command import JointCommand, NoSolutionError
from .joint_limits import JointLimitBounds
from .scene import Scene
from .scene_file import SceneSetup, TaskTarget, load_scene_file
from .simulation import SceneSimulation, SimulationResult

__all__ = [
    "SCENE_OPTIONS",
    "AccelerationScene",
    "JointCommand",
    "JointLimitBounds",
    "NoSolutionError",
    "Scene",
    "SceneSetup",
    "SceneSimulation",
    "SimulationResult",
    "TaskTarget",
    "load_scene_file",
]
