"""Points of a robot's collision shapes: what a foot rests on when it stands on flat ground.

:func:`lowest_points` gives, for one collision shape and a direction n (the sole normal, pointing up),
points of the shape among which its lowest ones along n are exactly the shape's lowest face:

* polyhedra — a box (its 8 corners), a convex hull or a mesh (its vertices): the vertices, since the
  lowest face of a polyhedron is the convex hull of its lowest vertices;
* a sphere (centre c, radius r): its support point c − r n; an ellipsoid likewise, c − R diag(a²) Rᵀn /
  ‖diag(a) Rᵀn‖ in its axes;
* a capsule (axis ±h e_z, radius r): the support points of its two end spheres (the lowest face of a
  capsule lying flat is the segment between them);
* a cylinder or a cone: points of the rims of their bases (the lowest face of a cylinder standing on its
  base is the disc those rims bound; a lying cylinder touches along a segment of two rim points).

Meshes of COLLADA files (``.dae``) are read by Pinocchio through coal, which keeps the file's own axes;
a file whose ``<up_axis>`` is ``Y_UP`` or ``X_UP`` means its vertices in axes where that axis is up, so
they are turned to the robot's z-up axes as the COLLADA standard says (Y_UP: (x, y, z) → (x, −z, y);
X_UP: (x, y, z) → (−y, x, z)) — iCub's meshes are Y_UP: read as they are, its chest hangs 10 cm in front
of its torso and its feet are 16 cm wide and 6 cm long.

:func:`body_points` collects the points of every collision shape of the rigid body that carries a frame,
in that frame's axes.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import coal
import numpy as np
import pinocchio as pin

from .robot_files import geometry_model

#: points per rim of a cylinder's or a cone's base (the rim polygon's lowest point is at most
#: r (1 − cos(π / RIM_POINTS)) above the circle's: 0.5 % of r)
RIM_POINTS = 32

_UP = re.compile(rb"<up_axis>\s*([XYZ])_UP\s*</up_axis>")
#: COLLADA up axis → the rotation that turns the file's axes into z-up axes
_UP_ROTATIONS = {
    b"Y": np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]]),
    b"X": np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]),
}


@lru_cache(maxsize=256)
def collada_up_rotation(path: str) -> np.ndarray | None:
    """The rotation (3×3) that turns the vertices of a COLLADA file into z-up axes, or None (not a
    ``.dae`` file, a Z_UP file, or no ``<up_axis>`` in its first 64 kB)."""
    if not path.lower().endswith(".dae"):
        return None
    try:
        with Path(path).open("rb") as f:
            head = f.read(65536)
    except OSError:
        return None
    found = _UP.search(head)
    rotation = None if found is None else _UP_ROTATIONS.get(found.group(1))
    return None if rotation is None else rotation.copy()


def _rim(radius: float, z: float) -> np.ndarray:
    angles = np.linspace(0.0, 2.0 * math.pi, RIM_POINTS, endpoint=False)
    return np.stack((radius * np.cos(angles), radius * np.sin(angles), np.full(RIM_POINTS, z)), axis=1)


def _shape_points(shape: object, n: np.ndarray) -> np.ndarray | None:
    """Points of ``shape`` (its own axes) whose lowest along the unit vector ``n`` (same axes) form its
    lowest face; None for a shape that has none (a plane, a half-space, an octree)."""
    if isinstance(shape, coal.Box):
        half = np.asarray(shape.halfSide, dtype=float)
        signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=float)
        corners: np.ndarray = signs * half
        return corners
    if isinstance(shape, coal.Sphere):
        return np.reshape(-float(shape.radius) * n, (1, 3))
    if isinstance(shape, coal.Ellipsoid):
        a = np.asarray(shape.radii, dtype=float)
        return np.reshape(-(a * a * n) / float(np.linalg.norm(a * n)), (1, 3))
    if isinstance(shape, coal.Capsule):
        r, h = float(shape.radius), float(shape.halfLength)
        return np.array([[0.0, 0.0, h], [0.0, 0.0, -h]]) - r * n
    if isinstance(shape, coal.Cylinder):
        r, h = float(shape.radius), float(shape.halfLength)
        return np.vstack((_rim(r, h), _rim(r, -h)))
    if isinstance(shape, coal.Cone):  # (coal's cone: base at z = −h, apex at z = +h)
        r, h = float(shape.radius), float(shape.halfLength)
        return np.vstack((_rim(r, -h), [[0.0, 0.0, h]]))
    if isinstance(shape, coal.ConvexBase):
        return np.array(shape.points(), dtype=float).reshape(-1, 3)
    if isinstance(shape, coal.BVHModelBase):
        return np.array(shape.vertices(), dtype=float).reshape(-1, 3)
    return None


def lowest_points(obj: pin.GeometryObject, n: np.ndarray, frame: pin.SE3) -> np.ndarray:
    """Points of one collision object, in the axes of ``frame``, among which the lowest along ``n`` form
    the object's lowest face (see the module docstring).

    Args:
        obj: a geometry object (its ``placement`` is in its parent joint's frame).
        n: the unit "up" direction in ``frame``'s axes.
        frame: the frame the points are expressed in, as a placement in the same joint's frame.

    Returns:
        (N, 3) points (m), empty for shapes without a lowest face.
    """
    to_frame = frame.actInv(obj.placement)  # the object's placement in `frame`
    R, p = to_frame.rotation, to_frame.translation
    up = collada_up_rotation(str(obj.meshPath)) if isinstance(obj.geometry, coal.BVHModelBase) else None
    local_n = R.T @ n  # (the direction in the object's axes)
    if up is not None:  # the file's vertices in z-up axes: x_up = U x_file, so n in the file's axes is Uᵀn
        points = _shape_points(obj.geometry, up.T @ local_n)
        points = None if points is None else points @ up.T
    else:
        points = _shape_points(obj.geometry, local_n)
    if points is None:
        return np.zeros((0, 3))
    out: np.ndarray = points @ R.T + p
    return out


def body_points(
    robot: Any, frame: str, n: np.ndarray, geometry: pin.GeometryModel | None = None
) -> np.ndarray:
    """The points of every collision shape of the rigid body that carries ``frame`` (the shapes attached
    to the same joint), in ``frame``'s axes, among which the lowest along ``n`` form the body's lowest face.

    Args:
        robot: a :class:`~wbcpy.model.robot_model.RobotModel` (its URDF is read for the collision geometry).
        frame: a frame of the body (a link or a frame fixed to it).
        n: the unit "up" direction in ``frame``'s axes.
        geometry: the robot's collision geometry model when the caller has it (else it is built).

    Returns:
        (N, 3) points (m); empty when the body has no collision shape.

    Raises:
        UnknownNameError: an unknown frame. URDFError: the collision geometry cannot be read.
    """
    model = robot.model
    fid = robot.frame_id(frame)
    joint, placement = model.frames[fid].parentJoint, model.frames[fid].placement
    if geometry is None:
        links = {f.name for f in model.frames if f.type == pin.FrameType.BODY and f.parentJoint == joint}
        geometry = geometry_model(robot, pin.GeometryType.COLLISION, links)
    geom = geometry
    blocks = [lowest_points(obj, n, placement) for obj in geom.geometryObjects if obj.parentJoint == joint]
    blocks = [b for b in blocks if b.size]
    return np.vstack(blocks) if blocks else np.zeros((0, 3))
