"""Push recovery: capture-point footstep adaptation of a walking controller's swings.

In single support, with the stance ZMP fixed, an error e = ξ − ξ_nom of the measured DCM ξ = x + ẋ/ω from
the plan's at lift-off grows as e^{ω(t_td − t)} e until touch-down (Englsberger, Ott and Albu-Schäffer
2015, sec. on step adjustment): the swing foot lands that much beside its nominal footstep, clamped to
the reach box of the stance sole and off its footprint (:func:`reachable`). The pattern is re-planned over
the moved footstep (:meth:`~wbcpy.locomotion.WalkingPattern.set_step`) and the swing's ground-plane path
re-planned from the foot's measured state: a quintic to the new footstep, zero velocity and acceleration
at touch-down. On a real floor (measured contacts) the move is limited so that the re-planned swing's
ground speed stays within the adaptation's speed limit (:mod:`~wbcpy.locomotion.swing_speed`): a foot
that lands moving slides.
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
from .swing_speed import speed_limited

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel
    from .pattern import Phase, WalkingPattern

#: the last part of a swing (s) that keeps its footstep: a re-plan later than this asks the swing leg for
#: accelerations it cannot follow, and the foot lands moving
ADAPT_STOP = 0.1
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
    swing adapts, the re-planned swing path.

    Plain attributes (the path is a :class:`~wbcpy.locomotion.profiles.Quintic` object, no closure):
    copies and pickles are independent; it belongs to its controller, whose contract covers threads.

    Attributes:
        threshold: the capture-point shift (m) from which a swing adapts. reach: the reach box
            (:func:`reachable`). apart: the soles' half sizes (m) and the clearance (m) kept between the
            soles (:func:`reachable`). swing_speed: the re-planned swing's largest ground speed (m/s)
            with measured contacts.
    """

    def __init__(self, threshold: float, reach: Reach, apart: tuple[tuple[float, float], float],
                 swing_speed: float) -> None:  # fmt: skip
        self.threshold, self.reach = threshold, reach
        self.apart, self.swing_speed = apart, swing_speed
        self._nominal: WalkingPattern | None = None
        self._nominal_version = -1  # the pattern's version when _nominal was copied from it
        self._adapting = False
        self._path: tuple[float, Quintic] | None = None
        self._step: pin.SE3 | None = None  # the swing's nominal footstep, once it adapts

    @property
    def adapting(self) -> bool:
        """Whether the current swing adapts its footstep (the controller's hip strategy then)."""
        return self._adapting

    def lift_off(self, pattern: WalkingPattern) -> None:
        """A swing starts: the pattern as it is now is the swing's nominal plan."""
        self._nominal, self._nominal_version = pattern.copy(), pattern.version
        self._adapting, self._path, self._step = False, None, None

    def adapt(self, pattern: WalkingPattern, robot: RobotModel, frame: str, t: float, ph: Phase, plan: Lipm,
              x: list[float], v: list[float], limit_speed: bool = False) -> bool:  # fmt: skip
        """Move the swinging footstep (and re-plan) if the measured DCM asks for it.

        Args:
            pattern: the live plan. robot: at the measured state. frame: the swing sole's frame.
            t: time (s). ph: the pattern's phase at t. plan: its :meth:`~WalkingPattern.lipm` at t.
            x, v: the measured COM position and velocity (world, m and m/s, as float lists).
            limit_speed: keep the re-planned swing within :attr:`swing_speed` (a real floor).

        Returns:
            True when the footstep (and with it the plan) moved.
        """
        nominal_plan = self._nominal
        if ph.kind != "single" or ph.swing is None or nominal_plan is None:
            return False
        w, left = pattern.omega, ph.t1 - t
        # (the plan at lift-off: the pattern itself while no footstep moved since, the same numbers)
        n0, n1 = (plan if pattern.version == self._nominal_version else nominal_plan.lipm(t))[1]
        grow = math.exp(w * left)
        shift = (grow * ((x[0] + v[0] / w) - n0), grow * ((x[1] + v[1] / w) - n1))
        if not self._adapting and math.hypot(*shift) < self.threshold:
            return False
        self._adapting = True
        if self._step is None:
            self._step = nominal_plan.footstep(ph.step).placement
        nominal = self._step
        xy = nominal.translation[:2] + np.array(shift)
        target = reachable(pattern, ph, xy, yaw_of(nominal.rotation), self.reach, self.apart)
        current = pattern.footstep(ph.step).placement.translation[:2]
        if float(np.linalg.norm(target - current)) < 2e-3 or left < ADAPT_STOP:
            return False
        ref = pattern.swing(t)
        acc = ref[3][:3] if ref is not None else np.zeros(3)
        pos, vel = robot.frame_placement(frame).translation, robot.frame_velocity(frame)[:3]
        if limit_speed:
            target = speed_limited(pos[:2], vel[:2], acc[:2], current, target, left, self.swing_speed)
            if float(np.linalg.norm(target - current)) < 2e-3:
                return False
        pattern.set_step(ph.step, pin.SE3(nominal.rotation, np.array([*target, nominal.translation[2]])))
        goal = pattern.footstep(ph.step).placement.translation
        self._path = (t, quintic(pos.copy(), vel, acc, goal.copy(), left))
        return True

    def override(self, t: float, M: np.ndarray, vel: np.ndarray, acc: np.ndarray) -> None:
        """Write the re-planned swing's ground-plane position, velocity and acceleration at time t into the
        swing reference's buffers (the height keeps the pattern's profile); nothing without one."""
        if self._path is None:
            return
        t0, path = self._path
        pos, pv, pa = path(t - t0)
        M[0, 3], M[1, 3] = pos[0], pos[1]
        vel[0], vel[1] = pv[0], pv[1]
        acc[0], acc[1] = pa[0], pa[1]
