"""Walking parameters that scale with the robot: :class:`WalkingScale` and :func:`walking_scale`.

The walking controller was tuned on Talos (90 kg, its COM 0.928 m above its soles with straight legs).
Another humanoid walks with the same controller scaled to its size and mass:

* lengths scale with the robot's *size* s = ℓ / ℓ_Talos, ℓ its COM height above the soles with straight
  legs at its neutral configuration (rounded to the percent, so Talos's s is 1 exactly): the swing apex
  (0.05 s m), the default step length (0.15 s m, to the centimetre), the footstep-adaptation reach box,
  the adaptation threshold; the COM height is the start posture's (:mod:`~wbcpy.locomotion.standing`
  bends the knees to a fraction of ℓ when the SRDF has no posture);
* times scale as √s (Froude similarity: a pendulum of length ℓ swings in √(ℓ/g)), so the tasks' PD gains —
  accelerations per metre or per radian, the same for any mass with an exact inverse-dynamics model —
  scale as k_p ∝ 1/s, k_d ∝ 1/√s, and the DCM feedback gain (1/s) as 1/√s;
* forces scale with the weight m·g: a sole's largest normal force (1.5 m·g), the force rows of the
  controller's contacts; torques are the URDF's effort limits (where the URDF gives none the controller
  warns: :class:`~wbcpy.errors.EffortLimitWarning`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pinocchio as pin

from .feet import Feet

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel

#: Talos's COM height above its soles with straight legs (neutral configuration), m
TALOS_COM_HEIGHT = 0.928


def _sole_points(robot: RobotModel, feet: Feet, data: pin.Data) -> list[np.ndarray]:
    """The soles' origins (world) from the frame placements of ``data`` (through their parents)."""
    out = []
    for sole in feet.soles:
        parent = data.oMf[robot.frame_id(sole.parent)]
        out.append(parent.rotation @ sole.placement[:3, 3] + parent.translation)
    return out


def _neutral_width(robot: RobotModel, feet: Feet) -> float:
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, robot.neutral())
    left, right = _sole_points(robot, feet, data)
    return float(np.linalg.norm(left[:2] - right[:2]))


def straight_com_height(robot: RobotModel, feet: Feet) -> float:
    """The COM's height above the soles' mean height at the neutral configuration (m): the robot's size
    with straight legs (the robot need not have the sole frames: they are placed through their parents)."""
    model = robot.model
    data = model.createData()
    q = robot.neutral()
    pin.framesForwardKinematics(model, data, q)
    com = pin.centerOfMass(model, data, q)
    return float(com[2] - np.mean([p[2] for p in _sole_points(robot, feet, data)]))


@dataclass(frozen=True)
class WalkingScale:
    """The scaled walking parameters of one robot (see the module docstring).

    Attributes:
        size: s = ℓ / ℓ_Talos, to the percent. mass: the robot's mass (kg).
        width: the distance between the soles at the start (m; Talos's half_sitting: 0.17).
    """

    size: float = 1.0
    mass: float = 90.27
    width: float = 0.17

    @property
    def step_height(self) -> float:
        """The swing foot's apex height (m)."""
        return 0.05 * self.size

    @property
    def step_length(self) -> float:
        """The default forward advance per step (m, to the centimetre)."""
        return round(0.15 * self.size, 2)

    @property
    def reach(self) -> tuple[tuple[float, float], tuple[float, float]]:
        """The footstep-adaptation reach box in the stance sole's axes (m): forward (min, max) = (−0.3 s,
        0.5 s) and sideways away from the stance foot (min, max) = (w − 0.01 s, w + 0.28 s) to the
        centimetre, w the soles' distance at the start (Talos: (−0.3, 0.5), (0.16, 0.45))."""
        s, w = self.size, self.width
        return (-0.3 * s, 0.5 * s), (round(w - 0.01 * s, 2), round(w + 0.28 * s, 2))

    @property
    def adapt_threshold(self) -> float:
        """The capture-point shift (m) from which a swing adapts its footstep."""
        return 0.03 * self.size

    @property
    def time(self) -> float:
        """The time scale √s (1 for Talos)."""
        return math.sqrt(self.size)

    def gains(self, kp: float, kd: float | None = None) -> tuple[float, float]:
        """Talos's PD gains (k_p, k_d; k_d default 2√k_p) at this robot's time scale: (k_p/s, k_d/√s)."""
        d = 2.0 * math.sqrt(kp) if kd is None else kd
        if self.size == 1.0:
            return kp, d
        return kp / self.size, d / self.time

    @property
    def weight(self) -> float:
        """m·g (N)."""
        return self.mass * 9.81


def walking_scale(robot: RobotModel, feet: Feet) -> WalkingScale:
    """The robot's :class:`WalkingScale`: its size from :func:`straight_com_height`, its mass, the distance
    between its soles at its current state (its neutral configuration's without a state)."""
    size = round(straight_com_height(robot, feet) / TALOS_COM_HEIGHT, 2)
    if robot.has_state:
        left, right = (sole.world(robot).translation[:2] for sole in feet.soles)
        width = float(np.linalg.norm(left - right))
    else:
        width = _neutral_width(robot, feet)
    return WalkingScale(max(size, 0.01), float(robot.total_mass), width)
