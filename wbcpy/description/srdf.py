"""Reference postures from SRDF files (``half_sitting``, ``standing``, ...).

An SRDF (``<robot>`` with ``<group_state name=... group=...><joint name=... value=.../>...``) names
postures of a robot. :func:`load_reference_configurations` checks the file and stores its postures in the
``pin.Model`` with Pinocchio's ``loadReferenceConfigurations``;
:meth:`wbcpy.RobotModel.reference_configuration` reads them back as configurations (nq).

Values are one per joint position coordinate (a free-flyer: x y z qx qy qz qw) or, for a continuous
joint, its angle (Pinocchio turns it into cos/sin). Joints of the SRDF that the model does not have are
skipped (one SRDF serves a robot and its reduced variants); joints the SRDF does not list keep Pinocchio's
neutral value.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pinocchio as pin

from ..errors import SRDFError, UnknownNameError, URDFError, close_matches
from .urdf_checks import XNode, parse_xml, short_repr


def _check_joint_values(joint: XNode, model: pin.Model, where: str) -> None:
    name = joint.attrib.get("name", "")
    raw = joint.attrib.get("value")
    if not name or raw is None:
        raise SRDFError(where, f"<joint> (line {joint.line}) needs name and value attributes")
    try:
        values = [float(x) for x in raw.split()]
    except ValueError:
        values = []
    if not values or not all(math.isfinite(v) for v in values):
        raise SRDFError(where, f"joint {name!r} (line {joint.line}): value={short_repr(raw)} is not numbers")
    if model.existJointName(name):
        jmodel = model.joints[model.getJointId(name)]
        if len(values) not in (jmodel.nq, jmodel.nv):
            raise SRDFError(
                where,
                f"joint {name!r} (line {joint.line}): {len(values)} values, the model's joint takes "
                f"{jmodel.nq}" + (f" (or {jmodel.nv})" if jmodel.nv != jmodel.nq else ""),
            )


def _check_srdf(text: str, model: pin.Model, where: str) -> None:
    root = parse_xml(text, where)
    if root.tag != "robot":
        raise SRDFError(where, f"root element is <{root.tag}>, expected <robot>")
    for state in root.findall("group_state"):
        if not state.attrib.get("name", "").strip():
            raise SRDFError(where, f"<group_state> without a name (line {state.line})")
        for joint in state.findall("joint"):
            _check_joint_values(joint, model, where)


def load_reference_configurations(model: pin.Model, srdf: str | Path) -> Path:
    """Check an SRDF and add its ``group_state`` postures to ``model.referenceConfigurations``.

    Returns:
        The SRDF path (absolute).

    Raises:
        SRDFError: missing or unreadable file (with similar names of its folder), malformed XML, a posture
            without a name, a value that is not a number, or the wrong number of values for a joint.
    """
    path = Path(srdf).expanduser()
    if not path.is_file():
        folder = path.parent if path.parent.is_dir() else None
        near = close_matches(path.name, [p.name for p in folder.iterdir()] if folder else [], n=3)
        hint = f"; did you mean {', '.join(map(repr, near))}?" if near else ""
        raise SRDFError(str(path), "no such file" + hint)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SRDFError(str(path), f"unreadable ({exc})") from None
    try:
        _check_srdf(text, model, str(path))
    except SRDFError:
        raise
    except URDFError as exc:  # from parse_xml: same reason, SRDF type
        raise SRDFError(str(path), exc.reason) from None
    pin.loadReferenceConfigurationsFromXML(model, text, False)
    return path.resolve()


def reference_configuration_names(model: pin.Model) -> list[str]:
    """Names of the reference configurations stored in ``model`` (sorted)."""
    return sorted(entry.key() for entry in model.referenceConfigurations)


def reference_configuration(model: pin.Model, name: str, srdf_path: Path | None = None) -> np.ndarray:
    """A copy of the reference configuration ``name`` of ``model`` (nq).

    Raises:
        UnknownNameError: no such name; the message lists the known names or says the robot has no SRDF.
    """
    names = reference_configuration_names(model)
    if not isinstance(name, str) or name not in names:
        if names:
            raise UnknownNameError("reference configuration", name, names)
        where = f"its SRDF {str(srdf_path)!r} has none" if srdf_path else "it was loaded without an SRDF"
        err = UnknownNameError("reference configuration", name, [])
        err.message = (
            f"unknown reference configuration {short_repr(name)}: {where} (from_urdf(..., srdf=PATH))"
        )
        raise err
    return np.array(model.referenceConfigurations[name], dtype=float)
