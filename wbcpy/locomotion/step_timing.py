"""Step-timing adaptation: when a pushed swing lands, chosen jointly with where.

In single support the stance ZMP ζ is fixed and the DCM ξ = x + ẋ/ω obeys ξ̇ = ω (ξ − ζ): from the
measured ξ, a touch-down after T seconds finds it at

    ξ_td(T) = ζ + (ξ − ζ) e^{ωT},

and the footstep that keeps the plan's DCM offset at touch-down b = ξ_nom,td − u_nom (the walk then goes
on as planned from there) is u(T) = ξ_td(T) − b. The swing can only go so far in T: the reach box and
the swing's speed and acceleration limits (``place``) give the footstep u_a(T) it reaches, and the DCM
then lands ‖u(T) − u_a(T)‖ away from where the plan wants it. Late in a swing, a push makes u(T) grow
faster with T than the leg can follow; landing earlier, at a smaller capture step the leg can make, then
does better than landing on time beyond reach (Khadiv, Herzog, Moosavian, Righetti, "Step timing
adjustment: a step toward generating robust gaits", Humanoids 2016). :func:`touchdown_choice` takes,
among candidate swing times, the latest one whose remainder is within :data:`TIMING_TOLERANCE` of the
least (the plan's timing whenever it does as well).

In a double support the ZMP moves linearly from the old stance sole a to the new one b and the plan's DCM
is the LIPM's bounded solution, fixed at the double support's end: the longer the double support, the
less far along a → b the plan's DCM starts it (:func:`transfer_progress`). At a touch-down the double
support whose plan starts where the measured DCM is (:func:`double_support_time`) lets the DCM be moved
over with both feet loaded when it lags — and the ZMP reach the new foot sooner when it leads.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

#: the remainder (m, Talos's size; scaled by the robot's) within which a later touch-down is preferred to
#: an earlier one
TIMING_TOLERANCE = 0.005


def capture_step(w: float, xi: np.ndarray, zeta: np.ndarray, offset: np.ndarray, T: float) -> np.ndarray:
    """The footstep u(T) = ζ + (ξ − ζ) e^{ωT} − b (m, (2,)) that finds the DCM ``offset`` b from the foot
    at a touch-down T seconds from now (ω = ``w``, 1/s; ξ the DCM, ζ the stance ZMP, world, m)."""
    return np.asarray(zeta + (xi - zeta) * math.exp(w * T) - offset, dtype=float)


def touchdown_choice(w: float, xi: np.ndarray, zeta: np.ndarray, offset: np.ndarray, times: Sequence[float],
                     place: Callable[[float, np.ndarray], np.ndarray], tolerance: float = TIMING_TOLERANCE
                     ) -> tuple[float, np.ndarray, float]:  # fmt: skip
    """The swing time T among ``times`` (s, increasing; the last one the plan's) and its footstep: the
    latest T whose remainder ‖u(T) − place(T, u(T))‖ (u from :func:`capture_step`; ``place`` gives the
    footstep the swing reaches in T towards the one asked) is within ``tolerance`` (m) of the least.

    Returns:
        (T, the footstep place(T, u(T)) (2,), its remainder (m)).

    Raises:
        ValueError: ``times`` is empty.
    """
    if len(times) == 0:
        raise ValueError("touchdown_choice needs at least one swing time")
    rows: list[tuple[float, np.ndarray, float]] = []
    for T in times:
        u = capture_step(w, xi, zeta, offset, T)
        reached = place(T, u)
        rows.append((float(T), reached, float(np.linalg.norm(u - reached))))
    least = min(r[2] for r in rows)
    chosen: tuple[float, np.ndarray, float] = next(r for r in reversed(rows) if r[2] <= least + tolerance)
    return chosen


def transfer_progress(w: float, a: np.ndarray, b: np.ndarray, xi_end: np.ndarray, T: float) -> float:
    """How far along the transfer from a to b (m, the projection on (b − a)/‖b − a‖) the plan's DCM starts
    a double support of T seconds whose ZMP moves linearly from a to b and whose DCM ends at ``xi_end``:
    ξ(t_a) = a + ṗ/ω + (ξ_end − b − ṗ/ω) e^{−ωT}, ṗ = (b − a)/T (the LIPM's bounded solution)."""
    d = b - a
    pd = d / T
    xi = a + pd / w + (xi_end - b - pd / w) * math.exp(-w * T)
    return float(d @ (xi - a) / np.linalg.norm(d))


def double_support_time(w: float, xi: np.ndarray, a: np.ndarray, b: np.ndarray, xi_end: np.ndarray,
                        T_min: float, T_max: float) -> float:  # fmt: skip
    """The double support's length (s, in [T_min, T_max]) whose plan starts with the DCM where the measured
    ``xi`` is along the transfer a → b (:func:`transfer_progress`, which falls as the double support
    lengthens), by bisection; T_max when even that plan's DCM is further along, T_min when even that
    plan's lags. A DCM that lags its transfer (a push towards the old stance foot) gets the time to be
    moved over, both feet loaded; one that leads it (a push towards the new stance foot) gets the ZMP
    onto the new foot sooner, before it passes over it."""
    d = b - a
    target = float(d @ (xi - a) / np.linalg.norm(d))
    if transfer_progress(w, a, b, xi_end, T_max) >= target:
        return T_max
    if transfer_progress(w, a, b, xi_end, T_min) <= target:
        return T_min
    lo, hi = T_min, T_max
    for _ in range(30):
        mid = 0.5 * (lo + hi)
        if transfer_progress(w, a, b, xi_end, mid) > target:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)
