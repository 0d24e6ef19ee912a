"""Pose conversions: iKin's 7-vector (x, y, z, axis, angle) ↔ ``pin.SE3``, axis-angle → rotation.

Re-exported by :mod:`wbcpy.model.chain` (their historical home).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pinocchio as pin

from .._support.validation import as_vector
from ..errors import InvalidValueError

_TWO_PI = 2.0 * math.pi


def pose7_from_se3(M: pin.SE3) -> np.ndarray:
    """The iKin pose vector ``(x, y, z, ax, ay, az, θ)`` of a transform.

    The position is ``M.translation`` (m); ``(ax, ay, az)`` is the unit rotation axis and ``θ ∈ [0, π]``
    the angle (rad) of ``M.rotation = exp(θ [a]×)``. For the identity rotation the axis is ``(0, 0, 1)``
    and θ = 0.
    """
    return pose7(M.translation, M.rotation)


def pose7(p: np.ndarray, R: np.ndarray) -> np.ndarray:
    """:func:`pose7_from_se3` of the transform (R, p): a new 7-vector (x, y, z, ax, ay, az, θ)."""
    x, y, z = p.tolist()
    wx, wy, wz = pin.log3(R).tolist()  # (seven scalars: one array built at the end)
    angle = math.sqrt(wx * wx + wy * wy + wz * wz)
    if angle < 1e-12:
        return np.array([x, y, z, 0.0, 0.0, 1.0, 0.0])
    return np.array([x, y, z, wx / angle, wy / angle, wz / angle, angle])


def se3_from_pose7(x: Any) -> pin.SE3:
    """The transform of an iKin pose vector ``(x, y, z, ax, ay, az, θ)`` (axis need not be unit).

    Raises:
        InvalidValueError: not 7 finite values, or a zero axis with a non-zero angle.
    """
    vec = as_vector(x, 7, "pose")
    return pin.SE3(rotation_from_axis_angle(vec[3:6], float(vec[6]), "pose"), vec[:3].copy())


def rotation_from_axis_angle(axis: np.ndarray, angle: float, name: str) -> np.ndarray:
    """R = exp(θ a/‖a‖) for a finite axis (any norm) and angle [rad] (reduced modulo 2π first, so huge
    angles give a valid rotation). A zero axis is allowed only with θ = 0 (R = I).

    Raises:
        InvalidValueError: a zero axis with a non-zero angle.
    """
    ax, ay, az = axis.tolist()
    norm = math.hypot(ax, ay, az)
    if norm < 1e-12:
        if angle != 0.0:
            raise InvalidValueError(name, (7,), None, reason="zero rotation axis with a non-zero angle")
        return np.eye(3)
    rot: np.ndarray = pin.exp3(axis * (math.remainder(angle, _TWO_PI) / norm))
    return rot
