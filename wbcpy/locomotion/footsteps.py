"""Footsteps on flat ground: :class:`Footstep` and :func:`plan_footsteps` (``specs/walking.md``).

A footstep is where a sole lands: its side and its placement (a ``pin.SE3`` of the sole frame, world
axes, z axis vertical, yaw only). The planner walks a *walking frame* (the feet's midpoint and heading)
forward: with dθ = turn / (n − 1), footstep k (1 ≤ k < n) lands at

    m_k = m_{k−1} + R(θ_k) (length, lateral),   θ_k = θ_0 + k dθ,   sole at m_k + R(θ_k) (0, ±width/2)

(+ on the left), footstep n lands beside footstep n − 1 (same m, θ). On a straight walk the feet's
midpoint thus moves (n − 1)·(length, lateral) and the heading changes by ``turn`` in all.

A plan must be walkable as stated: the heading may change by at most π/2 per footstep (a swing sole then
turns by at most π, so its shortest turn is the planned one).

Feet kept apart: stepping sideways brings the trailing foot to width − |lateral| of the leading one, and
soles must not overlap (:mod:`~wbcpy.locomotion.sole_gap`): that distance must be at least the sole width
plus a clearance (0.02 m at Talos's size, scaled by the robot's). ``width=None`` keeps today's feet
distance, widened to that least width where a sideways walk needs it; a ``width`` below it is refused;
a plan whose footsteps overlap the foot they land beside (a sharp turn) is refused too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pinocchio as pin

from ..errors import ConfigError, safe_repr
from ..model.robot_model import RobotModel
from . import _checks
from .scaling import walking_scale
from .sole_finder import as_feet
from .sole_gap import SOLE_CLEARANCE, footprint_gap, min_width

#: the sides of a biped, in the order of the walking API's (left, right) pairs
SIDES = ("left", "right")
#: the most footsteps a plan takes
MAX_STEPS = 1000
#: largest |length|, |lateral| per footstep and feet distance (m)
MAX_ADVANCE = 2.0


def yaw_of(rotation: np.ndarray) -> float:
    """Heading (rad) of a rotation matrix: the angle of its x axis projected on the ground plane."""
    return math.atan2(float(rotation[1, 0]), float(rotation[0, 0]))


def _rz(yaw: float) -> np.ndarray:
    c, s = math.cos(yaw), math.sin(yaw)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


@dataclass
class Footstep:
    """One footstep: its side and placement, checked when built (the placement copied).

    Plain data: ``copy.copy`` shares the placement, ``copy.deepcopy`` and pickles copy it; threads may
    read a footstep no one changes. A pattern copies its footsteps (and checks them again) when built.

    Attributes:
        side: ``"left"`` or ``"right"``.
        placement: the sole frame's placement at touch-down (world, m; flat: a yaw rotation).
    """

    side: str
    placement: pin.SE3

    def __post_init__(self) -> None:
        """Check the side and the placement (a flat, finite sole placement, copied).

        Raises:
            ConfigError: (``side``) not ``"left"``/``"right"``; (``placement``) a tilted or far placement.
            InvalidValueError: (``placement``) not a finite ``pin.SE3`` with a proper rotation.
        """
        if not isinstance(self.side, str) or self.side not in SIDES:
            raise ConfigError("side", f"must be 'left' or 'right', got {safe_repr(self.side)}")
        self.placement = _checks.sole_placement(self.placement, "placement")

    @property
    def yaw(self) -> float:
        """Heading of the sole (rad)."""
        return yaw_of(self.placement.rotation)

    @property
    def xy(self) -> np.ndarray:
        """Ground position of the sole frame's origin (2,), m."""
        return np.array(self.placement.translation[:2], dtype=float)

    def row(self) -> np.ndarray:
        """The log row ``(side, x, y, yaw)`` with side 0 (left) or 1 (right)."""
        return np.array([SIDES.index(self.side), *self.xy, self.yaw])


def feet_frame(robot: RobotModel, feet: Any = None) -> tuple[np.ndarray, float, float, float]:
    """The walking frame of the robot's current feet: (midpoint xy, heading θ, feet distance, ground z).

    The heading is the mean of the soles' yaws; the distance is measured along the frame's y axis.

    Args:
        robot: the robot, with a state set.
        feet: its soles (:func:`~wbcpy.locomotion.sole_finder.as_feet`: a Feet, (left, right) frames, None).

    Raises:
        StateNotSetError: the robot has no state; UnknownNameError: an unknown foot frame.
    """
    left, right = (sole.world(robot) for sole in as_feet(robot, feet).soles)
    mid = 0.5 * (left.translation[:2] + right.translation[:2])
    yl, yr = yaw_of(left.rotation), yaw_of(right.rotation)
    theta = math.atan2(math.sin(yl) + math.sin(yr), math.cos(yl) + math.cos(yr))
    lateral_axis = np.array([-math.sin(theta), math.cos(theta)])
    width = float(lateral_axis @ (left.translation[:2] - right.translation[:2]))
    ground = 0.5 * float(left.translation[2] + right.translation[2])
    return mid, theta, width, ground


def plan_footsteps(
    robot: RobotModel,
    n_steps: int = 8,
    length: float = 0.15,
    width: float | None = None,
    turn: float = 0.0,
    lateral: float = 0.0,
    first: str = "left",
    feet: Any = None,
) -> list[Footstep]:
    """Footsteps from the robot's current feet (see the module docstring for the geometry).

    Args:
        robot: the robot, with a state set (its soles on the ground).
        n_steps: number of footsteps n, 1 ≤ n ≤ :data:`MAX_STEPS` (n = 1: one step in place beside the
            other foot).
        length: forward advance of the walking frame per step (m, |length| ≤ 2).
        width: distance between the soles (m, at most 2, at least the sole width plus the clearance plus
            |lateral|: module docstring); None keeps today's, widened to that where needed.
        turn: total heading change (rad, counter-clockwise), at most π/2 per step (|turn| ≤ (n − 1)·π/2);
            needs n ≥ 2 when non-zero.
        lateral: sideways advance per step (m, + to the left, |lateral| ≤ 2).
        first: the side that steps first.
        feet: the soles: a :class:`~wbcpy.locomotion.feet.Feet`, (left, right) frame names, or None for the
            robot's own (:func:`~wbcpy.locomotion.sole_finder.find_feet`); their half sizes bound the width.

    Returns:
        n :class:`Footstep` with alternating sides, starting with ``first``.

    Raises:
        ConfigError: a bad argument (the field named; ``width`` for soles closer than their width);
            UnknownNameError: an unknown foot frame; StateNotSetError without a robot state.
    """
    if not isinstance(robot, RobotModel):
        raise ConfigError("robot", f"expected a RobotModel, got {type(robot).__name__}")
    n_steps = _checks.integer(n_steps, "n_steps", 1, MAX_STEPS)
    length = _checks.number(length, "length", -MAX_ADVANCE, MAX_ADVANCE, unit=" m")
    lateral = _checks.number(lateral, "lateral", -MAX_ADVANCE, MAX_ADVANCE, unit=" m")
    turn = _checks.number(turn, "turn", unit=" rad")
    if first not in SIDES:
        raise ConfigError("first", f"must be 'left' or 'right', got {safe_repr(first)}")
    if n_steps == 1 and turn != 0.0:
        raise ConfigError("turn", "a turn needs at least 2 steps")
    dtheta = turn / (n_steps - 1) if n_steps > 1 else 0.0
    if abs(dtheta) > 0.5 * math.pi:
        why = f"at most π/2 per step: {turn:g} rad in {n_steps} steps turns {dtheta:.3g} rad per step"
        raise ConfigError("turn", why)
    soles = as_feet(robot, feet)
    mid, theta0, width0, ground = feet_frame(robot, soles)
    clearance = SOLE_CLEARANCE * walking_scale(robot, soles).size
    least = min_width(soles.half_size, lateral, clearance)
    if width is None:
        w = max(width0, least)
    else:
        w = _checks.number(width, "width", 0.0, MAX_ADVANCE, lo_open=True, unit=" m")
    if w < least - 1e-12:
        raise ConfigError(
            "width", f"the soles would overlap or touch: feet distance {w:.3f} m, stepping "
            f"{abs(lateral):.3f} m sideways; give a width ≥ {least:.3f} m (sole width "
            f"{2 * soles.half_size[1]:.3f} m, clearance {clearance:.3f} m)",
        )  # fmt: skip
    steps: list[Footstep] = []
    m, theta = mid.copy(), theta0
    for k in range(1, n_steps + 1):
        side = SIDES[(SIDES.index(first) + k - 1) % 2]
        if k < n_steps:
            theta = theta0 + k * dtheta
            m = m + _rz(theta)[:2, :2] @ np.array([length, lateral])
        sign = 1.0 if side == "left" else -1.0
        xy = m + _rz(theta)[:2, :2] @ np.array([0.0, sign * 0.5 * w])
        steps.append(Footstep(side, pin.SE3(_rz(theta), np.array([xy[0], xy[1], ground]))))
    stance = (soles.right if first == "left" else soles.left).world(robot)
    _check_apart([stance, *(s.placement for s in steps)], soles.half_size, "turn" if turn else "width")
    return steps


def _check_apart(placements: list[pin.SE3], half_size: tuple[float, float], field: str) -> None:
    """Refuse footsteps whose footprint overlaps the one before — the other foot's, beside which it lands
    (``placements``: the first stance sole's at the start, then the footsteps').

    Raises:
        ConfigError: (``field``) two footprints overlap.
    """
    for k in range(1, len(placements)):
        gap = footprint_gap(placements[k - 1], placements[k], half_size)
        if gap < 0.0:
            which = "the start" if k == 1 else f"footstep {k - 2}"
            raise ConfigError(field, f"footstep {k - 1} would overlap {which} ({1e3 * gap:.1f} mm)")


def check_footsteps(steps: Any) -> tuple[Footstep, ...]:
    """Validated copies of footsteps: a non-empty list (or tuple) of at most :data:`MAX_STEPS`
    :class:`Footstep` objects with alternating sides, each checked again (a Footstep's fields may have
    been edited since it was built).

    Raises:
        ConfigError: (``steps``, ``steps[i]``, ``steps[i].side``, ``steps[i].placement``) anything else.
        InvalidValueError: (``steps[i].placement``) a placement that is not a finite ``pin.SE3``.
    """
    if isinstance(steps, (str, bytes)) or not isinstance(steps, (list, tuple)):
        raise ConfigError("steps", f"expected a list of Footstep, got {type(steps).__name__}")
    if not steps:
        raise ConfigError("steps", "no footsteps")
    if len(steps) > MAX_STEPS:
        raise ConfigError("steps", f"at most {MAX_STEPS} footsteps, got {len(steps)}")
    out: list[Footstep] = []
    for i, s in enumerate(steps):
        if not isinstance(s, Footstep):
            raise ConfigError(f"steps[{i}]", f"expected a Footstep, got {type(s).__name__}")
        if not isinstance(s.side, str) or s.side not in SIDES:
            raise ConfigError(f"steps[{i}].side", f"must be 'left' or 'right', got {safe_repr(s.side)}")
        if i and s.side == out[-1].side:
            raise ConfigError(f"steps[{i}].side", "sides must alternate")
        out.append(Footstep(s.side, _checks.sole_placement(s.placement, f"steps[{i}].placement")))
    return tuple(out)
