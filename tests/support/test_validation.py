"""The central validation helpers (wbcpy._support.validation) that every module uses (issue 14, classes 5 and
6)."""

from __future__ import annotations

import time

import numpy as np
import pinocchio as pin
import pytest
from _bad_values import HUGE_INT, bad_vectors
from hypothesis import given, settings
from hypothesis import strategies as st

from wbcpy import InvalidValueError, UnknownNameError
from wbcpy._support.validation import (
    STATE_LIMIT,
    as_bool,
    as_float,
    as_int,
    as_matrix,
    as_se3,
    as_state_vector,
    as_vector,
    check_se3,
    lookup,
    short_repr,
)


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.floats(allow_nan=False, allow_infinity=False), max_size=8))
def test_good_vectors_pass_unchanged(values: list[float]) -> None:
    for given_as in (
        values,
        tuple(values),
        np.array(values),
        np.array(values, dtype=object),
    ):
        out = as_vector(given_as, len(values), "x")
        assert out.dtype == np.float64 and out.shape == (len(values),)
        np.testing.assert_array_equal(out, np.asarray(given_as, dtype=np.float64))
    arr = np.array(values)
    assert as_vector(arr, None, "x") is not arr  # always a new array


@settings(max_examples=300, deadline=None)
@given(data=st.data(), n=st.integers(0, 6))
def test_bad_vectors_raise_invalid_value(data: st.DataObject, n: int) -> None:
    bad = data.draw(bad_vectors(n, huge_is_bad=True))
    with pytest.raises(InvalidValueError) as info:
        as_state_vector(bad, n, "x")
    assert info.value.argument == "x"


def test_silent_conversions_are_refused() -> None:
    for bad, why in (
        (np.array([1 + 2j, 3.0]), "complex"),
        ([True, 0.0], "True"),
        (np.array([True, False]), "booleans"),
        (["1", 2.0], "'1'"),
        ([HUGE_INT, 0.0], "input"),
        ([[1.0, 2.0], [3.0]], "ragged"),
    ):
        with pytest.raises(InvalidValueError, match=why):
            as_vector(bad, 2, "x")
    with pytest.raises(InvalidValueError):
        as_matrix([[1.0, 2.0], [3.0, 1j]], (2, 2), "m")


def test_state_limit() -> None:
    as_state_vector([STATE_LIMIT, -STATE_LIMIT], 2, "v")
    for huge in (1.0001 * STATE_LIMIT, 1e200, 1e308):
        with pytest.raises(InvalidValueError, match="exceed"):
            as_state_vector([0.0, huge], 2, "v")


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        (1, True),
        (2.5, True),
        (np.float32(2.0), True),
        (np.array(3.0), True),
        (True, False),
        ("1", False),
        (None, False),
        (1j, False),
        (HUGE_INT, False),
        (float("nan"), False),
        (float("inf"), False),
        ([1.0], False),
    ],
)
def test_as_float(value: object, ok: bool) -> None:
    if ok:
        assert isinstance(as_float(value, "t"), float)
    else:
        with pytest.raises(InvalidValueError):
            as_float(value, "t")
    with pytest.raises(InvalidValueError):
        as_float(0.0, "t", minimum=0.0, strict=True)
    assert as_float(float("inf"), "t", finite=False) == float("inf")


def test_as_int_and_as_bool() -> None:
    assert as_int(np.int64(3), "n", minimum=1) == 3 and as_int(HUGE_INT, "n") == HUGE_INT
    for bad in (True, 2.0, "3", None, 0):
        with pytest.raises(InvalidValueError):
            as_int(bad, "n", minimum=1)
    assert as_bool(np.bool_(True), "flag") is True
    for bad in ("false", 0, 1, None):
        with pytest.raises(InvalidValueError):
            as_bool(bad, "flag")


def test_lookup_names_unhashable_and_huge() -> None:
    index = {"a": 1, "b": 2}
    assert lookup(index, "a", "frame") == 1
    for bad in (["a"], {"a": 1}, None, 3):
        with pytest.raises(UnknownNameError):
            lookup(index, bad, "frame")
    huge = "x" * 5_000_000  # a "YAML bomb" in a name field: the error stays short and fast
    t0 = time.perf_counter()
    with pytest.raises(UnknownNameError) as info:
        lookup(index, huge, "frame")
    assert time.perf_counter() - t0 < 2.0 and len(str(info.value)) < 1000
    assert len(short_repr(huge)) < 200 and len(short_repr(np.zeros(10_000))) < 200


def _is_valid_transform(R: np.ndarray, p: np.ndarray) -> bool:
    """Oracle of as_se3 / check_se3, in NumPy: finite, max|RᵀR − I| ≤ 1e-6 and det R > 0."""
    if not (np.isfinite(R).all() and np.isfinite(p).all()):
        return False
    with np.errstate(over="ignore", invalid="ignore"):  # (huge entries: an infinite error, rejected)
        return bool(np.abs(R.T @ R - np.eye(3)).max() <= 1e-6 and np.linalg.det(R) > 0.0)


_entries = st.one_of(
    st.floats(-2.0, 2.0),
    st.sampled_from([0.0, 1.0, -1.0, np.nan, np.inf, -np.inf, 1e308, -1e308, 1e-7]),
)


@settings(max_examples=300, deadline=None)
@given(
    rot=st.lists(st.floats(-np.pi, np.pi), min_size=3, max_size=3),
    noise=st.lists(_entries, min_size=9, max_size=9),
    scale=st.sampled_from([0.0, 1e-9, 1e-7, 1e-3, 1.0]),
    p=st.lists(_entries, min_size=3, max_size=3),
)
def test_check_se3_matches_the_numpy_oracle(rot, noise, scale, p) -> None:
    """One pass over the homogeneous matrix (scalar arithmetic) accepts exactly the transforms the NumPy
    oracle accepts: rotations near the tolerance, NaN/inf anywhere, huge finite translations whose sum
    overflows, and returns the very object (no copy); as_se3 returns a copy."""
    R = pin.exp3(np.array(rot)) + scale * np.nan_to_num(np.array(noise).reshape(3, 3), posinf=1, neginf=-1)
    if np.isnan(noise).any() and scale:  # put non-finite entries in the rotation itself sometimes
        R = R.copy()
        R[0, 0] = noise[int(np.flatnonzero(np.isnan(noise))[0])]
    t = np.array(p)
    M = pin.SE3.Identity()
    M.rotation, M.translation = R, t  # (pin.SE3(R, p) itself normalises nothing but checks nothing)
    R, t = M.rotation, M.translation
    if _is_valid_transform(R, t):
        assert check_se3(M, "M") is M
        assert as_se3(M, "M") == M and as_se3(M, "M") is not M
    else:
        with pytest.raises(InvalidValueError):
            check_se3(M, "M")
        with pytest.raises(InvalidValueError):
            as_se3(M, "M")


def test_as_se3_requires_a_rotation() -> None:
    good = pin.SE3.Random()
    out = as_se3(good, "M")
    assert out == good and out is not good
    for R in (
        np.zeros((3, 3)),
        2.0 * np.eye(3),
        np.diag([1.0, 1.0, -1.0]),
        np.array([[1, 0.1, 0], [0, 1, 0], [0, 0, 1.0]]),
    ):
        with pytest.raises(InvalidValueError, match="rotation"):
            as_se3(pin.SE3(R, np.zeros(3)), "M")
    nan = pin.SE3.Identity()
    nan.translation = np.array([np.nan, 0, 0])
    with pytest.raises(InvalidValueError):
        as_se3(nan, "M")
    with pytest.raises(InvalidValueError):
        as_se3(np.eye(4), "M")
