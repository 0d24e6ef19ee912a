"""JointPD: joint-space PD law that produces a :class:`~wbcpy.tasks.JointReference`.

.. math::

    a = K_{ff}\\, \\ddot q_d + K_d (\\dot q_d - \\dot q) + K_p (q_d - q)

gains scalar or per joint; with ``max_acceleration`` the output is scaled (direction kept) so that
|a_i| ≤ max_i (ARC-OPT's ``JointPosPDController`` saturation).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._validation import as_vector
from ..tasks import JointReference
from ._gains import as_gain, broadcast_gain, saturate

if TYPE_CHECKING:
    from ..tasks import JointTask

__all__ = ["JointPD"]


class JointPD:
    """Joint PD law with feed-forward: a = K_ff a_d + K_d (v_d − v) + K_p (q_d − q).

    Attributes:
        kp, kd, kff: gains (1/s², 1/s, 1), scalar or per joint.
        max_acceleration: optional saturation per joint (rad/s²), scalar or per joint.
    """

    def __init__(self, kp: Any, kd: Any, kff: Any = 1.0, max_acceleration: Any = None) -> None:
        """Raises ConfigError for negative or non-finite gains (or a non-positive saturation)."""
        self.kp = as_gain(kp, "kp")
        self.kd = as_gain(kd, "kd")
        self.kff = as_gain(kff, "kff")
        self.max_acceleration = as_gain(max_acceleration, "max_acceleration", allow_none=True)

    def compute(
        self,
        position: Any,
        velocity: Any,
        target_position: Any,
        target_velocity: Any = None,
        target_acceleration: Any = None,
    ) -> np.ndarray:
        """The acceleration reference (n) for the current and target joint states.

        Raises:
            InvalidValueError: mismatched sizes or NaN/inf; ConfigError: per-joint gains of the wrong size.
        """
        q = as_vector(position, None, "position")
        n = q.shape[0]
        v = as_vector(velocity, n, "velocity")
        qd = as_vector(target_position, n, "target_position")
        vd = np.zeros(n) if target_velocity is None else as_vector(target_velocity, n, "target_velocity")
        ad = (
            np.zeros(n)
            if target_acceleration is None
            else as_vector(target_acceleration, n, "target_acceleration")
        )
        a = (
            broadcast_gain(self.kff, n, "kff") * ad
            + broadcast_gain(self.kd, n, "kd") * (vd - v)
            + broadcast_gain(self.kp, n, "kp") * (qd - q)
        )
        limit = (
            None
            if self.max_acceleration is None
            else broadcast_gain(self.max_acceleration, n, "max_acceleration")
        )
        return saturate(a, limit)

    update = compute  # alias (ARC-OPT controllers call it update)

    def reference(
        self,
        task: JointTask,
        target_position: Any,
        target_velocity: Any = None,
        target_acceleration: Any = None,
        time: float | None = None,
    ) -> JointReference:
        """A :class:`JointReference` for ``task`` from the robot's current joint state."""
        acc = self.compute(
            task.positions(), task.velocities(), target_position, target_velocity, target_acceleration
        )
        return JointReference(
            acc, position=np.array(target_position, dtype=float), velocity=target_velocity, time=time
        )
