"""The compiled kernels (``wbcpy._kernels``) against independent oracles: NumPy / SciPy formulas written
here, Pinocchio's SO(3) maps, and the defining properties of a null-space basis. Every kernel also
refuses arguments of the wrong type or shape (TypeError / ValueError, never a crash)."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
import scipy.linalg as sla
from hypothesis import given, settings
from hypothesis import strategies as st

from wbcpy import _kernels as kernels

RNG = np.random.default_rng(20261201)


def _rotation_near(angle: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    axis = rng.normal(size=3)
    axis /= np.linalg.norm(axis)
    return pin.exp3(axis * angle), axis * angle


# ------------------------------------------------------------------------------------------------ states
def test_state_copy_accepts_finite_vectors_within_the_limit_and_copies_them() -> None:
    x = np.array([1.0, -2.0, 3.0])
    out = kernels.state_copy(x, 3, 10.0)
    assert out is not None and out is not x and np.array_equal(out, x)
    out[0] = 5.0
    assert x[0] == 1.0  # an independent copy
    strided = np.arange(6.0)[::2]
    assert np.array_equal(kernels.state_copy(strided, 3, 10.0), strided)


@pytest.mark.parametrize(
    "bad",
    [np.array([1.0, np.nan, 0.0]), np.array([np.inf, 0.0, 0.0]), np.array([11.0, 0.0, 0.0]),
     np.zeros(4), np.zeros((3, 1)), np.zeros(3, dtype=np.float32), [0.0, 0.0, 0.0]],
)  # fmt: skip
def test_state_copy_leaves_everything_else_to_the_general_path(bad: object) -> None:
    assert kernels.state_copy(bad, 3, 10.0) is None


# ------------------------------------------------------------------------------------------------ SO(3)
@pytest.mark.parametrize("angle", [0.0, 1e-12, 1e-6, 0.3, 2.0, 3.0, np.pi - 1e-3, np.pi - 1e-7])
def test_log3_inverts_exp3(angle: float) -> None:
    for _ in range(50):
        R, w = _rotation_near(angle, RNG)
        out = np.zeros(3)
        kernels.log3(R, out)
        np.testing.assert_allclose(out, w, atol=1e-12, rtol=0)


def test_log3_agrees_with_pinocchio_and_takes_column_major_views() -> None:
    for _ in range(200):
        M = pin.SE3.Random()
        out = np.zeros(3)
        kernels.log3(M.rotation, out)  # (a column-major view into the SE3)
        np.testing.assert_allclose(out, pin.log3(M.rotation), atol=1e-9)


def test_transform_error_measures_orthonormality_and_finiteness() -> None:
    M = pin.SE3.Random()
    err, det = kernels.transform_error(M.homogeneous)
    assert err < 1e-12 and det == pytest.approx(1.0)
    bad = M.homogeneous.copy()
    bad[0, 0] += 1e-3
    assert kernels.transform_error(bad)[0] == pytest.approx(
        np.abs(bad[:3, :3].T @ bad[:3, :3] - np.eye(3)).max()
    )
    bad[1, 3] = np.nan
    assert kernels.transform_error(bad)[0] == np.inf
    assert kernels.transform_error(np.diag([1.0, 1.0, -1.0]))[1] == pytest.approx(-1.0)


# ------------------------------------------------------------------------------------------------ laws
def test_pose_law_is_the_pd_law_on_the_pose_error() -> None:
    nv = 7
    Md, M = pin.SE3.Random(), pin.SE3.Random()
    J, v = RNG.normal(size=(6, nv)), RNG.normal(size=nv)
    kp, kd, c = RNG.uniform(1, 5, 6), RNG.uniform(1, 5, 6), RNG.normal(size=6)
    out, err = np.zeros(6), np.zeros(6)
    Jf = np.asfortranarray(J)
    kernels.pose_law(out, err, Md.rotation, Md.translation, M.rotation, M.translation, Jf, v, kp, kd, c)
    e = np.r_[Md.translation - M.translation, pin.log3(Md.rotation @ M.rotation.T)]
    np.testing.assert_allclose(err, e, atol=1e-9)
    np.testing.assert_allclose(out, kp * e - kd * (J @ v) + c, atol=1e-9)
    kernels.pose_law(
        out, err, Md.rotation, Md.translation, M.rotation, M.translation, None, None, kp, None, c
    )
    np.testing.assert_allclose(out, kp * e + c, atol=1e-9)
    with pytest.raises(TypeError):
        kernels.pose_law(out, err, Md.rotation, Md.translation, M.rotation, M.translation, J, None, kp, kd, c)


def test_vector_and_joint_laws() -> None:
    n = 5
    target, x, rate = RNG.normal(size=n), RNG.normal(size=n), RNG.normal(size=n)
    kp, kd, c = RNG.uniform(1, 5, n), RNG.uniform(1, 5, n), RNG.normal(size=n)
    out = np.zeros(n)
    kernels.vector_law(out, target, x, rate, kp, kd, c)
    np.testing.assert_allclose(out, kp * (target - x) - kd * rate + c)
    kernels.vector_law(out, target, x, None, kp, None, c)
    np.testing.assert_allclose(out, kp * (target - x) + c)
    q, v = RNG.normal(size=9), RNG.normal(size=8)
    qi, vi = np.array([8, 0, 3, 4, 2], dtype=np.intp), np.array([7, 0, 2, 3, 1], dtype=np.intp)
    kernels.joint_law(out, target, q, qi, v, vi, kp, kd, c)
    np.testing.assert_allclose(out, kp * (target - q[qi]) - kd * v[vi] + c)
    with pytest.raises(IndexError):
        kernels.joint_law(out, target, q, np.array([9, 0, 0, 0, 0], dtype=np.intp), None, None, kp, None, c)
    with pytest.raises(TypeError):
        kernels.joint_law(out, target, q, qi.astype(np.int32), None, None, kp, None, c)


# ------------------------------------------------------------------------------------------------ rows
def test_weighted_rows_into_strided_buffers() -> None:
    buf = np.zeros((10, 12))
    A_out, y_out = buf[2:8, :9], np.zeros(6)
    J, t, b, sw = RNG.normal(size=(6, 9)), RNG.normal(size=6), RNG.normal(size=6), RNG.uniform(0, 2, 6)
    kernels.weighted_rows(A_out, y_out, np.asfortranarray(J), t, b, sw)
    np.testing.assert_allclose(A_out, sw[:, None] * J)
    np.testing.assert_allclose(y_out, sw * (t - b))
    assert not buf[:2].any() and not buf[:, 9:].any()
    kernels.weighted_rows(A_out, y_out, J, t, None, None)
    np.testing.assert_allclose(A_out, J)
    np.testing.assert_allclose(y_out, t)


def _selection_rows(rng: np.random.Generator, count: int, n: int) -> np.ndarray:
    """``count`` rows with one nonzero entry each (joint-task and regulariser rows), one of them zero."""
    rows = np.zeros((count, n))
    rows[np.arange(count), rng.integers(0, n, count)] = rng.normal(size=count)
    if count:
        rows[rng.integers(0, count)] = 0.0
    return rows


@given(
    m=st.integers(0, 30), n=st.integers(1, 30), k=st.integers(0, 30), uniform=st.booleans(),
    with_z=st.booleans(), with_x=st.booleans(), selection=st.integers(0, 12), seed=st.integers(0, 2**31),
)  # fmt: skip
@settings(max_examples=80, deadline=None)
def test_level_equations_match_the_projected_least_squares_level(
    m: int, n: int, k: int, uniform: bool, with_z: bool, with_x: bool, selection: int, seed: int
) -> None:
    """Dense rows mixed (shuffled) with selection rows, which the kernel folds into diagonal weights."""
    rng = np.random.default_rng(seed)
    A = rng.permutation(np.vstack((rng.normal(size=(m, n)), _selection_rows(rng, selection, n))))
    y = rng.normal(size=A.shape[0])
    r = np.full(n, 0.3) if uniform else rng.uniform(0, 1, n)
    Z = np.linalg.qr(rng.normal(size=(n, n)))[0][:, : min(k, n)] if with_z else None
    xbar = rng.normal(size=n) if with_x else None
    AZ, e, H, g = kernels.level_equations(A, y, r, Z, xbar)
    Zd = np.eye(n) if Z is None else Z
    xb = np.zeros(n) if xbar is None else xbar
    np.testing.assert_allclose(AZ, A @ Zd, atol=1e-12)
    np.testing.assert_allclose(e, A @ xb - y, atol=1e-12)
    # the QP in w of ‖A(x̄ + Z w) − y‖² + Σ r (x̄ + Z w)², halved
    np.testing.assert_allclose(H, Zd.T @ (A.T @ A + np.diag(r)) @ Zd, atol=1e-10)
    np.testing.assert_allclose(g, Zd.T @ (A.T @ (A @ xb - y) + r * xb), atol=1e-10)


def test_level_equations_with_selection_rows_that_make_the_weights_uniform() -> None:
    """Selection rows a e_j with a² = 1 − r_j: Zᵀ(diag(r) + Σ a² e_j e_jᵀ)Z = I on an orthonormal Z."""
    n, k = 7, 4
    r = RNG.uniform(0, 0.5, n)
    A = np.vstack((RNG.normal(size=(2, n)), np.diag(np.sqrt(1.0 - r))))
    y, xbar = RNG.normal(size=A.shape[0]), RNG.normal(size=n)
    Z = np.linalg.qr(RNG.normal(size=(n, n)))[0][:, :k]
    _, _, H, g = kernels.level_equations(A, y, r, Z, xbar)
    np.testing.assert_allclose(H, Z.T @ (A.T @ A + np.diag(r)) @ Z, atol=1e-12)
    np.testing.assert_allclose(H - (A[:2] @ Z).T @ (A[:2] @ Z), np.eye(k), atol=1e-12)
    np.testing.assert_allclose(g, Z.T @ (A.T @ (A @ xbar - y) + r * xbar), atol=1e-12)


def test_ls_gradient_and_its_scale() -> None:
    m, n, k = 8, 6, 4
    A, y, r = RNG.normal(size=(m, n)), RNG.normal(size=m), RNG.uniform(0, 1, n)
    Z, xbar, w = np.linalg.qr(RNG.normal(size=(n, n)))[0][:, :k], RNG.normal(size=n), RNG.normal(size=k)
    AZ, e0 = A @ Z, A @ xbar - y
    t, s = kernels.ls_gradient(AZ, e0, r, Z, xbar, w)
    e, u = AZ @ w + e0, r * (Z @ w + xbar)
    np.testing.assert_allclose(t, AZ.T @ e + Z.T @ u, atol=1e-12)
    np.testing.assert_allclose(s, np.abs(AZ).T @ np.abs(e) + np.abs(Z).T @ np.abs(u), atol=1e-12)
    t2, _ = kernels.ls_gradient(A, -y, None, None, None, xbar)
    np.testing.assert_allclose(t2, A.T @ (A @ xbar - y), atol=1e-12)


@given(
    n=st.integers(1, 40), k=st.integers(1, 20), seed=st.integers(0, 2**31),
    pattern=st.sampled_from(["posture", "selection", "dense", "long"]),
)  # fmt: skip
@settings(max_examples=60, deadline=None)
def test_level_equations_with_a_most_frequent_weight(n: int, k: int, pattern: str, seed: int) -> None:
    """Selection rows of one weight on most columns, other weights on a few, none on some (a contact
    level's posture, base regulariser and wrench columns): H against Zᵀ(AᵀA + diag r)Z formed by NumPy,
    whichever way the kernel groups the diagonal weights."""
    rng = np.random.default_rng(seed)
    k = min(k, n)
    cols = rng.permutation(n)
    common, other = cols[: (3 * n) // 4], cols[(3 * n) // 4 : (7 * n) // 8]
    rows = [rng.normal(size=(int(rng.integers(0, 4)), n))]
    sel = np.zeros((len(common) + len(other), n))
    sel[np.arange(len(common)), common] = 0.3 * rng.choice([-1.0, 1.0], len(common))
    sel[len(common) + np.arange(len(other)), other] = rng.uniform(0.1, 2.0, len(other))
    rows.append(sel)
    if pattern == "long":  # (a dense row longer than the kernel's gathering buffer)
        rows.append(rng.normal(size=(2, n)) * (rng.random((2, n)) < 0.9))
    A = rng.permutation(np.vstack(rows))
    r = np.zeros(n)
    r[cols[(3 * n) // 4 :]] = {"posture": 1e-8, "selection": 0.0, "dense": 1e-3, "long": 1e-8}[pattern]
    y, xbar = rng.normal(size=A.shape[0]), rng.normal(size=n)
    Z = np.linalg.qr(rng.normal(size=(n, n)))[0][:, :k]
    AZ, e, H, g = kernels.level_equations(A, y, r, Z, xbar)
    np.testing.assert_allclose(AZ, A @ Z, atol=1e-12)
    np.testing.assert_allclose(e, A @ xbar - y, atol=1e-12)
    ref = Z.T @ (A.T @ A + np.diag(r)) @ Z
    np.testing.assert_allclose(H, ref, atol=1e-12 * (1.0 + np.abs(ref).max()))
    np.testing.assert_allclose(g, Z.T @ (A.T @ (A @ xbar - y) + r * xbar), atol=1e-10)


@given(
    m=st.integers(0, 12), n=st.integers(0, 150), k=st.integers(1, 40), density=st.floats(0.0, 1.0),
    layout=st.sampled_from(["C", "F", "strided"]), seed=st.integers(0, 2**31),
)  # fmt: skip
@settings(max_examples=120, deadline=None)
def test_matmul_is_exact_on_small_integers(
    m: int, n: int, k: int, density: float, layout: str, seed: int
) -> None:
    """Small integer entries make every sum exact in any order: the product that skips A's zeros (groups
    of eight, entries gathered 56 at a time on long rows, the per-entry loop for short output rows, BLAS
    for dense products) is NumPy's product bit for bit."""
    rng = np.random.default_rng(seed)
    A = rng.integers(-9, 10, (m, n)).astype(float) * (rng.random((m, n)) < density)
    B = rng.integers(-9, 10, (n, k)).astype(float)
    if layout == "F":
        A, B = np.asfortranarray(A), np.asfortranarray(B)
    elif layout == "strided":
        B = np.repeat(B, 2, axis=1)[:, ::2]
    assert np.array_equal(kernels.matmul(A, B), A @ B)


# ------------------------------------------------------------------------------------------------ residuals
def _natural(x, t, s, lb, ub):  # the formula of wbcpy.qp.kkt.certify_box, in NumPy
    ax = 1.0 + np.abs(x)
    z = np.clip(x - ax / (s + 1e-300) * t, lb, ub)
    return float(np.max(np.abs(x - z) / ax, initial=0.0))


def test_natural_residual() -> None:
    n = 9
    x, t, s = RNG.normal(size=n), RNG.normal(size=n), RNG.uniform(0.5, 2, n)
    lb, ub = x - RNG.uniform(0, 1, n), x + RNG.uniform(0, 1, n)
    lb[0], ub[1] = x[0], x[1]  # two active bounds
    res, smax = kernels.natural_residual(x, t, s, lb, ub, None)
    assert res == pytest.approx(_natural(x, t, s, lb, ub)) and smax == pytest.approx(s.max())
    assert kernels.natural_residual(x, t, s, None, None, None)[0] == pytest.approx(np.max(np.abs(t) / s))
    # an answer that claims no active bound (all-zero multipliers) is judged as an interior point
    claimed = kernels.natural_residual(x, t, s, lb, ub, np.zeros(n))[0]
    assert claimed == pytest.approx(np.max(np.abs(t) / s))
    t[2] = np.nan
    assert np.isnan(kernels.natural_residual(x, t, s, lb, ub, None)[0])


def test_wrong_signed_bound_multiplier_is_caught() -> None:
    # min (x − 2)²/2 on [0, 1]: x = 0 is stationary with a wrong-signed multiplier; its natural residual
    # is not 0
    x, t, s = np.zeros(1), np.array([-2.0]), np.array([2.0])
    assert kernels.natural_residual(x, t, s, np.zeros(1), np.ones(1), None)[0] > 0.1
    assert kernels.natural_residual(
        np.ones(1), np.array([-1.0]), np.array([3.0]), np.zeros(1), np.ones(1), None
    )[0] == pytest.approx(0.0)


def test_rows_residual_updates_stationarity_and_judges_signs() -> None:
    m, n = 5, 4
    C, x = RNG.normal(size=(m, n)), RNG.normal(size=n)
    c = C @ x
    lo, hi = c - 1.0, c + 1.0
    lo[0], hi[1] = c[0], c[1]  # row 0 at its lower side, row 1 at its upper side
    z = np.zeros(m)
    z[0], z[1] = -0.5, 0.7  # the right signs
    t, s = RNG.normal(size=n), RNG.uniform(1, 2, n)
    t0, s0 = t.copy(), s.copy()
    res, smax = kernels.rows_residual(C, lo, hi, x, z, t, s)
    np.testing.assert_allclose(t, t0 + C.T @ z)
    np.testing.assert_allclose(s, s0 + np.abs(C).T @ np.abs(z))
    assert res == pytest.approx(0.0, abs=1e-15) and smax == pytest.approx(s.max())
    z[0] = 0.5  # wrong sign at the lower side
    assert kernels.rows_residual(C, lo, hi, x, z, t0.copy(), s0.copy())[0] > 1e-3


def _rows_excess_oracle(M: np.ndarray, lo: np.ndarray, hi: np.ndarray, x: np.ndarray, tol: float) -> float:
    """rows_excess in NumPy: each row's excess over tol (1 + |side|) + ρ |M||x| (ρ = 8(n + 1)ε), and the
    answer's rounding ε max|M| ‖x‖₂ over tol (1 + the largest finite side)."""
    c, mag = M @ x, np.abs(M) @ np.abs(x)
    rho = 8.0 * (M.shape[1] + 1) * np.finfo(float).eps
    with np.errstate(invalid="ignore"):
        below = lo - c - tol * (1.0 + np.abs(lo)) - rho * mag
        above = c - hi - tol * (1.0 + np.abs(hi)) - rho * mag
    rows = float(np.nanmax(np.maximum(below, above)))
    sides = np.abs(np.concatenate([lo, hi]))
    data = float(sides[np.isfinite(sides)].max(initial=0.0))
    return max(rows, np.finfo(float).eps * np.abs(M).max() * float(np.linalg.norm(x)) - tol * (1.0 + data))


def test_rows_excess_judges_the_answer_against_the_data() -> None:
    """Rows met to rounding by an answer far out along their null space (x ≈ 1e15 with M x = 0 to
    rounding) are refused: the answer's own rounding exceeds the tolerance on the data's scale, which a
    test relative to |M||x| alone would pass."""
    M = np.array([[1.0, -1.0, 0.5], [0.0, 2.0, -1.0]])
    null = np.array([0.0, 1.0, 2.0])  # M @ null = 0
    x = 1e15 * null + np.array([0.1, 0.2, 0.3])
    c = M @ x
    assert abs(kernels.rows_excess(M, c, c, x, 1e-6) - _rows_excess_oracle(M, c, c, x, 1e-6)) <= 1e-9
    assert kernels.rows_excess(M, c, c, x, 1e-6) > 0.0
    small = np.array([0.1, 0.2, 0.3])
    assert kernels.rows_excess(M, M @ small, M @ small, small, 1e-6) < 0.0


def test_scaled_error_rows_excess_bounds_gap_all_finite() -> None:
    r, s = np.array([1.0, -4.0]), np.array([2.0, 2.0])
    assert kernels.scaled_error(r, s, 1.0) == pytest.approx(1.0)
    M, x = RNG.normal(size=(3, 4)), RNG.normal(size=4)
    c = M @ x
    assert kernels.rows_excess(M, c, c, x, 1e-9) < 0.0
    hi = c.copy()
    hi[2] -= 1e-3
    assert kernels.rows_excess(M, np.full(3, -np.inf), hi, x, 1e-9) == pytest.approx(
        _rows_excess_oracle(M, np.full(3, -np.inf), hi, x, 1e-9)
    )
    assert kernels.bounds_gap(np.zeros(3), np.array([1.0, 0.5, 2.0])) == 0.5
    assert np.isnan(kernels.bounds_gap(np.zeros(2), np.array([1.0, np.nan])))
    assert kernels.bounds_gap(np.zeros(0), np.zeros(0)) == np.inf
    assert kernels.all_finite(np.arange(4.0)[::2]) and not kernels.all_finite(np.array([0.0, np.inf]))


def test_point_outside_is_the_tolerance_check_of_a_fixed_point() -> None:
    """point_outside against its definition written out: bounds relaxed by 1e-9 (1 + |side|), rows C x
    relaxed by 1e-9 (1 + |C x|), None for absent bounds or rows, infinite sides never bind, NaN neither
    way."""
    x = np.array([1.0, -2.0])
    C = np.array([[1.0, 1.0], [2.0, 0.0]])
    c = C @ x  # (−1, 2)
    inf = np.full(2, np.inf)
    assert not kernels.point_outside(x, x.copy(), x.copy(), C, c.copy(), c.copy(), 1e-9)
    assert not kernels.point_outside(x, None, None, None, None, None, 1e-9)
    assert not kernels.point_outside(x, -inf, inf, C, -inf, inf, 1e-9)
    for i in range(2):  # just inside / just outside the relaxed side, per bound and per row
        for sign, side in ((1.0, "lb"), (-1.0, "ub")):
            bound = x.copy()
            edge = 1e-9 * (1.0 + abs(x[i]))
            bound[i] = x[i] + sign * 0.5 * edge
            args = (bound, None) if side == "lb" else (None, bound)
            assert not kernels.point_outside(x, *args, None, None, None, 1e-9)
            bound[i] = x[i] + sign * 2.0 * edge
            assert kernels.point_outside(x, *args, None, None, None, 1e-9)
            rows = c.copy()
            slack = 1e-9 * (1.0 + abs(c[i]))
            rows[i] = c[i] + sign * 0.5 * slack
            lo, hi = (rows, inf) if side == "lb" else (-inf, rows)
            assert not kernels.point_outside(x, None, None, C, lo, hi, 1e-9)
            rows[i] = c[i] + sign * 2.0 * slack
            assert kernels.point_outside(x, None, None, C, lo, hi, 1e-9)
    nan = np.array([np.nan, 0.0])
    assert not kernels.point_outside(nan, np.zeros(2), np.zeros(2), None, None, None, 1e-9)
    with pytest.raises(ValueError):
        kernels.point_outside(x, np.zeros(3), None, None, None, None, 1e-9)
    with pytest.raises(ValueError):
        kernels.point_outside(x, None, None, C, np.zeros(1), np.zeros(2), 1e-9)


def _quotient_rows(
    rng: np.random.Generator, m: int, n: int, ties: bool, scale: float
) -> tuple[np.ndarray, np.ndarray]:
    """(C, s) of m rows: random, or (ties) every row's quotients |C_ij| / (s_j + |C_ij|) within a few ulp
    of 0.4 over scales spanning six decades (products by reciprocals then order them differently)."""
    C = rng.normal(size=(m, n)) * scale
    s = np.abs(rng.normal(size=n)) * scale
    if not ties:
        s[rng.random(n) < 0.1] = 0.0
        return C, s
    total = rng.uniform(0.5, 2.0, n) * scale * 10.0 ** rng.integers(-3, 4, n)
    C = 0.4 * total * (1.0 + rng.integers(-3, 4, (m, n)) * 2.0**-52) * rng.choice([-1.0, 1.0], (m, n))
    return C, total


@given(
    m=st.integers(1, 30), n=st.integers(1, 70), ties=st.booleans(), seed=st.integers(0, 2**31),
    scale=st.sampled_from([1e-300, 1e-12, 1.0, 1e280]),
)  # fmt: skip
@settings(max_examples=100, deadline=None)
def test_rows_residual_weights_are_the_exact_quotients(
    m: int, n: int, ties: bool, scale: float, seed: int
) -> None:
    """At x = 0 with the multiplier 1 on row i alone (no sides), the residual is row i's weight
    σ_i = max_j |C_ij| / (s_j + |C_ij| + 1e-300) itself: the kernel divides only near its largest
    product (reciprocals), yet gives the quotient NumPy's division gives, bit for bit — also for
    quotients within a few units of rounding of each other, zero scales and overflow."""
    C, s = _quotient_rows(np.random.default_rng(seed), m, n, ties, scale)
    lo, hi = np.full(m, -np.inf), np.full(m, np.inf)
    for i in range(m):
        s_i = s - np.abs(C[i]) if ties else s  # (ties: s_j + |C_ij| is the row's chosen scale)
        z = np.zeros(m)
        z[i] = 1.0
        with np.errstate(over="ignore"):
            sigma = np.max(np.abs(C[i]) / (s_i + np.abs(C[i]) + 1e-300))
        res, _ = kernels.rows_residual(C, lo, hi, np.zeros(n), z, np.zeros(n), s_i.copy())
        assert res == sigma


# ------------------------------------------------------------------------------------------------ null space
def _check_basis(Z: np.ndarray, fixed: np.ndarray) -> None:
    """Z: orthonormal columns spanning exactly the null space of the rows ``fixed``."""
    n = Z.shape[0]
    np.testing.assert_allclose(Z.T @ Z, np.eye(Z.shape[1]), atol=1e-12)
    rank = np.linalg.matrix_rank(fixed) if fixed.size else 0
    assert Z.shape[1] == n - rank
    if fixed.size:
        np.testing.assert_allclose(fixed @ Z, 0.0, atol=1e-10)


@given(n=st.integers(1, 30), m=st.integers(1, 25), rank=st.integers(1, 25), seed=st.integers(0, 2**31))
@settings(max_examples=60, deadline=None)
def test_nullspace_update_equalities_and_rows(n: int, m: int, rank: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    rank = min(rank, m, n)
    E = rng.normal(size=(m, rank)) @ rng.normal(size=(rank, n))  # dependent rows when m > rank
    x_true = rng.normal(size=n)
    f = E @ x_true
    Z, xbar, r, residual = kernels.nullspace_update(E, f, None, None, 1e-9)
    assert residual == 0.0 and r == rank
    np.testing.assert_allclose(E @ xbar, f, atol=1e-8 * (1 + np.abs(f).max()))
    lsq = np.linalg.lstsq(E, f, rcond=None)[0]  # the least-norm solution: least change from x̄ = 0
    np.testing.assert_allclose(xbar, lsq, atol=1e-8 * (1 + np.abs(lsq).max()))
    if r < n:
        _check_basis(Z, E)
        S = rng.normal(size=(2, n))  # rows x̄ satisfies (optimality of a level): only Z shrinks
        Z2, x2, r2, res2 = kernels.nullspace_update(S, None, Z, xbar, 1e-9)
        assert x2 is xbar and res2 == 0.0 and r2 == min(2, r and n - r)
        if r2:
            _check_basis(Z2, np.vstack((E, S)))


def test_nullspace_update_reports_inconsistent_equalities() -> None:
    E = np.array([[1.0, 0.0], [1.0, 0.0]])
    assert kernels.nullspace_update(E, np.array([1.0, 2.0]), None, None, 1e-9)[3] > 0.0
    assert kernels.nullspace_update(np.zeros((1, 2)), np.array([1.0]), None, None, 1e-9)[3] == 1.0  # 0 = 1
    Z, x, r, res = kernels.nullspace_update(np.zeros((1, 2)), np.array([0.0]), None, None, 1e-9)
    assert (Z, x, r, res) == (None, None, 0, 0.0)


@pytest.mark.parametrize("shape", [(6, 9), (3, 4), (12, 38), (13, 40), (18, 50), (40, 100)])
def test_nullspace_update_against_scipy_null_space(shape: tuple[int, int]) -> None:
    """Both QR paths (written out below 512 entries of (S Z)ᵀ, LAPACK above), on the identity and on a
    basis Z: the same subspace as SciPy's SVD null space of the stacked rows, and x̄ moved onto them."""
    m, n = shape
    E = RNG.normal(size=(m, n))
    f = RNG.normal(size=m)
    Z, x, r, res = kernels.nullspace_update(E, f, None, None, 1e-9)
    ref = sla.null_space(E)
    assert r == m and res == 0.0 and Z.shape == ref.shape
    np.testing.assert_allclose(Z @ Z.T, ref @ ref.T, atol=1e-10)  # the same subspace: projectors agree
    np.testing.assert_allclose(x, np.linalg.lstsq(E, f, rcond=None)[0], atol=1e-10)  # least change
    S = RNG.normal(size=(max(1, (n - m) // 3), n))
    Z2, x2, r2, _ = kernels.nullspace_update(S, None, Z, x, 1e-9)
    ref2 = sla.null_space(np.vstack((E, S)))
    assert x2 is x and r2 == S.shape[0]
    np.testing.assert_allclose(Z2 @ Z2.T, ref2 @ ref2.T, atol=1e-10)
    np.testing.assert_allclose(Z2.T @ Z2, np.eye(Z2.shape[1]), atol=1e-12)


def test_nullspace_update_measures_rows_whose_squares_overflow() -> None:
    """A finite row with entries near 1e200 (its sum of squares overflows a double) is measured scaled by
    its largest entry: it still fixes its direction (it used to be dropped, or every row with it). Closed
    form: x0 + x1 = 2 has the least-norm solution (1, 1, 0) and leaves (1, −1, 0)/√2 and (0, 0, 1) free."""
    S, f = np.array([[1e200, 1e200, 0.0]]), np.array([2e200])
    Z, x, r, res = kernels.nullspace_update(S, f, None, None, 1e-9)
    assert r == 1 and res == 0.0
    np.testing.assert_allclose(x, [1.0, 1.0, 0.0], rtol=1e-14, atol=1e-14)
    _check_basis(Z, np.array([[1.0, 1.0, 0.0]]))
    Z2, x2, r2, _ = kernels.nullspace_update(np.array([[0.0, 0.0, 3e300]]), None, Z, x, 1e-9)
    assert r2 == 1 and x2 is x
    _check_basis(Z2, np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]))
    with pytest.raises(ValueError, match="too long"):  # a norm beyond the largest double: refused
        kernels.nullspace_update(np.array([[1.5e308, 1.5e308]]), None, None, None, 1e-9)


def _structured_rows(rng: np.random.Generator, m: int, n: int, n_unit: int, zero_cols: int) -> np.ndarray:
    """m rows over n columns as a contact scene's equality block: the first rows dense, the others zero on
    the last ``zero_cols`` columns (contact rows on the wrench columns), n_unit of them unit rows (their
    Householder reflectors are the identity, τ = 0), one duplicated row when m > 2 (rank m − 1)."""
    S = rng.normal(size=(m, n)) * rng.uniform(0.1, 100.0, size=(m, 1))
    S[m // 3 :, n - zero_cols :] = 0.0
    for i in range(min(n_unit, m)):
        S[i] = 0.0
        S[i, rng.integers(n)] = rng.uniform(0.5, 2.0)
    if m > 2:
        S[-1] = 3.0 * S[-2]
    return S


@given(
    m=st.integers(1, 24), n=st.integers(2, 60), n_unit=st.integers(0, 4), zero_frac=st.floats(0.0, 0.5),
    with_z=st.booleans(), seed=st.integers(0, 2**31),
)  # fmt: skip
@settings(max_examples=80, deadline=None)
def test_nullspace_update_on_structured_rows_against_scipy(
    m: int, n: int, n_unit: int, zero_frac: float, with_z: bool, seed: int
) -> None:
    """Both ways to form Z' = Z Q₂ and x̄' (the compact WY form with BLAS, the reflectors one by one), on rows
    with zero blocks, unit rows and a dependent row, from the identity or from a basis Z: the same subspace
    as SciPy's SVD null space of all rows so far, orthonormal, and x̄' the least-norm point meeting them."""
    rng = np.random.default_rng(seed)
    S = _structured_rows(rng, m, n, n_unit, int(zero_frac * n))
    x_true = rng.normal(size=n)
    fixed = np.zeros((0, n))
    Z = xbar = None
    if with_z and n > 3:
        fixed = rng.normal(size=(n // 4, n))
        Z, xbar, _, _ = kernels.nullspace_update(fixed, fixed @ x_true, None, None, 1e-9)
    f = S @ x_true
    Z2, x2, r, res = kernels.nullspace_update(S, f, Z, xbar, 1e-9)
    rows = np.vstack((fixed, S))
    ref = sla.null_space(rows, rcond=1e-10)
    assert res == 0.0
    assert r == np.linalg.matrix_rank(rows, tol=1e-10) - fixed.shape[0]
    lsq = np.linalg.lstsq(rows, rows @ x_true, rcond=1e-10)[0]  # least change from 0 = least norm
    np.testing.assert_allclose(x2, lsq, atol=1e-8 * (1 + np.abs(lsq).max()))
    if r == 0:
        assert Z2 is Z
        return
    assert Z2.shape == ref.shape
    np.testing.assert_allclose(Z2.T @ Z2, np.eye(Z2.shape[1]), atol=1e-12)
    np.testing.assert_allclose(Z2 @ Z2.T, ref @ ref.T, atol=1e-9)


def test_nullspace_update_unit_rows_leave_the_unselected_coordinates() -> None:
    """Rows e_j (selections): Z' spans exactly the unselected coordinates and x̄' takes the targets on the
    selected ones. When the selected coordinates come first, every reflector is the identity (τ = 0):
    Q = I and Z' = [0; I] exactly (both ways to form Q₂: 18 × 50 by the WY form, 2 × 12 by the reflectors)."""
    for n, sel in ((50, list(range(18))), (12, [0, 1]), (12, [3, 7]), (40, [0, 5, 9, 30])):
        S = np.eye(n)[sel]
        Z, x, r, _ = kernels.nullspace_update(S, np.arange(1.0, len(sel) + 1), None, None, 1e-9)
        free = [j for j in range(n) if j not in sel]
        assert r == len(sel)
        np.testing.assert_allclose(Z @ Z.T, np.diag(np.isin(np.arange(n), free).astype(float)), atol=1e-15)
        if sel == list(range(len(sel))):
            np.testing.assert_array_equal(Z, np.eye(n)[:, free])
        expected = np.zeros(n)
        expected[sel] = np.arange(1.0, len(sel) + 1)
        np.testing.assert_allclose(x, expected, atol=1e-15)


def _unit_and_dense_rows(rng: np.random.Generator, unit_first: bool) -> np.ndarray:
    """18 × 50 rows: nine unit rows and nine orthonormal dense rows zero on the unit rows' coordinates.
    Unit rows first: e_0 … e_8, pivoted at steps 0 … 8. Otherwise the dense rows (supported on coordinates
    0 … 8 and 18 …) come first and keep the pivoting's starting norm 1 (orthonormal: the downdates are
    below rounding), so they are pivoted first and e_9 … e_17 at steps 9 … 17. Either way each unit row's
    reflector is the identity (τ = 0): in the upper or the lower half of the WY form's blocked solve."""
    dense = np.zeros((9, 50))
    coords = [*range(9, 50)] if unit_first else [*range(9), *range(18, 50)]
    dense[:, coords] = np.linalg.qr(rng.normal(size=(len(coords), 9)))[0].T
    units = np.eye(50)[:9] if unit_first else np.eye(50)[9:18]
    return np.vstack((units, dense) if unit_first else (dense, units))


@pytest.mark.parametrize("unit_first", [True, False])
def test_nullspace_update_identity_reflectors_among_others(unit_first: bool) -> None:
    """Rows whose reflectors are partly the identity (τ = 0), 18 × 50 (the WY form): Z' and x̄' against
    SciPy's null space and lstsq, and x̄' takes the unit rows' targets."""
    rng = np.random.default_rng(7)
    S = _unit_and_dense_rows(rng, unit_first)
    f = rng.normal(size=18)
    Z, x, r, res = kernels.nullspace_update(S, f, None, None, 1e-9)
    ref = sla.null_space(S)
    assert r == 18 and res == 0.0
    np.testing.assert_allclose(Z.T @ Z, np.eye(32), atol=1e-12)
    np.testing.assert_allclose(Z @ Z.T, ref @ ref.T, atol=1e-10)
    np.testing.assert_allclose(x, np.linalg.lstsq(S, f, rcond=None)[0], atol=1e-10)
    units = np.flatnonzero(np.count_nonzero(S, axis=1) == 1)
    np.testing.assert_allclose(x[np.argmax(S[units], axis=1)], f[units], atol=1e-13)


def test_kept_rows() -> None:
    M = np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 1.0], [1e-12, 0.0]])
    v = np.array([0.5, 0.2, 0.0, 3.0])
    lo, hi = np.array([-1.0, 0.0, -np.inf, 1.0]), np.array([1.0, 1.0, np.inf, 4.0])
    Mk, lk, hk, rows = kernels.kept_rows(M, v, lo, hi, True)
    assert rows.tolist() == [0]  # row 1 and 3 constant and met, row 2 unbounded
    np.testing.assert_allclose(Mk, M[[0]])
    np.testing.assert_allclose((lk, hk), ([-1.5], [0.5]))
    assert kernels.kept_rows(M, v, lo, hi, False)[3].tolist() == [0, 1, 3]
    v[1] = 2.0  # a constant row outside its sides: infeasible
    assert kernels.kept_rows(M, v, lo, hi, True) is None


# ------------------------------------------------------------------------------------------------ bad calls
@pytest.mark.parametrize(
    ("kernel", "args"),
    [(kernels.natural_residual, (np.zeros(2), np.zeros(3), np.zeros(2), None, None, None)),
     (kernels.level_equations, ([[1.0]], np.zeros(1), np.zeros(1), None, None)),
     (kernels.nullspace_update, (np.zeros((2, 3)), None, np.zeros((2, 2)), None, 1e-9)),
     (kernels.joint_limits, (np.zeros(2), np.zeros(2), np.zeros(2, dtype=np.intp), np.zeros((5, 2)), 0.1)),
     (kernels.log3, (np.eye(3), np.zeros(3, dtype=np.float32))),
     (kernels.in_box, (np.zeros(3), np.zeros(2), np.zeros(3))),
     (kernels.dynamics_rows, (np.eye(2), np.zeros(2), np.zeros((1, 2)), np.zeros(1), np.array([-1]),
                              np.array([1]), 3)),
     (kernels.dynamics_rows, (np.eye(2), np.zeros(2), np.zeros((1, 2)), np.zeros(1), np.array([0]),
                              np.array([1]), 2)),
     (kernels.weighted_rows, (np.zeros((2, 2)), np.zeros(2), np.zeros((2, 2)), np.zeros(2), None)),
     (kernels.rows_residual, (np.zeros((2, 2)), np.zeros(2), np.zeros(2), np.zeros(2), np.zeros(2),
                        np.zeros(2), np.zeros(2)[::-1]))],
)  # fmt: skip
def test_bad_arguments_raise(kernel, args) -> None:
    with pytest.raises((TypeError, ValueError, IndexError)):
        kernel(*args)


def test_outputs_must_be_writable() -> None:
    lb, ub = np.zeros(2), np.zeros(2)
    ub.setflags(write=False)
    P = np.zeros((3, 2))
    with pytest.raises(ValueError, match="read-only"):
        kernels.velocity_limits(np.zeros(2), np.zeros(2, dtype=np.intp), P, 0.5, lb, ub)


def test_fused_certificates_equal_their_steps() -> None:
    """box_certificate / rows_certificate: the least-squares gradient and the residuals in one pass, the
    same numbers as the formulas step by step (NumPy here)."""
    m, n, k = 8, 6, 4
    A, y, r = RNG.normal(size=(m, n)), RNG.normal(size=m), RNG.uniform(0, 1, n)
    Z, xbar, w = np.linalg.qr(RNG.normal(size=(n, n)))[0][:, :k], RNG.normal(size=n), RNG.normal(size=k)
    AZ, e0 = A @ Z, A @ xbar - y
    e, u = AZ @ w + e0, r * (Z @ w + xbar)
    t, s = AZ.T @ e + Z.T @ u, np.abs(AZ).T @ np.abs(e) + np.abs(Z).T @ np.abs(u)
    lb, ub = w - RNG.uniform(0, 1, k), w + RNG.uniform(0, 1, k)
    lb[0] = w[0]
    res, smax, t1, s1 = kernels.box_certificate(AZ, e0, r, Z, xbar, w, lb, ub, None)
    np.testing.assert_allclose((t1, s1), (t, s), atol=1e-12)
    assert res == pytest.approx(_natural(w, t, s, lb, ub)) and smax == pytest.approx(s.max())
    C = RNG.normal(size=(3, k))
    c = C @ w
    lo, hi, z = c - 1.0, c.copy(), np.array([0.0, 0.2, 0.0])  # row 1 at its upper side, right sign
    dual, compl, smax2, t2, s2 = kernels.rows_certificate(AZ, e0, r, Z, xbar, w, C, lo, hi, z, 0.0)
    np.testing.assert_allclose((t2, s2), (t + C.T @ z, s + np.abs(C).T @ np.abs(z)), atol=1e-12)
    assert dual == pytest.approx(np.max(np.abs(t2) / s2)) and compl == pytest.approx(0.0, abs=1e-15)
    assert smax2 == pytest.approx(s2.max())


def test_normalize_blocks_renormalises_or_leaves_q_alone() -> None:
    q = np.array([0.6, 0.8 * (1 + 5e-7), 2.0, 0.0, 0.0, 0.0, 1.0 + 1e-7])
    blocks = np.array([[0, 2], [3, 4]], dtype=np.intp)
    assert kernels.normalize_blocks(q, blocks, 1e-6) is None
    np.testing.assert_allclose([np.hypot(q[0], q[1]), np.linalg.norm(q[3:])], 1.0, atol=1e-15)
    assert q[2] == 2.0
    bad = np.array([0.6, 0.8, 2.0, 0.0, 0.0, 0.0, 1.1])
    before = bad.copy()
    assert kernels.normalize_blocks(bad, blocks, 1e-6) == (3, 4, pytest.approx(1.1))
    assert np.array_equal(bad, before)  # nothing renormalised when one block is off
    with pytest.raises(IndexError):
        kernels.normalize_blocks(q, np.array([[5, 4]], dtype=np.intp), 1e-6)


@given(seed=st.integers(0, 2**31), n=st.integers(0, 12))
@settings(max_examples=80, deadline=None)
def test_strong_entries_are_numpys_indices_above(seed: int, n: int) -> None:
    """strong_entries(v, tau): numpy's flatnonzero(|v| > tau), None for none (NaN is never above)."""
    rng = np.random.default_rng(seed)
    v = rng.normal(size=n) * rng.choice([1e-9, 1.0], size=n)
    if n:
        v[rng.integers(n)] = rng.choice([np.nan, -np.inf, 0.0, -0.0])
    for tau in (1e-6, 0.5, np.inf):
        got, want = kernels.strong_entries(v, tau), np.flatnonzero(np.abs(v) > tau)
        if want.size:
            np.testing.assert_array_equal(got, want)
        else:
            assert got is None
    with pytest.raises((TypeError, ValueError)):
        kernels.strong_entries(v.astype(np.float32), 1e-6)


@given(seed=st.integers(0, 2**31), n=st.integers(0, 9))
@settings(max_examples=80, deadline=None)
def test_in_box_is_the_clip_test(seed: int, n: int) -> None:
    """in_box(y, lo, hi) == (clip(y, lo, hi) equals y bytewise): ±inf sides, empty boxes, NaN entries."""
    rng = np.random.default_rng(seed)
    y = rng.normal(size=n)
    lo, hi = y - rng.uniform(-0.2, 1.0, n), y + rng.uniform(-0.2, 1.0, n)
    lo[rng.random(n) < 0.2], hi[rng.random(n) < 0.2] = -np.inf, np.inf
    if n and rng.random() < 0.2:
        lo[0], hi[0] = np.inf, -np.inf  # an empty box
    if n and rng.random() < 0.2:
        y[-1] = np.nan
    expected = np.minimum(np.maximum(y, lo), hi).tobytes() == y.tobytes()
    assert kernels.in_box(y, lo, hi) is expected


@given(seed=st.integers(0, 2**31), nv=st.integers(1, 9), mw=st.integers(0, 7), extra=st.integers(0, 2),
       layout=st.sampled_from(["F", "C", "strided"]))  # fmt: skip
@settings(max_examples=90, deadline=None)
def test_dynamics_rows_split_the_equations_of_motion(seed: int, nv: int, mw: int, extra: int,
                                                     layout: str) -> None:  # fmt: skip
    """E = [M_u, −J_uᵀ; J, 0], f = [−h_u; −a_c], T = [M_a, −J_aᵀ], h_a for any split of the DOFs, with M
    column-major (as Pinocchio's data.M.T view is), C-ordered (rows copied whole) or strided views of M
    and J; every column past nv + rows(J) zero (the arrays are not pre-zeroed)."""
    rng = np.random.default_rng(seed)
    M = rng.normal(size=(nv, nv))
    h, J, acc = rng.normal(size=nv), rng.normal(size=(mw, nv)), rng.normal(size=mw)
    if layout == "F":
        M = np.asfortranarray(M)
    elif layout == "strided":
        M, J = np.repeat(M, 2, axis=1)[:, ::2], np.repeat(J, 3, axis=1)[:, ::3]
    perm = rng.permutation(nv)
    nu = int(rng.integers(0, nv + 1))
    u, a = np.sort(perm[:nu]), perm[nu:]  # (the actuated ones in any order)
    n = nv + mw + extra
    E, f, T, h_a = kernels.dynamics_rows(M, h, J, acc, u, a, n)
    Ee = np.zeros((nu + mw, n))
    Ee[:nu, :nv], Ee[:nu, nv : nv + mw], Ee[nu:, :nv] = M[u], -J[:, u].T, J
    Te = np.zeros((nv - nu, n))
    Te[:, :nv], Te[:, nv : nv + mw] = M[a], -J[:, a].T
    np.testing.assert_array_equal(E, Ee)
    np.testing.assert_array_equal(f, np.concatenate((-h[u], -acc)))
    np.testing.assert_array_equal(T, Te)
    np.testing.assert_array_equal(h_a, h[a])
