"""Clarabel (interior point, sparse; called directly with CSC matrices).

Clarabel solves ``M x + s = h, s ∈ K``: equalities go to a zero cone, every finite side of C and of the
bounds to one non-negative cone (``C_i x ≤ ubC_i`` and ``−C_i x ≤ −lbC_i``, same for bounds).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from ..kkt import RawResult, StdQP
from .base import Backend, finite_rows

__all__ = ["ClarabelBackend"]


class ClarabelBackend(Backend):
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

    @classmethod
    def option_names(cls) -> Iterable[str]:
        import clarabel

        return [a for a in dir(clarabel.DefaultSettings()) if not a.startswith("_") and a != "default"]

    def solve(self, q: StdQP, x0: np.ndarray | None) -> RawResult:
        cl = self._cl
        n, meq, mc = q.n, q.meq, q.mc
        eye = sp.identity(n, format="csr")
        blocks: list[Any] = []
        rhs: list[np.ndarray] = []
        cones: list[Any] = []
        if meq:
            blocks.append(sp.csr_matrix(q.A))
            rhs.append(q.b)
            cones.append(cl.ZeroConeT(meq))
        c_lo, c_hi = finite_rows(q.lbC, q.ubC) if mc else (np.zeros(0, np.intp),) * 2
        b_lo, b_hi = finite_rows(q.lb, q.ub)
        Cr = sp.csr_matrix(q.C) if mc else None
        nn = c_hi.size + c_lo.size + b_hi.size + b_lo.size
        if nn:
            if c_hi.size:
                blocks.append(Cr[c_hi])
                rhs.append(q.ubC[c_hi])
            if c_lo.size:
                blocks.append(-Cr[c_lo])
                rhs.append(-q.lbC[c_lo])
            if b_hi.size:
                blocks.append(eye[b_hi])
                rhs.append(q.ub[b_hi])
            if b_lo.size:
                blocks.append(-eye[b_lo])
                rhs.append(-q.lb[b_lo])
            cones.append(cl.NonnegativeConeT(nn))
        M = sp.vstack(blocks, format="csc") if blocks else sp.csc_matrix((0, n))
        h = np.concatenate(rhs) if rhs else np.zeros(0)
        P = sp.triu(sp.csc_matrix(q.H), format="csc")
        try:
            solver = cl.DefaultSolver(P, q.g, M, h, cones, self._settings)
        except BaseException as exc:  # Rust panics surface as BaseException
            if isinstance(exc, KeyboardInterrupt | SystemExit):
                raise
            return RawResult(None, False, f"setup failed: {exc}")
        res = solver.solve()
        S = cl.SolverStatus
        status = res.status
        text = str(status).rsplit(".", 1)[-1]
        if status == S.Solved:
            ok, inaccurate = True, False
        elif status in (S.AlmostSolved, S.MaxIterations, S.InsufficientProgress, S.MaxTime):
            ok, inaccurate = False, True
        else:
            return RawResult(None, False, text, int(res.iterations))
        x = np.array(res.x, dtype=np.float64)
        zc = np.array(res.z, dtype=np.float64)
        y = zc[:meq] if meq else None
        k = meq
        z = np.zeros(mc) if mc else None
        if mc:
            z[c_hi] += zc[k : k + c_hi.size]
            k += c_hi.size
            z[c_lo] -= zc[k : k + c_lo.size]
            k += c_lo.size
        zb = None
        if q.lb is not None or q.ub is not None:
            zb = np.zeros(n)
            zb[b_hi] += zc[k : k + b_hi.size]
            k += b_hi.size
            zb[b_lo] -= zc[k : k + b_lo.size]
        return RawResult(x, ok, text, int(res.iterations), y, z, zb, inaccurate=inaccurate)
