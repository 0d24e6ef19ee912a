"""Gain and saturation helpers shared by the PD controllers."""

from __future__ import annotations

from typing import Literal, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._support.validation import as_real_array, short_repr
from ..errors import ConfigError, InvalidValueError


@overload
def as_gain(value: ArrayLike, name: str, allow_none: Literal[False] = False) -> NDArray[np.float64]: ...
@overload
def as_gain(value: ArrayLike | None, name: str, allow_none: Literal[True]) -> NDArray[np.float64] | None: ...
def as_gain(value: ArrayLike | None, name: str, allow_none: bool = False) -> NDArray[np.float64] | None:
    """A gain as a new read-only float array (scalar → 0-d), finite and ≥ 0 (> 0 for a saturation limit).

    Raises:
        ConfigError: naming the gain, for NaN/inf, negative values, or input that is not real numbers
            (booleans, strings, complex numbers, ragged lists, integers beyond the float range).
    """
    if value is None:
        if allow_none:
            return None
        raise ConfigError(name, "a gain is required")
    try:
        arr = as_real_array(value, name, "a number or one number per axis")  # no bool, str, complex
    except InvalidValueError:
        raise ConfigError(
            name, f"expected a number or one number per axis, got {short_repr(value)}"
        ) from None
    if arr.ndim > 1 or not np.isfinite(arr).all() or (arr < 0).any():
        raise ConfigError(name, f"must be finite and ≥ 0 (scalar or per axis), got {short_repr(value)}")
    if allow_none and (arr <= 0).any():
        raise ConfigError(name, f"a saturation limit must be > 0, got {short_repr(value)}")
    arr.setflags(write=False)  # a law's gains change by assignment only (evaluators see the new object)
    return arr


def broadcast_gain(gain: NDArray[np.float64], n: int, name: str) -> NDArray[np.float64]:
    """A scalar (0-d) or per-axis gain checked for n axes, as it is: NumPy broadcasts a 0-d gain in the
    law's arithmetic (per-axis gains must have n entries).

    Raises:
        ConfigError: a per-axis gain whose size is not n.
    """
    if gain.ndim == 1 and gain.shape[0] != n:
        raise ConfigError(name, f"expected a scalar or {n} values, got {gain.shape[0]}")
    return gain


def saturate(u: NDArray[np.float64], limit: NDArray[np.float64] | None) -> NDArray[np.float64]:
    """Scale ``u`` so that |u_i| ≤ limit_i for every i, keeping its direction (ARC-OPT's saturation)."""
    if limit is None:
        return u
    ratio = float(np.max(np.abs(u) / limit))
    if ratio > 1.0:
        u = u / ratio
    return u
