"""Chain: a serial base → tip view of a :class:`~wbcpy.model.robot_model.RobotModel` on chain-local joint
vectors.

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
is computed once per rest configuration and cached. A chain computes in its own scratch ``pin.Data``
(one per thread); it never touches the robot's data, state or caches.

**Threads.** A chain may be shared: each thread computes in its own scratch data, and :attr:`Chain.rest`
/ :attr:`Chain.tip_offset` changes are published as one new configuration that a running call never
sees half of. **Copies and pickles** are independent chains: ``copy.copy`` shares the robot (a chain
never reads the robot's state), ``copy.deepcopy`` and pickles copy it too.
"""

from __future__ import annotations

import math
from typing import Any, Protocol

import numpy as np
import pinocchio as pin

from .._support.validation import as_se3, as_state_vector, as_vector, check_finite
from ..errors import ConfigError, UnknownNameError
from ._chain_scratch import ChainConfig as _Config
from ._chain_scratch import PerThreadScratch as _PerThread
from ._chain_scratch import Scratch as _Scratch
from ._poses import pose7_from_se3

_LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
_F64 = np.dtype(np.float64)


def _as_index_or_slice(idx: np.ndarray) -> slice | np.ndarray:
    """A slice when ``idx`` is a contiguous increasing run (cheaper to index with), else the array."""
    if idx.size and np.array_equal(idx, np.arange(idx[0], idx[0] + idx.size)):
        return slice(int(idx[0]), int(idx[0]) + idx.size)
    return idx


class ChainRobot(Protocol):
    """What a chain reads of its robot: the model-only names and limits of a
    :class:`~wbcpy.model.robot_model.RobotModel` (its :class:`~wbcpy.model._names.RobotNames`); typed
    structurally so that this module does not import the robot model, which builds chains."""

    @property
    def model(self) -> pin.Model: ...
    @property
    def nv(self) -> int: ...
    @property
    def frame_names(self) -> list[str]: ...
    @property
    def dof_lower_limit(self) -> np.ndarray: ...
    @property
    def dof_upper_limit(self) -> np.ndarray: ...
    @property
    def velocity_limit(self) -> np.ndarray: ...
    @property
    def effort_limit(self) -> np.ndarray: ...

    def frame_id(self, frame: Any, /) -> int: ...
    def dof_from_q(self, q: Any, /) -> np.ndarray: ...
    def q_from_dof(self, angles: Any, /) -> np.ndarray: ...


def _frozen(arr: np.ndarray) -> np.ndarray:
    arr.setflags(write=False)
    return arr


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
        robot: ChainRobot,
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
        path = self._joint_path(model, bid, tid, label)
        self.robot = robot
        self.name = label
        self.base = model.frames[bid].name
        self.tip = model.frames[tid].name
        self._model = model
        self._tls = _PerThread(model)
        self._bid, self._tid = bid, tid
        self.joint_ids = _frozen(np.array(path, dtype=np.intp))
        self.joint_names: list[str] = [model.names[jid] for jid in path]
        self.n = len(path)
        self._shape = (self.n,)
        self.dof_indices = _frozen(np.array([model.joints[jid].idx_v for jid in path], dtype=np.intp))
        self.continuous = _frozen(np.array([model.joints[jid].nq == 2 for jid in path], dtype=bool))
        self.lower = _frozen(robot.dof_lower_limit[self.dof_indices])
        self.upper = _frozen(robot.dof_upper_limit[self.dof_indices])
        self.velocity_limit = _frozen(robot.velocity_limit[self.dof_indices])
        self.effort_limit = _frozen(robot.effort_limit[self.dof_indices])
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
        offset = pin.SE3.Identity() if tip_offset is None else as_se3(tip_offset, "tip_offset")
        if rest is None:
            dof = robot.dof_from_q(pin.neutral(model))
            rest = np.clip(dof, robot.dof_lower_limit, robot.dof_upper_limit)
        self._cfg = self._config(as_state_vector(rest, robot.nv, "rest"), offset)

    @staticmethod
    def _joint_path(model: pin.Model, bid: int, tid: int, label: str) -> list[int]:
        """The independent 1-DOF joints from the base frame's joint down to the tip frame's, base first
        (mimic joints follow their leader and are skipped).

        Raises:
            ConfigError: the tip is not below the base, no independent joint between them, or a joint
                with more than one DOF.
        """
        base, tip = model.frames[bid].name, model.frames[tid].name
        jb, jt = model.frames[bid].parentJoint, model.frames[tid].parentJoint
        path: list[int] = []
        j = jt
        while j != jb and j != 0:
            if model.joints[j].shortname() != "JointModelMimic":  # (mimic joints follow their leader)
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
                f"empty chain: no independent joint between base frame {base!r} and tip frame {tip!r} "
                f"(both are moved by joint {model.names[jb]!r} or by mimic joints only)",
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
        return path

    @staticmethod
    def _frame(robot: ChainRobot, frame: str, kind: str) -> int:
        if not isinstance(frame, str):
            raise UnknownNameError(kind, frame, robot.frame_names)
        try:
            return robot.frame_id(frame)
        except UnknownNameError:
            raise UnknownNameError(kind, frame, robot.frame_names) from None

    def _config(self, rest: np.ndarray, offset: pin.SE3) -> _Config:
        """A new configuration for validated per-DOF ``rest`` values and tool ``offset``."""
        q = self.robot.q_from_dof(rest)
        data = self._tls.sc.data
        pin.forwardKinematics(self._model, data, q)
        oMb = pin.updateFramePlacement(self._model, data, self._bid)
        rest.setflags(write=False)
        q.setflags(write=False)
        return _Config(rest, q, oMb, offset, self._model.nv)

    # ------------------------------------------------------------------ copies and pickles
    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle, ``copy.copy`` (same robot) and ``copy.deepcopy`` (robot copied): an independent chain."""
        cfg = self._cfg
        return (Chain, (self.robot, self.base, self.tip, self.name, pin.SE3(cfg.offset), cfg.rest.copy()))

    # ------------------------------------------------------------------ settable properties
    @property
    def rest(self) -> np.ndarray:
        """Per-DOF values (robot.nv) of the whole robot used for joints outside the chain (a copy)."""
        return self._cfg.rest.copy()

    @rest.setter
    def rest(self, value: Any) -> None:
        self._cfg = self._config(as_state_vector(value, self.robot.nv, "rest"), self._cfg.offset)

    @property
    def tip_offset(self) -> pin.SE3:
        """Tool point relative to the tip frame (a copy; settable with a ``pin.SE3`` or None)."""
        return pin.SE3(self._cfg.offset)

    @tip_offset.setter
    def tip_offset(self, value: pin.SE3 | None) -> None:
        offset = pin.SE3.Identity() if value is None else as_se3(value, "tip_offset")
        self._cfg = self._config(self._cfg.rest.copy(), offset)

    # ------------------------------------------------------------------ chain-local vectors
    def _load(self, q_chain: Any) -> _Scratch:
        """Validate ``q_chain``, write it into this thread's scratch configuration; return the scratch."""
        qc = q_chain
        if type(qc) is not np.ndarray or qc.dtype is not _F64 or qc.shape != self._shape:
            qc = as_vector(q_chain, self.n, "q_chain")  # lists, other dtypes, wrong shapes
        elif not math.isfinite(sum(qc.tolist())):  # NaN/inf make the sum non-finite (overflow re-checked)
            check_finite(qc, "q_chain")
        sc = self._tls.sc
        if sc.cfg is not self._cfg:
            sc.load(self._cfg)
        self._write(sc.q, qc)
        return sc

    def _write(self, q: np.ndarray, qc: np.ndarray) -> None:
        """Write the validated chain vector ``qc`` into the configuration ``q``."""
        if self._all_simple:
            q[self._sq] = qc
        else:
            q[self._sq] = qc[self._sc]
            theta = qc[self._cc]
            q[self._cq] = np.cos(theta)
            q[self._cq1] = np.sin(theta)

    def full_q(self, q_chain: Any) -> np.ndarray:
        """Robot configuration q (nq): the rest configuration with the chain joints set to ``q_chain``."""
        return self._load(q_chain).q.copy()

    def full_dof(self, q_chain: Any) -> np.ndarray:
        """Per-DOF vector (robot.nv): :attr:`rest` with the chain DOF set to ``q_chain``."""
        qc = as_vector(q_chain, self.n, "q_chain")
        dof = self._cfg.rest.copy()
        dof[self.dof_indices] = qc
        return dof

    def clip(self, q_chain: Any) -> np.ndarray:
        """``q_chain`` clipped to [lower, upper] (continuous joints pass unchanged)."""
        clipped: np.ndarray = np.clip(as_vector(q_chain, self.n, "q_chain"), self.lower, self.upper)
        return clipped

    # ------------------------------------------------------------------ kinematics
    # Pinocchio's computeFrameJacobian and updateFramePlacement return new objects, so the results below
    # never alias pin.Data; the base placement is constant per configuration, hence no per-call update.
    def _jac_in_base(self, J: np.ndarray, cfg: _Config) -> np.ndarray:
        """Chain columns of the world-aligned tip Jacobian ``J`` (a new array), in base axes."""
        if J.ndim == 1:  # Pinocchio returns a 6-vector when the robot has a single DOF
            J = J.reshape(6, 1)
        if cfg.base_rot_identity:
            if self._cols_all:
                return J  # already a new array
            return J[:, self._cols].copy() if self._cols_is_slice else J[:, self._cols]
        J_base: np.ndarray = cfg.R6 @ J[:, self._cols]
        return J_base

    @staticmethod
    def _shift_to_offset(Jb: np.ndarray, oMt: pin.SE3, cfg: _Config) -> None:
        """Move the reference point of ``Jb`` (base axes) from the tip origin to the tool point, in place."""
        # r = ᵇRₜ p_off (base axes); v' = v + ω × r = v − [r]× ω
        r = cfg.bMo.rotation @ (oMt.rotation @ cfg.offset.translation)
        Jb[:3] -= pin.skew(r) @ Jb[3:]

    def fk(self, q_chain: Any) -> pin.SE3:
        """Tip (+ offset) placement in the base frame, ``ᵇMₜ(q_c)`` (a new ``pin.SE3``, m).

        Raises:
            InvalidValueError: ``q_chain`` is not n finite values.
        """
        sc = self._load(q_chain)
        cfg, data = sc.cfg, sc.data
        pin.forwardKinematics(self._model, data, sc.q)
        oMt = pin.updateFramePlacement(self._model, data, self._tid)
        bMt = oMt if cfg.base_identity else cfg.bMo * oMt
        return bMt * cfg.offset if cfg.has_offset else bMt

    def jacobian(self, q_chain: Any) -> np.ndarray:
        """Chain Jacobian ``ᵇJ`` (6×n): linear (m/s) over angular (rad/s) rows, base axes, at the tip.

        The reference point is the tip origin, moved by :attr:`tip_offset` when one is set.

        Raises:
            InvalidValueError: ``q_chain`` is not n finite values.
        """
        sc = self._load(q_chain)
        cfg, data = sc.cfg, sc.data
        Jb = self._jac_in_base(pin.computeFrameJacobian(self._model, data, sc.q, self._tid, _LWA), cfg)
        if cfg.has_offset:
            self._shift_to_offset(Jb, pin.updateFramePlacement(self._model, data, self._tid), cfg)
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
        sc = self._tls.sc
        cfg = self._cfg
        if sc.cfg is not cfg:
            sc.load(cfg)
        q = sc.q
        if not self._all_simple:
            self._write(q, q_chain)
            return self._fk_jacobian(sc)
        q[self._sq] = q_chain
        if not cfg.plain:
            return self._fk_jacobian(sc)
        # base frame = world and no tool offset: Pinocchio's pose, and its Jacobian's chain columns
        model, data, tid = self._model, sc.data, self._tid
        J = pin.computeFrameJacobian(model, data, q, tid, _LWA)
        if not self._cols_all:
            J = J[:, self._cols].copy() if self._cols_is_slice else J[:, self._cols]
        return pin.updateFramePlacement(model, data, tid), J

    def _fk_jacobian(self, sc: _Scratch) -> tuple[pin.SE3, np.ndarray]:
        model, data, tid, cfg = self._model, sc.data, self._tid, sc.cfg
        Jb = self._jac_in_base(pin.computeFrameJacobian(model, data, sc.q, tid, _LWA), cfg)
        oMt = pin.updateFramePlacement(model, data, tid)  # joints are placed: this only composes jMf
        bMt = oMt if cfg.base_identity else cfg.bMo * oMt
        if cfg.has_offset:
            self._shift_to_offset(Jb, oMt, cfg)
            bMt = bMt * cfg.offset
        return bMt, Jb

    def pose7(self, q_chain: Any) -> np.ndarray:
        """iKin pose vector ``(x, y, z, ax, ay, az, θ)`` of :meth:`fk` (see :func:`pose7_from_se3`)."""
        return pose7_from_se3(self.fk(q_chain))

    def __len__(self) -> int:
        return self.n

    def __repr__(self) -> str:
        return f"Chain(name={self.name!r}, base={self.base!r}, tip={self.tip!r}, n={self.n})"
