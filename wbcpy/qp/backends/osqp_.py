"""OSQP (ADMM, sparse) with a persistent workspace.

OSQP takes ``l ≤ M x ≤ u`` with ``M = [A; C; I]`` (the identity rows only when there are bounds) and the
upper triangle of H, both CSC. For dense problems the sparsity patterns are fixed by the sizes (full
upper triangle, dense A/C rows, identity), so the workspace is set up once per structure and then only
updated (``Px``, ``Ax``, ``q``, ``l``, ``u``) and warm-started from its previous iterate.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from ..kkt import StdQP
from .base import Backend, Multipliers, Outcome, Run

_INFTY = 1e30  # OSQP_INFTY

#: (Px, Mx, structure key, P, M): data of the CSC matrices and, when a workspace must be set up, the
#: matrices themselves (None when only the data are needed)
_Matrices = tuple[np.ndarray, np.ndarray, tuple[Hashable, ...], Any, Any]


class OsqpBackend(Backend[np.ndarray]):
    """OSQP adapter.

    Defaults: ``eps_abs = 1e-9``, ``eps_rel = 0``, ``sigma = 1e-10`` (OSQP's 1e-6 would dominate the
    curvature-1e-8 directions), ``max_iter = 20000``, infeasibility tolerances 1e-12 (OSQP's 1e-4 takes
    the curvature-1e-8 directions for unboundedness), OSQP's own polishing off (it prints and is skipped
    when no constraint is active); wbcpy polishes the result on its active set instead.

    Statuses: solved; solved inaccurate, iteration or time limit (inaccurate: refined); any other one
    (infeasible, non-convex, ...) fails. The multipliers (``y``) follow the rows ``[A; C; I]``.
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
        st = osqp.SolverStatus
        self.statuses = {
            st.OSQP_SOLVED: Outcome.SOLVED,
            st.OSQP_SOLVED_INACCURATE: Outcome.INACCURATE,
            st.OSQP_MAX_ITER_REACHED: Outcome.INACCURATE,
            st.OSQP_TIME_LIMIT_REACHED: Outcome.INACCURATE,
        }
        self._ws: Any = None  # osqp.OSQP (untyped)
        self._key: tuple[Hashable, ...] | None = None
        self._p_rows = self._p_cols = self._p_indptr = np.zeros(0, dtype=np.intp)
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
    def _dense_p(self, H: np.ndarray, n: int) -> np.ndarray:
        """The upper triangle of a dense H, column by column (the data of its CSC form)."""
        if self._p_rows_n != n:
            cols = np.repeat(np.arange(n), np.arange(1, n + 1))
            rows = np.concatenate([np.arange(j + 1) for j in range(n)]) if n else np.zeros(0, np.intp)
            self._p_rows, self._p_cols, self._p_rows_n = rows, cols, n
            self._p_indptr = np.concatenate([[0], np.cumsum(np.arange(1, n + 1))])
        return np.asarray(H[self._p_rows, self._p_cols])

    @staticmethod
    def _sides(q: StdQP) -> tuple[np.ndarray, np.ndarray]:
        """(l, u) over the rows ``[A; C; I]``, infinite sides clipped to OSQP_INFTY."""
        lo = [q.b] if q.b is not None and q.meq else []
        hi = list(lo)
        if q.mc and q.lbC is not None and q.ubC is not None:
            lo.append(q.lbC)
            hi.append(q.ubC)
        if q.has_bounds:
            lb, ub = q.full_bounds()
            lo.append(lb)
            hi.append(ub)
        l = np.clip(np.concatenate(lo), -_INFTY, _INFTY) if lo else np.zeros(0)  # noqa: E741
        u = np.clip(np.concatenate(hi), -_INFTY, _INFTY) if hi else np.zeros(0)
        return l, u

    @staticmethod
    def _sparse(q: StdQP) -> _Matrices:
        """CSC matrices P (upper triangle of H) and M = [A; C; I], their data and structure key."""
        n, meq, mc = q.n, q.meq, q.mc
        P = sp.triu(sp.csc_matrix(q.H), format="csc")
        blocks = ([sp.csc_matrix(q.A)] if meq else []) + ([sp.csc_matrix(q.C)] if mc else [])
        if q.has_bounds:
            blocks.append(sp.identity(n, format="csc"))
        M = sp.vstack(blocks, format="csc") if blocks else sp.csc_matrix((0, n))
        P.sort_indices()
        M.sort_indices()
        key = ("s", n, meq, mc, q.has_bounds, P.indptr.tobytes(), P.indices.tobytes(),
               M.indptr.tobytes(), M.indices.tobytes())  # fmt: skip
        return P.data, M.data, key, P, M

    def _dense(self, q: StdQP) -> _Matrices:
        """The data of P and M for a dense problem (fixed patterns: full upper triangle, dense rows of A
        and C, identity), the structure key, and the CSC matrices when the workspace cannot be reused."""
        n, meq, mc, has_box = q.n, q.meq, q.mc, q.has_bounds
        Px = self._dense_p(q.H, n)
        A, C = q.A, q.C
        D = np.zeros((0, n))
        if meq and A is not None:
            D = np.vstack([A, C]) if mc and C is not None else A
        elif mc and C is not None:
            D = C
        Mx = np.vstack([D, np.ones((1, n))]).T.ravel() if has_box else D.T.ravel()
        key = ("d", n, meq, mc, has_box)
        if self._ws is not None and key == self._key:
            return Px, Mx, key, None, None
        k = meq + mc
        kk = k + 1 if has_box else k
        idx = np.tile(np.arange(kk), n).reshape(n, kk)
        if has_box:
            idx[:, k] = k + np.arange(n)
        P = sp.csc_matrix((Px, self._p_rows, self._p_indptr), shape=(n, n))
        M = sp.csc_matrix((Mx, idx.ravel(), np.arange(n + 1) * kk), shape=(k + (n if has_box else 0), n))
        return Px, Mx, key, P, M

    def _workspace(self, q: StdQP, x0: np.ndarray | None, l: np.ndarray, u: np.ndarray) -> Any:  # noqa: E741
        """The OSQP workspace holding ``q``: updated in place when the structure is unchanged, else set up
        anew (and warm-started from ``x0`` when asked)."""
        Px, Mx, key, P, M = self._sparse(q) if q.sparse else self._dense(q)
        self.reused = self._ws is not None and key == self._key
        if self.reused:
            ws = self._ws
            ws.update(q=q.g, l=l, u=u, Px=Px, Ax=Mx)
            return ws
        ws = self._osqp.OSQP()
        opts = dict(self.options)
        opts["warm_starting"] = self.warm_start
        ws.setup(P=P, q=q.g, A=M, l=l, u=u, **opts)
        if self.warm_start and x0 is not None:
            ws.warm_start(x=x0)
        self._ws, self._key = ws, key
        return ws

    def _run(self, q: StdQP, x0: np.ndarray | None) -> Run[np.ndarray]:
        l, u = self._sides(q)  # noqa: E741
        res = self._workspace(q, x0, l, u).solve(raise_error=False)
        xs, ys = res.x, res.y
        x = None if xs is None else np.array(xs, dtype=np.float64)
        y = None if ys is None else np.array(ys, dtype=np.float64)
        return res.info.status_val, str(res.info.status), int(res.info.iter), x, y

    def _multipliers(self, q: StdQP, duals: np.ndarray) -> Multipliers:
        meq, mc = q.meq, q.mc
        k = meq + mc
        y = duals[:meq] if meq else None
        return y, (duals[meq:k] if mc else None), (duals[k:] if q.has_bounds else None)
