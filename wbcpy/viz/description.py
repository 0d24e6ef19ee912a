"""A robot's visual geometry: its URDF, the folders its ``package://`` meshes live in, Pinocchio's model.

:func:`visual_model` builds the ``pin.GeometryModel`` of a :class:`~wbcpy.robot.RobotModel`'s ``<visual>``
elements with Pinocchio's URDF parser, on the robot's own ``pin.Model`` (so a free-flyer robot and its
geometry agree). The URDF comes from ``robot.urdf_text`` / ``robot.urdf_path`` when the robot has them,
else from ``robot.source`` (the path it was loaded from).

Package folders: a mesh ``package://NAME/rest`` is found in ``DIR/NAME/rest`` for a folder ``DIR`` of the
search list. The list is ``robot.package_dirs`` plus, for every package name of the URDF, the nearest folder
holding ``NAME`` among the ancestors of those folders and of the URDF's own folder. That resolves
example-robot-data (``package://example-robot-data/robots/...``, data under ``share/``) and icub-models
(``package://iCub/meshes/...``) from any folder inside them.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pinocchio as pin

from ..errors import URDFError

__all__ = ["mesh_package_dirs", "urdf_file", "urdf_source", "visual_model"]

_PACKAGE = re.compile(r"package://([^/\"'\s<>]+)/")
#: how many ancestors of a folder are searched for a package
_ANCESTORS = 8


def urdf_file(robot: Any) -> Path | None:
    """The URDF file of ``robot``: ``robot.urdf_path``, else ``robot.source`` when it is a path, else None."""
    path = getattr(robot, "urdf_path", None)
    if path is None and str(getattr(robot, "source", "")) not in ("", "<xml>", "<model>"):
        path = robot.source
    return Path(path) if path is not None else None


def urdf_source(robot: Any) -> tuple[str, Path | None]:
    """The URDF XML of ``robot`` and its file (None when the robot was built from an XML string).

    Raises:
        URDFError: the robot keeps no URDF (built from a ``pin.Model``, or from XML that was not kept), or
            the file cannot be read.
    """
    text = getattr(robot, "urdf_text", None)
    if text:
        return str(text), None
    file = urdf_file(robot)
    if file is None:
        raise URDFError(
            str(getattr(robot, "name", "robot")),
            "no URDF to read <visual> geometry from (the robot was built from a pin.Model or an XML "
            "string that was not kept); load it from a file",
        )
    try:
        return file.read_text(encoding="utf-8"), file
    except (OSError, UnicodeDecodeError) as exc:
        raise URDFError(str(file), f"unreadable ({exc})") from None


def mesh_package_dirs(text: str, urdf_path: Path | None, package_dirs: Any = ()) -> list[str]:
    """Folders that resolve every ``package://NAME/...`` URI of ``text`` that can be resolved.

    Args:
        text: the URDF XML.
        urdf_path: the URDF file, or None.
        package_dirs: folders given by the robot's loader (searched first, then their ancestors).

    Returns:
        The given folders followed by the folders found, without duplicates.
    """
    given = [Path(p) for p in package_dirs]
    starts = given + ([urdf_path.resolve().parent] if urdf_path is not None else [])
    found = [str(p) for p in given]
    for name in sorted(set(_PACKAGE.findall(text))):
        for start in starts:
            hit = next((d for d in (start, *start.parents[:_ANCESTORS]) if (d / name).is_dir()), None)
            if hit is not None:
                found.append(str(hit))
                break
    return list(dict.fromkeys(found))


def visual_model(robot: Any) -> pin.GeometryModel:
    """Pinocchio's geometry model of the ``<visual>`` elements of ``robot`` (meshes resolved).

    Raises:
        URDFError: no URDF (see :func:`urdf_source`), or a mesh that cannot be found or loaded.
    """
    text, path = urdf_source(robot)
    dirs = mesh_package_dirs(text, path, getattr(robot, "package_dirs", ()))
    label = str(path) if path is not None else "<xml>"
    try:
        if path is not None:
            return pin.buildGeomFromUrdf(robot.model, str(path), pin.GeometryType.VISUAL, None, dirs)
        return pin.buildGeomFromUrdfString(robot.model, text, pin.GeometryType.VISUAL, None, dirs)
    except (ValueError, RuntimeError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise URDFError(label, f"visual geometry: {first} (package folders searched: {dirs})") from None
