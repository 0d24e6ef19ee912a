"""A robot made ready to walk: :func:`walking_robot` — its soles found and added, joints without inertia
locked, its start posture chosen.

Some published models have joints that move no inertia: Romeo's 24 finger joints carry no mass at all,
iCub's head and hands are point masses (zero rotational inertia), so turning the head about the line
from its neck to its centre of mass moves nothing. The mass matrix M is then singular along those
motions: no torque determines them, and a push or an impact sends them to absurd velocities in the
rigid-contact plant (iCub's neck yaw: 10⁴ rad/s after an 8 N·s push). Walking locks them at the start
posture (``pin.buildReducedModel``: they become fixed joints, every frame and geometry stays): while the
smallest eigenvalue of M at the start posture is below ``INERTIA_RTOL`` times its largest, the 1-DOF
joint that moves most in that eigenvector is locked. A :class:`~wbcpy.errors.WalkingWarning` names them;
the walk log lists them with their positions (``locked_joints``, ``locked_positions``).
"""

from __future__ import annotations

import math
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

#: M's eigenvalues below this fraction of its largest count as zero (Talos, G1: 1e-5; iCub's head: 5e-15)
INERTIA_RTOL = 1e-8


def inertialess_joints(model: pin.Model, q: np.ndarray) -> list[int]:
    """The ids of the 1-DOF joints to lock so that M(q) has no eigenvalue below ``INERTIA_RTOL`` times its
    largest (module docstring), in the order they were found."""
    data = model.createData()
    M = pin.crba(model, data, q)
    M = np.triu(M) + np.triu(M, 1).T
    single = {model.joints[j].idx_v: j for j in range(1, model.njoints) if model.joints[j].nv == 1}
    keep = list(range(model.nv))
    locked: list[int] = []
    while True:
        w, V = np.linalg.eigh(M[np.ix_(keep, keep)])
        if w[0] > INERTIA_RTOL * w[-1]:
            return locked
        weights = np.abs(V[:, 0])
        candidates = [i for i in np.argsort(-weights) if keep[i] in single]
        if not candidates:
            return locked
        v = keep.pop(int(candidates[0]))
        locked.append(single[v])


def _angle(model: pin.Model, q: np.ndarray, j: int) -> float:
    """The position of 1-DOF joint j in q (a continuous joint's angle from its cos, sin)."""
    i = model.joints[j].idx_q
    return math.atan2(float(q[i + 1]), float(q[i])) if model.joints[j].nq == 2 else float(q[i])


def _lock(robot: RobotModel, q0: np.ndarray, joints: list[int]) -> tuple[RobotModel, np.ndarray]:
    """The robot with ``joints`` locked at q0, and q0 without their coordinates."""
    from ..model.robot_model import RobotModel

    model = robot.model
    reduced = pin.buildReducedModel(model, sorted(joints), q0)
    keep = [
        k for j in range(1, model.njoints) if j not in joints
        for k in range(model.joints[j].idx_q, model.joints[j].idx_q + model.joints[j].nq)
    ]  # fmt: skip
    out = RobotModel(reduced, name=robot.name, source=robot.source, package_dirs=robot.package_dirs)
    out.urdf_path, out.urdf_text, out.srdf_path = robot.urdf_path, robot.urdf_text, robot.srdf_path
    return out, q0[keep].copy()


def walking_robot(
    robot: Any, feet: Any = None, sole: Any = None, posture: Any = None
) -> tuple[RobotModel, Feet, np.ndarray, dict[str, float]]:
    """The robot ready to walk, its soles, its start posture (set as its state) and the joints locked.

    Args:
        robot: a registry name or a floating-base :class:`~wbcpy.model.robot_model.RobotModel` (never
            modified: frames are added to, and joints locked in, a new robot).
        feet, sole: :func:`~wbcpy.locomotion.sole_finder.find_feet` (``feet`` may be a :class:`Feet`).
        posture: :func:`~wbcpy.locomotion.standing.start_posture`.

    Returns:
        (robot, feet, q0, {locked joint: its position}).

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
    joints = inertialess_joints(model.model, q0)
    locked = {model.model.names[j]: _angle(model.model, q0, j) for j in joints}
    if joints:
        names = list(locked)
        warnings.warn(
            WalkingWarning(
                f"robot {model.name!r}: {len(names)} joint(s) move no inertia ({', '.join(names[:6])}"
                f"{' ...' if len(names) > 6 else ''}); they are locked at the start posture"
            ),
            stacklevel=3,
        )
        model, q0 = _lock(model, q0, joints)
    model.update(q0, np.zeros(model.nv))
    return model, soles, q0, locked
