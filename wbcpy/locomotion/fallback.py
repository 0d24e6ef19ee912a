"""No dead end mid-walk: the walking controller's answer when its scene's QP has none.

A walk on a real floor meets states the plan did not foresee — soles that collide, a foot that slips
off, a push beyond what the contacts can hold — where the scene's hard constraints (every contact held
still, the wrenches in their cones, the torques in their limits) have no common answer. Raising there
ends the walk, and a robot cannot stop. :class:`Fallback` answers instead, in order:

1. the relaxed problem (:meth:`~wbcpy.InverseDynamicsScene.relax_contacts`): the contacts stay active
   with their wrenches in their cones and the torques in their limits, but their accelerations are the
   top least-squares level above the tasks instead of hard constraints (the swing, posture, COM and base
   tasks rank below them); with a floating base it always has an answer;
2. should the solver fail on that too, the last good torques, clipped to the effort limits.

Each degraded step is counted and its time and reason kept (:attr:`Fallback.events`, the first
:data:`MAX_EVENTS`); :func:`~wbcpy.locomotion.walk` reports them in its summary and log.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import QPSolveError
from ..scenes.joint_command import JointCommand

if TYPE_CHECKING:
    from ..qp import HierarchicalQP
    from ..scenes.inverse_dynamics_scene import InverseDynamicsScene

#: the degraded steps whose time and reason are kept
MAX_EVENTS = 20


class Fallback:
    """The degraded answers of one controller (see the module docstring).

    Attributes:
        count: degraded steps so far. events: (time s, what happened) of the first :data:`MAX_EVENTS`.
        last: the last good command (None before the first).
    """

    def __init__(self, names: list[str]) -> None:
        """Args: names: the actuated DOFs (the commands' names)."""
        self.names = list(names)
        self.count = 0
        self.events: list[tuple[float, str]] = []
        self.last: JointCommand | None = None

    def answer(self, scene: InverseDynamicsScene, hqp: HierarchicalQP, error: QPSolveError, t: float
               ) -> JointCommand:  # fmt: skip
        """The degraded answer at time t (s) to the scene's problem ``hqp``, which failed with ``error``."""
        self.count += 1
        try:
            cmd = scene.solve(scene.relax_contacts(hqp))
            what = "contacts relaxed"
        except QPSolveError as again:
            cmd = self._held(scene)
            what = f"last torques held (relaxed problem: {again.status})"
        if len(self.events) < MAX_EVENTS:
            self.events.append((t, f"{what}; {error.status}"))
        return cmd

    def _held(self, scene: InverseDynamicsScene) -> JointCommand:
        """The last good command with its torques clipped to the effort limits (zero torques before any)."""
        last, names = self.last, self.names
        effort = np.zeros(len(names)) if last is None or last.effort is None else last.effort.copy()
        limit = scene.effort_limit
        if limit is not None:
            np.clip(effort, -limit, limit, out=effort)
        qdd = np.zeros(len(names)) if last is None or last.acceleration is None else last.acceleration.copy()
        return JointCommand(list(names), qdd, effort=effort)
