"""Multi-referential minimum-jerk Cartesian controller (iCub ``iKin::MultiRefMinJerkCtrl``).

Pattacini et al., "An experimental evaluation of a novel minimum-jerk Cartesian controller for humanoid
robots", IROS 2010. Two min-jerk velocity controllers run side by side: a joint-space one that drives q
towards q_d and a task-space one that drives the tip towards x_d. Their commands are blended,

.. math::

    \\dot q = \\dot q_J + W J^\\top (I_6 + J W J^\\top)^{-1} (\\dot x_T - J \\dot q_J),

the minimiser of ‖q̇ − q̇_J‖²_{W⁻¹} + ‖J q̇ − ẋ_T‖², where W = diag(w_i) is γ inside the joint range and
fades to 0 in guard bands near the limits (:mod:`wbcpy.ik.blend`). γ → 0 gives pure joint-space min-jerk
motion; a large γ a straight Cartesian path with the joint loop acting in the null space. q̇ is integrated
by a saturating trapezoidal integrator, so q never leaves the limits and nothing winds up. Each loop
closes (for its ideal plant) to the triple pole p³/(s+p)³, p = 5.3223/T: 90 % of a step at t = T.

Cost per :meth:`~MultiRefMinJerkCtrl.iterate` (the hot path, about ten times the raw Pinocchio FK +
Jacobian on a 7-DOF arm, see ``benchmarks/bench_ik.py``): inputs are validated once and cached by value
(:mod:`wbcpy.ik._targets`); one ``chain.fk_jacobian_unchecked`` call; both min-jerk loops in one filter step
(:mod:`wbcpy.ik._minjerk_loops`); with W = γI (every joint inside its interior band, the usual case) the
blend is four direct BLAS/LAPACK calls; the integrator reports whether the new q is interior, so the next
step needs no separate test. x = FK(q) and ẋ = J q̇ after the step are computed when read.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from pinocchio import log3
from scipy.linalg.blas import dgemv as _dgemv
from scipy.linalg.blas import dsyrk as _dsyrk
from scipy.linalg.lapack import dposv as _dposv

from .._validation import as_vector
from ..chain import pose7_from_se3
from ..errors import ConfigError, InvalidValueError
from ._ctrl_settings import ControllerSettings, CtrlState
from ._minjerk_loops import MinJerkLoops
from ._targets import _F64, _SHAPE7, TargetInputs, finite_vector
from .blend import _EYE6, GuardBands, _blend, diag_scratch
from .integrator import Integrator
from .pose_error import CtrlPose, as_ctrl_pose, pose_error

if TYPE_CHECKING:
    from ..chain import Chain

__all__ = ["CtrlPose", "CtrlState", "MultiRefMinJerkCtrl"]


def _positive(value: Any, name: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InvalidValueError(
            name, "a positive finite number", value, reason=f"not a number: {value!r}"
        ) from None
    if not (math.isfinite(v) and v > 0.0):
        raise InvalidValueError(
            name, "a positive finite number", v, reason=f"must be > 0 and finite, got {v}"
        )
    return v


_FULL = CtrlPose.FULL
_RUNNING, _INTARGET, _DEADLOCK = CtrlState.RUNNING, CtrlState.INTARGET, CtrlState.DEADLOCK


class MultiRefMinJerkCtrl(TargetInputs, ControllerSettings):
    """Minimum-jerk reaching that blends a joint-space and a task-space controller (iKin semantics).

    Args:
        chain: the serial chain to control (angles in chain order, poses in the chain's base frame).
        ctrl_pose: ``CtrlPose.FULL`` (position + orientation), ``XYZ`` or ``ANG``; also 0/1/2 or the
            strings "full"/"xyz"/"ang".
        Ts: sample time [s], > 0.
        non_ideal_plant: use the joint controller that compensates a non-ideal plant (see
            :meth:`set_plant_parameters`).
        q0: initial angles (n,), clipped to the limits; default the chain's rest configuration.

    Initial state: q = q0, x = FK(q0), e = 0, q̇ = 0, ẋ = 0, W = I, T = 1 s, γ = 0.05, guard ratio 0.1,
    RUNNING, iteration 0, watchdog off, in-target tolerance 5e-3, watchdog tolerance 1e-4 and 200 iterations.

    The joint target ``qd`` of :meth:`iterate` is optional: without it the controller solves a damped
    least-squares IK (:func:`~wbcpy.ik.dls.dls_ik`) on the same chain for ``xd``, from the current q, and
    caches the result until ``xd`` changes (the last result is :attr:`last_ik`).

    Example::

        chain = wbcpy.load_robot("lwr4").chain("lwr_base_link", "lwr_ee")
        ctrl = MultiRefMinJerkCtrl(chain, "full", Ts=0.01)
        while not ctrl.is_in_target():
            q = ctrl.iterate(target_se3)   # send q (or get_qdot()) to the robot

    Raises:
        InvalidValueError: bad ``Ts`` or ``q0``; an unknown ``ctrl_pose`` (UnknownNameError).
        ConfigError: a chain without DOF.
    """

    algo_name = "multi-referential-minimum-jerk-controllers"

    def __init__(
        self, chain: Chain, ctrl_pose: Any, Ts: float, non_ideal_plant: bool = False, q0: Any = None
    ) -> None:
        mode = as_ctrl_pose(ctrl_pose)
        ts = _positive(Ts, "Ts")
        n = int(chain.n)
        if n < 1:
            raise ConfigError("chain", f"chain {getattr(chain, 'name', '?')!r} has no degree of freedom")
        lower = np.array(chain.lower, dtype=np.float64)
        upper = np.array(chain.upper, dtype=np.float64)
        if q0 is None:
            q_init = np.array(chain.rest, dtype=np.float64)[np.asarray(chain.dof_indices)]
        else:
            q_init = as_vector(q0, n, "q0")
        q_init = np.clip(q_init, lower, upper)
        M, J = chain.fk_jacobian(q_init)

        self._chain = chain
        self._n = n
        self._mode = mode
        self._ts = ts
        self._lower, self._upper = lower, upper
        self._q = q_init
        self._q_old = q_init.copy()
        self._x = pose7_from_se3(M)
        self._x_stale = False
        self._J = np.array(J, dtype=np.float64)
        # stacked input of the two min-jerk loops: [q_d − q (+ compensation); e]; e lives in it
        self._inp = np.zeros(n + 6)
        self._u, self._e = self._inp[:n], self._inp[n:]
        self._e_pos, self._e_rot = self._e[:3], self._e[3:]
        self._q_set = np.zeros(n)
        self._x_set = self._x.copy()
        self._qdot = np.zeros(n)
        self._xdot: np.ndarray | None = np.zeros(6)  # None: J q̇ of the last iterate, computed when read
        self._comp = np.zeros(n)
        self._comp_pending = False
        self._w = np.ones(n)  # W = I until the first weight update
        self._w_gamma: float | None = None  # not None: W = γI (self._w not filled)
        self._exec_time = 1.0
        self._gamma = 0.05
        self._guard = GuardBands(lower, upper, 0.1)
        self._loops = MinJerkLoops(ts, n, bool(non_ideal_plant))  # joint and task min-jerk controllers
        self._integrator = Integrator(ts, q_init, np.column_stack((lower, upper)))
        self._int_box = self._integrator.integrate_in_box_unchecked
        self._q_interior: bool | None = None  # q inside every interior guard band (None: not known)
        self._fk_jac = chain.fk_jacobian_unchecked
        self._diag = diag_scratch(n)  # W as a matrix for the general blend
        self._state = CtrlState.RUNNING
        self._iter = 0
        self._init_settings()
        self._init_targets()

    # ------------------------------------------------------------------ main loop
    def iterate(self, xd: Any, qd: Any = None, xdot_set: Any = None) -> np.ndarray:
        """Run one control step and return the new joint angles q (a new (n,) array).

        Args:
            xd: target pose in the chain's base frame: a ``pin.SE3`` or iKin's 7-vector
                (x, y, z, axis, angle).
            qd: joint target (n,) that should satisfy FK(qd) = xd; it drives only the joint-space loop.
                When omitted it is computed by damped least-squares IK (:func:`~wbcpy.ik.dls.dls_ik`,
                started from the current q, in this controller's ``ctrl_pose`` mode) and cached: the IK
                runs again only when ``xd`` (or the mode) changes. The result is kept in :attr:`last_ik`.
            xdot_set: optional task velocity 7-vector (v_x, v_y, v_z, axis, angular speed); when given
                it replaces the task filter's output for this step.

        Steps (spec §4): e = (p_d − p, log₃(R_d Rᵀ)) masked by ``ctrl_pose``; q̇_J = joint filter(T,
        q_d − q + compensation); ẋ_T = task filter(T, e) (or ``xdot_set``); W from q; blended q̇;
        ẋ = J q̇; q = saturating integrator(q̇); then the state machine on ‖e‖ (RUNNING → INTARGET when
        ‖e‖ < tol, so in-target shows one step late; watchdog → DEADLOCK, which freezes q, x and e).
        The compensation set by :meth:`add_compensation` is cleared.

        Raises:
            InvalidValueError: wrong size or non-finite ``xd``/``qd``/``xdot_set`` (nothing changes).
        """
        # --- validate every input before mutating anything (repeated xd / qd cost a byte comparison;
        # the cache hits of _target and _joint_target are inlined for the common float64 arrays)
        if (
            type(xd) is np.ndarray
            and xd.dtype is _F64
            and xd.shape == _SHAPE7
            and xd.tobytes() == self._xd_key
        ):
            p_d, R_d, x7, key = self._xd_val  # type: ignore[misc]
        else:
            p_d, R_d, x7, key = self._target(xd)
        if xdot_set is not None:
            xs = finite_vector(xdot_set, 7, "xdot_set")
            xdot_t: np.ndarray | None = np.concatenate((xs[:3], xs[3:6] * xs[6]))
        else:
            xdot_t = None
        if qd is None:
            q_set = self._ik_target(x7, key)
        elif (
            type(qd) is np.ndarray
            and qd.dtype is _F64
            and qd.shape == self._shape
            and qd.tobytes() == self._qd_key
        ):
            q_set = self._qd_val
        else:
            q_set = self._joint_target(qd)
        # --- everything is validated: mutate from here on
        self._x_set = x7
        self._q_set = q_set
        if self._state is _DEADLOCK:
            self._comp[:] = 0.0
            self._comp_pending = False
            self._update_state()
            return self._q.copy()
        self._iter += 1
        n = self._n
        q = self._q
        self._q_old = q
        M, J = self._fk_jac(q)  # q is the integrator's (valid) output
        self._J = J
        e = self._e
        mode = self._mode
        if mode is _FULL:  # inlined pose_error (hot path)
            np.subtract(p_d, M.translation, out=self._e_pos)
            self._e_rot[:] = log3(R_d.dot(M.rotation.T))
        else:
            pose_error(p_d, R_d, M, mode, out=e)
        u = self._u
        np.subtract(q_set, q, out=u)
        if self._comp_pending:
            u += self._comp
            self._comp[:] = 0.0
            self._comp_pending = False
        # joint and task min-jerk loops (spec steps 4-5), one filter step while both are ideal
        T = self._exec_time
        loops = self._loops
        if xdot_t is None and loops.fused and loops.T == T:
            cmd = loops.fused_step(self._inp)  # [q̇_J; ẋ_T], a new (n + 6) array
            xdot_t = cmd[n:]
        else:
            cmd = loops.step(T, self._inp, xdot_t is None)
            if xdot_t is None:
                xdot_t = cmd[n:]
        qdot_j = cmd[:n]
        # blend (spec step 8, see wbcpy.ik.blend): q̇ = q̇_J + W Jᵀ (I₆ + J W Jᵀ)⁻¹ (ẋ_T − J q̇_J)
        gamma = self._gamma
        guard = self._guard
        interior = self._q_interior  # every joint inside its interior band: W = γI (rule 1)
        if interior is None:
            interior = guard.all_interior(q)
        if not interior:  # a joint near a limit: W from the guard rules
            self._w_gamma = None
            qdot = _blend(qdot_j, xdot_t, J, guard.rule_weights(q, gamma, self._w), self._diag)
        elif gamma == 0.0:  # W = 0: pure joint-space motion, exactly
            self._w_gamma = gamma
            qdot = qdot_j
        else:  # W = γI: q̇ = q̇_J + γ Jᵀ (I₆ + γ J Jᵀ)⁻¹ (ẋ_T − J q̇_J) in four BLAS/LAPACK calls
            # (positional arguments: keyword parsing of the f2py wrappers costs more than the arithmetic)
            self._w_gamma = gamma
            JT = J.T  # Fortran-ordered view of the C-ordered J: no copies below
            A = _dsyrk(gamma, JT, 1.0, _EYE6, 1)  # I₆ + γ J Jᵀ (upper triangle)
            r = _dgemv(-1.0, JT, qdot_j, 1.0, xdot_t, 0, 1, 0, 1, 1)  # ẋ_T − J q̇_J
            _, y, info = _dposv(A, r, 0, 1, 1)  # Cholesky factor + solve
            if info == 0:
                qdot = _dgemv(gamma, JT, y, 1.0, qdot_j)  # q̇_J + γ Jᵀ y
            else:  # not reachable for finite inputs (A ⪰ I)
                qdot = _blend(qdot_j, xdot_t, J, np.full(n, gamma))
        self._qdot = qdot
        self._xdot = None  # J q̇, computed when read
        # saturating trapezoid (a new array); it also tells whether the new q is interior
        q, self._q_interior = self._int_box(qdot, guard.in_lo, guard.in_hi)
        self._q = q
        self._x_stale = True
        # state machine (spec step 10); inlined except for the watchdog
        state = self._state
        if math.sqrt(e.dot(e)) < self._in_target_tol:
            if state is _RUNNING:
                self._state = _INTARGET
        elif state is _INTARGET:
            self._state = _RUNNING
        elif self._watchdog_on:
            self._watchdog()
        return q.copy()

    def _update_state(self) -> None:
        """Spec §4 step 10: state machine on ‖e‖ plus the optional watchdog."""
        e = self._e
        dist = math.sqrt(e.dot(e))
        tol = self._in_target_tol
        state = self._state
        if state is _INTARGET:
            if dist >= tol:
                self._state = _RUNNING
        elif dist < tol:  # RUNNING or DEADLOCK
            self._state = _INTARGET
        elif self._watchdog_on or state is _DEADLOCK:  # a deadlock is always watched
            self._watchdog()

    def _watchdog(self) -> None:
        d = self._q - self._q_old
        if math.sqrt(float(d @ d)) < self._watchdog_tol:
            self._watchdog_cnt += 1
        else:
            self._state = CtrlState.RUNNING
            self._watchdog_cnt = 0
        if self._watchdog_cnt >= self._watchdog_max_iter:
            self._state = CtrlState.DEADLOCK
            self._watchdog_cnt = 0

    # ------------------------------------------------------------------ resets
    def set_q(self, q0: Any) -> np.ndarray:
        """Set the joint angles (clamped to the limits), recompute x = FK(q) and reset the integrator.

        The filters keep their state. Returns the clamped q (a new array).

        Raises:
            InvalidValueError: wrong size or non-finite ``q0`` (nothing changes).
        """
        q = np.clip(as_vector(q0, self._n, "q0"), self._lower, self._upper)
        M = self._chain.fk(q)
        self._q = q
        self._q_interior = None
        self._x = pose7_from_se3(M)
        self._x_stale = False
        self._integrator.reset(q)
        return q.copy()

    def restart(self, q0: Any = None) -> None:
        """Restart from ``q0`` (default: the current q): state RUNNING, iteration 0, :meth:`set_q`,
        q̇ = ẋ = 0 and both filters reset to zero state.

        The watchdog counter, q_old, e and a pending compensation are kept (as in iKin).

        Raises:
            InvalidValueError: wrong size or non-finite ``q0`` (nothing changes).
        """
        q = self._q if q0 is None else as_vector(q0, self._n, "q0")
        self.set_q(q)
        self._state = CtrlState.RUNNING
        self._iter = 0
        self._qdot = np.zeros(self._n)
        self._xdot = np.zeros(6)
        self._loops.reset()

    def add_compensation(self, comp: Any) -> None:
        """Add ``comp`` (n,) to the joint-loop error of the next :meth:`iterate` only.

        A second call before that iterate replaces the pending compensation (as iKin does).
        """
        self._comp[:] = as_vector(comp, self._n, "comp")
        self._comp_pending = True

    # ------------------------------------------------------------------ non-ideal plant
    def set_plant_parameters(self, params: Any) -> None:
        """Set the joint plant parameters (Kp, Tz, Tw, Zeta) per joint (see
        :meth:`MinJerkVelCtrlForNonIdealPlant.set_plant_parameters`).

        A controller built with the ideal joint filter switches to a fresh non-ideal one (its filter
        state is lost; the task filter keeps its state). Invalid parameters raise and leave the controller
        unchanged.
        """
        self._loops.set_plant_parameters(params)

    def get_plant_parameters(self) -> dict[str, dict[str, float]]:
        """Per-joint plant parameters ``{"dimension_i": {Kp, Tz, Tw, Zeta}}`` (defaults when ideal)."""
        return self._loops.get_plant_parameters()

    @property
    def non_ideal_plant(self) -> bool:
        """True when the joint loop uses the non-ideal-plant controller."""
        return self._loops.non_ideal

    # ------------------------------------------------------------------ weights
    def compute_weight(self) -> np.ndarray:
        """Update W at the current q and return its diagonal (a new (n,) array)."""
        self._guard.weights(self._q, self._gamma, out=self._w)
        self._w_gamma = None
        return self._w.copy()

    def get_weights(self) -> np.ndarray:
        """Diagonal of W as last computed (ones before the first update)."""
        if self._w_gamma is not None:
            return np.full(self._n, self._w_gamma)
        return self._w.copy()

    # iKin camelCase aliases
    setPlantParameters = set_plant_parameters  #: alias of :meth:`set_plant_parameters`
    getPlantParameters = get_plant_parameters  #: alias of :meth:`get_plant_parameters`
    computeWeight = compute_weight  #: alias of :meth:`compute_weight`
