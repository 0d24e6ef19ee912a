"""Walking: footsteps, a walking pattern and a walking controller (``specs/walking.md``), for any humanoid.

* :class:`Feet` / :func:`find_feet` — a biped's soles: frames, rectangles, friction, from the registry,
  the caller or the feet's collision geometry (sole frames the URDF lacks are added);
* :func:`start_posture` / :func:`standing_posture` — the posture a walk starts from (SRDF or computed);
* :class:`WalkingScale` — Talos's walking parameters scaled to the robot's size and mass;
* :func:`plan_footsteps` / :class:`Footstep` — footsteps on flat ground from the feet's placements;
* :class:`WalkingPattern` — a DCM plan (Englsberger 2015): COM, ZMP, DCM, swing feet and the contact
  schedule, the ZMP in the support polygon by construction;
* :class:`WalkingController` — the pattern tracked by an InverseDynamicsScene (torques);
* :func:`walk` — the controller closed around the rigid-contact plant, with the log file of the spec.
"""

from .controller import WalkingController
from .feet import Feet, Sole
from .footsteps import Footstep, plan_footsteps
from .pattern import WalkingPattern
from .scaling import WalkingScale, walking_scale
from .sole_finder import find_feet
from .standing import standing_posture, start_posture
from .walk import walk
from .walk_log import WalkLog
from .walk_summary import WalkSummary
from .walking_robot import walking_robot

__all__ = [
    "Feet",
    "Footstep",
    "Sole",
    "WalkLog",
    "WalkSummary",
    "WalkingController",
    "WalkingPattern",
    "WalkingScale",
    "find_feet",
    "plan_footsteps",
    "standing_posture",
    "start_posture",
    "walk",
    "walking_robot",
    "walking_scale",
]
