"""The joint-limit bounds on q̈ of one joint over one step, written out from the specification
(specs/acceleration-scene.md): the oracle of tests/limits/test_scene_limits.py and
tests/scenes/test_scene_hotpath.py."""

from __future__ import annotations

import math


def _clip(x: float, lo: float, hi: float) -> float:
    return min(max(x, lo), hi)


def joint_bounds(
    q: float, v: float, qmin: float, qmax: float, vmax: float, amax: float, dt: float, braking: bool
) -> tuple[float, float]:
    """Scalar bounds of one joint: acceleration → velocity → position (→ braking), each clipped into the
    interval of the stages before it."""
    lo, hi = -amax, amax
    lo, hi = _clip((-vmax - v) / dt, lo, hi), _clip((vmax - v) / dt, lo, hi)
    lo, hi = (_clip(2 * (qmin - q - v * dt) / dt**2, lo, hi), _clip(2 * (qmax - q - v * dt) / dt**2, lo, hi))
    if braking:

        def v_stop(dist: float) -> float:
            return -amax * dt + math.sqrt(max(amax**2 * dt**2 + 2 * amax * dist, 0.0))

        lo, hi = _clip((-v_stop(q - qmin) - v) / dt, lo, hi), _clip((v_stop(qmax - q) - v) / dt, lo, hi)
    return lo, max(hi, lo)
