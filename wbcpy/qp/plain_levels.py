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
from .fixed import FIX_TOL, FixedSplit
from .level_qp import ConstraintStack, LevelQP, plain_bounds
from .level_solver import FusedLevel, LevelSolver, Solved
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
    n_eq, name = 0, solver.name
    for p in range(last + 1):
        level, t0 = levels[p], _clock()
        A = level.A
        if p < last and not A.shape[0]:
            records.append((name, "skipped: no task rows", 0, _clock() - t0, p, n_eq, n, 0.0, 0.0, None))
            continue
        # (n_eq = n: higher levels fix x, the loop checks the point)
        fused = None if n_eq == n else solver.solve_fused_level(A, level.y, level.regularization, Z, xbar,
                                                                None, lb, ub, p)  # fmt: skip
        if fused is None:
            return _state(loop_type, hqp, rank_tol, Z, xbar, n_eq, blocks), p
        sol, x = fused[0], fused[3]
        records.append((sol.solver, sol.status, sol.iterations, _clock() - t0, p, n_eq, n - n_eq,
                        sol.primal, sol.dual, sol.fallback))  # fmt: skip
        if p < last:
            kept = _keep_plain(loop_type, hqp, level, fused, Z, xbar, n_eq, blocks, rank_tol)
            if not isinstance(kept, tuple):
                return kept, p + 1
            Z, n_eq = kept
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
    n = int(lb.shape[0])
    return n if n and _bounds_gap(lb, ub) > FIX_TOL else 0


def _keep_plain(loop_type: Callable[[FixedSplit, float], LoopT], hqp: HierarchicalQP, level: QPLevel,
                fused: FusedLevel, Z: np.ndarray | None, xbar: np.ndarray | None, n_eq: int,
                blocks: list[np.ndarray],
                rank_tol: float) -> tuple[np.ndarray | None, int] | LoopT:  # fmt: skip
    """The loop's ``keep_optimum`` for :func:`plain_levels`, in the same steps: the next (Z, n_eq) with the
    level's rows appended to ``blocks``; or the loop's state, the optimum kept, where the level pins
    variables or holds constraints strongly active (``xbar``: the point the level was solved from)."""
    sol, c_rows, b_rows, x = fused
    A, n = level.A, hqp.n
    data = _pin_rows(A, n - n_eq, x, blocks, None, None, None)
    if data is not None:  # (selection rows pin variables: the loop's split and stack)
        loop = _state(loop_type, hqp, rank_tol, Z, x, n_eq, blocks)
        loop.keep_optimum(level, sol, _built(c_rows, b_rows, Z, hqp, xbar), A, data)
        return loop
    Z_next, _, rank, _ = _nullspace_update(A, None, Z, x, rank_tol)
    blocks.append(A)
    if sol.exact and _regulariser_inert(level.regularization, Z_next):
        loop = _state(loop_type, hqp, rank_tol, Z_next, x, n_eq + rank, blocks)
        loop.keep_strong(level, sol, _built(c_rows, b_rows, Z, hqp, xbar), n, loop.stack, None)
        return loop
    return Z_next, n_eq + rank


def _built(c_rows: np.ndarray | None, b_rows: np.ndarray | None, Z: np.ndarray | None, hqp: HierarchicalQP,
           xbar: np.ndarray | None) -> LevelQP:  # fmt: skip
    """What ``hierarchy._solve_level`` returns as the built level of a compiled answer (kept rows; without a
    null space, the bounds in w = x − x̄)."""
    if Z is not None:
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
