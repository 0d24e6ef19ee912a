"""``_kernels._cholesky_solve``: the box level's Cholesky factor and solves against NumPy / SciPy.

The kernel factors H = UᵀU (its own loops on small orders, LAPACK's dpotrf above) and refuses H when a
pivot² — U(j, j)², the diagonal entry left at step j — is not positive and at least ``floor``. The oracles:
``scipy.linalg.solve`` for the solution, the backward error ‖H x − b‖ of a stable Cholesky solve, and
``numpy.linalg.cholesky``'s factor L = Uᵀ for the pivots (which decide whether H must be refused). Orders
on both sides of the compiled path's threshold are tried.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

from wbcpy import _kernels as kernels

ORDERS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 31, 37, 47, 48, 49, 64, 80)
EPS = np.finfo(float).eps


def _random_spd(rng: np.random.Generator, n: int) -> np.ndarray:
    M = rng.standard_normal((n + 3, n))
    return M.T @ M + 0.1 * np.eye(n)


def _with_spectrum(rng: np.random.Generator, eigenvalues: np.ndarray) -> np.ndarray:
    Q, _ = np.linalg.qr(rng.standard_normal((eigenvalues.size, eigenvalues.size)))
    H = (Q * eigenvalues) @ Q.T
    return 0.5 * (H + H.T)


def _backward_error(H: np.ndarray, x: np.ndarray, b: np.ndarray) -> float:
    return float(np.linalg.norm(H @ x - b) / (np.linalg.norm(H, 2) * np.linalg.norm(x) + np.linalg.norm(b)))


@pytest.mark.parametrize("n", ORDERS)
def test_solution_is_scipys(n: int) -> None:
    for seed in range(5):
        rng = np.random.default_rng(seed)
        H, b = _random_spd(rng, n), rng.standard_normal(n)
        x = kernels._cholesky_solve(H, b, 1e-9 * H.diagonal().max())
        want = scipy.linalg.solve(H, b, assume_a="pos")
        assert x is not None
        cond = np.linalg.cond(H)
        assert np.linalg.norm(x - want) <= 50 * n * EPS * cond * np.linalg.norm(want)
        assert _backward_error(H, x, b) <= 10 * n * EPS


@pytest.mark.parametrize("n", (5, 12, 37, 48, 60))
def test_ill_conditioned_solve_is_backward_stable(n: int) -> None:
    """cond(H) = 1e8: every pivot² is at least λ_min, above the floor 1e-9 max diag H; the answer has a
    backward error of a few ε (a stable Cholesky solve) and the forward error cond·ε allows."""
    rng = np.random.default_rng(n)
    H = _with_spectrum(rng, np.logspace(0.0, -8.0, n))
    b = rng.standard_normal(n)
    floor = 1e-9 * H.diagonal().max()
    assert (np.linalg.cholesky(H).diagonal() ** 2).min() >= 10 * floor  # (far from the refusal)
    x = kernels._cholesky_solve(H, b, floor)
    assert x is not None
    assert _backward_error(H, x, b) <= 10 * n * EPS
    want = scipy.linalg.solve(H, b, assume_a="pos")
    assert np.linalg.norm(x - want) <= 1e-5 * np.linalg.norm(want)


def _with_pivot(rng: np.random.Generator, n: int, j: int, ratio: float) -> np.ndarray:
    """H = UᵀU, U upper with unit-order entries and U(j, j)² = ratio: H's pivot² at step j is ratio."""
    U = np.triu(rng.uniform(-0.5, 0.5, (n, n)))
    U[np.diag_indices(n)] = rng.uniform(1.0, 2.0, n)
    U[j, j] = np.sqrt(ratio)
    return U.T @ U


@pytest.mark.parametrize("n", (2, 6, 11, 37, 48, 60))
def test_refused_exactly_when_a_pivot_is_below_the_floor(n: int) -> None:
    rng = np.random.default_rng(100 + n)
    for trial in range(6):
        j = int(rng.integers(n)) if trial < 4 else (n - 1 if trial == 4 else 0)
        for ratio, refused in ((1e-13, True), (1e-6, False)):
            H = _with_pivot(rng, n, j, ratio)
            floor = 1e-9 * H.diagonal().max()
            pivots = np.linalg.cholesky(H).diagonal() ** 2  # (numpy's factor: the oracle of the test)
            assert (pivots.min() < 0.1 * floor) == refused and (pivots.min() > 10 * floor) == (not refused)
            b = rng.standard_normal(n)
            x = kernels._cholesky_solve(H, b, floor)
            if refused:
                assert x is None, (n, j)
            else:
                assert x is not None, (n, j)
                assert _backward_error(H, x, b) <= 1e-12


@pytest.mark.parametrize("n", (3, 20, 60))
def test_indefinite_singular_and_nan_matrices_are_refused(n: int) -> None:
    rng = np.random.default_rng(n)
    eigenvalues = rng.uniform(1.0, 2.0, n)
    eigenvalues[n // 2] = -0.5
    H = _with_spectrum(rng, eigenvalues)
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.cholesky(H)
    b = np.ones(n)
    assert kernels._cholesky_solve(H, b, 1e-9 * H.diagonal().max()) is None
    assert kernels._cholesky_solve(np.zeros((n, n)), b, 1e-300) is None
    M = rng.standard_normal((n, n - 1))
    assert kernels._cholesky_solve(M @ M.T, b, 1e-9 * (M @ M.T).diagonal().max()) is None  # (rank n − 1)
    spd = _random_spd(rng, n)
    spd[n - 1, 0] = np.nan
    assert kernels._cholesky_solve(spd, b, 1e-9) is None
    assert kernels._cholesky_solve(_random_spd(rng, n), b, float("nan")) is None


@pytest.mark.parametrize("n", (4, 37, 60))
def test_only_the_lower_triangle_is_read(n: int) -> None:
    rng = np.random.default_rng(n)
    H, b = _random_spd(rng, n), rng.standard_normal(n)
    garbage = H.copy()
    garbage[np.triu_indices(n, 1)] = np.nan
    x = kernels._cholesky_solve(garbage, b, 1e-9)
    assert x is not None
    assert np.allclose(x, scipy.linalg.solve(H, b, assume_a="pos"), rtol=1e-9, atol=1e-12)
    assert np.isnan(garbage[0, n - 1])  # (the inputs are not written)


def test_empty_system_and_bad_arguments() -> None:
    x = kernels._cholesky_solve(np.zeros((0, 0)), np.zeros(0), 1e-9)
    assert x is not None and x.shape == (0,)
    H, b = np.eye(3), np.ones(3)
    with pytest.raises(ValueError, match="square"):
        kernels._cholesky_solve(np.ones((3, 2)), b, 1e-9)
    with pytest.raises(ValueError):
        kernels._cholesky_solve(H, np.ones(2), 1e-9)
    with pytest.raises(TypeError):
        kernels._cholesky_solve(H.astype(np.float32), b, 1e-9)
    with pytest.raises(TypeError):
        kernels._cholesky_solve(H, b, "1e-9")
    with pytest.raises(TypeError):
        kernels._cholesky_solve(H, b)  # type: ignore[call-arg]
