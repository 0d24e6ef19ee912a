"""Velocity laws: proportional feedback with feed-forward that turns targets into velocity references.

The velocity-level twins of the PD laws (:mod:`wbcpy.controllers`), for a
:class:`~wbcpy.scenes.VelocityScene`:

.. math::

    \\dot x_{ref} = K_{ff}\\, \\dot x_d + K_p\\, e

with the same errors as the PD laws: e = x_d − x for joint positions and the COM, and
e = (p_d − p, log₃(R_d Rᵀ)) for poses (linear over angular, in the poses' axes). Gains are scalars or
one value per axis (K_p in 1/s); ``max_velocity`` optionally scales the output so that
|ẋ_ref,i| ≤ max_i (direction kept). With K_p = gain/dt this is pink's and mink's task law
``J q̇ = gain · e / dt``.

* :class:`JointVelocityLaw` → :class:`~wbcpy.tasks.JointReference` (``velocity``)
* :class:`CartesianVelocityLaw` → :class:`~wbcpy.tasks.CartesianReference` (``twist``)
* :class:`ComVelocityLaw` → :class:`~wbcpy.tasks.ComReference` (``velocity``)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pinocchio as pin

from .._validation import as_se3, as_vector
from ..tasks import CartesianReference, ComReference, JointReference
from ._gains import as_gain, broadcast_gain, optional_vector, saturate
from .cartesian_pd import pose_error

if TYPE_CHECKING:
    from ..tasks import CartesianTask, ComTask, JointTask

__all__ = ["CartesianVelocityLaw", "ComVelocityLaw", "JointVelocityLaw", "VelocityLaw"]


class VelocityLaw:
    """Gains and the law ẋ_ref = K_ff ẋ_d + K_p e, with optional direction-keeping saturation.

    Args:
        kp: proportional gain (1/s), scalar or per axis.
        kff: feed-forward gain on the target velocity (default 1), scalar or per axis.
        max_velocity: optional saturation (> 0), scalar or per axis.

    Raises:
        ConfigError: negative or non-finite gains, a non-positive saturation, or per-axis gains of the
            wrong size for a law with a fixed number of axes (field named).
    """

    #: number of axes when it is fixed (None: known at each call)
    _axes: ClassVar[int | None] = None

    def __init__(self, kp: Any, kff: Any = 1.0, max_velocity: Any = None) -> None:
        self.kp = as_gain(kp, "kp")
        self.kff = as_gain(kff, "kff")
        self.max_velocity = as_gain(max_velocity, "max_velocity", allow_none=True)
        if self._axes is not None:
            for name in ("kp", "kff", "max_velocity"):
                gain = getattr(self, name)
                if gain is not None:
                    broadcast_gain(gain, self._axes, name)

    def law(self, error: Any, target_velocity: Any = None) -> np.ndarray:
        """K_ff ẋ_d + K_p e (n = len(e) values, a new array), saturated.

        Raises:
            InvalidValueError: NaN/inf or mismatched sizes; ConfigError: per-axis gains of the wrong size.
        """
        e = as_vector(error, self._axes, "error")
        n = e.shape[0]
        vd = optional_vector(target_velocity, n, "target_velocity")
        kp, kff, limit = self.kp, self.kff, self.max_velocity
        if self._axes is None:
            kp = broadcast_gain(kp, n, "kp")
            kff = broadcast_gain(kff, n, "kff")
            if limit is not None:
                limit = broadcast_gain(limit, n, "max_velocity")
        out = kff * vd + kp * e
        if out.shape != (n,):
            out = np.broadcast_to(out, (n,)).copy()
        return saturate(out, limit)


class _VectorVelocityLaw(VelocityLaw):
    """The law on a vector state x: e = x_d − x (joint positions, COM position)."""

    def compute(self, position: Any, target_position: Any, target_velocity: Any = None) -> np.ndarray:
        """The velocity reference for the current and target positions (their units and axes).

        Raises:
            InvalidValueError: mismatched sizes or NaN/inf; ConfigError: per-axis gains of the wrong size.
        """
        x = as_vector(position, self._axes, "position")
        xd = as_vector(target_position, x.shape[0], "target_position")
        return self.law(xd - x, target_velocity)

    update = compute  # alias (ARC-OPT controllers call it update)


class JointVelocityLaw(_VectorVelocityLaw):
    """q̇_ref = K_ff q̇_d + K_p (q_d − q) of a ``jnt`` task's joints (rad/s; gains scalar or per joint)."""

    def reference(
        self, task: JointTask, target_position: Any, target_velocity: Any = None, time: float | None = None
    ) -> JointReference:
        """A :class:`JointReference` (``velocity``) for ``task`` from the robot's current joint positions;
        the target position is stored as ``position``."""
        vel = self.compute(task.positions(), target_position, target_velocity)
        return JointReference(velocity=vel, position=np.array(target_position, dtype=float), time=time)


class ComVelocityLaw(_VectorVelocityLaw):
    """ċ_ref = K_ff ċ_d + K_p (c_d − c), world axes (m/s; gains scalar or 3 values)."""

    _axes = 3

    def reference(
        self, task: ComTask, target_position: Any, target_velocity: Any = None, time: float | None = None
    ) -> ComReference:
        """A :class:`ComReference` (``velocity``) for ``task`` from the robot's current COM position."""
        vel = self.compute(task.position(), target_position, target_velocity)
        return ComReference(velocity=vel, position=np.array(target_position, dtype=float), time=time)


class CartesianVelocityLaw(VelocityLaw):
    """Twist reference K_ff v_d + K_p (p_d − p, log₃(R_d Rᵀ)), linear over angular (gains scalar or 6)."""

    _axes = 6

    def compute(self, pose: pin.SE3, target_pose: pin.SE3, target_twist: Any = None) -> np.ndarray:
        """The twist reference (6, m/s over rad/s) in the axes of the poses.

        Raises:
            InvalidValueError: a pose that is not a finite ``pin.SE3`` with a proper rotation, a bad target
                twist.
        """
        return self.law(pose_error(as_se3(target_pose, "target_pose"), as_se3(pose, "pose")), target_twist)

    update = compute  # alias (ARC-OPT controllers call it update)

    def reference(
        self,
        task: CartesianTask,
        target_pose: pin.SE3,
        target_twist: Any = None,
        time: float | None = None,
    ) -> CartesianReference:
        """A :class:`CartesianReference` (``twist``) for ``task``: the pose of the tip in root coordinates
        and the target (pose, twist) in root coordinates in, the twist rotated into ``ref_frame`` axes."""
        target = as_se3(target_pose, "target_pose")  # (a copy: kept in the reference)
        twist = self.law(pose_error(target, task.pose()), target_twist)
        return CartesianReference(twist=task.to_ref_axes(twist), pose=target, time=time)
