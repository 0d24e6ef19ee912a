"""Fixed variables: bounds with ub − lb ≤ FIX_TOL fix a variable, which is then eliminated.

No backend ever sees ``lb == ub`` (several dislike it) and the problems shrink. :class:`FixedSplit`
checks the bounds once and restricts rows, shifts targets and merges solutions.
"""

from __future__ import annotations

import numpy as np

from .._kernels import bounds_gap as _bounds_gap

__all__ = ["FIX_TOL", "FixedSplit", "InfeasibleBoundsError"]

#: a variable whose bounds satisfy ub − lb ≤ FIX_TOL is fixed (and eliminated)
FIX_TOL = 1e-12


class InfeasibleBoundsError(Exception):
    """lb > ub (or an infinite bound on the wrong side, or NaN) at the listed variables."""

    def __init__(self, bad: list[int]) -> None:
        super().__init__(
            f"infeasible bounds: lb > ub (or an infinite bound on the wrong side) at variables {bad}"
        )
        self.variables = bad


def _none_if_unbounded(v: np.ndarray | None, side: float) -> np.ndarray | None:
    """None when every entry of a bound vector is the unbounded value ``side`` (−inf or +inf)."""
    return None if v is None or (v == side).all() else v


class FixedSplit:
    """The split of n variables into free and fixed ones, with the free variables' bounds.

    Attributes:
        n: number of variables.
        free, fixed: index arrays (None when no variable is fixed: every variable is free).
        values: the fixed variables' values (lb + ub)/2.
        nf: number of free variables.
        lb, ub: bounds of the free variables (None when a side bounds nothing; may hold ±inf).
    """

    __slots__ = ("fixed", "free", "lb", "n", "nf", "ub", "values")

    def __init__(self, lb: np.ndarray | None, ub: np.ndarray | None, n: int) -> None:
        """Raises :class:`InfeasibleBoundsError` for inconsistent bounds."""
        self.n = n
        self.free: np.ndarray | None = None
        self.fixed: np.ndarray | None = None
        self.values: np.ndarray | None = None
        self.nf = n
        self.lb: np.ndarray | None
        self.ub: np.ndarray | None
        if lb is not None and ub is not None and n and _bounds_gap(lb, ub) > FIX_TOL:
            self.lb, self.ub = lb, ub  # the common case: consistent, nothing fixed (backends take ±inf)
            return
        lb, ub = _none_if_unbounded(lb, -np.inf), _none_if_unbounded(ub, np.inf)
        if lb is not None and ub is not None:
            d = ub - lb
            if not d.min() > FIX_TOL:  # (also for NaN)
                self._split(lb, ub, d)
                lb, ub = lb[self.free], ub[self.free]
        else:
            for v, bad_value in ((lb, np.inf), (ub, -np.inf)):
                if v is not None and (np.isnan(v) | (v == bad_value)).any():
                    raise InfeasibleBoundsError(np.flatnonzero(np.isnan(v) | (v == bad_value)).tolist())
        self.lb, self.ub = _none_if_unbounded(lb, -np.inf), _none_if_unbounded(ub, np.inf)

    def _split(self, lb: np.ndarray, ub: np.ndarray, d: np.ndarray) -> None:
        with np.errstate(invalid="ignore"):
            bad = ~(d >= 0.0) | (lb == np.inf) | (ub == -np.inf)
        if bad.any():
            raise InfeasibleBoundsError(np.flatnonzero(bad).tolist())
        mask = d <= FIX_TOL
        self.fixed = np.flatnonzero(mask)
        self.free = np.flatnonzero(~mask)
        self.values = 0.5 * (lb[self.fixed] + ub[self.fixed])
        self.nf = int(self.free.shape[0])

    def pinned(self, cols: np.ndarray, kept: np.ndarray, values: np.ndarray) -> FixedSplit:
        """A new split with the free variables ``cols`` fixed at ``values`` as well, ``kept`` the others
        (both indices among the free variables): the variables a hierarchy level pins for the levels
        below it."""
        out = FixedSplit.__new__(FixedSplit)
        free = kept if self.free is None else self.free[kept]
        newly = cols if self.free is None else self.free[cols]
        out.n, out.free, out.nf = self.n, free, int(free.shape[0])
        out.fixed = newly if self.fixed is None else np.concatenate((self.fixed, newly))
        out.values = values if self.values is None else np.concatenate((self.values, values))
        out.lb = None if self.lb is None else self.lb[kept]
        out.ub = None if self.ub is None else self.ub[kept]
        return out

    def cols(self, M: np.ndarray) -> np.ndarray:
        """The free variables' columns of M."""
        return M if self.free is None else M.take(self.free, axis=1)

    def shift(self, M: np.ndarray) -> np.ndarray | float:
        """M[:, fixed] @ values (what the fixed variables contribute to M x); 0 when none is fixed."""
        return 0.0 if self.fixed is None else M.take(self.fixed, axis=1) @ self.values

    def take(self, v: np.ndarray) -> np.ndarray:
        """The free variables' entries of v."""
        return v if self.free is None else v.take(self.free)

    def merge(self, x_free: np.ndarray) -> np.ndarray:
        """The full solution (n) from the free variables' values."""
        if self.free is None:
            return x_free
        out = np.empty(self.n)
        out[self.free] = x_free
        out[self.fixed] = self.values
        return out
