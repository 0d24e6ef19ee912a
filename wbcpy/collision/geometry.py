"""Collision geometry of a robot: the URDF's ``<collision>`` elements through Pinocchio, and its SRDF.

* :func:`load_collision_geometry` builds a ``pin.GeometryModel`` for a :class:`~wbcpy.robot.RobotModel`
  (``pin.buildGeomFromUrdf`` / ``buildGeomFromUrdfString``), optionally with meshes replaced by their
  convex hulls.
* :func:`find_srdf` finds the SRDF beside a URDF (example-robot-data keeps it in ``../srdf/``).
* :func:`link_of_geometry` and :func:`adjacent_links` give the link structure the pair selection needs.

The URDF source is read from the robot: ``robot.urdf_text`` / ``robot.urdf_path`` when the robot keeps
them, else ``robot.source`` when it is a file path. ``package://`` URIs are searched in
``robot.package_dirs`` and then in every folder above the URDF file (a URDF usually sits inside its
package, e.g. ``share/example-robot-data/robots/panda_description/urdf/panda.urdf``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import coal
import pinocchio as pin

from ..errors import ConfigError

if TYPE_CHECKING:
    from ..robot import RobotModel

__all__ = ["adjacent_links", "find_srdf", "link_of_geometry", "load_collision_geometry", "urdf_source"]


def urdf_source(robot: RobotModel) -> tuple[str | None, Path | None]:
    """``(urdf_text, urdf_path)`` of a robot: exactly one of them is not None.

    Raises:
        ConfigError: the robot keeps neither (built from a ``pin.Model``, or from XML by a version that
            did not keep the text).
    """
    text = getattr(robot, "urdf_text", None)
    path = getattr(robot, "urdf_path", None)
    if text is None and path is None:
        source = Path(str(getattr(robot, "source", "")))
        if source.suffix and source.is_file():
            path = source
    if path is not None:
        return None, Path(path)
    if text is not None:
        return str(text), None
    raise ConfigError(
        "robot", f"robot {robot.name!r} does not keep its URDF ({robot.source!r}): load it from a URDF file"
    )


def _package_dirs(robot: RobotModel, path: Path | None) -> list[str]:
    dirs = [str(d) for d in (getattr(robot, "package_dirs", None) or [])]
    if path is not None:
        dirs += [str(p) for p in path.resolve().parents]
    return dirs


def load_collision_geometry(robot: RobotModel, convex_hull: bool = True) -> pin.GeometryModel:
    """A new ``pin.GeometryModel`` of the robot's ``<collision>`` elements.

    Args:
        robot: the robot (its model is the one the geometry is attached to).
        convex_hull: replace every mesh (coal BVH model) by its convex hull.

    Raises:
        ConfigError: the robot keeps no URDF, a mesh cannot be found or read (field ``robot``), or the URDF
            has no ``<collision>`` element (field ``collision``).
    """
    text, path = urdf_source(robot)
    dirs = _package_dirs(robot, path)
    kind = pin.GeometryType.COLLISION
    try:
        if path is not None:
            geom = pin.buildGeomFromUrdf(robot.model, str(path), kind, package_dirs=dirs)
        else:
            geom = pin.buildGeomFromUrdfString(robot.model, text, kind, package_dirs=dirs)
    except (ValueError, RuntimeError, OSError) as exc:
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


def find_srdf(urdf_path: Path) -> Path | None:
    """The SRDF beside a URDF, or None.

    Searched in ``<urdf dir>/../srdf/``, ``<urdf dir>/srdf/`` and ``<urdf dir>``: first a file with the
    URDF's stem (``panda.urdf`` → ``panda.srdf``), then the longest SRDF stem that prefixes the URDF's
    stem followed by ``_`` or ``-`` (``talos_reduced.urdf`` → ``talos.srdf``).
    """
    folder = urdf_path.resolve().parent
    stem = urdf_path.stem
    candidates: list[Path] = []
    for where in (folder.parent / "srdf", folder / "srdf", folder):
        if where.is_dir():
            candidates += sorted(where.glob("*.srdf"))
    for cand in candidates:
        if cand.stem == stem:
            return cand
    prefixed = [c for c in candidates if stem.startswith((f"{c.stem}_", f"{c.stem}-"))]
    return max(prefixed, key=lambda c: len(c.stem)) if prefixed else None


def link_of_geometry(model: pin.Model, geom: pin.GeometryObject) -> str:
    """The name of the link (BODY frame) a geometry object is attached to."""
    return model.frames[geom.parentFrame].name


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
