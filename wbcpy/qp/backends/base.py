"""Base class of the backend adapters.

An adapter turns a :class:`~wbcpy.qp.kkt.StdQP` into one backend call in the matrix format that backend
prefers (dense for the dense active-set and proximal solvers, CSC for the sparse ones), with tolerances
tight enough for the scene's λ = 1e-8 regularisation, and maps the backend's multipliers onto the
convention of :mod:`wbcpy.qp.kkt`. Adapters never emit warnings and never print.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

import numpy as np

from ...errors import ConfigError
from ..kkt import RawResult, StdQP

__all__ = ["Backend"]


class Backend:
    """One backend with its tuned default options and (optionally) a persistent workspace.

    Class attributes:
        name: backend name as in ``qpsolvers.available_solvers``.
        exact: True for active-set / direct solvers whose solution is exact up to rounding (no polish).
        defaults: options applied unless the user overrides them.
    """

    name: ClassVar[str] = ""
    exact: ClassVar[bool] = False
    defaults: ClassVar[dict[str, Any]] = {}

    def __init__(self, warm_start: bool = True, options: dict[str, Any] | None = None) -> None:
        user = dict(options or {})
        valid = set(self.option_names())
        for key in user:
            if valid and key not in valid:
                raise ConfigError(
                    f"solver_options.{key}",
                    f"unknown option for QP solver {self.name!r}; valid options: {', '.join(sorted(valid))}",
                )
        self.warm_start = bool(warm_start)
        self.options: dict[str, Any] = {**self.defaults, **user}
        #: True when the last solve updated a persistent workspace (the solver retries once cold if
        #: such a solve fails: stale internal state must not turn a feasible problem into a failure).
        self.reused = False

    @classmethod
    def option_names(cls) -> Iterable[str]:
        """Names of the options this backend accepts (empty = not checked)."""
        return ()

    def reset(self) -> None:
        """Forget any persistent workspace (called after a failure)."""

    def solve(self, q: StdQP, x0: np.ndarray | None) -> RawResult:  # pragma: no cover - interface
        """Solve ``q``; ``x0`` is a warm-start guess (None = cold start)."""
        raise NotImplementedError

    def solve_fallback(self, q: StdQP, x0: np.ndarray | None) -> tuple[str, RawResult] | None:
        """Second attempt with more robust (less exact) settings after a failed :meth:`solve`.

        Returns:
            (description of the settings, result), or None when the backend has no fallback. The
            result is treated as inexact: it is polished and fully KKT-checked.
        """
        return None


def finite_rows(lo: np.ndarray | None, hi: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the rows with a finite lower side and of those with a finite upper side."""
    lo_idx = np.flatnonzero(np.isfinite(lo)) if lo is not None else np.zeros(0, dtype=np.intp)
    hi_idx = np.flatnonzero(np.isfinite(hi)) if hi is not None else np.zeros(0, dtype=np.intp)
    return lo_idx, hi_idx


def full_bounds(q: StdQP) -> tuple[np.ndarray, np.ndarray]:
    """``(lb, ub)`` with ±inf filled in for a missing side."""
    n = q.n
    lb = q.lb if q.lb is not None else np.full(n, -np.inf)
    ub = q.ub if q.ub is not None else np.full(n, np.inf)
    return lb, ub
