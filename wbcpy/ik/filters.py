"""Discrete linear filters and a saturating trapezoidal integrator (iCub ``ctrlLib`` semantics).

:class:`Filter` is a per-component direct-form-I IIR filter,

.. math::

    y_k = \\frac{1}{a_0}\\Big(\\sum_{i\\ge 0} b_i\\,u_{k-i} - \\sum_{i\\ge 1} a_i\\,y_{k-i}\\Big),

applied independently (and vectorised) to every component of a vector signal. The coefficients are either
shared by all components (1-D ``num``/``den``) or given per component (2-D, one row per component).

:class:`Integrator` is the trapezoidal rule with optional saturation,
:math:`y_k = \\mathrm{clip}(y_{k-1} + \\tfrac{T_s}{2}(x_k + x_{k-1}), lo, hi)`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._validation import as_matrix, as_vector
from ..errors import InvalidValueError

__all__ = ["Filter", "Integrator"]

# A sum of numerator coefficients below this fraction of their absolute sum is a zero at DC (rounding only).
_DC_ZERO_RTOL = 64.0 * np.finfo(np.float64).eps


def _as_coeffs(x: Any, n: int, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Validate filter coefficients; return (as given, tap-major (taps, n) copy).

    ``x`` is either a 1-D vector shared by the ``n`` components or an ``(n, taps)`` matrix, one row per
    component.
    """
    try:
        arr = np.array(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidValueError(name, "(taps,) or (n, taps)", None, reason=f"not numeric ({exc})") from None
    if arr.ndim == 1:
        arr = as_vector(arr, None, name)
        if arr.size == 0:
            raise InvalidValueError(name, "(taps,) with taps >= 1", arr.shape)
        return arr, np.repeat(arr[:, None], n, axis=1)
    if arr.ndim == 2:
        arr = as_matrix(arr, (n, None), name)
        if arr.shape[1] == 0:
            raise InvalidValueError(name, f"({n}, taps) with taps >= 1", arr.shape)
        return arr, np.ascontiguousarray(arr.T)
    raise InvalidValueError(name, f"(taps,) or ({n}, taps)", arr.shape)


class Filter:
    """Per-component IIR filter in direct form I (iCub ``iCub::ctrl::Filter``).

    For every component j, with numerator ``b`` and denominator ``a`` (highest power of z first, i.e.
    coefficients of :math:`z^{-i}`),

    .. math::

        y_k = \\frac{1}{a_0}\\Big(\\sum_{i=0}^{m-1} b_i\\,u_{k-i} - \\sum_{i=1}^{n_a-1} a_i\\,y_{k-i}\\Big).

    ``a_0`` need not be 1; the output is divided by it. The stored past inputs and outputs survive a change
    of coefficients (:meth:`adjust_coeffs`), so a filter can be retuned on the fly without a jump in state.

    Args:
        num: numerator ``b`` — a 1-D vector shared by all components, or an ``(n, m)`` matrix (row j for
            component j).
        den: denominator ``a`` — 1-D or ``(n, n_a)``; every ``a_0`` must be non-zero.
        y0: initial output (length n ≥ 1); the filter starts in the steady state of ``y0`` (see
            :meth:`init`).

    Raises:
        InvalidValueError: empty/non-finite coefficients, wrong shapes, a zero ``a_0``.
    """

    def __init__(self, num: Any, den: Any, y0: Any) -> None:
        y = as_vector(y0, None, "y0")
        if y.size == 0:
            raise InvalidValueError("y0", "(n,) with n >= 1", y.shape)
        self._n = y.size
        num_given, b, den_given, a = self._check_coeffs(num, den)
        self._m = b.shape[0]  # numerator taps
        self._na = a.shape[0]  # denominator taps
        self._set_coeffs(num_given, b, den_given, a)
        # State buffer: rows [0, m) hold u_k, u_{k-1}, ... (newest first), rows [m, m+na-1) hold
        # y_{k-1}, y_{k-2}, ... (newest first). self._c holds [b; -a_1..] so that y = Σ_rows c*z / a_0.
        self._z = np.zeros((self._m + self._na - 1, self._n))
        self._work = np.empty_like(self._z)
        self._y = np.zeros(self._n)
        self._init_state(y, None)

    # ------------------------------------------------------------------ coefficients
    def _check_coeffs(self, num: Any, den: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        num_given, b = _as_coeffs(num, self._n, "num")
        den_given, a = _as_coeffs(den, self._n, "den")
        if np.any(a[0] == 0.0):
            raise InvalidValueError("den", "a_0 != 0", den_given.shape, reason="leading coefficient a_0 is 0")
        return num_given, b, den_given, a

    def _set_coeffs(self, num_given: np.ndarray, b: np.ndarray, den_given: np.ndarray, a: np.ndarray) -> None:
        self._num, self._den = num_given, den_given
        self._b, self._a = b, a
        self._c = np.vstack((b, -a[1:]))
        self._a0 = a[0].copy()

    def adjust_coeffs(self, num: Any, den: Any) -> None:
        """Replace the coefficients, keeping the stored past inputs and outputs.

        The number of taps of ``num`` and ``den`` must stay the same (the state has that size); shared
        (1-D) and per-component (2-D) forms may be swapped.

        Raises:
            InvalidValueError: different number of taps, bad shapes or values (the filter is unchanged).
        """
        num_given, b, den_given, a = self._check_coeffs(num, den)
        if b.shape[0] != self._m or a.shape[0] != self._na:
            raise InvalidValueError(
                "num/den",
                f"{self._m} numerator and {self._na} denominator taps",
                f"{b.shape[0]} and {a.shape[0]}",
                reason=(
                    f"the filter has {self._m} numerator and {self._na} denominator taps, "
                    f"got {b.shape[0]} and {a.shape[0]}"
                ),
            )
        self._set_coeffs(num_given, b, den_given, a)

    def get_coeffs(self) -> tuple[np.ndarray, np.ndarray]:
        """Return copies of ``(num, den)`` in the form they were given (1-D shared or 2-D per component)."""
        return self._num.copy(), self._den.copy()

    # ------------------------------------------------------------------ state
    def _init_state(self, y0: np.ndarray, u0: np.ndarray | None) -> None:
        if u0 is None:
            sum_b = self._b.sum(axis=0)
            sum_a = self._a.sum(axis=0)
            dc_zero = np.abs(sum_b) <= _DC_ZERO_RTOL * np.abs(self._b).sum(axis=0)
            safe_b = np.where(dc_zero, 1.0, sum_b)
            u0 = np.where(dc_zero, 0.0, (sum_a / safe_b) * y0)
        self._z[: self._m] = u0
        self._z[self._m :] = y0
        self._y[:] = y0

    def init(self, y0: Any, u0: Any = None) -> None:
        """Reset the filter so that its output is ``y0``.

        Without ``u0``: steady state — every past output := ``y0`` and, per component, every past input
        := (Σa/Σb)·``y0`` when Σb ≠ 0 (Σb = 0 means a zero at DC: past inputs := 0). With ``u0``: past
        inputs := ``u0``, past outputs := ``y0`` (iCub's two-argument ``init``).

        Raises:
            InvalidValueError: wrong size or non-finite values (the filter is unchanged).
        """
        y = as_vector(y0, self._n, "y0")
        u = None if u0 is None else as_vector(u0, self._n, "u0")
        self._init_state(y, u)

    def _step(self, u: np.ndarray) -> np.ndarray:
        """One filter step on a validated input; returns the internal output buffer (do not keep it)."""
        z, m = self._z, self._m
        if m > 1:
            z[1:m] = z[: m - 1]
        z[0] = u
        y = self._y
        np.add.reduce(np.multiply(self._c, z, out=self._work), axis=0, out=y)
        y /= self._a0
        if self._na > 1:
            if self._na > 2:
                z[m + 1 :] = z[m:-1]
            z[m] = y
        return y

    def filt(self, u: Any) -> np.ndarray:
        """Filter one sample ``u`` (length n) and return the new output y_k (a new array).

        Raises:
            InvalidValueError: wrong size or non-finite input (the filter is unchanged).
        """
        return self._step(as_vector(u, self._n, "u")).copy()

    def get_output(self) -> np.ndarray:
        """Return the last output (``y0`` right after :meth:`init`), a new array."""
        return self._y.copy()

    @property
    def dim(self) -> int:
        """Number of components n."""
        return self._n

    # iCub camelCase aliases.
    getOutput = get_output  #: alias of :meth:`get_output`
    adjustCoeffs = adjust_coeffs  #: alias of :meth:`adjust_coeffs`
    getCoeffs = get_coeffs  #: alias of :meth:`get_coeffs`


def _check_ts(Ts: Any) -> float:
    try:
        ts = float(Ts)
    except (TypeError, ValueError):
        raise InvalidValueError(
            "Ts", "a positive finite number", Ts, reason=f"not a number: {Ts!r}"
        ) from None
    if not (math.isfinite(ts) and ts > 0.0):
        raise InvalidValueError(
            "Ts", "a positive finite number", ts, reason=f"must be > 0 and finite, got {ts}"
        )
    return ts


def _as_limits(limits: Any, n: int) -> np.ndarray | None:
    """Validate an (n, 2) array of [lo, hi] rows (±inf allowed, NaN not, lo ≤ hi); None passes through."""
    if limits is None:
        return None
    try:
        lim = np.array(limits, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidValueError("limits", (n, 2), None, reason=f"not numeric ({exc})") from None
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
        ts = _check_ts(Ts)
        y = as_vector(y0, None, "y0")
        if y.size == 0:
            raise InvalidValueError("y0", "(n,) with n >= 1", y.shape)
        lim = _as_limits(limits, y.size)
        self._n = y.size
        self._ts = ts
        self._half_ts = 0.5 * ts
        self._lim = lim
        self._lo = None if lim is None else lim[:, 0].copy()
        self._hi = None if lim is None else lim[:, 1].copy()
        self._y = self._clip(y)
        self._x_old = np.zeros(self._n)

    def _clip(self, y: np.ndarray) -> np.ndarray:
        if self._lo is not None:
            np.maximum(y, self._lo, out=y)
            np.minimum(y, self._hi, out=y)
        return y

    def integrate(self, x: Any) -> np.ndarray:
        """Integrate one input sample ``x`` (length n) and return the new output (a new array).

        Raises:
            InvalidValueError: wrong size or non-finite input (the integrator is unchanged).
        """
        xv = as_vector(x, self._n, "x")
        return self._integrate(xv).copy()

    def _integrate(self, x: np.ndarray) -> np.ndarray:
        """Integrate a validated input; returns the internal output buffer (do not keep it)."""
        y = self._y
        y += self._half_ts * (x + self._x_old)
        self._x_old[:] = x
        return self._clip(y)

    def reset(self, y0: Any) -> None:
        """Set the output to ``clip(y0)`` and the previous input to 0.

        Raises:
            InvalidValueError: wrong size or non-finite ``y0`` (the integrator is unchanged).
        """
        y = as_vector(y0, self._n, "y0")
        self._y = self._clip(y)
        self._x_old[:] = 0.0

    def get(self) -> np.ndarray:
        """Return the current output (a new array)."""
        return self._y.copy()

    def set_ts(self, Ts: float) -> None:
        """Change the sample time [s] (> 0); the state is kept."""
        ts = _check_ts(Ts)
        self._ts = ts
        self._half_ts = 0.5 * ts

    def get_ts(self) -> float:
        """Return the sample time [s]."""
        return self._ts

    def set_lim(self, limits: Any) -> None:
        """Set the ``(n, 2)`` saturation limits (None removes them).

        As in iCub, the current output is not clipped here; the limits apply from the next
        :meth:`integrate` or :meth:`reset`.
        """
        lim = _as_limits(limits, self._n)
        self._lim = lim
        self._lo = None if lim is None else lim[:, 0].copy()
        self._hi = None if lim is None else lim[:, 1].copy()

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
