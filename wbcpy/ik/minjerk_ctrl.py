"""Minimum-jerk velocity controllers (iCub ``ctrlLib`` ``minJerkVelCtrlFor{Ideal,NonIdeal}Plant``).

The min-jerk profile is approximated by the third-order LTI system with a triple real pole,

.. math::

    H(s) = \\frac{p^3}{(s + p)^3}, \\qquad p = \\bar p / T,

with T the execution time [s] and :math:`\\bar p \\approx 5.3223204` the root of
:math:`e^{-\\bar p}(1 + \\bar p + \\bar p^2/2) = 0.1`, so the step response reaches 90 % at t = T (and
≈ 98.6 % at 1.5 T). Writing :math:`(s+p)^3 = s^3 - c s^2 - b s - a` gives

.. math::

    a = -\\alpha/T^3,\\quad b = -\\beta/T^2,\\quad c = -\\kappa/T,\\qquad
    \\alpha = \\bar p^3,\\ \\beta = 3\\bar p^2,\\ \\kappa = 3\\bar p .

A velocity controller C(s) closes this loop around a velocity-controlled plant P(s) when
C(s)P(s) = H(s)/(1 − H(s)) = p³/(s(s² + 3ps + 3p²)). For the ideal plant P = 1/s this is
C(s) = −a/(s² − cs − b); for the non-ideal plant P(s) = (K_p/s)(1 + T_z s)/(1 + 2ζT_w s + T_w² s²) the
controller also cancels the non-integrator part. Both are discretised with the bilinear (Tustin) rule
:math:`s = k(z-1)/(z+1)`, k = 2/T_s, no pre-warping.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .._support.exclusive import (
    exclusive,
    exclusive_copy,
    exclusive_deepcopy,
    exclusive_getstate,
    restore_fields,
)
from .._support.validation import as_float, as_int, as_vector
from ..errors import ConfigError, ConfigKeyError, InvalidValueError
from .filters import Filter
from .integrator import check_time

ALPHA: float = 150.765868956161
"""α = p̄³: constant term of (s + p̄)³ for T = 1 s; a = −α/T³ [1/s³]."""
BETA: float = 84.9812819469538
"""β = 3p̄²: coefficient of s in (s + p̄)³ for T = 1 s; b = −β/T² [1/s²]."""
KAPPA: float = 15.9669610709384
"""κ = 3p̄: coefficient of s² in (s + p̄)³ for T = 1 s; c = −κ/T [1/s]. p̄ = κ/3 ≈ 5.3223204."""

PLANT_PARAMETER_DEFAULTS: dict[str, float] = {"Kp": 1.0, "Tz": 0.0, "Tw": 0.0, "Zeta": 0.0}
"""Plant parameters of the non-ideal controller when not given (they reduce it to the ideal one)."""


def minjerk_abc(T: float) -> tuple[float, float, float]:
    """Return (a, b, c) = (−α/T³, −β/T², −κ/T) for execution time T [s], so (s+p)³ = s³ − cs² − bs − a."""
    return -ALPHA / T**3, -BETA / T**2, -KAPPA / T


def check_exec_time(T: Any) -> float:
    """An execution time in [TIME_MIN, TIME_MAX] seconds (see :mod:`wbcpy.ik.integrator`)."""
    return check_time(T, "T")


def _check_dim(dim: Any) -> int:
    return as_int(dim, "dim", minimum=1, maximum=1 << 20)


def _tustin_basis(order: int, Ts: float) -> np.ndarray:
    """Matrix M with M[i] = z-coefficients (highest power first) of k^i (z−1)^i (z+1)^(N−i), k = 2/Ts.

    Substituting s = k(z−1)/(z+1) into Σ_i c_i s^i and multiplying by (z+1)^N gives Σ_i c_i M[i], so a
    row vector of continuous coefficients in *ascending* powers of s maps to z via ``c @ M``.
    """
    k = 2.0 / Ts
    basis = np.empty((order + 1, order + 1))
    for i in range(order + 1):
        poly = np.array([1.0])
        for _ in range(i):
            poly = np.convolve(poly, [1.0, -1.0])
        for _ in range(order - i):
            poly = np.convolve(poly, [1.0, 1.0])
        basis[i] = k**i * poly
    return basis


def _tustin(num_s: np.ndarray, den_s: np.ndarray, basis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bilinear transform of continuous transfer functions (rows), normalised so that a_0 = 1.

    Args:
        num_s, den_s: ``(rows, N+1)`` coefficients in descending powers of s (zero-padded to order N).
        basis: :func:`_tustin_basis` of order N for the sample time.

    Returns:
        ``(num_z, den_z)``, each ``(rows, N+1)`` in descending powers of z (coefficients of z^{-i}).
    """
    num_z = num_s[:, ::-1] @ basis
    den_z = den_s[:, ::-1] @ basis
    a0 = den_z[:, :1].copy()
    return num_z / a0, den_z / a0


class _MinJerkVelCtrl:
    """Common state of the min-jerk velocity controllers: Ts, dim, T and one :class:`Filter`."""

    _filter: Filter

    def __init__(self, Ts: float, dim: int) -> None:
        self._ts = check_time(Ts)
        self._dim = _check_dim(dim)
        self._T = 1.0
        self._idle: list[None] = [None]  # one thread at a time (wbcpy._support.exclusive)

    __copy__ = exclusive_copy
    __deepcopy__ = exclusive_deepcopy
    __getstate__ = exclusive_getstate
    __setstate__ = restore_fields

    def _coeffs(self, T: float) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - abstract
        raise NotImplementedError

    @exclusive
    def compute_cmd(self, T: float, e: Any) -> np.ndarray:
        """Return the velocity command for the error ``e`` (length dim) with execution time ``T`` [s].

        When T differs from the stored one the coefficients are recomputed and the filter state (past
        errors and commands) is kept. T is used as given (no clamping).

        Raises:
            InvalidValueError: T ≤ 0 or non-finite, ``e`` of wrong size or non-finite (nothing changes).
        """
        t = check_exec_time(T)
        ev = as_vector(e, self._dim, "e")
        if t != self._T:
            num, den = self._coeffs(t)
            self._filter.adjust_coeffs(num, den)
            self._T = t
        return self._filter.step_unchecked(ev).copy()

    def step_unchecked(self, e: np.ndarray) -> np.ndarray:
        """One command at the current T (:meth:`get_T`) without validating ``e`` (hot path).

        ``e`` must be a finite float64 array of shape ``(dim,)``; the coefficients are not recomputed (call
        :meth:`compute_cmd` when T changes). Returns a new array. Controllers that step every sample can
        bind ``ctrl.filter.step_unchecked`` directly to save this call layer.
        """
        return self._filter.step_unchecked(e)

    @property
    def filter(self) -> Filter:
        """The underlying :class:`Filter` (do not change its coefficients: they belong to T)."""
        return self._filter

    @exclusive
    def reset(self, u0: Any) -> None:
        """Reset the filter to the steady state with output (velocity command) ``u0`` (length dim)."""
        self._filter.init(as_vector(u0, self._dim, "u0"))

    @exclusive
    def get_T(self) -> float:
        """Return the execution time T [s] of the current coefficients (1.0 until changed)."""
        return self._T

    @exclusive
    def get_coeffs(self) -> tuple[np.ndarray, np.ndarray]:
        """Return copies of the filter's ``(num, den)`` for the current T (z^{-i} coefficients)."""
        return self._filter.get_coeffs()

    @property
    def Ts(self) -> float:
        """Sample time [s]."""
        return self._ts

    @property
    def dim(self) -> int:
        """Number of controlled components."""
        return self._dim

    # iCub camelCase aliases.
    computeCmd = compute_cmd  #: alias of :meth:`compute_cmd`
    getT = get_T  #: alias of :meth:`get_T`


class MinJerkVelCtrlForIdealPlant(_MinJerkVelCtrl):
    """Min-jerk velocity controller for the ideal plant 1/s (one second-order filter per component).

    Continuous controller :math:`C(s) = -a/(s^2 - cs - b) = p^3/(s^2 + 3ps + 3p^2)`, so that C(s)/s closes
    to p³/(s+p)³. Tustin with k = 2/Ts and :math:`c_1 = k(k - c) - b`:

    .. math::

        b_z = -\\frac{a}{c_1}[1, 2, 1],\\qquad
        a_z = \\Big[1,\\ -\\frac{2(k^2 + b)}{c_1},\\ \\frac{k(k + c) - b}{c_1}\\Big].

    DC gain 1.77411/T [1/s]; no integrator inside, so it cannot wind up.

    Args:
        Ts: sample time [s], > 0.
        dim: number of components, ≥ 1. The filter starts at zero state with T = 1 s.
    """

    def __init__(self, Ts: float, dim: int) -> None:
        super().__init__(Ts, dim)
        num, den = self._coeffs(self._T)
        self._filter = Filter(num, den, np.zeros(self._dim))

    def _coeffs(self, T: float) -> tuple[np.ndarray, np.ndarray]:
        a, b, c = minjerk_abc(T)
        k = 2.0 / self._ts
        c1 = k * (k - c) - b
        g = -a / c1
        num = np.array([g, 2.0 * g, g])
        den = np.array([1.0, -2.0 * (k * k + b) / c1, (k * (k + c) - b) / c1])
        return num, den


def _dimension_entries(params: Any, dim: int) -> list[tuple[int, str, Any]]:
    """``(i, "dimension_i", entry)`` of the plant parameters given as a mapping or as a list of ``dim``."""
    dim_names = [f"dimension_{i}" for i in range(dim)]
    if isinstance(params, Mapping):
        items: list[tuple[int, str, Any]] = []
        for name, entry in params.items():
            if name not in dim_names:
                raise ConfigKeyError("plant parameters", "dimension", name, dim_names)
            items.append((dim_names.index(name), str(name), entry))
        return items
    if isinstance(params, Sequence) and not isinstance(params, (str, bytes)):
        if len(params) != dim:
            raise ConfigError(
                "plant parameters",
                f"a list needs one entry per dimension ({dim}), got {len(params)}",
            )
        return [(i, f"dimension_{i}", entry) for i, entry in enumerate(params)]
    raise ConfigError(
        "plant parameters",
        f'expected a mapping {{"dimension_i": {{...}}}} or a list of dicts, got {type(params).__name__}',
    )


def _apply_plant_entry(new: dict[str, np.ndarray], i: int, name: str, entry: Any) -> None:
    """Write the Kp/Tz/Tw/Zeta values of dimension ``i`` into ``new`` and check Tz ≥ 0, Kp ≠ 0."""
    if not isinstance(entry, Mapping):
        raise ConfigError(name, f"expected a mapping of Kp/Tz/Tw/Zeta, got {type(entry).__name__}")
    for key, raw in entry.items():
        if key not in PLANT_PARAMETER_DEFAULTS:
            raise ConfigKeyError(name, "plant parameter", key, list(PLANT_PARAMETER_DEFAULTS))
        try:
            val = as_float(raw, f"{name}.{key}")
        except InvalidValueError as exc:
            raise ConfigError(f"{name}.{key}", exc.reason or str(exc)) from None
        new[key][i] = val
    if new["Tz"][i] < 0.0:
        raise ConfigError(
            f"{name}.Tz", f"must be >= 0 (Tz < 0 makes the filter unstable), got {new['Tz'][i]}"
        )
    if new["Kp"][i] == 0.0:
        raise ConfigError(f"{name}.Kp", "must be non-zero (the controller divides by Kp)")


class MinJerkVelCtrlForNonIdealPlant(_MinJerkVelCtrl):
    """Min-jerk velocity controller that compensates a non-ideal plant (one third-order filter per component).

    Plant of component i: :math:`P_i(s) = \\frac{K_p}{s}\\,\\frac{1 + T_z s}{1 + 2\\zeta T_w s + T_w^2 s^2}`.
    The controller is the ideal one times the inverse of the non-integrator part,

    .. math::

        C_i(s) = \\frac{-a\\,(T_w^2 s^2 + 2\\zeta T_w s + 1)}{K_p\\,(T_z s + 1)(s^2 - cs - b)},

    so that C_i P_i again closes to p³/(s+p)³. It is discretised with Tustin (k = 2/Ts) into a third-order
    filter with per-component coefficients, normalised so a_0 = 1. The defaults Kp = 1, Tz = Tw = ζ = 0 give
    the ideal controller (a pole and a zero cancel at z = −1; the filter stays third order).

    Args:
        Ts: sample time [s], > 0.
        dim: number of components, ≥ 1. The filter starts at zero state with T = 1 s and default parameters.
    """

    def __init__(self, Ts: float, dim: int) -> None:
        super().__init__(Ts, dim)
        self._basis = _tustin_basis(3, self._ts)
        self._params = {key: np.full(self._dim, val) for key, val in PLANT_PARAMETER_DEFAULTS.items()}
        num, den = self._coeffs(self._T)
        self._filter = Filter(num, den, np.zeros(self._dim))

    def _coeffs_for(self, T: float, params: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        a, b, c = minjerk_abc(T)
        kp, tz, tw, zeta = params["Kp"], params["Tz"], params["Tw"], params["Zeta"]
        zero = np.zeros(self._dim)
        num_s = np.column_stack((zero, -a * tw * tw, -2.0 * a * zeta * tw, np.full(self._dim, -a)))
        den_s = kp[:, None] * np.column_stack((tz, 1.0 - c * tz, -c - b * tz, np.full(self._dim, -b)))
        return _tustin(num_s, den_s, self._basis)

    def _coeffs(self, T: float) -> tuple[np.ndarray, np.ndarray]:
        return self._coeffs_for(T, self._params)

    def _parse_parameters(self, params: Any) -> dict[str, np.ndarray]:
        """Validate ``params`` fully and return the new per-dimension parameter arrays."""
        new = {key: np.full(self._dim, val) for key, val in PLANT_PARAMETER_DEFAULTS.items()}
        for i, name, entry in _dimension_entries(params, self._dim):
            _apply_plant_entry(new, i, name, entry)
        return new

    @exclusive
    def set_plant_parameters(
        self, params: Mapping[str, Mapping[str, float]] | Sequence[Mapping[str, float]]
    ) -> None:
        """Set the plant parameters (Kp, Tz, Tw, Zeta) per dimension and recompute the coefficients.

        Every call starts from the defaults (Kp = 1, Tz = Tw = ζ = 0) and applies the keys given; the filter
        state is kept.

        Args:
            params: ``{"dimension_i": {"Kp": ..., "Tz": ..., "Tw": ..., "Zeta": ...}}`` (i from 0; missing
                dimensions and keys keep the defaults) or a list with one such dict per dimension.

        Raises:
            ConfigKeyError: unknown dimension name or parameter key (lists the valid ones).
            ConfigError: Tz < 0, Kp = 0, a non-finite value, a list of the wrong length, a bad type.
            The controller is unchanged after any error.
        """
        new = self._parse_parameters(params)
        num, den = self._coeffs_for(self._T, new)
        self._filter.adjust_coeffs(num, den)
        self._params = new

    @exclusive
    def get_plant_parameters(self) -> dict[str, dict[str, float]]:
        """Return ``{"dimension_i": {"Kp", "Tz", "Tw", "Zeta"}}`` for every dimension (a valid set input)."""
        return {
            f"dimension_{i}": {key: float(vals[i]) for key, vals in self._params.items()}
            for i in range(self._dim)
        }

    # iCub camelCase aliases.
    setPlantParameters = set_plant_parameters  #: alias of :meth:`set_plant_parameters`
    getPlantParameters = get_plant_parameters  #: alias of :meth:`get_plant_parameters`
