"""Joint/task velocity blending and joint-limit guard weights of the multi-referential controller.

**Blend.** Given the joint-space command q̇_J (n), the task-space command ẋ_T (6), the Jacobian J (6×n) and
the diagonal weights W = diag(w) ⪰ 0, the blended velocity is

.. math::

    \\dot q = \\dot q_J + W J^\\top (I_6 + J W J^\\top)^{-1} (\\dot x_T - J \\dot q_J),

the minimiser of ‖q̇ − q̇_J‖²_{W⁻¹} + ‖J q̇ − ẋ_T‖²; for W ≻ 0 it satisfies the normal equations
(W⁻¹ + JᵀJ)(q̇ − q̇_J) = Jᵀ(ẋ_T − J q̇_J). W = 0 (γ = 0) gives q̇ = q̇_J exactly. The 6×6 matrix
I₆ + J W Jᵀ is symmetric positive definite for any W ⪰ 0 and is solved, never inverted.

**Guard weights** (per joint, D = q_max − q_min, g = ¼·guard_ratio·D):
MinExt = q_min + g, MinInt = q_min + 2g, MinCOG = q_min + 1.5g and symmetrically at q_max; then, in order,

1. w = γ if MinInt ≤ q ≤ MaxInt;
2. w = 0 if q ≤ MinExt or q ≥ MaxExt;
3. w = ½γ(1 + tanh(10(q − MinCOG)/g)) if q < MinInt;
4. w = ½γ(1 + tanh(−10(q − MaxCOG)/g)) otherwise.

A joint with an infinite limit has no guard band (w = γ).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.linalg.blas import dgemm as _dgemm
from scipy.linalg.blas import dgemv as _dgemv
from scipy.linalg.lapack import dposv as _dposv

from .._support.validation import as_float, as_matrix, as_real_array, as_vector
from ..errors import InvalidValueError

#: I₆ (read-only; the controllers' BLAS calls take it as the matrix they add to)
EYE6 = np.eye(6)
EYE6.setflags(write=False)


def diag_scratch(n: int) -> tuple[np.ndarray, np.ndarray]:
    """An (n, n) zero matrix and a view of its diagonal: ``scratch`` of :func:`blend_unchecked`."""
    D = np.zeros((n, n))
    return D, D.reshape(-1)[:: n + 1]


def blend_unchecked(
    qdot_j: np.ndarray,
    xdot_t: np.ndarray,
    J: np.ndarray,
    w: np.ndarray,
    scratch: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """Blend on validated inputs (hot path); returns a new (n,) array.

    ``scratch`` is an optional :func:`diag_scratch` pair: the diagonal matrix receives ``w`` so that J W
    is one matrix product (cheaper than broadcasting on small arrays).

    BLAS/LAPACK are called directly with positional arguments (keyword parsing of the f2py wrappers costs
    more than the arithmetic at this size); ``M.T`` of a C-ordered matrix is the Fortran-ordered view they
    take without a copy.
    """
    if scratch is None:
        JW = J * w  # J W (columns scaled)
    else:
        D, diag = scratch
        diag[:] = w
        JW = J.dot(D)
    JT = J.T
    A = _dgemm(1.0, JW.T, JT, 1.0, EYE6, 1, 0)  # (JWᵀ)ᵀ Jᵀ + I₆ = I₆ + J W Jᵀ: symmetric positive definite
    r = _dgemv(-1.0, JT, qdot_j, 1.0, xdot_t, 0, 1, 0, 1, 1)  # ẋ_T − J q̇_J (trans=1: (Jᵀ)ᵀ = J)
    _, y, info = _dposv(A, r, 0, 1, 1)  # Cholesky factor (upper triangle) + solve
    if info != 0:  # not reachable for finite inputs (A ⪰ I); keep a defined result anyway
        y = np.linalg.lstsq(EYE6 + JW.dot(J.T), xdot_t - J.dot(qdot_j), rcond=None)[0]
    qdot: np.ndarray = _dgemv(1.0, JW.T, y, 1.0, qdot_j)  # q̇_J + (J W)ᵀ y, a new array
    return qdot


def blend_velocities(qdot_j: Any, xdot_t: Any, J: Any, w: Any) -> np.ndarray:
    """Blend a joint-space and a task-space velocity command (pure function).

    Args:
        qdot_j: joint-space command q̇_J, (n,) [rad/s].
        xdot_t: task-space command ẋ_T, (6,) (linear [m/s] over angular [rad/s]).
        J: task Jacobian, (6, n).
        w: diagonal of W, (n,), every entry ≥ 0.

    Returns:
        q̇ = q̇_J + W Jᵀ (I₆ + J W Jᵀ)⁻¹ (ẋ_T − J q̇_J), a new (n,) array.

    Raises:
        InvalidValueError: wrong shapes, NaN/inf, or a negative weight.
    """
    jac = as_matrix(J, (6, None), "J")
    n = jac.shape[1]
    qj = as_vector(qdot_j, n, "qdot_j")
    xt = as_vector(xdot_t, 6, "xdot_t")
    wv = as_vector(w, n, "w")
    if (wv < 0.0).any():
        raise InvalidValueError("w", "entries >= 0", wv.tolist(), reason="weights must be >= 0")
    return blend_unchecked(qj, xt, jac, wv)


class GuardBands:
    """Precomputed guard bands of n joints for :meth:`weights` (vectorised, allocation-light).

    Args:
        lower, upper: (n,) joint limits (±inf allowed: no guard band for that joint).
        guard_ratio: fraction of the range used by the bands, clamped to [0, 1].

    Attributes:
        in_lo, in_hi: (n,) interior bands [MinInt, MaxInt] shrunk by a relative 1e-9, used by the fast
            test :meth:`all_interior` (∓inf for a joint without limits).
    """

    def __init__(self, lower: np.ndarray, upper: np.ndarray, guard_ratio: float) -> None:
        self.lower = np.array(lower, dtype=np.float64)
        self.upper = np.array(upper, dtype=np.float64)
        self.set_ratio(guard_ratio)

    def set_ratio(self, guard_ratio: float) -> None:
        """Recompute the bands for ``guard_ratio`` (clamped to [0, 1])."""
        ratio = min(max(float(guard_ratio), 0.0), 1.0)
        lo, hi = self.lower, self.upper
        finite = np.isfinite(lo) & np.isfinite(hi)
        inf = np.inf
        lo_f, hi_f = np.where(finite, lo, 0.0), np.where(finite, hi, 0.0)
        g = 0.25 * ratio * (hi_f - lo_f)
        self.ratio = ratio
        self.g = g
        self.min_ext = np.where(finite, lo_f + g, -inf)
        self.min_int = np.where(finite, lo_f + 2.0 * g, -inf)
        self.min_cog = np.where(finite, lo_f + 1.5 * g, 0.0)
        self.max_ext = np.where(finite, hi_f - g, inf)
        self.max_int = np.where(finite, hi_f - 2.0 * g, inf)
        self.max_cog = np.where(finite, hi_f - 1.5 * g, 0.0)
        # The rules in terms of d = |q − mid| (half range h = D/2): rule 1 ⇔ d ≤ h − 2g, rule 2 ⇔
        # d ≥ h − g, and rules 3/4 are one formula, ½γ(1 + tanh(10 (h − 1.5g − d)/g)) (below mid it is
        # 10(q − MinCOG)/g, above mid −10(q − MaxCOG)/g). A joint without limits: d ≤ inf, always rule 1.
        mid = 0.5 * (lo_f + hi_f)
        half_f = 0.5 * (hi_f - lo_f)
        half = np.where(finite, half_f, inf)
        scale = np.divide(10.0, g, out=np.zeros_like(g), where=g > 0.0)  # 10/g (0: no band)
        self._mid = mid
        self._d_int = half - 2.0 * g
        self._d_ext = half - g
        self._neg_scale = -scale
        self._offset = scale * (half_f - 1.5 * g)
        # fast interior test: q inside [in_lo, in_hi], the interior bands [MinInt, MaxInt] shrunk by a
        # relative 1e-9 so that rounding never misclassifies (an empty band admits nothing)
        shrunk = self._d_int * (1.0 - 1e-9)
        empty = shrunk <= 0.0
        self.in_lo = np.where(empty, inf, mid - shrunk)
        self.in_hi = np.where(empty, -inf, mid + shrunk)

    def all_interior(self, q: np.ndarray) -> bool:
        """True when every joint of ``q`` (a validated float64 (n,) array) is inside its interior band.

        Then rule 1 gives W = γI. The bands are [MinInt, MaxInt] shrunk by a relative 1e-9, so a joint
        within rounding of a band edge is reported as not interior (:meth:`weights` then applies the
        rules exactly). The test clips q to the bands and compares bytes: two ufuncs, no Python loop.
        """
        z: np.ndarray = np.minimum(np.maximum(q, self.in_lo), self.in_hi)
        return z.tobytes() == q.tobytes()

    def weights(self, q: np.ndarray, gamma: float, out: np.ndarray | None = None) -> np.ndarray:
        """Diagonal of W at ``q`` (validated (n,) array) for gain ``gamma`` ≥ 0."""
        w = np.empty_like(q) if out is None else out
        if self.all_interior(q):  # common: all joints well inside rule 1
            w.fill(gamma)
            return w
        return self.rule_weights(q, gamma, w)

    def rule_weights(self, q: np.ndarray, gamma: float, out: np.ndarray) -> np.ndarray:
        """:meth:`weights` without the interior fast path (for callers that know a joint is near a limit).

        Writes the diagonal of W into ``out`` ((n,)) and returns it.
        """
        w = out
        d = q - self._mid
        np.abs(d, out=d)  # distance from the middle of the range
        arg = d * self._neg_scale
        arg += self._offset  # 10(q − MinCOG)/g below the middle, −10(q − MaxCOG)/g above
        np.tanh(arg, out=arg)
        arg += 1.0
        np.multiply(arg, 0.5 * gamma, out=w)  # rules 3 and 4
        w[d >= self._d_ext] = 0.0  # rule 2
        w[d <= self._d_int] = gamma  # rule 1 (evaluated first in the spec; it wins)
        return w


def guard_weights(
    q: Any, lower: Any, upper: Any, gamma: float = 0.05, guard_ratio: float = 0.1
) -> np.ndarray:
    """Diagonal of the guard weight matrix W at ``q`` (pure function; see the module docstring).

    Args:
        q: joint angles, (n,).
        lower, upper: joint limits, (n,) (±inf allowed).
        gamma: weight γ ≥ 0 inside the interior band.
        guard_ratio: fraction of the joint range taken by the guard bands, clamped to [0, 1].

    Raises:
        InvalidValueError: wrong shapes, NaN, a negative or non-finite γ.
    """
    qv = as_vector(q, None, "q")
    n = qv.size
    lo = as_real_array(lower, "lower", (n,))
    hi = as_real_array(upper, "upper", (n,))
    for name, arr in (("lower", lo), ("upper", hi)):
        if arr.shape != (n,) or np.isnan(arr).any():
            raise InvalidValueError(name, (n,), arr.shape, reason=f"expected {n} non-NaN limits")
    g = as_float(gamma, "gamma", minimum=0.0)
    r = as_float(guard_ratio, "guard_ratio", finite=False, minimum=-np.inf)  # ±inf clamp to [0, 1]
    return GuardBands(lo, hi, r).weights(qv, g)
