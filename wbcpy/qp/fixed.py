"""Fixed variables: bounds with ub − lb ≤ FIX_TOL fix a variable, which is then eliminated.

No backend ever sees ``lb == ub`` (several dislike it) and the problems shrink. :class:`FixedSplit`
checks the bounds once and restricts rows, shifts targets and merges solutions.
"""

from __future__ import annotations

import numpy as np

from .._kernels import bounds_gap as _bounds_gap
from .._kernels import split_bounds as _split_bounds
from .._kernels import split_columns as _split_columns

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
        if lb is None and ub is None:  # (no bounds: a contact scene's problem)
            self.lb = self.ub = None
            return
        if lb is not None and ub is not None and n and _bounds_gap(lb, ub) > FIX_TOL:
            self.lb, self.ub = lb, ub  # the common case: consistent, nothing fixed (backends take ±inf)
            return
        if lb is not None and ub is not None:
            self._split(lb, ub)
            return
        for v, bad_value in ((lb, np.inf), (ub, -np.inf)):
            if v is not None and (np.isnan(v) | (v == bad_value)).any():
                raise InfeasibleBoundsError(np.flatnonzero(np.isnan(v) | (v == bad_value)).tolist())
        self.lb, self.ub = _none_if_unbounded(lb, -np.inf), _none_if_unbounded(ub, np.inf)

    def _split(self, lb: np.ndarray, ub: np.ndarray) -> None:
        """Both sides given: the fixed variables and the free ones' bounds, in one compiled pass."""
        parts = _split_bounds(lb, ub, FIX_TOL)
        if parts[0] is None:
            raise InfeasibleBoundsError(parts[1].tolist())
        free, fixed, values, lbf, ubf, lb_open, ub_open = parts
        if fixed.shape[0]:
            self.free, self.fixed, self.values, self.nf = free, fixed, values, int(free.shape[0])
        else:  # (nothing fixed: the bounds as they are)
            lbf, ubf = lb, ub
        self.lb = None if lb_open else lbf
        self.ub = None if ub_open else ubf

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

    def columns_and_shift(self, M: np.ndarray) -> tuple[np.ndarray, np.ndarray | float]:
        """(:meth:`cols`, :meth:`shift`) of M in one compiled pass when variables are fixed."""
        if self.free is None or self.fixed is None or self.values is None:
            return M, 0.0
        return _split_columns(M, self.free, self.fixed, self.values)

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
