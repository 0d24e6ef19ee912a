"""Validated, cached targets of :meth:`~wbcpy.ik.MultiRefMinJerkCtrl.iterate`.

A controller usually receives the same pose target ``xd`` and joint target ``qd`` for many steps.
:class:`TargetCache` keeps the validated forms under the raw bytes of the input, so a repeated target
costs one byte comparison instead of a validation and a pose conversion; a changed value (also one
written in place into the same array) misses the cache and is validated again. Without ``qd`` the joint
target comes from the damped least-squares IK (:func:`~wbcpy.ik.dls.dls_ik`), cached per pose and
``ctrl_pose`` mode, with a bounded number of iterations per call.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import pinocchio as pin

from .._support.validation import as_vector
from .dls import DLSResult, dls_ik
from .pose_error import CtrlPose, parse_homogeneous, parse_target

if TYPE_CHECKING:
    from ..model.chain import Chain

__all__ = ["IK_MAX_ITER", "TargetCache", "finite_vector", "task_velocity"]

F64 = np.dtype(np.float64)
SHAPE7 = (7,)
#: default bound on the DLS iterations one ``iterate()`` without ``qd`` may spend on a new target
IK_MAX_ITER = 100
_IK_ITER_PER_START = 50
_IK_RESTARTS = 16

Target = tuple[np.ndarray, np.ndarray, np.ndarray, bytes]


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
        last_ik: the last :class:`~wbcpy.ik.DLSResult` (None before the first IK).
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
        self._ik_q = np.zeros(n)
        self._ik_q0 = np.zeros(n)  # the q the search for the current key started from
        self._ik_next = 0  # next start of an unfinished search for the current key (0: finished)
        self.last_ik: DLSResult | None = None

    def target(self, xd: Any) -> Target:
        """Validate xd; return (p_d, R_d, x7, x7 bytes), reusing the last conversion when xd is unchanged.

        The cache key is the raw bytes of the input (a float64 7-vector, or the SE3's 4×4 matrix: the two
        byte lengths differ), so an unchanged target costs one byte comparison.

        Raises:
            InvalidValueError: see :func:`~wbcpy.ik.pose_error.parse_target` (nothing is cached then).
        """
        t = type(xd)
        h = None
        if t is np.ndarray:
            if xd.dtype == F64 and xd.shape == SHAPE7 and xd.tobytes() == self.xd_key:
                return self.xd_val  # type: ignore[return-value]
        elif t is pin.SE3:
            h = xd.homogeneous  # (a new 4×4 array: the cache key and the parsed values come from it)
            hkey = h.tobytes()
            if hkey == self.xd_key:
                return self.xd_val  # type: ignore[return-value]
        p_d, R_d, x7 = parse_target(xd) if h is None else parse_homogeneous(h)
        key = x7.tobytes()
        val = (p_d, R_d, x7, key)
        # a pure cache: harmless if the call fails later
        self.xd_key = key if h is None else hkey
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

    def ik_target(self, x7: np.ndarray, key: bytes, q: np.ndarray, mode: CtrlPose) -> np.ndarray:
        """Joint target from DLS IK started at ``q``: the best solution found so far for this pose.

        A new pose (or mode) starts a search from ``q``; each call spends at most :attr:`ik_max_iter`
        iterations (50 per start). While the search has not succeeded, the next calls with the same pose
        resume it with the next starts (the same sequence as one unbounded :func:`dls_ik`), so the work
        per call stays bounded and a reachable pose is still found when the first starts fail.
        """
        ik_key = key + bytes([int(mode)])
        if ik_key == self._ik_key and not self._ik_next:
            return self._ik_q
        fresh = ik_key != self._ik_key
        if fresh:
            self._ik_q0 = q.copy()
        first = 0 if fresh else self._ik_next
        res = dls_ik(
            self.chain,
            x7,
            q0=self._ik_q0,
            ctrl_pose=mode,
            max_iter=_IK_ITER_PER_START,
            restarts=_IK_RESTARTS,
            budget=self.ik_max_iter,
            first_start=first,
        )
        last = self.last_ik
        if not fresh and last is not None and last.error <= res.error:  # keep the better of the two
            res = DLSResult(last.q, last.success, last.error, res.iterations, first + res.starts)
        else:
            res = DLSResult(res.q, res.success, res.error, res.iterations, first + res.starts)
        done = res.success or res.starts > _IK_RESTARTS
        self._ik_q, self._ik_key, self.last_ik = res.q, ik_key, res
        self._ik_next = 0 if done else res.starts
        return self._ik_q
