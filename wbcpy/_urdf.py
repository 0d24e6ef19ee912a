"""URDF loading for :meth:`~wbcpy.robot.RobotModel.from_urdf`: read, check and parse into a ``pin.Model``.

A URDF is accepted as a file path or as the XML itself. Before Pinocchio parses it, the XML is checked
so that a bad file raises :class:`~wbcpy.errors.URDFError` with a reason (Pinocchio's own parser errors
are terse or, for some inputs, produce an empty model).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

import pinocchio as pin

from ._validation import as_vector
from .errors import URDFError, URDFNotFoundError

__all__ = ["check_urdf_xml", "load_urdf_model", "read_urdf"]


def check_urdf_xml(text: str, source: str) -> None:
    """Raise :class:`URDFError` unless ``text`` is well-formed XML with a <robot> root holding links."""
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise URDFError(source, f"malformed XML ({exc})") from None
    if root.tag != "robot":
        raise URDFError(source, f"root element is <{root.tag}>, expected <robot>")
    if root.find("link") is None:
        raise URDFError(source, "the URDF defines no <link>")


def read_urdf(source: str | Path) -> tuple[str, str]:
    """The URDF XML and a label for messages: ``"<xml>"`` for XML given inline, else the file path.

    Raises:
        URDFNotFoundError: the path does not exist (also a ``FileNotFoundError``).
        URDFError: the file cannot be read as UTF-8 text.
    """
    text = str(source)
    if "<robot" in text:
        return text, "<xml>"
    path = Path(text).expanduser()
    label = str(path)
    if not path.is_file():
        raise URDFNotFoundError(label)
    try:
        return path.read_text(encoding="utf-8"), label
    except (OSError, UnicodeDecodeError) as exc:
        raise URDFError(label, f"unreadable ({exc})") from None


def load_urdf_model(
    source: str | Path, floating_base: bool, gravity: Sequence[float]
) -> tuple[pin.Model, str]:
    """Parse a URDF (path or XML) into a ``pin.Model`` with the given gravity (m/s², world frame).

    Returns:
        The model and the label of its source (the path, or ``"<xml>"``).

    Raises:
        InvalidValueError: a non-finite or wrongly sized gravity vector (checked first).
        URDFNotFoundError, URDFError: see :func:`read_urdf`; also malformed XML, a URDF without links,
            or a URDF that Pinocchio rejects.
    """
    grav = as_vector(gravity, 3, "gravity")
    text, label = read_urdf(source)
    check_urdf_xml(text, label)
    try:
        if floating_base:
            model = pin.buildModelFromXML(text, pin.JointModelFreeFlyer())
        else:
            model = pin.buildModelFromXML(text)
    except (RuntimeError, ValueError) as exc:
        raise URDFError(label, str(exc).strip().splitlines()[0] if str(exc).strip() else "invalid") from None
    model.gravity.linear = grav
    return model, label
