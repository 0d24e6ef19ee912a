"""ComPD: centre-of-mass PD law that produces a :class:`~wbcpy.tasks.ComReference`.

.. math::

    a = K_{ff}\\, a_d + K_d (v_d - \\dot c) + K_p (c_d - c)

world axes, gains scalar or per axis (3), optional direction-keeping saturation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._validation import as_vector
from ..tasks import ComReference
from ._gains import as_gain, broadcast_gain, saturate

if TYPE_CHECKING:
    from ..tasks import ComTask

__all__ = ["ComPD"]


class ComPD:
    """COM PD law with feed-forward: a = K_ff a_d + K_d (v_d − ċ) + K_p (c_d − c).

    Attributes:
        kp, kd, kff: gains, scalar or 3 values.
        max_acceleration: optional saturation (m/s²), scalar or 3 values.
    """

    def __init__(self, kp: Any, kd: Any, kff: Any = 1.0, max_acceleration: Any = None) -> None:
        """Raises ConfigError for negative or non-finite gains (or a non-positive saturation)."""
        self.kp = as_gain(kp, "kp")
        self.kd = as_gain(kd, "kd")
        self.kff = as_gain(kff, "kff")
        self.max_acceleration = as_gain(max_acceleration, "max_acceleration", allow_none=True)
        for name in ("kp", "kd", "kff", "max_acceleration"):
            gain = getattr(self, name)
            if gain is not None:
                broadcast_gain(gain, 3, name)

    def compute(
        self,
        position: Any,
        velocity: Any,
        target_position: Any,
        target_velocity: Any = None,
        target_acceleration: Any = None,
    ) -> np.ndarray:
        """The COM acceleration reference (3, m/s², world axes)."""
        c = as_vector(position, 3, "position")
        v = as_vector(velocity, 3, "velocity")
        cd = as_vector(target_position, 3, "target_position")
        vd = np.zeros(3) if target_velocity is None else as_vector(target_velocity, 3, "target_velocity")
        ad = (
            np.zeros(3)
            if target_acceleration is None
            else as_vector(target_acceleration, 3, "target_acceleration")
        )
        a = np.broadcast_to(self.kff * ad + self.kd * (vd - v) + self.kp * (cd - c), (3,)).copy()
        return saturate(a, self.max_acceleration)

    update = compute  # alias (ARC-OPT controllers call it update)

    def reference(
        self,
        task: ComTask,
        target_position: Any,
        target_velocity: Any = None,
        target_acceleration: Any = None,
        time: float | None = None,
    ) -> ComReference:
        """A :class:`ComReference` for ``task`` from the robot's current COM state."""
        acc = self.compute(
            task.position(), task.velocity(), target_position, target_velocity, target_acceleration
        )
        return ComReference(
            acc, position=np.array(target_position, dtype=float), velocity=target_velocity, time=time
        )
