"""Push recovery: capture-point footstep and step-timing adaptation of a walking controller's swings.

In single support the stance ZMP ζ (the stance sole's centre) is fixed and the measured DCM
ξ = x + ẋ/ω obeys ξ̇ = ω (ξ − ζ), so that a touch-down T seconds from now finds it at
ζ + (ξ − ζ) e^{ωT}; the swing foot lands where that keeps the plan's DCM offset at touch-down
(Englsberger, Ott and Albu-Schäffer 2015, sec. on step adjustment;
:func:`~wbcpy.locomotion.step_timing.capture_step`), clamped to the reach box of the stance sole and off
its footprint (:func:`reachable`). The pattern is re-planned over the moved footstep
(:meth:`~wbcpy.locomotion.WalkingPattern.set_step`) and the swing's ground-plane path re-planned from the
foot's measured state: a quintic to the new footstep, zero velocity and acceleration at touch-down. The
move is limited so that the re-planned swing stays within the adaptation's ground speed and acceleration
(:mod:`~wbcpy.locomotion.swing_speed`): a foot the leg cannot bring there in time lands moving, or lags
its path and lands short of it.

When the swing starts adapting, its touch-down time is chosen once with its footstep
(:func:`~wbcpy.locomotion.step_timing.touchdown_choice`): a push late in a swing, towards its side, asks
for a capture step that grows as e^{ωT} faster than the leg can follow, and the foot lands earlier, at a
smaller step it can make (:meth:`~wbcpy.locomotion.WalkingPattern.retime`; its height comes down on a
quintic over the new time too). What the step leaves over is the double support's to take up
(:func:`~wbcpy.locomotion.step_timing.double_support_time`, applied by the controller at touch-down).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import pinocchio as pin

from ._dcm import Lipm
from .footsteps import yaw_of
from .profiles import Quintic, quintic
from .sole_gap import lateral_extent
from .step_timing import TIMING_TOLERANCE, capture_step, touchdown_choice
from .swing_speed import SWING_ACCEL, speed_limited

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel
    from .pattern import Phase, WalkingPattern

#: the last part of a swing (s) that keeps its footstep: a re-plan later than this asks the swing leg for
#: accelerations it cannot follow, and the foot lands moving
ADAPT_STOP = 0.1
#: the spacing (s) of the touch-down times the step-timing adaptation compares
TIMING_STEP = 0.01
#: a reach box (m, stance-sole axes): (forward min, max), (sideways min, max) away from the stance foot
Reach = tuple[tuple[float, float], tuple[float, float]]


def reachable(pattern: WalkingPattern, ph: Phase, xy: np.ndarray, yaw: float, reach: Reach,
              apart: tuple[tuple[float, float], float]) -> np.ndarray:  # fmt: skip
    """``xy`` clamped, in the stance sole's axes, to the reach box (Talos: forward [−0.3, 0.5] m, sideways
    [0.16, 0.45] m away from the stance foot on the swing foot's side: no crossing), its near side at least
    the two footprints' half extents across the stance sole plus the clearance (``apart`` = (the soles'
    half sizes (m), the clearance (m)); :mod:`~wbcpy.locomotion.sole_gap`: the swing sole, at heading
    ``yaw`` (rad), keeps off the stance sole's footprint wherever it lands ahead or behind)."""
    stance = pattern.foot_before(ph.step, str(ph.stance))
    R = stance.rotation[:2, :2]
    local = R.T @ (xy - stance.translation[:2])
    sign = 1.0 if ph.swing == "left" else -1.0
    (back, ahead), (near, far) = reach
    half_size, clearance = apart
    near = max(near, half_size[1] + lateral_extent(half_size, yaw - yaw_of(stance.rotation)) + clearance)
    local[0] = min(max(local[0], back), ahead)
    local[1] = sign * min(max(sign * local[1], near), far)
    out: np.ndarray = stance.translation[:2] + R @ local
    return out


class FootstepAdaptation:
    """The adaptation state of one swing (see the module docstring): the plan at lift-off, whether the
    swing adapts, its timing, the re-planned swing path.

    Plain attributes (the path is a :class:`~wbcpy.locomotion.profiles.Quintic` object, no closure):
    copies and pickles are independent; it belongs to its controller, whose contract covers threads.

    Attributes:
        threshold: the capture-point shift (m) from which a swing adapts. reach: the reach box
            (:func:`reachable`). apart: the soles' half sizes (m) and the clearance (m) kept between the
            soles (:func:`reachable`). swing_speed, swing_accel: the re-planned swing's largest ground
            speed (m/s) and acceleration (m/s²). timing_tolerance: the remainder (m) within which a later
            touch-down is preferred (:func:`~wbcpy.locomotion.step_timing.touchdown_choice`).
    """

    def __init__(self, threshold: float, reach: Reach, apart: tuple[tuple[float, float], float],
                 swing_speed: float, swing_accel: float = SWING_ACCEL,
                 timing_tolerance: float = TIMING_TOLERANCE) -> None:  # fmt: skip
        self.threshold, self.reach = threshold, reach
        self.apart, self.swing_speed = apart, swing_speed
        self.swing_accel, self.timing_tolerance = swing_accel, timing_tolerance
        self._nominal: WalkingPattern | None = None
        self._nominal_version = -1  # the pattern's version when _nominal was copied from it
        self._adapting = False
        self._path: tuple[float, Quintic] | None = None
        self._step: pin.SE3 | None = None  # the swing's nominal footstep, once it adapts
        #: once the swing adapts: the stance ZMP ζ (2,), the plan's DCM offset at touch-down b (2,), and
        #: whether the swing was retimed
        self._timing: tuple[np.ndarray, np.ndarray, bool] | None = None

    @property
    def adapting(self) -> bool:
        """Whether the current swing adapts its footstep (the controller's hip strategy then)."""
        return self._adapting

    @property
    def retimed(self) -> bool:
        """Whether the current swing's touch-down time was moved (:meth:`adapt`)."""
        return self._timing is not None and self._timing[2]

    def lift_off(self, pattern: WalkingPattern) -> None:
        """A swing starts: the pattern as it is now is the swing's nominal plan."""
        self._nominal, self._nominal_version = pattern.copy(), pattern.version
        self._adapting, self._path, self._step, self._timing = False, None, None, None

    def adapt(self, pattern: WalkingPattern, robot: RobotModel, frame: str, t: float, ph: Phase, plan: Lipm,
              x: list[float], v: list[float]) -> bool:  # fmt: skip
        """Move the swinging footstep, and perhaps its touch-down time (and re-plan), if the measured DCM
        asks for it.

        Args:
            pattern: the live plan. robot: at the measured state. frame: the swing sole's frame.
            t: time (s). ph: the pattern's phase at t. plan: its :meth:`~WalkingPattern.lipm` at t.
            x, v: the measured COM position and velocity (world, m and m/s, as float lists).

        Returns:
            True when the footstep or the timing (and with it the plan) moved.
        """
        nominal_plan = self._nominal
        if ph.kind != "single" or ph.swing is None or nominal_plan is None:
            return False
        w, left = pattern.omega, ph.t1 - t
        xi0, xi1 = x[0] + v[0] / w, x[1] + v[1] / w
        if not self._adapting and not self._starts(pattern, ph, t, plan, (xi0, xi1)):
            return False
        xi = np.array([xi0, xi1])
        nominal = self._step
        assert nominal is not None
        ref = pattern.swing(t)
        acc = ref[3][:3] if ref is not None else np.zeros(3)
        pos, vel = robot.frame_placement(frame).translation, robot.frame_velocity(frame)[:3]
        current = pattern.footstep(ph.step).placement.translation[:2]
        if self._timing is None:
            self._timing = self._choose_timing(pattern, ph, t, xi, (pos, vel, acc), current)
            ph = pattern.phase(t)
            left = ph.t1 - t
        zeta, offset, retimed = self._timing
        xy = capture_step(w, xi, zeta, offset, left)
        target = reachable(pattern, ph, xy, yaw_of(nominal.rotation), self.reach, self.apart)
        fresh = retimed and self._path is None  # (a retimed swing needs its own path at once)
        if not fresh and (float(np.linalg.norm(target - current)) < 2e-3 or left < ADAPT_STOP):
            return False
        target = speed_limited(pos[:2], vel[:2], acc[:2], current, target, left, self.swing_speed,
                               self.swing_accel)  # fmt: skip
        if not fresh and float(np.linalg.norm(target - current)) < 2e-3:
            return False
        pattern.set_step(ph.step, pin.SE3(nominal.rotation, np.array([*target, nominal.translation[2]])))
        goal = pattern.footstep(ph.step).placement.translation
        self._path = (t, quintic(pos.copy(), vel, acc, goal.copy(), left))
        return True

    def _starts(self, pattern: WalkingPattern, ph: Phase, t: float, plan: Lipm, xi: tuple[float, float]
                ) -> bool:  # fmt: skip
        """Whether the swing starts adapting at time t: the DCM ``xi``'s error from the plan at lift-off,
        grown as e^{ω(t_td − t)}, reaches :attr:`threshold` (then the swing's nominal footstep is kept)."""
        nominal_plan = self._nominal
        assert nominal_plan is not None
        # (the plan at lift-off: the pattern itself while no footstep moved since, the same numbers)
        n0, n1 = (plan if pattern.version == self._nominal_version else nominal_plan.lipm(t))[1]
        if math.exp(pattern.omega * (ph.t1 - t)) * math.hypot(xi[0] - n0, xi[1] - n1) < self.threshold:
            return False
        self._adapting = True
        self._step = nominal_plan.footstep(ph.step).placement
        return True

    def _choose_timing(self, pattern: WalkingPattern, ph: Phase, t: float, xi: np.ndarray,
                       foot: tuple[np.ndarray, np.ndarray, np.ndarray], current: np.ndarray
                       ) -> tuple[np.ndarray, np.ndarray, bool]:  # fmt: skip
        """The swing's touch-down time, chosen once (when it starts adapting) with its footstep: among
        times from :data:`ADAPT_STOP` to the plan's, every :data:`TIMING_STEP`
        (:func:`~wbcpy.locomotion.step_timing.touchdown_choice`; the footstep the swing reaches in T: the
        capture step in the reach box, limited to the swing's speed and acceleration); the pattern is
        retimed when an earlier one does better — only for a capture step away from the stance foot
        (:meth:`_steps_out`). Returns (ζ, b, retimed).

        Args:
            xi: the measured DCM (2,). foot: the swing sole's position, velocity and reference
                acceleration (world, 3 each). current: the swing's footstep now (2,).
        """
        nominal_plan = self._nominal
        assert nominal_plan is not None and self._step is not None
        zeta = np.array(nominal_plan.lipm(t)[2])  # (single support: the stance sole's centre)
        offset = np.array(nominal_plan.lipm(ph.t1)[1]) - self._step.translation[:2]
        left = ph.t1 - t
        if left <= ADAPT_STOP + TIMING_STEP:
            return zeta, offset, False
        if not self._steps_out(pattern, ph, capture_step(pattern.omega, xi, zeta, offset, left)):
            return zeta, offset, False
        pos, vel, acc = foot
        yaw = yaw_of(self._step.rotation)

        def place(T: float, u: np.ndarray) -> np.ndarray:
            target = reachable(pattern, ph, u, yaw, self.reach, self.apart)
            return speed_limited(pos[:2], vel[:2], acc[:2], current, target, T, self.swing_speed,
                                 self.swing_accel)  # fmt: skip

        n = math.ceil((left - ADAPT_STOP) / TIMING_STEP) + 1
        times = [ADAPT_STOP + (left - ADAPT_STOP) * i / (n - 1) for i in range(n)]
        T = touchdown_choice(pattern.omega, xi, zeta, offset, times, place, self.timing_tolerance)[0]
        if left - T <= 1e-9:
            return zeta, offset, False
        pattern.retime(ph.step, t + T)
        return zeta, offset, True

    def _steps_out(self, pattern: WalkingPattern, ph: Phase, u: np.ndarray) -> bool:
        """Whether the capture step u (2,) moves the swing's footstep away from the stance foot (sideways,
        in the stance sole's axes): only then does an earlier touch-down, which stops the DCM's growth
        away from the stance foot sooner, ask for a smaller step. A correction towards the stance foot
        cannot be stepped across it: the next swing takes it up, after the double support's retime."""
        assert self._step is not None
        stance = pattern.foot_before(ph.step, str(ph.stance))
        R, c = stance.rotation[:2, :2], stance.translation[:2]
        sign = 1.0 if ph.swing == "left" else -1.0
        return bool(sign * (R.T @ (u - c))[1] > sign * (R.T @ (self._step.translation[:2] - c))[1])

    def override(self, t: float, M: np.ndarray, vel: np.ndarray, acc: np.ndarray) -> None:
        """Write the re-planned swing's ground-plane position, velocity and acceleration at time t into the
        swing reference's buffers (the height keeps the pattern's profile, but a retimed swing's, which
        comes down on the re-planned path over its new time); nothing without one."""
        if self._path is None:
            return
        t0, path = self._path
        pos, pv, pa = path(t - t0)
        M[0, 3], M[1, 3] = pos[0], pos[1]
        vel[0], vel[1] = pv[0], pv[1]
        acc[0], acc[1] = pa[0], pa[1]
        if self.retimed:
            M[2, 3], vel[2], acc[2] = pos[2], pv[2], pa[2]
