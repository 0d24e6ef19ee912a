"""``pin_rows``: which rows of a level select variables, checked against a NumPy reading of its contract.

A selection row has exactly one nonzero entry, above 1e-12·max(1, the longest row's norm); the variables
they select are pinned (the kept columns and the pinned values x̄[cols] returned) unless the variables left
would span more than half of the k free directions. A level of dense rows (a Jacobian) selects nothing:
None, whatever the other arguments.
"""

from __future__ import annotations

import numpy as np

from wbcpy._kernels import pin_rows


def _selected(A: np.ndarray) -> list[int]:
    floor = 1e-12 * max(1.0, float(np.linalg.norm(A, axis=1).max()))
    cols = set()
    for row in A:
        nz = np.flatnonzero(row)
        if nz.size == 1 and abs(row[nz[0]]) > floor:
            cols.add(int(nz[0]))
    return sorted(cols)


def test_dense_rows_select_nothing() -> None:
    rng = np.random.default_rng(1)
    A = rng.standard_normal((6, 9))
    assert _selected(A) == []
    assert pin_rows(A, 9, rng.standard_normal(9), [], None, None, None) is None


def test_selection_rows_pin_their_variables() -> None:
    rng = np.random.default_rng(2)
    n, pinned = 7, 0
    for _ in range(200):
        A = rng.standard_normal((5, n)) * (rng.random((5, n)) < 0.25)
        A[rng.random(5) < 0.2] *= 1e-15  # (rows below the floor select nothing)
        xbar = rng.standard_normal(n)
        cols = _selected(A)
        out = pin_rows(A, n, xbar, [], None, None, None)
        if not cols or 2 * (n - len(cols)) > n:
            assert out is None
            continue
        assert out is not None
        got_cols, kept, values = out[0], out[1], out[2]
        np.testing.assert_array_equal(got_cols, cols)
        np.testing.assert_array_equal(kept, [j for j in range(n) if j not in cols])
        np.testing.assert_array_equal(values, xbar[cols])
        pinned += 1
    assert pinned  # (the draws include levels that pin)
