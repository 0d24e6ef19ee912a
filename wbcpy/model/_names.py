"""What a :class:`~wbcpy.model.robot_model.RobotModel` knows without a state: sizes, names, indices, limits,
per-DOF maps.

:class:`RobotNames` reads the Pinocchio model once and answers model-only questions. It holds no state
and no ``pin.Data``, never changes after construction, and is therefore shared by a robot and its
:meth:`~wbcpy.model.robot_model.RobotModel.copy` and safe to use from any number of threads. ``RobotModel``
exposes
each of its members under the same name (``robot.frame_id``, ``robot.dof_lower_limit``, ...).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pinocchio as pin

from .._support.validation import as_vector, lookup
from ..errors import UnknownNameError
from ._dof_map import DofMap

_BIG = 1e300  # Pinocchio's "no limit" is ±max double


def _finite_or_inf(x: np.ndarray) -> np.ndarray:
    """Map Pinocchio's ±max-double "unbounded" limits to ±inf (a new array)."""
    out = np.array(x, dtype=np.float64)
    out[out >= _BIG] = np.inf
    out[out <= -_BIG] = -np.inf
    return out


@dataclass(frozen=True)
class MimicJoint:
    """A joint that follows another one (URDF ``<mimic>``): q = multiplier · q_leader + offset.

    It has no DOF of its own: q̇ = multiplier · q̇_leader, and its Jacobian columns add to the leader's.

    Attributes:
        name: the mimic (follower) joint.
        mimicked: the joint it follows (an independent joint of ``joint_names``).
        multiplier: the factor (dimensionless, or m/rad between a prismatic and a revolute joint).
        offset: the offset (rad or m).
    """

    name: str
    mimicked: str
    multiplier: float
    offset: float


def _mimic_joints(model: pin.Model) -> tuple[MimicJoint, ...]:
    """The model's Pinocchio mimic joints, in joint order."""
    out = []
    leaders = dict(zip(list(model.mimicking_joints), list(model.mimicked_joints), strict=True)) if hasattr(
        model, "mimicking_joints"
    ) else {}  # fmt: skip
    for jid, leader in leaders.items():
        joint = model.joints[jid].extract()
        out.append(
            MimicJoint(model.names[jid], model.names[leader], float(joint.scaling), float(joint.offset))
        )
    return tuple(out)


def extended_coupling(model: pin.Model) -> np.ndarray | None:
    """G (nv_ext × nv) with q̇_ext = G q̇ for a model with mimic joints, None without.

    Pinocchio's joint Jacobians ``data.J`` have one column per joint DOF including the mimic joints'
    (``model.nvExtended`` columns, a joint's at ``idx_vExtended``; a mimic joint's column is its motion
    axis times the multiplier already); J_ext G is the Jacobian in q̇: each mimic column is added to its
    leader's.
    """
    nv_ext = int(getattr(model, "nvExtended", model.nv))
    if nv_ext == model.nv:
        return None
    G = np.zeros((nv_ext, model.nv))
    for jid in range(1, model.njoints):
        joint = model.joints[jid]
        cols = range(joint.idx_vExtended, joint.idx_vExtended + joint.nvExtended)
        if joint.shortname() == "JointModelMimic":
            G[cols[0], joint.idx_v] = 1.0  # (Pinocchio's mimic column carries the multiplier already)
        else:
            for k, col in enumerate(cols):
                G[col, joint.idx_v + k] = 1.0
    G.setflags(write=False)
    return G


class RobotNames:
    """Model-only queries of one ``pin.Model`` (immutable; see the module docstring).

    Attributes:
        nq, nv: sizes of q and of v (= number of DOF).
        n_frames: number of Pinocchio frames.
        floating_base: True when the first joint is a free-flyer.
        dofs: the per-DOF ↔ q conversions (:class:`~wbcpy.model._dof_map.DofMap`).
        mimic_coupling: G (nv_ext × nv, read only) from q̇ to the joint DOFs including mimic joints (the
            columns of Pinocchio's ``data.J``), or None without mimic joints (see
            :func:`extended_coupling`).
    """

    def __init__(self, model: pin.Model) -> None:
        self._model = model
        self.nq, self.nv = int(model.nq), int(model.nv)
        self.n_frames = len(model.frames)
        self.floating_base: bool = model.njoints > 1 and model.joints[1].shortname() == "JointModelFreeFlyer"
        self.dofs = DofMap(model)
        self._frame_index = {model.frames[i].name: i for i in range(self.n_frames)}
        self._mimic = _mimic_joints(model)
        self.mimic_coupling = extended_coupling(model)
        followers = {m.name for m in self._mimic}
        self._joint_index = {
            model.names[i]: i for i in range(1, model.njoints) if model.names[i] not in followers
        }
        self._frame_names = tuple(f.name for f in model.frames)
        self._joint_names = tuple(n for n in model.names[1:] if n not in followers)
        self._link_names: tuple[str, ...] = tuple(
            f.name for f in model.frames if f.type == pin.FrameType.BODY
        )
        self._lower_q = _finite_or_inf(model.lowerPositionLimit)
        self._upper_q = _finite_or_inf(model.upperPositionLimit)
        vel = _finite_or_inf(model.velocityLimit)
        vel[vel <= 0.0] = np.inf
        eff = _finite_or_inf(model.effortLimit)
        eff[eff <= 0.0] = np.inf
        self._velocity, self._effort = vel, eff

    # ------------------------------------------------------------------ names
    @property
    def joint_names(self) -> list[str]:
        """Names of the independent moving joints, in Pinocchio order (the universe and mimic joints
        excluded)."""
        return list(self._joint_names)

    @property
    def mimic_joints(self) -> list[MimicJoint]:
        """The joints that follow another (URDF ``<mimic>``), with multiplier and offset; they are not in
        :attr:`joint_names` and have no DOF (empty without mimic joints)."""
        return list(self._mimic)

    @property
    def dof_names(self) -> list[str]:
        """One name per DOF (nv): the joint name, or ``joint:x|y|z|wx|wy|wz`` inside multi-DOF joints."""
        return list(self.dofs.dof_names)

    @property
    def frame_names(self) -> list[str]:
        """Every Pinocchio frame name (links, joints, fixed frames)."""
        return list(self._frame_names)

    @property
    def link_names(self) -> list[str]:
        """Names of the URDF links (Pinocchio BODY frames)."""
        return list(self._link_names)

    @property
    def root_link(self) -> str:
        """Name of the first link of the URDF (the fixed base or the floating body)."""
        return self._link_names[0]

    def frame_id(self, frame: Any) -> int:
        """Pinocchio frame index of ``frame`` (a name, or an index that is checked).

        Raises:
            UnknownNameError: an unknown name, an index out of range, or anything else (lists close names).
        """
        if isinstance(frame, (int, np.integer)) and not isinstance(frame, (bool, np.bool_)):
            if 0 <= frame < self.n_frames:
                return int(frame)
            raise UnknownNameError("frame index", frame, [str(i) for i in range(self.n_frames)])
        return lookup(self._frame_index, frame, "frame")

    def joint_id(self, joint: Any) -> int:
        """Pinocchio joint index (1-based; 0 is the universe) of the joint named ``joint``.

        Raises:
            UnknownNameError: an unknown (or non-string) name; the message lists close names.
        """
        return lookup(self._joint_index, joint, "joint")

    def joint_v_index(self, joint: Any) -> int:
        """First index of joint ``joint`` in v (and in the per-DOF vector)."""
        return int(self._model.joints[self.joint_id(joint)].idx_v)

    def joint_q_index(self, joint: Any) -> int:
        """First index of joint ``joint`` in q."""
        return int(self._model.joints[self.joint_id(joint)].idx_q)

    # ------------------------------------------------------------------ limits (new arrays)
    @property
    def lower_position_limit(self) -> np.ndarray:
        """Lower position limits in q space (nq); -inf where unbounded."""
        return self._lower_q.copy()

    @property
    def upper_position_limit(self) -> np.ndarray:
        """Upper position limits in q space (nq); +inf where unbounded."""
        return self._upper_q.copy()

    @property
    def dof_lower_limit(self) -> np.ndarray:
        """Lower position limit per DOF (nv, rad or m); -inf for continuous joints and free-flyers."""
        return self.dofs.lower.copy()

    @property
    def dof_upper_limit(self) -> np.ndarray:
        """Upper position limit per DOF (nv, rad or m); +inf for continuous joints and free-flyers."""
        return self.dofs.upper.copy()

    @property
    def velocity_limit(self) -> np.ndarray:
        """Velocity limits (nv, rad/s or m/s); +inf where the URDF gives none."""
        return self._velocity.copy()

    @property
    def effort_limit(self) -> np.ndarray:
        """Effort limits (nv, N·m or N); +inf where the URDF gives none."""
        return self._effort.copy()

    # ------------------------------------------------------------------ per-DOF conversions
    def q_from_dof(self, angles: Any) -> np.ndarray:
        """Configuration q (nq) from one value per DOF (nv); see :meth:`wbcpy.RobotModel.q_from_dof`."""
        return self.dofs.q_from_dof(as_vector(angles, self.nv, "angles"))

    def dof_from_q(self, q: Any) -> np.ndarray:
        """One value per DOF (nv) from a configuration q (nq); unit blocks of q must have norm 1 ± 1e-6.

        Raises:
            InvalidValueError: wrong size, NaN/inf, or a non-unit quaternion / cos-sin pair.
        """
        qa = as_vector(q, self.nq, "q")
        self.dofs.normalize_in_place(qa)
        return self.dofs.dof_from_q(qa)

    def neutral(self) -> np.ndarray:
        """Pinocchio's neutral configuration (nq)."""
        return np.array(pin.neutral(self._model))


def forwarded(attr: str) -> Any:
    """A read-only class member that is ``self.names.<attr>`` (a :class:`RobotNames` member: same name,
    same docstring); how :class:`~wbcpy.RobotModel` exposes the names it is composed of.

    It is a ``property`` (C-level getter, no Python call per access); typed ``Any`` so that the class
    annotates each member with the type its instances hand out."""
    return property(operator.attrgetter(f"names.{attr}"), doc=getattr(RobotNames, attr).__doc__)
