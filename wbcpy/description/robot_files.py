"""A robot's description files: its URDF, the folders of its ``package://`` meshes, its SRDF, its geometry.

One place for what the visual geometry (:mod:`wbcpy.viz`), the collision geometry
(:mod:`wbcpy.limits.collision`) and the robot registry (:mod:`wbcpy.model.registry`) need to find, based on
the attributes a :class:`~wbcpy.model.robot_model.RobotModel` keeps:

* the URDF: ``robot.urdf_text`` (a robot built from an XML string), else ``robot.urdf_path``, else
  ``robot.source`` when it names an existing file (:func:`urdf_file`, :func:`urdf_source`);
* the mesh folders: ``robot.package_dirs`` and the folders of the ``ROS_PACKAGE_PATH`` environment
  variable plus, for every package ``NAME`` of a ``package://NAME/...`` URI of the URDF, the nearest
  folder holding ``NAME`` among those folders, the URDF's own folder and their ancestors
  (:func:`mesh_package_dirs`); a mesh that cannot be found names every folder searched. That resolves
  example-robot-data (``package://example-robot-data/robots/...``, data under ``share/``) and icub-models
  (``package://iCub/meshes/...``) from any folder inside them;
* the SRDF: ``robot.srdf_path``, else the one beside the URDF (:func:`find_srdf`, :func:`srdf_file`);
* Pinocchio's geometry model of the ``<visual>`` or ``<collision>`` elements, on the robot's own
  ``pin.Model`` (:func:`geometry_model`), so a free-flyer robot and its geometry agree.
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Collection
from pathlib import Path
from typing import Any

import pinocchio as pin

from ..errors import URDFError

_PACKAGE = re.compile(r"package://([^/\"'\s<>]+)/")
#: how many ancestors of a folder are searched for a package
_ANCESTORS = 8
_KIND_NAMES = {pin.GeometryType.VISUAL: "visual", pin.GeometryType.COLLISION: "collision"}


def normalised_name(stem: str) -> str:
    """A file stem as a registry name: lower case, runs of other characters than ``[0-9a-z_]`` → ``_``."""
    return re.sub(r"[^0-9a-z_]+", "_", stem.lower()).strip("_")


def urdf_file(robot: Any) -> Path | None:
    """The URDF file of ``robot``: ``robot.urdf_path``, else ``robot.source`` when it is an existing file,
    else None (a robot built from a ``pin.Model``, from an XML string or from an MJCF file)."""
    path = getattr(robot, "urdf_path", None)
    if path is not None:
        return Path(path)
    if getattr(robot, "mjcf_path", None) is not None:
        return None
    source = Path(str(getattr(robot, "source", "")))
    return source if source.suffix and source.is_file() else None


def urdf_source(robot: Any) -> tuple[str, Path | None]:
    """The URDF XML of ``robot`` and its file (None when the robot was built from an XML string).

    Raises:
        URDFError: the robot keeps no URDF (built from a ``pin.Model``), or the file cannot be read.
    """
    text = getattr(robot, "urdf_text", None)
    if text:
        return str(text), None
    file = urdf_file(robot)
    if file is None:
        raise URDFError(
            str(getattr(robot, "name", "robot")),
            f"no URDF to read geometry from (the robot was built from {getattr(robot, 'source', '?')!r}, "
            "not from a URDF file or XML string); load it with RobotModel.from_urdf",
        )
    try:
        return file.read_text(encoding="utf-8"), file
    except (OSError, UnicodeDecodeError) as exc:
        raise URDFError(str(file), f"unreadable ({exc})") from None


def ros_package_path() -> list[Path]:
    """The folders of the ``ROS_PACKAGE_PATH`` environment variable (``os.pathsep``-separated; empty
    entries skipped), in order. They are searched for ``package://`` URIs after the loader's folders."""
    return [Path(p) for p in os.environ.get("ROS_PACKAGE_PATH", "").split(os.pathsep) if p.strip()]


def package_search_folders(urdf_path: Path | None, package_dirs: Any = ()) -> list[Path]:
    """Every folder searched for a ``package://NAME/...`` URI, in search order, without duplicates.

    The loader's ``package_dirs``, the folders of ``ROS_PACKAGE_PATH`` (:func:`ros_package_path`) and the
    URDF's own folder, each followed by up to eight of its ancestors: ``NAME`` resolves in the first of
    them that holds a folder ``NAME``.
    """
    starts = [Path(p) for p in package_dirs] + ros_package_path()
    if urdf_path is not None:
        starts.append(urdf_path.resolve().parent)
    folders = [d for start in starts for d in (start, *start.parents[:_ANCESTORS])]
    return list(dict.fromkeys(folders))


def mesh_packages(text: str) -> list[str]:
    """The package names ``NAME`` of the ``package://NAME/...`` URIs of a URDF's XML, sorted."""
    return sorted(set(_PACKAGE.findall(text)))


def mesh_package_dirs(text: str, urdf_path: Path | None, package_dirs: Any = ()) -> list[str]:
    """Folders that resolve every ``package://NAME/...`` URI of ``text`` that can be resolved.

    Args:
        text: the URDF XML.
        urdf_path: the URDF file, or None.
        package_dirs: folders given by the robot's loader (searched first, then ``ROS_PACKAGE_PATH``,
            then the URDF's folder; each with its ancestors: :func:`package_search_folders`).

    Returns:
        The given folders and those of ``ROS_PACKAGE_PATH``, followed by the folders found, without
        duplicates.
    """
    found = [str(p) for p in [*(Path(d) for d in package_dirs), *ros_package_path()]]
    folders = package_search_folders(urdf_path, package_dirs)
    for name in mesh_packages(text):
        hit = next((d for d in folders if (d / name).is_dir()), None)
        if hit is not None:
            found.append(str(hit))
    return list(dict.fromkeys(found))


def _missing_packages_hint(text: str, path: Path | None, package_dirs: Any) -> str:
    """The packages no searched folder holds, every folder searched, and how to give more folders."""
    folders = package_search_folders(path, package_dirs)
    missing = [n for n in mesh_packages(text) if not any((d / n).is_dir() for d in folders)]
    where = ", ".join(str(d) for d in folders) or "none"
    head = f"no folder holds package(s) {', '.join(missing)}; " if missing else ""
    return (
        f"{head}package folders searched: {where}. Give the folder that holds the package with "
        "--package-dir DIR (command line), package_dirs=[DIR] (RobotModel.from_urdf, load_robot) or "
        "the ROS_PACKAGE_PATH environment variable"
    )


def _only_links(text: str, path: Path | None, tag: str, links: Collection[str]) -> str:
    """The URDF XML with the ``<visual>``/``<collision>`` elements (``tag``) of every link not in ``links``
    removed, and relative mesh file names made absolute (the XML is parsed from a string, not from its
    folder)."""
    root = ET.fromstring(text)
    for link in root.iter("link"):
        for element in link.findall(tag):
            if link.get("name") not in links:
                link.remove(element)
    if path is not None:
        for mesh in root.iter("mesh"):
            name = mesh.get("filename", "")
            if name and "://" not in name and not Path(name).is_absolute():
                mesh.set("filename", str((path.resolve().parent / name).resolve()))
    return ET.tostring(root, encoding="unicode")


def geometry_model(
    robot: Any, kind: pin.GeometryType, links: Collection[str] | None = None
) -> pin.GeometryModel:
    """Pinocchio's geometry model of the robot's ``<visual>`` or ``<collision>`` elements (meshes resolved).

    Args:
        robot: a :class:`~wbcpy.model.robot_model.RobotModel` (its ``pin.Model`` is the one the geometry is
            attached to).
        kind: ``pin.GeometryType.VISUAL`` or ``pin.GeometryType.COLLISION``.
        links: only the elements of these links (their meshes alone are read), or None for all.

    Raises:
        URDFError: no URDF (see :func:`urdf_source`), or a mesh that cannot be found or loaded (the folders
            searched are named).
    """
    mjcf = getattr(robot, "mjcf_path", None)
    if mjcf is not None:
        return _mjcf_geometry(robot.model, Path(mjcf), kind)
    text, path = urdf_source(robot)
    dirs = mesh_package_dirs(text, path, getattr(robot, "package_dirs", ()))
    label = str(path) if path is not None else "<xml>"
    what = _KIND_NAMES.get(kind, str(kind))
    try:
        if links is not None:
            only = _only_links(text, path, what, links)
            return pin.buildGeomFromUrdfString(robot.model, only, kind, None, dirs)
        if path is not None:
            return pin.buildGeomFromUrdf(robot.model, str(path), kind, None, dirs)
        return pin.buildGeomFromUrdfString(robot.model, text, kind, None, dirs)
    except (ValueError, RuntimeError, OSError, ET.ParseError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        hint = _missing_packages_hint(text, path, getattr(robot, "package_dirs", ()))
        raise URDFError(label, f"{what} geometry: {first} ({hint})") from None


def _mjcf_geometry(model: pin.Model, path: Path, kind: pin.GeometryType) -> pin.GeometryModel:
    """Pinocchio's geometry model of an MJCF file's geoms (``buildGeomFromMJCF``).

    Raises:
        URDFError: Pinocchio cannot read the geometry (its message).
    """
    try:
        return pin.buildGeomFromMJCF(model, str(path), kind)
    except (ValueError, RuntimeError, OSError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise URDFError(str(path), f"{_KIND_NAMES.get(kind, str(kind))} geometry: {first}") from None


def find_srdf(urdf: Path) -> Path | None:
    """The SRDF of a URDF file, or None.

    The first of ``<urdf dir>/../srdf/`` (example-robot-data's layout), ``<urdf dir>/srdf/`` and
    ``<urdf dir>`` that holds ``*.srdf`` files is searched, names compared by :func:`normalised_name`:
    the SRDF with the URDF's stem (``panda.urdf`` → ``panda.srdf``), else the one whose stem is the
    longest prefix of the URDF's stem (``talos_reduced.urdf`` → ``talos.srdf``), else the folder's only
    SRDF.
    """
    folder = Path(urdf).resolve().parent
    for where in (folder.parent / "srdf", folder / "srdf", folder):
        srdfs = sorted(where.glob("*.srdf")) if where.is_dir() else []
        if not srdfs:
            continue
        stem = normalised_name(Path(urdf).stem)
        exact = [s for s in srdfs if normalised_name(s.stem) == stem]
        prefixes = sorted(
            (s for s in srdfs if stem.startswith(normalised_name(s.stem))), key=lambda s: -len(s.stem)
        )
        if exact or prefixes:
            return (exact or prefixes)[0]
        return srdfs[0] if len(srdfs) == 1 else None
    return None


def srdf_file(robot: Any) -> Path | None:
    """The SRDF of ``robot``: ``robot.srdf_path``, else the one beside its URDF file, else None (also for
    an MJCF robot, whose postures are the file's keyframes)."""
    path = getattr(robot, "srdf_path", None)
    if path is not None:
        return Path(path)
    file = urdf_file(robot)
    return None if file is None else find_srdf(file)


def visual_model(robot: Any) -> pin.GeometryModel:
    """:func:`geometry_model` of the robot's ``<visual>`` elements (what the viewers draw)."""
    return geometry_model(robot, pin.GeometryType.VISUAL)
