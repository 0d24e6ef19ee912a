"""Time profiles of the walking pattern: the minimum-jerk blend, the swing-height bump and the quintic that
re-plans a swing from the foot's measured state.

Each is a plain function of time or a small picklable object (no closures), so that a pattern or a
controller holding one copies and pickles like any other value.
"""

from __future__ import annotations

import numpy as np


def min_jerk(s: float) -> tuple[float, float, float]:
    """Minimum-jerk blend of s ∈ [0, 1] (clamped): value, d/ds, d²/ds²."""
    s = min(max(s, 0.0), 1.0)
    s2 = s * s  # (Horner forms of 10s³ − 15s⁴ + 6s⁵ and its derivatives: exact 0 and 1 at the ends)
    return (
        s2 * s * (10.0 + s * (6.0 * s - 15.0)),
        s2 * (30.0 + s * (30.0 * s - 60.0)),
        s * (60.0 + s * (120.0 * s - 180.0)),
    )


def bump(s: float) -> tuple[float, float, float]:
    """64 s³(1 − s)³ of s ∈ [0, 1] (clamped; 1 at s = ½): value, d/ds, d²/ds²."""
    s = min(max(s, 0.0), 1.0)
    u = s * (1.0 - s)
    du, ddu = 1.0 - 2.0 * s, -2.0
    return 64 * u**3, 192 * u**2 * du, 64 * (6 * u * du**2 + 3 * u**2 * ddu)


class Quintic:
    """The quintic from (p0, v0, a0) at time 0 to (p1, 0, 0) at time T > 0 (per axis):

        p(t) = p0 + v0 t + ½ a0 t² + c3 t³ + c4 t⁴ + c5 t⁵,

    with c3, c4, c5 solving the end conditions p(T) = p1, ṗ(T) = 0, p̈(T) = 0. Calling it with
    t ∈ [0, T] (clamped) gives position, velocity and acceleration (new arrays). Plain attributes: copies
    and pickles are independent equal paths.

    Attributes:
        p0, v0, a0: the start (arrays, copied). T: the duration (s). coefficients: (c3, c4, c5).
    """

    def __init__(self, p0: np.ndarray, v0: np.ndarray, a0: np.ndarray, p1: np.ndarray, T: float) -> None:
        self.p0, self.v0, self.a0 = (np.array(x, dtype=float) for x in (p0, v0, a0))
        self.T = float(T)
        d = np.asarray(p1, dtype=float) - self.p0 - self.v0 * T - 0.5 * self.a0 * T**2
        A = np.array([[T**3, T**4, T**5], [3 * T**2, 4 * T**3, 5 * T**4], [6 * T, 12 * T**2, 20 * T**3]])
        rhs = np.stack((d, -self.v0 - self.a0 * T, -self.a0))
        c3, c4, c5 = np.linalg.solve(A, rhs)
        self.coefficients = (c3, c4, c5)

    def __call__(self, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self._evaluate(min(max(t, 0.0), self.T))

    def samples(self, times: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Position, velocity and acceleration at each of ``times`` (s, clamped to [0, T]): arrays of
        shape (len(times), dim), row k at times[k]."""
        return self._evaluate(np.clip(np.asarray(times, dtype=float), 0.0, self.T)[:, None])

    def _evaluate(self, t: float | np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """p, ṗ, p̈ at t (a float, or a column of times broadcast against the axes), in Horner form."""
        p0, v0, a0 = self.p0, self.v0, self.a0
        c3, c4, c5 = self.coefficients
        pos = p0 + t * (v0 + t * (0.5 * a0 + t * (c3 + t * (c4 + t * c5))))
        vel = v0 + t * (a0 + t * (3 * c3 + t * (4 * c4 + t * (5 * c5))))
        acc = a0 + t * (6 * c3 + t * (12 * c4 + t * (20 * c5)))
        return pos, vel, acc


def quintic(p0: np.ndarray, v0: np.ndarray, a0: np.ndarray, p1: np.ndarray, T: float) -> Quintic:
    """The :class:`Quintic` from (p0, v0, a0) at time 0 to (p1, 0, 0) at time T (per axis): a callable of
    t ∈ [0, T] (clamped) giving position, velocity and acceleration."""
    return Quintic(p0, v0, a0, p1, T)
