"""Multi-referential minimum-jerk Cartesian controller (iCub ``iKin::MultiRefMinJerkCtrl``).

Pattacini et al., IROS 2010: a joint-space and a task-space min-jerk velocity controller run side by side
and their commands are blended, q̇ = q̇_J + W Jᵀ (I₆ + J W Jᵀ)⁻¹ (ẋ_T − J q̇_J), with W = γ inside the joint
ranges fading to 0 near the limits; q̇ is integrated with saturation (the maths: :mod:`wbcpy.ik._reach_loop`
and :mod:`wbcpy.ik.blend`). The controller is composed of a :class:`~wbcpy.ik._targets.TargetCache`
(validated, cached targets and the bounded IK), a :class:`~wbcpy.ik._reach_loop.ReachLoop` (numeric
state and step) and a :class:`~wbcpy.ik._ctrl_state.TargetWatch` (state machine and watchdog).

Cost per :meth:`~MultiRefMinJerkCtrl.iterate` (against the raw Pinocchio FK + Jacobian:
``benchmarks/bench_ik.py``): inputs validated once and cached by value; one
``chain.fk_jacobian_unchecked`` call; both min-jerk loops in one filter step; with W = γI the blend is four
direct BLAS/LAPACK calls. Without ``qd``, a target that moves a little per step adds one IK iteration
(one more Pinocchio pass, the rest compiled: :mod:`wbcpy.ik._warm_ik`); ``benchmarks/bench_loop.py``
times both next to pink.
"""

from __future__ import annotations

import copy as _copy
import math
import operator
from typing import TYPE_CHECKING, Any

import numpy as np
import pinocchio as pin

from .._support.exclusive import (
    clone,
    exclusive,
    guarded_getter,
    guarded_method,
    restore_fields,
    snapshot_fields,
)
from .._support.validation import as_bool, as_float, as_int, as_vector
from ..errors import ConcurrentUseError, ConfigError
from ..model._poses import pose7
from ._ctrl_state import CtrlState, TargetWatch
from ._minjerk_loops import MinJerkLoops
from ._reach_loop import ReachLoop
from ._targets import F64, IK_MAX_ITER, SHAPE7, Target, TargetCache, task_velocity
from .pose_error import as_ctrl_pose

if TYPE_CHECKING:
    from ..model.chain import Chain
    from .dls import DLSResult

_RUNNING, _INTARGET, _DEADLOCK = CtrlState.RUNNING, CtrlState.INTARGET, CtrlState.DEADLOCK


def _watch_member(name: str) -> property:
    """A controller member that is the :class:`TargetWatch` method ``name`` (same docstring)."""
    return property(operator.attrgetter(f"_watch.{name}"), doc=getattr(TargetWatch, name).__doc__)


class MultiRefMinJerkCtrl:
    """Minimum-jerk reaching that blends a joint-space and a task-space controller (iKin semantics).

    Args:
        chain: the serial chain to control (angles in chain order, poses in the chain's base frame).
        ctrl_pose: ``CtrlPose.FULL`` (position + orientation), ``XYZ`` or ``ANG``; also 0/1/2 or the
            strings "full"/"xyz"/"ang".
        Ts: sample time [s], > 0.
        non_ideal_plant: use the joint controller that compensates a non-ideal plant (see
            :meth:`set_plant_parameters`).
        q0: initial angles (n,), clipped to the limits; default the chain's rest configuration.
        ik_max_iter: most damped least-squares iterations one :meth:`iterate` without ``qd`` spends
            (default 100).

    Initial state: q = q0, x = FK(q0), e = 0, q̇ = 0, ẋ = 0, W = I, T = 1 s, γ = 0.05, guard ratio 0.1,
    RUNNING, iteration 0, watchdog off, in-target tolerance 5e-3, watchdog tolerance 1e-4 and 200 iterations.

    The joint target ``qd`` of :meth:`iterate` is optional: without it the controller runs the damped
    least-squares IK of :func:`~wbcpy.ik.dls.dls_ik` on the same chain for ``xd`` (tol 1e-8; the last
    result is :attr:`last_ik`), **warm-started from its last answer** (the first target, and the first
    after :meth:`set_q` or :meth:`restart`, from the current q) and **bounded per call**: a call spends at
    most ``ik_max_iter`` iterations (50 per start, then restarts) and ends once ‖e‖ < √tol = 1e-4 after
    one iteration at least; while ‖e‖ ≥ 1e-8 the next call with the same ``xd`` continues the search, and
    a finished search is cached until ``xd`` changes. So a target that moves a few millimetres per step
    costs one iteration (one Pinocchio pass) per call and its joint target is within ~1e-6 of the exact
    IK answer; a target that stops is solved to 1e-8 one call later; a new distant target takes a few
    iterations on its first call; an unreachable one costs at most ``ik_max_iter`` iterations per call.

    This differs from iKin, where the IK solver runs in a thread of its own and hands ``qd`` to the
    controller when a solution is ready (the controller keeps the previous ``qd`` meanwhile): here the IK
    runs inside :meth:`iterate`, on the caller's thread, a bounded slice per step, and the joint loop always
    gets the best answer found so far. ``iterate(xd, qd)`` runs no IK.

    **Threads.** A controller serves one thread at a time: a call made while another thread is inside
    any of its methods raises :class:`~wbcpy.errors.ConcurrentUseError` and changes nothing (the running
    call is not disturbed). **Copies** (``copy.copy``, ``copy.deepcopy``) and pickles are independent
    controllers in the same state; ``copy.copy`` shares the chain (chains are safe to share).

    Example::

        chain = wbcpy.load_robot("lwr4").chain("lwr_base_link", "lwr_ee")
        ctrl = MultiRefMinJerkCtrl(chain, "full", Ts=0.01)
        while not ctrl.is_in_target():
            q = ctrl.iterate(target_se3)   # send q (or get_qdot()) to the robot

    Raises:
        InvalidValueError: bad ``Ts``, ``q0``, ``non_ideal_plant`` or ``ik_max_iter``; an unknown
            ``ctrl_pose`` (UnknownNameError).
        ConfigError: a chain without DOF.
    """

    def __init__(
        self,
        chain: Chain,
        ctrl_pose: Any,
        Ts: float,
        non_ideal_plant: bool = False,
        q0: Any = None,
        ik_max_iter: int = IK_MAX_ITER,
    ) -> None:
        mode = as_ctrl_pose(ctrl_pose)
        ts = as_float(Ts, "Ts", minimum=0.0, strict=True)
        non_ideal = as_bool(non_ideal_plant, "non_ideal_plant")
        ik_iter = as_int(ik_max_iter, "ik_max_iter", minimum=1)
        n = int(chain.n)
        if n < 1:
            raise ConfigError("chain", f"chain {getattr(chain, 'name', '?')!r} has no degree of freedom")
        lower, upper = np.asarray(chain.lower), np.asarray(chain.upper)
        q_init = np.array(chain.rest)[np.asarray(chain.dof_indices)] if q0 is None else as_vector(q0, n, "q0")
        self._idle: list[None] = [None]  # one thread at a time (wbcpy._support.exclusive)
        self._chain = chain
        self._n = n
        self._ts = ts
        self._loop = ReachLoop(chain, np.clip(q_init, lower, upper), ts, mode, non_ideal)
        self._q_set = np.zeros(n)
        self._xd: Target = (
            np.zeros(3),
            np.eye(3),
            self._loop.x(),
            b"",
        )  # the pose target (x0 before the first)
        self._watch = TargetWatch()
        self._targets = TargetCache(chain, n, ik_iter)

    # ------------------------------------------------------------------ main loop
    def iterate(self, xd: Any, qd: Any = None, xdot_set: Any = None) -> np.ndarray:
        """Run one control step and return the new joint angles q (a new (n,) array).

        Args:
            xd: target pose in the chain's base frame: a ``pin.SE3`` (with a proper rotation) or iKin's
                7-vector (x, y, z, axis, angle).
            qd: joint target (n,) that should satisfy FK(qd) = xd; it drives only the joint-space loop.
                When omitted it comes from the damped least-squares IK in this controller's
                ``ctrl_pose`` mode, warm-started from its last answer and bounded per call (at most
                ``ik_max_iter`` iterations; see the class docstring), cached once converged: the IK runs
                again only when ``xd`` (or the mode) changes or its search is unfinished. The result is
                kept in :attr:`last_ik`.
            xdot_set: optional task velocity 7-vector (v_x, v_y, v_z, axis, angular speed); when given
                it replaces the task filter's output for this step.

        Steps (spec §4): e = (p_d − p, log₃(R_d Rᵀ)) masked by ``ctrl_pose``; q̇_J = joint filter(T,
        q_d − q + compensation); ẋ_T = task filter(T, e) (or ``xdot_set``); W from q; blended q̇;
        ẋ = J q̇; q = saturating integrator(q̇); then the state machine on ‖e‖ (RUNNING → INTARGET when
        ‖e‖ < tol, so in-target shows one step late; watchdog → DEADLOCK, which freezes q, x and e).
        The compensation set by :meth:`add_compensation` is cleared.

        Raises:
            InvalidValueError: wrong size, non-finite or non-rotation ``xd``/``qd``/``xdot_set``
                (nothing changes).
            ConcurrentUseError: another thread is using this controller (nothing changes).
        """
        idle = self._idle
        try:
            idle.pop()  # the one-thread-at-a-time token (see wbcpy._support.exclusive)
        except IndexError:
            raise ConcurrentUseError("MultiRefMinJerkCtrl", "iterate") from None
        try:
            # validate every input before mutating anything (repeated xd / qd cost a byte comparison)
            tc = self._targets
            if (
                type(xd) is np.ndarray
                and xd.dtype is F64
                and xd.shape == SHAPE7
                and xd.tobytes() == tc.xd_key
            ):
                xd_val: Target = tc.xd_val  # type: ignore[assignment]
            else:
                xd_val = tc.target(xd)
            p_d, R_d, _, key = xd_val
            xdot_t = None if xdot_set is None else task_velocity(xdot_set)
            loop = self._loop
            q_set = self._joint_set_point(qd, p_d, R_d, key)
            # everything is validated: mutate from here on
            self._xd = xd_val  # (its 7-vector is computed when read)
            self._q_set = q_set
            watch = self._watch
            e = loop.e
            state = watch.state
            if state is _DEADLOCK:  # q, x and e are frozen: only the state machine runs
                loop.comp[:] = 0.0
                loop.comp_pending = False
                watch.update(math.sqrt(e.dot(e)), _norm(loop.q - loop.q_old))
                return loop.q.copy()
            q_old = loop.q
            q = loop.step(p_d, R_d, q_set, xdot_t)
            dist = math.sqrt(e.dot(e))
            # watch.update for RUNNING and INTARGET, inlined (spec step 10): in target (reached or
            # kept) → INTARGET; leaving it → RUNNING; both reset the counter; else the watchdog, if on
            if dist < watch.in_target_tol:
                watch.state = _INTARGET
                watch.count = 0
            elif state is _INTARGET:
                watch.state = _RUNNING
                watch.count = 0
            elif watch.watchdog_on:
                watch.update(dist, _norm(q - q_old))
            return q.copy()
        finally:
            idle.append(None)

    def _joint_set_point(self, qd: Any, p_d: np.ndarray, R_d: np.ndarray, key: bytes) -> np.ndarray:
        """The joint-space loop's target: ``qd`` validated (a repeated array costs a byte comparison), or
        the IK's answer for the task target (``p_d``, ``R_d``; bytes ``key``) when ``qd`` is omitted."""
        tc, loop = self._targets, self._loop
        if qd is None:
            return tc.ik_target(key, p_d, R_d, loop.q, loop.mode)
        if type(qd) is np.ndarray and qd.dtype is F64 and qd.shape == tc.shape and qd.tobytes() == tc.qd_key:
            return tc.qd_val
        return tc.joint_target(qd)

    # ------------------------------------------------------------------ resets
    @exclusive
    def set_q(self, q0: Any) -> np.ndarray:
        """Set the joint angles (clamped to the limits), recompute x = FK(q) and reset the integrator.

        The filters keep their state. Returns the clamped q (a new array).

        Raises:
            InvalidValueError: wrong size or non-finite ``q0`` (nothing changes).
        """
        loop = self._loop
        q: np.ndarray = np.clip(as_vector(q0, self._n, "q0"), loop.lower, loop.upper)
        loop.set_q(q)
        self._targets.go_cold()
        return q.copy()

    @exclusive
    def restart(self, q0: Any = None) -> None:
        """Restart from ``q0`` (default: the current q): state RUNNING, iteration 0, :meth:`set_q`,
        q̇ = ẋ = 0 and both filters reset to zero state.

        The watchdog counter, q_old, e and a pending compensation are kept (as in iKin).

        Raises:
            InvalidValueError: wrong size or non-finite ``q0`` (nothing changes).
        """
        loop = self._loop
        q = loop.q if q0 is None else as_vector(q0, self._n, "q0")
        loop.set_q(np.clip(q, loop.lower, loop.upper))
        self._targets.go_cold()
        self._watch.state = _RUNNING
        loop.iter = 0
        loop.qdot = np.zeros(self._n)
        loop.xdot = np.zeros(6)
        loop.loops.reset()

    @exclusive
    def add_compensation(self, comp: Any) -> None:
        """Add ``comp`` (n,) to the joint-loop error of the next :meth:`iterate` only.

        A second call before that iterate replaces the pending compensation (as iKin does).
        """
        self._loop.comp[:] = as_vector(comp, self._n, "comp")
        self._loop.comp_pending = True

    # ------------------------------------------------------------------ settings (see ReachLoop)
    get_gamma = guarded_getter(
        "_loop.gamma", "Weight γ of the task-space loop inside the joint ranges.", False
    )
    set_gamma = guarded_method("_loop.set_gamma", ReachLoop.set_gamma)
    get_guard_ratio = guarded_getter(
        "_loop.guard.ratio", "Fraction of each joint range in guard bands.", False
    )
    set_guard_ratio = guarded_method("_loop.set_guard_ratio", ReachLoop.set_guard_ratio)
    get_exec_time = guarded_getter(
        "_loop.exec_time", "Execution time T [s] (90 % of a step at t = T).", False
    )
    set_exec_time = guarded_method("_loop.set_exec_time", ReachLoop.set_exec_time)
    get_ctrl_pose = guarded_getter("_loop.mode", "The tracked part of the pose (FULL, XYZ or ANG).", False)
    set_ctrl_pose = guarded_method("_loop.set_ctrl_pose", ReachLoop.set_ctrl_pose)
    set_plant_parameters = guarded_method("_loop.set_plant_parameters", ReachLoop.set_plant_parameters)
    get_plant_parameters = guarded_method(
        "_loop.loops.get_plant_parameters", MinJerkLoops.get_plant_parameters
    )
    compute_weight = guarded_method("_loop.compute_weight", ReachLoop.compute_weight)
    get_weights = guarded_method("_loop.get_weights", ReachLoop.get_weights)

    @property
    def non_ideal_plant(self) -> bool:
        """True when the joint loop uses the non-ideal-plant controller."""
        return self._loop.loops.non_ideal

    # ------------------------------------------------------------------ state
    get_q = guarded_getter("_loop.q", "Joint angles q (n,) [rad or m].")
    get_e = guarded_getter(
        "_loop.e", "Pose error e (6,) of the last iterate (position over θ·axis; 0 before the first)."
    )
    get_qdot = guarded_getter("_loop.qdot", "Blended joint velocity q̇ (n,) of the last iterate.")
    get_jacobian = guarded_getter(
        "_loop.J", "Tip Jacobian J (6, n), base axes, at the q of the last iterate."
    )
    get_q_set = guarded_getter("_q_set", "Joint target q_d of the last iterate (zeros before the first).")

    @exclusive
    def get_x_set(self) -> np.ndarray:
        """Pose target x_d (7-vector) of the last iterate (x0 before the first)."""
        p_d, R_d, x7, _ = self._xd
        return pose7(p_d, R_d) if x7 is None else x7.copy()

    get_dim = guarded_getter("_n", "Number of DOF n.", False)
    get_iter = guarded_getter(
        "_loop.iter", "Iterations since construction or restart (not DEADLOCK steps).", False
    )
    get_state = guarded_getter("_watch.state", "RUNNING, INTARGET or DEADLOCK.", False)

    get_x = guarded_method("_loop.x", ReachLoop.x)

    @exclusive
    def get_pose(self) -> pin.SE3:
        """Tip pose FK(q) as a ``pin.SE3`` in the chain's base frame."""
        return self._chain.fk(self._loop.q)

    get_xdot = guarded_method("_loop.get_xdot", ReachLoop.get_xdot)

    @exclusive
    def dist(self) -> float:
        """‖e‖ of the last iterate."""
        return _norm(self._loop.e)

    @exclusive
    def is_in_target(self) -> bool:
        """True when the state is INTARGET."""
        return self._watch.state is _INTARGET

    @property
    def chain(self) -> Chain:
        """The controlled chain."""
        return self._chain

    @property
    def Ts(self) -> float:
        """Sample time [s]."""
        return self._ts

    algo_name = "multi-referential-minimum-jerk-controllers"

    def get_algo_name(self) -> str:
        """Return :attr:`algo_name`."""
        return self.algo_name

    @property
    def last_ik(self) -> DLSResult | None:
        """The last :class:`~wbcpy.ik.DLSResult` computed for a missing ``qd`` (None before)."""
        return self._targets.last_ik

    # ------------------------------------------------------------------ target detection and watchdog
    get_in_target_tol = _watch_member("get_in_target_tol")
    set_in_target_tol = _watch_member("set_in_target_tol")
    switch_watchdog = _watch_member("switch_watchdog")
    is_watchdog_on = _watch_member("is_watchdog_on")
    get_watchdog_tol = _watch_member("get_watchdog_tol")
    set_watchdog_tol = _watch_member("set_watchdog_tol")
    get_watchdog_max_iter = _watch_member("get_watchdog_max_iter")
    set_watchdog_max_iter = _watch_member("set_watchdog_max_iter")
    # iKin camelCase aliases
    get_J = get_jacobian  #: alias of :meth:`get_jacobian` (iKin name)
    isInTarget = is_in_target  #: alias of :meth:`is_in_target`
    set_execTime = set_exec_time  #: alias of :meth:`set_exec_time`
    get_execTime = get_exec_time  #: alias of :meth:`get_exec_time`
    get_ctrlPose = get_ctrl_pose  #: alias of :meth:`get_ctrl_pose`
    set_ctrlPose = set_ctrl_pose  #: alias of :meth:`set_ctrl_pose`
    getAlgoName = get_algo_name  #: alias of :meth:`get_algo_name`
    get_guardRatio = get_guard_ratio  #: alias of :meth:`get_guard_ratio`
    set_guardRatio = set_guard_ratio  #: alias of :meth:`set_guard_ratio`
    setPlantParameters = set_plant_parameters  #: alias of :meth:`set_plant_parameters`
    getPlantParameters = get_plant_parameters  #: alias of :meth:`get_plant_parameters`
    computeWeight = compute_weight  #: alias of :meth:`compute_weight`
    getInTargetTol = get_in_target_tol  #: alias of :meth:`get_in_target_tol`
    setInTargetTol = set_in_target_tol  #: alias of :meth:`set_in_target_tol`
    switchWatchDog = switch_watchdog  #: alias of :meth:`switch_watchdog`
    getWatchDogTol = get_watchdog_tol  #: alias of :meth:`get_watchdog_tol`
    setWatchDogTol = set_watchdog_tol  #: alias of :meth:`set_watchdog_tol`
    getWatchDogMaxIter = get_watchdog_max_iter  #: alias of :meth:`get_watchdog_max_iter`
    setWatchDogMaxIter = set_watchdog_max_iter  #: alias of :meth:`set_watchdog_max_iter`

    # ------------------------------------------------------------------ copies and pickles
    @exclusive
    def __copy__(self) -> MultiRefMinJerkCtrl:
        """An independent controller in the same state that shares the (thread-safe) chain."""
        return clone(self, {id(self._chain): self._chain})

    @exclusive
    def __deepcopy__(self, memo: dict[int, Any]) -> MultiRefMinJerkCtrl:
        """An independent controller in the same state, on a deep copy of the chain."""
        return clone(self, memo)

    @exclusive
    def __getstate__(self) -> dict[str, Any]:
        """A snapshot for pickling (taken while no other thread uses the controller)."""
        return _copy.deepcopy(snapshot_fields(self))

    __setstate__ = restore_fields


def _norm(d: np.ndarray) -> float:
    return math.sqrt(float(d.dot(d)))
