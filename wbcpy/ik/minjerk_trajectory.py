"""Minimum-jerk reference generator: position, velocity and acceleration from a triple-pole model.

The generator is the same LTI min-jerk approximation as the velocity controllers,
:math:`X(s)/U(s) = p^3/(s + p)^3` with :math:`p = \\bar p/T` (90 % of a step at t = T), written per
component as the third-order system

.. math::

    \\dddot x = -p^3 x - 3p^2 \\dot x - 3p\\,\\ddot x + p^3 u,
    \\qquad \\xi = (x, \\dot x, \\ddot x),\\quad \\dot\\xi = A\\xi + Bu,

and discretised *exactly* for an input held over each sample (zero-order hold):
:math:`\\xi_{k+1} = e^{AT_s}\\xi_k + \\big(\\int_0^{T_s} e^{A\\tau}d\\tau\\big)B\\,u_k`.
A constant target therefore gives samples of the continuous step response
:math:`1 - e^{-pt}(1 + pt + (pt)^2/2)`, with consistent velocity and acceleration — smooth references for
an acceleration-level controller (e.g. ``AccelerationScene``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.linalg import expm

from .._support.exclusive import (
    exclusive,
    exclusive_copy,
    exclusive_deepcopy,
    exclusive_getstate,
    restore_fields,
)
from .._support.validation import as_vector
from ..errors import InvalidValueError
from .integrator import check_time
from .minjerk_ctrl import ALPHA, BETA, KAPPA, check_exec_time


def _zoh_matrices(T: float, Ts: float) -> tuple[np.ndarray, np.ndarray]:
    """Exact ZOH discretisation (Ad 3×3, Bd 3) of p³/(s+p)³, (s+p)³ = s³ + (κ/T)s² + (β/T²)s + α/T³."""
    a0, a1, a2 = ALPHA / T**3, BETA / T**2, KAPPA / T
    # Augmented matrix [[A, B], [0, 0]] · Ts; its exponential holds [[Ad, Bd], [0, 1]].
    m = np.zeros((4, 4))
    m[0, 1] = m[1, 2] = 1.0
    m[2, :3] = (-a0, -a1, -a2)
    m[2, 3] = a0
    e = expm(m * Ts)
    return np.ascontiguousarray(e[:3, :3]), e[:3, 3].copy()


class MinJerkTrajectory:
    """Min-jerk reference generator (vectorised over components), cf. iCub ``minJerkTrajGen``.

    Each :meth:`step` holds the target over one sample and returns the position, velocity and acceleration
    at the end of it. Changing T keeps the current (pos, vel, acc), so retargeting and retiming are smooth.

    Args:
        Ts: sample time [s], > 0.
        x0: initial position (length n ≥ 1); velocity and acceleration start at 0.
        T: execution time [s], > 0 (90 % of a step after T, ≈ 98.6 % after 1.5 T).

    Raises:
        InvalidValueError: non-positive Ts or T, empty or non-finite x0.
    """

    def __init__(self, Ts: float, x0: Any, T: float = 1.0) -> None:
        ts = check_time(Ts)
        t = check_exec_time(T)
        x = as_vector(x0, None, "x0")
        if x.size == 0:
            raise InvalidValueError("x0", "(n,) with n >= 1", x.shape)
        self._ts, self._T, self._n = ts, t, x.size
        self._ad, self._bd = _zoh_matrices(t, ts)
        self._xi = np.zeros((3, self._n))
        self._xi[0] = x
        self._tmp = np.empty((3, self._n))
        self._idle: list[None] = [None]  # one thread at a time (wbcpy._support.exclusive)

    __copy__ = exclusive_copy
    __deepcopy__ = exclusive_deepcopy
    __getstate__ = exclusive_getstate
    __setstate__ = restore_fields

    def _vec_or_scalar(self, v: Any, name: str) -> np.ndarray:
        if np.ndim(v) == 0:
            return as_vector(np.full(self._n, v, dtype=np.float64), self._n, name)
        return as_vector(v, self._n, name)

    @exclusive
    def reset(self, position: Any, velocity: Any = 0.0, acceleration: Any = 0.0) -> None:
        """Set the state; ``velocity`` and ``acceleration`` may be scalars (broadcast) or length-n vectors.

        Raises:
            InvalidValueError: wrong size or non-finite values (the generator is unchanged).
        """
        pos = as_vector(position, self._n, "position")
        vel = self._vec_or_scalar(velocity, "velocity")
        acc = self._vec_or_scalar(acceleration, "acceleration")
        self._xi[0], self._xi[1], self._xi[2] = pos, vel, acc

    @exclusive
    def step(self, target: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Advance one sample towards ``target`` (length n) and return new arrays (pos, vel, acc).

        Raises:
            InvalidValueError: wrong size or non-finite target (the generator is unchanged).
        """
        u = as_vector(target, self._n, "target")
        np.matmul(self._ad, self._xi, out=self._tmp)
        self._tmp += self._bd[:, None] * u
        self._xi, self._tmp = self._tmp, self._xi
        return self._xi[0].copy(), self._xi[1].copy(), self._xi[2].copy()

    @exclusive
    def set_exec_time(self, T: float) -> None:
        """Change the execution time T [s] (> 0), keeping the current position, velocity and acceleration."""
        t = check_exec_time(T)
        self._ad, self._bd = _zoh_matrices(t, self._ts)
        self._T = t

    @exclusive
    def get_T(self) -> float:
        """Return the execution time T [s]."""
        return self._T

    @exclusive
    def get_pos(self) -> np.ndarray:
        """Return the current position (a new array)."""
        pos: np.ndarray = self._xi[0].copy()
        return pos

    @exclusive
    def get_vel(self) -> np.ndarray:
        """Return the current velocity (a new array)."""
        vel: np.ndarray = self._xi[1].copy()
        return vel

    @exclusive
    def get_acc(self) -> np.ndarray:
        """Return the current acceleration (a new array)."""
        acc: np.ndarray = self._xi[2].copy()
        return acc

    @property
    def Ts(self) -> float:
        """Sample time [s]."""
        return self._ts

    @property
    def dim(self) -> int:
        """Number of components n."""
        return self._n

    # iCub-style camelCase aliases (minJerkTrajGen).
    init = reset  #: alias of :meth:`reset`
    computeNextValues = step  #: alias of :meth:`step` (returns the tuple)
    setT = set_exec_time  #: alias of :meth:`set_exec_time`
    getT = get_T  #: alias of :meth:`get_T`
    getPos = get_pos  #: alias of :meth:`get_pos`
    getVel = get_vel  #: alias of :meth:`get_vel`
    getAcc = get_acc  #: alias of :meth:`get_acc`
