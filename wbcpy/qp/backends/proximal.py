"""Proximal / interior-point backends with dense and sparse variants: ProxQP and PIQP (called directly).

Both get dense matrices when the problem is dense (their dense variants are the fast ones for the
whole-body-control sizes) and CSC matrices when the problem is sparse. A workspace is kept per problem
structure and updated in place while (n, m_eq, m_in, bounds, format) stay the same.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from ..kkt import RawResult, StdQP
from .base import Backend, full_bounds

__all__ = ["PiqpBackend", "ProxqpBackend"]


class ProxqpBackend(Backend):
    """ProxQP (proxsuite): dense ``proxqp.dense.QP`` with box constraints, or ``proxqp.sparse.QP``.

    Defaults: ``eps_abs = 1e-10``, ``eps_rel = 0``, ``rho = 1e-12`` (the proximal weight; ProxQP's default
    1e-6 makes the curvature-1e-8 directions converge at rate 0.99 per iteration), infeasibility
    tolerances 1e-12 (the default 1e-4 reports degenerate feasible problems as infeasible), and a bound
    on the work of one solve: ``max_iter = 300`` outer iterations of at most ``max_iter_in = 100`` inner
    ones (≤ 30,000 inner iterations). With the tight infeasibility tolerances ProxQP does not detect an
    infeasible problem and runs to its limits: ProxQP's own limits (10000 × 1500) and the former 2000 ×
    1500 took 10–300 s on 3–20-variable infeasible levels of the random-scene property tests
    (``tests/test_random_scenes.py``); with 300 × 100 they end in < 0.3 s, and on 400 random hierarchies
    and 150 random scenes exactly the same problems are solved as with 2000 × 1500 (the answer is refined
    and certified anyway; an infeasible level then goes to the rescue backends).
    The result is polished on its active set (see :mod:`wbcpy.qp.kkt`).
    """

    name: ClassVar[str] = "proxqp"
    defaults: ClassVar[dict[str, Any]] = {
        "eps_abs": 1e-10,
        "eps_rel": 0.0,
        "rho": 1e-12,
        "max_iter": 300,
        "max_iter_in": 100,
        "eps_primal_inf": 1e-12,
        "eps_dual_inf": 1e-12,
    }
    _init_args: ClassVar[set[str]] = {"rho", "mu_eq", "mu_in", "manual_minimal_H_eigenvalue"}

    def __init__(self, warm_start: bool = True, options: dict[str, Any] | None = None) -> None:
        from proxsuite import proxqp

        super().__init__(warm_start, options)
        self._proxqp = proxqp
        self._qp: Any = None
        self._key: tuple | None = None

    @classmethod
    def option_names(cls) -> Iterable[str]:
        from proxsuite import proxqp

        return [a for a in dir(proxqp.Settings()) if not a.startswith("_")] + sorted(cls._init_args)

    def reset(self) -> None:
        self._qp = None
        self._key = None

    def solve(self, q: StdQP, x0: np.ndarray | None) -> RawResult:
        px = self._proxqp
        n, meq, mc = q.n, q.meq, q.mc
        has_box = q.lb is not None or q.ub is not None
        sparse = q.sparse
        init_kw = {k: v for k, v in self.options.items() if k in self._init_args}
        if sparse:  # the sparse QP has no box constraints: bounds become identity rows
            H = sp.csc_matrix(q.H)
            A = sp.csc_matrix(q.A) if meq else None
            blocks, lo, hi = [], [], []
            if mc:
                blocks.append(sp.csc_matrix(q.C))
                lo.append(q.lbC)
                hi.append(q.ubC)
            if has_box:
                lb, ub = full_bounds(q)
                blocks.append(sp.identity(n, format="csc"))
                lo.append(lb)
                hi.append(ub)
            C = sp.vstack(blocks, format="csc") if blocks else None
            l = np.concatenate(lo) if lo else None  # noqa: E741
            u = np.concatenate(hi) if hi else None
            args = (H, q.g, A, q.b if meq else None, C, l, u)
            n_in = 0 if C is None else C.shape[0]
        else:
            lb, ub = full_bounds(q) if has_box else (None, None)
            args = (q.H, q.g, q.A if meq else None, q.b if meq else None, q.C if mc else None,
                    q.lbC if mc else None, q.ubC if mc else None, lb, ub)  # fmt: skip
            n_in = mc
        key = (n, meq, n_in, has_box, sparse)
        reuse = self.warm_start and self._qp is not None and key == self._key
        self.reused = reuse
        if reuse:
            qp = self._qp
            qp.settings.initial_guess = px.InitialGuess.WARM_START_WITH_PREVIOUS_RESULT
            qp.update(*args, update_preconditioner=True, **init_kw)
        else:
            qp = px.sparse.QP(n, meq, n_in) if sparse else px.dense.QP(n, meq, n_in, has_box)
            for k, v in self.options.items():
                if k not in self._init_args:
                    setattr(qp.settings, k, v)
            qp.settings.verbose = False
            qp.settings.initial_guess = px.InitialGuess.NO_INITIAL_GUESS
            qp.init(*args, **init_kw)
            self._qp, self._key = qp, key
        qp.solve()
        res = qp.results
        status = res.info.status
        iters = int(res.info.iter)
        if status == px.QPSolverOutput.PROXQP_SOLVED:
            ok, inaccurate, text = True, False, "solved"
        elif status == px.QPSolverOutput.PROXQP_MAX_ITER_REACHED:
            ok, inaccurate, text = False, True, "maximum iterations reached"
        else:
            self.reset()
            return RawResult(None, False, str(status).rsplit(".", 1)[-1], iters)
        x = np.array(res.x, dtype=np.float64)
        y = np.array(res.y, dtype=np.float64) if meq else None
        zall = np.array(res.z, dtype=np.float64)
        z = zall[:mc] if mc else None
        zb = None
        if has_box:
            zb = zall[mc : mc + n] if not sparse else zall[n_in - n :]
        return RawResult(x, ok, text, iters, y, z, zb, inaccurate=inaccurate)


class PiqpBackend(Backend):
    """PIQP (proximal interior point): ``piqp.DenseSolver`` for dense problems, ``SparseSolver`` otherwise.

    Defaults: ``eps_abs = 1e-10``, ``eps_rel = 0``, ``max_iter = 500``, infeasibility tolerances 1e-12
    (PIQP's 1e-4 takes the curvature-1e-8 directions for unboundedness). No warm start (interior point).
    The result is polished on its active set.
    """

    name: ClassVar[str] = "piqp"
    defaults: ClassVar[dict[str, Any]] = {
        "eps_abs": 1e-10,
        "eps_rel": 0.0,
        "max_iter": 500,
        "eps_primal_inf": 1e-12,
        "eps_dual_inf": 1e-12,
    }

    def __init__(self, warm_start: bool = True, options: dict[str, Any] | None = None) -> None:
        import piqp

        super().__init__(warm_start, options)
        self._piqp = piqp
        self._solver: Any = None
        self._key: tuple | None = None

    @classmethod
    def option_names(cls) -> Iterable[str]:
        import piqp

        return [a for a in dir(piqp.DenseSolver().settings) if not a.startswith("_")]

    def reset(self) -> None:
        self._solver = None
        self._key = None

    def solve(self, q: StdQP, x0: np.ndarray | None) -> RawResult:
        pq = self._piqp
        n, meq, mc = q.n, q.meq, q.mc
        has_box = q.lb is not None or q.ub is not None
        sparse = q.sparse
        if sparse:
            H = sp.csc_matrix(q.H)
            A = sp.csc_matrix(q.A) if meq else None
            C = sp.csc_matrix(q.C) if mc else None
        else:
            H, A, C = q.H, (q.A if meq else None), (q.C if mc else None)
        lb, ub = full_bounds(q) if has_box else (None, None)
        kw = dict(P=H, c=q.g, A=A, b=q.b if meq else None, G=C,
                  h_l=q.lbC if mc else None, h_u=q.ubC if mc else None, x_l=lb, x_u=ub)  # fmt: skip
        key = (n, meq, mc, has_box, sparse)
        self.reused = self.warm_start and self._solver is not None and key == self._key
        if self.reused:
            solver = self._solver
            solver.update(**kw)
        else:
            solver = pq.SparseSolver() if sparse else pq.DenseSolver()
            for k, v in self.options.items():
                setattr(solver.settings, k, v)
            solver.settings.verbose = False
            solver.setup(**kw)
            self._solver, self._key = solver, key
        status = solver.solve()
        res = solver.result
        iters = int(res.info.iter)
        if status == pq.PIQP_SOLVED:
            ok, inaccurate, text = True, False, "solved"
        elif status in (pq.PIQP_MAX_ITER_REACHED, pq.PIQP_NUMERICS):
            ok, inaccurate, text = False, True, str(status).rsplit(".", 1)[-1]
        else:
            self.reset()
            return RawResult(None, False, str(status).rsplit(".", 1)[-1], iters)
        x = np.array(res.x, dtype=np.float64)
        y = np.array(res.y, dtype=np.float64) if meq else None
        z = np.array(res.z_u, dtype=np.float64) - np.array(res.z_l, dtype=np.float64) if mc else None
        zb = np.array(res.z_bu, dtype=np.float64) - np.array(res.z_bl, dtype=np.float64) if has_box else None
        return RawResult(x, ok, text, iters, y, z, zb, inaccurate=inaccurate)
