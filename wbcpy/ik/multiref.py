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

Kinematics come from one ``chain.fk_jacobian`` call per :meth:`~MultiRefMinJerkCtrl.iterate` (the tip pose
x = FK(q) after the step is evaluated lazily by :meth:`~MultiRefMinJerkCtrl.get_x`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import pinocchio as pin
from pinocchio import log3

from .._validation import as_vector
from ..chain import pose7_from_se3
from ..errors import ConfigError, InvalidValueError
from ._ctrl_settings import ControllerSettings, CtrlState
from .blend import _EYE6, GuardBands, _blend, _dposv
from .dls import DLSResult, dls_ik
from .filters import Integrator
from .minjerk_ctrl import (
    PLANT_PARAMETER_DEFAULTS,
    MinJerkVelCtrlForIdealPlant,
    MinJerkVelCtrlForNonIdealPlant,
)
from .pose_error import CtrlPose, as_ctrl_pose, parse_target, pose_error

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


def _unchecked_step(obj: Any, name: str) -> Any:
    """The filter's/integrator's step on pre-validated input, or None when this version has none.

    ``iterate`` validates its inputs once; the public ``compute_cmd``/``integrate`` would validate and
    copy again. Falls back to the public methods when the private step is not there.
    """
    inner = getattr(obj, "_filter", obj)
    return getattr(inner, name, None)


class MultiRefMinJerkCtrl(ControllerSettings):
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
        self._e = np.zeros(6)
        self._e_pos, self._e_rot = self._e[:3], self._e[3:]
        self._q_set = np.zeros(n)
        self._x_set = self._x.copy()
        self._qdot = np.zeros(n)
        self._xdot = np.zeros(6)
        self._comp = np.zeros(n)
        self._comp_pending = False
        self._w = np.ones(n)  # W = I until the first weight update
        self._exec_time = 1.0
        self._gamma = 0.05
        self._guard = GuardBands(lower, upper, 0.1)
        self._non_ideal = bool(non_ideal_plant)
        self._joint_ctrl: MinJerkVelCtrlForIdealPlant | MinJerkVelCtrlForNonIdealPlant = (
            MinJerkVelCtrlForNonIdealPlant(ts, n) if self._non_ideal else MinJerkVelCtrlForIdealPlant(ts, n)
        )
        self._task_ctrl = MinJerkVelCtrlForIdealPlant(ts, 6)
        self._joint_step, self._joint_T = _unchecked_step(self._joint_ctrl, "_step"), self._joint_ctrl.get_T()
        self._task_step, self._task_T = _unchecked_step(self._task_ctrl, "_step"), self._task_ctrl.get_T()
        self._integrator = Integrator(ts, q_init, np.column_stack((lower, upper)))
        self._int_step = _unchecked_step(self._integrator, "_integrate")
        self._state = CtrlState.RUNNING
        self._iter = 0
        self._init_settings()
        # target cache (pose → (p_d, R_d)) and the DLS joint target for that pose
        self._xd_cache: tuple[np.ndarray, np.ndarray, np.ndarray, bytes, bytes] | None = None
        self._ik_key: bytes | None = None
        self._ik_q = np.zeros(n)
        self.last_ik: DLSResult | None = None

    # ------------------------------------------------------------------ main loop
    def _target(self, xd: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, bytes]:
        """Validate xd; return (p_d, R_d, x7, x7 bytes), reusing the last conversion when xd is unchanged.

        The cache key is the raw bytes of the input (a float64 7-vector, or the SE3's 4×4 matrix: the two
        byte lengths differ), so an unchanged target costs one byte comparison.
        """
        cache = self._xd_cache
        if cache is not None:
            if type(xd) is np.ndarray:
                if xd.dtype == np.float64 and xd.shape == (7,) and xd.tobytes() == cache[4]:
                    return cache[:4]
            elif type(xd) is pin.SE3 and xd.homogeneous.tobytes() == cache[4]:
                return cache[:4]
        p_d, R_d, x7 = parse_target(xd)
        key = x7.tobytes()
        input_key = xd.homogeneous.tobytes() if isinstance(xd, pin.SE3) else key
        self._xd_cache = (p_d, R_d, x7, key, input_key)  # a pure cache: harmless if the call fails later
        return p_d, R_d, x7, key

    def _ik_target(self, x7: np.ndarray, key: bytes) -> np.ndarray:
        """Joint target from DLS IK, recomputed only when the pose (or the mode) changed."""
        ik_key = key + bytes([int(self._mode)])
        if ik_key != self._ik_key:
            res = dls_ik(self._chain, x7, q0=self._q, ctrl_pose=self._mode)
            self._ik_q, self._ik_key, self.last_ik = res.q, ik_key, res
        return self._ik_q

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
        p_d, R_d, x7, key = self._target(xd)
        if xdot_set is not None:
            xs = as_vector(xdot_set, 7, "xdot_set")
            xdot_t: np.ndarray | None = np.concatenate((xs[:3], xs[3:6] * xs[6]))
        else:
            xdot_t = None
        if qd is None:
            q_set = self._ik_target(x7, key)
        elif type(qd) is np.ndarray and qd.dtype == np.float64 and qd.shape == (self._n,):
            q_set = qd.copy()  # fast path; the dot product is finite iff every entry is (else re-check)
            if not math.isfinite(q_set.dot(q_set)):
                as_vector(q_set, self._n, "qd")
        else:
            q_set = as_vector(qd, self._n, "qd")
        # --- everything is validated: mutate from here on
        self._x_set = x7
        self._q_set = q_set
        if self._state != CtrlState.DEADLOCK:
            self._iter += 1
            q = self._q
            self._q_old = q
            M, J = self._chain.fk_jacobian(q)
            e = self._e
            mode = self._mode
            if mode == CtrlPose.FULL:  # inlined pose_error (hot path)
                np.subtract(p_d, M.translation, out=self._e_pos)
                self._e_rot[:] = log3(R_d.dot(M.rotation.T))
            else:
                pose_error(p_d, R_d, M, mode, out=e)
            u = q_set - q
            if self._comp_pending:
                u += self._comp
                self._comp[:] = 0.0
                self._comp_pending = False
            T = self._exec_time
            if self._joint_T == T and self._joint_step is not None:
                qdot_j = self._joint_step(u)  # the filter's buffer: read before its next step only
            else:  # T changed: compute_cmd adjusts the coefficients, keeping the filter state
                qdot_j = self._joint_ctrl.compute_cmd(T, u)
                self._joint_T = T
            if xdot_t is None:
                if self._task_T == T and self._task_step is not None:
                    xdot_t = self._task_step(e)
                else:
                    xdot_t = self._task_ctrl.compute_cmd(T, e)
                    self._task_T = T
            self._J = J
            guard = self._guard
            w = guard.weights(q, self._gamma, out=self._w)
            # blend (spec step 8, see wbcpy.ik.blend): q̇ = q̇_J + W Jᵀ (I₆ + J W Jᵀ)⁻¹ (ẋ_T − J q̇_J)
            JW = J * self._gamma if guard.uniform else J * w
            A = JW.dot(J.T)
            A += _EYE6
            _, y, info = _dposv(A, xdot_t - J.dot(qdot_j), 0, 1, 1)  # Cholesky; (lower, overwrite a, b)
            qdot = qdot_j + JW.T.dot(y) if info == 0 else _blend(qdot_j, xdot_t, J, w)
            self._qdot = qdot
            self._xdot = J.dot(qdot)
            step = self._int_step
            self._q = self._integrator.integrate(qdot) if step is None else step(qdot).copy()
            self._x_stale = True
        else:
            self._comp[:] = 0.0
            self._comp_pending = False
        self._update_state()
        return self._q.copy()

    def _update_state(self) -> None:
        """Spec §4 step 10: state machine on ‖e‖ plus the optional watchdog."""
        e = self._e
        dist = math.sqrt(e.dot(e))
        tol = self._in_target_tol
        state = self._state
        if state == CtrlState.INTARGET:
            if dist >= tol:
                self._state = CtrlState.RUNNING
        elif dist < tol:  # RUNNING or DEADLOCK
            self._state = CtrlState.INTARGET
        elif self._watchdog_on or state == CtrlState.DEADLOCK:  # a deadlock is always watched
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
        self._joint_ctrl.reset(np.zeros(self._n))
        self._task_ctrl.reset(np.zeros(6))

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
        state is lost). Invalid parameters raise and leave the controller unchanged.
        """
        if self._non_ideal:
            self._joint_ctrl.set_plant_parameters(params)  # type: ignore[union-attr]
            return
        fresh = MinJerkVelCtrlForNonIdealPlant(self._ts, self._n)
        fresh.set_plant_parameters(params)
        self._joint_ctrl = fresh
        self._joint_step, self._joint_T = _unchecked_step(fresh, "_step"), fresh.get_T()
        self._non_ideal = True

    def get_plant_parameters(self) -> dict[str, dict[str, float]]:
        """Per-joint plant parameters ``{"dimension_i": {Kp, Tz, Tw, Zeta}}`` (defaults when ideal)."""
        if self._non_ideal:
            return self._joint_ctrl.get_plant_parameters()  # type: ignore[union-attr]
        return {f"dimension_{i}": dict(PLANT_PARAMETER_DEFAULTS) for i in range(self._n)}

    @property
    def non_ideal_plant(self) -> bool:
        """True when the joint loop uses the non-ideal-plant controller."""
        return self._non_ideal

    # ------------------------------------------------------------------ weights
    def compute_weight(self) -> np.ndarray:
        """Update W at the current q and return its diagonal (a new (n,) array)."""
        self._guard.weights(self._q, self._gamma, out=self._w)
        return self._w.copy()

    def get_weights(self) -> np.ndarray:
        """Diagonal of W as last computed (ones before the first update)."""
        return self._w.copy()

    # iKin camelCase aliases
    setPlantParameters = set_plant_parameters  #: alias of :meth:`set_plant_parameters`
    getPlantParameters = get_plant_parameters  #: alias of :meth:`get_plant_parameters`
    computeWeight = compute_weight  #: alias of :meth:`compute_weight`
