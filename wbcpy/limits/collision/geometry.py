"""Collision geometry of a robot: the URDF's ``<collision>`` elements through Pinocchio, and link structure.

* :func:`load_collision_geometry` builds a ``pin.GeometryModel`` for a
  :class:`~wbcpy.model.robot_model.RobotModel`
  (:func:`wbcpy.description.robot_files.geometry_model`: the URDF and mesh folders the robot keeps),
  optionally with
  meshes replaced by their convex hulls.
* :func:`link_of_geometry` and :func:`adjacent_links` give the link structure the pair selection needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import coal
import pinocchio as pin

from ...description.robot_files import geometry_model
from ...errors import ConfigError, URDFError

if TYPE_CHECKING:
    from ...model.robot_model import RobotModel


def load_collision_geometry(robot: RobotModel, convex_hull: bool = True) -> pin.GeometryModel:
    """A new ``pin.GeometryModel`` of the robot's ``<collision>`` elements.

    Args:
        robot: the robot (its model is the one the geometry is attached to).
        convex_hull: replace every mesh (coal BVH model) by its convex hull.

    Raises:
        ConfigError: the robot keeps no URDF, a mesh cannot be found or read (field ``robot``), or the URDF
            has no ``<collision>`` element (field ``collision``).
    """
    try:
        geom = geometry_model(robot, pin.GeometryType.COLLISION)
    except URDFError as exc:
        raise ConfigError("robot", f"cannot build the collision geometry of {robot.name!r}: {exc}") from None
    if geom.ngeoms == 0:
        raise ConfigError("collision", f"robot {robot.name!r} has no <collision> elements in its URDF")
    if convex_hull:
        for obj in geom.geometryObjects:
            shape = obj.geometry
            if isinstance(shape, coal.BVHModelBase):
                shape.buildConvexRepresentation(False)
                obj.geometry = shape.convex
    return geom


def link_of_geometry(model: pin.Model, geom: pin.GeometryObject) -> str:
    """The name of the link (BODY frame) a geometry object is attached to."""
    name: str = model.frames[geom.parentFrame].name
    return name


def _parent_link(model: pin.Model, frame_id: int) -> int | None:
    """The BODY frame one joint (movable or fixed) above BODY frame ``frame_id``, or None at the root."""
    fid = model.frames[frame_id].parentFrame
    while fid != 0 and model.frames[fid].type != pin.FrameType.BODY:
        fid = model.frames[fid].parentFrame
    return fid if fid != 0 and model.frames[fid].type == pin.FrameType.BODY else None


def adjacent_links(model: pin.Model) -> set[frozenset[str]]:
    """Every pair of links connected directly by one URDF joint, movable or fixed (as name pairs)."""
    out: set[frozenset[str]] = set()
    for fid, frame in enumerate(model.frames):
        if frame.type != pin.FrameType.BODY:
            continue
        parent = _parent_link(model, fid)
        if parent is not None:
            out.add(frozenset((frame.name, model.frames[parent].name)))
    return out
