"""Validated, cached targets of :meth:`~wbcpy.ik.MultiRefMinJerkCtrl.iterate`.

A controller usually receives the same pose target ``xd`` and joint target ``qd`` for many steps.
:class:`TargetCache` keeps the validated forms under the raw bytes of the input, so a repeated target
costs one byte comparison instead of a validation and a pose conversion; a changed value (also one
written in place into the same array) misses the cache and is validated again. Without ``qd`` the joint
target comes from the controller's damped least-squares IK (:class:`~wbcpy.ik._warm_ik.WarmIK`: the
iterations of :func:`~wbcpy.ik.dls.dls_ik`, warm-started from the last answer, a bounded number per call),
cached per pose and ``ctrl_pose`` mode.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import pinocchio as pin

from .._support.validation import as_vector, check_homogeneous
from ._warm_ik import WarmIK
from .dls import DLSResult
from .pose_error import CtrlPose, parse_target

if TYPE_CHECKING:
    from ..model.chain import Chain

F64 = np.dtype(np.float64)
SHAPE7 = (7,)
#: default bound on the DLS iterations one ``iterate()`` without ``qd`` may spend on a new target
IK_MAX_ITER = 100
_IK_ITER_PER_START = 50
_IK_RESTARTS = 16
_MODE_BYTES = tuple(bytes([int(m)]) for m in CtrlPose)  # the mode's byte of an IK cache key

#: a validated pose target: (p_d, R_d, its 7-vector or None — not computed for a pin.SE3 —, its cache key)
Target = tuple[np.ndarray, np.ndarray, np.ndarray | None, bytes]


def finite_vector(x: Any, n: int, name: str) -> np.ndarray:
    """``as_vector(x, n, name)`` with a fast path for float64 arrays of shape (n,): a new finite array.

    x·x is finite exactly when every entry is (an overflow above ~1e154 is re-checked by ``as_vector``).

    Raises:
        InvalidValueError: wrong size, non-numeric or non-finite entries.
    """
    if type(x) is np.ndarray and x.dtype == F64 and x.shape == (n,):
        v = x.copy()
        if math.isfinite(v.dot(v)):
            return v
    return as_vector(x, n, name)


def task_velocity(xdot_set: Any) -> np.ndarray:
    """ẋ_T = (v, axis · angular speed) from a 7-vector (v_x, v_y, v_z, axis, angular speed), validated.

    Raises:
        InvalidValueError: not 7 finite numbers.
    """
    xs = finite_vector(xdot_set, 7, "xdot_set")
    return np.concatenate((xs[:3], xs[3:6] * xs[6]))


class TargetCache:
    """The last pose target, joint target and IK joint target of a controller, validated.

    Args:
        chain: the controller's chain (for the IK).
        n: its number of DOF.
        ik_max_iter: most DLS iterations spent per call on a new pose target (all starts together).

    Attributes:
        xd_key, xd_val: raw bytes of the last pose target and its ``(p_d, R_d, x7, x7 bytes)``.
        qd_key, qd_val: raw bytes of the last joint target and its validated copy (never written).
    """

    def __init__(self, chain: Chain, n: int, ik_max_iter: int = IK_MAX_ITER) -> None:
        self.chain = chain
        self.shape = (n,)
        self.n = n
        self.ik_max_iter = ik_max_iter
        self.xd_key: bytes | None = None
        self.xd_val: Target | None = None
        self.qd_key: bytes | None = None
        self.qd_val = np.zeros(n)
        self._ik_key: bytes | None = None
        self._ik = WarmIK(chain, iter_per_start=_IK_ITER_PER_START, restarts=_IK_RESTARTS)
        self._ik_used = 0
        self._last_ik: DLSResult | None = None

    def target(self, xd: Any) -> Target:
        """Validate xd; return its :data:`Target`, reusing the last one when xd is unchanged.

        The cache key is the raw bytes of the input (a float64 7-vector, or the SE3's 4×4 matrix: the two
        byte lengths differ), so an unchanged target costs one byte comparison. The 7-vector of an SE3
        target is not computed here (``None``; :func:`~wbcpy.model._poses.pose7` of p_d, R_d when needed).

        Raises:
            InvalidValueError: see :func:`~wbcpy.ik.pose_error.parse_target` (nothing is cached then).
        """
        t = type(xd)
        if t is pin.SE3:
            h = xd.homogeneous  # (a new 4×4 array: the cache key and the parsed values come from it)
            key = h.tobytes()
            if key == self.xd_key:
                return self.xd_val  # type: ignore[return-value]
            check_homogeneous(h, "xd")
            val: Target = (h[:3, 3].copy(), h[:3, :3].copy(), None, key)
        else:
            if t is np.ndarray and xd.dtype == F64 and xd.shape == SHAPE7 and xd.tobytes() == self.xd_key:
                return self.xd_val  # type: ignore[return-value]
            p_d, R_d, x7 = parse_target(xd)
            key = x7.tobytes()
            val = (p_d, R_d, x7, key)
        # a pure cache: harmless if the call fails later
        self.xd_key = key
        self.xd_val = val
        return val

    def joint_target(self, qd: Any) -> np.ndarray:
        """Validate qd (n,) and return it as a new array, reusing the last one when the values repeat."""
        if type(qd) is np.ndarray and qd.dtype == F64 and qd.shape == self.shape:
            key = qd.tobytes()
            if key == self.qd_key:
                return self.qd_val
            q_set = finite_vector(qd, self.n, "qd")
        else:
            q_set = as_vector(qd, self.n, "qd")
            key = q_set.tobytes()
        self.qd_key, self.qd_val = key, q_set  # never written in place: safe to hand out
        return q_set

    def ik_target(
        self, key: bytes, p_d: np.ndarray, R_d: np.ndarray, q: np.ndarray, mode: CtrlPose
    ) -> np.ndarray:
        """Joint target from the controller's IK (:class:`~wbcpy.ik._warm_ik.WarmIK`): the best answer so
        far for the pose (``p_d``, ``R_d``) whose target bytes are ``key``, in ``mode``.

        A new pose (or mode) begins a search warm from the last answer (from ``q`` the first time and after
        :meth:`go_cold`); each call spends at most :attr:`ik_max_iter` iterations, and while the search is
        unfinished the next calls with the same pose continue it (50 iterations per start, then the next
        starts). A finished search is cached: the same pose then costs a byte comparison.
        """
        ik_key = key + _MODE_BYTES[mode]
        ik = self._ik
        if ik_key != self._ik_key:
            self._ik_used = ik.solve(p_d, R_d, mode, q, self.ik_max_iter)
            self._ik_key = ik_key
        elif ik.finished:
            return ik.best_q
        else:
            self._ik_used = ik.run(self.ik_max_iter)
        self._last_ik = None  # (built when read)
        return ik.best_q

    def go_cold(self) -> None:
        """The controller's q was reset: the next new pose is solved from that q, not the last answer."""
        self._ik.go_cold()

    @property
    def last_ik(self) -> DLSResult | None:
        """The outcome of the last IK call that ran (None before the first); ``iterations`` are that
        call's, ``starts`` those of its pose's search so far."""
        if self._last_ik is None and self._ik_key is not None:
            ik = self._ik
            self._last_ik = DLSResult(ik.best_q, ik.best_err < ik.tol, ik.best_err, self._ik_used, ik.starts)
        return self._last_ik
