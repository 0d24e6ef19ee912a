"""The test oracle's cost check of a level (tests/_qp_oracle._cost_is_optimal), itself tested: it
accepts the lexicographic optimum and refuses a point that keeps the higher level's rows but costs more."""

from __future__ import annotations

import numpy as np
import pytest
from _qp_oracle import _cost_is_optimal, verify_lexicographic

from wbcpy.qp import HierarchicalQP, QPLevel, QPSolver


def _two_levels(seed: int) -> HierarchicalQP:
    """Level 0: 2 rows over 5 variables (3 free directions below it); level 1: 3 rows; bounds far away."""
    rng = np.random.default_rng(seed)
    levels = [QPLevel(rng.standard_normal((2, 5)), rng.standard_normal(2), np.zeros(5)),
              QPLevel(rng.standard_normal((3, 5)), rng.standard_normal(3), np.full(5, 1e-8))]  # fmt: skip
    return HierarchicalQP(levels, [f"x{i}" for i in range(5)], lb=np.full(5, -1e3), ub=np.full(5, 1e3))


@pytest.mark.parametrize("seed", range(5))
def test_cost_check_accepts_the_optimum_and_refuses_a_worse_point(seed: int) -> None:
    hqp = _two_levels(seed)
    x = QPSolver("daqp").solve_hierarchy(hqp)
    lb, ub, keep = hqp.lb, hqp.ub, hqp.levels[0].A
    assert verify_lexicographic(hqp, x) is None
    assert _cost_is_optimal(hqp, 1, x, lb, ub, keep, 1e-6)
    N = np.linalg.svd(keep)[2][2:].T  # directions that keep level 0's rows
    worse = x + N @ np.full(3, 1e-2)
    assert not _cost_is_optimal(hqp, 1, worse, lb, ub, keep, 1e-6)
    assert verify_lexicographic(hqp, worse) is not None


@pytest.mark.parametrize("seed", range(5))
def test_a_level_above_the_last_judged_by_its_cost_still_refuses_a_worse_point(seed: int) -> None:
    """A level above the last may be judged by its cost at its own point z (``verify_lexicographic``):
    a point moved off level 0's optimum along level 0's rows (a regularised level 0 here) costs more at
    every z that keeps its rows' values, so it is refused."""
    rng = np.random.default_rng(100 + seed)
    levels = [QPLevel(rng.standard_normal((2, 5)), rng.standard_normal(2), np.full(5, 1e-6)),
              QPLevel(rng.standard_normal((3, 5)), rng.standard_normal(3), np.full(5, 1e-8))]  # fmt: skip
    hqp = HierarchicalQP(levels, [f"x{i}" for i in range(5)], lb=np.full(5, -1e3), ub=np.full(5, 1e3))
    x = QPSolver("daqp").solve_hierarchy(hqp)
    assert verify_lexicographic(hqp, x) is None
    A0 = hqp.levels[0].A
    worse = x + A0.T @ np.array([1e-3, -1e-3])  # (moves level 0's rows: its cost rises)
    assert verify_lexicographic(hqp, worse) is not None
