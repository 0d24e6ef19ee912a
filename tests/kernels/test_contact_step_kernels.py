"""The contact step's row kernels on the layouts the scene hands them: C-ordered (contiguous rows), sparse
rows (friction cones, contact rows), strided views; each against a NumPy oracle (``dynamics_rows`` on
every layout: tests/kernels/test_kernels.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wbcpy import _kernels as kernels

EPS = np.finfo(float).eps


def _rows_excess_oracle(M: np.ndarray, lo: np.ndarray, hi: np.ndarray, x: np.ndarray, tol: float) -> float:
    """rows_excess in NumPy (the definition: each row's excess over tol (1 + |side|) + 8(n + 1)ε |M||x|,
    and the answer's rounding ε max|M| ‖x‖₂ over tol (1 + the largest finite side))."""
    c, mag = M @ x, np.abs(M) @ np.abs(x)
    rho = 8.0 * (M.shape[1] + 1) * EPS
    with np.errstate(invalid="ignore"):
        below = lo - c - tol * (1.0 + np.abs(lo)) - rho * mag
        above = c - hi - tol * (1.0 + np.abs(hi)) - rho * mag
    rows = float(np.nanmax(np.maximum(below, above)))
    sides = np.abs(np.concatenate([lo, hi]))
    data = float(sides[np.isfinite(sides)].max(initial=0.0))
    return max(rows, EPS * np.abs(M).max() * float(np.linalg.norm(x)) - tol * (1.0 + data))


def _sparse_rows(rng: np.random.Generator, m: int, n: int, density: float) -> np.ndarray:
    """m × n rows with about `density` of their entries nonzero, some rows all zero, zeros in runs."""
    M = rng.normal(size=(m, n)) * (rng.random((m, n)) < density)
    if m > 1:
        M[rng.integers(0, m)] = 0.0
    if n > 6:
        start = int(rng.integers(0, n - 6))
        M[:, start : start + 6] = 0.0  # (a block of four zeros or more in every row)
    return M


@given(seed=st.integers(0, 2**31), m=st.integers(1, 12), n=st.integers(1, 23),
       density=st.sampled_from([0.1, 0.3, 1.0]), layout=st.sampled_from(["C", "F", "strided"]))  # fmt: skip
@settings(max_examples=80, deadline=None)
def test_rows_excess_on_sparse_and_strided_rows(seed: int, m: int, n: int, density: float,
                                                layout: str) -> None:  # fmt: skip
    """Rows with zero blocks (skipped four at a time on contiguous rows) and every memory layout give the
    oracle's excess; rows met exactly pass, a side moved by 1e-3 fails by its amount."""
    rng = np.random.default_rng(seed)
    M = _sparse_rows(rng, m, n, density)
    if layout == "F":
        M = np.asfortranarray(M)
    elif layout == "strided":
        M = np.repeat(M, 2, axis=1)[:, ::2]
    x = rng.normal(size=n) * 10.0 ** rng.integers(-3, 4)
    c = M @ x
    lo, hi = c - rng.random(m), c + rng.random(m)
    tol = 1e-9
    got = kernels.rows_excess(M, lo, hi, x, tol)
    assert got == pytest.approx(_rows_excess_oracle(M, lo, hi, x, tol), rel=1e-9, abs=1e-12)
    assert got < 0.0
    hi[0] = c[0] - 1e-3 * (1.0 + abs(c[0]))
    bad = kernels.rows_excess(M, lo, hi, x, tol)
    assert bad == pytest.approx(_rows_excess_oracle(M, lo, hi, x, tol), rel=1e-9, abs=1e-12)
    assert bad > 0.0


def test_rows_excess_nan_entry_in_a_zero_block_is_reported() -> None:
    """A NaN among zeros (a group that would otherwise be skipped) makes the excess NaN-aware: the row is
    not silently taken as met."""
    M = np.zeros((2, 9))
    M[0, 0], M[1, 5] = 1.0, np.nan
    x = np.ones(9)
    out = kernels.rows_excess(M, np.array([1.0, 0.0]), np.array([1.0, 0.0]), x, 1e-9)
    assert np.isnan(out) or out > 0.0
