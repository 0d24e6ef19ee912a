"""Hypothesis strategies of invalid inputs (issue 14, classes 5 and 6), and a twin-comparison helper.

Each strategy only produces values that the documented API must reject: wrong types (None, strings,
bytes, dicts, booleans where numbers are expected, complex numbers), integers beyond the float range,
NaN and ±inf, huge finite states, ragged or deeply nested lists, wrong shapes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

HUGE_INT = 10**400
_NOT_NUMBERS = st.sampled_from(
    [
        None,
        "1.0",
        "nan",
        b"\x00\x01",
        {"a": 1},
        object(),
        1j,
        np.complex128(1 + 2j),
        True,
        False,
        np.bool_(True),
    ]
)
_NON_FINITE = st.sampled_from([float("nan"), float("inf"), -float("inf"), np.float64("nan")])
_NON_FINITE_OR_HUGE_INT = st.one_of(_NON_FINITE, st.just(HUGE_INT), st.just(-HUGE_INT))


@st.composite
def bad_vectors(draw: st.DrawFn, n: int, huge_is_bad: bool = False) -> Any:
    """Anything but a vector of ``n`` finite real numbers (and of |entries| ≤ 1e9 when ``huge_is_bad``)."""
    good = draw(st.lists(st.floats(-2.0, 2.0), min_size=n, max_size=n))
    kind = draw(st.integers(0, 10 if huge_is_bad else 9))
    i = draw(st.integers(0, max(n - 1, 0)))
    if kind == 0:
        return draw(_NOT_NUMBERS)
    if kind == 1:  # wrong length
        m = draw(st.integers(0, n + 3).filter(lambda k: k != n))
        return good[:m] if m <= n else good + [0.0] * (m - n)
    if n == 0 and kind in (2, 10):
        return [0.0]  # nothing to spoil in an empty vector: a wrong length
    if kind == 2:  # a non-finite entry or an integer beyond the float range
        bad = list(good)
        bad[i] = draw(_NON_FINITE_OR_HUGE_INT)
        return bad
    if kind == 3:  # a non-number inside the list
        bad = list(good) if n else [0.0]
        bad[min(i, len(bad) - 1)] = draw(st.sampled_from(["1", True, 1j, None, [1.0, 2.0]]))
        return bad
    if kind == 4:
        return np.array(good, dtype=bool)
    if kind == 5:
        return np.array(good, dtype=np.complex128) + 1j
    if kind == 6:  # ragged or 2-D
        return [good, [1.0]] if draw(st.booleans()) else np.array([good, good])
    if kind == 7:  # deep nesting
        value: Any = 1.0
        for _ in range(draw(st.integers(3, 200))):
            value = [value]
        return value
    if kind == 8:  # a float64 array with a NaN
        arr = np.array(good if n else [0.0], dtype=np.float64)
        arr[min(i, arr.size - 1)] = np.nan
        return arr
    if kind == 9:
        return float(draw(st.floats(-1.0, 1.0))) if n != 1 else "x"
    bad = np.array(good, dtype=np.float64)  # kind 10: a huge finite entry
    bad[i] = draw(st.sampled_from([1e200, -1e200, 2e9, 1e300]))
    return bad


def bad_positive_numbers(maximum: float | None = None) -> st.SearchStrategy[Any]:
    """Anything but a finite real number > 0 (and ≤ ``maximum``)."""
    numbers = st.one_of(st.floats(max_value=0.0), _NON_FINITE_OR_HUGE_INT, st.just(1e-300))
    if maximum is not None:
        numbers = st.one_of(numbers, st.floats(min_value=maximum * 1.5, allow_infinity=False))
    return st.one_of(_NOT_NUMBERS, numbers, st.lists(st.floats(0.1, 1.0), min_size=1, max_size=3))


def bad_names(valid_count: int = 0) -> st.SearchStrategy[Any]:
    """Anything but a valid name: unknown strings (also huge), unhashable values, out-of-range indices."""
    return st.one_of(
        st.text(min_size=0, max_size=20).map(lambda s: "no such " + s),
        st.just("x" * 200_000),
        st.lists(st.text(max_size=3), max_size=3),
        st.just({"a": 1}),
        st.just(None),
        st.just(1.5),
        st.just(HUGE_INT),
        st.integers(min_value=valid_count, max_value=valid_count + 10**6),
        st.integers(max_value=-2),
        st.just(b"link"),
    )


def assert_same(a: Any, b: Any, path: str = "state") -> None:
    """Exact equality of two fingerprints (nested tuples/dicts of arrays, floats, enums...)."""
    if isinstance(a, dict):
        assert a.keys() == b.keys(), path
        for k in a:
            assert_same(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b), path
        for k, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same(x, y, f"{path}[{k}]")
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b, err_msg=path)
    else:
        assert a == b or (a != a and b != b), f"{path}: {a!r} != {b!r}"
