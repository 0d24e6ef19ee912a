"""A robot made ready to walk: :func:`walking_robot` — its soles found and added, massless joints locked,
its start posture chosen.

A joint that moves no mass — every body of its subtree has zero mass and zero inertia, as Romeo's 24
finger joints — has no dynamics: its row of the mass matrix is zero, so no torque determines its
acceleration and Pinocchio's contact dynamics (the plant) has no answer. Walking locks such joints at the
start posture (``pin.buildReducedModel``: they become fixed joints, every frame and geometry stays), with
a :class:`~wbcpy.errors.WalkingWarning` naming them; the walk log lists them (``locked_joints``).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
import pinocchio as pin

from ..errors import ConfigError, WalkingWarning
from .feet import Feet
from .sole_finder import find_feet
from .standing import start_posture

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel

__all__ = ["massless_joints", "walking_robot"]


def massless_joints(model: pin.Model) -> list[int]:
    """The ids of the joints (the free-flyer excepted) whose subtree carries no mass and no inertia."""
    out = []
    for j in range(1, model.njoints):
        if model.joints[j].shortname() == "JointModelFreeFlyer":
            continue
        inertias = [model.inertias[k] for k in model.subtrees[j]]
        if all(i.mass == 0.0 and not np.any(i.inertia) for i in inertias):
            out.append(j)
    return out


def _lock(robot: RobotModel, q0: np.ndarray, joints: list[int]) -> tuple[RobotModel, np.ndarray]:
    """The robot with ``joints`` locked at q0, and q0 without their coordinates."""
    from ..model.robot_model import RobotModel

    model = robot.model
    reduced = pin.buildReducedModel(model, joints, q0)
    keep = [
        k for j in range(1, model.njoints) if j not in joints
        for k in range(model.joints[j].idx_q, model.joints[j].idx_q + model.joints[j].nq)
    ]  # fmt: skip
    out = RobotModel(reduced, name=robot.name, source=robot.source, package_dirs=robot.package_dirs)
    out.urdf_path, out.urdf_text, out.srdf_path = robot.urdf_path, robot.urdf_text, robot.srdf_path
    return out, q0[keep].copy()


def walking_robot(
    robot: Any, feet: Any = None, sole: Any = None, posture: Any = None
) -> tuple[RobotModel, Feet, np.ndarray, list[str]]:
    """The robot ready to walk, its soles, its start posture (set as its state) and the joints locked.

    Args:
        robot: a registry name or a floating-base :class:`~wbcpy.model.robot_model.RobotModel` (never
            modified: frames are added to, and joints locked in, a new robot).
        feet, sole: :func:`~wbcpy.locomotion.sole_finder.find_feet` (``feet`` may be a :class:`Feet`).
        posture: :func:`~wbcpy.locomotion.standing.start_posture`.

    Raises:
        ConfigError: a fixed-base robot, bad feet, sole or posture. UnknownNameError: an unknown robot,
            frame or posture.
    """
    from ..model.registry import load_robot
    from ..model.robot_model import RobotModel

    model = robot if isinstance(robot, RobotModel) else load_robot(str(robot))
    if not model.floating_base:
        raise ConfigError("robot", "walking needs a floating-base robot")
    soles = feet if isinstance(feet, Feet) and sole is None else find_feet(model, feet, sole)
    model = soles.attach(model)
    q0 = start_posture(model, soles, posture)
    locked = massless_joints(model.model)
    names = [model.model.names[j] for j in locked]
    if locked:
        warnings.warn(
            WalkingWarning(
                f"robot {model.name!r}: {len(locked)} joint(s) move no mass ({', '.join(names[:6])}"
                f"{' ...' if len(names) > 6 else ''}); they are locked at the start posture"
            ),
            stacklevel=3,
        )
        model, q0 = _lock(model, q0, locked)
    model.update(q0, np.zeros(model.nv))
    return model, soles, q0, names
