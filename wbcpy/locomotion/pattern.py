"""WalkingPattern: a divergent-component-of-motion (DCM) plan over footsteps.

The model is the linear inverted pendulum (LIPM, Kajita et al. 2001) at a constant COM height z_c above
flat ground: with ω = √(g / z_c), the COM's ground projection x and the ZMP p obey

    ẍ = ω² (x − p).

The plan follows Englsberger, Ott and Albu-Schäffer, "Three-dimensional bipedal walking control based on
divergent component of motion" (IEEE T-RO 2015): the DCM ξ = x + ẋ/ω obeys ξ̇ = ω (ξ − p) and the COM
ẋ = ω (ξ − x). The ZMP reference is chosen first — at the stance sole's centre in single support, moving
linearly from the old to the new stance sole's centre in double support (a convex combination of two
points of the two soles in contact), and still at the end — so it lies in the support polygon *by
construction*. The DCM is integrated backward from its end value ξ(T_end) = p(T_end) (the only bounded
solution), the COM forward from the measured start; both in closed form: on a segment where p is linear,

    ξ(t) = p(t) + ṗ/ω + C e^{ω(t − t_b)},    C = ξ(t_b) − p(t_b) − ṗ/ω,
    x(t) = p(t) + (C/2) e^{ω(t − t_b)} + E e^{−ω(t − t_a)},   E = x(t_a) − p(t_a) − (C/2) e^{−ω(t_b − t_a)}.

The first phase (``start_time``) starts from rest at the robot's COM: the DCM follows a cubic from
(x_0, 0) to the plan's (ξ, ξ̇) at the first lift-off, and the ZMP is p = ξ − ξ̇/ω (checked to stay in the
double-support polygon; it is the one phase whose ZMP is not a convex combination by construction); the
COM is the closed-form solution of ẋ + ωx = ωξ for a polynomial ξ. Every phase thus satisfies the LIPM
equation exactly, with x, ẋ, ẍ continuous.

Swing feet: in single support the swing sole moves from its last placement to its footstep along
minimum-jerk paths in x, y and yaw (zero velocity and acceleration at lift-off and touch-down) while its
height adds h·64 s³(1 − s)³ (apex h at mid-swing, zero velocity and acceleration at both ends), s the
phase's fraction.

Timeline: ``start_time`` (weight on the first stance foot), then per footstep ``step_time`` = single
support (``step_time − double_support_time``, the foot swings) + double support (the ZMP moves to the
new foot), then ``end_time`` standing (the ZMP at the feet's midpoint).
"""

from __future__ import annotations

import bisect
import copy
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pinocchio as pin

from ..errors import ConfigError
from .feet import Feet
from .footsteps import SIDES, Footstep, yaw_of
from .scaling import walking_scale
from .sole_finder import as_feet

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel

GRAVITY = 9.81


def _positive(value: Any, name: str, allow_zero: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ConfigError(name, f"must be a number, got {value!r}")
    out = float(value)
    if not math.isfinite(out) or out < 0.0 or (out == 0.0 and not allow_zero):
        raise ConfigError(name, f"must be a finite number {'≥' if allow_zero else '>'} 0, got {value!r}")
    return out


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


def quintic(
    p0: np.ndarray, v0: np.ndarray, a0: np.ndarray, p1: np.ndarray, T: float
) -> Callable[[float], tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The quintic from (p0, v0, a0) at time 0 to (p1, 0, 0) at time T (per axis); returns a function of
    t ∈ [0, T] (clamped) giving position, velocity and acceleration."""
    d = p1 - p0 - v0 * T - 0.5 * a0 * T**2
    # solve the end conditions p(T) = p1, p'(T) = 0, p''(T) = 0 for c3, c4, c5
    A = np.array([[T**3, T**4, T**5], [3 * T**2, 4 * T**3, 5 * T**4], [6 * T, 12 * T**2, 20 * T**3]])
    rhs = np.stack((d, -v0 - a0 * T, -a0))
    c3, c4, c5 = np.linalg.solve(A, rhs)

    def at(t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        t = min(max(t, 0.0), T)
        pos = p0 + v0 * t + 0.5 * a0 * t**2 + c3 * t**3 + c4 * t**4 + c5 * t**5
        vel = v0 + a0 * t + 3 * c3 * t**2 + 4 * c4 * t**3 + 5 * c5 * t**4
        acc = a0 + 6 * c3 * t + 12 * c4 * t**2 + 20 * c5 * t**3
        return pos, vel, acc

    return at


@dataclass
class Phase:
    """One phase of the walk.

    Attributes:
        kind: ``"start"``, ``"single"``, ``"double"`` or ``"end"``.
        t0, t1: start and end (s).
        step: the footstep index (0-based) the phase belongs to (−1 for ``start`` and ``end``).
        swing: the swinging side in single support (else None).
        stance: the stance side in single support (else None).
    """

    kind: str
    t0: float
    t1: float
    step: int = -1
    swing: str | None = None
    stance: str | None = None


class WalkingPattern:
    """COM, DCM, ZMP, swing-foot trajectories and contact schedule of a walk (see the module docstring).

    Attributes:
        steps: the footsteps (copies). feet: the robot's :class:`~wbcpy.locomotion.feet.Feet`.
        start: {side: placement} of the soles at the start. com0: the COM at the start (world, m).
        omega: √(g / z_c) (1/s). com_height: z_c, the COM height above the ground (m). ground: ground z.
        phases: the :class:`Phase` list; duration: its end (s).
        version: counts the plans (0 at construction, +1 per :meth:`set_step`): what depends on the
            footsteps may be cached per version.
    """

    def __init__(
        self,
        robot: RobotModel,
        steps: list[Footstep],
        step_time: float = 0.8,
        double_support_time: float = 0.2,
        com_height: float | None = None,
        step_height: float | None = None,
        start_time: float = 1.0,
        end_time: float = 1.0,
        feet: Any = None,
        com: Any = None,
    ) -> None:
        """Plan from the robot's current feet and COM (at rest).

        Args:
            robot: the robot, with a state set (its soles on the ground).
            steps: footsteps with alternating sides (:func:`~wbcpy.locomotion.plan_footsteps`).
            step_time: time per footstep (s), single plus double support.
            double_support_time: its double-support part (s), 0 < · < step_time.
            com_height: z_c above the ground (m); None: the COM's current height.
            step_height: swing apex height (m), ≥ 0; None: 0.05 m scaled to the robot's size
                (:class:`~wbcpy.locomotion.scaling.WalkingScale`; Talos: 0.05 m).
            start_time: the first phase, shifting the weight onto the first stance foot (s).
            end_time: standing still at the end (s).
            feet: the soles: a :class:`~wbcpy.locomotion.feet.Feet`, (left, right) frame names, or None for
                the robot's own (:func:`~wbcpy.locomotion.sole_finder.find_feet`).
            com: the COM to start from (3,), default the robot's.

        Raises:
            ConfigError: a bad argument (field named), sides that do not alternate.
        """
        T = _positive(step_time, "step_time")
        ds = _positive(double_support_time, "double_support_time")
        if ds >= T:
            raise ConfigError("double_support_time", f"must be < step_time = {T}, got {ds}")
        self.step_time, self.double_support_time = T, ds
        self.feet: Feet = as_feet(robot, feet)
        if step_height is None:
            step_height = walking_scale(robot, self.feet).step_height
        self.step_height = _positive(step_height, "step_height", allow_zero=True)
        self.start_time = _positive(start_time, "start_time")
        self.end_time = _positive(end_time, "end_time")
        if not steps:
            raise ConfigError("steps", "no footsteps")
        for i, s in enumerate(steps):
            if s.side not in SIDES:
                raise ConfigError(f"steps[{i}].side", f"must be 'left' or 'right', got {s.side!r}")
            if i and s.side == steps[i - 1].side:
                raise ConfigError(f"steps[{i}].side", "sides must alternate")
        self.steps = [Footstep(s.side, pin.SE3(s.placement)) for s in steps]
        soles = zip(SIDES, self.feet.soles, strict=True)
        self.start = {side: pin.SE3(sole.world(robot)) for side, sole in soles}
        self.ground = 0.5 * sum(float(p.translation[2]) for p in self.start.values())
        self.com0 = np.array(robot.com() if com is None else com, dtype=float)
        zc = self.com0[2] - self.ground if com_height is None else _positive(com_height, "com_height")
        if zc <= 0.0:
            raise ConfigError("com_height", f"the COM is not above the ground (z_c = {zc})")
        self.com_height = zc
        self.omega = math.sqrt(GRAVITY / zc)
        self._build_phases()
        self._build_segments()

    # ------------------------------------------------------------------ schedule
    def _build_phases(self) -> None:
        T, ds = self.step_time, self.double_support_time
        t = self.start_time
        phases = [Phase("start", 0.0, t)]
        for k, s in enumerate(self.steps):
            other = SIDES[1 - SIDES.index(s.side)]
            phases.append(Phase("single", t, t + T - ds, k, s.side, other))
            phases.append(Phase("double", t + T - ds, t + T, k))
            t += T
        phases.append(Phase("end", t, t + self.end_time))
        self.phases = phases
        self._phase_ends = [ph.t1 for ph in phases]
        #: the swing of :meth:`swing_into`: its constants (:meth:`_swing_ends`) and their (t0, version) key
        self._swing_key: tuple[float, int] | None = None
        self._swing_path: tuple[float, ...] = ()
        self.duration = t + self.end_time

    def phase(self, t: float) -> Phase:
        """The phase at time t (clamped to [0, duration]): the first whose end t1 is after t."""
        phases = self.phases
        return phases[min(bisect.bisect_right(self._phase_ends, t), len(phases) - 1)]

    def foot_before(self, k: int, side: str) -> pin.SE3:
        """Placement of ``side``'s sole before footstep k lands (the start or its last footstep)."""
        for j in range(k - 1, -1, -1):
            if self.steps[j].side == side:
                return self.steps[j].placement
        return self.start[side]

    def planted(self, t: float) -> dict[str, pin.SE3]:
        """{side: placement} of the soles on the ground at time t (the schedule's contacts)."""
        ph = self.phase(t)
        k = ph.step if ph.kind != "end" else len(self.steps)
        if ph.kind == "start":
            return dict(self.start)
        out = {side: self.foot_before(k + (1 if ph.kind == "double" else 0), side) for side in SIDES}
        if ph.kind == "single" and ph.swing is not None:
            del out[ph.swing]
        return out

    def set_step(self, k: int, placement: pin.SE3) -> None:
        """Move footstep k (re-planning: the ZMP and the DCM are planned again over the new footsteps, on
        the same timeline; the COM path is the LIPM solution from the start through them).

        Raises:
            ConfigError: k out of range.
        """
        if not 0 <= k < len(self.steps):
            raise ConfigError("k", f"no footstep {k} (0 … {len(self.steps) - 1})")
        self.steps[k] = Footstep(self.steps[k].side, pin.SE3(placement))
        self._build_segments()

    def copy(self) -> WalkingPattern:
        """An independent copy (footsteps and plan)."""
        out = copy.copy(self)
        out.steps = [Footstep(s.side, pin.SE3(s.placement)) for s in self.steps]
        out._build_segments()
        return out

    # ------------------------------------------------------------------ ZMP / DCM / COM
    def _build_segments(self) -> None:
        """ZMP segments (linear) after the start phase, the DCM at their ends, the COM at their starts."""
        self.version = getattr(self, "version", -1) + 1
        w = self.omega
        segs: list[tuple[float, float, np.ndarray, np.ndarray]] = []
        for ph in self.phases[1:]:
            if ph.kind == "single":
                p = self.foot_before(ph.step, str(ph.stance)).translation[:2]
                segs.append((ph.t0, ph.t1, p.copy(), p.copy()))
            elif ph.kind == "double":
                k = ph.step
                old = self.foot_before(k, SIDES[1 - SIDES.index(self.steps[k].side)]).translation[:2]
                new = self.steps[k].placement.translation[:2]
                end = new if k < len(self.steps) - 1 else 0.5 * (old + new)
                segs.append((ph.t0, ph.t1, old.copy(), np.array(end, dtype=float)))
            else:
                segs.append((ph.t0, ph.t1, segs[-1][3].copy(), segs[-1][3].copy()))
        self._ta = np.array([s[0] for s in segs])
        self._tb = np.array([s[1] for s in segs])
        self._pa = np.array([s[2] for s in segs])
        self._pb = np.array([s[3] for s in segs])
        self._pdot = (self._pb - self._pa) / (self._tb - self._ta)[:, None]
        xi_b = np.empty_like(self._pb)
        xi = self._pb[-1].copy()
        for i in range(len(segs) - 1, -1, -1):
            xi_b[i] = xi
            C = xi - self._pb[i] - self._pdot[i] / w
            xi = self._pa[i] + self._pdot[i] / w + C * math.exp(-w * (self._tb[i] - self._ta[i]))
        self._tb_list = [float(tb) for tb in self._tb]
        # start phase: cubic DCM from (x0, 0) to (ξ1, ξ̇1)
        h, c0 = self.start_time, self.com0[:2]
        dxi1 = w * (xi - self._pa[0])
        d = xi - c0
        cubic = np.array([c0, np.zeros(2), (3 * d - h * dxi1) / h**2, (h * dxi1 - 2 * d) / h**3])
        # per axis, as floats (evaluated every control step: scalar maths, no small arrays)
        self._cubic = [tuple(float(c) for c in cubic[:, j]) for j in range(2)]
        self._E0 = [float(c0[j]) - self._cubic_axis(j, 0.0)[3] for j in range(2)]
        self._rows = self._segment_rows(xi_b)

    def _segment_rows(self, xi_b: np.ndarray) -> list[tuple[float, float, tuple[tuple[float, ...], ...]]]:
        """Per segment (t_a, t_b, per axis (p_a, ṗ, C, E)) as floats: C from the DCM ξ_b at its end, E from
        the COM at its start (the end of the one before; the first starts where the start phase ends)."""
        w = self.omega
        rows: list[tuple[float, float, tuple[tuple[float, ...], ...]]] = []
        x = self._start_com(self.start_time)[0]
        for i in range(len(self._ta)):
            ta, tb = float(self._ta[i]), float(self._tb[i])
            axes = []
            for j in range(2):
                pa, pb, pdot = float(self._pa[i, j]), float(self._pb[i, j]), float(self._pdot[i, j])
                C = float(xi_b[i, j]) - pb - pdot / w
                E = x[j] - pa - 0.5 * C * math.exp(-w * (tb - ta))
                axes.append((pa, pdot, C, E))
            rows.append((ta, tb, tuple(axes)))
            x = self._segment(rows[-1], tb)[0]
        return rows

    def _cubic_axis(self, j: int, t: float) -> tuple[float, float, float, float]:
        """Axis j of the start phase's cubic DCM at time t: ξ, ξ̇ and the particular COM solution
        x_p = ξ − ξ̇/ω + ξ̈/ω² − ξ⃛/ω³ (with ξ)."""
        w = self.omega
        a0, a1, a2, a3 = self._cubic[j]
        xi = a0 + t * (a1 + t * (a2 + t * a3))
        d1 = a1 + t * (2 * a2 + 3 * a3 * t)
        d2 = 2 * a2 + 6 * a3 * t
        d3 = 6 * a3
        return xi, d1, d2, xi - d1 / w + d2 / w**2 - d3 / w**3

    def _start_com(self, t: float) -> tuple[tuple[float, float], tuple[float, float], tuple[float, float]]:
        """(x, ξ, p) in the start phase (per axis)."""
        w = self.omega
        decay = math.exp(-w * t)
        out = []
        for j in range(2):
            xi, d1, _, xp = self._cubic_axis(j, t)
            out.append((xp + self._E0[j] * decay, xi, xi - d1 / w))
        (x0, xi0, p0), (x1, xi1, p1) = out
        return (x0, x1), (xi0, xi1), (p0, p1)

    def _segment(
        self, row: tuple[float, float, tuple[tuple[float, ...], ...]], t: float
    ) -> tuple[tuple[float, float], tuple[float, float], tuple[float, float]]:
        """(x, ξ, p) on a linear ZMP segment at time t: p = p_a + ṗ (t − t_a), ξ = p + ṗ/ω + C e^{ω(t − t_b)},
        x = p + ½ C e^{ω(t − t_b)} + E e^{−ω(t − t_a)} (per axis)."""
        w = self.omega
        ta, tb, axes = row
        grow, decay = math.exp(w * (t - tb)), math.exp(-w * (t - ta))
        (pa0, pd0, C0, E0), (pa1, pd1, C1, E1) = axes
        p0, p1 = pa0 + pd0 * (t - ta), pa1 + pd1 * (t - ta)
        xi = (p0 + pd0 / w + C0 * grow, p1 + pd1 / w + C1 * grow)
        x = (p0 + 0.5 * C0 * grow + E0 * decay, p1 + 0.5 * C1 * grow + E1 * decay)
        return x, xi, (p0, p1)

    def lipm(self, t: float) -> tuple[tuple[float, float], tuple[float, float], tuple[float, float]]:
        """The plan's ground-plane state at time t (clamped to [0, duration]) as float pairs (x, y): the COM
        x, the DCM ξ and the ZMP p (world, m) — the values of :meth:`sample` without building arrays (the
        walking controller reads them at every control step)."""
        t = min(max(float(t), 0.0), self.duration)
        if t < self.start_time:
            return self._start_com(t)
        rows = self._rows
        i = bisect.bisect_right(self._tb_list, t)
        return self._segment(rows[min(i, len(rows) - 1)], t)

    def sample(self, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """COM position, velocity, acceleration (3 each, as :meth:`com`), ZMP and DCM (2 each) at time t,
        from one evaluation of the plan."""
        (x0, x1), (xi0, xi1), (p0, p1) = self.lipm(t)
        w = self.omega
        pos = np.array([x0, x1, self.ground + self.com_height])
        vel = np.array([w * (xi0 - x0), w * (xi1 - x1), 0.0])
        acc = np.array([w * w * (x0 - p0), w * w * (x1 - p1), 0.0])
        return pos, vel, acc, np.array([p0, p1]), np.array([xi0, xi1])

    def com(self, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """COM position, velocity and acceleration (3 each, world, m, m/s, m/s²) at time t: x, ẋ = ω(ξ − x),
        ẍ = ω²(x − p), at the constant height ground + z_c."""
        return self.sample(t)[:3]

    def zmp(self, t: float) -> np.ndarray:
        """The ZMP reference p (2,) at time t (world, m)."""
        return np.array(self.lipm(t)[2])

    def dcm(self, t: float) -> np.ndarray:
        """The DCM ξ = x + ẋ/ω (2,) at time t (world, m)."""
        return np.array(self.lipm(t)[1])

    # ------------------------------------------------------------------ swing feet
    def swing(self, t: float) -> tuple[str, pin.SE3, np.ndarray, np.ndarray] | None:
        """The swinging sole at time t: (side, placement, velocity, acceleration) with the velocity and
        acceleration as 6-vectors (linear over angular, world axes, m/s, rad/s, m/s², rad/s²); None when
        both feet are planted."""
        M, vel, acc = np.eye(4), np.zeros(6), np.zeros(6)
        side = self.swing_into(t, M, vel, acc)
        if side is None:
            return None
        return side, pin.SE3(M[:3, :3], M[:3, 3]), vel, acc

    def swing_into(self, t: float, M: np.ndarray, vel: np.ndarray, acc: np.ndarray) -> str | None:
        """:meth:`swing` into the caller's arrays: the swinging side, with the sole's homogeneous placement
        written into ``M`` (4×4, its last row left as it is), its velocity and acceleration into ``vel``
        and ``acc`` (6 each); None, and nothing written, when both feet are planted.

        The sole moves from its last placement a to its footstep b: p = p_a + m(s) (p_b − p_a) plus the
        height h·bump(s), yaw ψ = ψ_a + m(s) Δψ (the shortest turn), s = (t − t_0)/T_s, m the minimum-jerk
        blend; velocities and accelerations by the chain rule (1/T_s, 1/T_s² per derivative)."""
        ph = self.phase(t)
        if ph.kind != "single" or ph.swing is None:
            return None
        key = (ph.t0, self.version)
        if self._swing_key != key:
            self._swing_path = self._swing_ends(ph)
            self._swing_key = key
        t0, Ts, ax, ay, az, dx, dy, dz_, ya, dyaw = self._swing_path
        s = (t - t0) / Ts
        m, dm, ddm = min_jerk(s)
        z, dz, ddz = bump(s)
        h = self.step_height
        v1, a1 = dm / Ts, ddm / Ts**2
        vel[0], vel[1], vel[2], vel[5] = v1 * dx, v1 * dy, v1 * dz_ + h * dz / Ts, dyaw * dm / Ts
        acc[0], acc[1], acc[2], acc[5] = a1 * dx, a1 * dy, a1 * dz_ + h * ddz / Ts**2, dyaw * ddm / Ts**2
        vel[3] = vel[4] = acc[3] = acc[4] = 0.0
        # the sole turns about the vertical (flat: a yaw rotation)
        c, sn = math.cos(yaw := ya + m * dyaw), math.sin(yaw)
        M[0, 0], M[0, 1], M[0, 2], M[0, 3] = c, -sn, 0.0, ax + m * dx
        M[1, 0], M[1, 1], M[1, 2], M[1, 3] = sn, c, 0.0, ay + m * dy
        M[2, 0], M[2, 1], M[2, 2], M[2, 3] = 0.0, 0.0, 1.0, az + m * dz_ + h * z
        return ph.swing

    def _swing_ends(self, ph: Phase) -> tuple[float, ...]:
        """The constants of a single-support phase's swing (:meth:`swing_into`): t_0, T_s, the start
        position p_a, the move p_b − p_a, the start yaw ψ_a and the turn Δψ ∈ [−π, π)."""
        a, b = self.foot_before(ph.step, str(ph.swing)), self.steps[ph.step].placement
        (ax, ay, az), (bx, by, bz) = a.translation.tolist(), b.translation.tolist()
        ya = yaw_of(a.rotation)
        dyaw = (yaw_of(b.rotation) - ya + math.pi) % (2 * math.pi) - math.pi
        return ph.t0, ph.t1 - ph.t0, ax, ay, az, bx - ax, by - ay, bz - az, ya, dyaw
