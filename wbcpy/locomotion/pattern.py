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

Ranges (a ConfigError naming the field outside them): every phase lasts 0.01 s to 30 s (shorter ones
make the plan's ZMP rates and swing accelerations degenerate, longer ones overflow e^{ω t}); the COM
height is 0.05 m to 20 m (ω from 0.7 to 14 /s); the swing apex 0 to 1 m.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pinocchio as pin

from .._kernels import dcm_sample as _dcm_sample
from .._kernels import swing_sample as _swing_sample
from .._support.read_only import SealedAfterInit
from .._support.validation import as_vector, short_repr
from ..errors import ConfigError, InvalidValueError
from ..model.robot_model import RobotModel
from . import _checks
from ._dcm import DcmPlan, Lipm, build_plan, foot_before, segment, start_com, swing_ends
from .feet import Feet
from .footsteps import SIDES, Footstep, check_footsteps
from .scaling import walking_scale
from .sole_finder import as_feet

GRAVITY = 9.81
#: the shortest and longest phase (s): see the module docstring
MIN_PHASE, MAX_PHASE = 0.01, 30.0
#: the range of the COM height above the ground (m)
COM_HEIGHT_RANGE = (0.05, 20.0)
#: the highest swing apex (m)
MAX_STEP_HEIGHT = 1.0


@dataclass(frozen=True)
class Phase:
    """One phase of the walk (immutable).

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


class WalkingPattern(SealedAfterInit):
    """COM, DCM, ZMP, swing-foot trajectories and contact schedule of a walk (see the module docstring).

    The attributes are read-only: a changed value would not re-plan (:meth:`set_step` moves a footstep).

    Attributes:
        steps: the footsteps (copies). feet: the robot's :class:`~wbcpy.locomotion.feet.Feet`.
        start: {side: placement} of the soles at the start (copies). com0: the COM at the start (world,
            m; a copy).
        omega: √(g / z_c) (1/s). com_height: z_c, the COM height above the ground (m). ground: ground z.
        step_time, double_support_time, step_height, start_time, end_time: as given (s, m).
        phases: the :class:`Phase` list; duration: its end (s).
        version: counts the plans (0 at construction, +1 per :meth:`set_step`): what depends on the
            footsteps may be cached per version.

    **Copies, pickles, threads.** :meth:`copy`, ``copy.copy``, ``copy.deepcopy`` and pickles are
    independent patterns (a footstep moved on one does not move on the other). Any number of threads may
    read a pattern; :meth:`set_step` publishes the new footsteps and plan at once, so that a read sees the
    old plan or the new one, whole (two reads are not one transaction: compare :attr:`version`).
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
            steps: footsteps with alternating sides (:func:`~wbcpy.locomotion.plan_footsteps`), at most
                :data:`~wbcpy.locomotion.footsteps.MAX_STEPS`.
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
            ConfigError: a bad argument (field named; the ranges of the module docstring), sides that do
                not alternate, steps that are not :class:`Footstep` objects.
            InvalidValueError: a ``com`` that is not 3 finite numbers, a footstep placement that is not a
                finite ``pin.SE3`` (argument ``steps[i].placement``).
            ConfigKeyError: an unknown foot frame. StateNotSetError: the robot has no state.
        """
        if not isinstance(robot, RobotModel):
            raise ConfigError("robot", f"expected a RobotModel, got {type(robot).__name__}")
        T = _checks.number(step_time, "step_time", 2 * MIN_PHASE, MAX_PHASE, unit=" s")
        ds = _checks.number(double_support_time, "double_support_time", MIN_PHASE, MAX_PHASE, unit=" s")
        if ds > T - MIN_PHASE:
            why = f"must leave ≥ {MIN_PHASE} s of single support in step_time = {T}, got {ds}"
            raise ConfigError("double_support_time", why)
        self.step_time, self.double_support_time = T, ds
        self.feet: Feet = as_feet(robot, feet)
        if step_height is None:
            step_height = walking_scale(robot, self.feet).step_height
        self.step_height = _checks.number(step_height, "step_height", 0.0, MAX_STEP_HEIGHT, unit=" m")
        self.start_time = _checks.number(start_time, "start_time", MIN_PHASE, MAX_PHASE, unit=" s")
        self.end_time = _checks.number(end_time, "end_time", MIN_PHASE, MAX_PHASE, unit=" s")
        checked = check_footsteps(steps)
        start = {side: pin.SE3(sole.world(robot)) for side, sole in zip(SIDES, self.feet.soles, strict=True)}
        self.ground = 0.5 * sum(float(p.translation[2]) for p in start.values())
        com0 = robot.com() if com is None else as_vector(com, 3, "com")
        lo, hi = COM_HEIGHT_RANGE
        if com_height is None:
            zc = float(com0[2]) - self.ground
            if not lo <= zc <= hi:
                raise ConfigError("com_height", f"the COM is {zc:.3g} m above the ground: give a com_height "
                                  f"in [{lo:g}, {hi:g}] m")  # fmt: skip
        else:
            zc = _checks.number(com_height, "com_height", lo, hi, unit=" m")
        self._start, self._com0 = start, com0
        self.com_height = zc
        self.omega = math.sqrt(GRAVITY / zc)
        self._build_phases(checked)
        self._plan: DcmPlan = build_plan(self._phases, checked, start, self.omega, self.start_time, com0, 0)
        #: the swing constants of :meth:`swing_into` and their (t0, version) key, published together
        self._swing_cache: tuple[tuple[float, int], np.ndarray] | None = None
        #: the soles :meth:`planted` returns (not copies) and their (phases, phase index, plan) key
        self._planted_cache: tuple[list[Phase], int, DcmPlan, tuple[tuple[str, pin.SE3], ...]] | None = None
        self._seal()

    # ------------------------------------------------------------------ read-only views
    @property
    def steps(self) -> list[Footstep]:
        """The footsteps (copies: editing one changes nothing; :meth:`set_step` moves a footstep)."""
        return [Footstep(s.side, s.placement) for s in self._plan.steps]

    def footstep(self, k: int) -> Footstep:
        """Footstep k (a copy), 0 ≤ k < number of footsteps.

        Raises:
            InvalidValueError: (``k``) not an integer in range.
        """
        steps = self._plan.steps
        s = steps[_checks.step_index(k, len(steps), query=True)]
        return Footstep(s.side, s.placement)

    @property
    def start(self) -> dict[str, pin.SE3]:
        """{side: placement} of the soles at the start (copies)."""
        return {side: M.copy() for side, M in self._start.items()}  # (SE3.copy: pin.SE3(M) costs more)

    @property
    def com0(self) -> np.ndarray:
        """The COM at the start (3, world, m; a copy)."""
        return self._com0.copy()

    @property
    def phases(self) -> list[Phase]:
        """The phases of the walk (a new list of immutable :class:`Phase` objects)."""
        return list(self._phases)

    @property
    def version(self) -> int:
        """Counts the plans: 0 at construction, +1 per :meth:`set_step`."""
        return self._plan.version

    # ------------------------------------------------------------------ schedule
    def _build_phases(self, steps: tuple[Footstep, ...]) -> None:
        T, ds = self.step_time, self.double_support_time
        t = self.start_time
        phases = [Phase("start", 0.0, t)]
        for k, s in enumerate(steps):
            other = SIDES[1 - SIDES.index(s.side)]
            phases.append(Phase("single", t, t + T - ds, k, s.side, other))
            phases.append(Phase("double", t + T - ds, t + T, k))
            t += T
        phases.append(Phase("end", t, t + self.end_time))
        self._phases = phases
        self._phase_ends = [ph.t1 for ph in phases]
        self.duration = t + self.end_time

    def phase(self, t: float) -> Phase:
        """The phase at time t (s; clamped to [0, duration]): the first whose end t1 is after t.

        Raises:
            InvalidValueError: t is not a finite real number.
        """
        t = _checks.query_time(t)
        phases = self._phases
        return phases[min(bisect.bisect_right(self._phase_ends, t), len(phases) - 1)]

    def foot_before(self, k: int, side: str) -> pin.SE3:
        """Placement of ``side``'s sole before footstep k (0 ≤ k ≤ number of footsteps) lands: the start
        or its last footstep (a copy).

        Raises:
            InvalidValueError: (``k``) not an integer in range. ConfigError: (``side``) an unknown side.
        """
        steps = self._plan.steps
        k = _checks.step_index(k, len(steps) + 1, query=True)
        if side not in SIDES:
            raise ConfigError("side", f"must be 'left' or 'right', got {short_repr(side)}")
        return foot_before(steps, self._start, k, side).copy()

    def planted(self, t: float) -> dict[str, pin.SE3]:
        """{side: placement} of the soles on the ground at time t (the schedule's contacts; copies).

        Raises:
            InvalidValueError: t is not a finite real number.
        """
        t = _checks.query_time(t)
        phases, plan = self._phases, self._plan
        i = min(bisect.bisect_right(self._phase_ends, t), len(phases) - 1)  # (phase(t))
        cache = self._planted_cache
        if cache is None or cache[0] is not phases or cache[1] != i or cache[2] is not plan:
            cache = (phases, i, plan, _planted(phases[i], plan.steps, self._start))
            self.__dict__["_planted_cache"] = cache  # (a private cache: past the sealed __setattr__)
        return {side: M.copy() for side, M in cache[3]}  # (SE3.copy: pin.SE3(M) costs more)

    def set_step(self, k: int, placement: pin.SE3) -> None:
        """Move footstep k (re-planning: the ZMP and the DCM are planned again over the new footsteps, on
        the same timeline; the COM path is the LIPM solution from the start through them). The new
        footsteps and plan are published at once; on error nothing changes.

        Raises:
            ConfigError: (``k``) not an integer footstep index (a bool is not one); (``placement``) a
                tilted or far placement. InvalidValueError: (``placement``) not a finite ``pin.SE3``.
        """
        plan = self._plan
        steps = plan.steps
        k = _checks.step_index(k, len(steps))
        new = list(steps)
        new[k] = Footstep(steps[k].side, _checks.sole_placement(placement, "placement"))
        self._plan = build_plan(self._phases, tuple(new), self._start, self.omega, self.start_time,
                                self._com0, plan.version + 1)  # fmt: skip

    def retime(self, k: int, t1: float, kind: str = "single") -> None:
        """Move the end of footstep k's single support (its touch-down; ``kind="double"``: of its double
        support, the next lift-off) to time t1 (s): the phases after it shift by the same
        δ = t1 − t1_old (keeping their lengths), and the plan is re-planned over the new timeline
        (step-timing adaptation, :mod:`~wbcpy.locomotion.step_timing`). On error nothing changes. The new
        timeline is published a moment before its plan (two assignments): a concurrent reader compares
        :attr:`version` (the plan's) around its reads.

        Raises:
            ConfigError: (``k``) not an integer footstep index; (``t1``) not a number leaving the phase
                [:data:`MIN_PHASE`, :data:`MAX_PHASE`] long; (``kind``) not "single" or "double".
        """
        plan = self._plan
        k = _checks.step_index(k, len(plan.steps))
        if kind not in ("single", "double"):
            raise ConfigError("kind", f"must be 'single' or 'double', got {short_repr(kind)}")
        i = next(j for j, ph in enumerate(self._phases) if ph.kind == kind and ph.step == k)
        moved = self._phases[i]
        t1 = _checks.number(t1, "t1", moved.t0 + MIN_PHASE, moved.t0 + MAX_PHASE, unit=" s")
        delta = t1 - moved.t1
        phases = self._phases[:i] + [Phase(ph.kind, ph.t0 + delta * (j > 0), ph.t1 + delta, ph.step, ph.swing,
                                           ph.stance) for j, ph in enumerate(self._phases[i:])]  # fmt: skip
        new = build_plan(phases, plan.steps, self._start, self.omega, self.start_time, self._com0,
                         plan.version + 1)  # fmt: skip
        object.__setattr__(self, "duration", phases[-1].t1)  # (a public attribute, sealed: set past it)
        self._phases, self._phase_ends = phases, [ph.t1 for ph in phases]
        self._plan = new

    def copy(self) -> WalkingPattern:
        """An independent copy (footsteps and plan)."""
        return self.__copy__()

    def __copy__(self) -> WalkingPattern:
        """An independent copy: the plan is immutable, so the two share it until one moves a footstep
        (:meth:`set_step` publishes a new plan on that one alone)."""
        out = object.__new__(WalkingPattern)
        out.__dict__.update(self.__dict__)
        out.__dict__["_swing_cache"] = out.__dict__["_planted_cache"] = None
        return out

    # ------------------------------------------------------------------ ZMP / DCM / COM
    def lipm(self, t: float) -> Lipm:
        """The plan's ground-plane state at time t (s; clamped to [0, duration]) as float pairs (x, y): the
        COM x, the DCM ξ and the ZMP p (world, m) — the values of :meth:`sample` without building arrays
        (the walking controller reads them at every control step).

        Raises:
            InvalidValueError: t is not a finite real number.
        """
        t = min(max(_checks.query_time(t), 0.0), self.duration)
        plan, w = self._plan, self.omega
        if t < self.start_time:
            return start_com(w, plan.cubic, plan.E0, t)
        rows = plan.rows
        return segment(w, rows[min(bisect.bisect_right(plan.tb, t), len(rows) - 1)], t)

    def sample(self, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """COM position, velocity, acceleration (3 each, as :meth:`com`), ZMP and DCM (2 each) at time t,
        from one evaluation of the plan (five arrays over disjoint parts of one new buffer: writing one
        changes no other).

        Raises:
            InvalidValueError: t is not a finite real number.
        """
        t = min(max(_checks.query_time(t), 0.0), self.duration)
        plan = self._plan  # (lipm(t), in one compiled call: csrc/kernels/pattern_samples.c)
        k = 0 if t < self.start_time else min(bisect.bisect_right(plan.tb, t), len(plan.rows) - 1) + 1
        out = _dcm_sample(plan.table, k, self.omega, t, self.ground + self.com_height)
        return out[0:3], out[3:6], out[6:9], out[9:11], out[11:13]

    def com(self, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """COM position, velocity and acceleration (3 each, world, m, m/s, m/s²) at time t: x, ẋ = ω(ξ − x),
        ẍ = ω²(x − p), at the constant height ground + z_c.

        Raises:
            InvalidValueError: t is not a finite real number.
        """
        return self.sample(t)[:3]

    def zmp(self, t: float) -> np.ndarray:
        """The ZMP reference p (2,) at time t (world, m). Raises InvalidValueError for a bad t."""
        return np.array(self.lipm(t)[2])

    def dcm(self, t: float) -> np.ndarray:
        """The DCM ξ = x + ẋ/ω (2,) at time t (world, m). Raises InvalidValueError for a bad t."""
        return np.array(self.lipm(t)[1])

    # ------------------------------------------------------------------ swing feet
    def swing(self, t: float) -> tuple[str, pin.SE3, np.ndarray, np.ndarray] | None:
        """The swinging sole at time t: (side, placement, velocity, acceleration) with the velocity and
        acceleration as 6-vectors (linear over angular, world axes, m/s, rad/s, m/s², rad/s²); None when
        both feet are planted.

        Raises:
            InvalidValueError: t is not a finite real number.
        """
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
        blend; velocities and accelerations by the chain rule (1/T_s, 1/T_s² per derivative).

        Raises:
            InvalidValueError: t is not a finite real number; ``M``, ``vel`` or ``acc`` is not a writable
                float64 array of shape (4, 4), (6,), (6,).
        """
        t = _checks.query_time(t)
        ph = self._phases[min(bisect.bisect_right(self._phase_ends, t), len(self._phases) - 1)]  # (phase(t))
        ends = None  # (both feet planted: the buffers are checked, nothing is written)
        if ph.kind == "single" and ph.swing is not None:
            plan = self._plan
            key = (ph.t0, plan.version)
            cache = self._swing_cache
            if cache is None or cache[0] != key:
                cache = (key, np.array(swing_ends(plan.steps, self._start, ph)))
                self.__dict__["_swing_cache"] = cache  # (a private cache: past the sealed __setattr__)
            ends = cache[1]
        try:  # (the buffers checked and written in one compiled call: csrc/kernels/pattern_samples.c)
            if type(M) is not np.ndarray or type(vel) is not np.ndarray or type(acc) is not np.ndarray:
                raise TypeError  # (a subclass: the checks below say what is taken)
            _swing_sample(M, vel, acc, ends, self.step_height, t)
        except (TypeError, ValueError):  # another layout (strided, overlapping), or raises naming the buffer
            _check_buffers(M, vel, acc)
            if ends is not None:
                M4, v6, a6 = np.eye(4), np.zeros(6), np.zeros(6)
                _swing_sample(M4, v6, a6, ends, self.step_height, t)
                vel[:], acc[:], M[:3] = v6, a6, M4[:3]
        return None if ends is None else ph.swing


def _planted(ph: Phase, steps: tuple[Footstep, ...], start: dict[str, pin.SE3]
             ) -> tuple[tuple[str, pin.SE3], ...]:  # fmt: skip
    """The soles on the ground during phase ``ph`` as (side, placement) pairs (not copies): both at the
    start, the stance sole in single support, both after footstep k lands in its double support."""
    if ph.kind == "start":
        return tuple(start.items())
    k = ph.step if ph.kind != "end" else len(steps)
    k += ph.kind == "double"
    swing = ph.swing if ph.kind == "single" else None
    return tuple((side, foot_before(steps, start, k, side)) for side in SIDES if side != swing)


_F64 = np.dtype(np.float64)


def _buffer_ok(a: Any, shape: tuple[int, ...]) -> bool:
    return type(a) is np.ndarray and a.shape == shape and a.dtype == _F64 and bool(a.flags.writeable)


def _check_buffers(M: Any, vel: Any, acc: Any) -> None:
    """Raise InvalidValueError unless M, vel and acc are writable float64 arrays of shapes (4, 4), (6,),
    (6,) (:meth:`WalkingPattern.swing_into`'s output buffers)."""
    for a, shape, name in ((M, (4, 4), "M"), (vel, (6,), "vel"), (acc, (6,), "acc")):
        if not _buffer_ok(a, shape):
            got = a.shape if isinstance(a, np.ndarray) else type(a).__name__
            why = f"expected a writable float64 array of shape {shape}, got {got}"
            raise InvalidValueError(name, shape, got, reason=why)
