"""The compiled level (wbcpy._kernels.fused_level, LevelSolver.solve_fused_level).

A hierarchy level without inequality rows from the levels above — bounds only, or on a null space with
the bounds as rows of Z — is built, solved by DAQP and certified in one C call. Oracles: the Python path
on the same hierarchy (the level built as a StdQP, DaqpBackend.solve, kkt.certify): the same outcome at
every level and the same answer to the rounding the levels' conditioning allows — two codes of the same
maths, so never compared bit for bit —, each answer checked by the independent KKT verifier
(``_qp_oracle.verify_lexicographic``), SciPy's bounded least squares (``scipy.optimize.lsq_linear``) for
a level's optimum, quadprog's, and the lexicographic optimum of two levels computed by hand (the first
level's optimal set parametrised, the second solved on it).
"""

from __future__ import annotations

import numpy as np
import pytest
from _hierarchy_reference import level_costs
from _qp_oracle import verify_lexicographic
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.optimize import lsq_linear

from wbcpy import _kernels
from wbcpy.errors import QPSolveError
from wbcpy.qp import HierarchicalQP, QPLevel, QPSolver
from wbcpy.qp.backends import daqp_direct
from wbcpy.qp.backends.active_set import WARM_MIN_ACTIVE, DaqpBackend

pytestmark = pytest.mark.skipif(not daqp_direct.bound(), reason="this daqp release is not bound directly")


def _hierarchy(rng: np.random.Generator, n: int, levels: int, fixed: int, constrained: bool = False,
               open_bounds: bool = False) -> HierarchicalQP:  # fmt: skip
    """Random levels over n variables with tight bounds (some active), ``fixed`` of them with lb = ub;
    ``constrained``: level 0 also has equality and inequality rows (one-sided, two-sided, free), all met
    by one point inside the box; ``open_bounds``: no bounds at all."""
    x_in = rng.uniform(-0.04, 0.04, n)
    out = []
    for p in range(levels):
        m = int(rng.integers(1, n + 3))
        level = QPLevel(rng.standard_normal((m, n)), 3.0 * rng.standard_normal(m),
                        np.full(n, 10.0 ** rng.uniform(-8, -2)))  # fmt: skip
        if constrained and p == 0:  # (constraints hold from their level down: level 0 has them all)
            if n > 2:
                level.E = rng.standard_normal((int(rng.integers(1, n // 2 + 1)), n))
                level.f = level.E @ x_in
            mc = int(rng.integers(1, n + 2))
            level.C = rng.standard_normal((mc, n))
            mid = level.C @ x_in
            level.lbC = mid - rng.uniform(0.0, 0.3, mc)
            level.ubC = mid + rng.uniform(0.0, 0.3, mc)
            level.lbC[rng.random(mc) < 0.3] = -np.inf
            level.ubC[rng.random(mc) < 0.2] = np.inf
        out.append(level)
    lb = -rng.uniform(0.05, 1.0, n)
    ub = rng.uniform(0.05, 1.0, n)
    if fixed:
        at = rng.choice(n, size=min(fixed, n - 1), replace=False)
        lb[at] = ub[at] = x_in[at]
    if open_bounds:
        return HierarchicalQP(out, [f"x{i}" for i in range(n)])
    return HierarchicalQP(out, [f"x{i}" for i in range(n)], lb=lb, ub=ub)


def _solve_both(hqp: HierarchicalQP, monkeypatch: pytest.MonkeyPatch, **options: float) -> tuple:
    """(x, records, compiled calls) with the compiled path, then (x, records) without it (QPSolver("daqp",
    **options) both times)."""
    calls = []
    real = DaqpBackend.solve_fused_level

    def counted(self, *args):
        out = real(self, *args)
        calls.append(out is not None)
        return out

    monkeypatch.setattr(DaqpBackend, "solve_fused_level", counted)
    s = QPSolver("daqp", **options)
    x, rec = s.solve_hierarchy(hqp), s.status_records
    monkeypatch.setattr(DaqpBackend, "solve_fused_level", lambda self, *args: None)
    s = QPSolver("daqp", **options)
    return x, rec, calls, s.solve_hierarchy(hqp), s.status_records


#: DAQP iterations the two paths may take apart on one level: a tie in DAQP's choice of the constraint
#: to add or drop, broken the other way by rounding, costs an add and a drop
ITERATION_SLACK = 2
#: the answers' agreement, relative to 1 + max|x|: every level of these hierarchies is strictly convex
#: with curvature ≥ its λ ≥ 1e-8 against ‖AᵀA‖ ≲ 1e2, so two roundings (ε ≈ 2.2e-16) of its H and g move
#: its optimum by at most ≈ 1e10 ε ≈ 2e-6 of |x|; a wrong sign or a missing row moves it by O(1)
SAME_X = 1e-5
#: the level costs' agreement, relative to 1 + the cost (the campaign's criterion, COST_TOL)
SAME_COST = 1e-6


def _same_records(a: tuple, b: tuple) -> None:
    """The status records of the two paths: per level the same backend, status text, level, equality
    directions, variables and fallback; DAQP's iterations within ITERATION_SLACK. (The time and the
    certificates' residuals are each path's own: residuals are rounding, checked below the tolerance by
    each path's certificate.)"""
    assert len(a) == len(b)
    for ra, rb in zip(a, b, strict=True):
        assert ra[:2] + ra[4:7] + ra[9:] == rb[:2] + rb[4:7] + rb[9:]
        assert (ra[2] is None) == (rb[2] is None)
        if ra[2] is not None:
            assert abs(ra[2] - rb[2]) <= ITERATION_SLACK, (ra, rb)


def _same_answer(hqp: HierarchicalQP, x: np.ndarray, x_py: np.ndarray, verify: bool = True) -> None:
    """The compiled and the Python path's answers to a hierarchy of strictly convex levels: the same point
    (SAME_X) and level costs (SAME_COST), and (``verify``) both the lexicographic optimum by the
    independent KKT verifier."""
    np.testing.assert_allclose(x, x_py, rtol=0, atol=SAME_X * (1.0 + np.abs(x_py).max(initial=0.0)))
    costs, costs_py = level_costs(hqp, x), level_costs(hqp, x_py)
    np.testing.assert_allclose(costs, costs_py, rtol=0, atol=SAME_COST * (1.0 + np.abs(costs_py).max()))
    if verify:
        assert verify_lexicographic(hqp, x) is None and verify_lexicographic(hqp, x_py) is None


@settings(max_examples=120, deadline=None)
@given(n=st.integers(1, 14), levels=st.integers(1, 3), fixed=st.integers(0, 3), seed=st.integers(0, 2**31))
@example(n=7, levels=1, fixed=0, seed=23879)  # (a level the compiled path leaves to the refinement)
def test_compiled_level_equals_the_python_path(n: int, levels: int, fixed: int, seed: int) -> None:
    hqp = _hierarchy(np.random.default_rng(seed), n, levels, fixed)
    with pytest.MonkeyPatch.context() as mp:
        x, rec, calls, x_py, rec_py = _solve_both(hqp, mp)
    _same_answer(hqp, x, x_py)
    _same_records(rec, rec_py)
    # level 0 (no null space yet) took the compiled path, and settled there unless DAQP's answer needed the
    # refinement only the Python path makes (2 rows on 7 variables at λ = 1e-8: H's eigenvalues span 9
    # decades, and DAQP's answer is refined on its active set)
    assert calls and (calls[0] or rec_py[0][1].endswith("(refined)"))


@settings(max_examples=120, deadline=None)
@given(n=st.integers(1, 12), levels=st.integers(1, 3), fixed=st.integers(0, 2), open_bounds=st.booleans(),
       seed=st.integers(0, 2**31))  # fmt: skip
def test_compiled_level_with_rows_equals_the_python_path(n: int, levels: int, fixed: int, open_bounds: bool,
                                                         seed: int) -> None:  # fmt: skip
    """Equality rows (a null space from level 0 on), inequality rows of the levels above, bounds or none:
    the same answer and records either way, or the same failure."""
    hqp = _hierarchy(np.random.default_rng(seed), n, levels, 0 if open_bounds else fixed, True, open_bounds)
    with pytest.MonkeyPatch.context() as mp:
        try:
            x, rec, _calls, x_py, rec_py = _solve_both(hqp, mp)
        except QPSolveError as exc:  # (both paths must then fail: the Python path alone decides)
            mp.setattr(DaqpBackend, "solve_fused_level", lambda self, *args: None)
            with pytest.raises(QPSolveError) as info:
                QPSolver("daqp").solve_hierarchy(hqp)
            assert info.value.level == exc.level
            return
    _same_answer(hqp, x, x_py)
    _same_records(rec, rec_py)


def test_levels_on_a_null_space_take_the_compiled_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two strict levels over 9 variables, the first with 6 rows: the second is solved on the 3 free
    directions with the 9 bounds as rows of Z — compiled too, with the Python path's answer."""
    rng = np.random.default_rng(11)
    hqp = HierarchicalQP(
        [QPLevel(rng.standard_normal((6, 9)), 3.0 * rng.standard_normal(6), np.full(9, 1e-8)),
         QPLevel(np.eye(9), 2.0 * rng.standard_normal(9), np.full(9, 1e-8))],
        [f"x{i}" for i in range(9)], lb=-np.ones(9), ub=np.ones(9),
    )  # fmt: skip
    x, rec, calls, x_py, rec_py = _solve_both(hqp, monkeypatch)
    assert calls == [True, True]
    _same_answer(hqp, x, x_py)
    _same_records(rec, rec_py)


@pytest.mark.parametrize("seed", range(6))
def test_compiled_level_is_the_bounded_least_squares_optimum(seed: int) -> None:
    """One level: min ‖A x − y‖² + r‖x‖² over the box is SciPy's lsq_linear on [A; √r I], [y; 0]."""
    rng = np.random.default_rng(seed)
    n, m, r = 9, 15, 1e-3
    A, y = rng.standard_normal((m, n)), 4.0 * rng.standard_normal(m)
    lb, ub = -rng.uniform(0.1, 0.5, n), rng.uniform(0.1, 0.5, n)
    hqp = HierarchicalQP([QPLevel(A, y, np.full(n, r))], [f"x{i}" for i in range(n)], lb=lb, ub=ub)
    x = QPSolver("daqp").solve_hierarchy(hqp)
    ref = lsq_linear(np.vstack((A, np.sqrt(r) * np.eye(n))), np.concatenate((y, np.zeros(n))), (lb, ub),
                     method="bvls", tol=1e-14)  # fmt: skip
    assert np.any(np.isclose(ref.x, lb) | np.isclose(ref.x, ub))  # some bound active
    np.testing.assert_allclose(x, ref.x, atol=1e-9)


@pytest.mark.parametrize("seed", range(4))
def test_second_level_is_the_lexicographic_optimum(seed: int) -> None:
    """Level 0: A₀ x = y₀ (3 rows, reachable inside the box); level 1: ‖x − t‖² on its solution set
    x = x₀ + N u. Oracle: lsq_linear over u with the box as rows is not available, so the box is made
    inactive at the optimum (t near x₀) and level 1 is the projection of t onto the affine set."""
    rng = np.random.default_rng(seed)
    n = 6
    A0 = rng.standard_normal((3, n))
    x_in = rng.uniform(-0.2, 0.2, n)
    y0, t = A0 @ x_in, x_in + rng.uniform(-0.1, 0.1, n)
    hqp = HierarchicalQP([QPLevel(A0, y0, np.zeros(n)), QPLevel(np.eye(n), t, np.zeros(n))],
                         [f"x{i}" for i in range(n)], lb=-np.ones(n), ub=np.ones(n))  # fmt: skip
    x = QPSolver("daqp").solve_hierarchy(hqp)
    N = np.linalg.svd(A0)[2][3:].T  # basis of A0's null space
    ref = x_in + N @ (N.T @ (t - x_in))
    np.testing.assert_allclose(x, ref, atol=1e-9)


def _settings(**options: float):
    return daqp_direct.settings_vector({"primal_tol": 1e-10, **options})


def test_kernel_leaves_what_it_cannot_settle_to_the_python_path() -> None:
    """A failed DAQP run (iteration limit), a non-finite problem, a bound that a fixed direction violates
    or a level whose every bound row drops out returns None, not a guess."""
    rng = np.random.default_rng(3)
    A, y, r = rng.standard_normal((12, 9)), 40.0 * rng.standard_normal(12), np.full(9, 1e-6)
    lb, ub = -0.1 * np.ones(9), 0.1 * np.ones(9)
    out = _kernels.fused_level(A, y, r, None, None, None, None, None, lb, ub, _settings(), 1e-6, None, False)
    assert out is not None and out[8] == 1 and out[9] > 1  # solved, several bounds met on the way
    assert (
        out[1] is None and out[6] is None and out[7] is None and out[2].shape == (9,)
    )  # (box: the gradient, no rows)
    assert (
        _kernels.fused_level(
            A, y, r, None, None, None, None, None, lb, ub, _settings(iter_limit=1), 1e-6, None, False
        )
        is None
    )
    y_nan = y.copy()
    y_nan[0] = np.nan
    assert (
        _kernels.fused_level(
            A, y_nan, r, None, None, None, None, None, lb, ub, _settings(), 1e-6, None, False
        )
        is None
    )
    Z = np.zeros((9, 1))
    Z[0, 0] = 1.0  # only x0 free: every other bound row is constant, x̄ = 0.5 e1 violates x1 ≤ 0.1
    xbar = np.zeros(9)
    xbar[1] = 0.5
    assert (
        _kernels.fused_level(A, y, r, Z, xbar, None, None, None, lb, ub, _settings(), 1e-6, None, False)
        is None
    )
    out = _kernels.fused_level(
        A, y, r, Z, np.zeros(9), None, None, None, lb, ub, _settings(), 1e-6, None, False
    )
    assert (
        out is not None and out[7].tolist() == [0] and out[6] is None and out[1].shape == (1,)
    )  # one bound row kept
    inf = np.full(9, np.inf)
    assert (
        _kernels.fused_level(A, y, r, Z, None, None, None, None, -inf, inf, _settings(), 1e-6, None, False)
        is None
    )  # no row left
    # the hierarchy then takes the Python path: its attempts (the first, DAQP's robust settings) report
    s = QPSolver("daqp", rescue=None, iter_limit=1)
    with pytest.raises(QPSolveError, match="daqp: iteration limit reached; daqp eps_prox"):
        s.solve_hierarchy(HierarchicalQP([QPLevel(A, y, r)], [f"x{i}" for i in range(9)], lb=lb, ub=ub))


def test_kernel_with_a_moved_point_is_the_level_in_w() -> None:
    """x̄ ≠ 0: the answer is w = x − x̄ of the same level (bounds lb − x̄ ≤ w ≤ ub − x̄), with Z = I as
    well as without a null space."""
    rng = np.random.default_rng(5)
    A, y, r = rng.standard_normal((7, 5)), rng.standard_normal(7), np.full(5, 1e-4)
    lb, ub, xbar = -np.ones(5), np.ones(5), rng.uniform(-0.5, 0.5, 5)
    x = _kernels.fused_level(A, y, r, None, None, None, None, None, lb, ub, _settings(), 1e-6, None, False)[0]
    w = _kernels.fused_level(A, y, r, None, xbar, None, None, None, lb, ub, _settings(), 1e-6, None, False)[0]
    np.testing.assert_allclose(xbar + w, x, atol=1e-12)
    wz = _kernels.fused_level(
        A, y, r, np.eye(5), xbar, None, None, None, lb, ub, _settings(), 1e-6, None, False
    )[0]
    np.testing.assert_allclose(xbar + wz, x, atol=1e-10)


@pytest.mark.parametrize(
    "args",
    [
        (np.ones((2, 3)), np.zeros(3), np.zeros(3), None, None, np.zeros(3), np.ones(3)),  # y of 3 rows
        (np.ones((2, 3)), np.zeros(2), np.zeros(2), None, None, np.zeros(3), np.ones(3)),  # r
        (np.ones((2, 3)), np.zeros(2), np.zeros(3), None, np.zeros(2), np.zeros(3), np.ones(3)),  # xbar
        (np.ones((2, 3)), np.zeros(2), np.zeros(3), np.eye(2), None, np.zeros(3), np.ones(3)),  # Z rows
        (np.ones((2, 3)), np.zeros(2), np.zeros(3), None, None, None, np.ones(3)),  # lb None
        (np.ones((2, 3)), np.zeros(2), np.zeros(3), None, None, np.zeros(6)[::2], np.ones(3)),  # strided
        (np.ones(3), np.zeros(2), np.zeros(3), None, None, np.zeros(3), np.ones(3)),  # A 1-D
    ],
)
def test_bad_arguments_raise(args) -> None:
    with pytest.raises((TypeError, ValueError)):
        _kernels.fused_level(*args[:5], None, None, None, *args[5:], _settings(), 1e-6, None, False)
    with pytest.raises((TypeError, ValueError)):
        _kernels.fused_level(
            *args[:5], None, None, None, *args[5:], np.zeros(3), 1e-6, None, False
        )  # bad settings


def test_backend_keeps_warm_starts_and_refused_arrays_on_the_python_path() -> None:
    rng = np.random.default_rng(9)
    A, y, r = rng.standard_normal((8, 6)), rng.standard_normal(8), np.full(6, 1e-3)
    lb, ub = -np.ones(6), np.ones(6)
    b = DaqpBackend(warm_start=True, options={"primal_tol": 1e-10})
    assert b.solve_fused_level(A, y, r, None, None, None, lb, ub, None, 1e-6) is not None
    b._active = WARM_MIN_ACTIVE  # a large working set: the warm start goes through daqp.solve
    assert b.solve_fused_level(A, y, r, None, None, None, lb, ub, np.zeros(6), 1e-6) is None
    assert (
        b.solve_fused_level(A, y, r, None, None, None, lb, ub, None, 1e-6) is not None
    )  # (no previous answer)
    assert (
        b.solve_fused_level(A, y, r, None, None, None, np.zeros(12)[::2], ub, None, 1e-6) is None
    )  # strided
    b2 = DaqpBackend(options={"primal_tol": 1e-10, "is_avi": False})  # not a setting: the wrapper
    assert b2.solve_fused_level(A, y, r, None, None, None, lb, ub, None, 1e-6) is None


def test_contact_scene_levels_take_the_compiled_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Talos on both soles (the oracle's standing scene), then on one: the task level on the null space
    of the equations of motion below the friction cones, and the least-norm wrench level once q̈ is
    pinned — compiled, with the Python path's answers and records (the answers to SAME_X: each level
    carries λ = 1e-8 or more on every variable; the scene tests verify the optimum itself)."""
    from _contact_oracle import talos_half_sitting
    from _id_helpers import talos_scene

    from wbcpy.scenes.inverse_dynamics_scene import BACKEND_OPTIONS
    from wbcpy.tasks import ComReference, JointReference

    robot, q = talos_half_sitting()
    scene = talos_scene(robot)
    scene.set_reference("com", ComReference(np.array([0.3, -0.2, 0.1])))
    scene.set_reference("posture", JointReference(np.zeros(robot.nv - 6)))
    for active in (True, False):
        scene.set_contact_active("right_sole_link", active)
        robot.update(q, np.zeros(robot.nv))
        problem = scene.update()
        with pytest.MonkeyPatch.context() as mp:
            x, rec, calls, x_py, rec_py = _solve_both(problem, mp, **BACKEND_OPTIONS["daqp"])
        assert len(calls) == (2 if active else 1) and all(calls)  # (one support: the split is unique)
        _same_answer(problem, x, x_py, verify=False)
        _same_records(rec, rec_py)


def _decades(seed: int) -> HierarchicalQP:
    """One level whose weights span twelve decades: a 6-row task at weight 1e6 over a posture at 1e-6 on
    9 variables (cond H ~ 1e12), λ = 1e-8, bounds far away."""
    rng = np.random.default_rng(seed)
    A = np.vstack([1e3 * rng.standard_normal((6, 9)), 1e-3 * np.eye(9)])
    y = np.concatenate([3e3 * rng.standard_normal(6), 1e-3 * rng.standard_normal(9)])
    return HierarchicalQP([QPLevel(A, y, np.full(9, 1e-8))], [f"x{i}" for i in range(9)],
                          lb=np.full(9, -50.0), ub=np.full(9, 50.0))  # fmt: skip


def _bounded_lsq(hqp: HierarchicalQP) -> tuple[np.ndarray, float]:
    """SciPy's bounded least squares of the one level of ``hqp`` and its cost ½‖R x − d‖²."""
    level = hqp.levels[0]
    n = level.A.shape[1]
    R = np.vstack([level.A, np.diag(np.sqrt(level.regularization))])
    d = np.concatenate([level.y, np.zeros(n)])
    x = lsq_linear(R, d, bounds=(hqp.lb, hqp.ub), method="bvls", tol=1e-14).x
    return x, 0.5 * float(np.sum((R @ x - d) ** 2))


@pytest.mark.parametrize("seed", [0, 2, 4, 5])
def test_marginal_certificates_are_settled_in_the_compiled_level(seed: int) -> None:
    """Weights over twelve decades: DAQP's answer passes its certificate only within the rounding of the
    terms H and g were formed from (marginal). The kernel applies the same second test as
    kkt._dual_error, so the compiled path settles it with the Python path's outcome (which an exact
    backend's marginal answer keeps, without tightening: the scenes' setting) instead of leaving it to
    Python (issue 26: that made standing still 1.6× slower). With cond H ~ 1e12 the weak directions are
    resolved only to ~1e-4, so both answers are judged by their cost: SciPy's bounded least-squares
    optimum to the rounding of the terms it is formed from (1e-12 of ‖y‖², about 5000 ε; a wrong answer
    costs a fraction of ‖y‖²)."""
    hqp = _decades(seed)
    with pytest.MonkeyPatch.context() as mp:
        x, rec, calls, x_py, rec_py = _solve_both(hqp, mp, tighten=False)
    assert calls == [True]
    _same_records(rec, rec_py)
    _, best = _bounded_lsq(hqp)
    y = hqp.levels[0].y
    for answer in (x, x_py):
        assert 0.5 * level_costs(hqp, answer)[0] - best <= 1e-12 * float(y @ y)


@pytest.mark.parametrize("seed", [1, 3, 6, 7])
def test_weights_over_twelve_decades_get_a_second_compiled_run(seed: int) -> None:
    """Here DAQP's answer fails its certificate: its automatic proximal regularisation (pivots below
    zero_tol·max diag H) leaves the weak directions barely moved. The kernel runs DAQP again with
    zero_tol 1e-14, certifies that answer, and it is the bounded least-squares optimum (SciPy) to 1e-9 of
    the cost — in C, where the Python refinement made this state 15× slower."""
    hqp = _decades(seed)
    calls = []
    real = DaqpBackend.solve_fused_level

    def counted(self, *args):
        out = real(self, *args)
        calls.append(out)
        return out

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(DaqpBackend, "solve_fused_level", counted)
        solver = QPSolver("daqp", tighten=False)
        x = solver.solve_hierarchy(hqp)
    assert len(calls) == 1 and calls[0] is not None and "second run" in calls[0][8]
    _, best = _bounded_lsq(hqp)
    R = np.vstack([hqp.levels[0].A, np.diag(np.sqrt(hqp.levels[0].regularization))])
    d = np.concatenate([hqp.levels[0].y, np.zeros(9)])
    assert 0.5 * float(np.sum((R @ x - d) ** 2)) - best <= 1e-9 * (1.0 + best)


@pytest.mark.parametrize("seed", range(4))
def test_least_squares_start_is_the_minimiser_nearest_the_start(seed: int) -> None:
    """``ls_start``: the kernel tries the level's unconstrained least-squares minimiser before DAQP; on a
    semidefinite level the one nearest ``ls_start``. Oracle: NumPy's least squares and SVD null space
    (the minimisers w* + N v; the nearest one w* + N Nᵀ(start − w*)). Where that point leaves the box,
    DAQP answers as without ``ls_start``."""
    rng = np.random.default_rng(seed)
    m, n = 5, 9
    A, y = rng.standard_normal((m, n)), rng.standard_normal(m)
    r = np.where(rng.random(n) < 0.5, 1e-6, 0.0)
    r[:2] = 0.0  # (at least two directions without curvature: semidefinite)
    R = np.vstack([A, np.diag(np.sqrt(r))])
    d = np.concatenate([y, np.zeros(n)])
    w_star = np.linalg.lstsq(R, d, rcond=None)[0]
    _, sv, Vt = np.linalg.svd(R)
    N = Vt[int(np.count_nonzero(sv > 1e-12 * sv[0])) :].T
    start = rng.standard_normal(n)
    nearest = w_star + N @ (N.T @ (start - w_star))
    wide = 10.0 * (1.0 + np.abs(nearest).max())
    lb, ub = np.full(n, -wide), np.full(n, wide)
    out = _kernels.fused_level(A, y, r, None, None, None, None, None, lb, ub, _settings(), 1e-6, start, False)
    assert out is not None and out[12] == 2 and out[9] == 0  # (no DAQP iteration)
    np.testing.assert_allclose(out[0], nearest, rtol=0, atol=1e-9 * (1.0 + np.abs(nearest).max()))
    ub_tight = ub.copy()
    ub_tight[int(np.argmax(nearest))] = nearest.max() - 0.5  # the minimiser leaves the box: DAQP decides
    got = _kernels.fused_level(
        A, y, r, None, None, None, None, None, lb, ub_tight, _settings(), 1e-6, start, False
    )
    plain = _kernels.fused_level(
        A, y, r, None, None, None, None, None, lb, ub_tight, _settings(), 1e-6, None, False
    )
    assert (got is None) == (plain is None)
    if got is not None:
        assert got[12] != 2
        np.testing.assert_array_equal(got[0], plain[0])


def test_least_squares_start_of_the_wrong_size_is_refused() -> None:
    rng = np.random.default_rng(1)
    A, y, r = rng.standard_normal((4, 6)), rng.standard_normal(4), np.full(6, 1e-6)
    lb, ub = -np.ones(6), np.ones(6)
    for bad in (np.zeros(5), np.zeros((6, 1)), np.zeros(6, dtype=np.float32), np.zeros(6).astype(">f8")):
        with pytest.raises((TypeError, ValueError), match="ls_start"):
            _kernels.fused_level(A, y, r, None, None, None, None, None, lb, ub, _settings(), 1e-6, bad, False)


def _posture_level(rng: np.random.Generator, n: int) -> HierarchicalQP:
    """A contact-like level on n variables: equality rows (a null space), 3 dense task rows, selection
    rows of one common weight on most variables (a posture task) and of other weights on a few, λ on
    every variable, and friction-cone-like rows on the last four variables that hold at a point inside."""
    x_in = rng.uniform(-0.5, 0.5, n)
    E = rng.standard_normal((int(rng.integers(1, n // 3 + 1)), n))
    posture = rng.choice(n, size=n - 4, replace=False)
    others = rng.choice(n, size=2, replace=False)
    A = np.vstack([rng.standard_normal((3, n)), np.zeros((n - 2, n))])
    A[3 + np.arange(n - 4), posture] = 0.3  # (weight 0.09 on n − 4 columns: the most frequent one)
    A[n - 1 + np.arange(2), others] = rng.uniform(0.5, 2.0, 2)
    C = np.zeros((6, n))
    C[:, n - 4 :] = rng.standard_normal((6, 4))
    lbC, ubC = np.full(6, -np.inf), C @ x_in + rng.uniform(0.0, 0.2, 6)
    y = rng.standard_normal(A.shape[0])
    level = QPLevel(A, y, np.full(n, 1e-6), E=E, f=E @ x_in, C=C, lbC=lbC, ubC=ubC)
    return HierarchicalQP([level], [f"x{i}" for i in range(n)])


@settings(max_examples=40, deadline=None)
@given(n=st.integers(8, 24), seed=st.integers(0, 2**31))
def test_level_with_a_most_frequent_weight_is_its_optimum(n: int, seed: int) -> None:
    """The Hessian on the null space formed from the most frequent diagonal weight (c I minus the other
    columns' terms): the compiled level gives the Python path's outcome and answer, and both are
    quadprog's optimum of the same strictly convex QP (E x = f, C x ≤ ubC) within 1e-6."""
    quadprog = pytest.importorskip("quadprog")
    hqp = _posture_level(np.random.default_rng(seed), n)
    with pytest.MonkeyPatch.context() as mp:
        x, rec, calls, x_py, rec_py = _solve_both(hqp, mp)
    assert calls == [True]
    _same_answer(hqp, x, x_py)
    _same_records(rec, rec_py)
    level = hqp.levels[0]
    G = level.A.T @ level.A + np.diag(level.regularization)
    rows = np.vstack([level.E, -level.C])
    sides = np.concatenate([level.f, -level.ubC])
    ref = quadprog.solve_qp(G, level.A.T @ level.y, rows.T, sides, level.E.shape[0])[0]
    np.testing.assert_allclose(x, ref, atol=1e-6 * (1.0 + np.abs(ref).max()))
