"""Walking: footsteps, a walking pattern and a walking controller (``specs/walking.md``).

* :func:`plan_footsteps` / :class:`Footstep` — footsteps on flat ground from the feet's placements;
* :class:`WalkingPattern` — a DCM plan (Englsberger 2015): COM, ZMP, DCM, swing feet and the contact
  schedule;
"""

from .footsteps import Footstep, plan_footsteps
from .pattern import WalkingPattern

__all__ = ["Footstep", "WalkingPattern", "plan_footsteps"]
