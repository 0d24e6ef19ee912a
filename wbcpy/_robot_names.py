"""Names, sizes, index look-ups, limits and per-DOF conversions of a :class:`~wbcpy.robot.RobotModel`.

These read the Pinocchio model only (no state, no cache): :class:`~wbcpy.robot.RobotModel` inherits them
from :class:`RobotNamesMixin`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pinocchio as pin

from ._dof_map import DofMap
from ._validation import as_vector
from .errors import UnknownNameError

__all__ = ["RobotNamesMixin"]

_BIG = 1e300  # Pinocchio's "no limit" is ±max double


def _finite_or_inf(x: np.ndarray) -> np.ndarray:
    """Map Pinocchio's ±max-double "unbounded" limits to ±inf."""
    out = np.array(x, dtype=np.float64)
    out[out >= _BIG] = np.inf
    out[out <= -_BIG] = -np.inf
    return out


class RobotNamesMixin:
    """Sizes, names, Pinocchio indices, limits and per-DOF conversions (model-only queries)."""

    model: pin.Model
    _dofs: DofMap
    _frame_index: dict[str, int]
    _joint_index: dict[str, int]

    # ------------------------------------------------------------------ names and sizes
    @property
    def nq(self) -> int:
        """Size of the configuration vector q."""
        return self.model.nq

    @property
    def nv(self) -> int:
        """Size of velocity/acceleration/torque vectors (= number of DOF)."""
        return self.model.nv

    @property
    def ndof(self) -> int:
        """Number of degrees of freedom (= nv; a free-flyer base counts 6)."""
        return self.model.nv

    @property
    def floating_base(self) -> bool:
        """True when the first joint is a free-flyer."""
        return self.model.njoints > 1 and self.model.joints[1].shortname() == "JointModelFreeFlyer"

    @property
    def joint_names(self) -> list[str]:
        """Names of the moving joints, in Pinocchio order (the universe excluded)."""
        return list(self.model.names[1:])

    @property
    def dof_names(self) -> list[str]:
        """One name per DOF (nv): the joint name, or ``joint:x|y|z|wx|wy|wz`` inside multi-DOF joints."""
        return list(self._dofs.dof_names)

    @property
    def frame_names(self) -> list[str]:
        """Every Pinocchio frame name (links, joints, fixed frames)."""
        return [f.name for f in self.model.frames]

    @property
    def link_names(self) -> list[str]:
        """Names of the URDF links (Pinocchio BODY frames)."""
        return [f.name for f in self.model.frames if f.type == pin.FrameType.BODY]

    @property
    def root_link(self) -> str:
        """Name of the first link of the URDF (the fixed base or the floating body)."""
        return self.link_names[0]

    def frame_id(self, frame: str | int) -> int:
        """Pinocchio frame index of ``frame`` (a name, or an index that is checked)."""
        if isinstance(frame, (int, np.integer)):
            if 0 <= frame < len(self.model.frames):
                return int(frame)
            raise UnknownNameError("frame index", frame, [str(i) for i in range(len(self.model.frames))])
        try:
            return self._frame_index[frame]
        except KeyError:
            raise UnknownNameError("frame", frame, self._frame_index) from None

    def joint_id(self, joint: str) -> int:
        """Pinocchio joint index (1-based; 0 is the universe) of the joint named ``joint``."""
        try:
            return self._joint_index[joint]
        except KeyError:
            raise UnknownNameError("joint", joint, self._joint_index) from None

    def joint_v_index(self, joint: str) -> int:
        """First index of joint ``joint`` in v (and in the per-DOF vector)."""
        return int(self.model.joints[self.joint_id(joint)].idx_v)

    def joint_q_index(self, joint: str) -> int:
        """First index of joint ``joint`` in q."""
        return int(self.model.joints[self.joint_id(joint)].idx_q)

    # ------------------------------------------------------------------ limits
    @property
    def lower_position_limit(self) -> np.ndarray:
        """Lower position limits in q space (nq); -inf where unbounded."""
        return _finite_or_inf(self.model.lowerPositionLimit)

    @property
    def upper_position_limit(self) -> np.ndarray:
        """Upper position limits in q space (nq); +inf where unbounded."""
        return _finite_or_inf(self.model.upperPositionLimit)

    @property
    def dof_lower_limit(self) -> np.ndarray:
        """Lower position limit per DOF (nv, rad or m); -inf for continuous joints and free-flyers."""
        return self._dofs.lower.copy()

    @property
    def dof_upper_limit(self) -> np.ndarray:
        """Upper position limit per DOF (nv, rad or m); +inf for continuous joints and free-flyers."""
        return self._dofs.upper.copy()

    @property
    def velocity_limit(self) -> np.ndarray:
        """Velocity limits (nv, rad/s or m/s); +inf where the URDF gives none."""
        vel = _finite_or_inf(self.model.velocityLimit)
        vel[vel <= 0.0] = np.inf
        return vel

    @property
    def effort_limit(self) -> np.ndarray:
        """Effort limits (nv, N·m or N); +inf where the URDF gives none."""
        eff = _finite_or_inf(self.model.effortLimit)
        eff[eff <= 0.0] = np.inf
        return eff

    # ------------------------------------------------------------------ per-DOF conversions
    def q_from_dof(self, angles: Any) -> np.ndarray:
        """Configuration q (nq) from one value per DOF (nv).

        Continuous joints take an angle θ and become (cos θ, sin θ); a free-flyer takes
        (x, y, z, rx, ry, rz) with (rx, ry, rz) a rotation vector (R = exp₃(r)); spherical joints take a
        rotation vector; planar joints take (x, y, θ).
        """
        return self._dofs.q_from_dof(as_vector(angles, self.nv, "angles"))

    def dof_from_q(self, q: Any) -> np.ndarray:
        """One value per DOF (nv) from a configuration q (nq); the inverse of :meth:`q_from_dof`."""
        return self._dofs.dof_from_q(as_vector(q, self.nq, "q"))

    def neutral(self) -> np.ndarray:
        """Pinocchio's neutral configuration (nq)."""
        return np.array(pin.neutral(self.model))
