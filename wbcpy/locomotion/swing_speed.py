"""How fast a re-planned swing may move: the footstep adaptation's speed limit.

Push recovery (:mod:`~wbcpy.locomotion.push_recovery`) moves a swinging
footstep and re-plans the swing's ground-plane path from the foot's measured state: a quintic to the new
footstep over the swing's remaining time T, at rest at touch-down. Late in a swing a large move asks for a
speed the leg cannot follow; the foot then lands moving (it slides, it bounces). :func:`speed_limited`
moves the new footstep back towards the one planned before, just enough that the re-planned path's peak
ground speed stays within the limit (or within the path's to the old footstep, when that is already
faster); the next control steps move it on as far as the time left allows.
"""

from __future__ import annotations

import numpy as np

from .profiles import quintic

#: the largest ground speed of a re-planned swing foot (m/s; Talos's size, scaled as length / time)
SWING_SPEED = 1.2
#: the samples of a path's speed (its peak is taken over them) and the bisection steps of the move
_SAMPLES, _BISECTIONS = 12, 10


def peak_speed(pos: np.ndarray, vel: np.ndarray, acc: np.ndarray, goal: np.ndarray, T: float) -> float:
    """The largest ground speed (m/s) of the quintic from (pos, vel, acc) to (goal, 0, 0) over T (s)."""
    path = quintic(pos, vel, acc, goal, T)
    return max(float(np.linalg.norm(path(T * i / (_SAMPLES - 1))[1])) for i in range(_SAMPLES))


def speed_limited(pos: np.ndarray, vel: np.ndarray, acc: np.ndarray, old: np.ndarray, new: np.ndarray,
                  T: float, limit: float) -> np.ndarray:  # fmt: skip
    """The footstep ``new`` (2,) moved back towards ``old`` (2,) until the re-planned swing from the
    foot's ground-plane position, velocity and acceleration (pos, vel, acc; 2 each) peaks at most at
    ``limit`` m/s, or at the path's to ``old`` when that is faster (a new array)."""
    if peak_speed(pos, vel, acc, new, T) <= limit:
        return np.array(new, dtype=float)
    bound = max(limit, peak_speed(pos, vel, acc, old, T))
    lo, hi = 0.0, 1.0  # (the fraction of the move old → new: lo keeps the bound, hi exceeds it)
    for _ in range(_BISECTIONS):
        mid = 0.5 * (lo + hi)
        if peak_speed(pos, vel, acc, old + mid * (new - old), T) <= bound:
            lo = mid
        else:
            hi = mid
    return np.asarray(old + lo * (new - old), dtype=float)
