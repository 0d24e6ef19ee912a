"""The level loop of :mod:`wbcpy.qp.hierarchy` for its most common multi-level problem: two or more levels
with task rows and no constraint rows, under bounds on both sides that fix no variable (a scene's task
levels under joint limits).

:func:`plain_levels` runs the loop's steps — the backend's compiled level on x = x̄ + Z w, the status
record, the levels below keeping A x = A x* through one null-space update — on local arrays, and hands
the loop its state (a :class:`Loop`) at the first level that needs more: one the compiled call does not
settle, selection rows that pin variables (:mod:`wbcpy.qp.pinning`), constraints held strongly active, a
point the levels above fix. The answers, records and errors are the loop's.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

import numpy as np

from .._kernels import bounds_gap as _bounds_gap
from .._kernels import nullspace_update as _nullspace_update
from .._kernels import pin_rows as _pin_rows
from .._kernels import regulariser_inert as _regulariser_inert
from .backends.base import FusedAnswer
from .fixed import FIX_TOL, FixedSplit
from .level_qp import ConstraintStack, LevelQP, plain_bounds
from .level_solver import LevelSolver, Solved, fused_solved
from .nullspace import NullSpace
from .pinning import Pinned
from .problem import HierarchicalQP, QPLevel, StatusRecord


class Loop(Protocol):
    """What :func:`plain_levels` needs of the level loop's state (``hierarchy._Loop``)."""

    ns: NullSpace
    stack: ConstraintStack

    def keep_optimum(self, level: QPLevel, sol: Solved, built: LevelQP, A: np.ndarray,
                     pin_data: Any = None) -> None: ...  # fmt: skip

    def keep_strong(self, level: QPLevel, sol: Solved, built: LevelQP, nf: int, stack: ConstraintStack,
                    pinned: Pinned | None) -> None: ...  # fmt: skip


#: the loop state's class (``hierarchy._Loop``): made from the fixed split and the rank tolerance
LoopT = TypeVar("LoopT", bound=Loop)
_clock = time.perf_counter


def plain_levels(hqp: HierarchicalQP, solver: LevelSolver, rank_tol: float, last: int,
                 records: list[StatusRecord], loop_type: Callable[[FixedSplit, float], LoopT],
                 ) -> np.ndarray | tuple[LoopT, int] | None:  # fmt: skip
    """The level loop of :func:`~wbcpy.qp.hierarchy.solve_levels` for a hierarchy of two or more levels
    without constraint rows or fixed variable (bounds on both sides, every ub − lb above
    :data:`~wbcpy.qp.fixed.FIX_TOL`) while the compiled level settles each level: the same calls, null
    space updates and records, on local arrays instead of the loop's split, null space and constraint
    stack (``loop_type``: the loop's state, made where a level needs it).

    Returns the answer x (the records appended to ``records``); or (the loop's state, the level to go
    on from) when a level needs what only the loop does (a level the compiled call does not settle,
    selection rows that pin variables, constraints held strongly active, a point fixed by the levels
    above); or None when the hierarchy is not of this kind."""
    n = _plain_size(hqp, last)
    if not n:
        return None
    levels, lb, ub = hqp.levels, hqp.lb, hqp.ub
    Z: np.ndarray | None = None
    xbar: np.ndarray | None = None
    blocks: list[np.ndarray] = []
    n_eq, name, solve = 0, solver.name, solver.solve_fused_level
    for p in range(last + 1):
        level, t0 = levels[p], _clock()
        A = level.A
        if p < last and not len(A):
            records.append((name, "skipped: no task rows", 0, _clock() - t0, p, n_eq, n, 0.0, 0.0, None))
            continue
        # (n_eq = n: higher levels fix x, the loop checks the point)
        out = None if n_eq == n else solve(A, level.y, level.regularization, Z, xbar, None, lb, ub, p)
        if out is None:
            return _state(loop_type, hqp, rank_tol, Z, xbar, n_eq, blocks), p
        # (the record of the level's Solved, read from the compiled answer: no fallback answered)
        _w, _z, _t, primal, dual, _smax, _c, _b, status, iterations, x, _marginal = out
        records.append((name, status, iterations, _clock() - t0, p, n_eq, n - n_eq, primal, dual, None))
        if p < last:  # (the loop's keep_optimum, in the same steps)
            data = _pin_rows(A, n - n_eq, x, blocks, None, None, None)
            if data is not None:  # (selection rows pin variables: the loop's split and stack)
                loop = _state(loop_type, hqp, rank_tol, Z, x, n_eq, blocks)
                loop.keep_optimum(level, fused_solved(out, name), _built(out, Z, hqp, xbar), A, data)
                return loop, p + 1
            Z_next, _, rank, _ = _nullspace_update(A, None, Z, x, rank_tol)
            blocks.append(A)
            # (a compiled answer's multipliers are exact: constraints strongly active are the loop's
            # where the regulariser has no curvature along what the rows leave free)
            if _regulariser_inert(level.regularization, Z_next):
                loop = _state(loop_type, hqp, rank_tol, Z_next, x, n_eq + rank, blocks)
                sol = fused_solved(out, name)
                loop.keep_strong(level, sol, _built(out, Z, hqp, xbar), n, loop.stack, None)
                return loop, p + 1
            Z, n_eq = Z_next, n_eq + rank
        xbar = x
    for p in range(last + 1, len(levels)):
        records.append((name, "skipped: no task rows", 0, 0.0, p, n_eq, n, 0.0, 0.0, None))
    assert xbar is not None
    return xbar


def _plain_size(hqp: HierarchicalQP, last: int) -> int:
    """n when :func:`_plain_levels` takes the hierarchy (two or more levels to solve, no constraint rows,
    bounds on both sides and no fixed variable), else 0."""
    lb, ub = hqp.lb, hqp.ub
    if last < 1 or lb is None or ub is None:
        return 0
    for lv in hqp.levels:
        if lv.E is not None or lv.C is not None:
            return 0
    n = len(lb)
    return n if n and _bounds_gap(lb, ub) > FIX_TOL else 0


def _built(out: FusedAnswer, Z: np.ndarray | None, hqp: HierarchicalQP, xbar: np.ndarray | None) -> LevelQP:
    """What ``hierarchy._solve_level`` returns as the built level of a compiled answer ``out`` (kept rows;
    without a null space, the bounds in w = x − x̄)."""
    if Z is not None:
        c_rows, b_rows = out[6], out[7]  # (the rows the compiled call kept)
        return LevelQP(None, c_rows, b_rows)
    return LevelQP(None, None, None, *plain_bounds(hqp.lb, hqp.ub, xbar))


def _state(loop_type: Callable[[FixedSplit, float], LoopT], hqp: HierarchicalQP, rank_tol: float,
           Z: np.ndarray | None, xbar: np.ndarray | None, n_eq: int,
           blocks: list[np.ndarray]) -> LoopT:  # fmt: skip
    """The level loop's state of :func:`plain_levels`' local arrays (nothing fixed, no stack rows)."""
    loop = loop_type(FixedSplit(hqp.lb, hqp.ub, hqp.n), rank_tol)
    ns = loop.ns
    ns.Z, ns.xbar, ns.n_eq, ns.blocks = Z, xbar, n_eq, blocks
    return loop
