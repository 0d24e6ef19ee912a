"""The compiled box level from a working set (``fused_level`` with ``chol_first`` an int8 array): primal-dual
active-set iterations from the guessed set, against SciPy's bounded least squares (an independent solver),
the set written back, and bad sets refused."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import lsq_linear

from wbcpy import _kernels
from wbcpy.qp.backends import daqp_direct
from wbcpy.qp.backends.daqp_direct import settings_vector

#: the compiled level calls DAQP's C solver directly: without it (WBCPY_DAQP_DIRECT=0, another daqp
#: release) there is no compiled level to test
pytestmark = pytest.mark.skipif(not daqp_direct.bound(), reason="this daqp release is not bound directly")


def _settings() -> np.ndarray:
    out = settings_vector({"primal_tol": 1e-10})
    assert out is not None
    return out


def _level(seed: int, m: int = 30, n: int = 12) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                                          np.ndarray]:  # fmt: skip
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((m, n)) * (rng.random((m, n)) < 0.6)
    y = 3.0 * rng.standard_normal(m)
    r = np.full(n, 1e-3)
    half = rng.uniform(0.05, 1.0, n)
    lb, ub = -half, half
    lb[rng.random(n) < 0.2] = -np.inf
    return A, y, r, lb, ub


def _oracle(A: np.ndarray, y: np.ndarray, r: np.ndarray, lb: np.ndarray, ub: np.ndarray) -> np.ndarray:
    """argmin ‖A x − y‖² + Σ r x² on the box, by SciPy's bounded least squares."""
    stacked = np.vstack([A, np.diag(np.sqrt(r))])
    res = lsq_linear(stacked, np.concatenate([y, np.zeros(A.shape[1])]), bounds=(lb, ub), method="bvls",
                     tol=1e-14)  # fmt: skip
    return np.asarray(res.x)


def _solve(A, y, r, lb, ub, working):  # type: ignore[no-untyped-def]
    no = None
    return _kernels.fused_level(A, y, r, no, no, no, no, no, lb, ub, _settings(), 1e-9, no, working)


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("start", ["empty", "answer", "wrong"])
def test_answer_matches_bounded_least_squares(seed: int, start: str) -> None:
    A, y, r, lb, ub = _level(seed)
    expected = _oracle(A, y, r, lb, ub)
    n = A.shape[1]
    at_lower = np.isclose(expected, lb, rtol=0.0, atol=1e-9)
    at_upper = np.isclose(expected, ub, rtol=0.0, atol=1e-9)
    working = np.zeros(n, dtype=np.int8)
    if start == "answer":
        working[at_lower], working[at_upper] = -1, 1
    elif start == "wrong":  # (every bound on the wrong side, or fixed where the answer is free)
        working[:] = np.where(at_upper, -1, 1)
    out = _solve(A, y, r, lb, ub, working)
    assert out is not None
    x, how = out[10], out[12]
    assert np.allclose(x, expected, rtol=0.0, atol=1e-7 * (1.0 + np.abs(expected).max()))
    assert how in (0, 1, 3, 4)  # (DAQP, its second run, the Cholesky minimiser, the active-set iterations)
    # the set written back is the answer's: fixed entries sit on their bound
    assert np.all(np.isclose(x[working < 0], lb[working < 0], atol=1e-9))
    assert np.all(np.isclose(x[working > 0], ub[working > 0], atol=1e-9))
    if start == "answer" and (at_lower | at_upper).any():
        assert how == 4  # (the guessed set is the answer's: the iterations settle it)


def test_same_answer_as_without_a_working_set() -> None:
    for seed in range(10):
        A, y, r, lb, ub = _level(seed, 40, 20)
        plain = _solve(A, y, r, lb, ub, False)
        working = np.zeros(20, dtype=np.int8)
        first = _solve(A, y, r, lb, ub, working)
        again = _solve(A, y, r, lb, ub, working)  # (from the set the first call wrote)
        assert plain is not None and first is not None and again is not None
        scale = 1.0 + np.abs(plain[10]).max()
        assert np.allclose(first[10], plain[10], rtol=0.0, atol=1e-8 * scale)
        assert np.allclose(again[10], plain[10], rtol=0.0, atol=1e-8 * scale)


@pytest.mark.parametrize(
    "working",
    [np.zeros(5, dtype=np.int8), np.zeros(6, dtype=np.int32), np.zeros((6, 1), dtype=np.int8),
     np.zeros(12, dtype=np.int8)[::2]],
)  # fmt: skip
def test_bad_working_sets_are_refused(working: np.ndarray) -> None:
    A, y, r, lb, ub = _level(0, 10, 6)
    with pytest.raises(ValueError, match="working set"):
        _solve(A, y, r, lb, ub, working)
    frozen = np.zeros(6, dtype=np.int8)
    frozen.setflags(write=False)
    with pytest.raises(ValueError, match="working set"):
        _solve(A, y, r, lb, ub, frozen)


def test_working_set_with_a_null_space_is_refused() -> None:
    A, y, r, lb, ub = _level(1, 10, 6)
    Z = np.eye(6)[:, :4]
    with pytest.raises(ValueError, match="working set"):
        _kernels.fused_level(A, y, r, Z, np.zeros(6), None, None, None, lb, ub, _settings(), 1e-9, None,
                             np.zeros(4, dtype=np.int8))  # fmt: skip


def test_a_working_set_over_an_input_is_refused() -> None:
    """The set is written: one sharing memory with an input (here y's bytes) is refused before any work,
    and the input is unchanged."""
    A, y, r, lb, ub = _level(2, 10, 6)
    overlapping = y.view(np.int8)[:6]
    overlapping[:] = 0
    before = y.copy()
    with pytest.raises(ValueError, match="overlaps"):
        _solve(A, y, r, lb, ub, overlapping)
    np.testing.assert_array_equal(y, before)
