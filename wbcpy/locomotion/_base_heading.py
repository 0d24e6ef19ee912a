"""The walking controller's base orientation target: upright, heading between the feet.

The base's heading is the circular mean of the soles' headings — the planted soles' (from the pattern)
and the swinging sole's (its reference) — plus the base's heading relative to the soles' mean at the
start (0 when the base's x axis points forward, π for iCub's, whose points back).
"""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin

from ..model.robot_model import RobotModel
from .footsteps import yaw_of
from .pattern import Phase, WalkingPattern


class BaseHeading:
    """The base's target heading and placement (see the module docstring). The planted soles' part is
    cached per phase and plan version. Plain attributes: copies and pickles are independent."""

    def __init__(self, robot: RobotModel, soles: list[str]) -> None:
        """The offset of the base's heading from the mean heading of ``soles`` (frames) at the robot's
        current state."""
        yaws = [yaw_of(robot.frame_placement(f).rotation) for f in soles]
        mean = math.atan2(sum(map(math.sin, yaws)), sum(map(math.cos, yaws)))
        offset = yaw_of(robot.frame_placement(robot.root_link).rotation) - mean
        #: the base's heading relative to the soles' mean heading at the start (rad, in [−π, π))
        self.offset = (offset + math.pi) % (2 * math.pi) - math.pi
        self._planted_key: tuple[float, str, int] | None = None
        self._planted_sum = (0.0, 0.0)  # Σ sin, Σ cos of the planted soles' headings

    def yaw(self, pattern: WalkingPattern, t: float, ph: Phase, swing: np.ndarray | None) -> float:
        """The soles' mean heading (rad) at time t in phase ``ph``: the planted soles' and, when a foot
        swings, the heading of its reference placement ``swing`` (4×4)."""
        key = (ph.t0, ph.kind, pattern.version)
        if self._planted_key != key:
            yaws = [yaw_of(M.rotation) for M in pattern.planted(t).values()]
            self._planted_sum = (sum(math.sin(y) for y in yaws), sum(math.cos(y) for y in yaws))
            self._planted_key = key
        s, c = self._planted_sum
        if swing is not None:
            y = yaw_of(swing)
            s, c = s + math.sin(y), c + math.cos(y)
        return math.atan2(s, c)

    def target(self, yaw: float) -> pin.SE3:
        """The base upright with heading ``yaw`` (rad, the soles' mean) plus :attr:`offset`."""
        yaw = yaw + self.offset
        c, s = math.cos(yaw), math.sin(yaw)
        return pin.SE3(np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]), np.zeros(3))
