"""The numeric state of :class:`~wbcpy.ik.MultiRefMinJerkCtrl` and one step of it (spec §4 steps 2–9).

Two min-jerk velocity controllers run side by side: a joint-space one that drives q towards q_d and a
task-space one that drives the tip towards x_d. Their commands are blended,

.. math::

    \\dot q = \\dot q_J + W J^\\top (I_6 + J W J^\\top)^{-1} (\\dot x_T - J \\dot q_J),

the minimiser of ‖q̇ − q̇_J‖²_{W⁻¹} + ‖J q̇ − ẋ_T‖², where W = diag(w_i) is γ inside the joint range and
fades to 0 in guard bands near the limits (:mod:`wbcpy.ik.blend`). γ → 0 gives pure joint-space min-jerk
motion; a large γ a straight Cartesian path with the joint loop acting in the null space. q̇ is integrated
by a saturating trapezoidal integrator, so q never leaves the limits and nothing winds up. Each loop
closes (for its ideal plant) to the triple pole p³/(s+p)³, p = 5.3223/T: 90 % of a step at t = T.

:class:`ReachLoop` holds q, the pose error e, q̇, J, the two min-jerk loops, the guard bands and the
saturating integrator, and advances them by one sample on validated targets. It knows nothing of input
validation, caching, the state machine or threads: the controller does that and reads the attributes
documented below (each is replaced, never written in place, unless said otherwise).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.linalg.blas import dgemv as _dgemv
from scipy.linalg.blas import dsyrk as _dsyrk
from scipy.linalg.lapack import dposv as _dposv

from .._kernels import log3 as _log3
from .._support.validation import as_bool, as_float
from ..model._poses import pose7_from_se3
from ._minjerk_loops import MinJerkLoops
from .blend import EYE6, GuardBands, blend_unchecked
from .integrator import Integrator
from .pose_error import CtrlPose, as_ctrl_pose, pose_error

if TYPE_CHECKING:
    from ..model.chain import Chain

_FULL = CtrlPose.FULL
_VIEWS = ("_u", "e", "_e_pos", "_e_rot", "_diag")


class ReachLoop:
    """Numeric state and step of the multi-referential controller.

    Args:
        chain: the chain; ``q0``: validated start angles inside the limits; ``Ts``: sample time [s];
        ``mode``: the tracked part of the pose; ``non_ideal``: non-ideal-plant joint loop.

    Attributes:
        q, q_old: joint angles after and before the last step (new arrays).
        xq: (q, FK(q) as an iKin 7-vector) for the q it was computed at.
        e: pose error of the last step (6,; written in place; a view into the loops' input).
        J: tip Jacobian at q_old (6×n). qdot: blended q̇ (n,). xdot: J q̇ (6,), or None until read.
        comp, comp_pending: a compensation for the next step's joint error.
        w, w_gamma: W of the last step: ``w_gamma`` when W = w_gamma·I, else the array ``w``.
        gamma, exec_time, mode: the settings the step uses. guard: the guard bands.
        q_interior: q is inside every interior guard band (None: unknown). iter: steps since restart.
        loops: the two min-jerk velocity controllers. integrator: the saturating integrator.
    """

    def __init__(self, chain: Chain, q0: np.ndarray, Ts: float, mode: CtrlPose, non_ideal: bool) -> None:
        n = q0.size
        lower, upper = np.array(chain.lower, dtype=np.float64), np.array(chain.upper, dtype=np.float64)
        M, J = chain.fk_jacobian(q0)
        self.n = n
        self.ts = Ts
        self.chain = chain
        self.lower, self.upper = lower, upper
        self.q = q0
        self.q_old = q0.copy()
        self.xq = (q0, pose7_from_se3(M))
        self.J = np.array(J, dtype=np.float64)
        # stacked input of the two min-jerk loops: [q_d − q (+ compensation); e]; e lives in it
        self._inp = np.zeros(n + 6)
        self._D = np.zeros((n, n))  # W as a matrix for the general blend
        self.qdot = np.zeros(n)
        self.xdot: np.ndarray | None = np.zeros(6)
        self.comp = np.zeros(n)
        self.comp_pending = False
        self.w = np.ones(n)  # W = I until the first weight update
        self.w_gamma: float | None = None
        self.exec_time = 1.0
        self.gamma = 0.05
        self.mode = mode
        self.guard = GuardBands(lower, upper, 0.1)
        self.loops = MinJerkLoops(Ts, n, non_ideal)
        self.integrator = Integrator(Ts, q0, np.column_stack((lower, upper)))
        self._int_box = self.integrator.integrate_in_box_unchecked
        self.q_interior: bool | None = None
        self._fk_jac = chain.fk_jacobian_unchecked
        self.iter = 0
        self._views()

    def _views(self) -> None:
        """Views into ``_inp`` and ``_D`` (rebuilt after a copy: a copied view would be detached)."""
        n = self.n
        self._u, self.e = self._inp[:n], self._inp[n:]
        self._e_pos, self._e_rot = self.e[:3], self.e[3:]
        self._diag = (self._D, self._D.reshape(-1)[:: n + 1])

    def __getstate__(self) -> dict[str, Any]:
        """Copies and pickles: the fields without the views (see :meth:`_views`)."""
        return {k: v for k, v in self.__dict__.items() if k not in _VIEWS}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._views()

    # ------------------------------------------------------------------ validated settings
    def set_gamma(self, gamma: Any) -> None:
        """Set γ (finite, ≥ 0); 0 gives pure joint-space motion.

        Raises:
            InvalidValueError: negative, non-finite or non-numeric γ (nothing changes).
        """
        self.gamma = as_float(gamma, "gamma", minimum=0.0)

    def set_guard_ratio(self, ratio: Any) -> None:
        """Set the guard ratio, clamped to [0, 1], and recompute the bands.

        Raises:
            InvalidValueError: non-finite or non-numeric ratio (nothing changes).
        """
        self.guard.set_ratio(as_float(ratio, "guard_ratio"))
        self.q_interior = None  # the interior bands moved

    def set_exec_time(self, T: Any, warn: bool = False) -> float:
        """Set the execution time T [s], clamped to at least 10·Ts; returns the value used.

        The filters keep their state (their coefficients change at the next iterate).

        Args:
            T: execution time [s] (finite).
            warn: emit a ``UserWarning`` when T was clamped.

        Raises:
            InvalidValueError: non-numeric or non-finite T, non-bool ``warn`` (nothing changes).
        """
        t = as_float(T, "T")
        warn = as_bool(warn, "warn")
        lower = 10.0 * self.ts
        if t < lower:
            if warn:
                warnings.warn(f"exec time {t} s below 10*Ts; clamped to {lower} s", UserWarning, stacklevel=4)
            t = lower
        self.exec_time = t
        return t

    def set_ctrl_pose(self, ctrl_pose: Any) -> None:
        """Change the tracked part of the pose (FULL/XYZ/ANG, 0/1/2, "full"/"xyz"/"ang"; filters kept)."""
        self.mode = as_ctrl_pose(ctrl_pose)

    def set_plant_parameters(self, params: Any) -> None:
        """Set the joint plant parameters (Kp, Tz, Tw, Zeta) per joint (see
        :meth:`MinJerkVelCtrlForNonIdealPlant.set_plant_parameters`).

        A controller built with the ideal joint filter switches to a fresh non-ideal one (its filter
        state is lost; the task filter keeps its state). Invalid parameters raise ``ConfigError`` and
        change nothing.
        """
        self.loops.set_plant_parameters(params)

    def compute_weight(self) -> np.ndarray:
        """Update W at the current q and return its diagonal (a new (n,) array)."""
        self.guard.weights(self.q, self.gamma, out=self.w)
        self.w_gamma = None
        return self.w.copy()

    def get_weights(self) -> np.ndarray:
        """Diagonal of W as last computed (ones before the first update)."""
        return self.w.copy() if self.w_gamma is None else np.full(self.n, self.w_gamma)

    def get_xdot(self) -> np.ndarray:
        """Task velocity ẋ = J q̇ (6,) of the last iterate (a new array)."""
        if self.xdot is None:  # computed on first read after a step
            self.xdot = self.J.dot(self.qdot)
        return self.xdot.copy()

    # ------------------------------------------------------------------ state
    def x(self) -> np.ndarray:
        """Tip pose x = FK(q) as iKin's 7-vector (x, y, z, axis, angle); computed once per q."""
        q, x = self.xq
        if q is not self.q:
            q = self.q
            x = pose7_from_se3(self.chain.fk(q))
            self.xq = (q, x)
        return x.copy()

    def set_q(self, q: np.ndarray) -> None:
        """Move to validated angles ``q`` inside the limits; reset the integrator (filters keep state)."""
        self.xq = (q, pose7_from_se3(self.chain.fk(q)))
        self.q = q
        self.q_interior = None
        self.integrator.reset(q)

    def step(
        self, p_d: np.ndarray, R_d: np.ndarray, q_set: np.ndarray, xdot_t: np.ndarray | None
    ) -> np.ndarray:
        """One step towards (p_d, R_d) and q_set (validated); ``xdot_t`` replaces the task loop's output.

        Returns the new q (kept as :attr:`q`; never written in place).
        """
        self.iter += 1
        n = self.n
        q = self.q
        self.q_old = q
        M, J = self._fk_jac(q)  # q is the integrator's (valid) output
        self.J = J
        mode = self.mode
        if mode is _FULL:  # inlined pose_error (hot path)
            np.subtract(p_d, M.translation, out=self._e_pos)
            _log3(R_d.dot(M.rotation.T), self._e_rot)  # (compiled, into e)
        else:
            pose_error(p_d, R_d, M, mode, out=self.e)
        u = self._u
        np.subtract(q_set, q, out=u)
        if self.comp_pending:
            u += self.comp
            self.comp[:] = 0.0
            self.comp_pending = False
        # joint and task min-jerk loops (spec steps 4-5), one filter step while both are ideal
        T = self.exec_time
        loops = self.loops
        fused_step = loops.fused_step  # None unless loops.fused
        if xdot_t is None and fused_step is not None and loops.T == T:
            cmd = fused_step(self._inp)  # [q̇_J; ẋ_T], a new (n + 6) array
            xdot_t = cmd[n:]
        else:
            cmd = loops.step(T, self._inp, xdot_t is None)
            if xdot_t is None:
                xdot_t = cmd[n:]
        # blend (spec step 8, see wbcpy.ik.blend): q̇ = q̇_J + W Jᵀ (I₆ + J W Jᵀ)⁻¹ (ẋ_T − J q̇_J)
        qdot_j = cmd[:n]
        gamma = self.gamma
        guard = self.guard
        interior = self.q_interior  # every joint inside its interior band: W = γI (rule 1)
        if interior is None:
            interior = guard.all_interior(q)
        if interior and gamma != 0.0:  # W = γI, the usual case: four BLAS/LAPACK calls
            # (positional arguments: keyword parsing of the f2py wrappers costs more than the arithmetic)
            self.w_gamma = gamma
            JT = J.T  # Fortran-ordered view of the C-ordered J: no copies below
            A = _dsyrk(gamma, JT, 1.0, EYE6, 1)  # I₆ + γ J Jᵀ (upper triangle)
            r = _dgemv(-1.0, JT, qdot_j, 1.0, xdot_t, 0, 1, 0, 1, 1)  # ẋ_T − J q̇_J
            _, y, info = _dposv(A, r, 0, 1, 1)  # Cholesky factor + solve
            # q̇_J + γ Jᵀ y (info ≠ 0 is not reachable for finite inputs: A ⪰ I)
            qdot = (
                _dgemv(gamma, JT, y, 1.0, qdot_j)
                if info == 0
                else self._blend_other(qdot_j, xdot_t, J, q, True)
            )
        else:
            qdot = self._blend_other(qdot_j, xdot_t, J, q, interior)
        self.qdot = qdot
        self.xdot = None  # J q̇, computed when read
        # saturating trapezoid (a new array); it also tells whether the new q is interior
        q, self.q_interior = self._int_box(qdot, guard.in_lo, guard.in_hi)
        self.q = q
        return q

    def _blend_other(
        self, qdot_j: np.ndarray, xdot_t: np.ndarray, J: np.ndarray, q: np.ndarray, interior: bool
    ) -> np.ndarray:
        """The blend when W ≠ γI (a joint near a limit) or γ = 0 (W = 0: q̇ = q̇_J exactly)."""
        gamma = self.gamma
        if not interior:  # a joint near a limit: W from the guard rules
            self.w_gamma = None
            return blend_unchecked(qdot_j, xdot_t, J, self.guard.rule_weights(q, gamma, self.w), self._diag)
        self.w_gamma = gamma
        if gamma == 0.0:
            return qdot_j
        return blend_unchecked(qdot_j, xdot_t, J, np.full(self.n, gamma))
