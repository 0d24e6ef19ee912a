"""The level Hessian AᵀA + diag r of ``level_equations`` on rows of every sparsity (selection rows, one limb's
Jacobian rows, dense COM rows), against NumPy's product: the kernel's row-gathering Gram loop."""

from __future__ import annotations

import numpy as np
import pytest

from wbcpy._kernels import level_equations


def _rows(rng: np.random.Generator, m: int, n: int) -> np.ndarray:
    """m rows over n columns: each row dense, one entry, or a random fraction of entries nonzero."""
    A = np.zeros((m, n))
    for i in range(m):
        kind = rng.integers(3)
        if kind == 0:
            A[i] = rng.standard_normal(n)
        elif kind == 1:
            A[i, rng.integers(n)] = rng.standard_normal()
        else:
            A[i] = rng.standard_normal(n) * (rng.random(n) < rng.random())
    return A


@pytest.mark.parametrize("seed", range(40))
def test_hessian_matches_numpy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(1, 90)), int(rng.integers(1, 70))
    A = _rows(rng, m, n)
    if seed % 3 == 1:
        A = np.asfortranarray(A)  # (strided rows)
    r = rng.random(n)
    _, _, H, _ = level_equations(A, np.zeros(m), r, None, None)
    expected = A.T @ A + np.diag(r)
    scale = 1.0 + np.abs(A).T @ np.abs(A)
    assert np.all(np.abs(H - expected) <= 1e-13 * scale)
    assert np.all(np.abs(H - H.T) <= 1e-13 * scale)  # (a dense A goes through BLAS: symmetric to rounding)


def test_hessian_of_a_walking_level() -> None:
    """The shape of a kinematic walk's level: 3 dense COM rows, two legs' 6 rows on the base and 6 joints,
    3 torso rows, 32 posture selection rows (nv = 38)."""
    rng = np.random.default_rng(7)
    n = 38
    A = np.zeros((50, n))
    A[:3] = rng.standard_normal((3, n))
    A[3:9, :12] = rng.standard_normal((6, 12))
    A[9:15, :6] = rng.standard_normal((6, 6))
    A[9:15, 12:18] = rng.standard_normal((6, 6))
    A[15:18, 3:6] = rng.standard_normal((3, 3))
    A[15:18, 18:20] = rng.standard_normal((3, 2))
    A[18:, 6:] = np.diag(np.full(32, np.sqrt(1e-3)))
    r = np.full(n, 1e-8)
    _, _, H, _ = level_equations(A, np.zeros(50), r, None, None)
    assert np.allclose(H, A.T @ A + np.diag(r), rtol=0.0, atol=1e-13 * (1.0 + np.abs(A).max() ** 2 * 50))
