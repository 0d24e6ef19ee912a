"""Discrete linear IIR filters (iCub ``ctrlLib`` ``Filter`` semantics).

:class:`Filter` is a per-component direct-form-I IIR filter,

.. math::

    y_k = \\frac{1}{a_0}\\Big(\\sum_{i\\ge 0} b_i\\,u_{k-i} - \\sum_{i\\ge 1} a_i\\,y_{k-i}\\Big),

applied independently (and vectorised) to every component of a vector signal. The coefficients are either
shared by all components (1-D ``num``/``den``) or given per component (2-D, one row per component).

:class:`~wbcpy.ik.integrator.Integrator` (the saturating trapezoidal integrator) lives in
:mod:`wbcpy.ik.integrator` and is re-exported here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._support.exclusive import (
    exclusive,
    exclusive_copy,
    exclusive_deepcopy,
    exclusive_getstate,
    restore_fields,
)
from .._support.validation import as_matrix, as_real_array, as_vector
from ..errors import InvalidValueError

# A sum of numerator coefficients below this fraction of their absolute sum is a zero at DC (rounding only).
_DC_ZERO_RTOL = 64.0 * np.finfo(np.float64).eps


def _as_coeffs(x: Any, n: int, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Validate filter coefficients; return (as given, tap-major (taps, n) copy).

    ``x`` is either a 1-D vector shared by the ``n`` components or an ``(n, taps)`` matrix, one row per
    component.
    """
    arr = as_real_array(x, name, "(taps,) or (n, taps)")
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
        # State buffer, one column per component (newest first): row 0 takes the next input u_{k+1};
        # rows 1 .. m-1 hold u_k .. u_{k-m+2}; rows m .. hold y_k, y_{k-1}, ... (at least one output row,
        # so the last output is part of the state even for an FIR filter).
        self._nh = max(self._na, 2) - 1  # stored past outputs
        self._ext = np.zeros((self._m + self._nh, self._n))
        self._set_coeffs(num_given, b, den_given, a)
        self._init_state(y, None)
        self._idle: list[None] = [None]  # one thread at a time (wbcpy._support.exclusive)

    __copy__ = exclusive_copy
    __deepcopy__ = exclusive_deepcopy
    __getstate__ = exclusive_getstate
    __setstate__ = restore_fields

    # ------------------------------------------------------------------ coefficients
    def _check_coeffs(self, num: Any, den: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        num_given, b = _as_coeffs(num, self._n, "num")
        den_given, a = _as_coeffs(den, self._n, "den")
        if np.any(a[0] == 0.0):
            raise InvalidValueError("den", "a_0 != 0", den_given.shape, reason="leading coefficient a_0 is 0")
        return num_given, b, den_given, a

    def _set_coeffs(self, num_given: np.ndarray, b: np.ndarray, den_given: np.ndarray, a: np.ndarray) -> None:
        """Store the coefficients and build the one-step transition of the state buffer.

        One step maps the buffer ``ext`` (input in row 0) to its next rows 1.. as ``P @ ext``: row m−1 of
        the product is y_{k+1} = Σ (b_i/a_0) u_{k+1−i} − Σ (a_i/a_0) y_{k+1−i}, the other rows shift the
        past values by one. With per-component coefficients P only shifts and the output row is
        computed from ``self._cy`` (one column per component).
        """
        m, rows = self._m, self._ext.shape[0]
        coeffs = np.zeros((rows, self._n))  # output row of P, per component
        coeffs[:m] = b
        coeffs[m : m + self._na - 1] = -a[1:]
        coeffs /= a[0]
        P = np.eye(rows - 1, rows)  # new row r+1 = old row r (the oldest input and output drop out) ...
        P[m - 1] = 0.0  # ... except the output row
        shared = bool((coeffs == coeffs[:, :1]).all())
        if shared:
            P[m - 1] = coeffs[:, 0]
        self._num, self._den = num_given, den_given
        self._b, self._a = b, a
        self._P = P
        self._cy = None if shared else coeffs
        self._work = None if shared else np.empty_like(coeffs)

    @exclusive
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

    @exclusive
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
        ext, m = self._ext, self._m
        ext[1:m] = u0
        ext[m:] = y0

    @exclusive
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

    def step_unchecked(self, u: np.ndarray) -> np.ndarray:
        """Filter one sample without validating it (the hot path of controllers).

        Same result as :meth:`filt`, but ``u`` is trusted: it must be a finite float64 array of shape
        ``(n,)`` (anything else gives wrong results or a numpy error, possibly after the state moved).
        Costs one small matrix product plus two row copies.

        Returns:
            y_k, a new array (a view of a fresh buffer the filter never writes again).
        """
        ext = self._ext
        ext[0] = u
        nxt: np.ndarray = self._P.dot(ext)
        cy = self._cy
        if cy is not None:  # per-component coefficients: the output row on its own
            np.add.reduce(np.multiply(cy, ext, out=self._work), axis=0, out=nxt[self._m - 1])
        ext[1:] = nxt
        out: np.ndarray = nxt[self._m - 1]
        return out

    @exclusive
    def filt(self, u: Any) -> np.ndarray:
        """Filter one sample ``u`` (length n) and return the new output y_k (a new array).

        Raises:
            InvalidValueError: wrong size or non-finite input (the filter is unchanged).
        """
        return self.step_unchecked(as_vector(u, self._n, "u")).copy()

    @exclusive
    def get_output(self) -> np.ndarray:
        """Return the last output (``y0`` right after :meth:`init`), a new array."""
        return self._ext[self._m].copy()

    @exclusive
    def get_state(self) -> np.ndarray:
        """The stored past inputs and outputs, a new ``(m − 1 + h, n)`` array (one column per component).

        Rows, newest first: the last m − 1 inputs u_k, …, u_{k−m+2}, then the last h = max(n_a − 1, 1)
        outputs y_k, y_{k−1}, … (m numerator and n_a denominator taps). Together with the coefficients this
        is everything the next output depends on; :meth:`set_state` puts it back.
        """
        return self._ext[1:].copy()

    @exclusive
    def set_state(self, state: Any) -> None:
        """Overwrite the stored past inputs and outputs with ``state`` (the layout of :meth:`get_state`).

        Raises:
            InvalidValueError: wrong shape or non-finite values (the filter is unchanged).
        """
        self._ext[1:] = as_matrix(state, self._ext[1:].shape, "state")

    @property
    def dim(self) -> int:
        """Number of components n."""
        return self._n

    # iCub camelCase aliases.
    getOutput = get_output  #: alias of :meth:`get_output`
    adjustCoeffs = adjust_coeffs  #: alias of :meth:`adjust_coeffs`
    getCoeffs = get_coeffs  #: alias of :meth:`get_coeffs`
