"""Lexicographic (strict-priority) solution of a :class:`~wbcpy.qp.problem.HierarchicalQP`: one level loop.

Level p solves::

    minimise    ‖A_p x − y_p‖² + Σ_j r_p,j x_j²
    subject to  E_h x = f_h and lbC_h ≤ C_h x ≤ ubC_h for every h ≤ p   (hard constraints)
                A_h x = A_h x*_h for every h < p                          (higher levels keep their optimum)
                a_i x = a_i x*  for the constraints strongly active at a higher level
                lb ≤ x ≤ ub

on the affine set x = x̄ + Z w of :class:`~wbcpy.qp.nullspace.NullSpace` (x̄ the previous level's optimum,
Z an orthonormal basis of what the equalities leave free), so the backend never sees equality rows that
are linearly dependent on each other or on active bounds. The levels below keep the rows' optimum
A_p x = A_p x*_p, so their feasible set is S = {x feasible : A_h x = A_h x*_h, h ≤ p}; every constraint
stays in it as an inequality. Where the level's regulariser has no curvature along S (a pure
least-squares level, or one whose regularised variables its rows fix — a contact scene's q̈, leaving the
wrench split free) and its multipliers are exact (an active-set backend's, or refined on the active set:
an iterative backend's estimate does not tell a strongly active constraint from a weakly active one),
the constraints whose multiplier is strongly positive (> 1e-6 · the stationarity scale) are also
carried down as equalities: a strictly positive multiplier of the rows' problem keeps its
constraint active on the rows' whole optimal set, which is S, and the levels below get a smaller, less
degenerate problem. Elsewhere they are not: those multipliers belong to ‖A x − y‖² + Σ r x², whose
optimum is one point of S, and a constraint the regulariser presses against (a joint held at its limit
by λ‖q̈‖² while a weak task leaves it free) must stay free for the levels below. Since x̄ satisfies every
higher constraint, level 0 is never degraded by a lower one. Variables with lb = ub are eliminated first
(:mod:`wbcpy.qp.fixed`).

Levels without rows are skipped (their constraints still hold below), except the last level that has
rows or constraints: it is solved, so that every constraint is enforced (a level without rows minimises
its regularisation under every constraint, keeping the higher levels' optimum; with neither rows nor
constraints anywhere, x = clip(0, lb, ub)). A level solved on a single point (higher levels fix
every direction) is skipped after checking that the point satisfies its constraints.

Each level is handed to a :class:`~wbcpy.qp.level_solver.LevelSolver` (backend call, certificate,
fallbacks): the backend-specific code is only that call.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from .._kernels import lift_clip as _lift_clip
from .._kernels import point_outside as _point_outside
from .._kernels import regulariser_inert as _regulariser_inert
from .._kernels import rows_excess as _rows_excess
from .._kernels import strong_entries as _strong_entries
from .fixed import FixedSplit
from .level_qp import ConstraintStack, InfeasibleConstantError, LevelQP, build_level, plain_bounds
from .level_solver import LevelSolver, Solved, SolveFailedError, fused_solved
from .nullspace import InconsistentEqualitiesError, NullSpace
from .pinning import Pinned, pin_selected
from .plain_levels import plain_levels
from .problem import HierarchicalQP, QPLevel, StatusRecord

#: a constraint is strongly active when |multiplier| > STRONG · the stationarity scale of its level
STRONG = 1e-6
_clock = time.perf_counter


class LevelFailedError(Exception):
    """Level ``level`` could not be solved (status text attached); the caller raises QPSolveError."""

    def __init__(self, level: int, status: str, records: list[StatusRecord]) -> None:
        super().__init__(status)
        self.level, self.status, self.records = level, status, records


def _last_level_to_solve(levels: list[QPLevel]) -> int:
    """The last level with rows or constraints (-1 when there is none): every level after it is empty."""
    for p in range(len(levels) - 1, -1, -1):
        lv = levels[p]
        if len(lv.A) or lv.E is not None or lv.C is not None:
            return p
    return -1


def _add_constraints(level: QPLevel, split: FixedSplit, ns: NullSpace, stack: ConstraintStack) -> None:
    """Impose the level's equality constraints on the null space and stack its inequality rows (the
    level's own arrays when no variable is fixed: the loop only reads them)."""
    E, f, C, lo, hi = level.E, level.f, level.C, level.lbC, level.ubC
    fixed = split.fixed is not None
    if E is not None and f is not None and E.shape[0]:
        Ef, shift = split.columns_and_shift(E)
        ns.add_equalities(Ef, f - shift if fixed else f)
    if C is not None and lo is not None and hi is not None and C.shape[0]:
        Cf, shift = split.columns_and_shift(C)
        if fixed:
            lo, hi = lo - shift, hi - shift
        stack.add(Cf, lo, hi)


def _strong_rows(built: LevelQP, z: np.ndarray | None, zb: np.ndarray | None, scale: float,
                 stack: ConstraintStack, nf: int) -> list[np.ndarray]:  # fmt: skip
    """Rows (over the free variables) of the constraints strongly active at the level's optimum."""
    tau = STRONG * scale
    rows: list[np.ndarray] = []
    if zb is not None:  # plain bounds (Z = I)
        idx = _strong_entries(zb, tau)
        if idx is not None:
            rows.append(np.eye(nf)[idx])
    strong = None if z is None else _strong_entries(z, tau)
    if strong is not None:  # (rows of the stack first, then bounds as rows)
        c_rows, b_rows = built.c_rows, built.b_rows
        nc = 0 if c_rows is None else c_rows.size
        ci, bi = strong[strong < nc], strong[strong >= nc] - nc
        if ci.size and c_rows is not None and stack.rows is not None:
            rows.append(stack.rows[0][c_rows[ci]])
        if bi.size and b_rows is not None:
            rows.append(np.eye(nf)[b_rows[bi]])
    return rows


def _box_multipliers(sol: Solved, built: LevelQP) -> np.ndarray | None:
    """Bound multipliers −(Hx + g) on the bounds x sits at, from a box certificate's gradient."""
    lb, ub, t = built.lb, built.ub, sol.gradient
    if t is None or (lb is None and ub is None):
        return None
    x = sol.x
    near = 1e-9 * (1.0 + np.abs(x))
    at = np.zeros(x.shape[0], dtype=bool)
    if lb is not None:
        at |= x - lb <= near
    if ub is not None:
        at |= ub - x <= near
    return np.where(at, -t, 0.0)


def _check_point(ns: NullSpace, stack: ConstraintStack, split: FixedSplit) -> None:
    """Every direction is fixed: x̄ must satisfy the inequality rows and bounds, to 1e-9 relative (else
    infeasible): x̄ ≥ lb − 1e-9 (1 + |lb|), x̄ ≤ ub + 1e-9 (1 + |ub|) and lo − 1e-9 (1 + |C x̄|) ≤ C x̄ ≤
    hi + 1e-9 (1 + |C x̄|), in one compiled pass (:func:`wbcpy._kernels.point_outside`)."""
    C, lo, hi = stack.rows if stack.rows is not None else (None, None, None)
    if _point_outside(ns.point(), split.lb, split.ub, C, lo, hi, 1e-9):
        raise InfeasibleConstantError()


class _Loop:
    """The level loop's state: the fixed split, the null space, the stacked inequality rows, and how many
    variables higher levels pinned (:mod:`wbcpy.qp.pinning`)."""

    __slots__ = ("ns", "pinned", "split", "stack")

    def __init__(self, split: FixedSplit, rank_tol: float) -> None:
        self.split = split
        self.ns = NullSpace(split.nf, rank_tol)
        self.stack = ConstraintStack()
        self.pinned = 0

    def record(self, sol: Solved, t0: float, p: int) -> StatusRecord:
        n_eq = self.ns.n_eq + self.pinned
        return (sol.solver, sol.status, sol.iterations, _clock() - t0, p, n_eq, self.ns.k,
                sol.primal, sol.dual, sol.fallback)  # fmt: skip

    def keep_optimum(self, level: QPLevel, sol: Solved, built: LevelQP, A: np.ndarray,
                     pin_data: Any = None) -> None:  # fmt: skip
        """What the levels below keep of this level's answer: its rows' optimum (the variables its
        selection rows pin, or all its rows in the null space), and, where its regulariser has no
        curvature along what the rows leave free, the constraints it holds strongly active
        (``pin_data``: :func:`~wbcpy.qp.pinning.pin_selected`'s compiled data, when already computed)."""
        split, stack = self.split, self.stack
        pinned = pin_selected(A, split, self.ns, stack, pin_data)
        if pinned is None:
            self.ns.add_rows(A)  # ns.Z now spans S, what the levels below may still move along
        else:
            self.split, self.ns, self.stack = pinned.split, pinned.ns, pinned.stack
            self.pinned += pinned.pinned
        self.keep_strong(level, sol, built, split.nf, stack, pinned)

    def keep_strong(self, level: QPLevel, sol: Solved, built: LevelQP, nf: int, stack: ConstraintStack,
                    pinned: Pinned | None) -> None:  # fmt: skip
        """The second part of :meth:`keep_optimum`, once the level's rows are kept: where the level's
        regulariser has no curvature along what its rows leave free, the constraints it holds strongly
        active (``nf``, ``stack``: the free variables and constraint stack the level was solved on)."""
        if sol.exact and _regulariser_inert(self.split.take(level.regularization), self.ns.Z):
            zb = sol.z_box if sol.z_box is not None else _box_multipliers(sol, built)
            strong = _strong_rows(built, sol.z, zb, sol.dual_scale, stack, nf)
            if strong:
                rows = np.vstack(strong)
                self.ns.add_rows(rows if pinned is None else rows[:, pinned.keep])


def solve_levels(
    hqp: HierarchicalQP, solver: LevelSolver, rank_tol: float
) -> tuple[np.ndarray, tuple[StatusRecord, ...]]:
    """Solve a validated hierarchy; returns (x, status records) or raises. (The caller first tries
    :meth:`LevelSolver.solve_box_level`, which settles a scene's most common problem in one call.)

    Status records are tuples (solver, status, iterations, time, level, n_eq, n_variables, primal, dual,
    fallback) — see :class:`~wbcpy.qp.problem.LevelStatus`.

    Raises:
        InfeasibleBoundsError: inconsistent bounds (from :class:`~wbcpy.qp.fixed.FixedSplit`).
        LevelFailedError: a level could not be solved or is infeasible.
    """
    levels = hqp.levels
    last = _last_level_to_solve(levels)
    records: list[StatusRecord] = []
    plain = plain_levels(hqp, solver, rank_tol, last, records, _Loop)
    if isinstance(plain, np.ndarray):
        return plain, tuple(records)
    loop, start = plain if plain is not None else (_Loop(FixedSplit(hqp.lb, hqp.ub, hqp.n), rank_tol), 0)
    constrained = _loop_levels(hqp, solver, loop, start, last, records)
    split = loop.split
    x = loop.ns.point() if last >= 0 else _lift_clip(None, np.zeros(split.nf), None, split.lb, split.ub)
    x = split.merge(x)
    bad = _violated_constraints(hqp, constrained, x, solver.kkt_tol) if constrained else None
    if bad is not None:
        raise LevelFailedError(bad[0], bad[1], records)
    return x, tuple(records)


def _loop_levels(hqp: HierarchicalQP, solver: LevelSolver, loop: _Loop, start: int, last: int,
                 records: list[StatusRecord]) -> list[int]:  # fmt: skip
    """The level loop of :func:`solve_levels` from level ``start`` on (records appended to ``records``);
    returns the levels with equality or inequality rows (the answer is checked against them)."""
    levels = hqp.levels
    constrained: list[int] = []
    for p in range(start, len(levels)):
        level = levels[p]
        t0 = _clock()
        try:
            split, ns, stack = loop.split, loop.ns, loop.stack
            if level.E is not None or level.C is not None:
                _add_constraints(level, split, ns, stack)
                constrained.append(p)
            why = _skip_reason(level, p, last, ns, split, loop.pinned)
            if why is not None:
                if why == "higher levels fix x":
                    _check_point(ns, stack, split)
                records.append((solver.name, f"skipped: {why}", 0, _clock() - t0, p,
                                ns.n_eq + loop.pinned, split.nf, 0.0, 0.0, None))  # fmt: skip
                continue
            sol, built, A, x = _solve_level(level, split, ns, stack, solver, p, p < last)
            records.append(loop.record(sol, t0, p))
            ns.xbar = x
            if built is not None:
                loop.keep_optimum(level, sol, built, A)
        except (InconsistentEqualitiesError, InfeasibleConstantError) as exc:
            why = str(exc) or "a constraint fixed by higher levels is violated"
            raise LevelFailedError(p, f"infeasible: {why}",
                               records) from None  # fmt: skip
        except SolveFailedError as exc:
            raise LevelFailedError(p, exc.status, records) from None
    return constrained


def _violated_constraints(hqp: HierarchicalQP, constrained: list[int], x: np.ndarray,
                          tol: float) -> tuple[int, str] | None:  # fmt: skip
    """(level, what) of the first level of ``constrained`` whose equalities or inequalities the answer
    violates, None when it meets them all: each level was certified in its own coordinates x̄ + Z w, and
    this last guard against what lifting and cancellation could lose is one compiled pass per constraint
    block (:func:`wbcpy._kernels.rows_excess`). It is judged against the rows' data, not against the
    answer's own size: a row's violation may exceed tol·(1 + |side|) only by the rounding allowance of its
    terms, 8(n + 1)ε·|M||x|, and the answer's rounding ε·max|M|·‖x‖₂ may not exceed tol·(1 + the largest
    side) — an answer far out along the rows' null space meets them to rounding while its products carry
    no digit of their sides."""
    levels = hqp.levels
    for p in constrained:
        level = levels[p]
        E, f = level.E, level.f
        if E is not None and f is not None and E.shape[0]:
            off = _rows_excess(E, f, f, x, tol)
            if off > 0.0:
                return p, (f"equality constraints violated in the answer, or the answer beyond what they "
                           f"resolve ({off:.3g} beyond tolerance)")  # fmt: skip
        C, lo, hi = level.C, level.lbC, level.ubC
        if C is None or lo is None or hi is None or not C.shape[0]:
            continue
        if _rows_excess(C, lo, hi, x, tol) > 0.0:
            return p, "inequality constraints violated in the answer, or the answer beyond what they resolve"
    return None


def _skip_reason(level: QPLevel, p: int, last: int, ns: NullSpace, split: FixedSplit,
                 pinned: int) -> str | None:  # fmt: skip
    if split.nf == 0:
        return "higher levels fix x" if pinned else "no free variable"
    if p > last or (p < last and level.A.shape[0] == 0):
        return "no task rows"
    if ns.k == 0:
        return "higher levels fix x"
    return None


def _solve_level(level: QPLevel, split: FixedSplit, ns: NullSpace, stack: ConstraintStack,
                 solver: LevelSolver, p: int,
                 keep: bool) -> tuple[Solved, LevelQP | None, np.ndarray, np.ndarray]:  # fmt: skip
    """Build level p's QP in the free directions and solve it: (answer, built level — None unless ``keep``
    (levels below keep its optimum) —, its rows A, the next point x̄ + Z w clipped into the box). The
    backend's compiled path (:meth:`LevelSolver.solve_fused_level`) is tried first on the levels it
    takes — every level on a null space, and a first level with bounds on both sides and no rows — and
    answers what the built StdQP would get, or leaves the level to it."""
    if split.fixed is None:  # (nothing fixed: the level as it is)
        A, y, r = level.A, level.y, level.regularization
    else:
        A, shift = split.columns_and_shift(level.A)
        y, r = level.y - shift, split.take(level.regularization)
    lb, ub, Z, xbar = split.lb, split.ub, ns.Z, ns.xbar
    if Z is not None or (stack.rows is None and lb is not None and ub is not None):
        fused = solver.solve_fused_level(A, y, r, Z, xbar, stack.rows, lb, ub, p)
        if fused is not None:
            sol = fused_solved(fused, solver.name)
            *_, c_rows, b_rows, _status, _iterations, x, _marginal = fused
            if not keep:
                return sol, None, A, x
            if Z is not None:  # (the bounds were rows of Z)
                return sol, LevelQP(None, c_rows, b_rows), A, x
            return sol, LevelQP(None, None, None, *plain_bounds(lb, ub, xbar)), A, x
    built = build_level(A, y, r, ns, stack, lb, ub)
    assert built.q is not None
    # on a null space, w = 0 (the level above's answer x̄) satisfies the level's constraints: a feasible
    # start for the last fallback (LevelSolver, step 5)
    start = None if Z is None else np.zeros(built.q.g.shape[0])
    sol = solver.solve(built.q, p, start)
    return sol, built if keep else None, A, _lift_clip(Z, sol.x, xbar, split.lb, split.ub)
