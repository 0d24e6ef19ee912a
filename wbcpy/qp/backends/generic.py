"""Any other qpsolvers backend, through ``qpsolvers.solve_problem``.

The problem is handed over in the format the backend takes natively (CSC for the sparse-only backends
in ``qpsolvers.sparse_solvers``, dense otherwise), so qpsolvers does not convert (and does not warn).
Two-sided rows become ``G x ≤ h`` rows (finite sides only). Warnings raised inside qpsolvers or the
backend are captured and reported in the status instead of escaping.
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..kkt import StdQP
from .base import Backend, Multipliers, OneSided, Outcome, Run, sparse_or_dense

#: Tight tolerances for backends without a dedicated adapter (names are qpsolvers keyword arguments).
TIGHT_OPTIONS: dict[str, dict[str, Any]] = {
    "osqp": {
        "eps_abs": 1e-9,
        "eps_rel": 0.0,
        "sigma": 1e-10,
        "max_iter": 20000,
        "polishing": False,
        "eps_prim_inf": 1e-12,
        "eps_dual_inf": 1e-12,
    },
    "scs": {"eps_abs": 1e-10, "eps_rel": 0.0, "max_iters": 100000},
    "qpalm": {"eps_abs": 1e-10, "eps_rel": 0.0},
    "hpipm": {"tol_stat": 1e-10, "tol_eq": 1e-10, "tol_ineq": 1e-10, "tol_comp": 1e-10},
    "proxqp": {
        "eps_abs": 1e-10,
        "eps_rel": 0.0,
        "rho": 1e-12,
    },  # its solve() takes no infeasibility tolerances
    "piqp": {"eps_abs": 1e-10, "eps_rel": 0.0, "eps_primal_inf": 1e-12, "eps_dual_inf": 1e-12},
    "clarabel": {
        "tol_feas": 1e-10,
        "tol_gap_abs": 1e-10,
        "tol_gap_rel": 1e-10,
        "static_regularization_constant": 1e-13,
    },
    "cvxopt": {"abstol": 1e-12, "reltol": 1e-12, "feastol": 1e-12},
    "ecos": {"abstol": 1e-10, "reltol": 1e-10, "feastol": 1e-10},
}
#: Backends whose solution is exact up to rounding (active-set / direct); the others are polished.
EXACT = {"daqp", "quadprog", "qpoases", "pyqpmad"}


class GenericBackend(Backend[tuple[Any, OneSided]]):
    """Adapter for a backend reached through qpsolvers (no persistent workspace).

    Statuses: ``found`` (solved) or not (inaccurate: a backend that stopped early may still be refined
    into a verified optimum); an exception, or an x that is missing, of the wrong shape or not finite,
    fails. Multipliers come from qpsolvers' ``Solution`` (y; z over the ``G x ≤ h`` rows; z_box).
    """

    statuses: Mapping[Hashable, Outcome] = {True: Outcome.SOLVED, False: Outcome.INACCURATE}

    def __init__(self, name: str, warm_start: bool = True, options: dict[str, Any] | None = None) -> None:
        import qpsolvers

        # an instance per backend name: the class-level name/exact/defaults are shadowed per instance
        self.name = name  # type: ignore[misc]
        self.exact = name in EXACT  # type: ignore[misc]
        self.defaults = TIGHT_OPTIONS.get(name, {})  # type: ignore[misc]
        super().__init__(warm_start, options)
        self._qps = qpsolvers
        self._sparse = name in qpsolvers.sparse_solvers and name not in qpsolvers.dense_solvers

    def _problem(self, q: StdQP) -> tuple[Any, OneSided]:
        """The ``qpsolvers.Problem`` (two-sided rows as ``G x ≤ h`` rows, finite sides only) and the
        one-sided rows' layout."""
        fmt, meq = self._sparse, q.meq
        sides = OneSided(q, upper_first=True, bounds=False)
        G = h = None
        if sides.size:
            C = q.C
            Cs = sp.csr_matrix(C) if sp.issparse(C) else C
            blocks, rhs = sides.rows(q, Cs, None, geq=False)
            stack = sp.vstack if sp.issparse(Cs) else np.vstack
            G, h = sparse_or_dense(stack(blocks), fmt), np.concatenate(rhs)
        elif not meq and not q.has_bounds:
            # some qpsolvers interfaces (clarabel) hand unconstrained problems to an LSQR fallback that
            # rejects ill-conditioned H: give them the vacuous row 0·x ≤ 1 instead
            G, h = sparse_or_dense(np.zeros((1, q.n)), fmt), np.ones(1)
        A = sparse_or_dense(q.A, fmt) if meq else None
        problem = self._qps.Problem(sparse_or_dense(q.H, fmt), q.g, G, h, A, q.b if meq else None, q.lb, q.ub)
        return problem, sides

    def _run(self, q: StdQP, x0: np.ndarray | None) -> Run[tuple[Any, OneSided]]:
        problem, sides = self._problem(q)
        init = x0 if (self.warm_start and x0 is not None) else None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                sol = self._qps.solve_problem(problem, self.name, initvals=init, **self.options)
            except Exception as exc:  # any backend failure becomes a status
                return "error", f"{type(exc).__name__}: {exc}", None, None, None
        note = "; ".join(str(w.message) for w in caught)
        note = f" ({note})" if note else ""
        x = None if sol.x is None else np.asarray(sol.x, dtype=np.float64)
        if x is None or x.shape != (q.n,) or not np.isfinite(x).all():
            return "no solution", "not solved" + note, None, None, None
        found = bool(sol.found)
        return found, ("solved" if found else "not solved") + note, None, x, (sol, sides)

    def _multipliers(self, q: StdQP, duals: tuple[Any, OneSided]) -> Multipliers:
        sol, sides = duals
        meq, mc, n = q.meq, q.mc, q.n
        y = np.asarray(sol.y, dtype=np.float64) if (meq and sol.y is not None) else None
        z = np.zeros(mc) if mc else None
        if mc and sol.z is not None and sides.size:
            z, _ = sides.scatter(np.asarray(sol.z, dtype=np.float64), 0, mc, None)
        zb = None
        if q.has_bounds and sol.z_box is not None and np.size(sol.z_box) == n:
            zb = np.asarray(sol.z_box, dtype=np.float64)
        return y, z, zb
