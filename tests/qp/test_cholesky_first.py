"""The compiled level's unconstrained minimiser by pivoted Cholesky, tried before DAQP (issue 26).

Where a level's optimum had no active constraint at its last solve, ``fused_level(..., chol_first=True)``
takes the minimiser of the level's least-squares cost nearest w = 0 (pivoted Cholesky of H; H's null
directions, on which only lower levels have a cost, set to the least norm) and certifies it like DAQP's
answer; a constraint active now, or a certificate that does not pass strictly, leaves the level to DAQP.
Oracles: NumPy's least-norm least squares (``lstsq`` of the stacked rows [A Z; diag(√r) Z]) for the point,
DAQP's own answer (the kernel without the attempt) where H is definite, SciPy's bounded least squares and
a fresh solver's answer where a constraint is active. A refused attempt leaves DAQP the very numbers it
would have had without it (the same kernel call, the same process): that answer is the plain call's, bit
for bit — the same code on the same data, not a second implementation.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wbcpy import _kernels
from wbcpy.qp import HierarchicalQP, QPLevel, QPSolver
from wbcpy.qp.backends import active_set, daqp_direct
from wbcpy.qp.backends.active_set import CHOL_PAUSE, DaqpBackend

pytestmark = pytest.mark.skipif(not daqp_direct.bound(), reason="this daqp release is not bound directly")

#: the status suffix of an answer by the box level's active-set iterations
ACTIVE_SET = "(active-set iterations from the last working set)"
CHOLESKY = 3  # (fused_level's "retried" code of an answer by the Cholesky minimiser)


def _settings() -> np.ndarray:
    return daqp_direct.settings_vector({"primal_tol": 1e-10})


def _level_on_null_space(rng: np.random.Generator, n: int, k: int, m: int, r_free: int, slack: float):
    """A level on x = x̄ + Z w (Z: k orthonormal columns) with m rows (on Z: singular values 0.5 to 2, so
    that H's range is well conditioned), λ = 1e-6 on all but ``r_free``
    variables and inequality rows C x whose sides lie ``slack`` around their value at the unconstrained
    least-norm minimiser (slack > 0: inactive; slack < 0: that minimiser violates them)."""
    Z = np.linalg.qr(rng.standard_normal((n, k)))[0]
    xbar = rng.standard_normal(n)
    # A Z of rank min(m, k) with singular values in [0.5, 2] (H's range well conditioned), plus a part
    # outside the free directions
    U, V = np.linalg.qr(rng.standard_normal((m, m)))[0], np.linalg.qr(rng.standard_normal((k, k)))[0]
    s = np.zeros((m, k))
    np.fill_diagonal(s, rng.uniform(0.5, 2.0, min(m, k)))
    A = U @ s @ V.T @ Z.T + rng.standard_normal((m, n)) @ (np.eye(n) - Z @ Z.T)
    y = 3.0 * rng.standard_normal(m)
    r = np.full(n, 1e-6)
    r[rng.choice(n, size=r_free, replace=False)] = 0.0
    w_ls = _least_norm(A, y, r, Z, xbar)
    C = rng.standard_normal((2 * k, n))
    at = C @ (xbar + Z @ w_ls)
    return A, y, r, Z, xbar, C, at - slack, at + slack, w_ls


def _least_norm(A: np.ndarray, y: np.ndarray, r: np.ndarray, Z: np.ndarray, xbar: np.ndarray) -> np.ndarray:
    """The minimiser of ‖A(x̄ + Z w) − y‖² + Σ r (x̄ + Z w)² of least norm (NumPy's lstsq, SVD)."""
    R = np.vstack([A @ Z, np.sqrt(r)[:, None] * Z])
    d = np.concatenate([y - A @ xbar, -np.sqrt(r) * xbar])
    return np.linalg.lstsq(R, d, rcond=1e-10)[0]


def _fused(A, y, r, Z, xbar, C, lo, hi, chol: bool):
    return _kernels.fused_level(A, y, r, Z, xbar, C, lo, hi, None, None, _settings(), 1e-6, None, chol)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(4, 30), seed=st.integers(0, 2**31), rank_gap=st.integers(0, 4))
def test_minimiser_is_the_least_norm_least_squares_point(n: int, seed: int, rank_gap: int) -> None:
    """Inactive rows, H definite or semidefinite (fewer independent rows than free directions, the
    unregularised variables among them): the Cholesky answer is the least-norm minimiser, multipliers 0."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, n + 1))
    m = max(1, k - rank_gap)
    A, y, r, Z, xbar, C, lo, hi, w_ls = _level_on_null_space(rng, n, k, m, n if rank_gap else 0, 1.0)
    out = _fused(A, y, r, Z, xbar, C, lo, hi, True)
    assert out is not None and out[12] == CHOLESKY
    w, z = out[0], out[1]
    np.testing.assert_allclose(w, w_ls, rtol=1e-8, atol=1e-8 * (1.0 + np.abs(w_ls).max()))
    assert not z.any() and out[13] == 0  # (no active constraint)
    np.testing.assert_allclose(out[10], xbar + Z @ w, rtol=1e-12, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(3, 25), seed=st.integers(0, 2**31))
def test_definite_level_is_daqps_answer(n: int, seed: int) -> None:
    """H definite (λ on every variable) and rows inactive: the same point as DAQP's, to rounding."""
    rng = np.random.default_rng(seed)
    A, y, r, Z, xbar, C, lo, hi, _ = _level_on_null_space(rng, n, int(rng.integers(1, n + 1)), n, 0, 0.5)
    chol, daqp = _fused(A, y, r, Z, xbar, C, lo, hi, True), _fused(A, y, r, Z, xbar, C, lo, hi, False)
    assert chol[12] == CHOLESKY and daqp[12] == 0
    np.testing.assert_allclose(chol[0], daqp[0], rtol=1e-9, atol=1e-9 * (1.0 + np.abs(daqp[0]).max()))


@pytest.mark.parametrize("seed", range(6))
def test_active_constraint_leaves_the_level_to_daqp(seed: int) -> None:
    """The unconstrained minimiser violates rows: DAQP answers, exactly as without the attempt."""
    rng = np.random.default_rng(seed)
    A, y, r, Z, xbar, C, lo, hi, _ = _level_on_null_space(rng, 12, 8, 10, 0, 0.3)
    lo[:3] += 0.4  # (one-sided rows the minimiser violates: C x ≥ its value + 0.1)
    hi[:3] = np.inf
    chol, daqp = _fused(A, y, r, Z, xbar, C, lo, hi, True), _fused(A, y, r, Z, xbar, C, lo, hi, False)
    assert chol is not None and chol[12] != CHOLESKY and chol[13] > 0
    for a, b in zip(chol, daqp, strict=True):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b)


def _box_level(rng: np.random.Generator, n: int, tight: bool) -> HierarchicalQP:
    """One level without rows, bounds on both sides: far away, or (``tight``) cutting the optimum."""
    A, y = rng.standard_normal((n + 2, n)), 2.0 * rng.standard_normal(n + 2)
    bound = 0.05 if tight else 1e3
    return HierarchicalQP([QPLevel(A, y, np.full(n, 1e-8))], [f"x{i}" for i in range(n)],
                          lb=np.full(n, -bound), ub=np.full(n, bound))  # fmt: skip


def test_solver_tries_it_after_a_step_without_active_constraints(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh solver starts with DAQP; the next solve of a level whose optimum had no active bound takes
    the Cholesky minimiser (its status says so), the same point; a step with active bounds is settled by
    the active-set iterations from that (empty) working set, with the answer a fresh solver gives, and the
    next step from the working set it left."""
    asked: list[bool] = []
    real = active_set._fused_level

    def recording(*args):
        asked.append(args[13] is not False)  # (True, or the box level's working set)
        return real(*args)

    monkeypatch.setattr(active_set, "_fused_level", recording)
    rng = np.random.default_rng(7)
    free, tight = _box_level(rng, 9, False), _box_level(rng, 9, True)
    solver = QPSolver("daqp")
    x0 = solver.solve_hierarchy(free)
    assert solver.statuses[0].status == "solved" and asked == [False]
    x1 = solver.solve_hierarchy(free)
    assert asked[-1] and solver.statuses[0].status.endswith("(unconstrained minimiser, Cholesky)")
    np.testing.assert_allclose(x1, x0, rtol=1e-10, atol=1e-12)
    ref = np.linalg.lstsq(np.vstack([free.levels[0].A, 1e-4 * np.eye(9)]),
                          np.concatenate([free.levels[0].y, np.zeros(9)]), rcond=None)[0]  # fmt: skip
    np.testing.assert_allclose(x1, ref, rtol=1e-9, atol=1e-12)
    # (11 random rows on 9 variables: H well conditioned, so a warm and a fresh solver agree to 1e-12)
    fresh = QPSolver("daqp").solve_hierarchy(tight)
    for _ in range(2):  # (from the empty set, then from the set the first left)
        x2 = solver.solve_hierarchy(tight)
        assert asked[-1] and solver.statuses[0].status.endswith(ACTIVE_SET)
        np.testing.assert_allclose(x2, fresh, rtol=0, atol=1e-12 * (1.0 + np.abs(fresh).max()))
    assert np.any(np.abs(x2) == 0.05)


def test_daqp_goes_first_after_an_attempt_that_did_not_settle() -> None:
    """An attempt that DAQP had to answer (how 0) pauses the attempts for CHOL_PAUSE calls; an answer of
    the minimiser (3) or of the active-set iterations (4) does not; a box level stays ready with active
    bounds (its working set is kept), a level with rows only without them."""
    backend = DaqpBackend()
    backend._after_compiled(False, True, 0, 2, True)
    assert [backend._chol_first(False) for _ in range(CHOL_PAUSE + 1)] == [False] * CHOL_PAUSE + [True]
    for how in (3, 4):
        backend._after_compiled(False, True, how, 2, True)
        assert backend._chol_first(False)
    backend._after_compiled(False, False, 0, 2, False)
    assert not backend._chol_first(False)
    backend._after_compiled(False, False, 0, 0, False)
    assert backend._chol_first(False)


def test_a_compiled_answer_not_taken_is_forgotten() -> None:
    """LevelSolver refuses a compiled answer (here: loose) and resets the backend: the next compiled call
    of that level starts with DAQP, as the Python path (which has no Cholesky attempt) does."""
    backend = DaqpBackend()
    backend._chol_ready = True
    backend.reset()
    assert not backend._chol_first(False) and not backend._chol_first(True)


@pytest.mark.parametrize("seed", range(4))
def test_weights_over_twelve_decades_are_left_to_daqp(seed: int) -> None:
    """A strong task at 1e6 over a weak posture at 1e-6 (curvatures 1e-12 of H's largest): the factor would
    resolve the posture directions only to cond·ε, and the certificate, relative to the level's scale,
    cannot tell — the attempt is refused and the answer is the one without it, bit for bit."""
    rng = np.random.default_rng(seed)
    A = np.vstack([1e3 * rng.standard_normal((6, 9)), 1e-3 * np.eye(9)])
    y = np.concatenate([3e3 * rng.standard_normal(6), 1e-3 * rng.standard_normal(9)])
    r, lb, ub = np.full(9, 1e-8), np.full(9, -50.0), np.full(9, 50.0)

    def run(chol: bool):
        return _kernels.fused_level(
            A, y, r, None, None, None, None, None, lb, ub, _settings(), 1e-6, None, chol
        )

    tried, plain = run(True), run(False)
    assert (tried is None) == (plain is None)
    if tried is not None:
        assert tried[12] != CHOLESKY
        np.testing.assert_array_equal(tried[0], plain[0])


@settings(max_examples=40, deadline=None)
@given(k=st.integers(2, 40), seed=st.integers(0, 2**31), decades=st.floats(0.0, 1.75))
def test_pivoting_over_scales_is_the_least_norm_point(k: int, seed: int, decades: float) -> None:
    """Free directions whose curvatures (squared singular values, 10^±decades each) span up to seven
    decades (pivots² down to 1e-7 of the largest, every one swapped into place) and three exact null
    directions: still the least-norm minimiser, to the accuracy a factor of that condition allows
    (about ε · 1e7 relative)."""
    rng = np.random.default_rng(seed)
    n = k + 3
    Z = np.linalg.qr(rng.standard_normal((n, k)))[0]
    xbar = rng.standard_normal(n)
    m = max(1, k - 3)
    s = 10.0 ** rng.uniform(-decades, decades, m)
    U, V = np.linalg.qr(rng.standard_normal((m, m)))[0], np.linalg.qr(rng.standard_normal((k, k)))[0]
    S = np.zeros((m, k))
    np.fill_diagonal(S, s)
    A = U @ S @ V.T @ Z.T
    y, r = 3.0 * rng.standard_normal(m), np.zeros(n)
    w_ls = _least_norm(A, y, r, Z, xbar)
    C = rng.standard_normal((2, n))
    at = C @ (xbar + Z @ w_ls)
    out = _fused(A, y, r, Z, xbar, C, at - 1.0, at + 1.0, True)
    assert out is not None and out[12] == CHOLESKY
    np.testing.assert_allclose(out[0], w_ls, rtol=0, atol=1e-8 * (1.0 + np.abs(w_ls).max()))
