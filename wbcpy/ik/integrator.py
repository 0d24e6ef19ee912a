"""Saturating trapezoidal integrator (iCub ``ctrlLib`` ``Integrator``).

:class:`Integrator` is the trapezoidal rule with optional saturation of the output,
:math:`y_k = \\mathrm{clip}(y_{k-1} + \\tfrac{T_s}{2}(x_k + x_{k-1}), lo, hi)`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._kernels import in_box as _in_box
from .._support.exclusive import (
    exclusive,
    exclusive_copy,
    exclusive_deepcopy,
    exclusive_getstate,
    restore_fields,
)
from .._support.validation import as_float, as_real_array, as_vector
from ..errors import InvalidValueError

#: accepted range of sample and execution times [s]: beyond it the Tustin coefficients (∝ 1/Ts², 1/T³)
#: overflow or vanish in double precision
TIME_MIN, TIME_MAX = 1e-9, 1e9


def check_time(Ts: Any, name: str = "Ts") -> float:
    """A sample (or execution) time in [TIME_MIN, TIME_MAX] seconds; InvalidValueError otherwise."""
    return as_float(Ts, name, minimum=TIME_MIN, maximum=TIME_MAX)


def _as_limits(limits: Any, n: int) -> np.ndarray | None:
    """Validate an (n, 2) array of [lo, hi] rows (±inf allowed, NaN not, lo ≤ hi); None passes through."""
    if limits is None:
        return None
    lim = as_real_array(limits, "limits", (n, 2))
    if lim.shape != (n, 2):
        raise InvalidValueError("limits", (n, 2), lim.shape)
    if np.isnan(lim).any():
        raise InvalidValueError("limits", (n, 2), lim.shape, reason="contains NaN")
    bad = np.flatnonzero(lim[:, 0] > lim[:, 1])
    if bad.size:
        raise InvalidValueError("limits", "lo <= hi", lim.shape, reason=f"lo > hi in rows {bad.tolist()}")
    return lim


class Integrator:
    """Trapezoidal integrator with per-component saturation (iCub ``iCub::ctrl::Integrator``).

    .. math::

        y_k = \\mathrm{clip}\\big(y_{k-1} + \\tfrac{T_s}{2}(x_k + x_{k-1}),\\ lo,\\ hi\\big)

    Saturating the state itself means there is no wind-up: when the input changes sign the output leaves the
    limit at once.

    Args:
        Ts: sample time [s], > 0.
        y0: initial output (length n ≥ 1); clipped to the limits.
        limits: optional ``(n, 2)`` array of ``[lo, hi]`` rows (±inf allowed); None = no saturation.

    Raises:
        InvalidValueError: non-positive ``Ts``, bad shapes, NaN, or ``lo > hi``.
    """

    def __init__(self, Ts: float, y0: Any, limits: Any = None) -> None:
        ts = check_time(Ts)
        y = as_vector(y0, None, "y0")
        if y.size == 0:
            raise InvalidValueError("y0", "(n,) with n >= 1", y.shape)
        lim = _as_limits(limits, y.size)
        self._n = y.size
        self._ts = ts
        self._lim = lim
        self._lo = None if lim is None else lim[:, 0].copy()
        self._hi = None if lim is None else lim[:, 1].copy()
        # Row 0: output y; rows 1 and 2: the last input and a free slot (they swap roles every step), so
        # y_k = [1, Ts/2, Ts/2] · rows is one dot product without copying the input history.
        self._s = np.zeros((3, self._n))
        self._s[0] = self._clip(y)
        self._slot = 1  # the free row (the other one of rows 1, 2 holds x_{k-1})
        self._c3 = np.array([1.0, 0.5 * ts, 0.5 * ts])
        self._idle: list[None] = [None]  # one thread at a time (wbcpy._support.exclusive)

    __copy__ = exclusive_copy
    __deepcopy__ = exclusive_deepcopy
    __getstate__ = exclusive_getstate
    __setstate__ = restore_fields

    def _clip(self, y: np.ndarray) -> np.ndarray:
        lo, hi = self._lo, self._hi
        if lo is not None and hi is not None:
            np.maximum(y, lo, out=y)
            np.minimum(y, hi, out=y)
        return y

    @exclusive
    def integrate(self, x: Any) -> np.ndarray:
        """Integrate one input sample ``x`` (length n) and return the new output (a new array).

        Raises:
            InvalidValueError: wrong size or non-finite input (the integrator is unchanged).
        """
        return self.integrate_unchecked(as_vector(x, self._n, "x"))

    def integrate_unchecked(self, x: np.ndarray) -> np.ndarray:
        """:meth:`integrate` without validating ``x`` (the hot path of controllers).

        ``x`` is trusted: it must be a finite float64 array of shape ``(n,)`` (it is copied, so the caller
        may reuse it). Returns the new output, a new array the integrator does not keep.
        """
        s = self._s
        k = self._slot
        s[k] = x
        y: np.ndarray = self._c3.dot(s)  # y_{k-1} + Ts/2·(x_k + x_{k-1})
        lo, hi = self._lo, self._hi
        if lo is not None and hi is not None:
            np.maximum(y, lo, out=y)
            np.minimum(y, hi, out=y)
        s[0] = y
        self._slot = 3 - k
        return y

    def integrate_in_box_unchecked(
        self, x: np.ndarray, box_lo: np.ndarray, box_hi: np.ndarray
    ) -> tuple[np.ndarray, bool]:
        """:meth:`integrate_unchecked` that also reports whether the new output lies in a box.

        The box ``[box_lo, box_hi]`` (per component, (n,) arrays; ±inf allowed; an empty box is
        ``[+inf, −inf]``) must lie within the limits: an output inside it cannot saturate, so the box test
        (one compiled pass, :func:`wbcpy._kernels.in_box`) replaces the clipping and the caller learns
        something it would otherwise test again. Same trust rules as :meth:`integrate_unchecked`.

        Returns:
            ``(y, inside)``: the new output (a new array) and True when every component is inside the box.
        """
        s = self._s
        k = self._slot
        s[k] = x
        y: np.ndarray = self._c3.dot(s)  # y_{k-1} + Ts/2·(x_k + x_{k-1})
        inside = _in_box(y, box_lo, box_hi)
        if not inside:
            lo, hi = self._lo, self._hi
            if lo is not None and hi is not None:
                np.maximum(y, lo, out=y)
                np.minimum(y, hi, out=y)
        s[0] = y
        self._slot = 3 - k
        return y, inside

    @exclusive
    def reset(self, y0: Any) -> None:
        """Set the output to ``clip(y0)`` and the previous input to 0.

        Raises:
            InvalidValueError: wrong size or non-finite ``y0`` (the integrator is unchanged).
        """
        y = as_vector(y0, self._n, "y0")
        self._s[0] = self._clip(y)
        self._s[1:] = 0.0

    @exclusive
    def get(self) -> np.ndarray:
        """Return the current output (a new array)."""
        y: np.ndarray = self._s[0].copy()
        return y

    @exclusive
    def set_ts(self, Ts: float) -> None:
        """Change the sample time [s] (> 0); the state is kept."""
        ts = check_time(Ts)
        self._ts = ts
        self._c3 = np.array([1.0, 0.5 * ts, 0.5 * ts])

    @exclusive
    def get_ts(self) -> float:
        """Return the sample time [s]."""
        return self._ts

    @exclusive
    def set_lim(self, limits: Any) -> None:
        """Set the ``(n, 2)`` saturation limits (None removes them).

        As in iCub, the current output is not clipped here; the limits apply from the next
        :meth:`integrate` or :meth:`reset`.
        """
        lim = _as_limits(limits, self._n)
        self._lim = lim
        self._lo = None if lim is None else lim[:, 0].copy()
        self._hi = None if lim is None else lim[:, 1].copy()

    @exclusive
    def get_lim(self) -> np.ndarray | None:
        """Return a copy of the ``(n, 2)`` limits, or None when the integrator does not saturate."""
        return None if self._lim is None else self._lim.copy()

    @property
    def dim(self) -> int:
        """Number of components n."""
        return self._n

    # iCub camelCase aliases.
    setTs = set_ts  #: alias of :meth:`set_ts`
    getTs = get_ts  #: alias of :meth:`get_ts`
    setLim = set_lim  #: alias of :meth:`set_lim`
    getLim = get_lim  #: alias of :meth:`get_lim`
