"""Pickles of models with mimic joints: what Pinocchio's own pickle loses, restored.

Pinocchio (4.1) pickles a ``JointModelMimic`` without its extended size (``nvExtended`` comes back as −1):
the unpickled model's Jacobians lose the mimic joint's column and :class:`~wbcpy.model._names.RobotNames`
cannot build the coupling (an ``IndexError``). A robot's pickle therefore carries, per mimic joint, what
rebuilds it — the joint it follows, its motion (revolute or prismatic, and the unit axis in the joint's own
frame), its multiplier and offset — and the unpickled model gets each mimic joint built anew:

    JointModelMimic(JointModel{Revolute,Prismatic}Unaligned(axis), multiplier, offset)

with the leader's configuration and velocity indices and the mimic joint's own index and extended column.
The motion is read from the model itself: the mimic joint's column of the extended joint Jacobian
(``data.J``, world axes) is ``multiplier · ᵒXᵢ S``, S its motion subspace in its frame i, so
S = ᵢXᵒ J_col / multiplier: angular only for a revolute joint (the axis through the joint's origin),
linear only for a prismatic one.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pinocchio as pin

from ..errors import ConfigError

#: how far S may be from a pure rotation or translation (relative)
_TOL = 1e-9


class MimicRepair(NamedTuple):
    """What rebuilds one mimic joint (see the module docstring): its joint id, the id of the joint it
    follows, ``"revolute"`` or ``"prismatic"``, the unit axis (3 floats, the joint's frame), the
    multiplier and the offset."""

    joint: int
    leader: int
    kind: str
    axis: tuple[float, float, float]
    multiplier: float
    offset: float


def mimic_repairs(model: pin.Model) -> tuple[MimicRepair, ...]:
    """The repairs of every mimic joint of ``model`` (empty without mimic joints).

    Raises:
        ConfigError: (field ``robot``) a mimic joint that is neither revolute nor prismatic, or whose
            multiplier is 0 (its motion cannot be read): such a robot cannot be pickled.
    """
    followers = list(getattr(model, "mimicking_joints", []))
    if not followers:
        return ()
    data = model.createData()
    pin.computeJointJacobians(model, data, pin.neutral(model))
    out = []
    for jid, leader in zip(followers, list(model.mimicked_joints), strict=True):
        joint = model.joints[jid]
        mimic = joint.extract()
        name = model.names[jid]
        if mimic.scaling == 0.0 or model.joints[leader].nv != 1:
            raise ConfigError(
                "robot", f"cannot pickle mimic joint {name!r}: multiplier 0 or a multi-DOF leader"
            )
        S = data.oMi[jid].actInv(pin.Motion(data.J[:, joint.idx_vExtended])).vector / mimic.scaling
        lin, ang = np.linalg.norm(S[:3]), np.linalg.norm(S[3:])
        if lin <= _TOL * ang:
            kind, axis = "revolute", S[3:] / ang
        elif ang <= _TOL * lin:
            kind, axis = "prismatic", S[:3] / lin
        else:
            raise ConfigError("robot", f"cannot pickle mimic joint {name!r}: neither revolute nor prismatic")
        out.append(MimicRepair(int(jid), int(leader), kind, tuple(float(a) for a in axis),  # type: ignore[arg-type]
                               float(mimic.scaling), float(mimic.offset)))  # fmt: skip
    return tuple(out)


def repair_mimic_joints(model: pin.Model, repairs: tuple[MimicRepair, ...]) -> None:
    """Build the mimic joints of an unpickled ``model`` anew from ``repairs`` (in place; joints whose
    extended size came back right are left as they are)."""
    for r in repairs:
        old = model.joints[r.joint]
        if old.nvExtended == 1:
            continue
        make = pin.JointModelRevoluteUnaligned if r.kind == "revolute" else pin.JointModelPrismaticUnaligned
        inner = make(np.array(r.axis))
        leader = model.joints[r.leader]
        inner.setIndexes(leader.id, leader.idx_q, leader.idx_v, leader.idx_vExtended)
        mimic = pin.JointModelMimic(inner, r.multiplier, r.offset)
        mimic.setIndexes(old.id, old.idx_q, old.idx_v, old.idx_vExtended)
        model.joints[r.joint] = pin.JointModel(mimic)
