"""Validation of QP containers (a rejected problem names its field and is left as it was) and the edge
cases of the layer's building blocks: the fixed-variable split, the null space, the refinement of a
semidefinite QP, the cost.

Oracles: closed forms (fixed values, projections, minimisers of separable problems), numpy.
"""

from __future__ import annotations

import numpy as np
import pytest

from wbcpy.errors import InvalidValueError
from wbcpy.qp import HierarchicalQP, QPLevel, QPProblem, QPSolver
from wbcpy.qp.fixed import FixedSplit, InfeasibleBoundsError
from wbcpy.qp.kkt import StdQP
from wbcpy.qp.nullspace import InconsistentEqualitiesError, NullSpace
from wbcpy.qp.refine import cost, refine

FIELDS = ("H", "g", "A", "b", "C", "lbC", "ubC", "lb", "ub")


@pytest.mark.parametrize(
    ("changes", "argument"),
    [
        ({"H": np.eye(2) * (1.0 + 1.0j)}, "H"),  # complex
        ({"g": ["a", "b"]}, "g"),  # not numeric
        ({"g": np.zeros((2, 1))}, "g"),  # not a vector
        ({"lbC": np.zeros(1)}, "C"),  # a side without C
        ({"C": np.ones((1, 3)), "lbC": np.zeros(1)}, "C"),  # wrong column count
        ({"C": np.ones((1, 2)), "ubC": np.zeros(2)}, "ubC"),  # wrong side length
        ({"A": np.ones((1, 2)), "b": np.array([np.inf])}, "b"),  # inf outside the bounds
    ],
)
def test_rejected_problem_names_the_field_and_is_unchanged(changes, argument):
    p = QPProblem(H=np.eye(2), g=np.array([1.0, -1.0]), lb=-np.ones(2), ub=np.ones(2))
    for k, v in changes.items():
        setattr(p, k, v)
    before = {k: getattr(p, k) for k in FIELDS}
    with pytest.raises(InvalidValueError) as info:
        QPSolver("osqp").solve(p)
    assert info.value.argument == argument
    assert all(getattr(p, k) is before[k] for k in FIELDS)


def test_single_row_given_as_a_vector():
    """A (n,) equality or inequality matrix is one row: min ½‖x − t‖² s.t. x0 + x1 = 1 gives
    x = t − (Σt − 1)/2."""
    t = np.array([2.0, 3.0])
    p = QPProblem(H=np.eye(2), g=-t, A=np.array([1.0, 1.0]), b=np.array([1.0])).validate()
    assert p.A.shape == (1, 2)
    np.testing.assert_allclose(QPSolver("osqp").solve(p), t - (t.sum() - 1.0) / 2.0, atol=1e-9)


def test_rejected_hierarchy_is_unchanged():
    good = QPLevel(np.eye(3), np.ones(3), np.full(3, 1e-8))
    hqp = HierarchicalQP([good, "not a level"], ["a", "b", "c"])  # type: ignore[list-item]
    levels = hqp.levels
    with pytest.raises(InvalidValueError) as info:
        hqp.validate()
    assert info.value.argument == "levels[1]"
    assert hqp.levels is levels and hqp.levels[0] is good
    assert hqp.joint_names == hqp.variable_names == ["a", "b", "c"]


def test_level_without_rows_over_any_width():
    """A level with no rows may be given as an empty array of any width; it then constrains only."""
    level = QPLevel(np.zeros((0, 1)), np.zeros(0), np.full(3, 1.0), C=np.array([[1.0, 1.0, 1.0]]),
                    lbC=np.array([3.0]))  # fmt: skip
    assert level.m == 0 and level.has_constraints
    assert not QPLevel(np.eye(3), np.zeros(3), np.zeros(3)).has_constraints
    x = QPSolver("osqp").solve_hierarchy(HierarchicalQP([level], ["a", "b", "c"]))
    np.testing.assert_allclose(x, np.ones(3), atol=1e-8)  # min Σx² s.t. Σx ≥ 3


def test_fixed_split_edge_cases():
    # every variable fixed: nothing free, the merge is the fixed values
    split = FixedSplit(np.array([1.0, -2.0]), np.array([1.0, -2.0 + 1e-13]), 2)
    assert split.nf == 0 and split.lb is None and split.ub is None
    np.testing.assert_allclose(split.merge(np.zeros(0)), [1.0, -2.0 + 5e-14], rtol=0, atol=1e-15)
    # one side only: nothing can be fixed; the bound is kept as it is
    split = FixedSplit(np.array([0.0, -np.inf]), None, 2)
    assert split.fixed is None and split.ub is None and split.lb is not None
    # the restriction helpers against numpy indexing
    lb, ub = np.array([0.0, 2.0, -1.0, 5.0]), np.array([1.0, 2.0, 1.0, 5.0])
    split = FixedSplit(lb, ub, 4)
    M = np.arange(8.0).reshape(2, 4)
    np.testing.assert_array_equal(split.cols(M), M[:, [0, 2]])
    np.testing.assert_allclose(split.shift(M), M[:, [1, 3]] @ np.array([2.0, 5.0]))
    np.testing.assert_array_equal(split.take(np.arange(4.0)), [0.0, 2.0])
    np.testing.assert_array_equal(split.lb, [0.0, -1.0])
    assert FixedSplit(np.zeros(0), np.zeros(0), 0).nf == 0
    with pytest.raises(InfeasibleBoundsError) as info:
        FixedSplit(None, np.array([0.0, np.nan]), 2)
    assert info.value.variables == [1]


def test_null_space_edge_cases():
    ns = NullSpace(2)
    with pytest.raises(InconsistentEqualitiesError):
        ns.add_equalities(np.zeros((1, 2)), np.array([1.0]))  # 0·x = 1
    ns.add_equalities(np.zeros((1, 2)), np.zeros(1))  # 0·x = 0: nothing fixed
    assert ns.k == 2 and ns.Z is None
    ns.add_equalities(np.array([[2.0, 0.0], [0.0, 4.0]]), np.array([2.0, 8.0]))  # fixes x = (1, 2)
    assert ns.k == 0
    np.testing.assert_allclose(ns.point(), [1.0, 2.0], atol=1e-15)
    ns.add_rows(np.array([[1.0, 1.0]]))  # no direction left: nothing to do
    ns.add_equalities(np.array([[1.0, 1.0]]), np.array([3.0]))  # consistent with the point
    with pytest.raises(InconsistentEqualitiesError):
        ns.add_equalities(np.array([[1.0, 1.0]]), np.array([4.0]))
    np.testing.assert_allclose(ns.point(), [1.0, 2.0], atol=1e-15)


def test_refine_semidefinite_without_bounds_and_cost():
    """H = diag(1, 0), g = (−1, 0): the minimisers are x0 = 1 with any x1; refinement returns one of them
    (a least-squares solution of the singular reduced system), certified. cost = ½xᵀHx + gᵀx."""
    q = StdQP(np.diag([1.0, 0.0]), np.array([-1.0, 0.0]))
    res = refine(q, np.array([0.3, 0.7]), 1e-9)
    assert res is not None
    x, *_, cert = res
    assert cert.ok and abs(x[0] - 1.0) < 1e-12
    assert cost(q, np.array([3.0, 5.0])) == pytest.approx(0.5 * 9.0 - 3.0)
