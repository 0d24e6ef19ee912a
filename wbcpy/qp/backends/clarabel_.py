"""Clarabel (interior point, sparse; called directly with CSC matrices).

Clarabel solves ``M x + s = h, s ∈ K``: equalities go to a zero cone, every finite side of C and of the
bounds to one non-negative cone (``C_i x ≤ ubC_i`` and ``−C_i x ≤ −lbC_i``, same for bounds).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from ..kkt import Matrix, StdQP
from .base import Backend, Multipliers, OneSided, Outcome, Run


class ClarabelBackend(Backend[tuple[np.ndarray, OneSided]]):
    """Clarabel adapter.

    Defaults: feasibility and gap tolerances 1e-10, ``static_regularization_constant = 1e-13`` (Clarabel's
    1e-8 equals the scene's λ and would bias the solution), ``max_iter = 200``. No warm start (interior
    point). The result is polished on its active set.
    """

    name: ClassVar[str] = "clarabel"
    defaults: ClassVar[dict[str, Any]] = {
        "tol_feas": 1e-10,
        "tol_gap_abs": 1e-10,
        "tol_gap_rel": 1e-10,
        "tol_ktratio": 1e-8,
        "static_regularization_constant": 1e-13,
        "max_iter": 200,
    }

    def __init__(self, warm_start: bool = True, options: dict[str, Any] | None = None) -> None:
        import clarabel

        super().__init__(warm_start, options)
        self._cl = clarabel
        settings = clarabel.DefaultSettings()
        for k, v in self.options.items():
            setattr(settings, k, v)
        settings.verbose = False
        self._settings = settings
        S = clarabel.SolverStatus
        inaccurate = (S.AlmostSolved, S.MaxIterations, S.InsufficientProgress, S.MaxTime)
        self.statuses = {S.Solved: Outcome.SOLVED, **dict.fromkeys(inaccurate, Outcome.INACCURATE)}

    @classmethod
    def option_names(cls) -> Iterable[str]:
        import clarabel

        return [a for a in dir(clarabel.DefaultSettings()) if not a.startswith("_") and a != "default"]

    def _cone_rows(self, q: StdQP) -> tuple[Matrix, np.ndarray, list[Any], OneSided]:
        """M (CSC), h and the cones: equalities (zero cone), then every finite side of C and of the
        bounds (one non-negative cone, upper side first)."""
        cl, n, meq = self._cl, q.n, q.meq
        sides = OneSided(q, upper_first=True, bounds=True)
        C = sp.csr_matrix(q.C) if q.mc else None
        blocks, rhs = sides.rows(q, C, sp.identity(n, format="csr"), geq=False)
        cones: list[Any] = [cl.NonnegativeConeT(sides.size)] if blocks else []
        if meq and q.b is not None:
            blocks.insert(0, sp.csr_matrix(q.A))
            rhs.insert(0, q.b)
            cones.insert(0, cl.ZeroConeT(meq))
        M = sp.vstack(blocks, format="csc") if blocks else sp.csc_matrix((0, n))
        h = np.concatenate(rhs) if rhs else np.zeros(0)
        return M, h, cones, sides

    def _run(self, q: StdQP, x0: np.ndarray | None) -> Run[tuple[np.ndarray, OneSided]]:
        M, h, cones, sides = self._cone_rows(q)
        P = sp.triu(sp.csc_matrix(q.H), format="csc")
        try:
            solver = self._cl.DefaultSolver(P, q.g, M, h, cones, self._settings)
        except BaseException as exc:  # Rust panics surface as BaseException
            if isinstance(exc, KeyboardInterrupt | SystemExit):
                raise
            return "setup failed", f"setup failed: {exc}", None, None, None
        res = solver.solve()
        x = np.array(res.x, dtype=np.float64)
        duals = (np.array(res.z, dtype=np.float64), sides)
        return res.status, str(res.status).rsplit(".", 1)[-1], int(res.iterations), x, duals

    def _multipliers(self, q: StdQP, duals: tuple[np.ndarray, OneSided]) -> Multipliers:
        zc, sides = duals
        meq = q.meq
        z, zb = sides.scatter(zc, meq, q.mc, q.n if q.has_bounds else None)
        return (zc[:meq] if meq else None), z, zb
