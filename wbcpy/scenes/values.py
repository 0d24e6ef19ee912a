"""Typed values of scene files: numbers that are not booleans, flags that are booleans, positive steps.

YAML gives ``true`` for ``yes``/``on``, strings for quoted values and arbitrarily large integers; these
helpers accept exactly what a scene file means and raise :class:`~wbcpy.errors.ConfigError` naming the
field otherwise (the value shown with :func:`~wbcpy.errors.safe_repr`, short even for a YAML bomb).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError, safe_repr


def is_number(x: Any) -> bool:
    """True for ints and floats (numpy's too), False for booleans (YAML's ``true`` is an int in Python)
    and the rest."""
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)


def numbers(value: Any, n: int | None, field: str) -> NDArray[np.float64]:
    """A list of ``n`` (any number when None) finite numbers as a float array."""
    want = f"{n if n is not None else 'a list of'} finite numbers"
    if not isinstance(value, (list, tuple)) or not all(is_number(x) for x in value):
        raise ConfigError(field, f"expected {want}, got {safe_repr(value)}")
    try:
        arr = np.array(value, dtype=float)
    except OverflowError:  # an integer beyond float range
        raise ConfigError(field, f"expected {want}, got {safe_repr(value)}") from None
    if arr.ndim != 1 or (n is not None and arr.shape[0] != n) or not np.isfinite(arr).all():
        raise ConfigError(field, f"expected {want}, got {safe_repr(value)}")
    return arr


def flag(doc: Mapping[str, Any], key: str) -> bool | None:
    """``doc[key]`` when it is a boolean, None when absent or null (``"false"`` is refused, not True)."""
    value = doc.get(key)
    if value is not None and not isinstance(value, bool):
        raise ConfigError(key, f"expected true or false, got {safe_repr(value)}")
    return value


def _as_float(value: Any) -> float:
    """``value`` as a float: NaN for what is not a number (booleans included), ±inf beyond float range."""
    try:
        return float(value) if is_number(value) else math.nan
    except OverflowError:
        return math.inf


def non_negative(value: Any, field: str, what: str) -> float:
    """A finite number ≥ 0 (``what`` describes it in the error)."""
    x = _as_float(value)
    if not (math.isfinite(x) and x >= 0):
        raise ConfigError(field, f"must be {what} ≥ 0, got {safe_repr(value)}")
    return x


def positive(value: Any, field: str, what: str) -> float:
    """A finite number > 0 (``what`` describes it in the error: "a step in seconds")."""
    x = _as_float(value)
    if not (math.isfinite(x) and x > 0):
        raise ConfigError(field, f"must be {what} > 0, got {safe_repr(value)}")
    return x
