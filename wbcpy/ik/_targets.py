"""Validated, cached targets of :meth:`~wbcpy.ik.MultiRefMinJerkCtrl.iterate` (a mixin).

A controller usually receives the same pose target ``xd`` and joint target ``qd`` for many steps. The
validated forms are cached under the raw bytes of the input, so a repeated target costs one byte
comparison instead of a validation and a pose conversion; a changed value (also one written in place into
the same array) misses the cache and is validated again. Without ``qd`` the joint target comes from the
damped least-squares IK, cached per pose and ``ctrl_pose`` mode.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import pinocchio as pin

from .._validation import as_vector
from .dls import DLSResult, dls_ik
from .pose_error import CtrlPose, parse_target

if TYPE_CHECKING:
    from ..chain import Chain

__all__ = ["TargetInputs", "finite_vector"]

_F64 = np.dtype(np.float64)
_SHAPE7 = (7,)


def finite_vector(x: Any, n: int, name: str) -> np.ndarray:
    """``as_vector(x, n, name)`` with a fast path for float64 arrays of shape (n,): a new finite array.

    x·x is finite exactly when every entry is (an overflow above ~1e154 is re-checked by ``as_vector``).

    Raises:
        InvalidValueError: wrong size, non-numeric or non-finite entries.
    """
    if type(x) is np.ndarray and x.dtype == _F64 and x.shape == (n,):
        v = x.copy()
        if math.isfinite(v.dot(v)):
            return v
    return as_vector(x, n, name)


class TargetInputs:
    """Mixin: ``_target`` (pose), ``_joint_target`` (qd) and ``_ik_target`` (DLS) with their caches.

    Attributes:
        last_ik: the last :class:`~wbcpy.ik.DLSResult` computed for a missing ``qd`` (None before).
    """

    _chain: Chain
    _mode: CtrlPose
    _n: int
    _q: np.ndarray

    def _init_targets(self) -> None:
        n = self._n
        self._shape = (n,)
        # the last target: input bytes → (p_d, R_d, x7, x7 bytes); the last joint target: bytes → copy
        self._xd_key: bytes | None = None
        self._xd_val: tuple[np.ndarray, np.ndarray, np.ndarray, bytes] | None = None
        self._qd_key: bytes | None = None
        self._qd_val = np.zeros(n)
        # the DLS joint target for the last pose and mode
        self._ik_key: bytes | None = None
        self._ik_q = np.zeros(n)
        self.last_ik: DLSResult | None = None

    def _target(self, xd: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, bytes]:
        """Validate xd; return (p_d, R_d, x7, x7 bytes), reusing the last conversion when xd is unchanged.

        The cache key is the raw bytes of the input (a float64 7-vector, or the SE3's 4×4 matrix: the two
        byte lengths differ), so an unchanged target costs one byte comparison.
        """
        t = type(xd)
        if t is np.ndarray:
            if xd.dtype == _F64 and xd.shape == _SHAPE7 and xd.tobytes() == self._xd_key:
                return self._xd_val  # type: ignore[return-value]
        elif t is pin.SE3 and xd.homogeneous.tobytes() == self._xd_key:
            return self._xd_val  # type: ignore[return-value]
        p_d, R_d, x7 = parse_target(xd)
        key = x7.tobytes()
        val = (p_d, R_d, x7, key)
        # a pure cache: harmless if the call fails later
        self._xd_key = xd.homogeneous.tobytes() if isinstance(xd, pin.SE3) else key
        self._xd_val = val
        return val

    def _joint_target(self, qd: Any) -> np.ndarray:
        """Validate qd (n,) and return it as a new array, reusing the last one when the values repeat."""
        if type(qd) is np.ndarray and qd.dtype == _F64 and qd.shape == self._shape:
            key = qd.tobytes()
            if key == self._qd_key:
                return self._qd_val
            q_set = finite_vector(qd, self._n, "qd")
        else:
            q_set = as_vector(qd, self._n, "qd")
            key = q_set.tobytes()
        self._qd_key, self._qd_val = key, q_set  # never written in place: safe to hand out
        return q_set

    def _ik_target(self, x7: np.ndarray, key: bytes) -> np.ndarray:
        """Joint target from DLS IK, recomputed only when the pose (or the mode) changed."""
        ik_key = key + bytes([int(self._mode)])
        if ik_key != self._ik_key:
            res = dls_ik(self._chain, x7, q0=self._q, ctrl_pose=self._mode)
            self._ik_q, self._ik_key, self.last_ik = res.q, ik_key, res
        return self._ik_q
