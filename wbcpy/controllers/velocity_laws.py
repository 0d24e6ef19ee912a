"""Velocity laws: proportional feedback with feed-forward that turns targets into velocity references.

The velocity-level twins of the PD laws (:mod:`wbcpy.controllers`), for a
:class:`~wbcpy.VelocityScene`:

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
* :class:`TaskVelocityLaw` → the reference class of any vector task type (``velocity``)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, cast

import numpy as np
import pinocchio as pin
from numpy.typing import ArrayLike, NDArray

from .._support.validation import as_vector, check_finite
from ..errors import InvalidValueError
from ..tasks import CartesianReference, ComReference, JointReference, VectorReference, register_law
from ..tasks import task_type as registered_type
from ._gains import as_gain, broadcast_gain, saturate
from .cartesian_pd import pose_error
from .evaluation import EvaluatedLaw, LawEvaluator

if TYPE_CHECKING:
    from ..tasks import CartesianTask, ComTask, JointTask, Task

_TARGET_NAMES = ("target_position", "target_velocity", "target_acceleration")
_POSE_NAMES = ("target_pose", "target_twist", "target_acceleration")


def _finite_pose(value: object, name: str) -> pin.SE3:
    """``value`` itself when it is a finite ``pin.SE3`` (as the PD laws accept poses), else
    :class:`InvalidValueError`."""
    if not isinstance(value, pin.SE3):
        raise InvalidValueError(name, "pin.SE3", type(value).__name__, reason="expected a pin.SE3")
    check_finite(value.homogeneous, name)
    return value


class VelocityLaw(EvaluatedLaw):
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

    def __init__(self, kp: ArrayLike, kff: ArrayLike = 1.0, max_velocity: ArrayLike | None = None) -> None:
        self.kp = as_gain(kp, "kp")
        self.kff = as_gain(kff, "kff")
        self.max_velocity = as_gain(max_velocity, "max_velocity", allow_none=True)
        if self._axes is not None:
            for name in ("kp", "kff", "max_velocity"):
                gain = getattr(self, name)
                if gain is not None:
                    broadcast_gain(gain, self._axes, name)
        self._evaluators: dict[Task, LawEvaluator] = {}

    def law(self, error: ArrayLike, target_velocity: ArrayLike | None = None) -> NDArray[np.float64]:
        """K_ff ẋ_d + K_p e (n = len(e) values, a new array), saturated.

        Raises:
            InvalidValueError: NaN/inf or mismatched sizes; ConfigError: per-axis gains of the wrong size.
        """
        return self._apply(as_vector(error, self._axes, "error"), target_velocity)

    def _apply(self, e: NDArray[np.float64], target_velocity: ArrayLike | None) -> NDArray[np.float64]:
        """The law on an error array of this law's own (finite float64, n values), turned in place into
        the reference."""
        n = e.shape[0]
        kp, limit = self.kp, self.max_velocity
        if self._axes is None:
            if kp.ndim:
                kp = broadcast_gain(kp, n, "kp")
            if limit is not None:
                limit = broadcast_gain(limit, n, "max_velocity")
        e *= kp
        if target_velocity is not None:
            kff = (
                self.kff
                if self._axes is not None or not self.kff.ndim
                else broadcast_gain(self.kff, n, "kff")
            )
            e += kff * as_vector(target_velocity, n, "target_velocity")
        return e if limit is None else saturate(e, limit)


class _VectorVelocityLaw(VelocityLaw):
    """The law on a vector state x: e = x_d − x (joint positions, COM position)."""

    def compute(
        self, position: ArrayLike, target_position: ArrayLike, target_velocity: ArrayLike | None = None
    ) -> NDArray[np.float64]:
        """The velocity reference for the current and target positions (their units and axes).

        Raises:
            InvalidValueError: mismatched sizes or NaN/inf; ConfigError: per-axis gains of the wrong size.
        """
        x = as_vector(position, self._axes, "position")
        xd = as_vector(target_position, x.shape[0], "target_position")
        return self._apply(xd - x, target_velocity)

    update = compute  # alias (ARC-OPT controllers call it update)

    def _vector_reference(
        self, task: Task, target_position: ArrayLike, target_velocity: ArrayLike | None, time: float | None
    ) -> VectorReference:
        """The task type's reference (``velocity``, and the validated target as ``position``) at the
        robot's current state, evaluated as a scene binding evaluates it
        (:mod:`~wbcpy.controllers.evaluation`).

        Raises:
            InvalidValueError: a malformed target or target velocity. ConfigError: a law that does not
                fit the task.
        """
        vel, target, _ = self._evaluated(task, None, target_position, target_velocity, None, _TARGET_NAMES)
        # (acceleration, position, velocity, time: the fields of every vector reference, in this order)
        out: VectorReference = registered_type(task.type).reference_class(None, target, vel, time)
        return out


class JointVelocityLaw(_VectorVelocityLaw):
    """q̇_ref = K_ff q̇_d + K_p (q_d − q) of a ``jnt`` task's joints (rad/s; gains scalar or per joint)."""

    #: the law's target is a joint task's positions
    joint_law = True

    def reference(
        self,
        task: JointTask,
        target_position: ArrayLike,
        target_velocity: ArrayLike | None = None,
        time: float | None = None,
    ) -> JointReference:
        """A :class:`JointReference` (``velocity``) for ``task`` from the robot's current joint positions;
        the target position is stored as ``position``.

        Raises:
            InvalidValueError: a malformed target or target velocity. ConfigError: not a joint task.
        """
        out = self._vector_reference(task, target_position, target_velocity, time)
        return cast(JointReference, out)


class ComVelocityLaw(_VectorVelocityLaw):
    """ċ_ref = K_ff ċ_d + K_p (c_d − c), world axes (m/s; gains scalar or 3 values)."""

    _axes = 3

    def reference(
        self,
        task: ComTask,
        target_position: ArrayLike,
        target_velocity: ArrayLike | None = None,
        time: float | None = None,
    ) -> ComReference:
        """A :class:`ComReference` (``velocity``) for ``task`` from the robot's current COM position.

        Raises:
            InvalidValueError: a malformed target or target velocity. ConfigError: not a 3-row vector task.
        """
        out = self._vector_reference(task, target_position, target_velocity, time)
        return cast(ComReference, out)


class CartesianVelocityLaw(VelocityLaw):
    """Twist reference K_ff v_d + K_p (p_d − p, log₃(R_d Rᵀ)), linear over angular (gains scalar or 6).

    Poses are accepted as the PD laws accept them: finite ``pin.SE3`` (their rotations are taken as
    rotations).
    """

    _axes = 6
    #: the law's target is a pose (a Cartesian task's)
    pose_law = True

    def compute(
        self, pose: pin.SE3, target_pose: pin.SE3, target_twist: ArrayLike | None = None
    ) -> NDArray[np.float64]:
        """The twist reference (6, m/s over rad/s) in the axes of the poses.

        Raises:
            InvalidValueError: a pose that is not a finite ``pin.SE3``, a bad target twist.
        """
        error = pose_error(_finite_pose(target_pose, "target_pose"), _finite_pose(pose, "pose"))
        return self._apply(error, target_twist)

    update = compute  # alias (ARC-OPT controllers call it update)

    def reference(
        self,
        task: CartesianTask,
        target_pose: pin.SE3,
        target_twist: ArrayLike | None = None,
        time: float | None = None,
    ) -> CartesianReference:
        """A :class:`CartesianReference` (``twist``) for ``task``: the pose of the tip in root coordinates
        and the target (pose, twist) in root coordinates in, the twist rotated into ``ref_frame`` axes;
        a copy of the target pose is kept as ``pose``. Evaluated as a scene binding evaluates it
        (:mod:`~wbcpy.controllers.evaluation`).

        Raises:
            InvalidValueError: a target pose that is not a finite ``pin.SE3`` with a proper rotation, a
                malformed target twist. ConfigError: not a Cartesian task.
        """
        twist = self._evaluated(task, 6, target_pose, target_twist, None, _POSE_NAMES)[0]
        return CartesianReference(None, target_pose.copy(), twist, time)  # (acceleration, pose, twist, time)


class TaskVelocityLaw(_VectorVelocityLaw):
    """ẋ_ref = K_ff ẋ_d + K_p (x_d − x) on a vector task's own variable (gains scalar or per row)."""

    def reference(
        self,
        task: Task,
        target_position: ArrayLike,
        target_velocity: ArrayLike | None = None,
        time: float | None = None,
    ) -> VectorReference:
        """The reference (``velocity``) for ``task`` from its current value, as the type's reference class;
        the target position is stored as ``position``.

        Raises:
            InvalidValueError: a malformed target or target velocity. ConfigError: a law that does not
                fit the task.
        """
        return self._vector_reference(task, target_position, target_velocity, time)


register_law("jnt", "velocity", JointVelocityLaw)
register_law("com", "velocity", ComVelocityLaw)
register_law("cart", "velocity", CartesianVelocityLaw)
