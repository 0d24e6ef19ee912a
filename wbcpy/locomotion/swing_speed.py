"""How fast a re-planned swing may move: the footstep adaptation's speed limit.

Push recovery (:mod:`~wbcpy.locomotion.push_recovery`) moves a swinging
footstep and re-plans the swing's ground-plane path from the foot's measured state: a quintic to the new
footstep over the swing's remaining time T, at rest at touch-down. Late in a swing a large move asks for a
speed or an acceleration the leg cannot follow; the foot then lags its path and lands moving (it slides,
it bounces) or short of it. :func:`speed_limited` moves the new footstep back towards the one planned
before, just enough that the re-planned path's peak ground speed and acceleration stay within the limits
(or within the path's to the old footstep, when that is already faster); the next control steps move it
on as far as the time left allows.
"""

from __future__ import annotations

import math

import numpy as np

from .profiles import quintic

#: the largest ground speed of a re-planned swing foot (m/s; Talos's size, scaled as length / time)
SWING_SPEED = 1.2
#: the largest ground acceleration of a re-planned swing foot (m/s²; the same at every size: a length over
#: a time squared scales as s / s = 1): about the peak acceleration 10/√3 · d/T² of the quintic that
#: carries a foot at rest, at Talos's speed limit, over the adaptation's last 0.2 s (d = 8/15 · 1.2 m/s
#: · 0.2 s); what the hips of the smaller humanoids (Romeo's: 46.6 N·m) give a swinging leg
SWING_ACCEL = 20.0
#: the samples of a path's speed (its peak is taken over them) and the bisection steps of the move
_SAMPLES, _BISECTIONS = 12, 10
_FRACTIONS = np.linspace(0.0, 1.0, _SAMPLES)


def peak_speed(pos: np.ndarray, vel: np.ndarray, acc: np.ndarray, goal: np.ndarray, T: float) -> float:
    """The largest ground speed (m/s) of the quintic from (pos, vel, acc) to (goal, 0, 0) over T (s)."""
    return _peaks(pos, vel, acc, goal, T)[0]


def _peaks(pos: np.ndarray, vel: np.ndarray, acc: np.ndarray, goal: np.ndarray, T: float
           ) -> tuple[float, float]:  # fmt: skip
    """The largest ground speed (m/s) and acceleration (m/s²) of the quintic from (pos, vel, acc) to
    (goal, 0, 0) over T (s), over :data:`_SAMPLES` samples (the path's polynomials at once)."""
    _, speed, accel = quintic(pos, vel, acc, goal, T).samples(_FRACTIONS * T)
    peak_v, peak_a = (float(np.sqrt((x * x).sum(axis=1)).max()) for x in (speed, accel))
    return peak_v, peak_a


def speed_limited(pos: np.ndarray, vel: np.ndarray, acc: np.ndarray, old: np.ndarray, new: np.ndarray,
                  T: float, limit: float, accel: float = math.inf) -> np.ndarray:  # fmt: skip
    """The footstep ``new`` (2,) moved back towards ``old`` (2,) until the re-planned swing from the
    foot's ground-plane position, velocity and acceleration (pos, vel, acc; 2 each) peaks at most at
    ``limit`` m/s (and ``accel`` m/s²), or at the path's to ``old`` when that is faster (a new array)."""
    v_new, a_new = _peaks(pos, vel, acc, new, T)
    if v_new <= limit and a_new <= accel:
        return np.array(new, dtype=float)
    v_old, a_old = _peaks(pos, vel, acc, old, T)
    bound_v, bound_a = max(limit, v_old), max(accel, a_old)
    lo, hi = 0.0, 1.0  # (the fraction of the move old → new: lo keeps the bounds, hi exceeds one)
    for _ in range(_BISECTIONS):
        mid = 0.5 * (lo + hi)
        v, a = _peaks(pos, vel, acc, old + mid * (new - old), T)
        if v <= bound_v and a <= bound_a:
            lo = mid
        else:
            hi = mid
    return np.asarray(old + lo * (new - old), dtype=float)
