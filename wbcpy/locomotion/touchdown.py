"""Touch-down of a swing foot: by the pattern's clock, or by the measured sole wrenches.

A real humanoid measures its ankle wrenches, and a soft floor (MuJoCo's contacts) is not where the plan
put it to the tenth of a millimetre. :meth:`~wbcpy.locomotion.WalkingController.set_measured_wrenches`
gives the walking controller the wrench each sole feels (6-vectors: force over torque, in the sole frame's
axes, about its origin, what the ground exerts on the robot — the convention of
:class:`~wbcpy.sim.contact_simulation.ContactSimulation`). Then a swing foot lands when it *feels* the
ground:

* **early**: in the second half of its swing (the foot descending), a measured normal force above
  :attr:`Touchdown.threshold` makes it a contact at once — once its ground speed is below
  :attr:`Touchdown.speed` (a foot that touches down while it still moves, late in a re-planned swing,
  would be held sliding: it keeps its swing, whose path comes to rest, until then);
* **late**: at the end of its planned swing without such a force the foot keeps descending at
  :attr:`Touchdown.descent` (m/s) — its reference goes on below the planned ground, the ZMP stays in the
  stance sole — instead of being asked for support, until it feels the ground; the extension is bounded
  (:attr:`Touchdown.max_delay`, half the double support): then it lands whatever it feels, so that the
  next foot's unloading keeps at least half the double support.

Without measurements (none given, or ``None``) a foot lands at the end of its planned swing (the pattern's
clock), as on the rigid plant whose contacts are the controller's own.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from .._support.validation import as_vector
from ..errors import ConfigError, UnknownNameError

#: the measured normal force (in units of m·g) from which a descending swing foot is on the ground
TOUCHDOWN_FORCE = 0.02
#: how fast (m/s, Talos's size; scaled by the robot's) a late foot keeps descending
DESCENT_SPEED = 0.02
#: the ground speed (m/s, Talos's size; scaled by the robot's) below which a foot that feels the ground lands
LANDING_SPEED = 0.1


class Touchdown:
    """When a swing foot lands (see the module docstring).

    Attributes:
        frames: {side: sole frame}. threshold: the normal force (N) from which a foot feels the ground.
        descent: a late foot's descent speed (m/s). max_delay: the longest extension of a swing (s).
        speed: the ground speed (m/s) below which a foot that feels the ground lands.
        normal: {side: the last measured normal force (N)}, or None without measurements.
    """

    def __init__(self, frames: Mapping[str, str], weight: float, size: float, max_delay: float) -> None:
        """Args: frames: {side: sole frame}. weight: m·g (N). size: the robot's length scale (Talos 1).
        max_delay: the longest extension of a swing (s)."""
        self.frames = dict(frames)
        self.threshold = TOUCHDOWN_FORCE * weight
        self.descent, self.speed = DESCENT_SPEED * size, LANDING_SPEED * size
        self.max_delay = float(max_delay)
        self.normal: dict[str, float] | None = None

    def set(self, wrenches: Mapping[str, Any] | None) -> None:
        """Store the measured wrenches ``{sole frame: 6-vector}`` (both soles; None: no measurement, the
        pattern's clock), checked first: nothing changes on error.

        Raises:
            ConfigError: not a mapping or None, or a sole missing. UnknownNameError: a key that is not a
                sole frame. InvalidValueError: a wrench that is not 6 finite numbers.
        """
        if wrenches is None:
            self.normal = None
            return
        if not isinstance(wrenches, Mapping):
            raise ConfigError("wrenches", f"must be a mapping {{sole frame: wrench}} or None, got "
                              f"{type(wrenches).__name__}")  # fmt: skip
        sides = {frame: side for side, frame in self.frames.items()}
        normal: dict[str, float] = {}
        for frame, wrench in wrenches.items():
            if frame not in sides:
                raise UnknownNameError("sole frame", frame, list(sides))
            normal[sides[frame]] = float(as_vector(wrench, 6, f"wrenches[{frame!r}]")[2])
        missing = [f for f, side in sides.items() if side not in normal]
        if missing:
            raise ConfigError("wrenches", f"the wrench of {', '.join(missing)} is missing")
        self.normal = normal

    @property
    def measuring(self) -> bool:
        """Whether the controller has measured wrenches."""
        return self.normal is not None

    def landed(self, side: str, t: float, t0: float, t1: float, speed: float) -> bool:
        """Whether the swing foot ``side``, planned to swing over [t0, t1), is on the ground at time t:
        at t1 without measurements; with them, when it feels the ground in the swing's second half at a
        ground speed (m/s) below :attr:`speed`, or at the end of the bounded extension."""
        if self.normal is None:
            return t >= t1
        if t >= t1 + self.max_delay - 1e-9:  # (to the nanosecond: times are sums of control steps)
            return True
        return self.normal[side] > self.threshold and t >= 0.5 * (t0 + t1) and speed <= self.speed

    def depth(self, t: float, t1: float) -> float:
        """How far below its planned touch-down a late foot's reference is at time t (m)."""
        return self.descent * max(0.0, t - t1)

    @staticmethod
    def before(t1: float) -> float:
        """The last time before t1 (s): the planned swing's end as the pattern evaluates it."""
        return math.nextafter(t1, -math.inf)
