"""Hierarchies of two or more levels without constraint rows or fixed variable: the level loop's compiled
prefix (``wbcpy.qp.plain_levels``) and its hand-over to the general loop.

Oracles: the independent lexicographic KKT check and the level-by-level quadprog solution of
``tests/_qp_oracle.py``; closed forms for the hand-over cases (a top level that fixes every variable, a
level that pins variables by selection rows, a pure least-squares level whose bounds stay active).
"""

from __future__ import annotations

import numpy as np
import pytest
from _qp_oracle import quadprog_lexicographic, verify_lexicographic
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wbcpy.qp.hierarchy as hierarchy
from wbcpy.errors import QPSolveError
from wbcpy.qp import HierarchicalQP, QPLevel, QPSolver
from wbcpy.qp.backends import daqp_direct

LAM = 1e-8
#: the prefix solves levels by the compiled level, which calls DAQP's C solver directly; without it
#: (WBCPY_DAQP_DIRECT=0, another daqp release) it hands every problem over at level 0
COMPILED = daqp_direct.bound()


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Record what each call of the prefix answered (an x, a hand-over (loop, level) or None)."""
    seen: list[object] = []
    real = hierarchy.plain_levels

    def spy(*args: object) -> object:
        out = real(*args)  # type: ignore[arg-type]
        seen.append(out)
        return out

    monkeypatch.setattr(hierarchy, "plain_levels", spy)
    return seen


def _plain(seed: int, semidefinite: bool, selection: bool) -> HierarchicalQP:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 9))
    xf = rng.uniform(-0.5, 0.5, n)
    lb, ub = -rng.uniform(0.6, 1.5, n), rng.uniform(0.6, 1.5, n)
    if rng.random() < 0.3:
        k = int(rng.integers(0, n))
        lb[k], ub[k] = -np.inf, np.inf
    levels = []
    nlev = int(rng.integers(2, 5))
    for p in range(nlev):
        m = int(rng.integers(0, n + 2))
        rank = int(rng.integers(1, n + 1))
        A = rng.standard_normal((m, rank)) @ rng.standard_normal((rank, n))  # (rank-deficient rows too)
        y = 3.0 * rng.standard_normal(m)
        if selection and rng.random() < 0.6:
            pins = rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False)
            S = np.zeros((pins.size, n))
            S[np.arange(pins.size), pins] = rng.uniform(0.5, 2.0, pins.size)
            A, y = np.vstack([A, S]), np.concatenate([y, S @ xf])
        reg = np.full(n, LAM)
        if semidefinite and p < nlev - 1:
            reg[rng.random(n) < 0.6] = 0.0
        levels.append(QPLevel(A, y, reg))
    return HierarchicalQP(levels, [f"x{i}" for i in range(n)], lb, ub)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**31 - 1), semidefinite=st.booleans(), selection=st.booleans(), tighten=st.booleans()
)
def test_plain_hierarchies_are_lexicographic_optima(seed, semidefinite, selection, tighten):
    """(tighten=False: the scenes' DAQP, whose levels the prefix answers; True: more hand-overs.)"""
    hqp = _plain(seed, semidefinite, selection)
    try:
        x = QPSolver("daqp", rescue=None, tighten=tighten).solve_hierarchy(hqp.copy())
    except QPSolveError:
        return  # (a declined level raises: nothing wrong is returned)
    assert verify_lexicographic(hqp, x) is None
    if all(lv.regularization.min() > 0 for lv in hqp.levels):
        ref = quadprog_lexicographic(hqp)
        if ref is not None:
            for lv in hqp.levels:
                cost, ref_cost = (float(np.sum((lv.A @ v - lv.y) ** 2)) for v in (x, ref))
                assert abs(cost - ref_cost) <= 1e-5 * (1.0 + abs(ref_cost))


def test_two_levels_solved_by_the_prefix(monkeypatch):
    """Level 0 sets x0 + x1 = 1; level 1 pulls x towards (0, 5): x1 = 0.2 at its bound, x0 = 0.8."""
    seen = _spy(monkeypatch)
    lb, ub = np.full(2, -1.0), np.array([1.0, 0.2])
    hqp = HierarchicalQP(
        [
            QPLevel(np.array([[1.0, 1.0]]), np.array([1.0]), np.full(2, LAM)),
            QPLevel(np.eye(2), np.array([0.0, 5.0]), np.full(2, LAM)),
        ],
        ["a", "b"],
        lb,
        ub,
    )
    solver = QPSolver("daqp", tighten=False)
    x = solver.solve_hierarchy(hqp)
    np.testing.assert_allclose(x, [0.8, 0.2], atol=1e-6)
    if COMPILED:
        assert isinstance(seen[-1], np.ndarray)  # (answered by the prefix)
    else:
        assert isinstance(seen[-1], tuple) and seen[-1][1] == 0
    st0, st1 = solver.statuses
    assert (st0.level, st1.level, st1.n_eq, st1.n_variables) == (0, 1, 1, 1)


def test_hand_over_when_the_top_level_fixes_every_variable(monkeypatch):
    """Level 0 fixes x = (0.5, −0.5) by two independent rows; level 1 is skipped, its point checked."""
    seen = _spy(monkeypatch)
    hqp = HierarchicalQP([QPLevel(np.array([[1.0, 1.0], [1.0, -1.0]]), np.array([0.0, 1.0]), np.full(2, LAM)),
                          QPLevel(np.eye(2), np.array([3.0, 3.0]), np.full(2, LAM))],
                         ["a", "b"], np.full(2, -1.0), np.full(2, 1.0))  # fmt: skip
    solver = QPSolver("daqp", tighten=False)
    x = solver.solve_hierarchy(hqp)
    np.testing.assert_allclose(x, [0.5, -0.5], atol=1e-6)
    loop_state = seen[-1]
    assert isinstance(loop_state, tuple) and loop_state[1] == (1 if COMPILED else 0)
    assert solver.statuses[1].status == "skipped: higher levels fix x"


def test_hand_over_when_selection_rows_pin_variables(monkeypatch):
    """Level 0 pins x0..x2 by unit rows (targets 0.1, 0.2, 0.3); level 1 pulls all towards 0.9 within
    ub = 0.5: x3 = 0.5, the pinned ones as level 0 set them."""
    seen = _spy(monkeypatch)
    n = 4
    A0 = np.eye(n)[:3] * np.array([[2.0], [1.0], [0.5]])
    hqp = HierarchicalQP([QPLevel(A0, A0 @ np.array([0.1, 0.2, 0.3, 0.0]), np.full(n, LAM)),
                          QPLevel(np.eye(n), np.full(n, 0.9), np.full(n, LAM))],
                         list("abcd"), np.full(n, -0.5), np.full(n, 0.5))  # fmt: skip
    x = QPSolver("daqp", tighten=False).solve_hierarchy(hqp)
    np.testing.assert_allclose(x, [0.1, 0.2, 0.3, 0.5], atol=1e-6)
    assert isinstance(seen[-1], tuple) and seen[-1][0].pinned == 3
    assert verify_lexicographic(hqp, x) is None


def test_hand_over_when_a_pure_least_squares_level_holds_a_bound(monkeypatch):
    """Level 0 (no regulariser) wants x0 = 2 beyond ub = 1: x0 = 1 with its bound strongly active, which
    the levels below keep as an equality; level 1 pulls x0 to −1 and x1 to 0.3: x = (1, 0.3)."""
    seen = _spy(monkeypatch)
    hqp = HierarchicalQP([QPLevel(np.array([[1.0, 0.0]]), np.array([2.0]), np.zeros(2)),
                          QPLevel(np.eye(2), np.array([-1.0, 0.3]), np.full(2, LAM))],
                         ["a", "b"], np.full(2, -1.0), np.full(2, 1.0))  # fmt: skip
    x = QPSolver("daqp", tighten=False).solve_hierarchy(hqp)
    np.testing.assert_allclose(x, [1.0, 0.3], atol=1e-6)
    assert isinstance(seen[-1], tuple) and seen[-1][1] == (1 if COMPILED else 0)
    assert verify_lexicographic(hqp, x) is None


def test_not_taken_with_constraints_or_fixed_variables(monkeypatch):
    seen = _spy(monkeypatch)
    rows = [QPLevel(np.array([[1.0, 1.0]]), np.array([1.0]), np.full(2, LAM)),
            QPLevel(np.eye(2), np.array([0.0, 5.0]), np.full(2, LAM))]  # fmt: skip
    lb, ub = np.array([-1.0, 0.2]), np.array([1.0, 0.2])
    fixed = HierarchicalQP([lv.copy() for lv in rows], ["a", "b"], lb, ub)
    x = QPSolver("daqp", tighten=False).solve_hierarchy(fixed)
    np.testing.assert_allclose(x, [0.8, 0.2], atol=1e-6)
    constrained = HierarchicalQP([lv.copy() for lv in rows], ["a", "b"], np.full(2, -1.0), np.full(2, 1.0))
    constrained.levels[1].C, constrained.levels[1].lbC = np.array([[0.0, 1.0]]), np.array([-np.inf])
    constrained.levels[1].ubC = np.array([0.2])
    x = QPSolver("daqp", tighten=False).solve_hierarchy(constrained)
    np.testing.assert_allclose(x, [0.8, 0.2], atol=1e-6)
    assert seen == [None, None]
