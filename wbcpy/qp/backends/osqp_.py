"""OSQP (ADMM, sparse) with a persistent workspace.

OSQP takes ``l ≤ M x ≤ u`` with ``M = [A; C; I]`` (the identity rows only when there are bounds) and the
upper triangle of H, both CSC. For dense problems the sparsity patterns are fixed by the sizes (full
upper triangle, dense A/C rows, identity), so the workspace is set up once per structure and then only
updated (``Px``, ``Ax``, ``q``, ``l``, ``u``) and warm-started from its previous iterate.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from ..kkt import RawResult, StdQP
from .base import Backend, full_bounds

__all__ = ["OsqpBackend"]

_INFTY = 1e30  # OSQP_INFTY


class OsqpBackend(Backend):
    """OSQP adapter.

    Defaults: ``eps_abs = 1e-9``, ``eps_rel = 0``, ``sigma = 1e-10`` (OSQP's 1e-6 would dominate the
    curvature-1e-8 directions), ``max_iter = 20000``, infeasibility tolerances 1e-12 (OSQP's 1e-4 takes
    the curvature-1e-8 directions for unboundedness), OSQP's own polishing off (it prints and is skipped
    when no constraint is active); wbcpy polishes the result on its active set instead.
    """

    name: ClassVar[str] = "osqp"
    defaults: ClassVar[dict[str, Any]] = {
        "eps_abs": 1e-9,
        "eps_rel": 0.0,
        "sigma": 1e-10,
        "max_iter": 20000,
        "polishing": False,
        "verbose": False,
        "eps_prim_inf": 1e-12,
        "eps_dual_inf": 1e-12,
    }

    def __init__(self, warm_start: bool = True, options: dict[str, Any] | None = None) -> None:
        import osqp

        super().__init__(warm_start, options)
        self._osqp = osqp
        self._ws: Any = None
        self._key: tuple | None = None
        self._p_rows = self._p_cols = self._p_indptr = None
        self._p_rows_n = -1

    @classmethod
    def option_names(cls) -> Iterable[str]:
        import osqp

        s = osqp.OSQP()
        settings = s.ext.OSQPSettings()
        return [a for a in dir(settings) if not a.startswith("_")]

    def reset(self) -> None:
        self._ws = None
        self._key = None

    # -- matrices ---------------------------------------------------------------------------------
    def _dense_p(self, H: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self._p_rows_n != n:
            cols = np.repeat(np.arange(n), np.arange(1, n + 1))
            rows = np.concatenate([np.arange(j + 1) for j in range(n)]) if n else np.zeros(0, np.intp)
            self._p_rows, self._p_cols, self._p_rows_n = rows, cols, n
            self._p_indptr = np.concatenate([[0], np.cumsum(np.arange(1, n + 1))])
        return H[self._p_rows, self._p_cols], self._p_rows, self._p_indptr

    def solve(self, q: StdQP, x0: np.ndarray | None) -> RawResult:
        n, meq, mc = q.n, q.meq, q.mc
        has_box = q.lb is not None or q.ub is not None
        sparse = q.sparse
        k = meq + mc
        lo = [q.b] if meq else []
        hi = [q.b] if meq else []
        if mc:
            lo.append(q.lbC)
            hi.append(q.ubC)
        if has_box:
            lb, ub = full_bounds(q)
            lo.append(lb)
            hi.append(ub)
        l = np.clip(np.concatenate(lo), -_INFTY, _INFTY) if lo else np.zeros(0)  # noqa: E741
        u = np.clip(np.concatenate(hi), -_INFTY, _INFTY) if hi else np.zeros(0)
        if sparse:
            P = sp.triu(sp.csc_matrix(q.H), format="csc")
            blocks = ([sp.csc_matrix(q.A)] if meq else []) + ([sp.csc_matrix(q.C)] if mc else [])
            if has_box:
                blocks.append(sp.identity(n, format="csc"))
            M = sp.vstack(blocks, format="csc") if blocks else sp.csc_matrix((0, n))
            P.sort_indices()
            M.sort_indices()
            key = ("s", n, meq, mc, has_box, P.indptr.tobytes(), P.indices.tobytes(),
                   M.indptr.tobytes(), M.indices.tobytes())  # fmt: skip
            Px, Mx = P.data, M.data
        else:
            Px, p_rows, p_indptr = self._dense_p(q.H, n)
            D = np.vstack([q.A, q.C]) if (meq and mc) else (q.A if meq else (q.C if mc else np.zeros((0, n))))
            Mx = np.vstack([D, np.ones((1, n))]).T.ravel() if has_box else D.T.ravel()
            key = ("d", n, meq, mc, has_box)
            if self._ws is None or key != self._key:
                kk = k + 1 if has_box else k
                idx = np.tile(np.arange(kk), n).reshape(n, kk)
                if has_box:
                    idx[:, k] = k + np.arange(n)
                P = sp.csc_matrix((Px, p_rows, p_indptr), shape=(n, n))
                M = sp.csc_matrix(
                    (Mx, idx.ravel(), np.arange(n + 1) * kk), shape=(k + (n if has_box else 0), n)
                )
        self.reused = self._ws is not None and key == self._key
        if self.reused:
            ws = self._ws
            ws.update(q=q.g, l=l, u=u, Px=Px, Ax=Mx)
        else:
            ws = self._osqp.OSQP()
            opts = dict(self.options)
            opts["warm_starting"] = self.warm_start
            ws.setup(P=P, q=q.g, A=M, l=l, u=u, **opts)
            if self.warm_start and x0 is not None:
                ws.warm_start(x=x0)
            self._ws, self._key = ws, key
        res = ws.solve(raise_error=False)
        val, iters, text = res.info.status_val, int(res.info.iter), str(res.info.status)
        xs, ys = res.x, res.y
        st = self._osqp.SolverStatus
        if val == st.OSQP_SOLVED:
            ok, inaccurate = True, False
        elif val in (st.OSQP_SOLVED_INACCURATE, st.OSQP_MAX_ITER_REACHED, st.OSQP_TIME_LIMIT_REACHED):
            ok, inaccurate = False, True
        else:
            self.reset()
            return RawResult(None, False, text, iters)
        if xs is None or ys is None:
            self.reset()
            return RawResult(None, False, text, iters)
        yy = np.array(ys, dtype=np.float64)
        return RawResult(
            np.array(xs, dtype=np.float64), ok, text, iters,
            yy[:meq] if meq else None, yy[meq:k] if mc else None, yy[k:] if has_box else None,
            inaccurate=inaccurate,
        )  # fmt: skip
