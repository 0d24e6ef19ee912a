"""Checks of the walking API's arguments (footsteps, pattern, controller, ``walk``).

A bad configuration value raises :class:`~wbcpy.errors.ConfigError` naming the field; a malformed array,
transform or query time raises :class:`~wbcpy.errors.InvalidValueError` (a ``ValueError``) naming the
argument. What is refused everywhere: booleans where a number is meant (``True`` is not 1), strings,
``None``, complex values, integers beyond the float range, NaN and ±inf, and values outside the range that
keeps the plan meaningful (each range is stated where it is used).
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
import pinocchio as pin

from .._support.validation import as_float, se3_homogeneous, short_repr
from ..errors import ConfigError, InvalidValueError, safe_repr

#: largest tilt (rad) of a footstep's z axis from the vertical: the pattern walks on flat ground
FLAT_TOL = 0.01
#: largest |coordinate| (m) of a footstep: farther is no walk (and squares overflow long before 1e154)
POSITION_LIMIT = 1e3


def number(
    value: Any,
    field: str,
    lo: float | None = None,
    hi: float | None = None,
    lo_open: bool = False,
    unit: str = "",
) -> float:
    """A real, finite number within [lo, hi] (``(lo, hi]`` when ``lo_open``) as a float.

    Raises:
        ConfigError: (``field``) a bool, string, None, complex, non-finite or out-of-range value.
    """
    x = _as_real(value)
    low_ok = lo is None or (x > lo if lo_open else x >= lo)
    if not (math.isfinite(x) and low_ok and (hi is None or x <= hi)):
        why = f"must be a finite number{_range(lo, hi, lo_open)}{unit}, got {safe_repr(value)}"
        raise ConfigError(field, why)
    return x


def _as_real(value: Any) -> float:
    """``value`` as a float when it is a real number (not a bool), else NaN (also beyond the float range)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        return math.nan
    try:
        return float(value)
    except (OverflowError, ValueError, TypeError):
        return math.nan


def _range(lo: float | None, hi: float | None, lo_open: bool) -> str:
    """`` in [lo, hi]`` for a message (empty without bounds)."""
    if lo is None and hi is None:
        return ""
    left = "(-inf" if lo is None else f"{'(' if lo_open else '['}{lo:g}"
    right = "inf)" if hi is None else f"{hi:g}]"
    return f" in {left}, {right}"


def integer(value: Any, field: str, lo: int, hi: int) -> int:
    """An integer (Python or numpy; never a bool or a float) in [lo, hi].

    Raises:
        ConfigError: (``field``) anything else.
    """
    ok = isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))
    if not ok or not lo <= int(value) <= hi:
        raise ConfigError(field, f"must be an integer in [{lo}, {hi}], got {safe_repr(value)}")
    return int(value)


def step_index(k: Any, n: int, field: str = "k", query: bool = False) -> int:
    """A footstep index in [0, n): an integer, never a bool or a float.

    Raises:
        ConfigError: (``field``) anything else; InvalidValueError instead when ``query`` (a read).
    """
    ok = not isinstance(k, (bool, np.bool_)) and isinstance(k, numbers.Integral) and 0 <= int(k) < n
    if ok:
        return int(k)
    reason = f"no footstep {short_repr(k)} (an integer in 0 … {n - 1})"
    if query:
        raise InvalidValueError(field, f"an integer in [0, {n - 1}]", short_repr(k), reason=reason)
    raise ConfigError(field, reason)


def flag(value: Any, field: str) -> bool:
    """True or False (a numpy bool too); never a string such as ``"false"`` or a number.

    Raises:
        ConfigError: (``field``) anything else.
    """
    if not isinstance(value, (bool, np.bool_)):
        raise ConfigError(field, f"must be True or False, got {safe_repr(value)}")
    return bool(value)


def query_time(t: Any) -> float:
    """A time at which a plan is read (s): a real, finite number (the plan clamps it to its duration).

    Raises:
        InvalidValueError: (argument ``t``) anything else.
    """
    if type(t) is float and math.isfinite(t):
        return t
    return as_float(t, "t")


def sole_placement(value: Any, field: str) -> pin.SE3:
    """A validated copy of a sole's placement on flat ground: a ``pin.SE3`` with finite entries, a proper
    rotation whose z axis is vertical (tilt ≤ :data:`FLAT_TOL`), coordinates within ±:data:`POSITION_LIMIT`.

    Raises:
        InvalidValueError: (``field``) not a ``pin.SE3``, non-finite, not a rotation.
        ConfigError: (``field``) a tilted sole or one beyond the position limit.
    """
    h = se3_homogeneous(value, field)  # (a new, checked 4×4 array)
    (_, _, _, x), (_, _, _, y), (_, _, zz, z), _ = h.tolist()
    tilt = math.acos(max(-1.0, min(1.0, zz)))
    if tilt > FLAT_TOL:
        raise ConfigError(field, f"must be flat (a yaw rotation, tilt ≤ {FLAT_TOL} rad), tilt {tilt:.3g} rad")
    if max(abs(x), abs(y), abs(z)) > POSITION_LIMIT:
        raise ConfigError(field, f"coordinates must be within ±{POSITION_LIMIT:g} m, got {[x, y, z]}")
    return pin.SE3(h)


def half_size(value: Any, field: str) -> tuple[float, float]:
    """A sole's half sizes (X, Y), each a finite number in (0, 1] m.

    Raises:
        ConfigError: (``field``) anything else.
    """
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
        raise ConfigError(field, f"must be two half sizes (X, Y) in m, got {safe_repr(value)}")
    x, y = (number(v, f"{field}[{i}]", 0.0, 1.0, lo_open=True, unit=" m") for i, v in enumerate(value))
    return x, y
