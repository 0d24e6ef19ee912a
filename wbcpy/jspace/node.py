"""Read-only nodes of a :class:`~wbcpy.jspace.Model` (the ``taoDNode`` of Stanford-WBC).

A node is a moving link: the body carried by one Pinocchio joint (links welded to it by fixed joints are
merged into it, as Pinocchio does). Node IDs count the moving joints from 0 in Pinocchio order, so the
fixed root (universe) is not a node. For a fixed-base robot made of 1-DOF joints, node ID = joint index
= DOF index. With a floating base, node 0 is the base body and owns DOF 0..5.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pinocchio as pin

from .._support.validation import lookup, short_repr
from ..errors import InvalidValueError, UnknownNameError


def _frozen(arr: np.ndarray) -> np.ndarray:
    out = np.array(arr, dtype=np.float64)
    out.setflags(write=False)
    return out


@dataclass(frozen=True, eq=False)
class Node:
    """One moving link of a jspace model (read-only).

    Attributes:
        id: node ID (0-based, the root excluded).
        name: name of the link the joint moves (``getNodeName``).
        joint_name: name of the joint that moves it (``getJointName``).
        parent_id: ID of the parent node, −1 when the parent is the fixed root.
        mass: mass of the body in kg (links welded by fixed joints included).
        com: centre of mass in the node frame (3, m; read-only array).
        inertia: rotational inertia about the COM, node-frame axes (3×3, kg·m²; read-only array).
        joint_index: Pinocchio joint index (``id + 1``).
        joint_type: Pinocchio joint type, e.g. ``"JointModelRZ"``.
        dof_index: index of the joint's first DOF in per-DOF vectors (columns of Jacobians).
        ndof: number of DOF of the joint (1, or 6 for a free-flyer).
        frame_id: Pinocchio frame index of the joint frame (the node origin).
    """

    id: int
    name: str
    joint_name: str
    parent_id: int
    mass: float
    com: np.ndarray
    inertia: np.ndarray
    joint_index: int
    joint_type: str
    dof_index: int
    ndof: int
    frame_id: int

    @property
    def link_name(self) -> str:
        """Name of the link this node stands for (same as :attr:`name`)."""
        return self.name

    def get_id(self) -> int:
        """The node ID (``taoDNode::getID``)."""
        return self.id

    #: Alias of :meth:`get_id` (Stanford-WBC / TAO name).
    getID = get_id

    def __repr__(self) -> str:
        return (
            f"Node(id={self.id}, name={self.name!r}, joint_name={self.joint_name!r}, "
            f"parent_id={self.parent_id}, mass={self.mass:g})"
        )


def _link_of_joint(model: pin.Model, joint: int, joint_frame: int) -> str:
    """Name of the link a joint moves: its direct BODY child frame, else any BODY frame it carries."""
    fallback = None
    for frame in model.frames:
        if frame.type != pin.FrameType.BODY or frame.parentJoint != joint:
            continue
        if frame.parentFrame == joint_frame:
            return str(frame.name)
        fallback = fallback or frame.name
    return str(fallback or model.names[joint])


def build_nodes(model: pin.Model) -> tuple[Node, ...]:
    """One :class:`Node` per moving Pinocchio joint, in joint order."""
    nodes = []
    for jid in range(1, model.njoints):
        joint = model.joints[jid]
        name = model.names[jid]
        fid = model.getFrameId(name, pin.FrameType.JOINT)
        if fid >= model.nframes:
            raise InvalidValueError(
                "model", "a JOINT frame per joint", None, reason=f"joint {name!r} has no JOINT frame"
            )
        inertia = model.inertias[jid]
        nodes.append(
            Node(
                id=jid - 1,
                name=_link_of_joint(model, jid, fid),
                joint_name=name,
                parent_id=int(model.parents[jid]) - 1,
                mass=float(inertia.mass),
                com=_frozen(inertia.lever),
                inertia=_frozen(inertia.inertia),
                joint_index=jid,
                joint_type=joint.shortname(),
                dof_index=int(joint.idx_v),
                ndof=int(joint.nv),
                frame_id=int(fid),
            )
        )
    return tuple(nodes)


class NodeIDError(UnknownNameError, IndexError):
    """A node ID or DOF index outside its range (an :class:`UnknownNameError` and an ``IndexError``)."""

    def __init__(self, kind: str, value: Any, size: int) -> None:
        super().__init__(kind, value, [str(i) for i in range(size)])
        self.message = f"unknown {kind} {value!r}: valid values are 0..{size - 1}"
        self.args = (self.message,)


class NodeTable:
    """The nodes of one model with their name lookups; resolves node references.

    Attributes:
        nodes: every node, in ID order.
    """

    def __init__(self, nodes: Sequence[Node]) -> None:
        self.nodes = tuple(nodes)
        self._by_link = {n.name: n for n in self.nodes}
        self._by_joint = {n.joint_name: n for n in self.nodes}

    def resolve(self, node: Any) -> Node:
        """The node of an integer ID or a :class:`Node` of this table.

        Raises:
            NodeIDError: an ID outside 0..n−1.
            InvalidValueError: neither an integer nor a node of this table.
        """
        nodes = self.nodes
        if type(node) is int or isinstance(node, np.integer):
            if 0 <= node < len(nodes):
                return nodes[int(node)]
            raise NodeIDError("node ID", node, len(nodes))
        if isinstance(node, Node):
            mine = nodes[node.id] if 0 <= node.id < len(nodes) else None
            if mine is not None and (
                mine is node or (mine.joint_name, mine.name) == (node.joint_name, node.name)
            ):
                return mine
            raise InvalidValueError(
                "node",
                "a node of this model",
                short_repr(node),
                reason=f"{node!r} is not a node of this model",
            )
        raise InvalidValueError(
            "node",
            "a Node or an integer node ID",
            type(node).__name__,
            reason=f"expected a Node or an integer node ID, got {short_repr(node)}",
        )

    def by_link(self, name: str) -> Node:
        """The node of the link ``name``; :class:`UnknownNameError` lists close names otherwise."""
        return lookup(self._by_link, name, "node (link) name")

    def by_joint(self, name: str) -> Node:
        """The node moved by joint ``name``; :class:`UnknownNameError` lists close names otherwise."""
        return lookup(self._by_joint, name, "joint name")
