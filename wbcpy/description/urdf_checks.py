"""Checks of a URDF before Pinocchio parses it: XML, tree structure, numbers and size.

Pinocchio parses URDF with urdfdom, which is lenient in ways that silently give a wrong model: a mass it
cannot read (``<mass value="two"/>``, ``nan``) becomes 0, an ``<inertial>`` without ``<inertia>`` is dropped,
a joint whose parent is its own child vanishes, and most other faults end in one message ("The XML stream
does not contain a valid URDF model.") with the reason printed by C++ code on stderr. Huge files exhaust
memory (``pin.Data`` grows with the cube of the number of DOF) or overflow the stack (deep trees).

:func:`check_urdf` reads the XML with the standard library's expat parser (keeping line numbers) and raises
:class:`~wbcpy.errors.URDFError` naming the element, attribute, value and line for each fault, before
Pinocchio sees the text. The physical plausibility of masses, inertias, axes and limits is checked by
:mod:`wbcpy.description.urdf_physics`.

Size guards (module constants; raise them deliberately if a real robot needs it): at most
:data:`MAX_URDF_BYTES` of XML, :data:`MAX_LINKS` links, a tree :data:`MAX_DEPTH` joints deep, and
:data:`MAX_DOF` degrees of freedom.
"""

from __future__ import annotations

import math
import xml.parsers.expat
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..errors import URDFError, close_matches, safe_repr

#: largest URDF text accepted (characters)
MAX_URDF_BYTES = 32 * 2**20
#: most links accepted (Pinocchio's parser recurses per link; 20,000 links crash it)
MAX_LINKS = 2000
#: deepest tree accepted, in joints from the root (a 4,000-deep chain overflows Pinocchio's stack)
MAX_DEPTH = 1000
#: most degrees of freedom accepted (``pin.Data`` of a 250-DOF chain takes 3 s and 1.6 GB to create)
MAX_DOF = 200

#: URDF joint type -> number of velocity DOF it adds
JOINT_DOF = {"revolute": 1, "continuous": 1, "prismatic": 1, "fixed": 0, "floating": 6, "planar": 3}

# element -> {attribute: number of values}; every listed attribute, when present, must hold that many
# finite numbers
_NUMERIC: dict[str, dict[str, int]] = {
    "origin": {"xyz": 3, "rpy": 3},
    "axis": {"xyz": 3},
    "mass": {"value": 1},
    "inertia": {k: 1 for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")},
    "limit": {"lower": 1, "upper": 1, "effort": 1, "velocity": 1},
    "dynamics": {"damping": 1, "friction": 1},
    "safety_controller": {k: 1 for k in ("soft_lower_limit", "soft_upper_limit", "k_position", "k_velocity")},
    "calibration": {"rising": 1, "falling": 1, "reference_position": 1},
    "mimic": {"multiplier": 1, "offset": 1},
    "box": {"size": 3},
    "cylinder": {"radius": 1, "length": 1},
    "capsule": {"radius": 1, "length": 1},
    "sphere": {"radius": 1},
    "mesh": {"scale": 3},
    "color": {"rgba": 4},
}
# element -> attributes urdfdom needs (without them it drops the element or rejects the file)
_REQUIRED: dict[str, tuple[str, ...]] = {
    "mass": ("value",),
    "inertia": ("ixx", "ixy", "ixz", "iyy", "iyz", "izz"),
    "limit": ("effort", "velocity"),
    "box": ("size",),
    "cylinder": ("radius", "length"),
    "capsule": ("radius", "length"),
    "sphere": ("radius",),
    "mesh": ("filename",),
    "mimic": ("joint",),
    "parent": ("link",),
    "child": ("link",),
}


def short_repr(value: object, limit: int = 40) -> str:
    """``repr(value)`` cut to about ``limit`` characters (messages never echo a huge value)."""
    if isinstance(value, str) and len(value) > limit:
        return repr(value[:limit]) + f"... ({len(value)} characters)"
    return safe_repr(value)


@dataclass
class XNode:
    """An XML element with the line of its start tag (the standard library's ElementTree has no lines)."""

    tag: str
    attrib: dict[str, str]
    line: int
    children: list[XNode] = field(default_factory=list)

    def find(self, tag: str) -> XNode | None:
        """First child with this tag, or None."""
        return next((c for c in self.children if c.tag == tag), None)

    def findall(self, tag: str) -> list[XNode]:
        """Every child with this tag."""
        return [c for c in self.children if c.tag == tag]

    def iter(self) -> Iterator[XNode]:
        """This element and all its descendants, depth first (iteratively: no recursion limit)."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))


def parse_xml(text: str, source: str) -> XNode:
    """Parse XML into :class:`XNode` elements with line numbers.

    Raises:
        URDFError: malformed XML (with line and column), or XML larger than :data:`MAX_URDF_BYTES`.
    """
    if len(text) > MAX_URDF_BYTES:
        raise URDFError(source, f"{len(text)} characters of XML: larger than the {MAX_URDF_BYTES} accepted")
    parser = xml.parsers.expat.ParserCreate()
    stack: list[XNode] = []
    roots: list[XNode] = []

    def start(tag: str, attrib: dict[str, str]) -> None:
        node = XNode(tag, attrib, parser.CurrentLineNumber)
        (stack[-1].children if stack else roots).append(node)
        stack.append(node)

    def end(tag: str) -> None:
        stack.pop()

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        parser.Parse(text, True)
    except xml.parsers.expat.ExpatError as exc:
        msg = xml.parsers.expat.ErrorString(exc.code)
        where = f"line {exc.lineno}, column {exc.offset + 1}"
        raise URDFError(source, f"malformed XML: {msg} ({where})") from None
    return roots[0]


@dataclass
class UrdfTree:
    """What :func:`check_urdf` found: the XML, the links and joints by name, the root link and the DOF.

    Attributes:
        root: the ``<robot>`` element. links, joints: elements by name.
        root_link: name of the root link. n_dof: velocity DOF of the joints (without a free-flyer),
        mimic joints excluded (they follow another joint).
        mimic: the mimic joints as ``(joint, mimicked joint, multiplier, offset)``, URDF order.
        mimic_problems: why some of them cannot be coupled (then none is: see
            :func:`wbcpy.description._urdf_loading.load_urdf_model`); empty when all can.
    """

    root: XNode
    links: dict[str, XNode]
    joints: dict[str, XNode]
    root_link: str
    n_dof: int
    mimic: tuple[tuple[str, str, float, float], ...] = ()
    mimic_problems: tuple[str, ...] = ()


def _where(node: XNode, owner: XNode | None = None) -> str:
    if owner is None or owner is node:
        return f"<{node.tag}> '{node.attrib.get('name', '?')}' (line {node.line})"
    return f"<{node.tag}> of <{owner.tag}> '{owner.attrib.get('name', '?')}' (line {node.line})"


def _check_numbers(node: XNode, owner: XNode, source: str) -> None:
    for attr, count in _NUMERIC.get(node.tag, {}).items():
        raw = node.attrib.get(attr)
        if raw is None:
            continue
        parts = raw.split()
        try:
            values = [float(p) for p in parts if "_" not in p]
        except ValueError:
            values = []
        if len(values) != len(parts) or not all(math.isfinite(v) for v in values):
            what = "a number" if count == 1 else f"{count} numbers"
            raise URDFError(
                source, f"{_where(node, owner)}: {attr}={short_repr(raw)} is not {what} (finite, SI units)"
            )
        if len(values) != count:
            got = f"has {len(values)} values, expected {count}"
            raise URDFError(source, f"{_where(node, owner)}: {attr}={short_repr(raw)} {got}")


def _check_required(node: XNode, owner: XNode, source: str) -> None:
    for attr in _REQUIRED.get(node.tag, ()):
        if node.attrib.get(attr, "").strip() == "":
            raise URDFError(source, f"{_where(node, owner)}: missing attribute {attr!r}")


#: element -> the parent elements under which :data:`_NUMERIC` and :data:`_REQUIRED` apply (elsewhere,
#: e.g. Pinocchio's ``<collision_checking><capsule name=.../>``, the same tag means something else)
_CONTEXT: dict[str, tuple[str, ...]] = {
    "origin": ("joint", "inertial", "visual", "collision"),
    "mass": ("inertial",),
    "inertia": ("inertial",),
    "color": ("material",),
    **{t: ("joint",) for t in ("axis", "limit", "dynamics", "safety_controller", "calibration", "mimic")},
    **{t: ("geometry",) for t in ("box", "cylinder", "capsule", "sphere", "mesh")},
}


def _check_elements(owner: XNode, source: str) -> None:
    """Numbers and required attributes of every element under a link or joint."""
    stack = [(c, owner) for c in owner.children]
    while stack:
        node, parent = stack.pop()
        stack.extend((c, node) for c in node.children)
        if parent.tag in _CONTEXT.get(node.tag, ()):
            _check_required(node, owner, source)
            _check_numbers(node, owner, source)
        if node.tag == "inertial" and parent is owner:
            for part in ("mass", "inertia"):
                if node.find(part) is None:
                    raise URDFError(source, f"{_where(node, owner)}: <inertial> without <{part}>")


def _named(root: XNode, tag: str, source: str) -> dict[str, XNode]:
    out: dict[str, XNode] = {}
    for node in root.findall(tag):
        name = node.attrib.get("name", "")
        if not name.strip():
            raise URDFError(source, f"<{tag}> without a name (line {node.line})")
        if name in out:
            raise URDFError(source, f"{tag} {name!r} defined twice (lines {out[name].line} and {node.line})")
        out[name] = node
    return out


def _joint_links(joint: XNode, links: dict[str, XNode], source: str) -> tuple[str, str]:
    ends = []
    for part in ("parent", "child"):
        node = joint.find(part)
        if node is None:
            raise URDFError(source, f"{_where(joint)}: missing <{part} link=...>")
        _check_required(node, joint, source)
        name = node.attrib["link"]
        if name not in links:
            raise URDFError(source, f"{_where(joint)}: {part} link {short_repr(name)} is not defined")
        ends.append(name)
    if ends[0] == ends[1]:
        raise URDFError(source, f"{_where(joint)}: parent and child are the same link {ends[0]!r}")
    return ends[0], ends[1]


def _check_joint(joint: XNode, source: str) -> int:
    kind = joint.attrib.get("type", "")
    if kind not in JOINT_DOF:
        raise URDFError(
            source, f"{_where(joint)}: unknown type {short_repr(kind)} (valid: {', '.join(JOINT_DOF)})"
        )
    if kind in ("revolute", "prismatic") and joint.find("limit") is None:
        raise URDFError(source, f"{_where(joint)}: a {kind} joint needs <limit lower upper effort velocity>")
    return JOINT_DOF[kind]


#: joint types a mimic joint and the joint it mimics may have (Pinocchio couples 1-DOF joints with a
#: configuration of one entry: its mimic joints reject a continuous joint's (cos, sin))
MIMIC_TYPES = ("revolute", "prismatic")


def _mimic_joints(
    joints: dict[str, XNode],
) -> tuple[tuple[tuple[str, str, float, float], ...], list[str]]:
    """``(joint, mimicked, multiplier, offset)`` of every movable joint with a ``<mimic>`` element, and
    why some cannot be coupled (empty when all can): the mimicked joint must exist, be another joint and
    not a mimic joint itself, and both must be revolute or prismatic (Pinocchio's mimic joints). A fixed
    or floating joint's ``<mimic>`` is ignored, as urdfdom does."""
    out: list[tuple[str, str, float, float]] = []
    problems: list[str] = []
    for name, joint in joints.items():
        node = joint.find("mimic")
        if node is None or joint.attrib.get("type") in ("fixed", "floating", "planar"):
            continue
        target = node.attrib["joint"]
        where = f"{_where(node, joint)}"
        if target == name:
            problems.append(f"{where}: a joint cannot mimic itself")
        elif target not in joints:
            near = close_matches(target, joints, n=3)
            hint = f" (did you mean {', '.join(map(repr, near))}?)" if near else ""
            problems.append(f"{where}: unknown joint {short_repr(target)}{hint}")
        elif joints[target].find("mimic") is not None:
            problems.append(f"{where}: joint {target!r} is a mimic joint itself")
        else:
            kinds = {j: joints[j].attrib.get("type", "") for j in (name, target)}
            bad = [f"{j!r} is {k}" for j, k in kinds.items() if k not in MIMIC_TYPES]
            if bad:
                problems.append(
                    f"{where}: {', '.join(bad)}; mimic joints couple {' or '.join(MIMIC_TYPES)} joints"
                )
        multiplier = float(node.attrib.get("multiplier", 1.0))
        offset = float(node.attrib.get("offset", 0.0))
        out.append((name, target, multiplier, offset))
    return tuple(out), problems


def _tree(links: dict[str, XNode], joints: dict[str, XNode], source: str) -> tuple[str, int]:
    """Root link and depth of the tree; raises on several parents, several roots or cycles."""
    parent_of: dict[str, str] = {}
    children: dict[str, list[str]] = {}
    for name, joint in joints.items():
        parent, child = _joint_links(joint, links, source)
        if child in parent_of:
            raise URDFError(
                source, f"{_where(joint)}: link {child!r} already has a parent (joint {parent_of[child]!r})"
            )
        parent_of[child] = name
        children.setdefault(parent, []).append(child)
    roots = [name for name in links if name not in parent_of]
    if len(roots) != 1:
        if not roots:
            raise URDFError(source, "no root link: the joints form a cycle")
        raise URDFError(source, f"several root links {roots[:5]}: the links are not one tree")
    depth, frontier, seen = 0, [roots[0]], 1
    while frontier:
        frontier = [c for link in frontier for c in children.get(link, ())]
        seen += len(frontier)
        depth += bool(frontier)
        if depth > MAX_DEPTH:
            raise URDFError(source, f"the tree is more than {MAX_DEPTH} joints deep (size guard)")
    if seen != len(links):
        raise URDFError(source, "some links are not connected to the root: the joints form a cycle")
    return roots[0], depth


def check_urdf(text: str, source: str) -> UrdfTree:
    """Check a URDF's XML, tree, numbers and size; return what was found.

    Raises:
        URDFError: with a message naming the element, attribute, value and line of the first fault.
    """
    root = parse_xml(text, source)
    if root.tag != "robot":
        raise URDFError(source, f"root element is <{root.tag}>, expected <robot>")
    if not root.attrib.get("name", "").strip():
        raise URDFError(source, f"<robot> has no name attribute (line {root.line})")
    links = _named(root, "link", source)
    if not links:
        raise URDFError(source, "the URDF defines no <link>")
    if len(links) > MAX_LINKS:
        raise URDFError(source, f"{len(links)} links: more than the {MAX_LINKS} accepted (size guard)")
    joints = _named(root, "joint", source)
    n_dof = sum(_check_joint(j, source) for j in joints.values())
    if n_dof > MAX_DOF:
        raise URDFError(source, f"{n_dof} degrees of freedom: more than the {MAX_DOF} accepted (size guard)")
    for node in (*links.values(), *joints.values()):
        _check_elements(node, source)
    root_link, _ = _tree(links, joints, source)
    mimic, problems = _mimic_joints(joints)
    return UrdfTree(root, links, joints, root_link, n_dof - len(mimic), mimic, tuple(problems))
