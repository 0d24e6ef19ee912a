"""Input validation shared by every module: shapes, finiteness, ranges.

All helpers return new float64 arrays (callers may keep them) and raise
:class:`wbcpy.errors.InvalidValueError` naming the argument. They are written to be cheap on hot paths:
the common case (right size, finite) costs one ``np.array`` copy plus one dot product.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from typing import Any

import numpy as np

from .errors import ConfigError, ConfigKeyError, InvalidValueError

__all__ = ["as_matrix", "as_vector", "check_config_mapping", "check_finite"]


def check_finite(x: np.ndarray, name: str) -> None:
    """Raise :class:`InvalidValueError` if ``x`` holds NaN or inf."""
    # x·x is finite exactly when every entry is finite (barring overflow above ~1e154, re-checked exactly).
    flat = x.ravel()
    with np.errstate(all="ignore"):
        total = float(flat.dot(flat))
    if math.isfinite(total):
        return
    if not np.isfinite(flat).all():
        bad = np.flatnonzero(~np.isfinite(flat))
        raise InvalidValueError(name, x.shape, x.shape, reason=f"contains NaN or inf at index {bad.tolist()}")


def as_vector(x: Any, n: int | None, name: str) -> np.ndarray:
    """Convert ``x`` to a new finite float64 vector of length ``n`` (any length when ``n`` is None).

    Raises:
        InvalidValueError: wrong shape, non-numeric or non-finite entries.
    """
    try:
        arr = np.array(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidValueError(name, (n,), None, reason=f"not a numeric vector ({exc})") from None
    if arr.ndim != 1 or (n is not None and arr.shape[0] != n):
        raise InvalidValueError(name, (n,) if n is not None else "(n,)", arr.shape)
    check_finite(arr, name)
    return arr


def as_matrix(x: Any, shape: tuple[int | None, int | None], name: str) -> np.ndarray:
    """Convert ``x`` to a new finite float64 2-D array; ``None`` in ``shape`` accepts any size there."""
    try:
        arr = np.array(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidValueError(name, shape, None, reason=f"not a numeric matrix ({exc})") from None
    if arr.ndim != 2 or any(s is not None and s != g for s, g in zip(shape, arr.shape, strict=True)):
        raise InvalidValueError(name, shape, arr.shape)
    check_finite(arr, name)
    return arr


def check_config_mapping(
    data: Any, valid: Collection[str], required: Collection[str], prefix: str, kind: str
) -> None:
    """Check a configuration mapping's keys (``from_dict`` constructors).

    Args:
        data: the object that should be a mapping.
        valid: accepted keys.
        required: keys that must be present.
        prefix: prepended to field names in errors (e.g. ``"obstacles[2]."``).
        kind: what the mapping describes, for messages (``"obstacle"``).

    Raises:
        ConfigError: not a mapping (field: the prefix, or ``kind``), a missing required key;
            ConfigKeyError: an unknown key (listing the valid ones).
    """
    if not isinstance(data, Mapping):
        raise ConfigError(prefix.rstrip(".") or kind, f"must be a mapping, got {type(data).__name__}")
    for key in data:
        if key not in valid:
            raise ConfigKeyError(f"{prefix}{key}", f"{kind} field", key, valid)
    for key in required:
        if key not in data:
            raise ConfigError(f"{prefix}{key}", "missing (required)")
