"""Chain: a serial base → tip view of a :class:`~wbcpy.robot.RobotModel` on chain-local joint vectors.

A chain is the path of joints between a *base* frame and a *tip* frame of the kinematic tree, the way
KDL and AUTh-ARL's ``arl::robot::Model`` present an arm. Its joints are the ancestors of the tip's joint
that are not ancestors of (nor equal to) the base's joint, ordered base → tip. With
``q_c ∈ Rⁿ`` one value per chain DOF (an angle in rad for revolute and continuous joints, any size; a
length in m for prismatic joints):

* :meth:`Chain.fk` returns ``ᵇMₜ(q_c) = (ᵒMᵦ)⁻¹ ᵒMₜ(q_c) Mₒₓ`` — the tip frame (times the tool offset
  ``Mₒₓ``) expressed in the base frame;
* :meth:`Chain.jacobian` returns ``ᵇJ`` (6×n), linear rows over angular rows, in base axes at the origin
  of the tip (+ offset): ``[ᵇṗ; ᵇω] = ᵇJ q̇_c``.

Joints outside the chain are held at :attr:`Chain.rest`. They never move the tip relative to the base
(joints above the base move both, joints in other branches move neither), so the base placement ``ᵒMᵦ``
is computed once per rest configuration and cached. Each chain owns a scratch ``pin.Data``; it never
touches the robot's data, state or caches.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import pinocchio as pin

from ._validation import as_vector, check_finite
from .errors import ConfigError, InvalidValueError, UnknownNameError

if TYPE_CHECKING:
    from .robot import RobotModel

__all__ = ["Chain", "pose7_from_se3", "se3_from_pose7"]

_LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
_Z_AXIS = np.array([0.0, 0.0, 1.0])
_F64 = np.dtype(np.float64)


def pose7_from_se3(M: pin.SE3) -> np.ndarray:
    """The iKin pose vector ``(x, y, z, ax, ay, az, θ)`` of a transform.

    The position is ``M.translation`` (m); ``(ax, ay, az)`` is the unit rotation axis and ``θ ∈ [0, π]``
    the angle (rad) of ``M.rotation = exp(θ [a]×)``. For the identity rotation the axis is ``(0, 0, 1)``
    and θ = 0.
    """
    out = np.empty(7)
    out[:3] = M.translation
    w = pin.log3(M.rotation)
    angle = math.sqrt(float(w @ w))
    if angle < 1e-12:
        out[3:6] = _Z_AXIS
        out[6] = 0.0
    else:
        out[3:6] = w / angle
        out[6] = angle
    return out


def se3_from_pose7(x: Any) -> pin.SE3:
    """The transform of an iKin pose vector ``(x, y, z, ax, ay, az, θ)`` (axis need not be unit).

    Raises:
        InvalidValueError: not 7 finite values, or a zero axis with a non-zero angle.
    """
    vec = as_vector(x, 7, "pose")
    axis = vec[3:6]
    norm = math.sqrt(float(axis @ axis))
    if norm < 1e-12:
        if vec[6] != 0.0:
            raise InvalidValueError("pose", (7,), vec.shape, reason="zero rotation axis with non-zero angle")
        return pin.SE3(np.eye(3), vec[:3].copy())
    return pin.SE3(pin.exp3(axis * (vec[6] / norm)), vec[:3].copy())


def _as_index_or_slice(idx: np.ndarray) -> slice | np.ndarray:
    """A slice when ``idx`` is a contiguous increasing run (cheaper to index with), else the array."""
    if idx.size and np.array_equal(idx, np.arange(idx[0], idx[0] + idx.size)):
        return slice(int(idx[0]), int(idx[0]) + idx.size)
    return idx


class Chain:
    """Serial view from frame ``base`` to frame ``tip`` of a robot (see the module docstring).

    Attributes:
        robot: the robot the chain belongs to.
        name: chain name (default ``"<base>-><tip>"``).
        base, tip: frame names.
        n: number of DOF along the chain.
        joint_names: names of the chain joints, base → tip.
        joint_ids: their Pinocchio joint indices.
        dof_indices: (n,) indices of the chain DOF in the robot's v / per-DOF vectors.
        continuous: (n,) bool, True for continuous (unbounded, cos/sin) joints.
        lower, upper: (n,) position limits (rad or m; ∓inf for continuous joints).
        velocity_limit, effort_limit: (n,) limits (rad/s or m/s, N·m or N; +inf where the URDF gives none).
    """

    def __init__(
        self,
        robot: RobotModel,
        base: str,
        tip: str,
        name: str | None = None,
        tip_offset: pin.SE3 | None = None,
        rest: Any = None,
    ) -> None:
        """Build the chain; raise on an unknown frame, a tip not below the base or an empty chain.

        Args:
            robot: the robot.
            base: base frame name (any Pinocchio frame: link, joint or fixed frame).
            tip: tip frame name; it must be below ``base`` in the kinematic tree.
            name: chain name.
            tip_offset: tool point relative to the tip frame (default identity).
            rest: per-DOF values (robot.nv) for the joints outside the chain (the chain's own entries are
                ignored); default Pinocchio's neutral configuration clipped to the joint limits.

        Raises:
            UnknownNameError: ``base`` or ``tip`` is not a frame of the robot.
            ConfigError: the tip is not below the base, the chain has no DOF, or a joint along the path
                has more than one DOF (free-flyer, spherical, planar).
            InvalidValueError: a bad ``rest`` or ``tip_offset``.
        """
        model = robot.model
        bid = self._frame(robot, base, "chain base frame")
        tid = self._frame(robot, tip, "chain tip frame")
        label = name or f"{base}->{tip}"
        jb, jt = model.frames[bid].parentJoint, model.frames[tid].parentJoint
        path: list[int] = []
        j = jt
        while j != jb and j != 0:
            path.append(j)
            j = model.parents[j]
        if j != jb:
            raise ConfigError(
                f"chain {label!r}",
                f"tip frame {tip!r} is not below base frame {base!r} in the kinematic tree "
                f"(joint {model.names[jt]!r} of the tip does not descend from joint {model.names[jb]!r} "
                "that moves the base)",
            )
        if not path:
            raise ConfigError(
                f"chain {label!r}",
                f"empty chain: no joint between base frame {base!r} and tip frame {tip!r} "
                f"(both are moved by joint {model.names[jb]!r})",
            )
        path.reverse()
        for jid in path:
            joint = model.joints[jid]
            if joint.nv != 1:
                raise ConfigError(
                    f"chain {label!r}",
                    f"joint {model.names[jid]!r} ({joint.shortname()}) has {joint.nv} DOF; "
                    "chains support 1-DOF joints only",
                )
        self.robot = robot
        self.name = label
        self.base = model.frames[bid].name
        self.tip = model.frames[tid].name
        self._model = model
        self._data = model.createData()
        self._bid, self._tid = bid, tid
        self.joint_ids = np.array(path, dtype=np.intp)
        self.joint_names = [model.names[jid] for jid in path]
        self.n = len(path)
        self._shape = (self.n,)
        self.dof_indices = np.array([model.joints[jid].idx_v for jid in path], dtype=np.intp)
        self.continuous = np.array([model.joints[jid].nq == 2 for jid in path], dtype=bool)
        self.lower = robot.dof_lower_limit[self.dof_indices]
        self.upper = robot.dof_upper_limit[self.dof_indices]
        self.velocity_limit = robot.velocity_limit[self.dof_indices]
        self.effort_limit = robot.effort_limit[self.dof_indices]
        # index arrays: chain-local position -> q position (simple joints) / cos,sin positions (continuous)
        idx_q = np.array([model.joints[jid].idx_q for jid in path], dtype=np.intp)
        simple = np.flatnonzero(~self.continuous)
        self._all_simple = simple.size == self.n
        self._sc = _as_index_or_slice(simple)
        self._sq = _as_index_or_slice(idx_q[simple])
        self._cc = np.flatnonzero(self.continuous)
        self._cq = idx_q[self._cc]
        self._cq1 = self._cq + 1
        self._cols = _as_index_or_slice(self.dof_indices)
        self._cols_is_slice = isinstance(self._cols, slice)
        self._cols_all = self._cols_is_slice and self._cols == slice(0, model.nv)  # every robot DOF
        self._tip_offset = pin.SE3.Identity()
        self._has_offset = False
        if tip_offset is not None:
            self.tip_offset = tip_offset
        if rest is None:
            dof = robot.dof_from_q(pin.neutral(model))
            rest = np.clip(dof, robot.dof_lower_limit, robot.dof_upper_limit)
        self._set_rest(rest)

    def _update_plain(self) -> None:
        """Whether Pinocchio's tip pose and (2-D) Jacobian need no transform (only a column selection)."""
        self._plain = (
            getattr(self, "_base_identity", False)
            and not self._has_offset
            and self._model.nv > 1  # nv = 1: Pinocchio returns a 1-D Jacobian
        )

    @staticmethod
    def _frame(robot: RobotModel, frame: str, kind: str) -> int:
        if not isinstance(frame, str):
            raise UnknownNameError(kind, frame, robot.frame_names)
        try:
            return robot.frame_id(frame)
        except UnknownNameError:
            raise UnknownNameError(kind, frame, robot.frame_names) from None

    # ------------------------------------------------------------------ settable properties
    @property
    def rest(self) -> np.ndarray:
        """Per-DOF values (robot.nv) of the whole robot used for joints outside the chain (a copy)."""
        return self._rest.copy()

    @rest.setter
    def rest(self, value: Any) -> None:
        self._set_rest(value)

    def _set_rest(self, value: Any) -> None:
        dof = as_vector(value, self.robot.nv, "rest")
        q = self.robot.q_from_dof(dof)
        data = self._data
        pin.forwardKinematics(self._model, data, q)
        oMb = pin.updateFramePlacement(self._model, data, self._bid)
        # commit only after everything succeeded
        self._rest = dof
        self._q = q
        self._bMo = oMb.inverse()
        rot_t = oMb.rotation.T.copy()
        self._base_rot_identity = bool(np.array_equal(rot_t, np.eye(3)))
        self._base_identity = self._base_rot_identity and not oMb.translation.any()
        self._update_plain()
        self._R6 = np.zeros((6, 6))
        self._R6[:3, :3] = rot_t
        self._R6[3:, 3:] = rot_t

    @property
    def tip_offset(self) -> pin.SE3:
        """Tool point relative to the tip frame (a copy; settable with a ``pin.SE3``)."""
        return pin.SE3(self._tip_offset)

    @tip_offset.setter
    def tip_offset(self, value: pin.SE3 | None) -> None:
        if value is None:
            value = pin.SE3.Identity()
        if not isinstance(value, pin.SE3):
            raise InvalidValueError("tip_offset", "a pinocchio.SE3", type(value).__name__)
        check_finite(value.homogeneous, "tip_offset")
        self._tip_offset = pin.SE3(value)
        self._has_offset = not value.isIdentity(0.0)
        self._update_plain()

    # ------------------------------------------------------------------ chain-local vectors
    def _load(self, q_chain: Any) -> np.ndarray:
        """Validate ``q_chain`` and write it into the scratch configuration; return that configuration."""
        qc = q_chain
        if type(qc) is not np.ndarray or qc.dtype is not _F64 or qc.shape != self._shape:
            qc = as_vector(q_chain, self.n, "q_chain")  # lists, other dtypes, wrong shapes
        elif not math.isfinite(sum(qc.tolist())):  # NaN/inf make the sum non-finite (overflow re-checked)
            check_finite(qc, "q_chain")
        return self._write(qc)

    def _write(self, qc: np.ndarray) -> np.ndarray:
        """Write the validated chain vector ``qc`` into the scratch configuration and return it."""
        q = self._q
        if self._all_simple:
            q[self._sq] = qc
        else:
            q[self._sq] = qc[self._sc]
            theta = qc[self._cc]
            q[self._cq] = np.cos(theta)
            q[self._cq1] = np.sin(theta)
        return q

    def full_q(self, q_chain: Any) -> np.ndarray:
        """Robot configuration q (nq): the rest configuration with the chain joints set to ``q_chain``."""
        return self._load(q_chain).copy()

    def full_dof(self, q_chain: Any) -> np.ndarray:
        """Per-DOF vector (robot.nv): :attr:`rest` with the chain DOF set to ``q_chain``."""
        qc = as_vector(q_chain, self.n, "q_chain")
        dof = self._rest.copy()
        dof[self.dof_indices] = qc
        return dof

    def clip(self, q_chain: Any) -> np.ndarray:
        """``q_chain`` clipped to [lower, upper] (continuous joints pass unchanged)."""
        return np.clip(as_vector(q_chain, self.n, "q_chain"), self.lower, self.upper)

    # ------------------------------------------------------------------ kinematics
    # Pinocchio's computeFrameJacobian and updateFramePlacement return new objects, so the results below
    # never alias pin.Data; the base placement is constant (see _set_rest), hence no per-call base update.
    def _jac_in_base(self, J: np.ndarray) -> np.ndarray:
        """Chain columns of the world-aligned tip Jacobian ``J`` (a new array), in base axes."""
        if J.ndim == 1:  # Pinocchio returns a 6-vector when the robot has a single DOF
            J = J.reshape(6, 1)
        if self._base_rot_identity:
            if self._cols_all:
                return J  # already a new array
            return J[:, self._cols].copy() if self._cols_is_slice else J[:, self._cols]
        return self._R6 @ J[:, self._cols]

    def _shift_to_offset(self, Jb: np.ndarray, oMt: pin.SE3) -> None:
        """Move the reference point of ``Jb`` (base axes) from the tip origin to the tool point, in place."""
        # r = ᵇRₜ p_off (base axes); v' = v + ω × r = v − [r]× ω
        r = self._bMo.rotation @ (oMt.rotation @ self._tip_offset.translation)
        Jb[:3] -= pin.skew(r) @ Jb[3:]

    def fk(self, q_chain: Any) -> pin.SE3:
        """Tip (+ offset) placement in the base frame, ``ᵇMₜ(q_c)`` (a new ``pin.SE3``, m).

        Raises:
            InvalidValueError: ``q_chain`` is not n finite values.
        """
        q = self._load(q_chain)
        pin.forwardKinematics(self._model, self._data, q)
        oMt = pin.updateFramePlacement(self._model, self._data, self._tid)
        bMt = oMt if self._base_identity else self._bMo * oMt
        return bMt * self._tip_offset if self._has_offset else bMt

    def jacobian(self, q_chain: Any) -> np.ndarray:
        """Chain Jacobian ``ᵇJ`` (6×n): linear (m/s) over angular (rad/s) rows, base axes, at the tip.

        The reference point is the tip origin, moved by :attr:`tip_offset` when one is set.

        Raises:
            InvalidValueError: ``q_chain`` is not n finite values.
        """
        q = self._load(q_chain)
        Jb = self._jac_in_base(pin.computeFrameJacobian(self._model, self._data, q, self._tid, _LWA))
        if self._has_offset:
            self._shift_to_offset(Jb, pin.updateFramePlacement(self._model, self._data, self._tid))
        return Jb

    def fk_jacobian(self, q_chain: Any) -> tuple[pin.SE3, np.ndarray]:
        """``(fk(q_c), jacobian(q_c))`` from one kinematics pass (the hot path of controllers).

        Raises:
            InvalidValueError: ``q_chain`` is not n finite values.
        """
        return self._fk_jacobian(self._load(q_chain))

    def fk_jacobian_unchecked(self, q_chain: np.ndarray) -> tuple[pin.SE3, np.ndarray]:
        """:meth:`fk_jacobian` without validating ``q_chain`` (for controllers that validated it already).

        ``q_chain`` is trusted: it must be a finite float64 array of shape ``(n,)``; anything else gives
        wrong results or a numpy/Pinocchio error. The results are new objects, as from :meth:`fk_jacobian`.
        """
        if not self._all_simple:
            return self._fk_jacobian(self._write(q_chain))
        q = self._q
        q[self._sq] = q_chain
        if not self._plain:
            return self._fk_jacobian(q)
        # base frame = world and no tool offset: Pinocchio's pose, and its Jacobian's chain columns
        model, data, tid = self._model, self._data, self._tid
        J = pin.computeFrameJacobian(model, data, q, tid, _LWA)
        if not self._cols_all:
            J = J[:, self._cols].copy() if self._cols_is_slice else J[:, self._cols]
        return pin.updateFramePlacement(model, data, tid), J

    def _fk_jacobian(self, q: np.ndarray) -> tuple[pin.SE3, np.ndarray]:
        model, data, tid = self._model, self._data, self._tid
        Jb = self._jac_in_base(pin.computeFrameJacobian(model, data, q, tid, _LWA))
        oMt = pin.updateFramePlacement(model, data, tid)  # joints are placed: this only composes jMf
        bMt = oMt if self._base_identity else self._bMo * oMt
        if self._has_offset:
            self._shift_to_offset(Jb, oMt)
            bMt = bMt * self._tip_offset
        return bMt, Jb

    def pose7(self, q_chain: Any) -> np.ndarray:
        """iKin pose vector ``(x, y, z, ax, ay, az, θ)`` of :meth:`fk` (see :func:`pose7_from_se3`)."""
        return pose7_from_se3(self.fk(q_chain))

    def __len__(self) -> int:
        return self.n

    def __repr__(self) -> str:
        return f"Chain(name={self.name!r}, base={self.base!r}, tip={self.tip!r}, n={self.n})"
