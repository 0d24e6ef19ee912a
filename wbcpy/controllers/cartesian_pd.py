"""CartesianPD: pose PD law that produces a :class:`~wbcpy.tasks.CartesianReference`.

With pose (p, R), twist (v, ω) and target (p_d, R_d, v_d, ω_d, a_d), all in one set of axes:

.. math::

    a = K_{ff}\\, a_d
        + K_d \\left(\\begin{bmatrix}v_d\\\\ω_d\\end{bmatrix} - \\begin{bmatrix}v\\\\ω\\end{bmatrix}\\right)
        + K_p \\begin{bmatrix} p_d - p \\\\ \\log_3(R_d R^T) \\end{bmatrix}

(linear over angular; log₃(R_d Rᵀ) is the rotation vector that turns R into R_d, in the same axes as ω).
Gains are scalars or 6 values; ``max_acceleration`` scales the output (direction kept).

:meth:`CartesianPD.reference` applies the law to a :class:`~wbcpy.tasks.CartesianTask`: pose and twist of the
tip relative to the root, in root coordinates; the target pose, twist and acceleration are in root
coordinates too; the result is rotated into the task's ``ref_frame`` axes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pinocchio as pin
from numpy.typing import ArrayLike, NDArray

from .._kernels import all_finite as _all_finite
from .._kernels import log3 as _log3
from .._support.validation import as_vector, optional_vector
from ..errors import InvalidValueError
from ..tasks import CartesianReference, register_law
from ._base import PDLaw

if TYPE_CHECKING:
    from ..tasks import CartesianTask

_TARGET_NAMES = ("target_pose", "target_twist", "target_acceleration")


def _se3(x: object, name: str) -> pin.SE3:
    if isinstance(x, pin.SE3):
        if not _all_finite(x.homogeneous.ravel("K")):
            raise InvalidValueError(name, "finite", None, reason="contains NaN or inf")
        return x
    raise InvalidValueError(name, "pin.SE3", type(x).__name__, reason="expected a pin.SE3")


def pose_error(target: pin.SE3, pose: pin.SE3) -> NDArray[np.float64]:
    """(p_d − p, log₃(R_d Rᵀ)) (6): position error over rotation vector, in the poses' axes."""
    out = np.empty(6)
    np.subtract(target.translation, pose.translation, out=out[:3])
    _log3(target.rotation @ pose.rotation.T, out[3:])  # (compiled: the rotation vector into out[3:])
    return out


class CartesianPD(PDLaw):
    """Cartesian PD law with feed-forward (see the module docstring).

    Attributes:
        kp, kd, kff: gains, scalar or 6 values (linear over angular).
        max_acceleration: optional saturation, scalar or 6 values (m/s² over rad/s²).
    """

    _axes = 6
    #: the law's target is a pose (a Cartesian task's)
    pose_law = True

    def compute(
        self,
        pose: pin.SE3,
        twist: ArrayLike,
        target_pose: pin.SE3,
        target_twist: ArrayLike | None = None,
        target_acceleration: ArrayLike | None = None,
    ) -> NDArray[np.float64]:
        """The acceleration reference (6, linear over angular) in the axes of the inputs."""
        M = _se3(pose, "pose")
        Md = _se3(target_pose, "target_pose")
        v = as_vector(twist, 6, "twist")
        vd = optional_vector(target_twist, 6, "target_twist")
        ad = optional_vector(target_acceleration, 6, "target_acceleration")
        return self._law(pose_error(Md, M), v, vd, ad)

    update = compute  # alias (ARC-OPT controllers call it update)

    def reference(
        self,
        task: CartesianTask,
        target_pose: pin.SE3,
        target_twist: ArrayLike | None = None,
        target_acceleration: ArrayLike | None = None,
        time: float | None = None,
    ) -> CartesianReference:
        """A :class:`CartesianReference` for ``task`` (root coordinates in, ref_frame axes out; a copy of
        the target pose is kept as ``pose``).

        The law is evaluated as a scene binding evaluates it (:mod:`~wbcpy.controllers.evaluation`: the
        same compiled kernel on the robot's cached placement and Jacobian), every input validated at
        every call.

        Raises:
            InvalidValueError: a target pose that is not a finite ``pin.SE3`` with a proper rotation, a
                malformed target twist or acceleration.
            ConfigError: a task that is not a Cartesian task.
        """
        acc = self._evaluated(task, 6, target_pose, target_twist, target_acceleration, _TARGET_NAMES)[0]
        return CartesianReference(acc, target_pose.copy(), None, time)  # (acceleration, pose, twist, time)


register_law("cart", "acceleration", CartesianPD)
