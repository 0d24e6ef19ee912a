"""Input validation shared by every module: numbers, vectors, matrices, names, transforms.

Every helper either returns a new, validated value or raises a :mod:`wbcpy.errors` exception that names
the argument; none of them lets a raw ``TypeError``/``OverflowError``/``ComplexWarning`` through. What is
rejected, everywhere:

* non-numeric values: strings (also inside sequences: ``["1", 2]``), ``None``, dicts;
* booleans where numbers are expected (``True`` is not 1.0; boolean arrays are not vectors);
* complex values (numpy would silently drop the imaginary part);
* ragged or deeply nested sequences, wrong shapes;
* Python integers beyond the float range (``10**400``);
* NaN and inf (unless a helper says otherwise).

They are cheap on hot paths: a float64 vector of the right size is checked and copied in one compiled
pass (:func:`wbcpy._kernels.state_copy`); anything else takes the general path. Error messages show at
most :data:`REPR_LIMIT` characters of an offending value, so a huge string or array never makes raising
itself slow.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Collection, Mapping
from typing import Any, TypeVar

import numpy as np
import pinocchio as pin

from .._kernels import state_copy as _state_copy
from .._kernels import transform_error as _transform_error
from ..errors import ConfigError, ConfigKeyError, InvalidValueError, UnknownNameError

#: longest excerpt of an offending value shown in an error message (characters)
REPR_LIMIT = 80
#: largest |entry| accepted in a robot state (q, v, a in m, rad, m/s, rad/s, ...): beyond it the dynamics
#: keep no meaningful digit and products such as v² overflow soon after (v = 1e200 gives NaN Coriolis)
STATE_LIMIT = 1e9
_STATE_LIMIT_SQ = STATE_LIMIT * STATE_LIMIT
#: largest max-norm of RᵀR − I accepted for a rotation matrix
ROTATION_TOL = 1e-6

_F64 = np.dtype(np.float64)
#: the largest finite float: |x| ≤ _FINITE holds exactly for the finite entries
_FINITE = float(np.finfo(np.float64).max)
_NOT_NUMBERS = (bool, np.bool_, str, bytes, complex, np.complexfloating)


def short_repr(value: Any, limit: int = REPR_LIMIT) -> str:
    """``repr(value)`` cut to ``limit`` characters (never slow: huge strings are cut before repr)."""
    if isinstance(value, (str, bytes)) and len(value) > limit:
        return repr(value[:limit]) + f"... ({len(value)} characters)"
    if isinstance(value, np.ndarray) and value.size > 16:
        return f"<array shape={value.shape} dtype={value.dtype}>"
    try:
        text = repr(value)
    except Exception:  # a broken __repr__ must not hide the real error
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[:limit] + "..."


# ---------------------------------------------------------------------------------------------- scalars
def as_float(
    value: Any,
    name: str,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    strict: bool = False,
    finite: bool = True,
) -> float:
    """A real number as a Python float.

    Args:
        value: an int, float or numpy real scalar (0-d real arrays too); never a bool, string or complex.
        name: the argument's name for the error.
        minimum, maximum: inclusive bounds (exclusive for ``minimum`` when ``strict``).
        finite: reject NaN and ±inf (NaN is always rejected when a bound is given).

    Raises:
        InvalidValueError: not a real number, too large for a float, non-finite, or out of bounds.
    """
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "fiu":
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise InvalidValueError(
            name,
            "a real number",
            type(value).__name__,
            reason=f"expected a real number, got {short_repr(value)}",
        )
    try:
        v = float(value)
    except (OverflowError, ValueError, TypeError):
        raise InvalidValueError(
            name, "a real number", None, reason=f"{short_repr(value)} does not fit in a float"
        ) from None
    if finite and not math.isfinite(v):
        raise InvalidValueError(name, "a finite number", v, reason=f"must be finite, got {v}")
    if minimum is not None and not (v > minimum if strict else v >= minimum):
        op = ">" if strict else ">="
        raise InvalidValueError(name, f"{op} {minimum}", v, reason=f"must be {op} {minimum}, got {v}")
    if maximum is not None and not v <= maximum:
        raise InvalidValueError(name, f"<= {maximum}", v, reason=f"must be <= {maximum}, got {v}")
    return v


def as_int(value: Any, name: str, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """An integer (Python or numpy; never a bool or a float) within the inclusive bounds.

    Raises:
        InvalidValueError: not an integer, or out of bounds.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise InvalidValueError(
            name, "an integer", type(value).__name__, reason=f"expected an integer, got {short_repr(value)}"
        )
    v = int(value)
    if (minimum is not None and v < minimum) or (maximum is not None and v > maximum):
        lo = "-inf" if minimum is None else minimum
        hi = "inf" if maximum is None else maximum
        raise InvalidValueError(
            name, f"an integer in [{lo}, {hi}]", v, reason=f"must be in [{lo}, {hi}], got {short_repr(v)}"
        )
    return v


def as_bool(value: Any, name: str) -> bool:
    """A flag: ``True``/``False`` (or a numpy bool); never a string such as ``"false"``.

    Raises:
        InvalidValueError: anything else.
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise InvalidValueError(
        name, "True or False", type(value).__name__, reason=f"expected True or False, got {short_repr(value)}"
    )


# ---------------------------------------------------------------------------------------------- arrays
#: up to this size :func:`check_finite` sums in Python instead of entering ``np.errstate`` (a threshold
#: from a measurement: 0.3 µs for the sum of a 9-vector, 2 µs to enter ``np.errstate``)
_SMALL = 32


def check_finite(x: np.ndarray, name: str) -> None:
    """Raise :class:`InvalidValueError` if ``x`` holds NaN or inf."""
    flat = x.ravel()
    if flat.size <= _SMALL:  # a Python float sum never warns (overflow gives inf: then checked exactly)
        if math.isfinite(sum(flat.tolist())):
            return
    else:
        with np.errstate(all="ignore"):
            total = float(flat.dot(flat))
        if math.isfinite(total):
            return
    if not np.isfinite(flat).all():
        bad = np.flatnonzero(~np.isfinite(flat))
        raise InvalidValueError(
            name, x.shape, x.shape, reason=f"contains NaN or inf at index {bad[:20].tolist()}"
        )


def check_state(x: np.ndarray, name: str) -> None:
    """Raise :class:`InvalidValueError` if a state vector has NaN/inf or an entry beyond :data:`STATE_LIMIT`.

    One dot product in the common case: x·x ≤ STATE_LIMIT² implies every |xᵢ| ≤ STATE_LIMIT.
    """
    with np.errstate(all="ignore"):
        total = float(x.dot(x))
    if total <= _STATE_LIMIT_SQ:
        return
    check_finite(x, name)
    big = np.flatnonzero(np.abs(x) > STATE_LIMIT)
    if big.size:
        raise InvalidValueError(
            name,
            f"|entries| <= {STATE_LIMIT:g}",
            x.shape,
            reason=f"entries {big[:20].tolist()} exceed {STATE_LIMIT:g} in magnitude "
            f"(largest {np.abs(x).max():.3g}); the dynamics are meaningless (and overflow) at such values",
        )


def _bad_element(seq: Any) -> Any:
    """The first bool, string or complex inside a list/tuple nested at most two deep (None if none)."""
    for item in seq:
        if isinstance(item, _NOT_NUMBERS):
            return item
        if isinstance(item, (list, tuple)):
            for sub in item:
                if isinstance(sub, _NOT_NUMBERS):
                    return sub
    return None


def as_real_array(x: Any, name: str, expected: Any = "an array of real numbers") -> np.ndarray:
    """A new float64 array from ``x`` (any shape; NaN/inf allowed), rejecting what this module rejects."""
    if isinstance(x, np.ndarray):
        kind = x.dtype.kind
        if kind in "fiu":
            return np.array(x, dtype=np.float64)
        if kind != "O":
            what = {"b": "booleans", "c": "complex numbers"}.get(kind, f"{x.dtype} values")
            raise InvalidValueError(name, expected, x.shape, reason=f"expected real numbers, got {what}")
        x = x.tolist()
    elif isinstance(x, (str, bytes, Mapping)) or x is None:
        raise InvalidValueError(name, expected, None, reason=f"expected numbers, got {short_repr(x)}")
    # a bool, string or complex inside a (≤ 2-deep) list, found before numpy converts it silently
    bad = _bad_element(x) if isinstance(x, (list, tuple)) else (x if isinstance(x, _NOT_NUMBERS) else None)
    if bad is not None:
        raise InvalidValueError(name, expected, None, reason=f"expected real numbers, got {short_repr(bad)}")
    try:
        arr = np.array(x, dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as exc:
        reason = (
            "ragged or non-numeric"
            if "inhomogeneous" in str(exc) or "sequence" in str(exc)
            else "non-numeric"
        )
        raise InvalidValueError(name, expected, None, reason=f"{reason} input {short_repr(x)}") from None
    return arr


def as_vector(x: Any, n: int | None, name: str) -> np.ndarray:
    """Convert ``x`` to a new finite float64 vector of length ``n`` (any length when ``n`` is None).

    Raises:
        InvalidValueError: wrong shape, non-numeric, boolean, complex or non-finite entries.
    """
    expected = (n,) if n is not None else "(n,)"
    if n is not None:
        fast = _state_copy(x, n, _FINITE)  # a finite float64 vector of the right size: one compiled pass
        if fast is not None:
            return fast
    if type(x) is np.ndarray and x.dtype is _F64 and x.ndim == 1 and (n is None or x.shape[0] == n):
        arr = x.copy()
    else:
        arr = as_real_array(x, name, expected)
        if arr.ndim != 1 or (n is not None and arr.shape[0] != n):
            raise InvalidValueError(name, expected, arr.shape)
    check_finite(arr, name)
    return arr


def optional_vector(x: Any, n: int, name: str) -> np.ndarray | None:
    """:func:`as_vector`, or None when ``x`` is None (an omitted optional input: a feed-forward, a
    reference's velocity)."""
    return None if x is None else as_vector(x, n, name)


def as_state_vector(x: Any, n: int, name: str) -> np.ndarray:
    """:func:`as_vector` that also bounds every entry by :data:`STATE_LIMIT` (robot states)."""
    arr = _state_copy(x, n, STATE_LIMIT)  # the hot path of robot updates: one compiled pass
    if arr is not None:
        return arr
    arr = as_vector(x, n, name)
    check_state(arr, name)
    return arr


def as_matrix(x: Any, shape: tuple[int | None, int | None], name: str) -> np.ndarray:
    """Convert ``x`` to a new finite float64 2-D array; ``None`` in ``shape`` accepts any size there."""
    arr = as_real_array(x, name, shape)
    if arr.ndim != 2 or any(s is not None and s != g for s, g in zip(shape, arr.shape, strict=True)):
        raise InvalidValueError(name, shape, arr.shape)
    check_finite(arr, name)
    return arr


# ---------------------------------------------------------------------------------------------- names, SE3
_V = TypeVar("_V")


def lookup(index: Mapping[Any, _V], key: Any, kind: str) -> _V:
    """``index[key]``, or :class:`UnknownNameError` listing close names (also for unhashable keys)."""
    try:
        return index[key]
    except (KeyError, TypeError):
        raise UnknownNameError(kind, key if isinstance(key, str) else short_repr(key), index) from None


def as_se3(value: Any, name: str) -> pin.SE3:
    """A validated copy of a rigid transform (``pin.SE3``): finite, with a proper rotation.

    The rotation must satisfy max|RᵀR − I| ≤ :data:`ROTATION_TOL` and det R > 0 (a zero or scaled matrix,
    a reflection, or a shear is not a rotation).

    Raises:
        InvalidValueError: not a ``pin.SE3``, non-finite entries, or not a rotation.
    """
    return pin.SE3(check_se3(value, name))


def check_se3(value: Any, name: str) -> pin.SE3:
    """:func:`as_se3` without the copy: ``value`` itself once validated (for callers that copy its
    rotation and translation into buffers of their own)."""
    se3_homogeneous(value, name)
    return value


def se3_homogeneous(value: Any, name: str) -> np.ndarray:
    """The validated homogeneous matrix (a new 4×4 array) of a rigid transform ``value`` (a ``pin.SE3``,
    finite, with a proper rotation: see :func:`as_se3`).

    Raises:
        InvalidValueError: not a ``pin.SE3``, non-finite entries, or not a rotation.
    """
    if not isinstance(value, pin.SE3):
        raise InvalidValueError(
            name,
            "a pinocchio.SE3",
            type(value).__name__,
            reason=f"expected a pinocchio.SE3, got {short_repr(value)}",
        )
    h: np.ndarray = value.homogeneous
    check_homogeneous(h, name)
    return h


def check_homogeneous(h: np.ndarray, name: str) -> None:
    """Raise :class:`InvalidValueError` unless the 4×4 ``h`` (a ``pin.SE3``'s ``homogeneous``) is finite
    with a proper rotation (see :func:`as_se3`): one compiled pass when it is one."""
    err, det = _transform_error(h)
    if err <= ROTATION_TOL and det > 0.0:
        return
    (a, b, c, _), (d, e, f, _), (g, h_, i, _) = h.tolist()[:3]
    check_finite(h[:3], name)  # NaN or inf: raises
    _check_rotation_entries(a, b, c, d, e, f, g, h_, i, name)


def check_rotation(R: np.ndarray, name: str) -> None:
    """Raise :class:`InvalidValueError` unless the finite 3×3 ``R`` is a rotation (see :func:`as_se3`)."""
    err, det = _transform_error(R)
    if err <= ROTATION_TOL and det > 0.0:
        return
    a, b, c, d, e, f, g, h, i = R.ravel().tolist()
    _check_rotation_entries(a, b, c, d, e, f, g, h, i, name)


def _check_rotation_entries(a: float, b: float, c: float, d: float, e: float, f: float, g: float, h: float,
                            i: float, name: str) -> None:  # fmt: skip
    """:func:`check_rotation` of the matrix [[a, b, c], [d, e, f], [g, h, i]]."""
    err = max(
        abs(a * a + d * d + g * g - 1.0), abs(b * b + e * e + h * h - 1.0), abs(c * c + f * f + i * i - 1.0),
        abs(a * b + d * e + g * h), abs(a * c + d * f + g * i), abs(b * c + e * f + h * i),
    )  # fmt: skip
    det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
    if not (err <= ROTATION_TOL and det > 0.0):
        raise InvalidValueError(
            name,
            "a rotation matrix",
            None,
            reason=f"rotation is not orthonormal with det +1 (max |RᵀR − I| = {err:.3g})",
        )


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
