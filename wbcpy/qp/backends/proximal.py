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

from ..kkt import Matrix, StdQP
from .base import Backend, Multipliers, Outcome, Run


def _status_text(status: object) -> str:
    """A backend enum's name (``QPSolverOutput.PROXQP_SOLVED`` → ``PROXQP_SOLVED``)."""
    return str(status).rsplit(".", 1)[-1]


class ProxqpBackend(Backend[Any]):
    """ProxQP (proxsuite): dense ``proxqp.dense.QP`` with box constraints, or ``proxqp.sparse.QP``.

    Defaults: ``eps_abs = 1e-10``, ``eps_rel = 0``, ``rho = 1e-12`` (the proximal weight; ProxQP's default
    1e-6 makes the curvature-1e-8 directions converge at rate 0.99 per iteration), infeasibility
    tolerances 1e-12 (the default 1e-4 reports degenerate feasible problems as infeasible), and a bound
    on the work of one solve: ``max_iter = 300`` outer iterations of at most ``max_iter_in = 100`` inner
    ones (≤ 30,000 inner iterations). With the tight infeasibility tolerances ProxQP does not detect an
    infeasible problem and runs to its limits: ProxQP's own limits (10000 × 1500) and 2000 ×
    1500 took 10–300 s on 3–20-variable infeasible levels of the random-scene property tests
    (``tests/scenes/test_random_scenes.py``); with 300 × 100 they end in < 0.3 s, and on 400 random
    hierarchies
    and 150 random scenes exactly the same problems are solved as with 2000 × 1500 (the answer is refined
    and certified anyway; an infeasible level then goes to the rescue backends).
    The result is polished on its active set (see :mod:`wbcpy.qp.kkt`).

    Statuses: solved; maximum iterations (inaccurate: refined); any other one fails. The multipliers
    are read from ProxQP's result object (``y``; ``z`` over ``[C; I]``).
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
        out = proxqp.QPSolverOutput
        self.statuses = {out.PROXQP_SOLVED: Outcome.SOLVED, out.PROXQP_MAX_ITER_REACHED: Outcome.INACCURATE}
        self._texts = {out.PROXQP_SOLVED: "solved", out.PROXQP_MAX_ITER_REACHED: "maximum iterations reached"}
        self._qp: Any = None  # proxqp.dense.QP or proxqp.sparse.QP (untyped)
        self._key: tuple[int, int, int, bool, bool] | None = None

    @classmethod
    def option_names(cls) -> Iterable[str]:
        from proxsuite import proxqp

        return [a for a in dir(proxqp.Settings()) if not a.startswith("_")] + sorted(cls._init_args)

    def reset(self) -> None:
        self._qp = None
        self._key = None

    @staticmethod
    def _sparse_args(q: StdQP) -> tuple[tuple[Any, ...], int]:
        """(H, g, A, b, C, l, u) in CSC form (the sparse QP has no box: bounds become identity rows of
        C), and the number of rows of C."""
        blocks: list[Matrix] = []
        lo: list[np.ndarray] = []
        hi: list[np.ndarray] = []
        if q.mc and q.lbC is not None and q.ubC is not None:
            blocks.append(sp.csc_matrix(q.C))
            lo.append(q.lbC)
            hi.append(q.ubC)
        if q.has_bounds:
            lb, ub = q.full_bounds()
            blocks.append(sp.identity(q.n, format="csc"))
            lo.append(lb)
            hi.append(ub)
        C = sp.vstack(blocks, format="csc") if blocks else None
        l = np.concatenate(lo) if lo else None  # noqa: E741
        u = np.concatenate(hi) if hi else None
        A = sp.csc_matrix(q.A) if q.meq else None
        args = (sp.csc_matrix(q.H), q.g, A, q.b if q.meq else None, C, l, u)
        return args, (0 if C is None else C.shape[0])

    @staticmethod
    def _dense_args(q: StdQP) -> tuple[tuple[Any, ...], int]:
        """(H, g, A, b, C, lbC, ubC, lb, ub) for the dense QP, and the number of rows of C."""
        meq, mc = q.meq, q.mc
        lb, ub = q.full_bounds() if q.has_bounds else (None, None)
        args = (q.H, q.g, q.A if meq else None, q.b if meq else None, q.C if mc else None,
                q.lbC if mc else None, q.ubC if mc else None, lb, ub)  # fmt: skip
        return args, mc

    def _workspace(self, q: StdQP) -> Any:
        """The QP object holding ``q``: updated and warm-started from its previous result when warm
        starts are on and the structure is unchanged, else initialised anew."""
        px = self._proxqp
        args, n_in = self._sparse_args(q) if q.sparse else self._dense_args(q)
        init_kw = {k: v for k, v in self.options.items() if k in self._init_args}
        key = (q.n, q.meq, n_in, q.has_bounds, q.sparse)
        self.reused = self.warm_start and self._qp is not None and key == self._key
        if self.reused:
            qp = self._qp
            qp.settings.initial_guess = px.InitialGuess.WARM_START_WITH_PREVIOUS_RESULT
            qp.update(*args, update_preconditioner=True, **init_kw)
            return qp
        qp = px.sparse.QP(q.n, q.meq, n_in) if q.sparse else px.dense.QP(q.n, q.meq, n_in, q.has_bounds)
        for k, v in self.options.items():
            if k not in self._init_args:
                setattr(qp.settings, k, v)
        qp.settings.verbose = False
        qp.settings.initial_guess = px.InitialGuess.NO_INITIAL_GUESS
        qp.init(*args, **init_kw)
        self._qp, self._key = qp, key
        return qp

    def _run(self, q: StdQP, x0: np.ndarray | None) -> Run[Any]:
        qp = self._workspace(q)
        qp.solve()
        res = qp.results
        status = res.info.status
        text = self._texts.get(status) or _status_text(status)
        return status, text, int(res.info.iter), np.array(res.x, dtype=np.float64), res

    def _multipliers(self, q: StdQP, duals: Any) -> Multipliers:
        n, mc = q.n, q.mc
        y = np.array(duals.y, dtype=np.float64) if q.meq else None
        zall = np.array(duals.z, dtype=np.float64)  # over [C; I] (sparse: identity rows of C)
        return y, (zall[:mc] if mc else None), (zall[mc : mc + n] if q.has_bounds else None)


class PiqpBackend(Backend[Any]):
    """PIQP (proximal interior point): ``piqp.DenseSolver`` for dense problems, ``SparseSolver`` otherwise.

    Defaults: ``eps_abs = 1e-10``, ``eps_rel = 0``, ``max_iter = 500``, infeasibility tolerances 1e-12
    (PIQP's 1e-4 takes the curvature-1e-8 directions for unboundedness). No warm start (interior point).
    The result is polished on its active set.

    Statuses: solved; maximum iterations and numerical trouble (inaccurate: refined); any other one
    fails. Multipliers: PIQP reports both sides separately (z = z_u − z_l, z_box = z_bu − z_bl).
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
        self.statuses = {
            piqp.PIQP_SOLVED: Outcome.SOLVED,
            piqp.PIQP_MAX_ITER_REACHED: Outcome.INACCURATE,
            piqp.PIQP_NUMERICS: Outcome.INACCURATE,
        }
        self._solver: Any = None  # piqp.DenseSolver or piqp.SparseSolver (untyped)
        self._key: tuple[int, int, int, bool, bool] | None = None

    @classmethod
    def option_names(cls) -> Iterable[str]:
        import piqp

        return [a for a in dir(piqp.DenseSolver().settings) if not a.startswith("_")]

    def reset(self) -> None:
        self._solver = None
        self._key = None

    def _workspace(self, q: StdQP) -> Any:
        """The solver holding ``q``: updated when warm starts are on and the structure is unchanged,
        else set up anew."""
        meq, mc, sparse = q.meq, q.mc, q.sparse
        fmt = sp.csc_matrix if sparse else _same
        lb, ub = q.full_bounds() if q.has_bounds else (None, None)
        kw = dict(P=fmt(q.H), c=q.g, A=fmt(q.A) if meq else None, b=q.b if meq else None,
                  G=fmt(q.C) if mc else None, h_l=q.lbC if mc else None, h_u=q.ubC if mc else None,
                  x_l=lb, x_u=ub)  # fmt: skip
        key = (q.n, meq, mc, q.has_bounds, sparse)
        self.reused = self.warm_start and self._solver is not None and key == self._key
        if self.reused:
            self._solver.update(**kw)
            return self._solver
        solver = self._piqp.SparseSolver() if sparse else self._piqp.DenseSolver()
        for k, v in self.options.items():
            setattr(solver.settings, k, v)
        solver.settings.verbose = False
        solver.setup(**kw)
        self._solver, self._key = solver, key
        return solver

    def _run(self, q: StdQP, x0: np.ndarray | None) -> Run[Any]:
        solver = self._workspace(q)
        status = solver.solve()
        res = solver.result
        text = "solved" if status == self._piqp.PIQP_SOLVED else _status_text(status)
        return status, text, int(res.info.iter), np.array(res.x, dtype=np.float64), res

    def _multipliers(self, q: StdQP, duals: Any) -> Multipliers:
        def f64(v: Any) -> np.ndarray:
            return np.array(v, dtype=np.float64)

        y = f64(duals.y) if q.meq else None
        z = f64(duals.z_u) - f64(duals.z_l) if q.mc else None
        zb = f64(duals.z_bu) - f64(duals.z_bl) if q.has_bounds else None
        return y, z, zb


def _same(M: Matrix) -> Matrix:
    return M
