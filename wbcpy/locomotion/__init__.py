"""Walking: footsteps, a walking pattern and a walking controller (``specs/walking.md``).

* :func:`plan_footsteps` / :class:`Footstep` — footsteps on flat ground from the feet's placements;
* :class:`WalkingPattern` — a DCM plan (Englsberger 2015): COM, ZMP, DCM, swing feet and the contact
  schedule, the ZMP in the support polygon by construction;
* :class:`WalkingController` — the pattern tracked by an InverseDynamicsScene (torques);
* :func:`walk` — the controller closed around the rigid-contact plant, with the log file of the spec.
"""

from .controller import WalkingController
from .footsteps import Footstep, plan_footsteps
from .pattern import WalkingPattern
from .walk import WalkLog, WalkSummary, walk

__all__ = [
    "Footstep",
    "WalkLog",
    "WalkSummary",
    "WalkingController",
    "WalkingPattern",
    "plan_footsteps",
    "walk",
]
