"""Helpers shared by :mod:`wbcpy.qp.solver` and :mod:`wbcpy.qp.hierarchy`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["FIX_TOL", "SolveFailedError", "Solved", "no_inf", "split_fixed"]

FIX_TOL = 1e-12


@dataclass(slots=True)
class Solved:
    """A checked solution of one StdQP: x, inequality and bound multipliers, status, residuals."""

    x: np.ndarray
    z: np.ndarray | None
    z_box: np.ndarray | None
    status: str
    iterations: int | None
    primal_residual: float
    dual_residual: float
    dual_scale: float


class SolveFailedError(Exception):
    """Internal: a backend call failed (turned into :class:`wbcpy.errors.QPSolveError` by the caller)."""

    def __init__(self, status: str, iterations: int | None = None) -> None:
        super().__init__(status)
        self.status = status
        self.iterations = iterations


def split_fixed(lb: np.ndarray | None, ub: np.ndarray | None, n: int):
    """Check bounds, find fixed variables and drop bound vectors that bound nothing.

    Returns:
        (message, fixed, values, lb, ub): ``message`` describes inconsistent bounds (lb > ub,
        lb = +inf or ub = −inf) or is None; ``fixed`` is the mask of variables with ``ub − lb ≤ FIX_TOL``
        (None if there is none) and ``values`` their values (ub + lb)/2; ``lb``/``ub`` are the inputs, or
        None when they hold no finite entry.
    """
    if lb is None and ub is None:
        return None, None, None, None, None
    lo = lb.max() if lb is not None else -np.inf  # lb bounds something iff lo > −inf
    hi = ub.min() if ub is not None else np.inf
    if lo < np.inf and hi > -np.inf:  # (False for NaN)
        if lb is None or ub is None or lo == -np.inf or hi == np.inf:
            keep_lb = lb if lo > -np.inf else None
            keep_ub = ub if hi < np.inf else None
            if keep_lb is None or keep_ub is None:
                return None, None, None, keep_lb, keep_ub
        d = ub - lb
        dmin = d.min()
        if dmin > FIX_TOL:  # the common case: consistent, nothing fixed
            return None, None, None, lb, ub
        if dmin >= 0.0:
            fixed = d <= FIX_TOL
            return None, fixed, 0.5 * (lb[fixed] + ub[fixed]), lb, ub
    bad = np.zeros(n, dtype=bool)
    with np.errstate(invalid="ignore"):
        if lb is not None:
            bad |= lb == np.inf
        if ub is not None:
            bad |= ub == -np.inf
        if lb is not None and ub is not None:
            bad |= ~(lb <= ub)
    return (
        "infeasible bounds: lb > ub (or an infinite bound on the wrong side) at variables "
        f"{np.flatnonzero(bad).tolist()}",
        None,
        None,
        None,
        None,
    )


def no_inf(v: np.ndarray | None) -> np.ndarray | None:
    """None when a bound vector bounds nothing (all ±inf)."""
    return None if v is None or not np.isfinite(v).any() else v


def merge_fixed(
    x_free: np.ndarray, n: int, free: np.ndarray, fixed: np.ndarray, values: np.ndarray
) -> np.ndarray:
    """Full solution (n) from the free variables' values and the fixed ones found by :func:`split_fixed`."""
    out = np.empty(n)
    out[free] = x_free
    out[fixed] = values
    return out
