"""Any other qpsolvers backend, through ``qpsolvers.solve_problem``.

The problem is handed over in the format the backend takes natively (CSC for the sparse-only backends
in ``qpsolvers.sparse_solvers``, dense otherwise), so qpsolvers does not convert (and does not warn).
Two-sided rows become ``G x ≤ h`` rows (finite sides only). Warnings raised inside qpsolvers or the
backend are captured and reported in the status instead of escaping.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..kkt import RawResult, StdQP
from .base import Backend, finite_rows

__all__ = ["GenericBackend"]

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


class GenericBackend(Backend):
    """Adapter for a backend reached through qpsolvers (no persistent workspace)."""

    def __init__(self, name: str, warm_start: bool = True, options: dict[str, Any] | None = None) -> None:
        import qpsolvers

        self.name = name  # type: ignore[misc]
        self.exact = name in EXACT  # type: ignore[misc]
        self.defaults = TIGHT_OPTIONS.get(name, {})  # type: ignore[misc]
        super().__init__(warm_start, options)
        self._qps = qpsolvers
        self._sparse = name in qpsolvers.sparse_solvers and name not in qpsolvers.dense_solvers

    def solve(self, q: StdQP, x0: np.ndarray | None) -> RawResult:
        qps = self._qps
        n, meq, mc = q.n, q.meq, q.mc
        if self._sparse:

            def fmt(M):
                return sp.csc_matrix(M)
        else:

            def fmt(M):
                return M.toarray() if sp.issparse(M) else M

        G = h = None
        c_lo = c_hi = np.zeros(0, np.intp)
        if mc:
            c_lo, c_hi = finite_rows(q.lbC, q.ubC)
            if c_lo.size + c_hi.size:
                Cs = sp.csr_matrix(q.C) if sp.issparse(q.C) else q.C
                stack = sp.vstack if sp.issparse(Cs) else np.vstack
                G = fmt(stack([Cs[c_hi], -Cs[c_lo]]))
                h = np.concatenate([q.ubC[c_hi], -q.lbC[c_lo]])
        if G is None and not meq and q.lb is None and q.ub is None:
            # some qpsolvers interfaces (clarabel) hand unconstrained problems to an LSQR fallback that
            # rejects ill-conditioned H: give them the vacuous row 0·x ≤ 1 instead
            G, h = fmt(np.zeros((1, n))), np.ones(1)
        problem = qps.Problem(
            fmt(q.H), q.g, G, h, fmt(q.A) if meq else None, q.b if meq else None, q.lb, q.ub
        )
        init = x0 if (self.warm_start and x0 is not None) else None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                sol = qps.solve_problem(problem, self.name, initvals=init, **self.options)
            except Exception as exc:  # any backend failure becomes a status
                return RawResult(None, False, f"{type(exc).__name__}: {exc}")
        note = "; ".join(str(w.message) for w in caught)
        x = None if sol.x is None else np.asarray(sol.x, dtype=np.float64)
        if x is None or x.shape != (n,) or not np.isfinite(x).all():
            return RawResult(None, False, "not solved" + (f" ({note})" if note else ""))
        y = np.asarray(sol.y, dtype=np.float64) if (meq and sol.y is not None) else None
        z = None
        if mc:
            z = np.zeros(mc)
            if G is not None and sol.z is not None:
                zz = np.asarray(sol.z, dtype=np.float64)
                z[c_hi] += zz[: c_hi.size]
                z[c_lo] -= zz[c_hi.size :]
        zb = None
        if (q.lb is not None or q.ub is not None) and sol.z_box is not None and np.size(sol.z_box) == n:
            zb = np.asarray(sol.z_box, dtype=np.float64)
        text = ("solved" if sol.found else "not solved") + (f" ({note})" if note else "")
        # a backend that stopped early (found=False) may still be polished into a verified optimum
        return RawResult(x, bool(sol.found), text, None, y, z, zb, inaccurate=not sol.found)
