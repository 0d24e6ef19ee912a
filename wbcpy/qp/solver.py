"""QPSolver: one backend behind a uniform, checked interface; single QPs and lexicographic hierarchies.

Pipeline of every solve:

1. validate the problem (:class:`~wbcpy.errors.InvalidValueError` on bad shapes / NaN);
2. reject inconsistent bounds (lb > ub, lbC > ubC) with :class:`~wbcpy.errors.QPSolveError`;
3. eliminate fixed variables (``ub − lb ≤ 1e-12``): they are substituted into the cost and constraints,
   so no backend ever sees ``lb == ub`` (several dislike it) and the problem shrinks; rows of C bounded
   on neither side and bound vectors without a finite entry are dropped;
4. call the backend in its preferred matrix format with tight tolerances (``wbcpy.qp.backends``),
   warm-started from the previous solution of the same size. If it fails after reusing a persistent
   workspace it is retried once from scratch, then once with the backend's fallback settings (DAQP:
   proximal iterations), whose result is treated as inexact;
5. for backends that are not exact active-set solvers, polish x on the active set they identified
   (:func:`wbcpy.qp._kkt.polish`): this makes every backend agree with the dense active-set ones even in
   directions whose only curvature is the scene's λ = 1e-8 (an exact backend's answer that fails the
   KKT check of step 6 is polished too before giving up);
6. check the KKT residuals (primal, dual, complementarity ≤ ``kkt_tol`` relative to the problem scale);
   a failed status, a non-finite x or residuals above tolerance raise :class:`QPSolveError` — a wrong x
   is never returned silently.

Accuracy: the backends all see H = AᵀA + diag(r), whose condition number is (σ_max/√λ)²; x is exact
to about 1e-16·cond(H) relative, which is ~1e-8 for a 7-DOF arm with unit weights and can reach 1e-5 for
task weights of 1e2 with λ = 1e-8. Backends agree with each other to that level.

Hierarchies (:meth:`QPSolver.solve_hierarchy`) are solved level by level; level p minimises its cost
subject to ``N x = N x̄`` where x̄ is the optimum of level p−1 (clipped to the bounds) and N is an
orthonormal basis of the row space of all higher levels' rows (rows normalised, then a pivoted QR; a
direction counts when its singular-value estimate exceeds ``rank_tol`` = 1e-9 times the largest), plus the
bounds that were strongly active at a higher level. Since x̄ satisfies every higher constraint, each
level is feasible by construction and never degrades a higher one. The equalities are eliminated
(x = x̄ + Z w with Z a null-space basis) before the backend sees the level: see
:mod:`wbcpy.qp.hierarchy`. With the (default) DAQP backend, hierarchies first go through the dense fast
path of :mod:`wbcpy.qp.fast_daqp` — same method, same checks in vectorised form, no intermediate
objects — and fall back to the pipeline above whenever it cannot solve or verify a level.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..errors import ConfigError, ConfigKeyError, QPSolveError
from ._common import Solved, SolveFailedError, merge_fixed, no_inf, split_fixed
from ._kkt import RawResult, StdQP, kkt_residuals, polish
from .backends import Backend, make_backend
from .hierarchy import solve_levels
from .problem import HierarchicalQP, LevelStatus, QPProblem

__all__ = ["QPSolver"]


class QPSolver:
    """A QP backend with tuned tolerances, warm start, fixed-variable elimination and KKT checks.

    Args:
        name: backend name from :func:`wbcpy.qp.available_solvers`; ``None`` = :func:`default_solver`.
        warm_start: reuse the previous solution (and the backend workspace) when the size matches.
        kkt_tol: relative tolerance of the final KKT check (default 1e-6).
        rank_tol: rank threshold for the stacked higher-priority rows (default 1e-9, rows normalised).
        polish: polish non-exact backends on their active set (default True; False = trust the backend).
        via_qpsolvers: force the generic ``qpsolvers.solve_problem`` path even when a dedicated adapter
            exists (for comparison; slower).
        **solver_options: backend options overriding wbcpy's tuned defaults (e.g. ``eps_abs=1e-8``).

    Raises:
        ConfigKeyError: unknown or unusable backend name (lists :func:`available_solvers`).
        ConfigError: an option the backend does not know, or a bad tolerance.

    Attributes:
        statuses: one :class:`LevelStatus` per level of the last successful solve.
    """

    def __init__(
        self,
        name: str | None = None,
        warm_start: bool = True,
        *,
        kkt_tol: float = 1e-6,
        rank_tol: float = 1e-9,
        polish: bool = True,
        via_qpsolvers: bool = False,
        **solver_options: Any,
    ) -> None:
        from .registry import available_solvers, default_solver, works

        if name is None:
            name = default_solver()
        elif not works(name):
            raise ConfigKeyError("solver", "QP solver", name, available_solvers())
        self._setup(name, warm_start, kkt_tol, rank_tol, polish, via_qpsolvers, solver_options)

    @classmethod
    def _unchecked(cls, name: str, **kwargs: Any) -> QPSolver:
        """Build without checking ``name`` against available_solvers() (used by the availability test)."""
        self = cls.__new__(cls)
        self._setup(name, True, 1e-6, 1e-9, True, kwargs.pop("via_qpsolvers", False), kwargs)
        return self

    def _setup(self, name, warm_start, kkt_tol, rank_tol, polish_, via_qpsolvers, options) -> None:
        for field, value in (("kkt_tol", kkt_tol), ("rank_tol", rank_tol)):
            if not (isinstance(value, int | float) and 0.0 < float(value) < 1.0):
                raise ConfigError(field, f"must be a number in (0, 1), got {value!r}")
        self._name = str(name)
        self.warm_start = bool(warm_start)
        self.kkt_tol = float(kkt_tol)
        self.rank_tol = float(rank_tol)
        self.polish = bool(polish_)
        self._via = bool(via_qpsolvers)
        self._options = dict(options)
        self._backends: dict[Any, Backend] = {
            "solve": make_backend(self._name, warm_start, self._options, self._via)
        }
        self._warm: dict[Any, np.ndarray] = {}
        self._fast: Any = None  # wbcpy.qp.fast_daqp.DaqpFastPath for the dense DAQP adapter
        if self._name == "daqp" and not self._via:
            from .fast_daqp import DaqpFastPath

            self._fast = DaqpFastPath(self)
        self._statuses: list[LevelStatus] | None = []
        self._status_records: list[tuple] | None = None

    @property
    def statuses(self) -> list[LevelStatus]:
        """One :class:`LevelStatus` per level of the last successful solve (built when first read)."""
        if self._statuses is None:
            name = self._name
            self._statuses = [
                LevelStatus(name, st, it, tm, p, r, nf, rp, rd)
                for st, it, tm, p, r, nf, rp, rd in self._status_records
            ]
        return self._statuses

    @statuses.setter
    def statuses(self, value: list[LevelStatus]) -> None:
        self._statuses = value
        self._status_records = None

    def _set_status_records(self, records: list[tuple]) -> None:
        """Store the statuses of a solve as (status, iterations, time, level, n_eq, n_variables, primal,
        dual) tuples; :attr:`statuses` turns them into LevelStatus objects when read."""
        self._status_records = records
        self._statuses = None

    def _status_snapshot(self) -> Any:
        """An immutable handle on the current statuses, cheap to take (see :func:`statuses_of`)."""
        if self._statuses is None:
            return (self._name, self._status_records)
        return list(self._statuses)

    @property
    def name(self) -> str:
        """Backend name."""
        return self._name

    @property
    def solver_options(self) -> dict[str, Any]:
        """Effective backend options (wbcpy defaults merged with the user's)."""
        return dict(self._backends["solve"].options)

    def __repr__(self) -> str:
        return f"QPSolver({self._name!r}, warm_start={self.warm_start})"

    def reset(self) -> None:
        """Forget warm-start data and backend workspaces."""
        self._warm.clear()
        if self._fast is not None:
            self._fast.reset()
        for b in self._backends.values():
            b.reset()

    # -- core -------------------------------------------------------------------------------------
    def _backend(self, key: Any) -> Backend:
        b = self._backends.get(key)
        if b is None:  # one backend (workspace) per level
            b = make_backend(self._name, self.warm_start, self._options, self._via)
            self._backends[key] = b
        return b

    @staticmethod
    def _guarded(call) -> RawResult:
        try:
            return call()
        except Exception as exc:  # a backend crash is a solve failure, not a wbcpy bug
            return RawResult(None, False, f"{type(exc).__name__}: {exc}")

    def _retry(self, backend: Backend, q: StdQP, x0: np.ndarray | None, raw: RawResult):
        """After a failed call: retry once from scratch (when a reused workspace failed), then with the
        backend's fallback settings. Returns (result, exact, status prefix); raises SolveFailedError."""

        def good(r: RawResult) -> bool:
            return r.x is not None and (r.ok or r.inaccurate)

        first = raw.status
        if backend.reused:
            backend.reset()
            raw = self._guarded(lambda: backend.solve(q, None))
            if good(raw):
                return raw, backend.exact, ""
        backend.reset()
        fallback = self._guarded(lambda: backend.solve_fallback(q, x0))
        if fallback is None:
            raise SolveFailedError(first, raw.iterations)
        if isinstance(fallback, RawResult):  # the fallback itself crashed
            raise SolveFailedError(f"{first}; fallback failed: {fallback.status}")
        desc, raw = fallback
        if good(raw):
            return raw, False, f"{first}; retried with {desc}: "
        backend.reset()
        raise SolveFailedError(f"{first}; retried with {desc}: {raw.status}", raw.iterations)

    def _solve_std(self, q: StdQP, key: Any) -> Solved:
        """Backend call + polish + KKT check; raises SolveFailedError."""
        backend = self._backend(key)
        x0 = self._warm.get(key) if self.warm_start else None
        if x0 is not None and x0.shape[0] != q.n:
            x0 = None
        try:
            raw = backend.solve(q, x0)
        except Exception as exc:  # a backend crash is a solve failure, not a wbcpy bug
            raw = RawResult(None, False, f"{type(exc).__name__}: {exc}")
        if raw.x is not None and (raw.ok or raw.inaccurate):
            exact, prefix = backend.exact, ""
        else:
            raw, exact, prefix = self._retry(backend, q, x0, raw)
        x = raw.x
        if x.shape != (q.n,):
            backend.reset()
            raise SolveFailedError(
                f"{raw.status}; solution has shape {x.shape}, expected ({q.n},)", raw.iterations
            )
        y, z, zb = raw.y, raw.z, raw.z_box
        status = prefix + (raw.status if raw.ok else f"{raw.status} (inaccurate)")
        trusted = exact  # multipliers only on active constraints, with the right sign
        polished = False
        if self.polish and not trusted and np.isfinite(x).all():
            pol = polish(q, x)
            polished = True
            if pol is not None:
                x, y, z, zb = pol
                status = f"{prefix}{raw.status} (polished)"
                trusted = True
        tol = self.kkt_tol
        rp, rd, rc, ps, ds = kkt_residuals(q, x, y, z, zb, complementarity=not trusted)
        ok = rp <= tol * ps and rd <= tol * ds and rc <= tol  # also False for NaN
        if not ok and self.polish and not polished and np.isfinite(x).all():
            # an active-set backend's answer on a badly conditioned problem: refine it on its active set
            pol = polish(q, x)
            if pol is not None:
                x, y, z, zb = pol
                status = f"{status} (polished after KKT check)"
                rp, rd, rc, ps, ds = kkt_residuals(q, x, y, z, zb, complementarity=False)
                ok = rp <= tol * ps and rd <= tol * ds
        if not ok:
            backend.reset()
            if not np.isfinite(x).all():
                raise SolveFailedError(f"{status}; non-finite solution", raw.iterations)
            raise SolveFailedError(
                f"{status}; KKT residuals above tolerance {tol:g}: primal {rp:.3g} (scale {ps:.3g}), "
                f"dual {rd:.3g} (scale {ds:.3g}), relative complementarity {rc:.3g}",
                raw.iterations,
            )
        return Solved(x, z, zb, status, raw.iterations, rp, rd, ds)

    # -- single QP --------------------------------------------------------------------------------
    def solve(self, problem: QPProblem) -> np.ndarray:
        """Solve one QP.

        Returns:
            x, a new (n,) float64 array.

        Raises:
            InvalidValueError: malformed problem (shapes, NaN, non-symmetric H).
            QPSolveError: infeasible bounds or constraints, backend failure, inaccurate solution.
        """
        t0 = time.perf_counter()
        p = problem.validate()
        n = p.n
        msg, fixed, xfix, lb, ub = split_fixed(p.lb, p.ub, n)
        if msg is None and p.C is not None and (p.lbC > p.ubC).any():
            msg = f"infeasible inequality bounds: lbC > ubC at rows {np.flatnonzero(p.lbC > p.ubC).tolist()}"
        if msg is not None:
            raise QPSolveError(self._name, msg, problem)
        H, g, A, b, C, lbC, ubC = p.H, p.g, p.A, p.b, p.C, p.lbC, p.ubC
        free = None
        if fixed is not None:
            free = ~fixed
            if sp.issparse(H):
                Hc = sp.csc_matrix(H)
                g = g[free] + Hc[free][:, fixed] @ xfix
                H = sp.csc_matrix(Hc[free][:, free])
            else:
                g = g[free] + H[np.ix_(free, fixed)] @ xfix
                H = H[np.ix_(free, free)]
            if A is not None:
                b = b - A[:, fixed] @ xfix
                A = A[:, free]
            if C is not None:
                shift = C[:, fixed] @ xfix
                lbC, ubC = lbC - shift, ubC - shift
                C = C[:, free]
            lb, ub = no_inf(lb[free]), no_inf(ub[free])
        if C is not None:
            bounded = np.isfinite(lbC) | np.isfinite(ubC)
            if not bounded.all():  # rows with both sides infinite constrain nothing
                C, lbC, ubC = (
                    (C[bounded], lbC[bounded], ubC[bounded]) if bounded.any() else (None, None, None)
                )
        sparse = sp.issparse(H) or sp.issparse(A) or sp.issparse(C)
        q = StdQP(H, g, A, b, C, lbC, ubC, lb, ub, sparse)
        nf = q.n
        if nf == 0:  # every variable fixed: the constraints read 0 = b', lbC' ≤ 0 ≤ ubC'
            x = np.empty(0)
            status, iters, rd = "solved (all variables fixed)", 0, 0.0
            rp = 0.0
            if b is not None and b.size:
                rp = float(abs(b).max())
            if lbC is not None and lbC.size:
                rp = max(rp, float(lbC.max()), float(-ubC.min()))
            if rp > self.kkt_tol * (1.0 + float(abs(xfix).max())):
                raise QPSolveError(
                    self._name,
                    f"infeasible: constraints violated by {rp:.3g} with every variable fixed",
                    problem,
                )
        else:
            try:
                sol = self._solve_std(q, "solve")
            except SolveFailedError as f:
                raise QPSolveError(self._name, f.status, problem) from None
            x, status, iters, rp, rd = (
                sol.x,
                sol.status,
                sol.iterations,
                sol.primal_residual,
                sol.dual_residual,
            )
        x = merge_fixed(x, n, free, fixed, xfix) if free is not None else np.array(x, dtype=np.float64)
        self._warm["solve"] = x[free] if free is not None else x.copy()
        meq = 0 if p.A is None else p.A.shape[0]
        self.statuses = [LevelStatus(self._name, status, iters, time.perf_counter() - t0, 0, meq, nf, rp, rd)]
        return x

    # -- hierarchy --------------------------------------------------------------------------------
    def solve_hierarchy(self, hqp: HierarchicalQP) -> np.ndarray:
        """Solve the levels lexicographically (see the module docstring).

        Level p minimises ‖A_p x − y_p‖² + Σ r_j x_j² subject to the bounds and to ``N x = N x̄`` for the
        rows of every higher level. Levels without rows are skipped; with no level at all (or only
        empty ones) x is the minimiser of the regularisation within the bounds, clip(0, lb, ub).

        Returns:
            x, a new (n,) float64 array.

        Raises:
            InvalidValueError: malformed levels or bounds.
            QPSolveError: with ``level`` = the level that failed (0 for inconsistent bounds).
        """
        return solve_levels(self, hqp)

    def _solve_hierarchy_trusted(self, hqp: HierarchicalQP) -> np.ndarray:
        """:meth:`solve_hierarchy` for problems whose structure the caller built and guarantees (float64
        arrays of the right shapes, r ≥ 0): the structural validation is skipped unless the generic path
        runs. Values are still checked (a NaN fails the fast path's checks and reaches the validation)."""
        fast = self._fast
        if fast is not None:
            x = fast.solve(hqp)
            if x is not None:
                return x
        return solve_levels(self, hqp, try_fast=False)


def statuses_of(snapshot: Any) -> list[LevelStatus]:
    """The LevelStatus list of a :meth:`QPSolver._status_snapshot` (or of a plain list of statuses)."""
    if isinstance(snapshot, tuple):
        name, records = snapshot
        return [LevelStatus(name, st, it, tm, p, r, nf, rp, rd) for st, it, tm, p, r, nf, rp, rd in records]
    return list(snapshot)
