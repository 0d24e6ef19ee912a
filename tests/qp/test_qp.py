"""Tests of wbcpy.qp: every backend against closed forms, numpy/scipy oracles and each other."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.linalg as sla
import scipy.sparse as sp

from wbcpy.errors import ConfigError, ConfigKeyError, InvalidValueError, QPSolveError
from wbcpy.qp import (
    HierarchicalQP,
    LevelStatus,
    QPLevel,
    QPProblem,
    QPSolver,
    available_solvers,
    default_solver,
)
from wbcpy.qp.backends import daqp_direct

SOLVERS = available_solvers()
LAM = 1e-8


@pytest.fixture(params=SOLVERS)
def solver_name(request) -> str:
    return request.param


@pytest.fixture(autouse=True)
def _warnings_are_errors():
    """No backend may warn (qpsolvers conversion warnings, deprecation warnings...); the one notice per
    process of a DAQP not called directly (daqp_direct.bound, e.g. WBCPY_DAQP_DIRECT=0) is not a solve's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        daqp_direct.bound()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def tikhonov(A: np.ndarray, y: np.ndarray, lam: float) -> np.ndarray:
    """argmin ‖Ax − y‖² + lam‖x‖² through the SVD (well conditioned even for lam = 1e-8)."""
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    return Vt.T @ ((s / (s * s + lam)) * (U.T @ y))


def names(n: int) -> list[str]:
    return [f"q{i}" for i in range(n)]


# ----------------------------------------------------------------------------------------------------
# single QPs
# ----------------------------------------------------------------------------------------------------
def test_available_and_default():
    import qpsolvers

    assert sorted(SOLVERS) == SOLVERS
    assert set(SOLVERS) <= set(qpsolvers.available_solvers)
    assert "osqp" in SOLVERS  # core dependency
    assert default_solver() in SOLVERS
    import wbcpy.qp

    assert default_solver() == wbcpy.qp.DEFAULT_SOLVER
    assert QPSolver().name == default_solver()
    if "daqp" in SOLVERS:  # fastest in benchmarks/bench_qp_backends.py
        assert default_solver() == "daqp"


def test_module_example():
    import doctest

    import wbcpy.qp

    assert doctest.testmod(wbcpy.qp).failed == 0


def test_unconstrained_least_squares(solver_name):
    r = rng(1)
    A, y = r.standard_normal((10, 5)), r.standard_normal(10)
    x = QPSolver(solver_name).solve(QPProblem(H=A.T @ A, g=-A.T @ y))
    np.testing.assert_allclose(x, np.linalg.lstsq(A, y, rcond=None)[0], atol=1e-9)


def test_equality_constrained_vs_kkt(solver_name):
    r = rng(2)
    M = r.standard_normal((6, 6))
    H = M @ M.T + 0.1 * np.eye(6)
    g, A, b = r.standard_normal(6), r.standard_normal((2, 6)), r.standard_normal(2)
    K = np.block([[H, A.T], [A, np.zeros((2, 2))]])
    expected = np.linalg.solve(K, np.concatenate([-g, b]))[:6]
    x = QPSolver(solver_name).solve(QPProblem(H=H, g=g, A=A, b=b))
    np.testing.assert_allclose(x, expected, atol=1e-9)


def test_bounds_separable_closed_form(solver_name):
    d = np.array([1.0, 2.0, 0.5, 4.0, 1.0, 3.0])
    t = np.array([3.0, -2.0, 0.2, 0.1, -9.0, 0.7])  # unconstrained minimiser
    lb = np.array([-1.0, -1.0, -1.0, -np.inf, -np.inf, 0.9])
    ub = np.array([1.0, 1.0, 1.0, 0.05, np.inf, np.inf])
    x = QPSolver(solver_name).solve(QPProblem(H=np.diag(d), g=-d * t, lb=lb, ub=ub))
    np.testing.assert_allclose(x, np.clip(t, lb, ub), atol=1e-9)
    np.testing.assert_array_equal(np.clip(t, lb, ub), [1.0, -1.0, 0.2, 0.05, -9.0, 0.9])


def test_inequality_rows_one_dimensional(solver_name):
    # min ½(x0−2)² + ½(x1−2)²  s.t.  −1 ≤ x0 + x1 ≤ 1  →  x = (½, ½)
    C = np.array([[1.0, 1.0]])
    p = QPProblem(H=np.eye(2), g=-2 * np.ones(2), C=C, lbC=np.array([-1.0]), ubC=np.array([1.0]))
    np.testing.assert_allclose(QPSolver(solver_name).solve(p), [0.5, 0.5], atol=1e-9)
    p = QPProblem(H=np.eye(2), g=2 * np.ones(2), C=C, lbC=np.array([-1.0]), ubC=None)  # lower side only
    np.testing.assert_allclose(QPSolver(solver_name).solve(p), [-0.5, -0.5], atol=1e-9)


def test_fixed_variables(solver_name):
    r = rng(3)
    M = r.standard_normal((5, 5))
    H, g = M @ M.T + np.eye(5), r.standard_normal(5)
    lb = np.array([-np.inf, 0.3, -5.0, 0.0, -np.inf])
    ub = np.array([np.inf, 0.3, 5.0, 0.0, np.inf])
    fixed, free = np.array([1, 3]), np.array([0, 2, 4])
    xf = np.linalg.solve(H[np.ix_(free, free)], -(g[free] + H[np.ix_(free, fixed)] @ lb[fixed]))
    assert np.all(np.abs(xf[1]) < 5.0)  # oracle does not need the bound on x2
    s = QPSolver(solver_name)
    x = s.solve(QPProblem(H=H, g=g, lb=lb, ub=ub))
    np.testing.assert_allclose(x[free], xf, atol=1e-9)
    assert x[1] == 0.3 and x[3] == 0.0
    assert s.statuses[0].n_variables == 3


def test_all_fixed(solver_name):
    p = QPProblem(H=np.eye(2), g=np.ones(2), A=np.array([[1.0, 1.0]]), b=np.array([0.5]),
                  lb=np.array([0.2, 0.3]), ub=np.array([0.2, 0.3]))  # fmt: skip
    np.testing.assert_array_equal(QPSolver(solver_name).solve(p), [0.2, 0.3])
    p.b = np.array([1.0])
    with pytest.raises(QPSolveError):
        QPSolver(solver_name).solve(p)


def test_sparse_input(solver_name):
    r = rng(4)
    M = r.standard_normal((8, 8))
    H, g = M @ M.T + np.eye(8), r.standard_normal(8)
    xf = r.uniform(-0.2, 0.2, 8)  # a feasible point
    xf[5] = 0.1
    A, C = r.standard_normal((2, 8)), r.standard_normal((3, 8))
    b, lbC, ubC = A @ xf, C @ xf - 0.1, C @ xf + 0.1
    lb, ub = -0.3 * np.ones(8), 0.3 * np.ones(8)
    lb[5] = ub[5] = 0.1
    dense = QPSolver("osqp").solve(QPProblem(H, g, A, b, C, lbC, ubC, lb, ub))
    x = QPSolver(solver_name).solve(
        QPProblem(sp.csc_matrix(H), g, sp.csc_matrix(A), b, sp.csc_matrix(C), lbC, ubC, lb, ub)
    )
    np.testing.assert_allclose(x, dense, atol=1e-8)


def random_problem(seed: int, n: int = 10):
    r = rng(seed)
    J = r.standard_normal((n - 3, n))  # 3 directions with curvature LAM only
    H = J.T @ J + LAM * np.eye(n)
    g = -J.T @ r.standard_normal(n - 3) * 3
    xf = r.uniform(-0.3, 0.3, n)  # a feasible point
    xf[2] = -0.1
    A, C = r.standard_normal((2, n)), r.standard_normal((3, n))
    lb, ub = -0.6 * np.ones(n), 0.6 * np.ones(n)
    lb[2] = ub[2] = -0.1
    return QPProblem(H, g, A, A @ xf, C, C @ xf - 0.2, C @ xf + 0.2, lb, ub)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_all_backends_agree(seed):
    results = {}
    for name in SOLVERS:
        results[name] = QPSolver(name).solve(random_problem(seed))
        results[name + "/qpsolvers"] = QPSolver(name, via_qpsolvers=True).solve(random_problem(seed))
    ref = results[SOLVERS[0]]
    for name, x in results.items():
        np.testing.assert_allclose(x, ref, atol=1e-6, err_msg=name)


def test_curvature_lambda_directions(solver_name):
    """A 6×7 task: the 7th direction has curvature λ = 1e-8 only and g has no component there."""
    r = rng(5)
    J, y = r.standard_normal((6, 7)), r.standard_normal(6)
    H = J.T @ J + LAM * np.eye(7)
    expected = tikhonov(J, y, LAM)
    s = QPSolver(solver_name)
    for _ in range(2):  # cold, then warm
        np.testing.assert_allclose(s.solve(QPProblem(H=H, g=-J.T @ y)), expected, atol=1e-7)
        wide = QPProblem(H=H, g=-J.T @ y, lb=-1e3 * np.ones(7), ub=1e3 * np.ones(7))
        np.testing.assert_allclose(s.solve(wide), expected, atol=1e-7)


# ----------------------------------------------------------------------------------------------------
# failures and validation
# ----------------------------------------------------------------------------------------------------
def test_infeasible_bounds(solver_name):
    p = QPProblem(H=np.eye(3), g=np.zeros(3), lb=np.array([0.0, 1.0, 0.0]), ub=np.array([1.0, 0.0, 1.0]))
    with pytest.raises(QPSolveError) as info:
        QPSolver(solver_name).solve(p)
    assert info.value.solver == solver_name and "lb > ub" in info.value.status
    assert info.value.problem is p


def test_inconsistent_equalities(solver_name):
    A = np.array([[1.0, 0.0], [1.0, 0.0]])
    p = QPProblem(
        H=np.eye(2), g=np.zeros(2), A=A, b=np.array([1.0, 2.0]), lb=-5 * np.ones(2), ub=5 * np.ones(2)
    )
    s = QPSolver(solver_name)
    s.solve(QPProblem(H=np.eye(2), g=np.ones(2)))
    before = list(s.statuses)
    with pytest.raises(QPSolveError) as info:
        s.solve(p)
    assert info.value.solver == solver_name and info.value.status
    assert s.statuses == before  # failed call leaves the solver as it was


def test_infeasible_inequalities(solver_name):
    C = np.array([[1.0, 1.0]])
    p = QPProblem(H=np.eye(2), g=np.zeros(2), C=C, lbC=np.array([3.0]), ubC=np.array([4.0]),
                  lb=np.zeros(2), ub=np.ones(2))  # fmt: skip
    with pytest.raises(QPSolveError) as info:
        QPSolver(solver_name).solve(p)
    assert info.value.solver == solver_name


ITER_LIMIT = {"daqp": {"iter_limit": 1}, "osqp": {"max_iter": 1}, "proxqp": {"max_iter": 1},
              "piqp": {"max_iter": 1}, "clarabel": {"max_iter": 1}}  # fmt: skip


def test_early_stop_is_an_error(solver_name):
    if solver_name not in ITER_LIMIT:
        pytest.skip(f"{solver_name} has no iteration limit option")
    s = QPSolver(solver_name, polish=False, rescue=None, **ITER_LIMIT[solver_name])
    with pytest.raises(QPSolveError) as info:
        s.solve(random_problem(7))
    assert info.value.solver == solver_name
    # with refinement and the rescue backends on, the answer is exact: refined from the early stop, or
    # given by a fallback named in the status
    s = QPSolver(solver_name, **ITER_LIMIT[solver_name])
    x = s.solve(random_problem(7))
    ref = QPSolver("quadprog" if "quadprog" in SOLVERS else "osqp").solve(random_problem(7))
    np.testing.assert_allclose(x, ref, atol=1e-6)
    st = s.statuses[0]
    assert st.status.endswith("(refined)") or (st.fallback is not None and s.fallback_count == 1)


def _patch_adapter(monkeypatch, name: str, make_result) -> None:
    """Replace the ``solve`` of the adapter class of ``name`` by ``make_result(real, self, q, x0)`` (and
    turn its compiled bounds-only path off, so that every level goes through ``solve``)."""
    from wbcpy.qp.backends import ADAPTERS

    cls = ADAPTERS[name]
    real = cls.solve
    monkeypatch.setattr(cls, "solve", lambda self, q, x0: make_result(real, self, q, x0))
    monkeypatch.setattr(cls, "solve_fused_level", lambda self, *args: None)


def test_wrong_backend_answer_is_caught(solver_name, monkeypatch):
    """A backend claiming success with a wrong x must not get through the KKT certificate."""
    from wbcpy.qp.backends import ADAPTERS
    from wbcpy.qp.kkt import RawResult

    if solver_name not in ADAPTERS:
        pytest.skip("no dedicated adapter")

    def shifted(real, self, q, x0):
        res = real(self, q, x0)
        return RawResult(res.x + 1e-3, True, "solved", 1, res.y, res.z, res.z_box)

    _patch_adapter(monkeypatch, solver_name, shifted)
    with pytest.raises(QPSolveError) as info:
        QPSolver(solver_name, polish=False, rescue=None).solve(random_problem(1))
    assert "KKT certificate failed" in info.value.status


def test_stationary_feasible_wrong_sign_answer_is_caught(solver_name, monkeypatch):
    """min (x−2)²/2 s.t. 0 ≤ x ≤ 1: x = 0 with z = +2 is stationary and feasible, but the multiplier names
    the upper bound while x sits at the lower one. It must be rejected: alone, and inside a hierarchy
    (where it would give [0.5, 0] instead of [0.5, 1])."""
    from wbcpy.qp.backends import ADAPTERS
    from wbcpy.qp.kkt import RawResult, StdQP, certify

    q = StdQP(np.eye(1), np.array([-2.0]), lb=np.zeros(1), ub=np.ones(1))
    assert not certify(q, np.zeros(1), None, None, np.array([2.0]), 1e-6).ok
    assert certify(q, np.ones(1), None, None, np.array([1.0]), 1e-6).ok
    q2 = StdQP(np.eye(1), np.array([-2.0]), C=np.eye(1), lbC=np.zeros(1), ubC=np.ones(1))
    assert not certify(q2, np.zeros(1), None, np.array([2.0]), None, 1e-6).ok
    if solver_name not in ADAPTERS:
        pytest.skip("no dedicated adapter")

    def wrong_sign(real, self, q, x0):
        x = np.zeros(q.n)  # every variable at its lower bound (0)
        zb = -(q.H @ x + q.g)  # stationary: H x + g + z_box = 0, signs ignored
        return RawResult(x, True, "solved", 1, None, None, zb)

    _patch_adapter(monkeypatch, solver_name, wrong_sign)
    problem = QPProblem(H=np.eye(1), g=np.array([-2.0]), lb=np.zeros(1), ub=np.ones(1))
    with pytest.raises(QPSolveError) as info:
        QPSolver(solver_name, polish=False, rescue=None).solve(problem)
    assert "complementarity" in info.value.status
    s = QPSolver(solver_name, rescue=None)  # refinement corrects the active set: the exact answer
    assert s.solve(problem)[0] == 1.0 and s.statuses[0].status.endswith("(refined)")
    monkeypatch.undo()

    # the same lie at level 1 of a two-level hierarchy: level 0 fixes x0 = 0.5, level 1 wants x1 = 2
    def lie_at_level_1(real, self, q, x0):  # level 1 has one free direction left, level 0 two
        return wrong_sign(real, self, q, x0) if q.n == 1 else real(self, q, x0)

    if solver_name not in ("daqp", "quadprog"):
        return  # (unrefined iterative answers fail their own level-0 certificate: nothing to isolate)
    _patch_adapter(monkeypatch, solver_name, lie_at_level_1)
    reg = np.full(2, 1e-12)
    hqp = HierarchicalQP(
        [QPLevel(np.array([[1.0, 0.0]]), np.array([0.5]), reg),
         QPLevel(np.array([[0.0, 1.0]]), np.array([2.0]), reg)],
        names(2), lb=np.zeros(2), ub=np.ones(2),
    )  # fmt: skip
    with pytest.raises(QPSolveError) as info:
        QPSolver(solver_name, polish=False, rescue=None).solve_hierarchy(hqp)
    assert info.value.level == 1
    for s in (QPSolver(solver_name, polish=False), QPSolver(solver_name, rescue=None)):
        np.testing.assert_allclose(s.solve_hierarchy(hqp), [0.5, 1.0], atol=1e-9)  # rescued, or refined


def test_invalid_problems():
    s = QPSolver("osqp")
    H = np.eye(2)
    H[0, 1] = np.nan
    with pytest.raises(InvalidValueError):
        s.solve(QPProblem(H=H, g=np.zeros(2)))
    with pytest.raises(InvalidValueError):
        s.solve(QPProblem(H=np.eye(2), g=np.array([0.0, np.inf])))
    with pytest.raises(InvalidValueError):
        s.solve(QPProblem(H=np.eye(3), g=np.zeros(2)))
    with pytest.raises(InvalidValueError):
        s.solve(QPProblem(H=np.array([[1.0, 1.0], [0.0, 1.0]]), g=np.zeros(2)))  # not symmetric
    with pytest.raises(InvalidValueError):
        s.solve(QPProblem(H=np.eye(2), g=np.zeros(2), A=np.ones((1, 2))))  # A without b
    with pytest.raises(InvalidValueError):
        s.solve(QPProblem(H=np.eye(2), g=np.zeros(2), lb=np.array([np.nan, 0.0])))
    p = QPProblem(H=[[1.0, 0.0], [0.0, 1.0]], g=[0.0, 1.0], lb=[-1.0, np.nan])
    with pytest.raises(InvalidValueError):
        s.solve(p)
    assert isinstance(p.H, list)  # unchanged by the failed call
    # inf is allowed in bounds
    x = s.solve(
        QPProblem(H=np.eye(2), g=np.array([1.0, -1.0]), lb=np.array([-np.inf, 0.0]), ub=[np.inf, 0.5])
    )
    np.testing.assert_allclose(x, [-1.0, 0.5], atol=1e-9)


def test_unknown_solver_and_options():
    with pytest.raises(ConfigKeyError) as info:
        QPSolver("oqsp")
    err = info.value
    assert isinstance(err, KeyError) and err.field == "solver" and err.valid == SOLVERS
    assert "osqp" in err.suggestions
    with pytest.raises(ConfigError) as info2:
        QPSolver("osqp", not_an_option=1.0)
    assert info2.value.field == "solver_options.not_an_option"
    with pytest.raises(ConfigError):
        QPSolver("osqp", kkt_tol=0.0)
    assert QPSolver("osqp", eps_abs=1e-8).solver_options["eps_abs"] == 1e-8


# ----------------------------------------------------------------------------------------------------
# hierarchies
# ----------------------------------------------------------------------------------------------------
def two_level(seed: int, n: int = 7, m0: int = 3, m1: int = 5, lam: float = LAM):
    r = rng(seed)
    A0, y0 = r.standard_normal((m0, n)), r.standard_normal(m0)
    A1, y1 = r.standard_normal((m1, n)), r.standard_normal(m1)
    reg = np.full(n, lam)
    return A0, y0, A1, y1, HierarchicalQP([QPLevel(A0, y0, reg), QPLevel(A1, y1, reg)], names(n))


def test_two_levels_regularised_closed_form(solver_name):
    A0, y0, A1, y1, hqp = two_level(10)
    x0 = tikhonov(A0, y0, LAM)
    Z = sla.null_space(A0)
    # min ‖A1(x0 + Zw) − y1‖² + λ‖x0 + Zw‖²
    w = np.linalg.solve(
        Z.T @ A1.T @ A1 @ Z + LAM * np.eye(Z.shape[1]), Z.T @ A1.T @ (y1 - A1 @ x0) - LAM * Z.T @ x0
    )
    expected = x0 + Z @ w
    s = QPSolver(solver_name)
    x = s.solve_hierarchy(hqp)
    np.testing.assert_allclose(x, expected, atol=1e-7)
    assert [st.level for st in s.statuses] == [0, 1]
    assert [st.n_eq for st in s.statuses] == [0, 3]
    assert all(isinstance(st, LevelStatus) and st.solver == solver_name for st in s.statuses)


def test_two_levels_nullspace_projection(solver_name):
    A0, y0, A1, y1, hqp = two_level(11, lam=1e-12)
    x0 = np.linalg.pinv(A0) @ y0
    N = np.eye(7) - np.linalg.pinv(A0) @ A0
    expected = x0 + N @ np.linalg.pinv(A1 @ N) @ (y1 - A1 @ x0)
    np.testing.assert_allclose(QPSolver(solver_name).solve_hierarchy(hqp), expected, atol=1e-6)


def test_level0_never_degraded(solver_name):
    r = rng(12)
    A0 = np.hstack([r.standard_normal((2, 4)), np.zeros((2, 3))])  # level 0 acts on q0..q3 only
    y0 = 5 * r.standard_normal(2)  # out of reach within the bounds
    reg = np.full(7, LAM)
    lb, ub = -0.4 * np.ones(7), 0.4 * np.ones(7)
    alone = QPSolver(solver_name).solve_hierarchy(HierarchicalQP([QPLevel(A0, y0, reg)], names(7), lb, ub))
    assert np.abs(A0 @ alone - y0).max() > 0.1
    conflict = QPLevel(np.vstack([A0, np.eye(7)]), np.concatenate([-y0, -10 * np.ones(7)]), reg)
    x = QPSolver(solver_name).solve_hierarchy(
        HierarchicalQP([QPLevel(A0, y0, reg), conflict], names(7), lb, ub)
    )
    np.testing.assert_allclose(A0 @ x, A0 @ alone, atol=1e-7)
    assert np.all(x >= lb) and np.all(x <= ub)
    np.testing.assert_allclose(x[4:], lb[4:], atol=1e-9)  # level 1 used the remaining freedom
    np.testing.assert_allclose(alone[4:], 0.0, atol=1e-9)  # (level 0 alone: regularisation → 0)


def test_dependent_rows(solver_name):
    A0, y0, A1, y1, _ = two_level(13, m0=2)
    reg = np.full(7, LAM)
    stacked = QPLevel(
        np.vstack([A0, A0, 2 * A0, A0[0] + A0[1]]), np.concatenate([y0, y0, 2 * y0, [y0.sum()]]), reg
    )
    s = QPSolver(solver_name)
    x = s.solve_hierarchy(HierarchicalQP([stacked, QPLevel(A1, y1, reg)], names(7)))
    # same optimum as the independent rows (level 0's rows are consistent, so only its scale changes)
    ref = QPSolver(solver_name).solve_hierarchy(
        HierarchicalQP([QPLevel(A0 * np.sqrt(7.0), y0 * np.sqrt(7.0), reg), QPLevel(A1, y1, reg)], names(7))
    )
    np.testing.assert_allclose(x, ref, atol=1e-7)
    assert s.statuses[1].n_eq == 2


def test_locked_joints_in_hierarchy(solver_name):
    A0, y0, A1, y1, hqp = two_level(14)
    lb, ub = -np.inf * np.ones(7), np.inf * np.ones(7)
    lb[[1, 4]] = ub[[1, 4]] = 0.0  # joint weight 0
    hqp.lb, hqp.ub = lb, ub
    x = QPSolver(solver_name).solve_hierarchy(hqp)
    assert x[1] == 0.0 and x[4] == 0.0
    free = [0, 2, 3, 5, 6]
    x0 = tikhonov(A0[:, free], y0, LAM)
    Z = sla.null_space(A0[:, free])
    B = A1[:, free]
    w = np.linalg.solve(
        Z.T @ B.T @ B @ Z + LAM * np.eye(Z.shape[1]), Z.T @ B.T @ (y1 - B @ x0) - LAM * Z.T @ x0
    )
    np.testing.assert_allclose(x[free], x0 + Z @ w, atol=1e-7)


def test_empty_levels(solver_name):
    s = QPSolver(solver_name)
    lb, ub = np.array([0.5, -2.0, -1.0]), np.array([1.0, -1.0, 1.0])
    np.testing.assert_array_equal(s.solve_hierarchy(HierarchicalQP([], names(3), lb, ub)), [0.5, -1.0, 0.0])
    np.testing.assert_array_equal(s.solve_hierarchy(HierarchicalQP([], names(3))), np.zeros(3))
    empty = QPLevel(np.zeros((0, 3)), np.zeros(0), np.full(3, LAM))
    np.testing.assert_array_equal(
        s.solve_hierarchy(HierarchicalQP([empty, empty], names(3), lb, ub)), [0.5, -1.0, 0.0]
    )
    assert [st.status.startswith("skipped") for st in s.statuses] == [True, True]
    A, y = np.array([[1.0, 1.0, 0.0]]), np.array([2.0])
    only = s.solve_hierarchy(HierarchicalQP([QPLevel(A, y, np.full(3, LAM))], names(3)))
    after_empty = s.solve_hierarchy(HierarchicalQP([empty, QPLevel(A, y, np.full(3, LAM)), empty], names(3)))
    np.testing.assert_allclose(after_empty, only, atol=1e-12)
    np.testing.assert_allclose(only, tikhonov(A, y, LAM), atol=1e-8)


def test_hierarchy_errors():
    s = QPSolver("osqp")
    A0, y0, A1, y1, hqp = two_level(15)
    hqp.lb, hqp.ub = np.zeros(7), -np.ones(7)
    with pytest.raises(QPSolveError) as info:
        s.solve_hierarchy(hqp)
    assert info.value.level == 0 and info.value.solver == "osqp"
    bad = A1.copy()
    bad[0, 0] = np.nan
    reg = np.full(7, LAM)
    with pytest.raises(InvalidValueError):
        s.solve_hierarchy(HierarchicalQP([QPLevel(A0, y0, reg), QPLevel(bad, y1, reg)], names(7)))
    with pytest.raises(InvalidValueError):
        s.solve_hierarchy(HierarchicalQP([QPLevel(A0, y0[:2], reg)], names(7)))
    with pytest.raises(InvalidValueError):
        s.solve_hierarchy(HierarchicalQP([QPLevel(A0, y0, -reg)], names(7)))
    with pytest.raises(InvalidValueError):
        s.solve_hierarchy(HierarchicalQP([QPLevel(A0, y0, reg)], names(7), lb=np.full(7, np.nan)))
    # a full-rank level 0 leaves no freedom: level 1 is skipped, even if its rows are bad
    full = QPLevel(np.eye(7), np.ones(7), reg)
    x = s.solve_hierarchy(HierarchicalQP([full, QPLevel(A1, y1, reg)], names(7)))
    np.testing.assert_allclose(x, np.ones(7) / (1 + LAM), atol=1e-9)
    assert s.statuses[1].status.startswith("skipped")
    with pytest.raises(InvalidValueError):
        s.solve_hierarchy(HierarchicalQP([full, QPLevel(bad, y1, reg)], names(7)))


def test_hierarchy_failure_level_reported(solver_name, monkeypatch):
    from wbcpy.qp.backends import ADAPTERS
    from wbcpy.qp.kkt import RawResult

    if solver_name not in ADAPTERS:
        pytest.skip("no dedicated adapter")
    *_, hqp = two_level(16)
    s = QPSolver(solver_name, rescue=None)
    good = s.solve_hierarchy(hqp)
    before = list(s.statuses)
    calls = []

    def broken_at_level_1(real, self, q, x0):
        calls.append(q.n)
        if len(calls) >= 2:
            return RawResult(None, False, "primal infeasible")
        return real(self, q, x0)

    _patch_adapter(monkeypatch, solver_name, broken_at_level_1)
    with pytest.raises(QPSolveError) as info:
        s.solve_hierarchy(hqp)
    assert info.value.level == 1 and info.value.status.startswith(f"{solver_name}: primal infeasible")
    assert info.value.problem.H.shape == (7, 7)  # the level-1 problem over all variables
    assert [st.level for st in info.value.statuses] == [0]
    assert s.statuses == before
    monkeypatch.undo()
    np.testing.assert_allclose(s.solve_hierarchy(hqp), good, atol=1e-9)


def test_warm_start_consistency(solver_name):
    _, y0, _, _, hqp = two_level(17)
    hqp.lb, hqp.ub = -0.3 * np.ones(7), 0.3 * np.ones(7)
    cold = QPSolver(solver_name, warm_start=False)
    warm = QPSolver(solver_name)
    for k in range(4):  # a slowly changing problem, as in a control loop
        hqp.levels[0].y = y0 + 0.05 * k
        np.testing.assert_allclose(warm.solve_hierarchy(hqp), cold.solve_hierarchy(hqp), atol=1e-7)
    # size change: the warm-start data of the other size is ignored
    _, _, _, _, small = two_level(18, n=5, m0=2, m1=2)
    np.testing.assert_allclose(warm.solve_hierarchy(small), cold.solve_hierarchy(small), atol=1e-7)


def test_level_problem_roundtrip(solver_name):
    """QPLevel.to_problem is the same optimisation problem as a one-level hierarchy."""
    A0, y0, _, _, _ = two_level(19)
    level = QPLevel(A0, y0, np.full(7, 1e-3))
    lb, ub = -0.2 * np.ones(7), 0.2 * np.ones(7)
    s = QPSolver(solver_name)
    x1 = s.solve(level.to_problem(lb, ub))
    x2 = s.solve_hierarchy(HierarchicalQP([level], names(7), lb, ub))
    np.testing.assert_allclose(x1, x2, atol=1e-9)
    # optimality against random feasible perturbations
    for d in rng(0).standard_normal((20, 7)) * 1e-3:
        assert level.cost(np.clip(x1 + d, lb, ub)) >= level.cost(x1) - 1e-12


# ----------------------------------------------------------------------------------------------------
# fallbacks
# ----------------------------------------------------------------------------------------------------
def test_daqp_fallback_after_failure(monkeypatch):
    if "daqp" not in SOLVERS:
        pytest.skip("daqp not installed")
    from wbcpy.qp.kkt import RawResult

    def cycling_unless_prox(real, self, q, x0):
        if self.options.get("eps_prox", -1.0) > 0:
            return real(self, q, x0)
        return RawResult(None, False, "cycling detected")

    _patch_adapter(monkeypatch, "daqp", cycling_unless_prox)
    s = QPSolver("daqp", rescue=None)
    x = s.solve(random_problem(3))
    monkeypatch.undo()
    np.testing.assert_allclose(x, QPSolver("osqp").solve(random_problem(3)), atol=1e-6)
    assert s.statuses[0].fallback == "daqp eps_prox=1e-06" and s.statuses[0].solver == "daqp"
    assert s.fallback_count == 1


def test_reused_workspace_retried_cold(monkeypatch):
    from wbcpy.qp.kkt import RawResult

    calls = []

    def flaky(real, self, q, x0):
        calls.append(x0)
        if len(calls) == 1:
            self.reused = True
            return RawResult(None, False, "primal infeasible")
        return real(self, q, x0)

    _patch_adapter(monkeypatch, "osqp", flaky)
    s = QPSolver("osqp", rescue=None)
    x = s.solve(QPProblem(H=np.eye(2), g=np.array([-1.0, 1.0]), lb=-0.5 * np.ones(2), ub=0.5 * np.ones(2)))
    np.testing.assert_allclose(x, [0.5, -0.5], atol=1e-9)
    assert len(calls) == 2 and calls[1] is None  # second attempt from scratch
    assert s.statuses[0].fallback == "cold restart"


def test_unknown_rescue_backend():
    with pytest.raises(ConfigKeyError):
        QPSolver("osqp", rescue="nope")
    assert QPSolver("osqp", rescue=None).rescue == ()
    assert "osqp" not in QPSolver("osqp").rescue
