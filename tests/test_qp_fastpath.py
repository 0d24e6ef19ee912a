"""The dense DAQP fast path of QPSolver.solve_hierarchy (wbcpy.qp.fast_daqp) and the QR row space.

Oracles: the generic pipeline of wbcpy.qp.hierarchy (a separate implementation: StdQP, backend
adapter, KKT residuals), scipy's bounded least squares (``scipy.optimize.lsq_linear``), numpy's SVD
rank and ``scipy.linalg.null_space``.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sla
from scipy.optimize import lsq_linear

from wbcpy.errors import InvalidValueError, QPSolveError
from wbcpy.qp import HierarchicalQP, QPLevel, QPSolver, available_solvers
from wbcpy.qp.hierarchy import row_space

pytestmark = pytest.mark.skipif("daqp" not in available_solvers(), reason="daqp is not installed")
LAM = 1e-8


def names(n: int) -> list[str]:
    return [f"q{i}" for i in range(n)]


def random_hqp(rng: np.random.Generator, n: int | None = None) -> HierarchicalQP:
    """1–3 levels (some empty, some with dependent rows), bounds with fixed and unbounded variables."""
    n = int(rng.integers(2, 12)) if n is None else n
    levels = []
    for _ in range(int(rng.integers(1, 4))):
        m = int(rng.integers(0, n + 2))
        A = rng.standard_normal((m, n))
        if m > 2 and rng.random() < 0.3:
            A[-1] = A[0] + A[1]  # dependent row
        reg = np.full(n, LAM) if rng.random() < 0.7 else rng.uniform(1e-8, 1e-3, n)
        levels.append(QPLevel(A, 3.0 * rng.standard_normal(m), reg))
    lb = ub = None
    if rng.random() < 0.8:
        lb, ub = -rng.uniform(0.1, 2.0, n), rng.uniform(0.1, 2.0, n)
        if rng.random() < 0.3:
            k = rng.integers(0, n)
            lb[k] = ub[k] = 0.3  # fixed variable
        if rng.random() < 0.3:
            lb[rng.integers(0, n)], ub[rng.integers(0, n)] = -np.inf, np.inf
    return HierarchicalQP(levels, names(n), lb, ub)


def generic(hqp: HierarchicalQP) -> tuple[np.ndarray, list]:
    s = QPSolver("daqp")
    s._fast = None  # the generic pipeline only
    return s.solve_hierarchy(hqp), s.statuses


def fast(hqp: HierarchicalQP) -> tuple[np.ndarray, QPSolver]:
    s = QPSolver("daqp")
    x = s.solve_hierarchy(hqp)
    assert s._status_records is not None, "the fast path was not taken"
    return x, s


@pytest.mark.parametrize("seed", range(6))
def test_fast_path_matches_generic_pipeline(seed):
    rng = np.random.default_rng(100 + seed)
    for _ in range(25):
        hqp = random_hqp(rng)
        x_fast, s = fast(hqp)
        x_gen, st_gen = generic(hqp)
        np.testing.assert_allclose(x_fast, x_gen, atol=1e-6 * (1 + np.abs(x_gen).max()), rtol=0)
        st_fast = s.statuses
        assert [st.level for st in st_fast] == [st.level for st in st_gen]
        assert [st.n_eq for st in st_fast] == [st.n_eq for st in st_gen]
        assert [st.status.split(":")[0] for st in st_fast] == [st.status.split(":")[0] for st in st_gen]
        if hqp.lb is not None:
            assert (x_fast >= hqp.lb).all() and (x_fast <= hqp.ub).all()  # clipped: exactly feasible


def test_single_level_against_bounded_least_squares():
    """One level with active bounds: scipy's bounded least squares on [A; √λ I] is the oracle."""
    rng = np.random.default_rng(7)
    for n, m in ((7, 13), (12, 5), (38, 47)):
        A, y = rng.standard_normal((m, n)), 5.0 * rng.standard_normal(m)
        reg = np.full(n, 1e-3)
        lb, ub = -rng.uniform(0.05, 1.0, n), rng.uniform(0.05, 1.0, n)
        x, _ = fast(HierarchicalQP([QPLevel(A, y, reg)], names(n), lb, ub))
        oracle = lsq_linear(np.vstack([A, np.diag(np.sqrt(reg))]), np.concatenate([y, np.zeros(n)]),
                            bounds=(lb, ub), method="bvls", tol=1e-14).x  # fmt: skip
        np.testing.assert_allclose(x, oracle, atol=1e-8)
        assert np.isclose(x, lb).any() or np.isclose(x, ub).any()  # some bound is active


def test_two_levels_against_null_space_oracle():
    """Level 1 optimises inside the null space of level 0 (bounds inactive): closed form with scipy."""
    rng = np.random.default_rng(8)
    A0, y0 = rng.standard_normal((3, 7)), rng.standard_normal(3)
    A1, y1 = rng.standard_normal((5, 7)), rng.standard_normal(5)
    reg = np.full(7, LAM)
    wide = 1e3 * np.ones(7)
    hqp = HierarchicalQP([QPLevel(A0, y0, reg), QPLevel(A1, y1, reg)], names(7), -wide, wide)
    x, s = fast(hqp)
    x0 = np.linalg.solve(A0.T @ A0 + LAM * np.eye(7), A0.T @ y0)
    Z = sla.null_space(A0)
    w = np.linalg.solve(Z.T @ A1.T @ A1 @ Z + LAM * np.eye(4), Z.T @ A1.T @ (y1 - A1 @ x0) - LAM * Z.T @ x0)
    np.testing.assert_allclose(x, x0 + Z @ w, atol=1e-7)
    assert [st.n_eq for st in s.statuses] == [0, 3]


def test_wrong_daqp_answer_is_caught(monkeypatch):
    """DAQP claiming success with a wrong x: the fast path's check rejects it; if the generic path's
    backend lies too, the result is still right (polished) or a QPSolveError — never the wrong x."""
    rng = np.random.default_rng(9)
    hqps = [random_hqp(rng, n=7) for _ in range(10)]
    one = QPLevel(rng.standard_normal((6, 7)), rng.standard_normal(6), np.full(7, 1e-3))
    hqps.append(HierarchicalQP([one], names(7), -np.ones(7), np.ones(7)))
    for hqp in hqps:
        if not any(lv.A.shape[0] for lv in hqp.levels):
            continue
        expected, _ = generic(hqp)
        s = QPSolver("daqp")
        real = s._fast._daqp

        def liar(*args, _real=real, **kwargs):
            x, f, flag, info = _real(*args, **kwargs)
            return x + 1e-3, f, flag, info

        s._fast._daqp = liar
        calls = []
        orig_solve = s._fast.solve

        def spy(h, _orig=orig_solve, _calls=calls):
            out = _orig(h)
            _calls.append(out)
            return out

        monkeypatch.setattr(s._fast, "solve", spy)
        x = s.solve_hierarchy(hqp)
        assert len(calls) == 1 and calls[0] is None  # rejected by the fast path's check
        np.testing.assert_allclose(x, expected, atol=1e-9)
        # both paths lie: right answer (polished on the active set) or an error, never x + 1e-3
        s2 = QPSolver("daqp")
        s2._fast._daqp = liar
        backend = s2._backend("solve")
        real_backend = backend._solve

        def backend_liar(*args, _real=real_backend, **kwargs):
            x, f, flag, info = _real(*args, **kwargs)
            return x + 1e-3, f, flag, info

        backend._solve = backend_liar
        for p in range(len(hqp.levels)):
            s2._backend(p)._solve = backend_liar
        try:
            x2 = s2.solve_hierarchy(hqp)
        except QPSolveError:
            continue
        np.testing.assert_allclose(x2, expected, atol=1e-7)


def test_replaced_backend_bypasses_the_fast_path():
    rng = np.random.default_rng(10)
    hqp = HierarchicalQP([QPLevel(rng.standard_normal((3, 5)), rng.standard_normal(3), np.full(5, LAM))],
                         names(5), -np.ones(5), np.ones(5))  # fmt: skip
    s = QPSolver("daqp")
    s._backends[0] = s._backend("solve").__class__()  # a plain adapter is fine...
    x = s.solve_hierarchy(hqp)
    assert s._status_records is not None

    class Other:  # ...anything else (a test double, a wrapper) sends the solve to the generic path
        exact = True
        reused = False

        def __init__(self, inner):
            self.inner = inner

        def solve(self, q, x0):
            return self.inner.solve(q, x0)

        def solve_fallback(self, q, x0):
            return None

        def reset(self):
            pass

    s._backends[0] = Other(s._backends["solve"])
    np.testing.assert_allclose(s.solve_hierarchy(hqp), x, atol=1e-12)
    assert s._status_records is None  # statuses came from the generic path


def test_invalid_values_still_raise():
    """NaN in a level or a bound fails the fast path's checks and reaches the validation."""
    rng = np.random.default_rng(11)
    A = rng.standard_normal((3, 4))
    A[1, 2] = np.nan
    with pytest.raises(InvalidValueError):
        QPSolver("daqp").solve_hierarchy(HierarchicalQP([QPLevel(A, np.ones(3), np.full(4, LAM))], names(4)))
    lb = -np.ones(4)
    lb[0] = np.nan
    with pytest.raises(InvalidValueError):
        QPSolver("daqp").solve_hierarchy(
            HierarchicalQP([QPLevel(np.eye(4), np.ones(4), np.full(4, LAM))], names(4), lb, np.ones(4))
        )
    level = QPLevel(np.eye(4), np.ones(4), np.full(4, LAM))
    with pytest.raises(QPSolveError):  # inconsistent bounds
        QPSolver("daqp").solve_hierarchy(HierarchicalQP([level], names(4), np.ones(4), -np.ones(4)))


def test_locked_variables_single_level_are_exact():
    """n ≤ 16: variables with lb = ub are left to DAQP, then clipped: exactly their value."""
    rng = np.random.default_rng(12)
    lb, ub = -np.ones(7), np.ones(7)
    lb[[1, 4]] = ub[[1, 4]] = [0.25, 0.0]
    A, y = rng.standard_normal((6, 7)), rng.standard_normal(6)
    x, _ = fast(HierarchicalQP([QPLevel(A, y, np.full(7, LAM))], names(7), lb, ub))
    assert x[1] == 0.25 and x[4] == 0.0
    free = [0, 2, 3, 5, 6]
    oracle = lsq_linear(np.vstack([A[:, free], np.sqrt(LAM) * np.eye(5)]),
                        np.concatenate([y - A[:, 1] * 0.25, np.zeros(5)]), bounds=(-1, 1), method="bvls",
                        tol=1e-14).x  # fmt: skip
    np.testing.assert_allclose(x[free], oracle, atol=1e-6)


@pytest.mark.parametrize("seed", range(3))
def test_row_space_rank_matches_svd(seed):
    """Pivoted-QR rank = SVD rank of the row-normalised matrix; the bases are orthonormal."""
    rng = np.random.default_rng(200 + seed)
    for _ in range(30):
        n, r = int(rng.integers(2, 40)), int(rng.integers(0, 8))
        m = int(rng.integers(1, 45))
        S = rng.standard_normal((m, min(r, n))) @ rng.standard_normal((min(r, n), n))
        S *= 10.0 ** rng.uniform(-4, 4, (m, 1))  # rows of very different scales
        N, Z = row_space(S)
        norms = np.linalg.norm(S, axis=1)
        keep = norms > 1e-12 * max(1.0, norms.max())
        expected = np.linalg.matrix_rank(S[keep] / norms[keep, None], tol=1e-9) if keep.any() else 0
        assert N.shape == (expected, n) and Z.shape == (n, n - expected)
        np.testing.assert_allclose(np.vstack([N, Z.T]) @ np.vstack([N, Z.T]).T, np.eye(n), atol=1e-12)
        np.testing.assert_allclose(S @ Z, 0.0, atol=1e-9 * max(1.0, np.abs(S).max()))
