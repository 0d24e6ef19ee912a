"""The compiled box level over its rows' nonzero ranges (a limb's Jacobian rows, posture selection rows, zero
rows): its answer against SciPy's bounded least squares and its gradient t = Aᵀ(A x − y) + r∘x against
NumPy, at the sizes where the Gram matrix takes the loops and where it takes BLAS; a non-finite entry of A
refused as before."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import lsq_linear

from wbcpy import _kernels
from wbcpy.qp.backends import daqp_direct
from wbcpy.qp.backends.daqp_direct import settings_vector

#: the compiled level calls DAQP's C solver directly: without it there is no compiled level to test
pytestmark = pytest.mark.skipif(not daqp_direct.bound(), reason="this daqp release is not bound directly")


def _level(seed: int, n: int, dense: bool) -> tuple[np.ndarray, ...]:
    """A walking robot's level in miniature: dense rows (a COM), rows over a leading range with holes (a
    limb after the base), selection rows (a posture), a zero row; bounds some of which bind."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(2):
        rows.append(rng.standard_normal(n))
    for _ in range(6):
        row = np.zeros(n)
        lo, hi = sorted(rng.choice(np.arange(n + 1), 2, replace=False))
        row[lo:hi] = rng.standard_normal(hi - lo) * (rng.random(hi - lo) < 0.7)
        rows.append(row)
    rows.append(np.zeros(n))
    for j in rng.permutation(n)[: n // 2]:
        row = np.zeros(n)
        row[j] = rng.uniform(0.01, 1.0)
        rows.append(row)
    A = np.array(rows)
    if dense:  # (most entries nonzero: the Gram matrix by BLAS)
        A = A + 0.1 * rng.standard_normal(A.shape)
    y = 3.0 * rng.standard_normal(A.shape[0])
    r = np.full(n, 1e-4)
    half = rng.uniform(0.05, 1.0, n)
    return A, y, r, -half, half


def _solve(A, y, r, lb, ub):  # type: ignore[no-untyped-def]
    settings = settings_vector({"primal_tol": 1e-10})
    return _kernels.fused_level(A, y, r, None, None, None, None, None, lb, ub, settings, 1e-9, None, True)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("n", [7, 24])
@pytest.mark.parametrize("dense", [False, True])
def test_answer_and_gradient_match_numpy(seed: int, n: int, dense: bool) -> None:
    A, y, r, lb, ub = _level(seed, n, dense)
    out = _solve(A, y, r, lb, ub)
    assert out is not None
    w, t = out[0], out[2]
    stacked = np.vstack([A, np.diag(np.sqrt(r))])
    expected = lsq_linear(stacked, np.concatenate([y, np.zeros(n)]), bounds=(lb, ub), method="bvls",
                          tol=1e-14).x  # fmt: skip
    np.testing.assert_allclose(w, expected, rtol=0.0, atol=1e-7)
    gradient = A.T @ (A @ w - y) + r * w
    scale = np.abs(A).T @ np.abs(A @ w - y) + np.abs(r * w)
    assert np.all(np.abs(t - gradient) <= 1e-13 * (1.0 + scale))


@pytest.mark.parametrize("bad", [np.inf, np.nan])
def test_a_non_finite_entry_is_refused(bad: float) -> None:
    A, y, r, lb, ub = _level(0, 12, False)
    A[3, 5] = bad
    assert _solve(A, y, r, lb, ub) is None  # (the Python path reports it)
