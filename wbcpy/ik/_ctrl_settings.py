"""Settings and state accessors of :class:`~wbcpy.ik.MultiRefMinJerkCtrl` (a mixin, kept apart so the
controller's file holds the control loop): γ, guard ratio, exec time, in-target tolerance, watchdog,
the state getters, and iKin's camelCase aliases; plus :class:`CtrlState`."""

from __future__ import annotations

import math
import warnings
from enum import IntEnum
from typing import TYPE_CHECKING, Any

import numpy as np
import pinocchio as pin

from ..chain import pose7_from_se3
from ..errors import InvalidValueError
from .blend import GuardBands
from .pose_error import CtrlPose, as_ctrl_pose

if TYPE_CHECKING:
    from ..chain import Chain

__all__ = ["ControllerSettings", "CtrlState"]


class CtrlState(IntEnum):
    """Controller state (iKin ``IKINCTRL_STATE_*``)."""

    RUNNING = 0
    INTARGET = 1
    DEADLOCK = 2


def _finite(value: Any, name: str, minimum: float | None = None, strict: bool = False) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InvalidValueError(name, "a finite number", value, reason=f"not a number: {value!r}") from None
    if not math.isfinite(v):
        raise InvalidValueError(name, "a finite number", v, reason=f"must be finite, got {v}")
    if minimum is not None and (v < minimum or (strict and v == minimum)):
        op = ">" if strict else ">="
        raise InvalidValueError(name, f"{op} {minimum}", v, reason=f"must be {op} {minimum}, got {v}")
    return v


class ControllerSettings:
    """Mixin: the controller's tunable settings and state getters (attributes set by the controller)."""

    algo_name: str
    _gamma: float
    _exec_time: float
    _guard: GuardBands
    _chain: Chain
    _ts: float
    _n: int
    _mode: CtrlPose
    _state: CtrlState
    _iter: int
    _q: np.ndarray
    _q_interior: bool | None
    _x: np.ndarray
    _x_stale: bool
    _e: np.ndarray
    _qdot: np.ndarray
    _xdot: np.ndarray | None
    _J: np.ndarray
    _q_set: np.ndarray
    _x_set: np.ndarray

    def _init_settings(self) -> None:
        self._in_target_tol = 5e-3
        self._watchdog_on = False
        self._watchdog_tol = 1e-4
        self._watchdog_max_iter = 200
        self._watchdog_cnt = 0

    # ------------------------------------------------------------------ gains
    def get_gamma(self) -> float:
        """Weight γ of the task-space controller inside the joint ranges."""
        return self._gamma

    def set_gamma(self, gamma: Any) -> None:
        """Set γ (finite, ≥ 0); 0 gives pure joint-space motion.

        Raises:
            InvalidValueError: negative or non-finite γ (nothing changes).
        """
        self._gamma = _finite(gamma, "gamma", 0.0)

    def get_guard_ratio(self) -> float:
        """Fraction of each joint range taken by the guard bands."""
        return self._guard.ratio

    def set_guard_ratio(self, ratio: Any) -> None:
        """Set the guard ratio, clamped to [0, 1], and recompute the bands.

        Raises:
            InvalidValueError: non-finite ratio (nothing changes).
        """
        self._guard.set_ratio(_finite(ratio, "guard_ratio"))
        self._q_interior = None  # the interior bands moved

    def get_exec_time(self) -> float:
        """Execution time T [s] (90 % of a step at t = T)."""
        return self._exec_time

    # ------------------------------------------------------------------ target detection and watchdog
    def get_in_target_tol(self) -> float:
        """In-target tolerance on ‖e‖ (m and rad mixed)."""
        return self._in_target_tol

    def set_in_target_tol(self, tol: Any) -> None:
        """Set the in-target tolerance (> 0)."""
        self._in_target_tol = _finite(tol, "tol", 0.0, strict=True)

    def switch_watchdog(self, on: bool) -> None:
        """Turn the deadlock watchdog on or off (off by default)."""
        self._watchdog_on = bool(on)

    def is_watchdog_on(self) -> bool:
        """True when the watchdog runs."""
        return self._watchdog_on

    def get_watchdog_tol(self) -> float:
        """Joint-step norm below which an iteration counts as stalled."""
        return self._watchdog_tol

    def set_watchdog_tol(self, tol: Any) -> None:
        """Set the watchdog tolerance (≥ 0)."""
        self._watchdog_tol = _finite(tol, "watchdog_tol", 0.0)

    def get_watchdog_max_iter(self) -> int:
        """Stalled iterations before DEADLOCK."""
        return self._watchdog_max_iter

    def set_watchdog_max_iter(self, max_iter: Any) -> None:
        """Set the number of stalled iterations before DEADLOCK (integer ≥ 1)."""
        if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
            raise InvalidValueError(
                "max_iter", "an integer >= 1", max_iter, reason=f"must be an integer >= 1, got {max_iter!r}"
            )
        self._watchdog_max_iter = int(max_iter)

    # ------------------------------------------------------------------ state getters
    def get_q(self) -> np.ndarray:
        """Joint angles q (n,) [rad or m]."""
        return self._q.copy()

    def get_x(self) -> np.ndarray:
        """Tip pose x = FK(q) as iKin's 7-vector (x, y, z, axis, angle)."""
        if self._x_stale:
            M = self._chain.fk(self._q)
            self._x = pose7_from_se3(M)
            self._x_stale = False
        return self._x.copy()

    def get_pose(self) -> pin.SE3:
        """Tip pose FK(q) as a ``pin.SE3`` in the chain's base frame."""
        return self._chain.fk(self._q)

    def get_e(self) -> np.ndarray:
        """Pose error e (6,) of the last iterate (position over θ·axis; 0 before the first)."""
        return self._e.copy()

    def get_qdot(self) -> np.ndarray:
        """Blended joint velocity q̇ (n,) of the last iterate."""
        return self._qdot.copy()

    def get_xdot(self) -> np.ndarray:
        """Task velocity ẋ = J q̇ (6,) of the last iterate."""
        xdot = self._xdot
        if xdot is None:  # computed on first read after an iterate
            xdot = self._xdot = self._J.dot(self._qdot)
        return xdot.copy()

    def get_jacobian(self) -> np.ndarray:
        """Tip Jacobian J (6, n), base axes, at the q of the last iterate (at q0 before the first)."""
        return self._J.copy()

    def get_q_set(self) -> np.ndarray:
        """Joint target q_d of the last iterate (zeros before the first)."""
        return self._q_set.copy()

    def get_x_set(self) -> np.ndarray:
        """Pose target x_d (7-vector) of the last iterate (x0 before the first)."""
        return self._x_set.copy()

    def get_dim(self) -> int:
        """Number of DOF n."""
        return self._n

    def get_iter(self) -> int:
        """Iterations since construction or :meth:`restart` (DEADLOCK steps do not count)."""
        return self._iter

    def get_state(self) -> CtrlState:
        """RUNNING, INTARGET or DEADLOCK."""
        return self._state

    def dist(self) -> float:
        """‖e‖ of the last iterate."""
        return math.sqrt(float(self._e @ self._e))

    def is_in_target(self) -> bool:
        """True when the state is INTARGET."""
        return self._state == CtrlState.INTARGET

    def get_ctrl_pose(self) -> CtrlPose:
        """The tracked part of the pose (FULL, XYZ or ANG)."""
        return self._mode

    def set_ctrl_pose(self, ctrl_pose: Any) -> None:
        """Change the tracked part of the pose (the filters keep their state)."""
        self._mode = as_ctrl_pose(ctrl_pose)

    @property
    def chain(self) -> Chain:
        """The controlled chain."""
        return self._chain

    @property
    def Ts(self) -> float:
        """Sample time [s]."""
        return self._ts

    def get_algo_name(self) -> str:
        """Return :attr:`algo_name`."""
        return self.algo_name

    def set_exec_time(self, T: Any, warn: bool = False) -> float:
        """Set the execution time T [s], clamped to at least 10·Ts; returns the value used.

        The filters keep their state (their coefficients change at the next iterate).

        Args:
            T: execution time [s] (finite).
            warn: emit a ``UserWarning`` when T was clamped.

        Raises:
            InvalidValueError: non-numeric or non-finite T (nothing changes).
        """
        try:
            t = float(T)
        except (TypeError, ValueError):
            raise InvalidValueError("T", "a finite number", T, reason=f"not a number: {T!r}") from None
        if not math.isfinite(t):
            raise InvalidValueError("T", "a finite number", t, reason=f"must be finite, got {t}")
        lower = 10.0 * self._ts
        if t < lower:
            if warn:
                warnings.warn(f"exec time {t} s below 10*Ts; clamped to {lower} s", UserWarning, stacklevel=2)
            t = lower
        self._exec_time = t
        return t

    # iKin camelCase aliases
    get_J = get_jacobian  #: alias of :meth:`get_jacobian` (iKin name)
    isInTarget = is_in_target  #: alias of :meth:`is_in_target`
    set_execTime = set_exec_time  #: alias of :meth:`set_exec_time`
    get_ctrlPose = get_ctrl_pose  #: alias of :meth:`get_ctrl_pose`
    set_ctrlPose = set_ctrl_pose  #: alias of :meth:`set_ctrl_pose`
    getAlgoName = get_algo_name  #: alias of :meth:`get_algo_name`
    get_guardRatio = get_guard_ratio  #: alias of :meth:`get_guard_ratio`
    set_guardRatio = set_guard_ratio  #: alias of :meth:`set_guard_ratio`
    get_execTime = get_exec_time  #: alias of :meth:`get_exec_time`
    getInTargetTol = get_in_target_tol  #: alias of :meth:`get_in_target_tol`
    setInTargetTol = set_in_target_tol  #: alias of :meth:`set_in_target_tol`
    switchWatchDog = switch_watchdog  #: alias of :meth:`switch_watchdog`
    getWatchDogTol = get_watchdog_tol  #: alias of :meth:`get_watchdog_tol`
    setWatchDogTol = set_watchdog_tol  #: alias of :meth:`set_watchdog_tol`
    getWatchDogMaxIter = get_watchdog_max_iter  #: alias of :meth:`get_watchdog_max_iter`
    setWatchDogMaxIter = set_watchdog_max_iter  #: alias of :meth:`set_watchdog_max_iter`
