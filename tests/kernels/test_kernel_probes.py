"""The probes of issue 27 on the ``wbcpy._kernels`` entry points: each used to crash, read out of bounds or
answer wrongly; each now answers correctly or raises TypeError / ValueError / IndexError.

Oracles: NumPy on the same values (the answer of a native, contiguous copy), and the kernels' documented
contracts for non-finite inputs.
"""

from __future__ import annotations

import numpy as np
import pytest

from wbcpy import _kernels as kernels
from wbcpy.qp.backends import daqp_direct

BAD_ARGUMENT = (TypeError, ValueError, IndexError)


def test_split_columns_rejects_0d_and_negative_indices() -> None:
    M = np.arange(12.0).reshape(3, 4)
    free, fixed = np.array([0, 2], dtype=np.intp), np.array([1], dtype=np.intp)
    Mf, shift = kernels.split_columns(M, free, fixed, np.array([2.0]))
    np.testing.assert_array_equal(Mf, M[:, free])
    np.testing.assert_array_equal(shift, M[:, fixed] @ [2.0])
    with pytest.raises(TypeError, match="free"):
        kernels.split_columns(M, np.array(0, dtype=np.intp), fixed, np.array([2.0]))  # used to segfault
    with pytest.raises(IndexError, match="fixed"):
        kernels.split_columns(M, free, np.array([-1], dtype=np.intp), np.array([2.0]))  # read M[:, -1]


def test_joint_law_rejects_the_absent_index() -> None:
    """-1 ("no position") is meaningful for the limit kernels only; joint_law read q[-1]."""
    out, q = np.zeros(2), np.arange(3.0)
    with pytest.raises(IndexError):
        kernels.joint_law(out, np.zeros(2), q, np.array([0, -1], dtype=np.intp), None, None, np.ones(2), None,
                          np.zeros(2))  # fmt: skip


def test_normalize_blocks_does_not_overflow() -> None:
    q = np.array([1.0, 0.0])
    with pytest.raises(IndexError):
        kernels.normalize_blocks(q, np.array([[1, np.iinfo(np.intp).max]], dtype=np.intp), 1e-6)


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(
            lambda A, y, J, t: kernels.weighted_rows(J, y, J, t, None, None), id="weighted_rows(A_out=J)"
        ),
        pytest.param(
            lambda A, y, J, t: kernels.weighted_rows(A, t, J, t, None, None), id="weighted_rows(y_out=t)"
        ),
    ],
)
def test_weighted_rows_outputs_must_not_alias_inputs(call) -> None:
    rng = np.random.default_rng(1)
    J, t = rng.standard_normal((4, 4)), rng.standard_normal(4)
    with pytest.raises(ValueError, match="overlaps"):
        call(np.zeros((4, 4)), np.zeros(4), J, t)


def test_joint_law_and_limits_outputs_must_not_alias_inputs() -> None:
    q, target, kp, c = np.arange(3.0), np.ones(3), np.ones(3), np.zeros(3)
    with pytest.raises(ValueError, match="overlaps"):
        kernels.joint_law(q, target, q, np.array([2, 1, 0], dtype=np.intp), None, None, kp, None, c)
    P = np.vstack([-np.ones(3), np.ones(3), np.ones(3)])
    ub = np.zeros(3)
    with pytest.raises(ValueError, match="overlaps"):
        kernels.velocity_limits(q, np.array([2, 1, 0], dtype=np.intp), P, 0.5, q, ub)
    t = np.zeros(2)
    with pytest.raises(ValueError, match="overlaps"):
        kernels.rows_residual(np.eye(2), -np.ones(2), np.ones(2), np.zeros(2), np.zeros(2), t, t)


def test_outputs_that_are_views_of_one_buffer_overlap_only_where_they_share_memory() -> None:
    """Two halves of one buffer are separate outputs (no false alarm); one shared entry is an overlap."""
    buf = np.zeros(6)
    rng = np.random.default_rng(2)
    C, x, z = rng.standard_normal((3, 3)), rng.standard_normal(3), rng.standard_normal(3)
    lo, hi = np.full(3, -np.inf), np.full(3, np.inf)
    t, scale = buf[:3], buf[3:]
    kernels.rows_residual(C, lo, hi, x, z, t, scale)
    np.testing.assert_allclose(t, C.T @ z, rtol=1e-14)
    np.testing.assert_allclose(scale, np.abs(C).T @ np.abs(z), rtol=1e-14)
    with pytest.raises(ValueError, match="overlaps"):
        kernels.rows_residual(C, lo, hi, x, z, buf[2:5], buf[:3])


def test_byte_swapped_and_misaligned_arrays_are_refused() -> None:
    x = np.arange(3.0)
    buf = np.zeros(4 * 8 + 1, dtype=np.uint8)
    misaligned = np.ndarray(3, dtype=np.float64, buffer=buf, offset=1)
    for bad in (x.astype(">f8"), misaligned):
        with pytest.raises(ValueError, match=r"byte order|aligned"):
            kernels.all_finite(bad)
        with pytest.raises(ValueError, match=r"byte order|aligned"):
            kernels.matmul(np.eye(3), bad.reshape(3, 1))
    with pytest.raises(ValueError, match="byte order"):
        kernels.strong_entries(np.arange(3.0).astype(">f8"), 0.5)
    with pytest.raises(ValueError, match="byte order"):
        kernels.split_columns(np.eye(3), np.arange(2).astype(">i8"), np.zeros(0, dtype=np.intp), np.zeros(0))


def test_state_copy_reads_values_of_any_layout() -> None:
    x = np.array([0.5, -1.0, 2.0])
    for arr in (x.astype(">f8"), x[::-1].copy()[::-1]):
        out = kernels.state_copy(arr, 3, 10.0)
        assert out.dtype == np.float64 and out.dtype.isnative
        np.testing.assert_array_equal(out, x)
    assert kernels.state_copy(np.array([0.5, np.nan, 1.0]).astype(">f8"), 3, 10.0) is None
    assert kernels.state_copy(np.array([0.5, 1e12, 1.0]).astype(">f8"), 3, 10.0) is None


def test_nullspace_update_refuses_non_finite_rows() -> None:
    S = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    for bad in (np.inf, np.nan):
        S2 = S.copy()
        S2[1, 2] = bad
        with pytest.raises(ValueError, match="NaN or inf"):
            kernels.nullspace_update(S2, None, None, None, 1e-9)  # inf: every row dropped; NaN: silently
        with pytest.raises(ValueError, match="NaN or inf"):
            kernels.nullspace_update(S, np.array([0.0, bad]), None, None, 1e-9)
    Z, _, rank, _ = kernels.nullspace_update(S, None, None, None, 1e-9)
    assert rank == 2 and Z.shape == (3, 1)


def test_natural_residual_of_a_nan_point_is_nan() -> None:
    x, t, s = np.array([np.nan, 0.0]), np.zeros(2), np.ones(2)
    assert np.isnan(kernels.natural_residual(x, t, s, None, None, None)[0])  # was 0: x never read
    assert np.isnan(kernels.natural_residual(np.array([np.inf, 0.0]), t, s, None, None, None)[0])
    assert kernels.natural_residual(np.zeros(2), t, s, None, None, None)[0] == 0.0


needs_daqp = pytest.mark.skipif(not daqp_direct.bound(), reason="this daqp release is not bound directly")


def _daqp_problem():
    H, f = np.eye(3), np.array([1.0, -2.0, 0.5])
    sense = np.zeros(1, dtype=np.intc)
    return H, f, np.array([-1.0]), np.array([-np.inf]), sense, daqp_direct.settings_vector({})  # (active)


@needs_daqp
def test_daqp_solve_reads_a_one_row_strided_matrix_right_or_refuses_it() -> None:
    H, f, bu, bl, sense, settings = _daqp_problem()
    row = np.array([1.0, 1.0, 1.0])
    x_ref = kernels.daqp_solve(H, f, row.reshape(1, 3), bu, bl, sense, settings)[0]
    # min ½|x|² + fᵀx s.t. 1ᵀx ≤ −1: x = −f − μ1 with μ = max(0, (1ᵀ(−f) + 1)/3) = 0.5
    mu = max(0.0, (-f.sum() + 1.0) / 3.0)
    assert mu > 0.1  # the row is active: a wrong row gives another answer
    np.testing.assert_allclose(x_ref, -f - mu, atol=1e-9)
    big = np.zeros((3, 3))
    big[:, 1] = row
    strided = np.lib.stride_tricks.as_strided(
        big[0:1, 1:2], shape=(1, 3), strides=(24, 24)
    )  # column stride 3
    try:
        x = kernels.daqp_solve(H, f, strided, bu, bl, sense, settings)[0]
    except ValueError:
        return
    np.testing.assert_allclose(x, x_ref, atol=1e-12)


@needs_daqp
def test_daqp_solve_refuses_a_negative_stride_row() -> None:
    H, f, bu, bl, sense, settings = _daqp_problem()
    rev = np.array([1.0, 2.0, 3.0])[::-1].reshape(1, 3)
    with pytest.raises(ValueError, match="contiguous"):
        kernels.daqp_solve(H, f, rev, bu, bl, sense, settings)


@needs_daqp
@pytest.mark.parametrize("index", [5, 6, 17, 18])
@pytest.mark.parametrize("value", [np.nan, 1e300, 0.5])
def test_daqp_integer_settings_must_be_whole_ints(index: int, value: float) -> None:
    H, f, bu, bl, sense, settings = _daqp_problem()
    settings = settings.copy()
    settings[index] = value
    with pytest.raises(ValueError, match="settings"):
        kernels.daqp_solve(H, f, np.ones((1, 3)), bu, bl, sense, settings)
