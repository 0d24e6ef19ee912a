"""Pose targets and pose errors shared by the min-jerk controller and the DLS inverse kinematics.

A target pose is given either as a ``pin.SE3`` or as iKin's 7-vector ``(x, y, z, ax, ay, az, θ)``: the
position [m] followed by a rotation axis and an angle [rad] (R = exp(θ·a/‖a‖), θ taken modulo 2π; a
zero axis is allowed only with θ = 0, meaning R = I). An SE3 target must hold a proper rotation.
The error between the target (p_d, R_d) and the current pose (p, R) is, as in iKin,

.. math::

    e = \\begin{bmatrix} p_d - p \\\\ \\log_3(R_d R^\\top) \\end{bmatrix} \\in \\mathbb{R}^6,

the rotation part being θ·axis of the world-frame rotation that takes R to R_d. ``CtrlPose.XYZ`` zeroes
the rotation part, ``CtrlPose.ANG`` the position part.
"""

from __future__ import annotations

import math
from enum import IntEnum
from typing import Any

import numpy as np
import pinocchio as pin

from .._support.validation import as_vector, check_homogeneous
from ..errors import InvalidValueError, UnknownNameError
from ..model._poses import pose7, rotation_from_axis_angle


class CtrlPose(IntEnum):
    """Which part of the pose the controller tracks (iKin ``IKINCTRL_POSE_*``)."""

    FULL = 0
    """Position and orientation."""
    XYZ = 1
    """Position only (the rotation error is set to zero)."""
    ANG = 2
    """Orientation only (the position error is set to zero)."""


_TWO_PI = 2.0 * math.pi
_POSE_NAMES = {"full": CtrlPose.FULL, "xyz": CtrlPose.XYZ, "ang": CtrlPose.ANG}


def as_ctrl_pose(value: Any) -> CtrlPose:
    """Return ``value`` as a :class:`CtrlPose` (accepts the enum, 0/1/2 or "full"/"xyz"/"ang").

    Raises:
        UnknownNameError: an unknown string (lists the valid names).
        InvalidValueError: any other value.
    """
    if isinstance(value, CtrlPose):
        return value
    if isinstance(value, str):
        try:
            return _POSE_NAMES[value.strip().lower()]
        except KeyError:
            raise UnknownNameError("ctrl_pose", value, list(_POSE_NAMES)) from None
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and 0 <= int(value) <= 2:
        return CtrlPose(int(value))
    raise InvalidValueError(
        "ctrl_pose", "CtrlPose.FULL/XYZ/ANG, 0/1/2 or 'full'/'xyz'/'ang'", value, reason=f"got {value!r}"
    )


def parse_target(xd: Any, name: str = "xd") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate a target pose and return ``(p_d, R_d, x7)``, all new arrays.

    Args:
        xd: a ``pin.SE3`` or a 7-vector (x, y, z, axis, angle).
        name: the argument's name for error messages.

    Raises:
        InvalidValueError: wrong size, NaN or inf, an SE3 whose rotation is not a rotation matrix
            (max |RᵀR − I| > 1e-6 or det R < 0), a zero axis with a non-zero angle.
    """
    if isinstance(xd, pin.SE3):
        return parse_homogeneous(xd.homogeneous, name)
    if type(xd) is np.ndarray and xd.dtype == np.float64 and xd.shape == (7,):
        x7 = xd.copy()  # fast path: x·x is finite iff every entry is (an overflow is re-checked exactly)
        if not math.isfinite(x7.dot(x7)):
            as_vector(x7, 7, name)
    else:
        x7 = as_vector(xd, 7, name)
    ax, ay, az, angle = x7[3:].tolist()
    norm = math.hypot(ax, ay, az)
    if norm >= 1e-12:  # inlined rotation_from_axis_angle (the angle reduced modulo 2π)
        return x7[:3].copy(), pin.exp3(x7[3:6] * (math.remainder(angle, _TWO_PI) / norm)), x7
    return x7[:3].copy(), rotation_from_axis_angle(x7[3:6], angle, name), x7  # zero axis: I, or raise


def parse_homogeneous(h: np.ndarray, name: str = "xd") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`parse_target` of a ``pin.SE3`` given by its ``homogeneous`` matrix (a new 4×4 array: the
    returned position and rotation are copies of its blocks, never views of the caller's transform)."""
    check_homogeneous(h, name)
    p_d, R_d = h[:3, 3].copy(), h[:3, :3].copy()
    return p_d, R_d, pose7(p_d, R_d)


def pose_error(
    p_d: np.ndarray, R_d: np.ndarray, M: pin.SE3, mode: CtrlPose, out: np.ndarray | None = None
) -> np.ndarray:
    """Pose error e = (p_d − p, log₃(R_d Rᵀ)) of the pose ``M`` = (R, p), masked by ``mode``.

    Args:
        p_d, R_d: target position (3,) and rotation (3, 3).
        M: current pose.
        mode: FULL, XYZ (rotation part 0) or ANG (position part 0).
        out: optional (6,) array written in place and returned.
    """
    e = np.empty(6) if out is None else out
    if mode == CtrlPose.ANG:
        e[:3] = 0.0
    else:
        np.subtract(p_d, M.translation, out=e[:3])
    if mode == CtrlPose.XYZ:
        e[3:] = 0.0
    else:
        e[3:] = pin.log3(R_d @ M.rotation.T)
    return e
