"""Finding a biped's soles: :func:`find_feet`.

Which frames are the feet, in this order: the ``feet`` the caller names; the robot's registry entry
(:data:`wbcpy.model.registry.FEET`: Talos's sole frames, iCub's and Romeo's ``l_sole``/``r_sole``, G1's
ankle-roll links); else the two bodies whose collision geometry reaches lowest at the reference posture,
one on each side of the base.

Where the soles are and how large:

* the registry names Talos's sole frames *and* their rectangle (0.2 × 0.13 m, from specs/walking.md): those
  frames are the soles, as they are (also when the caller names the same frames);
* otherwise the soles come from each foot's collision geometry (:mod:`wbcpy.description.collision_points`),
  in *sole axes* — the foot frame's own axes, ordered so that z is the one that points up and x the one
  that points forward (world +x) at the reference posture: the lowest plane is z = h, the lowest z of the
  foot's shapes; the footprint is the part of them within :data:`FLAT_TOLERANCE` of it (the lowest face of
  a box; the vertices of a mesh's flat bottom; the lowest points of spheres); the sole rectangle is the
  footprint's bounding rectangle ``[x₀, x₁] × [y₀, y₁]`` and the contact frame sits at its centre
  ((x₀ + x₁)/2, (y₀ + y₁)/2, h) with the sole axes. When the foot frame is that frame already (within
  :data:`SAME_FRAME_TOLERANCE`) it is the contact frame; else a contact frame ``left_sole`` / ``right_sole``
  is described, fixed to the foot frame, which :meth:`Feet.attach` adds to the model;
* a ``sole`` size (L, W) given by the caller replaces the rectangle's size (around the centre the geometry
  gives; a robot without collision geometry for its feet needs it, and then its foot frames are the soles).

The two feet share one rectangle size: the larger of the two in each direction (mirror-image feet agree
within a fraction of a millimetre).

The reference posture (the axes and the lowest bodies are read there): the caller's, else the robot's SRDF
``half_sitting``, else its first SRDF posture, else the neutral configuration (base at the origin; a URDF
base has x forward, z up: REP 103).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pinocchio as pin

from ..description.collision_points import body_points, lowest_points
from ..description.robot_files import geometry_model
from ..errors import ConfigError, UnknownNameError, URDFError
from .feet import MU, Feet, Sole

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel

#: how far above a foot's lowest plane its geometry still rests on flat ground (m): a coarse collision
#: mesh's flat bottom is flat to a fraction of a millimetre
FLAT_TOLERANCE = 5e-4
#: a foot frame within this distance (m) of its sole's centre is the sole frame itself
SAME_FRAME_TOLERANCE = 1e-3
#: the smallest sole half size (m) walking accepts from the geometry (a foot that rests on a point or a
#: line needs its sole given)
MIN_HALF_SIZE = 5e-3
SIDES = ("left", "right")


def reference_posture(robot: RobotModel) -> np.ndarray:
    """The posture the feet's axes are read at (module docstring): SRDF ``half_sitting``, else the first
    SRDF posture, else the neutral configuration."""
    names = robot.reference_configuration_names()
    if names:
        return robot.reference_configuration("half_sitting" if "half_sitting" in names else names[0])
    return robot.neutral()


def parse_sole(value: Any) -> tuple[float, float] | None:
    """A sole size as (length, width) in m: None, a pair of numbers or the text ``"LxW"`` (``0.2x0.13``).

    Raises:
        ConfigError: (field ``sole``) anything else, or sizes that are not finite and > 0.
    """
    if value is None:
        return None
    try:
        parts = [float(x) for x in value.lower().split("x")] if isinstance(value, str) else list(value)
        length, width = (float(x) for x in parts)
    except (TypeError, ValueError, AttributeError):
        raise ConfigError(
            "sole", f"expected LENGTHxWIDTH in m (e.g. 0.2x0.13) or a pair, got {value!r}"
        ) from None
    if not all(math.isfinite(x) and x > 0.0 for x in (length, width)):
        raise ConfigError("sole", f"length and width must be finite and > 0, got {value!r}")
    return length, width


def _frames(robot: RobotModel, feet: Any) -> tuple[str, str] | None:
    if feet is None:
        return None
    names = [s.strip() for s in feet.split(",")] if isinstance(feet, str) else feet
    if isinstance(names, (str, bytes)) or not isinstance(names, Sequence) or len(names) != 2:
        raise ConfigError("feet", f"expected two frame names (left, right), got {feet!r}")
    if not all(isinstance(n, str) and n for n in names):
        raise ConfigError("feet", f"expected two frame names (left, right), got {feet!r}")
    if names[0] == names[1]:
        raise ConfigError("feet", f"the left and right feet are the same frame {names[0]!r}")
    for name in names:
        robot.frame_id(name)  # (UnknownNameError listing close names)
    return str(names[0]), str(names[1])


def _registry(robot: RobotModel) -> tuple[tuple[str, str] | None, tuple[float, float] | None]:
    """The registry's feet of the robot, when it has those frames."""
    from ..model.registry import robot_entry

    try:
        entry = robot_entry(robot.name)
    except UnknownNameError:
        return None, None
    if entry.feet is None or not all(robot.model.existFrame(f) for f in entry.feet):
        return None, None
    return entry.feet, entry.sole


def sole_axes(rotation: np.ndarray) -> np.ndarray:
    """The sole axes of a foot frame whose world rotation is ``rotation``: the signed permutation A of its
    axes (columns: sole x, y, z in the frame's axes; det A = 1) with z the frame axis that points most
    nearly up and x the one of the two others that points most nearly forward (world +x)."""
    up = rotation.T @ np.array([0.0, 0.0, 1.0])
    k = int(np.argmax(np.abs(up)))
    z = np.zeros(3)
    z[k] = math.copysign(1.0, up[k])
    forward = rotation.T @ np.array([1.0, 0.0, 0.0])
    forward[k] = 0.0
    i = int(np.argmax(np.abs(forward)))
    x = np.zeros(3)
    x[i] = 1.0 if forward[i] >= 0.0 else -1.0
    return np.stack((x, np.cross(z, x), z), axis=1)


def _geometry(robot: RobotModel, frames: Sequence[str] | None = None) -> pin.GeometryModel | None:
    """The collision geometry of the bodies that carry ``frames`` (all bodies: None); None without a URDF."""
    links = None
    if frames is not None:
        model = robot.model
        joints = {model.frames[robot.frame_id(f)].parentJoint for f in frames}
        links = {f.name for f in model.frames if f.type == pin.FrameType.BODY and f.parentJoint in joints}
    try:
        return geometry_model(robot, pin.GeometryType.COLLISION, links)
    except URDFError:
        return None


def _footprint(
    robot: RobotModel, frame: str, R: np.ndarray, geom: pin.GeometryModel | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(A, centre in the frame's axes, half sizes) of a foot frame's sole from its body's collision
    geometry, or None when it has none."""
    A = sole_axes(R)
    points = np.zeros((0, 3)) if geom is None else body_points(robot, frame, A[:, 2], geom)
    if not points.size:
        return None
    local = points @ A  # (in sole axes)
    h = float(local[:, 2].min())
    band = local[local[:, 2] <= h + FLAT_TOLERANCE]
    lo, hi = band[:, :2].min(axis=0), band[:, :2].max(axis=0)
    centre = A @ np.array([0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), h])
    return A, centre, 0.5 * (hi - lo)


def _sole(robot: RobotModel, side: str, frame: str, A: np.ndarray, centre: np.ndarray) -> Sole:
    if float(np.linalg.norm(centre)) <= SAME_FRAME_TOLERANCE and np.allclose(A, np.eye(3)):
        return Sole(frame, frame)
    name = f"{side}_sole"
    if robot.model.existFrame(name):
        name = f"{frame}_sole"
    placement = np.eye(4)
    placement[:3, :3], placement[:3, 3] = A, centre
    return Sole(name, frame, placement)


def _derived(
    robot: RobotModel, frames: tuple[str, str], sole: tuple[float, float] | None, q: np.ndarray, mu: float
) -> Feet:
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, q)
    geom = _geometry(robot, frames)
    soles, halves = [], []
    for side, frame in zip(SIDES, frames, strict=True):
        found = _footprint(robot, frame, data.oMf[robot.frame_id(frame)].rotation, geom)
        if found is None:
            if sole is None:
                raise ConfigError(
                    "sole", f"foot {frame!r} has no collision geometry to find its sole from: give the sole "
                    "frames and their size (feet=(LEFT, RIGHT), sole=(L, W); --feet, --sole)",
                )  # fmt: skip
            soles.append(Sole(frame, frame))
            continue
        A, centre, half = found
        if sole is None and float(half.min()) < MIN_HALF_SIZE:
            raise ConfigError(
                "sole", f"the lowest face of foot {frame!r} is only {2 * half[0]:.3f} × {2 * half[1]:.3f} m: "
                "give the sole size (sole=(L, W); --sole LxW)",
            )  # fmt: skip
        soles.append(_sole(robot, side, frame, A, centre))
        halves.append(half)
    half_size = (0.5 * sole[0], 0.5 * sole[1]) if sole is not None else tuple(np.max(halves, axis=0))
    return Feet(soles[0], soles[1], (float(half_size[0]), float(half_size[1])), mu, "collision geometry")


def _lowest_bodies(robot: RobotModel, q: np.ndarray) -> tuple[str, str]:
    """The (left, right) frames of the two bodies whose collision shapes reach lowest at q, one on each
    side of the base (world y at q)."""
    geom = _geometry(robot)
    model = robot.model
    if geom is None or not robot.floating_base:
        raise ConfigError(
            "feet", f"robot {robot.name!r}: name its feet (feet=(LEFT, RIGHT); --feet LEFT,RIGHT)"
        )
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    up = np.array([0.0, 0.0, 1.0])
    best: dict[str, tuple[float, str]] = {}
    for obj in geom.geometryObjects:
        M = data.oMi[obj.parentJoint]
        points = lowest_points(obj, M.rotation.T @ up, pin.SE3.Identity()) @ M.rotation.T + M.translation
        if not points.size or obj.parentJoint <= 1:
            continue
        z, side = float(points[:, 2].min()), "left" if float(points[:, 1].mean()) > q[1] else "right"
        if side not in best or z < best[side][0]:
            best[side] = (z, model.frames[obj.parentFrame].name)
    if len(best) < 2 or abs(best["left"][0] - best["right"][0]) > 0.02:
        raise ConfigError(
            "feet",
            f"robot {robot.name!r}: no pair of feet found; name its feet (feet=(LEFT, RIGHT); "
            "--feet LEFT,RIGHT)",
        )
    return best["left"][1], best["right"][1]


def find_feet(
    robot: RobotModel, feet: Any = None, sole: Any = None, mu: float | None = None, posture: Any = None
) -> Feet:
    """The robot's soles (see the module docstring for the rules).

    Args:
        robot: the robot (its model and URDF; its state is not used).
        feet: (left, right) frame names, ``"LEFT,RIGHT"``, or None: the registry's or the lowest bodies.
        sole: the rectangle's size (length, width) in m, ``"LxW"``, or None: the geometry's.
        mu: the friction coefficient (default :data:`~wbcpy.locomotion.feet.MU`).
        posture: the reference posture (nq) the feet's axes are read at; default
            :func:`reference_posture`.

    Returns:
        The :class:`Feet`; frames the robot lacks are added by :meth:`Feet.attach`.

    Raises:
        ConfigError: bad ``feet``/``sole``/``mu``, feet without geometry and no size, a foot whose lowest
            face is a point or a line and no size, no feet found. UnknownNameError: an unknown frame.
    """
    frames, size = _frames(robot, feet), parse_sole(sole)
    friction = MU if mu is None else mu
    if isinstance(friction, bool) or not isinstance(friction, (int, float)):
        raise ConfigError("mu", f"must be a finite number > 0, got {mu!r}")
    q = reference_posture(robot) if posture is None else np.array(posture, dtype=float)
    registry_frames, registry_size = _registry(robot)
    if frames is None or frames == registry_frames:
        frames = registry_frames
        if frames is not None and registry_size is not None:
            half = size if size is not None else registry_size
            return Feet(Sole(frames[0], frames[0]), Sole(frames[1], frames[1]),
                        (0.5 * half[0], 0.5 * half[1]), float(friction), "registry")  # fmt: skip
    if frames is None:
        frames = _lowest_bodies(robot, q)
    return _derived(robot, frames, size, q, float(friction))


def as_feet(robot: RobotModel, feet: Any = None) -> Feet:
    """The ``feet`` argument of the walking API as :class:`Feet`: a :class:`Feet` as it is; a pair of
    frame names (left, right) or None: :func:`find_feet` on the robot.

    Raises:
        ConfigError, UnknownNameError: see :func:`find_feet`.
    """
    return feet if isinstance(feet, Feet) else find_feet(robot, feet)
