"""QPSolver: one backend behind a uniform, checked interface; single QPs and lexicographic hierarchies.

Pipeline of every solve:

1. validate the problem (:class:`~wbcpy.errors.InvalidValueError` on bad shapes, NaN, complex values);
2. reject inconsistent bounds (lb > ub) with :class:`~wbcpy.errors.QPSolveError`;
3. eliminate fixed variables (``ub − lb ≤ 1e-12``, :mod:`wbcpy.qp.fixed`); drop rows bounded on
   neither side;
4. hierarchies: one level loop (:mod:`wbcpy.qp.hierarchy`) hands each level, reduced to the free
   directions of the levels above, to the per-level strategy of :mod:`wbcpy.qp.level_solver`: the
   backend in its preferred matrix format with tight tolerances (:mod:`wbcpy.qp.backends`), warm-started,
   then documented fallbacks (cold restart, the backend's robust settings, rescue backends);
5. every answer passes the full KKT certificate (:func:`wbcpy.qp.kkt.certify`: stationarity, primal
   and dual feasibility with multiplier signs, complementarity, all componentwise) — iterative backends'
   answers after an exact refinement on their active set — or the solve raises :class:`QPSolveError`:
   a wrong x is never returned.

Accuracy: backends see H = AᵀA + diag(r), whose condition number is (σ_max/√λ)²; an exact backend's x is
exact to about 1e-16·cond(H) relative, refinement works on the least-squares form (√cond). Answers that
cannot be certified at ``kkt_tol`` (default 1e-6, componentwise) raise instead of being returned.

Copies, pickles, threads: ``copy.copy``/``copy.deepcopy``/pickle give a new solver with the same
configuration and no warm-start data or workspace (backend workspaces cannot be copied). A QPSolver holds
per-level workspaces: use one solver per thread. A call that overlaps another call on the same solver
raises :class:`~wbcpy.errors.ConcurrentUseError` instead of mixing the two problems' workspaces.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._support.read_only import read_only
from ..errors import ConcurrentUseError, ConfigError, ConfigKeyError, QPSolveError
from .fixed import FixedSplit, InfeasibleBoundsError
from .hierarchy import LevelFailedError, solve_levels
from .kkt import Matrix, StdQP
from .level_solver import LevelSolver, SolveFailedError
from .problem import HierarchicalQP, LevelStatus, QPProblem, StatusRecord
from .registry import RESCUE_ORDER, available_solvers, default_solver, works


def _rescue_names(name: str, rescue: Any) -> tuple[str, ...]:
    if rescue == "auto":
        return tuple(r for r in RESCUE_ORDER if r != name and works(r))
    if rescue is None:
        return ()
    names = (rescue,) if isinstance(rescue, str) else tuple(rescue)
    for r in names:
        if not isinstance(r, str) or not works(r):
            raise ConfigKeyError("rescue", "QP solver", r, available_solvers())
    return names


class QPSolver:
    """A QP backend with tuned tolerances, warm start, fixed-variable elimination and KKT certificates.

    Args:
        name: backend name from :func:`wbcpy.qp.available_solvers`; ``None`` = :func:`default_solver`.
        warm_start: reuse the previous solution (and the backend workspace) when the size matches.
        kkt_tol: relative tolerance of the KKT certificate (default 1e-6, componentwise).
        rank_tol: rank threshold for the stacked higher-priority rows (default 1e-9, rows normalised).
        polish: refine iterative backends' answers on their active set (default True; False = certify
            them as they are, which rejects most of them in the λ-curvature directions).
        rescue: backends tried when ``name`` fails on a problem: ``"auto"`` (daqp, then osqp, the ones
            installed), a name or a sequence of names, or None (no rescue). The answering backend is named
            in :attr:`statuses`.
        via_qpsolvers: force the generic ``qpsolvers.solve_problem`` path even when a dedicated adapter
            exists (for comparison; slower).
        tighten: refine an exact backend's answer whose certificate passes with a residual above 1e-6 of
            ``kkt_tol`` (and run proximal iterations on it, then the fallbacks while it stays that loose),
            so that the rows' optimum the levels below keep is exact to rounding (default True: a
            semidefinite or λ = 1e-8 level's loose answer moved lower levels' costs by 1e-6 relative).
            The scenes turn it off for their own DAQP solvers: their levels are strictly convex (λ > 0),
            their answers certified to ``kkt_tol`` and checked exact against independent oracles, and
            refining every DAQP answer in Python would cost a multiple of the contact step.
        **solver_options: backend options overriding wbcpy's tuned defaults (e.g. ``eps_abs=1e-8``).

    Raises:
        ConfigKeyError: unknown or unusable backend name (lists :func:`available_solvers`).
        ConfigError: an option the backend does not know, or a bad tolerance.
    """

    def __init__(self, name: str | None = None, warm_start: bool = True, *, kkt_tol: float = 1e-6,
                 rank_tol: float = 1e-9, polish: bool = True, rescue: Any = "auto",
                 via_qpsolvers: bool = False, tighten: bool = True,
                 **solver_options: Any) -> None:  # fmt: skip
        if name is None:
            name = default_solver()
        elif not isinstance(name, str) or not works(name):
            raise ConfigKeyError("solver", "QP solver", name, available_solvers())
        for field, value in (("kkt_tol", kkt_tol), ("rank_tol", rank_tol)):
            ok = isinstance(value, int | float) and not isinstance(value, bool)
            if not ok or not 0.0 < float(value) < 1.0:
                raise ConfigError(field, f"must be a number in (0, 1), got {value!r}")
        self._config = dict(name=name, warm_start=bool(warm_start), kkt_tol=float(kkt_tol),
                            rank_tol=float(rank_tol), polish=bool(polish), rescue=rescue,
                            via_qpsolvers=bool(via_qpsolvers), tighten=bool(tighten),
                            **solver_options)  # fmt: skip
        self._levels = LevelSolver(name, bool(warm_start), solver_options, float(kkt_tol), bool(polish),
                                   _rescue_names(name, rescue), bool(via_qpsolvers),
                                   bool(tighten))  # fmt: skip
        self.rank_tol = float(rank_tol)
        self._records: tuple[StatusRecord, ...] = ()
        self._statuses: list[LevelStatus] | None = []
        self._busy = threading.Lock()

    # ------------------------------------------------------------------ copies and pickles
    def __reduce__(self) -> tuple[Any, ...]:
        config = dict(self._config)
        name = config.pop("name")
        warm = config.pop("warm_start")
        return (_rebuild, (name, warm, config))

    def __deepcopy__(self, memo: dict[int, Any]) -> QPSolver:
        return _rebuild(*self.__reduce__()[1])

    def __copy__(self) -> QPSolver:
        return self.__deepcopy__({})

    # ------------------------------------------------------------------ properties
    @property
    def name(self) -> str:
        """Backend name."""
        return self._levels.name

    @property
    def warm_start(self) -> bool:
        """Whether previous answers and workspaces are reused."""
        return self._levels.warm_start

    @property
    def kkt_tol(self) -> float:
        """Relative tolerance of the KKT certificate."""
        return self._levels.kkt_tol

    @property
    def polish(self) -> bool:
        """Whether iterative backends' answers are refined on their active set."""
        return self._levels.polish

    @property
    def rescue(self) -> tuple[str, ...]:
        """Backends tried when the configured one fails."""
        return self._levels.rescue

    @property
    def fallback_count(self) -> int:
        """Number of level answers that came from a fallback since this solver was made."""
        return self._levels.fallbacks

    @property
    def solver_options(self) -> dict[str, Any]:
        """Effective backend options (wbcpy defaults merged with the user's)."""
        return dict(self._levels.backends["solve"].options)

    @property
    def statuses(self) -> list[LevelStatus]:
        """One :class:`LevelStatus` per level of the last successful solve (built when first read)."""
        if self._statuses is None:
            self._statuses = [LevelStatus.from_record(r) for r in self._records]
        return list(self._statuses)

    status_records: tuple[StatusRecord, ...] = read_only(
        "records",
        "The last successful solve's statuses as plain tuples, cheap to keep (hot loops keep these and turn "
        "them into :class:`LevelStatus` objects with :meth:`LevelStatus.from_record` when read).",
    )

    def __repr__(self) -> str:
        return f"QPSolver({self.name!r}, warm_start={self.warm_start})"

    def reset(self) -> None:
        """Forget warm-start data and backend workspaces."""
        self._levels.reset()

    # ------------------------------------------------------------------ solving
    def solve(self, problem: QPProblem) -> np.ndarray:
        """Solve one QP.

        Returns:
            x, a new (n,) float64 array.

        Raises:
            InvalidValueError: malformed problem (shapes, NaN, complex, non-symmetric H).
            QPSolveError: infeasible bounds or constraints, backend failure, an answer that fails its
                KKT certificate. The solver's statuses are left as they were.
        """
        with self._exclusive():
            t0 = time.perf_counter()
            p = problem.validate()
            try:
                split = FixedSplit(p.lb, p.ub, p.n)
            except InfeasibleBoundsError as exc:
                raise QPSolveError(self.name, str(exc), problem) from None
            q = _std_problem(p, split)
            if q.n == 0:
                rec = self._all_fixed(p, split, problem)
                x = split.merge(np.zeros(0))
            else:
                try:
                    sol = self._levels.solve(q, "solve")
                except SolveFailedError as exc:
                    raise QPSolveError(self.name, exc.status, problem) from None
                rec = (sol.solver, sol.status, sol.iterations, 0.0, 0, q.meq, q.n, sol.primal, sol.dual,
                       sol.fallback)  # fmt: skip
                x = split.merge(sol.x)
            self._set_records([(*rec[:3], time.perf_counter() - t0, *rec[4:])])
            return np.array(x, dtype=np.float64)

    def _all_fixed(self, p: QPProblem, split: FixedSplit, problem: QPProblem) -> StatusRecord:
        """Every variable fixed: the constraints must hold at that point."""
        x = split.merge(np.zeros(0))
        viol = 0.0
        if p.A is not None and p.A.shape[0]:
            viol = float(np.abs(p.A @ x - p.b).max())
        if p.C is not None and p.C.shape[0]:
            cx = p.C @ x
            viol = max(viol, float(np.max(p.lbC - cx)), float(np.max(cx - p.ubC)))
        if viol > self.kkt_tol * (1.0 + float(np.abs(x).max(initial=0.0))):
            raise QPSolveError(self.name, f"infeasible: constraints violated by {viol:.3g} with every "
                                          "variable fixed", problem)  # fmt: skip
        return (self.name, "solved (all variables fixed)", 0, 0.0, 0, 0, 0, 0.0, 0.0, None)

    def solve_hierarchy(self, hqp: HierarchicalQP) -> np.ndarray:
        """Solve the levels lexicographically (see :mod:`wbcpy.qp.hierarchy`).

        Returns:
            x, a new (n,) float64 array.

        Raises:
            InvalidValueError: malformed levels or bounds.
            QPSolveError: with ``level`` = the level that failed (0 for inconsistent bounds); the
                statuses of the levels solved before it are attached as ``statuses``.
        """
        hqp.validate()
        return self.solve_hierarchy_unchecked(hqp)

    def solve_hierarchy_unchecked(self, hqp: HierarchicalQP) -> np.ndarray:
        """:meth:`solve_hierarchy` without the structural validation, for problems whose structure the
        caller built and guarantees (float64 arrays of the right shapes, r ≥ 0: a scene's own problem).

        Values are still checked where it matters: NaN or inf reaching the backend fails the certificate
        and the problem is then validated to report it as :class:`InvalidValueError`.
        """
        busy = self._busy
        if not busy.acquire(False):  # (positional: a keyword costs more than the solve's bookkeeping)
            raise ConcurrentUseError("QPSolver", "solve_hierarchy")
        try:
            levels, lb, ub = hqp.levels, hqp.lb, hqp.ub
            # (a scene's common problem — one level, bounds on both sides — in one call when it settles it)
            one = None if len(levels) != 1 or lb is None or ub is None else self._levels.solve_box_level(
                levels[0], lb, ub)  # fmt: skip
            x, records = one if one is not None else solve_levels(hqp, self._levels, self.rank_tol)
        except InfeasibleBoundsError as exc:
            hqp.validate()  # NaN in a bound is an InvalidValueError, not an infeasibility
            raise QPSolveError(self.name, str(exc), _level_problem(hqp, 0), level=0) from None
        except LevelFailedError as exc:
            hqp.validate()
            err = QPSolveError(self.name, exc.status, _level_problem(hqp, exc.level), level=exc.level)
            err.statuses = [LevelStatus.from_record(r) for r in exc.records]  # type: ignore[attr-defined]
            raise err from None
        finally:
            busy.release()
        self._records = records  # (a tuple: solve_levels hands over a fresh one)
        self._statuses = None
        return x

    # ------------------------------------------------------------------ internals
    def _set_records(self, records: list[StatusRecord]) -> None:
        self._records = tuple(records)
        self._statuses = None

    def _exclusive(self) -> _Exclusive:
        return _Exclusive(self._busy)


class _Exclusive:
    """Context manager: the solver's lock, taken without waiting (overlapping calls raise)."""

    __slots__ = ("_lock",)

    def __init__(self, lock: threading.Lock) -> None:
        self._lock = lock

    def __enter__(self) -> None:
        if not self._lock.acquire(False):  # (without waiting)
            raise ConcurrentUseError(
                "QPSolver", "a solve is already running on this solver in another thread"
            )

    def __exit__(self, *exc: object) -> None:
        self._lock.release()


def _rebuild(name: str, warm_start: bool, config: dict[str, Any]) -> QPSolver:
    return QPSolver(name, warm_start, **config)


def _std_problem(p: QPProblem, split: FixedSplit) -> StdQP:
    """The validated problem over its free variables (rows bounded on neither side dropped)."""
    H, g, A, b, C, lbC, ubC = p.H, p.g, p.A, p.b, p.C, p.lbC, p.ubC
    free, fixed, xf = split.free, split.fixed, split.values
    if free is not None and fixed is not None and xf is not None:
        H, g, A, b, C, lbC, ubC = _eliminate(p, free, fixed, xf)
    if C is not None and lbC is not None and ubC is not None:
        bounded = np.isfinite(lbC) | np.isfinite(ubC)
        if not bounded.all():
            C, lbC, ubC = (C[bounded], lbC[bounded], ubC[bounded]) if bounded.any() else (None, None, None)
    sparse = sp.issparse(H) or sp.issparse(A) or sp.issparse(C)
    return StdQP(H, g, A, b, C, lbC, ubC, split.lb, split.ub, sparse)


def _eliminate(p: QPProblem, free: np.ndarray, fixed: np.ndarray, xf: np.ndarray) -> tuple[
    Matrix, np.ndarray, Matrix | None, np.ndarray | None, Matrix | None, np.ndarray | None, np.ndarray | None
]:  # fmt: skip
    """(H, g, A, b, C, lbC, ubC) over the free variables, with the fixed ones (values xf) moved into g, b
    and the sides of C."""
    H, g, A, b, C, lbC, ubC = p.H, p.g, p.A, p.b, p.C, p.lbC, p.ubC
    Hc = sp.csc_matrix(H) if sp.issparse(H) else H
    g = g[free] + Hc[free][:, fixed] @ xf
    H = sp.csc_matrix(Hc[free][:, free]) if sp.issparse(H) else H[np.ix_(free, free)]
    if A is not None and b is not None:
        b = b - A[:, fixed] @ xf
        A = A[:, free]
    if C is not None and lbC is not None and ubC is not None:
        shift = C[:, fixed] @ xf
        lbC, ubC, C = lbC - shift, ubC - shift, C[:, free]
    return H, g, A, b, C, lbC, ubC


def _level_problem(hqp: HierarchicalQP, p: int) -> QPProblem:
    """Level p alone as a QPProblem over all n variables (its rows, constraints of levels ≤ p, bounds),
    for :class:`QPSolveError` post-mortems (the higher levels' optimality constraints are not included)."""
    n = hqp.n
    if not hqp.levels:
        return QPProblem(H=np.zeros((n, n)), g=np.zeros(n), lb=hqp.lb, ub=hqp.ub)
    level = hqp.levels[min(p, len(hqp.levels) - 1)]
    prob = level.to_problem(hqp.lb, hqp.ub)
    upper = hqp.levels[: p + 1]
    E = [(lv.E, lv.f) for lv in upper if lv.E is not None and lv.f is not None]
    if E:
        prob.A = np.vstack([e[0] for e in E])
        prob.b = np.concatenate([e[1] for e in E])
    C = [(lv.C, lv.lbC, lv.ubC) for lv in upper if lv.C is not None]
    if C:
        prob.C = np.vstack([c[0] for c in C])
        prob.lbC = np.concatenate([_side(c[1], c[0], -np.inf) for c in C])
        prob.ubC = np.concatenate([_side(c[2], c[0], np.inf) for c in C])
    return prob


def _side(v: np.ndarray | None, C: np.ndarray, default: float) -> np.ndarray:
    """A side of the rows of C (``default`` everywhere when absent)."""
    return np.full(C.shape[0], default) if v is None else v
