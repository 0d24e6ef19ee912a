"""State records and per-thread Pinocchio workspaces of a :class:`~wbcpy.model.robot_model.RobotModel`.

**State record.** Every state change builds a new tuple ``(q, v, a, state_id, frames)`` (index constants
:data:`Q`, :data:`V`, :data:`A`, :data:`SID`, :data:`FRAMES`) and publishes it
with one attribute store, which is atomic under the GIL: a reader that takes the record once sees one
state, never half of two. A record is published once and never again, so its identity stamps results.
``frames`` maps a frame index ``f`` to its Jacobian (6×nv), ``~f`` (= −1 − f) to its bias J̇q̇ (6,),
``f + PLACEMENT_KEY`` to its world placement (a ``pin.SE3``) and ``f + POSE_KEY`` to the same placement as
a 4×4 homogeneous matrix, the objects computed for that record; they are filled by whichever thread
computes them first and stay valid snapshots of that state.

**Workspace.** One ``pin.Data`` plus, for each group of Pinocchio results, the record the data holds it
for (identity stamps). Each thread that reads a robot gets its own workspace (``threading.local``), so
two threads never write the same ``pin.Data``. Every quantity has exactly one fill method here; the
getters and no-copy views of ``RobotModel`` all go through them:

=================  =========================================================  ===========================
group (stamp)      Pinocchio                                                  provides
=================  =========================================================  ===========================
``kin``            ``forwardKinematics(q, v, 0)``                             oMi, v, q̈ = 0 accelerations
``pos``            ``forwardKinematics(q)`` (or any group that places the     oMi
                   joints: ``kin``, ``jac``, ``dyn``)
``frames``         ``kin`` + ``updateFramePlacements``                        oMf
``jac``            ``computeJointJacobians`` (on ``kin`` when fresh)          J (joint Jacobians)
``com_pos``        ``jac`` + ``jacobianCenterOfMass`` (nothing more on        com, Jcom
                   ``dyn`` or ``com`` when fresh)
``com``            ``kin`` + ``jac`` + ``centerOfMass(ACC)`` +                com, vcom, acom, Jcom
                   ``jacobianCenterOfMass`` (on ``dyn`` when fresh:
                   ``centerOfMass(ACC)`` alone)
``dyn``            ``computeAllTerms(q, v)`` (also sets ``kin`` and ``jac``)  M, nle (and g, com and Jcom
                   or :func:`~wbcpy.model._pin_bindings.all_terms`'s          with computeAllTerms)
                   separate algorithms (also ``com``, not g)
``grav``           ``dyn``, and ``computeGeneralizedGravity`` on the          g
                   separate path
``minv``           Cholesky of M (small nv, ``dyn`` fresh) or                 M⁻¹
                   ``computeMinverse``
=================  =========================================================  ===========================

A model with mimic joints takes :func:`~wbcpy.model._pin_bindings.all_terms`'s equivalent of
``computeAllTerms`` and M⁻¹ = the inverse of M (Pinocchio's ABA and Cholesky refuse mimic joints).
"""

from __future__ import annotations

import threading
from typing import Final, NamedTuple

import numpy as np
import pinocchio as pin

from .._kernels import frame_classical_acceleration as _frame_acceleration
from .._kernels import frame_jacobian as _frame_jacobian
from .._kernels import frame_pose as _frame_pose
from ..errors import StateNotSetError
from ._frame_sources import bias_views, frame_views, jacobian_views
from ._pin_bindings import BindingProbe, all_terms, gravity, has_mimic

#: offset of the frame placements' keys in a record's ``frames`` map (see the module docstring)
PLACEMENT_KEY: Final = 1 << 40
#: offset of the frame placements' keys as 4×4 homogeneous matrices (see the module docstring)
POSE_KEY: Final = 2 << 40
Q: Final = 0
V: Final = 1
A: Final = 2
SID: Final = 3
FRAMES: Final = 4
#: a state record: (q, v, a, state_id, frames), see the module docstring
Record = tuple[np.ndarray | None, np.ndarray, np.ndarray | None, int, dict[int, np.ndarray]]
#: result groups of :meth:`Workspace.fill` (and of ``RobotModel.precompute``)
GROUPS = ("kinematics", "jacobians", "com", "dynamics", "minverse")

_LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
_ACC = pin.KinematicLevel.ACCELERATION
#: up to this nv, M⁻¹ from the Cholesky factors of an already computed M beats ``computeMinverse``
#: (a threshold from a measurement, pin 4.1: nv = 19 11.0 vs 12.1 µs, nv = 35 28 vs 22 µs; docs/benchmarks.md)
CHOLESKY_MINV_MAX_NV = 24


class RobotState(NamedTuple):
    """One state of a :class:`~wbcpy.RobotModel` (new arrays): ``q`` (nq), ``v`` (nv), ``a`` (nv or None)."""

    state_id: int
    q: np.ndarray
    v: np.ndarray
    a: np.ndarray | None


def record(q: np.ndarray | None, v: np.ndarray, a: np.ndarray | None, sid: int) -> Record:
    """A new state record (see the module docstring)."""
    return (q, v, a, sid, {})


class Workspace:
    """One ``pin.Data`` and the records its result groups belong to (one per thread; see the module).

    Attributes:
        data: the Pinocchio data (only this workspace's thread writes it).
        src_M, src_Minv: full symmetric M and M⁻¹ after ``dynamics`` / ``minverse`` (views; never write).
        g, nle: views of ``data.g`` and ``data.nle``.
        com_bias: J̇_com q̇ of the last ``com`` fill (a new array per fill).
        minv_fresh: a new M⁻¹ array nobody holds yet (handed to the first reader without a copy), or None.
    """

    __slots__ = (
        "_Minv",
        "_bias_sources",
        "_chol_copy",
        "_fill_M",
        "_fill_Minv",
        "_jacobian_sources",
        "_lower_tri",
        "_minv_copy",
        "_nv1",
        "_pose_sources",
        "com",
        "com_bias",
        "com_pos",
        "data",
        "dyn",
        "frames",
        "full",
        "g",
        "grav",
        "jac",
        "kin",
        "mimic",
        "minv",
        "minv_fresh",
        "model",
        "nle",
        "pos",
        "separate",
        "src_M",
        "src_Minv",
        "zero_v",
    )

    def __init__(self, model: pin.Model, probe: BindingProbe) -> None:
        nv = model.nv
        self.model = model
        self.data = data = model.createData()
        self.zero_v = np.zeros(nv)
        self.kin: Record | None = None
        self.pos: Record | None = None
        self.com_pos: Record | None = None
        #: a record of this workspace read velocity-level kinematics after its positions-only ones (an
        #: acceleration scene's biases): from then on the positions-only groups take the full ones
        #: (:meth:`positions`, :meth:`com_position`), which a loop that reads both would compute twice
        self.full = False
        self.frames: Record | None = None
        self.jac: Record | None = None
        self.com: Record | None = None
        self.dyn: Record | None = None
        self.grav: Record | None = None
        self.minv: Record | None = None
        self.com_bias = np.zeros(3)
        self.minv_fresh: np.ndarray | None = None
        self.mimic = has_mimic(model)
        #: the dynamics from the separate algorithms (:func:`~wbcpy.model._pin_bindings.all_terms`)
        self.separate = probe.separate
        self._nv1 = nv == 1  # Pinocchio returns 1-D Jacobians then: reshaped to (6, 1) and (3, 1)
        self._fill_M, self._fill_Minv = probe.fill_M, probe.fill_Minv
        self._chol_copy, self._minv_copy = probe.chol_returns_copy, probe.minv_returns_copy
        self._lower_tri = np.tri(nv, nv, -1, dtype=bool)
        # numpy views of pin.Data results, taken once (each attribute access builds a new wrapper); data
        # is never replaced. data.M is column-major: when the bindings give it full and symmetric, its
        # transpose is the same matrix with a row-major layout, so copies are plain memory copies.
        self.g: np.ndarray = data.g
        self.nle: np.ndarray = data.nle
        self._Minv = np.zeros((nv, nv))
        self.src_M: np.ndarray = np.zeros((nv, nv)) if self._fill_M else data.M.T
        self.src_Minv: np.ndarray = self._Minv if self._fill_Minv else data.Minv
        #: per frame index, what its bias is computed from (:meth:`frame_bias`)
        self._bias_sources: dict[int, tuple[np.ndarray, ...]] = {}
        #: per frame index, what its placement (:meth:`frame_pose`) and Jacobian (:meth:`frame_jacobian`)
        #: are computed from
        self._pose_sources: dict[int, tuple[np.ndarray, ...]] = {}
        self._jacobian_sources: dict[int, tuple[np.ndarray, ...]] = {}

    # ------------------------------------------------------------------ kinematics
    def motion(self, st: Record, quantity: str) -> None:
        """Joint placements, velocities and q̈ = 0 accelerations: ``forwardKinematics(q, v, 0)``."""
        if self.kin is not st:
            q = st[Q]
            if q is None:
                raise StateNotSetError(quantity)
            self.full = self.full or self.pos is st  # (placed already, in a positions-only pass)
            pin.forwardKinematics(self.model, self.data, q, st[V], self.zero_v)
            self.kin = self.pos = st

    def positions(self, st: Record, quantity: str) -> None:
        """Joint placements ``oMi`` alone: ``forwardKinematics(q)`` (what frame placements read; no joint
        velocities and accelerations, which the ``kin`` group then no longer holds); :meth:`motion` once
        the workspace is ``full``."""
        if self.pos is not st:
            if self.full:
                self.motion(st, quantity)
                return
            q = st[Q]
            if q is None:
                raise StateNotSetError(quantity)
            pin.forwardKinematics(self.model, self.data, q)
            self.pos = st
            self.kin = self.frames = None

    def placements(self, st: Record, quantity: str) -> None:
        """:meth:`motion` and the placements ``oMf`` of every frame."""
        if self.frames is not st:
            if self.kin is not st:
                self.motion(st, quantity)
            pin.updateFramePlacements(self.model, self.data)
            self.frames = st

    def joint_jacobians(self, st: Record, quantity: str) -> None:
        """Joint Jacobians; on the placements of :meth:`motion` when they are there."""
        if self.jac is not st:
            if self.kin is st:
                pin.computeJointJacobians(self.model, self.data)  # no second placement pass
            else:
                q = st[Q]
                if q is None:
                    raise StateNotSetError(quantity)
                pin.computeJointJacobians(self.model, self.data, q)  # placements, not v and a
                self.kin = self.frames = None
            self.jac = self.pos = st

    def com_terms(self, st: Record, quantity: str) -> None:
        """COM position, velocity, q̈ = 0 acceleration and Jacobian without the dynamics (no M, no RNEA).

        :meth:`motion` + :meth:`joint_jacobians` (shared with the frame quantities), then ``centerOfMass``
        at acceleration level and ``jacobianCenterOfMass`` on that data: the values of
        ``computeAllTerms`` + ``centerOfMass(q, v, 0)`` at a fraction of the cost. When the dynamics of
        this record are already there, ``centerOfMass`` at acceleration level on them is all it takes
        (``computeAllTerms`` computes com, vcom, Jcom and the q̈ = 0 joint accelerations).
        """
        if self.com is not st:
            self.full = self.full or self.com_pos is st  # (the position and Jacobian were computed alone)
            if self.dyn is st:  # computeAllTerms left com, vcom and Jcom, and the q̈ = 0 accelerations
                pin.centerOfMass(self.model, self.data, _ACC, True)
            else:
                self.motion(st, quantity)
                self.joint_jacobians(st, quantity)
                pin.centerOfMass(self.model, self.data, _ACC, True)
                pin.jacobianCenterOfMass(self.model, self.data, False)
            self.com_bias = self.data.acom[0].copy()
            self.com = self.com_pos = st

    def com_position(self, st: Record, quantity: str) -> None:
        """COM position and Jacobian alone (no velocity, no q̈ = 0 acceleration): the joint Jacobians
        (:meth:`joint_jacobians`, which places the joints when nothing did) and ``jacobianCenterOfMass``,
        which sums the COM on the way; nothing more when :meth:`com_terms` or the dynamics of this record
        are there (``computeAllTerms`` computes com and Jcom); :meth:`com_terms` once the workspace is
        ``full``."""
        if self.com_pos is not st:
            if self.full:
                self.com_terms(st, quantity)
                return
            if self.com is not st and self.dyn is not st:
                self.joint_jacobians(st, quantity)
                pin.jacobianCenterOfMass(self.model, self.data, False)
            self.com_pos = st

    def com_jacobian(self) -> np.ndarray:
        """``data.Jcom`` as a 3×nv view (after :meth:`com_terms`)."""
        jcom: np.ndarray = self.data.Jcom
        return jcom.reshape(3, 1) if self._nv1 else jcom

    def frame_placement(self, st: Record, fid: int) -> pin.SE3:
        """World placement of one frame (a new ``pin.SE3``) of record ``st``, cached in the record: the
        joint placements of :meth:`motion` and Pinocchio's ``updateFramePlacement`` for that frame only."""
        if self.pos is not st:
            self.positions(st, "frame placement")
        placement: pin.SE3 = pin.updateFramePlacement(self.model, self.data, fid)  # (a copy)
        st[FRAMES][fid + PLACEMENT_KEY] = placement
        return placement

    def frame_pose(self, st: Record, fid: int) -> np.ndarray:
        """World placement of one frame as a 4×4 homogeneous matrix (a new array) of record ``st``, cached
        in the record: the joint placements of :meth:`positions`, then the compiled ``frame_pose`` on its
        parent joint's placement (Pinocchio's ``updateFramePlacement`` when the bindings hand out copies)."""
        if self.pos is not st:  # (positions(), which takes motion() once the workspace is full)
            (self.motion if self.full else self.positions)(st, "frame placement")
        sources = self._pose_sources.get(fid)
        if sources is None:
            sources = self._pose_sources[fid] = frame_views(self.model, self.data, fid)[:4]
        pose: np.ndarray
        if sources:
            pose = _frame_pose(*sources)
        else:
            pose = pin.updateFramePlacement(self.model, self.data, fid).homogeneous
        st[FRAMES][fid + POSE_KEY] = pose
        return pose

    def frame_jacobian(self, st: Record, fid: int, cache: bool = True) -> np.ndarray:
        """Frame Jacobian (6×nv, world axes at the frame origin) of record ``st``: a new array, also kept
        in the record unless ``cache`` is False (a caller that wants its own copy). From the joint
        Jacobians by the compiled ``frame_jacobian``, or by Pinocchio's ``getFrameJacobian`` when the
        bindings hand out copies, with mimic joints (columns beyond nv) and for nv = 1 (1-D arrays).
        When this data holds the velocities of ``st`` (:meth:`motion`), the frame's bias is cached with it
        (:meth:`frame_bias`'s compiled call: what an acceleration-level reader of the Jacobian reads next)."""
        if self.jac is not st:
            self.joint_jacobians(st, "frame Jacobian")
        sources = self._jacobian_sources.get(fid)
        if sources is None:
            sources = self._jacobian_sources[fid] = (
                () if self.mimic or self._nv1 else jacobian_views(self.model, self.data, fid)
            )
        jac: np.ndarray
        if sources:
            jac = _frame_jacobian(*sources)  # a new array
        else:
            jac = pin.getFrameJacobian(self.model, self.data, fid, _LWA)  # a new array
            if self._nv1:
                jac = jac.reshape(6, 1)
        if cache:
            frames = st[FRAMES]
            frames[fid] = jac
            if self.kin is st and ~fid not in frames:
                bias_sources = self._bias_sources.get(fid)
                if bias_sources:
                    frames[~fid] = _frame_acceleration(*bias_sources)
        return jac

    def frame_bias(self, st: Record, fid: int) -> np.ndarray:
        """J̇q̇ of a frame origin (6, world axes) of record ``st``, cached in the record."""
        if self.kin is not st:
            self.motion(st, "frame bias")  # frame placements are not needed
        sources = self._bias_sources.get(fid)
        if sources is None:
            sources = self._bias_sources[fid] = bias_views(self.model, self.data, fid)
        bias: np.ndarray
        if sources:
            bias = _frame_acceleration(*sources)  # a new array
        else:
            bias = pin.getFrameClassicalAcceleration(self.model, self.data, fid, _LWA).vector.copy()
        st[FRAMES][~fid] = bias
        return bias

    # ------------------------------------------------------------------ dynamics
    def dynamics(self, st: Record, quantity: str) -> None:
        """M (full), nle, joint Jacobians, COM and COM Jacobian in one pass of
        :func:`~wbcpy.model._pin_bindings.all_terms`: ``computeAllTerms`` (g too), or the separate
        algorithms (COM at acceleration level too, g left to :meth:`gravity`)."""
        if self.dyn is not st:
            q = st[Q]
            if q is None:
                raise StateNotSetError(quantity)
            data = self.data
            if all_terms(self.model, data, q, st[V], self.separate):
                self.grav = st
            else:  # the separate path computed the COM at acceleration level: the com group is there
                self.com_bias = data.acom[0].copy()
                self.com = self.com_pos = st
            if self._fill_M:
                M = self.src_M
                np.copyto(M, data.M)
                np.copyto(M, M.T, where=self._lower_tri)
            self.dyn = self.jac = self.kin = self.pos = st

    def gravity(self, st: Record, quantity: str) -> None:
        """g(q) of record ``st`` in ``g``: with the dynamics, which may have computed it."""
        if self.grav is not st:
            q = st[Q]
            if q is None:
                raise StateNotSetError(quantity)
            if self.dyn is not st:
                self.dynamics(st, quantity)
            if self.grav is not st:
                gravity(self.model, self.data, q)
                self.grav = st

    def minverse(self, st: Record, quantity: str) -> None:
        """M⁻¹: from the Cholesky factors of M when M is there for this record (small nv), else by
        Pinocchio's ABA-based ``computeMinverse``."""
        if self.minv is st:
            return
        q = st[Q]
        if q is None:
            raise StateNotSetError(quantity)
        model, data = self.model, self.data
        if self.mimic:  # (no Pinocchio M⁻¹ for mimic joints: the inverse of M)
            if self.dyn is not st:
                self.dynamics(st, quantity)
            fresh = np.linalg.inv(self.src_M)
            fresh = 0.5 * (fresh + fresh.T)
            np.copyto(self.src_Minv, fresh)
            self.minv_fresh, self.minv = fresh, st
            return
        if self.dyn is st and model.nv <= CHOLESKY_MINV_MAX_NV:
            pin.cholesky.decompose(model, data)
            fresh = pin.cholesky.computeMinv(model, data)
            returns_copy = self._chol_copy
        else:
            fresh = pin.computeMinverse(model, data, q)
            returns_copy = self._minv_copy
        if self._fill_Minv:
            np.copyto(self._Minv, data.Minv)
            np.copyto(self._Minv, self._Minv.T, where=self._lower_tri)
        # the bindings return M⁻¹ as a new array: the first reader for this record gets it without a copy
        self.minv_fresh = fresh if returns_copy else None
        self.minv = st

    def fill(self, st: Record, group: str, quantity: str) -> None:
        """Fill one of :data:`GROUPS` by name (``"kinematics"`` means the frame placements)."""
        if group == "kinematics":
            self.placements(st, quantity)
        elif group == "jacobians":
            self.joint_jacobians(st, quantity)
        elif group == "com":
            self.com_terms(st, quantity)
        elif group == "dynamics":
            self.dynamics(st, quantity)
        else:
            self.minverse(st, quantity)


class PerThreadWorkspace(threading.local):
    """``.ws``: the calling thread's :class:`Workspace` (created on its first use in each thread)."""

    def __init__(self, model: pin.Model, probe: BindingProbe) -> None:
        self.ws = Workspace(model, probe)
