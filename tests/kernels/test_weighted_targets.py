"""``weighted_rows`` without rows (A_out and J None): the weighted targets of a task with constant rows."""

from __future__ import annotations

import numpy as np
import pytest

from wbcpy import _kernels as kernels


@pytest.mark.parametrize("m", [0, 1, 5, 12])
def test_targets_only_match_the_numpy_formula(m: int) -> None:
    rng = np.random.default_rng(m)
    target, bias, sw = rng.standard_normal(m), rng.standard_normal(m), rng.uniform(0.0, 2.0, m)
    y = np.full(m, np.nan)
    kernels.weighted_rows(None, y, None, target, bias, sw)
    np.testing.assert_allclose(y, sw * (target - bias), rtol=1e-15, atol=0.0)
    kernels.weighted_rows(None, y, None, target, None, None)  # (no bias, unit weights: the target)
    np.testing.assert_allclose(y, target, rtol=0.0, atol=0.0)


def test_targets_only_agree_with_the_full_kernel_and_leave_nothing_else_written() -> None:
    rng = np.random.default_rng(3)
    J, target, sw = rng.standard_normal((4, 3)), rng.standard_normal(4), rng.uniform(0.1, 1.0, 4)
    A_out, y_full, y_only = np.zeros((4, 3)), np.zeros(4), np.zeros(4)
    kernels.weighted_rows(A_out, y_full, J, target, None, sw)
    kernels.weighted_rows(None, y_only, None, target, None, sw)
    np.testing.assert_allclose(y_only, y_full, rtol=1e-15, atol=0.0)


@pytest.mark.parametrize(
    "args",
    [
        (np.zeros((2, 2)), np.zeros(2), None, np.zeros(2), None, None),  # rows without J
        (None, np.zeros(2), np.zeros((2, 2)), np.zeros(2), None, None),  # J without rows
        (None, np.zeros(2), None, np.zeros(3), None, None),  # target of another size
        (None, np.zeros(2)[::-1], None, np.zeros(2), None, None),  # a non-contiguous output
        (None, np.zeros(2, dtype=np.float32), None, np.zeros(2), None, None),  # another dtype
    ],
)
def test_bad_arguments_raise(args: tuple[object, ...]) -> None:
    with pytest.raises((TypeError, ValueError)):
        kernels.weighted_rows(*args)


def test_output_must_not_alias_the_target() -> None:
    t = np.ones(3)
    with pytest.raises(ValueError, match="overlaps"):
        kernels.weighted_rows(None, t, None, t, None, None)
    read_only = np.zeros(3)
    read_only.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        kernels.weighted_rows(None, read_only, None, np.ones(3), None, None)
