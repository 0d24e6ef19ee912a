"""Two-level hierarchies of a scene's kind (a 6-row hand task over 9 variables above a posture level, joint
limits as bounds) answered by the level loop's compiled prefix (``wbcpy.qp.plain_levels``), against
independent oracles, and the status records it reads from the compiled answers.

Oracles: level 0's regularised optimum in closed form, x₀* = (A₀ᵀA₀ + diag r₀)⁻¹A₀ᵀy₀; level 1 on the set
A₀ x = A₀ x₀* by the explicit null-space projector of ``numpy.linalg`` (bounds inactive: x = x₀* + N w, N
an orthonormal basis of ker A₀ from the SVD, w by the normal equations), or by scipy's SLSQP with
A₀ x = A₀ x₀* as an equality constraint (a bound active on level 1). The records are compared with those
of the general loop on the same problem (the compiled level switched off).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from wbcpy.qp import HierarchicalQP, QPLevel, QPSolver
from wbcpy.qp.backends import daqp_direct
from wbcpy.qp.backends.active_set import DaqpBackend

N, M0 = 9, 6
REG0, REG1 = 1e-6, 1e-5
#: without DAQP's C solver bound (WBCPY_DAQP_DIRECT=0, another daqp release) the prefix hands over at level 0
COMPILED = daqp_direct.bound()


def _problem(seed: int, bound: float) -> HierarchicalQP:
    """Level 0: 6 random rows (a hand Jacobian's shape); level 1: posture rows I x = q_ref; bounds ±bound."""
    rng = np.random.default_rng(seed)
    A0 = rng.standard_normal((M0, N))
    y0 = rng.standard_normal(M0)
    y1 = 2.0 * rng.standard_normal(N)
    levels = [QPLevel(A0, y0, np.full(N, REG0)), QPLevel(np.eye(N), y1, np.full(N, REG1))]
    return HierarchicalQP(levels, [f"q{i}" for i in range(N)], np.full(N, -bound), np.full(N, bound))


def _level0_optimum(hqp: HierarchicalQP) -> np.ndarray:
    lv = hqp.levels[0]
    return np.linalg.solve(lv.A.T @ lv.A + np.diag(lv.regularization), lv.A.T @ lv.y)


def _projector_oracle(hqp: HierarchicalQP) -> np.ndarray:
    """The lexicographic optimum with no bound active: x₀* + N w, w = argmin of level 1 on ker A₀."""
    x0 = _level0_optimum(hqp)
    _, s, Vt = np.linalg.svd(hqp.levels[0].A)
    Nb = Vt[int(np.sum(s > 1e-12 * s[0])) :].T
    lv = hqp.levels[1]
    H = Nb.T @ (lv.A.T @ lv.A + np.diag(lv.regularization)) @ Nb
    g = Nb.T @ (lv.A.T @ (lv.A @ x0 - lv.y) + lv.regularization * x0)
    return x0 + Nb @ np.linalg.solve(H, -g)


def _slsqp_oracle(hqp: HierarchicalQP) -> np.ndarray:
    """Level 1 under A₀ x = A₀ x₀* and the bounds, by SLSQP (level 0's optimum lies inside the bounds)."""
    x0 = _level0_optimum(hqp)
    A0, lv = hqp.levels[0].A, hqp.levels[1]
    assert np.all(np.abs(x0) < hqp.ub)
    res = minimize(
        lambda x: float(np.sum((lv.A @ x - lv.y) ** 2) + lv.regularization @ (x * x)),
        np.clip(x0, hqp.lb, hqp.ub),
        jac=lambda x: 2.0 * (lv.A.T @ (lv.A @ x - lv.y) + lv.regularization * x),
        constraints=[{"type": "eq", "fun": lambda x: A0 @ x - A0 @ x0, "jac": lambda x: A0}],
        bounds=list(zip(hqp.lb, hqp.ub, strict=True)),
        method="SLSQP",
        options={"ftol": 1e-12, "maxiter": 500},
    )
    assert res.success, res.message
    return np.asarray(res.x)


@pytest.mark.parametrize("seed", range(12))
def test_inactive_bounds_match_the_null_space_projector(seed):
    hqp = _problem(seed, 1e3)
    x = QPSolver("daqp", tighten=False).solve_hierarchy(hqp)
    ref = _projector_oracle(hqp)
    assert np.all(np.abs(ref) < 1e3)  # (the bounds are inactive: the projector's answer is the optimum)
    np.testing.assert_allclose(x, ref, atol=1e-7 * (1.0 + np.abs(ref).max()))


@pytest.mark.parametrize("seed", range(12))
def test_active_bounds_match_slsqp_under_the_first_optimum(seed):
    hqp = _problem(seed, 1.0)
    x0 = _level0_optimum(hqp)
    if np.abs(x0).max() >= 1.0:  # (level 0 itself at a bound: not the case this oracle covers)
        hqp = _problem(seed, float(np.abs(x0).max()) + 0.25)
    free = _projector_oracle(hqp)
    x = QPSolver("daqp", tighten=False).solve_hierarchy(hqp)
    ref = _slsqp_oracle(hqp)
    np.testing.assert_allclose(hqp.levels[0].A @ x, hqp.levels[0].A @ x0, atol=1e-7)
    np.testing.assert_allclose(x, ref, atol=1e-5)
    assert np.all(x >= hqp.lb - 1e-9) and np.all(x <= hqp.ub + 1e-9)
    if np.any(np.abs(free) > hqp.ub):  # (a bound binds level 1: the projector's answer leaves the box)
        assert np.max(np.abs(x)) == pytest.approx(float(hqp.ub[0]), abs=1e-7)


@pytest.mark.parametrize("bound", [1e3, 0.3])
def test_records_match_the_general_loop(monkeypatch, bound):
    """The records the prefix reads from the compiled answers: the same levels, directions and variables
    as the general loop's (the Python path of every level), residuals within the tolerance, no fallback."""
    hqp = _problem(3, bound)
    solver = QPSolver("daqp", tighten=False)
    x = solver.solve_hierarchy(hqp)
    fast = solver.statuses
    with monkeypatch.context() as mp:
        mp.setattr(DaqpBackend, "solve_fused_level", lambda self, *args: None)
        slow_solver = QPSolver("daqp", tighten=False)
        x_slow = slow_solver.solve_hierarchy(hqp)
        slow = slow_solver.statuses
    np.testing.assert_allclose(x, x_slow, atol=1e-6)
    assert [(s.level, s.n_eq, s.n_variables) for s in fast] == [(0, 0, N), (1, M0, N - M0)]
    shape = [(s.level, s.n_eq, s.n_variables) for s in fast]
    assert [(s.level, s.n_eq, s.n_variables) for s in slow] == shape
    for st in fast:
        assert st.solver == "daqp" and st.fallback is None and st.status.startswith("solved")
        assert 0.0 <= st.primal_residual <= solver.kkt_tol and 0.0 <= st.dual_residual <= solver.kkt_tol
        assert isinstance(st.iterations, int) and st.iterations >= 0 and st.solve_time >= 0.0
    if COMPILED:  # (the compiled answers' statuses: DAQP's, or the minimiser that settled the level)
        assert all(not s.status.startswith("skipped") for s in fast)
