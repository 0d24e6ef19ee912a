"""MJCF loading for :meth:`~wbcpy.model.robot_model.RobotModel.from_mjcf`: read a MuJoCo XML file and
parse it into a ``pin.Model`` with Pinocchio's ``buildModelFromMJCF``.

What Pinocchio builds from an MJCF (the MuJoCo joint and body names are kept):

* ``hinge`` → a revolute joint, ``slide`` → a prismatic joint, ``ball`` → a spherical joint (quaternion
  x, y, z, w in q), ``free`` → a free-flyer; several joints in one body → one composite joint named
  ``Composite_<first joint>`` whose DOFs are the body's joints in file order;
* bodies → ``BODY`` frames, sites → ``OP_FRAME`` frames; joint ``armature`` → ``model.armature`` (added to
  the diagonal of M by Pinocchio's algorithms, as MuJoCo adds it);
* keyframes (``<key name qpos>``) → reference configurations (quaternions reordered to x, y, z, w), plus
  ``qpos0`` (the file's default configuration).

Pinocchio does not read ``<option gravity>``: it is read here and set on the model (MuJoCo's default
(0, 0, −9.81) otherwise). Everything MuJoCo simulates beyond the rigid-body tree — contacts, joint limits
as soft constraints, damping, springs, tendons, equality constraints, actuators — is left to MuJoCo
(:mod:`wbcpy.sim.mujoco`).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pinocchio as pin

from ..errors import MJCFError, URDFNotFoundError, close_matches
from .robot_files import normalised_name

#: file name endings taken for MJCF by :func:`is_mjcf` (when the file's root element says so too)
MJCF_SUFFIXES = (".xml", ".mjcf")


def is_mjcf(source: str | Path) -> bool:
    """True for a path ending in ``.xml`` or ``.mjcf`` that is an MJCF file: an existing file whose root
    element is ``<mujoco>`` (read from its first 4 kB), or a missing ``.mjcf`` path (so that loading it
    names the missing file)."""
    path = Path(str(source)).expanduser()
    suffix = path.suffix.lower()
    if suffix not in MJCF_SUFFIXES:
        return False
    if not path.is_file():
        return suffix == ".mjcf"
    try:
        with path.open("rb") as f:
            head = f.read(4096)
    except OSError:
        return False
    return b"<mujoco" in head


def _gravity(root: ET.Element, label: str) -> np.ndarray:
    """``<option gravity="x y z">`` (m/s²), MuJoCo's default (0, 0, −9.81) when absent."""
    option = root.find("option")
    text = None if option is None else option.attrib.get("gravity")
    if text is None:
        return np.array([0.0, 0.0, -9.81])
    try:
        values = np.array([float(x) for x in text.split()])
    except ValueError:
        raise MJCFError(label, f"<option gravity={text!r}>: not three numbers") from None
    if values.shape != (3,) or not np.isfinite(values).all():
        raise MJCFError(label, f"<option gravity={text!r}>: not three finite numbers")
    return values


def _read(path: Path) -> ET.Element:
    if not path.exists():
        folder = path.parent if str(path.parent) else Path(".")
        names = [p.name for p in folder.iterdir()] if folder.is_dir() else []
        raise URDFNotFoundError(str(path), close_matches(path.name, names, n=3))
    if not path.is_file():
        raise MJCFError(str(path), "is a folder, not an MJCF file")
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError, UnicodeDecodeError) as exc:
        raise MJCFError(str(path), f"malformed XML ({exc})") from None
    if root.tag != "mujoco":
        raise MJCFError(str(path), f"root element is <{root.tag}>, expected <mujoco>")
    return root


def load_mjcf_model(source: str | Path) -> tuple[pin.Model, Path, str]:
    """Parse an MJCF file into a ``pin.Model`` (see the module docstring).

    Args:
        source: path to the MJCF file (its ``<include>`` files and mesh paths are relative to it).

    Returns:
        The model (gravity of ``<option gravity>``), the resolved file, and the model's name (the
        ``<mujoco model>`` attribute, else the file's stem).

    Raises:
        URDFNotFoundError: the path does not exist (also a ``FileNotFoundError``).
        MJCFError: a folder, malformed XML, a root element other than ``<mujoco>``, a bad gravity, or a
            file Pinocchio's parser rejects (its message).
    """
    path = Path(str(source)).expanduser()
    root = _read(path)
    label = str(path)
    gravity = _gravity(root, label)
    try:
        model = pin.buildModelFromMJCF(str(path.resolve()))
    except (RuntimeError, ValueError, IndexError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise MJCFError(label, f"Pinocchio's MJCF parser: {first}") from None
    if model.njoints < 2 and model.nframes < 2:
        raise MJCFError(label, "no body in the worldbody")
    model.gravity = pin.Motion(gravity, np.zeros(3))
    name = root.attrib.get("model") or normalised_name(path.stem)
    return model, path.resolve(), str(name)
