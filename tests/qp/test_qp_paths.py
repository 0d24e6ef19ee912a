"""Paths of wbcpy.qp that the scenes rarely take: every backend adapter's status table (solved, stopped
early, failed) and multiplier convention, the qpsolvers adapter's corner cases, the fallback chain when
backends crash, the registry's self-test, and the solver's edge cases (all variables fixed, rows bounded
on neither side, empty hierarchies).

Oracles: a separable problem whose optimum and multipliers are known in closed form (every constraint
kind, each side active once), ``numpy.linalg.solve`` for unconstrained problems, and OSQP's iteration
count from a cold start.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
import scipy.sparse as sp

from wbcpy.errors import ConfigError, ConfigKeyError, QPSolveError
from wbcpy.qp import (
    HierarchicalQP,
    QPLevel,
    QPProblem,
    QPSolver,
    available_solvers,
    default_solver,
)
from wbcpy.qp.backends import ADAPTERS, make_backend
from wbcpy.qp.kkt import RawResult, StdQP
from wbcpy.qp.registry import unavailable_reasons

SOLVERS = available_solvers()
INF = np.inf
#: backends whose adapter keeps a persistent workspace, reused (warm) while the structure is unchanged
WORKSPACE = {"osqp", "proxqp", "piqp"}
EXACT = {"daqp", "quadprog"}


def known(sparse: bool = False, infeasible: bool = False) -> StdQP:
    """min ½‖x − t‖² s.t. x0 + x1 = 0, x3 ≤ 5, x4 ≥ −1, −10 ≤ x0 − x1 ≤ 10, x2 ≤ 0.25, x5 ≥ −1.

    Optimum X with multipliers Y, Z, ZB (closed form below). ``infeasible`` adds the row x3 ≥ 6.
    """
    t = np.array([2.0, -3.0, 0.5, 7.0, -4.0, -2.0])
    A = np.array([[1.0, 1.0, 0.0, 0.0, 0.0, 0.0]])
    C = np.zeros((3, 6))
    C[0, 3] = C[1, 4] = C[2, 0] = 1.0
    C[2, 1] = -1.0
    lbC, ubC = np.array([-INF, -1.0, -10.0]), np.array([5.0, INF, 10.0])
    if infeasible:
        C = np.vstack([C, np.eye(6)[3]])
        lbC, ubC = np.append(lbC, 6.0), np.append(ubC, INF)
    lb = np.array([-INF, -INF, -1.0, -INF, -INF, -1.0])
    ub = np.array([INF, INF, 0.25, INF, INF, INF])
    f = sp.csc_matrix if sparse else np.asarray
    return StdQP(f(np.eye(6)), -t, f(A), np.zeros(1), f(C), lbC, ubC, lb, ub, sparse)


# x0 = −x1 = 2.5 (y = 2 − x0), x2 = 0.25 (upper bound, z_box = 0.5 − 0.25 > 0), x3 = 5 (upper side of
# row 0, z = 7 − 5), x4 = −1 (lower side of row 1, z = −4 + 1 < 0), row 2 inactive, x5 = −1 (lower bound)
X = np.array([2.5, -2.5, 0.25, 5.0, -1.0, -1.0])
Y, Z, ZB = np.array([-0.5]), np.array([2.0, -3.0, 0.0]), np.array([0.0, 0.0, 0.25, 0.0, 0.0, -1.0])

ADAPTED = [(name, False) for name in SOLVERS if name in ADAPTERS] + [(name, True) for name in SOLVERS]
ITER_LIMIT = {"daqp": {"iter_limit": 1}, "osqp": {"max_iter": 1}, "proxqp": {"max_iter": 1},
              "piqp": {"max_iter": 1}, "clarabel": {"max_iter": 1}}  # fmt: skip


def _check_answer(raw: RawResult, tol: float) -> None:
    """x and the reported multipliers against the closed form, and stationarity written out here."""
    assert raw.ok and not raw.inaccurate and raw.x is not None
    np.testing.assert_allclose(raw.x, X, atol=tol)
    for got, ref in ((raw.y, Y), (raw.z, Z), (raw.z_box, ZB)):
        if got is not None:  # (the qpsolvers path may leave a block unreported)
            np.testing.assert_allclose(got, ref, atol=tol)
    if raw.y is not None and raw.z is not None and raw.z_box is not None:
        q = known()
        r = raw.x + q.g + q.A.T @ raw.y + q.C.T @ raw.z + raw.z_box
        np.testing.assert_allclose(r, 0.0, atol=10 * tol)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize(
    ("name", "via"), ADAPTED, ids=[f"{n}{'-qpsolvers' if v else ''}" for n, v in ADAPTED]
)
def test_adapter_statuses_and_multiplier_convention(name, via, sparse):
    """Solved: x and multipliers in wbcpy's convention (signs: upper side > 0, lower side < 0); failed
    (infeasible): no answer, or an early stop marked inaccurate, and the next solve starts afresh; the
    same structure again reuses the workspace of the backends that keep one."""
    b = make_backend(name, True, {}, via)
    tol = 1e-9 if name in EXACT else 1e-3  # (iterative answers are refined later, by the level solver)
    _check_answer(b.solve(known(sparse), None), tol)
    bad = b.solve(known(sparse, infeasible=True), None)
    assert not bad.ok and bad.status
    assert bad.x is None or bad.inaccurate
    _check_answer(b.solve(known(sparse), None), tol)
    assert not b.reused  # a failure forgets the workspace
    _check_answer(b.solve(known(sparse), None), tol)
    assert b.reused == (name in WORKSPACE and not via)


@pytest.mark.parametrize("name", [n for n in SOLVERS if n in ITER_LIMIT])
def test_iteration_limit_statuses(name):
    """An iteration limit is an early stop (an x marked inaccurate, to be refined) for the iterative
    backends; DAQP reports it as a failure (no x)."""
    raw = make_backend(name, True, ITER_LIMIT[name]).solve(known(), None)
    assert not raw.ok
    if name == "daqp":
        assert raw.x is None and not raw.inaccurate and raw.status == "iteration limit reached"
    else:
        assert raw.inaccurate and raw.x is not None and np.isfinite(raw.x).all()
        assert "iter" in raw.status.lower()


@pytest.mark.skipif("clarabel" not in SOLVERS, reason="clarabel not installed")
def test_clarabel_setup_panic_is_a_failed_attempt(monkeypatch):
    """Clarabel's Rust panics arrive as BaseException: a failed attempt (the rescue answers), while
    KeyboardInterrupt still interrupts."""
    import clarabel

    class PanicException(BaseException):
        pass

    def panic(*args, **kwargs):
        raise PanicException("index out of bounds")

    monkeypatch.setattr(clarabel, "DefaultSolver", panic)
    raw = make_backend("clarabel", True, {}).solve(known(), None)
    assert raw.x is None and raw.status == "setup failed: index out of bounds"
    s = QPSolver("clarabel", rescue="osqp")
    p = QPProblem(H=np.eye(2), g=np.array([-1.0, 3.0]), lb=np.zeros(2), ub=np.ones(2))
    np.testing.assert_allclose(s.solve(p), [1.0, 0.0], atol=1e-9)
    assert s.statuses[0].fallback == "rescue: osqp" and s.statuses[0].solver == "osqp"

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(clarabel, "DefaultSolver", interrupt)
    with pytest.raises(KeyboardInterrupt):
        make_backend("clarabel", True, {}).solve(known(), None)


@pytest.mark.parametrize("name", SOLVERS)
def test_qpsolvers_path_unconstrained(name):
    """Unconstrained problems through qpsolvers (a vacuous row is handed over): x = −H⁻¹g."""
    rng = np.random.default_rng(3)
    R = rng.standard_normal((6, 4))
    H, g = R.T @ R + np.eye(4), rng.standard_normal(4)
    x = QPSolver(name, via_qpsolvers=True).solve(QPProblem(H=H, g=g))
    np.testing.assert_allclose(x, np.linalg.solve(H, -g), atol=1e-8)


def test_qpsolvers_path_crash_and_malformed_answer(monkeypatch):
    """A qpsolvers call that raises, or returns an x of the wrong shape, is a failed attempt that names
    what happened."""
    import qpsolvers

    def crash(*args, **kwargs):
        raise RuntimeError("backend exploded")

    monkeypatch.setattr(qpsolvers, "solve_problem", crash)
    raw = make_backend("osqp", True, {}, True).solve(known(), None)
    assert raw.x is None and raw.status == "RuntimeError: backend exploded"
    p = QPProblem(H=np.eye(2), g=np.zeros(2))
    with pytest.raises(QPSolveError) as info:
        QPSolver("osqp", via_qpsolvers=True, rescue=None).solve(p)
    assert "RuntimeError: backend exploded" in info.value.status

    def malformed(problem, solver, **kwargs):
        sol = qpsolvers.Solution(problem)
        sol.x, sol.found = np.zeros(problem.P.shape[0] + 1), True
        return sol

    monkeypatch.setattr(qpsolvers, "solve_problem", malformed)
    raw = make_backend("osqp", True, {}, True).solve(known(), None)
    assert raw.x is None and not raw.ok and raw.status.startswith("not solved")


@pytest.mark.skipif("daqp" not in SOLVERS, reason="daqp not installed")
def test_every_attempt_crashing_is_reported_and_changes_nothing(monkeypatch):
    """Configured backend, its robust fallback and the rescue backend all crash: one QPSolveError lists
    each attempt; the solver keeps its last statuses and solves again once the crashes stop."""
    daqp = ADAPTERS["daqp"]
    p = QPProblem(H=np.eye(2), g=np.array([-1.0, 3.0]), lb=np.zeros(2), ub=np.ones(2))
    s = QPSolver("daqp", rescue=("osqp",))
    s.solve(p)
    before = s.statuses

    def crash(self, q, x0):
        raise RuntimeError(f"{self.name} crashed")

    monkeypatch.setattr(daqp, "solve", crash)
    monkeypatch.setattr(daqp, "solve_fallback", crash)
    monkeypatch.setattr(ADAPTERS["osqp"], "solve", crash)
    with pytest.raises(QPSolveError) as info:
        s.solve(p)
    status = info.value.status
    assert "daqp: RuntimeError: daqp crashed" in status
    assert "daqp fallback: RuntimeError: daqp crashed" in status
    assert "rescue: osqp: RuntimeError: osqp crashed" in status
    assert s.statuses == before and s.fallback_count == 0
    monkeypatch.undo()
    np.testing.assert_allclose(s.solve(p), [1.0, 0.0], atol=1e-12)
    # only the configured backend crashes: the rescue answers, counted and named
    monkeypatch.setattr(daqp, "solve", crash)
    np.testing.assert_allclose(s.solve(p), [1.0, 0.0], atol=1e-9)
    assert s.statuses[0].fallback == "rescue: osqp" and s.fallback_count == 1


def test_daqp_robust_settings_are_tried_once():
    """The DAQP fallback (forced proximal iterations) leaves the adapter's own options as they were, and
    an adapter already configured with them has no fallback."""
    if "daqp" not in SOLVERS:
        pytest.skip("daqp not installed")
    b = make_backend("daqp", True, {})
    options = dict(b.options)
    desc, raw = b.solve_fallback(known(), None)
    assert desc == "eps_prox=1e-06" and raw.x is not None
    np.testing.assert_allclose(raw.x, X, atol=1e-4)  # (an early stop, refined by the level solver)
    assert b.options == options
    assert make_backend("daqp", True, {"eps_prox": 1e-6}).solve_fallback(known(), None) is None


def test_reset_forgets_warm_start():
    """After reset() the solver starts cold: OSQP takes as many iterations as a new solver does."""
    rng = np.random.default_rng(5)
    R = rng.standard_normal((8, 5))
    p = QPProblem(H=R.T @ R + 0.1 * np.eye(5), g=rng.standard_normal(5), lb=-0.2 * np.ones(5),
                  ub=0.2 * np.ones(5))  # fmt: skip
    fresh = QPSolver("osqp")
    fresh.solve(p)
    cold = fresh.statuses[0].iterations
    s = QPSolver("osqp")
    s.solve(p)
    s.solve(p)
    assert s.statuses[0].iterations < cold  # warm: the previous answer is the start
    s.reset()
    x = s.solve(p)
    assert s.statuses[0].iterations == cold
    np.testing.assert_allclose(x, fresh.solve(p), atol=1e-9)


def test_registry_excludes_broken_backends(monkeypatch):
    """A backend qpsolvers lists but that cannot solve (unknown to qpsolvers, or its import fails) is not
    available, with the reason; with no working backend default_solver raises ConfigError."""
    import qpsolvers

    import wbcpy.qp.registry as registry

    listed = list(qpsolvers.available_solvers)
    monkeypatch.setattr(qpsolvers, "available_solvers", [*listed, "nosuch"])
    monkeypatch.setitem(sys.modules, "piqp", None)  # (import piqp raises ImportError)
    try:
        names = available_solvers(refresh=True)
        reasons = unavailable_reasons()
        assert "nosuch" not in names and "nosuch" in reasons
        if "piqp" in listed:
            assert "piqp" not in names and "import of piqp halted" in reasons["piqp"]
        with pytest.raises(ConfigKeyError):
            QPSolver("nosuch")
        monkeypatch.setattr(registry, "PREFERENCE", ())  # no preference: the first working name
        assert default_solver() == names[0]
        monkeypatch.setattr(qpsolvers, "available_solvers", ["nosuch"])
        with pytest.raises(ConfigError) as info:
            default_solver()
        assert info.value.field == "solver"
    finally:
        monkeypatch.undo()
        assert available_solvers(refresh=True) == SOLVERS


def test_rescue_configuration():
    s = QPSolver("osqp", warm_start=False, kkt_tol=1e-7, polish=False, rescue=("osqp", *SOLVERS[:1]))
    assert s.rescue == tuple(n for n in SOLVERS[:1] if n != "osqp")
    assert (s.warm_start, s.kkt_tol, s.polish) == (False, 1e-7, False)
    assert repr(s) == "QPSolver('osqp', warm_start=False)"
    with pytest.raises(ConfigKeyError):
        QPSolver("osqp", rescue=("osqp", 3))


def test_all_variables_fixed():
    """Bounds fix every variable: the constraints are checked at that point (no backend call)."""
    C, lb = np.array([[1.0, 1.0]]), np.array([1.0, 2.0])
    s = QPSolver("osqp")
    p = QPProblem(H=np.eye(2), g=np.zeros(2), A=np.array([[1.0, -1.0]]), b=np.array([-1.0]), C=C,
                  lbC=np.array([3.0]), ubC=np.array([3.0]), lb=lb, ub=lb.copy())  # fmt: skip
    np.testing.assert_array_equal(s.solve(p), lb)
    assert s.statuses[0].status == "solved (all variables fixed)"
    records = s.status_records
    for bad, by in (({"lbC": np.array([3.5])}, "0.5"), ({"b": np.array([0.0])}, "1")):
        q = p.copy()
        for k, v in bad.items():
            setattr(q, k, v)
        with pytest.raises(QPSolveError, match=f"infeasible: constraints violated by {by} with every"):
            s.solve(q)
        assert s.status_records == records
    # in a hierarchy: every level is skipped
    level = QPLevel(np.eye(2), np.zeros(2), np.zeros(2))
    x = s.solve_hierarchy(HierarchicalQP([level], ["a", "b"], lb, lb.copy()))
    np.testing.assert_array_equal(x, lb)
    assert s.statuses[0].status == "skipped: no free variable"


def test_rows_bounded_on_neither_side_are_dropped():
    p = QPProblem(H=np.diag([1.0, 2.0]), g=np.array([-1.0, -4.0]), C=np.array([[1.0, 1.0], [1.0, -1.0]]),
                  lbC=np.array([-INF, -INF]), ubC=np.array([INF, INF]))  # fmt: skip
    for name in SOLVERS:
        np.testing.assert_allclose(QPSolver(name).solve(p), [1.0, 2.0], atol=1e-8)


def test_empty_hierarchy_with_inconsistent_bounds():
    hqp = HierarchicalQP([], ["a", "b"], lb=np.array([1.0, 0.0]), ub=np.array([0.0, 1.0]))
    with pytest.raises(QPSolveError) as info:
        QPSolver("osqp").solve_hierarchy(hqp)
    assert info.value.level == 0 and "lb > ub" in info.value.status
    np.testing.assert_array_equal(info.value.problem.H, np.zeros((2, 2)))
    np.testing.assert_array_equal(info.value.problem.lb, hqp.lb)


def test_lower_level_constraint_contradicting_a_higher_optimum_is_infeasible():
    """Level 0 puts x0 at 2 (its rows fix x0); level 1's constraint x0 ≤ 1 holds from level 1 down only,
    so it cannot move level 0's optimum: level 1 is infeasible, whatever the backend."""
    reg = np.zeros(2)
    levels = [QPLevel(np.array([[1.0, 0.0]]), np.array([2.0]), reg),
              QPLevel(np.array([[0.0, 1.0]]), np.array([1.0]), np.full(2, 1e-8), C=np.array([[1.0, 0.0]]),
                      ubC=np.array([1.0]))]  # fmt: skip
    for name in SOLVERS:
        s = QPSolver(name)
        with pytest.raises(QPSolveError) as info:
            s.solve_hierarchy(HierarchicalQP(levels, ["a", "b"]))
        assert info.value.level == 1 and info.value.status.startswith("infeasible")
        # the same constraint at level 0 holds everywhere: x0 = 1, then x1 = 1
        levels0 = [QPLevel(levels[0].A, levels[0].y, reg, C=levels[1].C, ubC=levels[1].ubC),
                   QPLevel(levels[1].A, levels[1].y, levels[1].regularization)]  # fmt: skip
        np.testing.assert_allclose(s.solve_hierarchy(HierarchicalQP(levels0, ["a", "b"])), [1.0, 1.0],
                                   atol=1e-7)  # fmt: skip
