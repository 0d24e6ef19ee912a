"""Dense active-set backends: DAQP and quadprog (exact up to rounding; called directly, dense matrices)."""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from ..kkt import RawResult, StdQP
from .base import Backend, finite_rows

__all__ = ["DaqpBackend", "QuadprogBackend"]

_DAQP_EXIT = {
    1: "solved",
    2: "solved (soft constraints relaxed)",
    -1: "primal infeasible",
    -2: "cycling detected",
    -3: "unbounded",
    -4: "iteration limit reached",
    -5: "non-convex problem (H not positive definite)",
    -6: "overdetermined initial working set",
}


class DaqpBackend(Backend):
    """DAQP (dual active-set, dense): ``blower ≤ [I; C; A] x ≤ bupper`` with equality flags.

    Default options: ``primal_tol = 1e-10`` (DAQP's default 1e-6 would let bounds be violated by 1e-6).
    Warm start passes the previous solution as ``primal_start`` (initial working set).

    Fallback: on strongly degenerate, badly conditioned problems (many active bounds and directions of
    curvature λ = 1e-8 only) DAQP can report cycling or infeasibility. It is then re-run with forced
    proximal-point iterations (``eps_prox = 1e-6``), which are robust but stop early; that result is
    polished and checked like an iterative backend's.
    """

    name: ClassVar[str] = "daqp"
    exact: ClassVar[bool] = True
    defaults: ClassVar[dict[str, Any]] = {"primal_tol": 1e-10}

    def __init__(self, warm_start: bool = True, options: dict[str, Any] | None = None) -> None:
        import daqp

        super().__init__(warm_start, options)
        self._solve = daqp.solve
        self._key: tuple[int, int, int, bool] | None = None
        self._sense = np.zeros(0, dtype=np.intc)

    @classmethod
    def option_names(cls) -> Iterable[str]:
        import daqp

        try:
            params = inspect.signature(daqp.solve).parameters
        except (TypeError, ValueError):  # pragma: no cover - compiled signature not introspectable
            return ()
        skip = {"H", "f", "A", "bupper", "blower", "sense", "primal_start", "dual_start"}
        return [p for p in params if p not in skip]

    def solve(self, q: StdQP, x0: np.ndarray | None) -> RawResult:
        H, A, C = q.dense() if q.sparse else (q.H, q.A, q.C)
        n, meq, mc = q.n, q.meq, q.mc
        has_box = q.lb is not None or q.ub is not None
        key = (n, meq, mc, has_box)
        if key != self._key:
            ms = n if has_box else 0
            self._sense = np.zeros(ms + mc + meq, dtype=np.intc)  # DAQP does not modify it
            self._sense[ms + mc :] = 5  # active + immutable = equality
            self._no_rows = np.zeros((0, n))
            self._inf = np.full(n, np.inf)
            self._empty = np.zeros(0)
            self._key = key
        rows = np.vstack([C, A]) if (mc and meq) else (C if mc else (A if meq else self._no_rows))
        if has_box:
            ub = q.ub if q.ub is not None else self._inf
            lb = q.lb if q.lb is not None else -self._inf
        if not (mc or meq):
            bu, bl = (ub, lb) if has_box else (self._empty, self._empty)
        else:
            parts_u = ([ub] if has_box else []) + ([q.ubC] if mc else []) + ([q.b] if meq else [])
            parts_l = ([lb] if has_box else []) + ([q.lbC] if mc else []) + ([q.b] if meq else [])
            bu, bl = np.concatenate(parts_u), np.concatenate(parts_l)
        start = x0 if (self.warm_start and x0 is not None) else None
        return self._call(q, H, rows, bu, bl, start, self.options)

    def solve_fallback(self, q: StdQP, x0: np.ndarray | None) -> tuple[str, RawResult] | None:
        if self.options.get("eps_prox", -1.0) > 0:
            return None
        opts = {**self.options, "eps_prox": 1e-6}
        return "eps_prox=1e-06", self.solve_with(q, x0, opts)

    def solve_with(self, q: StdQP, x0: np.ndarray | None, options: dict[str, Any]) -> RawResult:
        """:meth:`solve` with the DAQP ``options`` for this call (the adapter's own are restored after)."""
        saved = self.options
        self.options = options
        try:
            return self.solve(q, x0)
        finally:
            self.options = saved

    def _call(self, q, H, rows, bu, bl, start, options) -> RawResult:
        n, meq, mc = q.n, q.meq, q.mc
        has_box = q.lb is not None or q.ub is not None
        x, _fval, flag, info = self._solve(H, q.g, rows, bu, bl, self._sense, primal_start=start, **options)
        if flag <= 0:
            return RawResult(
                None, False, _DAQP_EXIT.get(int(flag), f"exitflag {flag}"), info.get("iterations")
            )
        lam = info["lam"]
        ms = n if has_box else 0
        status = _DAQP_EXIT.get(int(flag), "solved")
        return RawResult(
            np.asarray(x, dtype=np.float64), True, status, info.get("iterations"),
            lam[ms + mc :] if meq else None, lam[ms : ms + mc] if mc else None, lam[:ms] if has_box else None,
        )  # fmt: skip


class QuadprogBackend(Backend):
    """quadprog (Goldfarb–Idnani dual active set, dense, H positive definite).

    Constraints become ``Cqᵀ x ≥ bq`` columns: equalities first, then each finite side of C and of the
    bounds; infinite sides are dropped. quadprog has no warm start and no tolerance options.
    """

    name: ClassVar[str] = "quadprog"
    exact: ClassVar[bool] = True

    def __init__(self, warm_start: bool = True, options: dict[str, Any] | None = None) -> None:
        import quadprog

        super().__init__(warm_start, options)
        self._solve = quadprog.solve_qp

    @classmethod
    def option_names(cls) -> Iterable[str]:
        return ["factorized"]

    def solve(self, q: StdQP, x0: np.ndarray | None) -> RawResult:
        H, A, C = q.dense() if q.sparse else (q.H, q.A, q.C)
        n, meq, mc = q.n, q.meq, q.mc
        cl, cu = finite_rows(q.lbC, q.ubC) if mc else (np.zeros(0, np.intp),) * 2
        bl, bu = finite_rows(q.lb, q.ub)
        eye = np.eye(n)
        blocks = [A] if meq else []
        rhs = [q.b] if meq else []
        if mc:
            blocks += [C[cl], -C[cu]]
            rhs += [q.lbC[cl], -q.ubC[cu]]
        blocks += [eye[bl], -eye[bu]]
        rhs += [q.lb[bl] if bl.size else np.zeros(0), -q.ub[bu] if bu.size else np.zeros(0)]
        M = np.vstack(blocks) if blocks else np.zeros((0, n))
        Cq = np.ascontiguousarray(M.T) if M.shape[0] else None
        bq = np.concatenate(rhs) if M.shape[0] else None
        Hq = H.toarray() if sp.issparse(H) else np.array(H, dtype=np.float64)  # quadprog may overwrite G
        try:
            x, _f, _xu, iters, lag, _iact = self._solve(Hq, -q.g, Cq, bq, meq, **self.options)
        except ValueError as exc:
            msg = str(exc)
            if "inconsistent" in msg or "no solution" in msg:
                msg = f"primal infeasible ({msg})"
            return RawResult(None, False, msg)
        lag = np.asarray(lag, dtype=np.float64)
        y = -lag[:meq] if meq else None
        k = meq
        z = None
        if mc:
            z = np.zeros(mc)
            z[cl] -= lag[k : k + cl.size]
            k += cl.size
            z[cu] += lag[k : k + cu.size]
            k += cu.size
        zb = None
        if q.lb is not None or q.ub is not None:
            zb = np.zeros(n)
            zb[bl] -= lag[k : k + bl.size]
            k += bl.size
            zb[bu] += lag[k : k + bu.size]
        return RawResult(np.asarray(x, dtype=np.float64), True, "solved", int(iters[0]), y, z, zb)
