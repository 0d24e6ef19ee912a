"""The DCM plan of a :class:`~wbcpy.locomotion.WalkingPattern` over its footsteps, in closed form (the maths
is in :mod:`wbcpy.locomotion.pattern`'s docstring).

A :class:`DcmPlan` is immutable and holds everything planned over one set of footsteps — the footsteps
themselves, per linear-ZMP segment the floats (t_a, t_b, per axis (p_a, ṗ, C, E)), the start phase's cubic
DCM — so a pattern publishes a new plan with one assignment and a reader always sees one plan, whole.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple, Protocol

import numpy as np
import pinocchio as pin

from .footsteps import SIDES, Footstep, yaw_of

#: one linear-ZMP segment as floats: (t_a, t_b, per axis (p_a, ṗ, C, E))
Row = tuple[float, float, tuple[tuple[float, ...], ...]]
#: the plan's ground-plane state as (x, y) float pairs: COM, DCM, ZMP
Lipm = tuple[tuple[float, float], tuple[float, float], tuple[float, float]]


class PhaseLike(Protocol):
    """What the plan reads of a phase (:class:`~wbcpy.locomotion.pattern.Phase`)."""

    @property
    def kind(self) -> str: ...
    @property
    def t0(self) -> float: ...
    @property
    def t1(self) -> float: ...
    @property
    def step(self) -> int: ...
    @property
    def swing(self) -> str | None: ...
    @property
    def stance(self) -> str | None: ...


class DcmPlan(NamedTuple):
    """The footsteps and everything planned over them (see the module docstring).

    Attributes:
        version: the plan's number. steps: the footsteps. rows: the ZMP segments after the start phase.
        tb: their end times. cubic: per axis the start phase's DCM coefficients (a0, a1, a2, a3).
        E0: per axis the homogeneous COM term of the start phase.
        table: the same numbers as rows of 10 floats (read-only; what the compiled sample reads): row 0
            the start phase (cubic of x, cubic of y, E0), row k ≥ 1 segment k − 1 (t_a, t_b, then per axis
            p_a, ṗ, C, E).
    """

    version: int
    steps: tuple[Footstep, ...]
    rows: list[Row]
    tb: list[float]
    cubic: list[tuple[float, ...]]
    E0: list[float]
    table: np.ndarray


def foot_before(steps: tuple[Footstep, ...], start: dict[str, pin.SE3], k: int, side: str) -> pin.SE3:
    """``side``'s sole placement before footstep k lands: the start or its last footstep (not a copy)."""
    for j in range(k - 1, -1, -1):
        if steps[j].side == side:
            return steps[j].placement
    return start[side]


def build_plan(phases: Sequence[PhaseLike], steps: tuple[Footstep, ...], start: dict[str, pin.SE3], w: float,
               start_time: float, com0: np.ndarray, version: int) -> DcmPlan:  # fmt: skip
    """The plan over ``steps``: ZMP segments (linear) after the start phase, the DCM at their ends
    (integrated backward from ξ(T_end) = p(T_end)), the COM at their starts, and the start phase's cubic
    DCM from (x_0, 0) to the plan's (ξ, ξ̇) at the first lift-off (ω = ``w``, 1/s)."""
    ta, tb, pa, pb = _zmp_segments(phases, steps, start)
    pdot = (pb - pa) / (tb - ta)[:, None]
    xi_b = np.empty_like(pb)
    xi = pb[-1].copy()
    for i in range(len(ta) - 1, -1, -1):
        xi_b[i] = xi
        C = xi - pb[i] - pdot[i] / w
        xi = pa[i] + pdot[i] / w + C * math.exp(-w * (tb[i] - ta[i]))
    # start phase: cubic DCM from (x0, 0) to (ξ1, ξ̇1), per axis as floats (evaluated every control step:
    # scalar maths, no small arrays)
    h, c0 = start_time, com0[:2]
    dxi1 = w * (xi - pa[0])
    d = xi - c0
    coefficients = np.array([c0, np.zeros(2), (3 * d - h * dxi1) / h**2, (h * dxi1 - 2 * d) / h**3])
    cubic = [tuple(float(c) for c in coefficients[:, j]) for j in range(2)]
    E0 = [float(c0[j]) - _cubic_axis(w, cubic[j], 0.0)[3] for j in range(2)]
    # per segment the floats C (from the DCM ξ_b at its end) and E (from the COM at its start: the end of
    # the one before; the first starts where the start phase ends)
    rows: list[Row] = []
    x = start_com(w, cubic, E0, start_time)[0]
    for i in range(len(ta)):
        a, b = float(ta[i]), float(tb[i])
        axes = []
        for j in range(2):
            p0, p1, pd = float(pa[i, j]), float(pb[i, j]), float(pdot[i, j])
            C = float(xi_b[i, j]) - p1 - pd / w
            E = x[j] - p0 - 0.5 * C * math.exp(-w * (b - a))
            axes.append((p0, pd, C, E))
        rows.append((a, b, tuple(axes)))
        x = segment(w, rows[-1], b)[0]
    table = np.array([(*cubic[0], *cubic[1], *E0)] + [(a, b, *axes[0], *axes[1]) for a, b, axes in rows])
    table.setflags(write=False)  # (shared by the copies of a pattern)
    return DcmPlan(version, steps, rows, [float(t) for t in tb], cubic, E0, table)


def _zmp_segments(phases: Sequence[PhaseLike], steps: tuple[Footstep, ...], start: dict[str, pin.SE3]
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """The linear ZMP segments after the start phase: start and end times (s), start and end points (m):
    at the stance sole in single support, from the old to the new stance sole in double support (to the
    feet's midpoint at the last footstep), still at the end."""
    segs: list[tuple[float, float, np.ndarray, np.ndarray]] = []
    for ph in phases[1:]:
        if ph.kind == "single":
            p = foot_before(steps, start, ph.step, str(ph.stance)).translation[:2]
            segs.append((ph.t0, ph.t1, p.copy(), p.copy()))
        elif ph.kind == "double":
            k = ph.step
            old = foot_before(steps, start, k, SIDES[1 - SIDES.index(steps[k].side)]).translation[:2]
            new = steps[k].placement.translation[:2]
            end = new if k < len(steps) - 1 else 0.5 * (old + new)
            segs.append((ph.t0, ph.t1, old.copy(), np.array(end, dtype=float)))
        else:
            segs.append((ph.t0, ph.t1, segs[-1][3].copy(), segs[-1][3].copy()))
    return (np.array([s[0] for s in segs]), np.array([s[1] for s in segs]), np.array([s[2] for s in segs]),
            np.array([s[3] for s in segs]))  # fmt: skip


def _cubic_axis(w: float, coefficients: tuple[float, ...], t: float) -> tuple[float, float, float, float]:
    """One axis of the start phase's cubic DCM at time t: ξ, ξ̇, ξ̈ and the particular COM solution
    x_p = ξ − ξ̇/ω + ξ̈/ω² − ξ⃛/ω³."""
    a0, a1, a2, a3 = coefficients
    xi = a0 + t * (a1 + t * (a2 + t * a3))
    d1 = a1 + t * (2 * a2 + 3 * a3 * t)
    d2 = 2 * a2 + 6 * a3 * t
    d3 = 6 * a3
    return xi, d1, d2, xi - d1 / w + d2 / w**2 - d3 / w**3


def start_com(w: float, cubic: list[tuple[float, ...]], E0: list[float], t: float) -> Lipm:
    """(x, ξ, p) in the start phase at time t (per axis)."""
    decay = math.exp(-w * t)
    out = []
    for j in range(2):
        xi, d1, _, xp = _cubic_axis(w, cubic[j], t)
        out.append((xp + E0[j] * decay, xi, xi - d1 / w))
    (x0, xi0, p0), (x1, xi1, p1) = out
    return (x0, x1), (xi0, xi1), (p0, p1)


def segment(w: float, row: Row, t: float) -> Lipm:
    """(x, ξ, p) on a linear ZMP segment at time t: p = p_a + ṗ (t − t_a), ξ = p + ṗ/ω + C e^{ω(t − t_b)},
    x = p + ½ C e^{ω(t − t_b)} + E e^{−ω(t − t_a)} (per axis)."""
    ta, tb, axes = row
    grow, decay = math.exp(w * (t - tb)), math.exp(-w * (t - ta))
    (pa0, pd0, C0, E0), (pa1, pd1, C1, E1) = axes
    p0, p1 = pa0 + pd0 * (t - ta), pa1 + pd1 * (t - ta)
    xi = (p0 + pd0 / w + C0 * grow, p1 + pd1 / w + C1 * grow)
    x = (p0 + 0.5 * C0 * grow + E0 * decay, p1 + 0.5 * C1 * grow + E1 * decay)
    return x, xi, (p0, p1)


def swing_ends(steps: tuple[Footstep, ...], start: dict[str, pin.SE3], ph: PhaseLike) -> tuple[float, ...]:
    """The constants of a single-support phase's swing: t_0, T_s, the start position p_a, the move
    p_b − p_a, the start yaw ψ_a and the turn Δψ ∈ [−π, π)."""
    a, b = foot_before(steps, start, ph.step, str(ph.swing)), steps[ph.step].placement
    (ax, ay, az), (bx, by, bz) = a.translation.tolist(), b.translation.tolist()
    ya = yaw_of(a.rotation)
    dyaw = (yaw_of(b.rotation) - ya + math.pi) % (2 * math.pi) - math.pi
    return ph.t0, ph.t1 - ph.t0, ax, ay, az, bx - ax, by - ay, bz - az, ya, dyaw
