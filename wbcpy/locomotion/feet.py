"""A biped's feet: its sole frames, where they sit on the robot, their rectangles and the friction.

:class:`Feet` describes one robot's soles for walking — the contact frame of each sole, the frame it is
fixed to (its *parent*) and its placement there, the sole rectangle's half sizes (the rectangle
``[−X, X] × [−Y, Y]`` in the contact frame's xy-plane, z the sole normal pointing up) and the friction
coefficient of the ground. :func:`find_feet` finds them (:mod:`~wbcpy.locomotion.sole_finder`): from the
registry entry of the robot, from frames and sizes the caller names, or from the feet's collision
geometry. A sole frame that the URDF lacks (Unitree G1's feet end at their ankle-roll links) is added by
:meth:`Feet.attach` as an operational frame under its parent.

The walking API takes a ``feet`` argument everywhere: a :class:`Feet`, a pair of frame names (left,
right), or None for the robot's own (:func:`~wbcpy.locomotion.sole_finder.as_feet`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pinocchio as pin

from ..errors import ConfigError

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel

#: the friction coefficient of the ground (specs/walking.md: μ = 0.3)
MU = 0.3


def _frozen_matrix(value: Any) -> np.ndarray:
    out = np.array(value, dtype=float)
    out.flags.writeable = False
    return out


@dataclass(frozen=True, eq=False)
class Sole:
    """One sole.

    Attributes:
        frame: the contact frame (origin at the sole rectangle's centre, z the sole normal, up).
        parent: the frame it is fixed to (itself when the URDF has it; else the foot frame it was added to).
        placement: its placement in ``parent`` (4×4 homogeneous, read only; identity when it is its own
            parent).
    """

    frame: str
    parent: str
    placement: np.ndarray = field(default_factory=lambda: np.eye(4))

    def __post_init__(self) -> None:
        object.__setattr__(self, "placement", _frozen_matrix(self.placement))

    @property
    def added(self) -> bool:
        """The frame is not the URDF's: :meth:`Feet.attach` adds it under :attr:`parent`."""
        return self.frame != self.parent

    def world(self, robot: RobotModel) -> pin.SE3:
        """The sole's placement in the world at the robot's state (through its parent: the robot need not
        have the frame).

        Raises:
            StateNotSetError: the robot has no state. UnknownNameError: the robot lacks the parent frame.
        """
        if robot.model.existFrame(self.frame):
            return robot.frame_placement(self.frame)
        M = self.placement
        return robot.frame_placement(self.parent) * pin.SE3(M[:3, :3], M[:3, 3])


@dataclass(frozen=True, eq=False)
class Feet:
    """A biped's soles (see the module docstring).

    Attributes:
        left, right: the :class:`Sole` of each foot.
        half_size: (X, Y), the sole rectangle's half sizes (m), both feet.
        mu: the friction coefficient between the soles and the ground.
        source: how they were found (for messages: ``"registry"``, ``"collision geometry"``, ...).

    Frozen: copies share it; pickles are independent equal objects.
    """

    left: Sole
    right: Sole
    half_size: tuple[float, float]
    mu: float = MU
    source: str = ""

    def __post_init__(self) -> None:
        hx, hy = (float(h) for h in self.half_size)
        if not (math.isfinite(hx) and math.isfinite(hy) and hx > 0.0 and hy > 0.0):
            raise ConfigError("sole", f"half sizes must be finite and > 0, got {self.half_size!r}")
        if not (isinstance(self.mu, (int, float)) and math.isfinite(self.mu) and self.mu > 0.0):
            raise ConfigError("mu", f"must be a finite number > 0, got {self.mu!r}")
        if self.left.frame == self.right.frame:
            raise ConfigError("feet", f"the left and right soles are the same frame {self.left.frame!r}")
        object.__setattr__(self, "half_size", (hx, hy))
        object.__setattr__(self, "mu", float(self.mu))

    @property
    def frames(self) -> tuple[str, str]:
        """The (left, right) contact frames."""
        return self.left.frame, self.right.frame

    @property
    def soles(self) -> tuple[Sole, Sole]:
        """(left, right)."""
        return self.left, self.right

    def sole(self, side: str) -> Sole:
        """The sole of ``side`` (``"left"`` or ``"right"``)."""
        if side not in ("left", "right"):
            raise ConfigError("side", f"must be 'left' or 'right', got {side!r}")
        return self.left if side == "left" else self.right

    def missing(self, robot: RobotModel) -> list[Sole]:
        """The soles whose contact frame ``robot`` lacks."""
        return [s for s in self.soles if not robot.model.existFrame(s.frame)]

    def attach(self, robot: RobotModel) -> RobotModel:
        """``robot`` itself when it has every contact frame, else a new robot whose model is a copy of
        its ``pin.Model`` with the missing frames added (``OP_FRAME`` under their parents; the URDF and
        SRDF paths, package folders and state carried over).

        Raises:
            UnknownNameError: the robot lacks a parent frame. ConfigError: a missing contact frame's name
                is a joint's or another frame's of the robot.
        """
        missing = self.missing(robot)
        if not missing:
            return robot
        from ..model.robot_model import RobotModel

        model = pin.Model(robot.model)
        for sole in missing:
            parent = model.frames[robot.frame_id(sole.parent)]
            M = sole.placement
            local = parent.placement * pin.SE3(M[:3, :3], M[:3, 3])
            frame = pin.Frame(sole.frame, parent.parentJoint, robot.frame_id(sole.parent), local,
                              pin.FrameType.OP_FRAME)  # fmt: skip
            model.addFrame(frame, False)
        out = RobotModel(model, name=robot.name, source=robot.source, package_dirs=robot.package_dirs)
        out.urdf_path, out.urdf_text, out.srdf_path = robot.urdf_path, robot.urdf_text, robot.srdf_path
        if robot.has_state:
            q, v, _ = robot.state_view()
            out.update(q, v)
        return out

    def log_arrays(self) -> dict[str, np.ndarray]:
        """The walk log's description of the soles: ``contact_frames`` (2,), ``contact_parents`` (2,),
        ``contact_placements`` (2, 4, 4), ``half_size`` (2,), ``mu``."""
        return {
            "contact_frames": np.array(self.frames),
            "contact_parents": np.array([s.parent for s in self.soles]),
            "contact_placements": np.stack([np.array(s.placement) for s in self.soles]),
            "half_size": np.array(self.half_size),
            "mu": np.array(self.mu),
        }
