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
from scipy.linalg.lapack import dposv as _dposv

from .._validation import as_matrix, as_vector
from ..errors import InvalidValueError

__all__ = ["GuardBands", "blend_velocities", "guard_weights"]


_EYE6 = np.eye(6)


def _blend(qdot_j: np.ndarray, xdot_t: np.ndarray, J: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Blend on validated inputs (hot path); returns a new (n,) array."""
    JW = J * w  # J W (columns scaled)
    A = JW @ J.T
    A += _EYE6  # I6 + J W J^T: symmetric positive definite
    r = xdot_t - J.dot(qdot_j)
    _, y, info = _dposv(A, r, overwrite_a=1, overwrite_b=1)  # Cholesky factor + solve
    if info != 0:  # not reachable for finite inputs (A ⪰ I); keep a defined result anyway
        y = np.linalg.lstsq(_EYE6 + JW @ J.T, xdot_t - J.dot(qdot_j), rcond=None)[0]
    return qdot_j + JW.T.dot(y)


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
    return _blend(qj, xt, jac, wv)


class GuardBands:
    """Precomputed guard bands of n joints for :meth:`weights` (vectorised, allocation-light).

    Args:
        lower, upper: (n,) joint limits (±inf allowed: no guard band for that joint).
        guard_ratio: fraction of the range used by the bands, clamped to [0, 1].
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
        g = np.where(finite, 0.25 * ratio * np.where(finite, hi - lo, 0.0), 0.0)
        inf = np.inf
        self.ratio = ratio
        self.g = g
        self.min_ext = np.where(finite, lo + g, -inf)
        self.min_int = np.where(finite, lo + 2.0 * g, -inf)
        self.min_cog = np.where(finite, lo + 1.5 * g, 0.0)
        self.max_ext = np.where(finite, hi - g, inf)
        self.max_int = np.where(finite, hi - 2.0 * g, inf)
        self.max_cog = np.where(finite, hi - 1.5 * g, 0.0)
        # fast interior test |q − mid| < half, shrunk by a relative 1e-9 so rounding never misclassifies
        lo_f, hi_f = np.where(finite, lo, 0.0), np.where(finite, hi, 0.0)
        self._mid = 0.5 * (lo_f + hi_f)
        self._half = np.where(finite, (0.5 * (hi_f - lo_f) - 2.0 * g) * (1.0 - 1e-9), np.inf)
        # 10/g where the band has a width (never used elsewhere: rule 1 or 2 applies there)
        self.scale = np.divide(10.0, g, out=np.zeros_like(g), where=g > 0.0)
        self.uniform = False  # True after weights() when every weight was γ (the interior fast path)

    def weights(self, q: np.ndarray, gamma: float, out: np.ndarray | None = None) -> np.ndarray:
        """Diagonal of W at ``q`` (validated (n,) array) for gain ``gamma`` ≥ 0."""
        w = np.empty_like(q) if out is None else out
        if np.count_nonzero(abs(q - self._mid) >= self._half) == 0:  # common: all joints well inside rule 1
            w.fill(gamma)
            self.uniform = True
            return w
        self.uniform = False
        low = q < self.min_int
        # rule 3 / 4 argument: 10(q − MinCOG)/g below MinInt, −10(q − MaxCOG)/g otherwise
        arg = np.where(low, q - self.min_cog, self.max_cog - q)
        arg *= self.scale
        np.tanh(arg, out=arg)
        arg += 1.0
        np.multiply(arg, 0.5 * gamma, out=w)
        w[(q <= self.min_ext) | (q >= self.max_ext)] = 0.0  # rule 2
        w[~low & (q <= self.max_int)] = gamma  # rule 1 (evaluated first in the spec; it wins)
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
    lo = np.array(lower, dtype=np.float64)
    hi = np.array(upper, dtype=np.float64)
    for name, arr in (("lower", lo), ("upper", hi)):
        if arr.shape != (n,) or np.isnan(arr).any():
            raise InvalidValueError(name, (n,), arr.shape, reason=f"expected {n} non-NaN limits")
    g = float(gamma)
    if not (np.isfinite(g) and g >= 0.0):
        raise InvalidValueError("gamma", ">= 0 and finite", g, reason=f"must be >= 0 and finite, got {g}")
    r = float(guard_ratio)
    if np.isnan(r):
        raise InvalidValueError("guard_ratio", "a number in [0, 1]", r, reason="is NaN")
    return GuardBands(lo, hi, r).weights(qv, g)
