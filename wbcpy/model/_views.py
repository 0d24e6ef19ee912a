"""The published state of a :class:`~wbcpy.RobotModel` and its no-copy views (the internal protocol).

:class:`RobotStateViews` is the base of :class:`~wbcpy.RobotModel`: it owns the current state record and
the per-thread workspaces (:mod:`wbcpy.model._cache`), publishes states, and hands out what facades,
tasks and scenes read on their hot paths without copies:

* ``q_view``, ``v_view``, ``require_state(quantity)``, ``set_state_unchecked(q, v, a)``;
* ``frame_placement_view``, ``frame_pose_view``, ``frame_jacobian_view``, ``frame_bias_view``,
  ``frame_jacobian_bias_view``, ``frame_motion_view``;
* ``com_position_view``, ``com_jacobian_view``, ``com_bias_view``, ``mass_matrix_view``,
  ``nonlinear_effects_view``.

A view is valid until the calling thread computes a later state, and nobody may write to it: frame
Jacobians and biases are per-state snapshots that never change; the others are buffers of the calling
thread's ``pin.Data``. Every fill goes through :class:`~wbcpy.model._cache.Workspace` (one path per
quantity). Frame Jacobians and biases are world-aligned at the frame origin, linear over angular rows.
"""

from __future__ import annotations

import itertools

import numpy as np
import pinocchio as pin

from .._support.validation import short_repr
from ..errors import InvalidValueError, StateNotSetError
from ._cache import (
    FRAMES,
    GROUPS,
    PLACEMENT_KEY,
    POSE_KEY,
    SID,
    PerThreadWorkspace,
    Record,
    RobotState,
    record,
)
from ._names import RobotNames
from ._pin_bindings import BindingProbe


class RobotStateViews:
    """A state published for many readers, and the no-copy views of it (see the module docstring).

    Args:
        model: the Pinocchio model.
        names: its :class:`~wbcpy.model._names.RobotNames`.
        probe: what its Python bindings return (:func:`~wbcpy.model._pin_bindings.probe_bindings`).

    Attributes:
        model: the Pinocchio model.
        names: the model-only names, sizes and limits.

    Subclasses read ``self._st`` (the current record; read it once per call) and ``self._tls.ws`` (the
    calling thread's workspace), and publish a state by assigning a new :func:`record` to ``self._st``.
    """

    def __init__(self, model: pin.Model, names: RobotNames, probe: BindingProbe) -> None:
        self.model = model
        self.names = names
        self._probe = probe
        self._tls = PerThreadWorkspace(model, probe)
        self._n_frames = names.n_frames
        self._zero_v = np.zeros(names.nv)
        self._zero_v.setflags(write=False)  # shared by every state set without v
        self._next_sid = itertools.count(1).__next__
        self._st: Record = record(None, self._zero_v, None, 0)

    # ------------------------------------------------------------------ state
    def set_state_unchecked(self, q: np.ndarray, v: np.ndarray, a: np.ndarray | None = None) -> int:
        """Publish an already validated state (the documented fast path of facades); return its id.

        The arrays are handed over and kept as they are: the caller passes fresh float64 arrays of sizes
        nq / nv, finite and within :data:`~wbcpy._support.validation.STATE_LIMIT`, with the unit-norm blocks
        of
        q normalised, and never writes to them afterwards. Anything else gives wrong results.
        """
        sid = self._next_sid()
        self._st = (q, v, a, sid, {})
        return sid

    @property
    def state_id(self) -> int:
        """Id of the current state (0 before any; a new, larger id at every state change)."""
        return self._st[SID]

    @property
    def has_state(self) -> bool:
        """True once a state was set."""
        return self._st[0] is not None

    @property
    def state(self) -> RobotState:
        """The current state as one consistent :class:`RobotState` (copies; StateNotSetError before)."""
        q, v, a, sid, _ = self._st
        if q is None:
            raise StateNotSetError("state")
        return RobotState(sid, q.copy(), v.copy(), None if a is None else a.copy())

    def _current(self, quantity: str) -> Record:
        st = self._st
        if st[0] is None:
            raise StateNotSetError(quantity)
        return st

    @property
    def q(self) -> np.ndarray:
        """Current configuration (copy)."""
        return self.require_state("q").copy()

    @property
    def v(self) -> np.ndarray:
        """Current velocity (copy)."""
        return self._current("v")[1].copy()

    @property
    def a(self) -> np.ndarray | None:
        """Measured acceleration given to the last :meth:`update` (copy), or None."""
        a = self._current("a")[2]
        return None if a is None else a.copy()

    @property
    def q_view(self) -> np.ndarray:
        """The current configuration without a copy (valid until the next update; never write to it)."""
        return self.require_state("q")

    @property
    def v_view(self) -> np.ndarray:
        """The current velocity without a copy (valid until the next update; never write to it)."""
        return self._current("v")[1]

    def state_view(self, quantity: str = "state") -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """(q, v, a) of the current state without copies, read as one consistent snapshot (a thread that
        updates in between cannot mix two states into it); :class:`StateNotSetError` naming ``quantity``
        before any state. Never write to the arrays."""
        st = self._st
        if st[0] is None:
            raise StateNotSetError(quantity)
        return st[0], st[1], st[2]

    def require_state(self, quantity: str) -> np.ndarray:
        """The current q (a view, as :attr:`q_view`), or :class:`StateNotSetError` naming ``quantity``."""
        q = self._st[0]
        if q is None:
            raise StateNotSetError(quantity)
        return q

    def precompute(self, *groups: str) -> None:
        """Compute result groups for the current state now, in the calling thread (cached).

        Args:
            groups: any of ``"kinematics"`` (frame placements), ``"jacobians"`` (joint Jacobians),
                ``"com"``, ``"dynamics"`` (M, b, g), ``"minverse"``.

        Raises:
            InvalidValueError: an unknown group (nothing is computed).
            StateNotSetError: no state was set yet.
        """
        for group in groups:
            if group not in GROUPS:
                raise InvalidValueError("groups", GROUPS, None, reason=f"unknown group {short_repr(group)}")
        ws, st = self._tls.ws, self._st
        for group in groups:
            ws.fill(st, group, group)

    @property
    def data(self) -> pin.Data:
        """The calling thread's ``pin.Data`` (holds the results this thread computed last)."""
        return self._tls.ws.data

    # ------------------------------------------------------------------ no-copy views (never write to them)
    def frame_placement_view(self, frame: str | int) -> pin.SE3:
        """:meth:`frame_placement` without the copy: the frame's world placement for the current state,
        computed for this frame alone on first use and kept with the state (a per-state snapshot, see
        :meth:`frame_jacobian_view`; never write to it)."""
        if type(frame) is not int or not 0 <= frame < self._n_frames:
            frame = self.names.frame_id(frame)
        st = self._st
        placement = st[FRAMES].get(frame + PLACEMENT_KEY)
        return self._tls.ws.frame_placement(st, frame) if placement is None else placement

    def frame_pose_view(self, frame: str | int) -> np.ndarray:
        """The frame's world placement for the current state as a 4×4 homogeneous matrix [[R, p],
        [0, 0, 0, 1]] (a per-state snapshot, see :meth:`frame_jacobian_view`; never write to it)."""
        if type(frame) is not int or not 0 <= frame < self._n_frames:
            frame = self.names.frame_id(frame)
        st = self._st
        pose = st[FRAMES].get(frame + POSE_KEY)
        return self._tls.ws.frame_pose(st, frame) if pose is None else pose

    def frame_jacobian_view(self, frame: str | int) -> np.ndarray:
        """:meth:`frame_jacobian` without the copy: the array cached for the current state.

        It belongs to that state: a later update caches a new array and never changes this one, so it
        stays a valid snapshot of the state it was computed for.
        """
        if type(frame) is not int or not 0 <= frame < self._n_frames:
            frame = self.names.frame_id(frame)
        st = self._st
        jac = st[FRAMES].get(frame)
        return self._tls.ws.frame_jacobian(st, frame) if jac is None else jac

    def frame_bias_view(self, frame: str | int) -> np.ndarray:
        """:meth:`frame_bias` without the copy (a per-state snapshot, see :meth:`frame_jacobian_view`)."""
        if type(frame) is not int or not 0 <= frame < self._n_frames:
            frame = self.names.frame_id(frame)
        st = self._st
        bias = st[FRAMES].get(~frame)
        return self._tls.ws.frame_bias(st, frame) if bias is None else bias

    def frame_jacobian_bias_view(self, frame: str | int) -> tuple[np.ndarray, np.ndarray]:
        """(:meth:`frame_jacobian_view`, :meth:`frame_bias_view`) of one state in one call."""
        if type(frame) is not int or not 0 <= frame < self._n_frames:
            frame = self.names.frame_id(frame)
        st = self._st
        jac, bias = st[FRAMES].get(frame), st[FRAMES].get(~frame)
        if jac is None or bias is None:
            ws = self._tls.ws
            if bias is None:  # forward kinematics first: the joint Jacobians then reuse its placements
                bias = ws.frame_bias(st, frame)
            if jac is None:
                jac = ws.frame_jacobian(st, frame)
        return jac, bias

    def frame_motion_view(self, frame: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(:meth:`frame_pose_view`, :meth:`frame_jacobian_view`, v) of one state in one call: what a
        Cartesian law reads (the frame's pose, its Jacobian and the velocity they act on, of the same
        record even while another thread updates the robot). ``frame`` is a valid frame index."""
        st = self._st
        if st[0] is None:
            raise StateNotSetError("frame motion")
        frames = st[FRAMES]
        pose, jac = frames.get(frame + POSE_KEY), frames.get(frame)
        if pose is None or jac is None:
            ws = self._tls.ws
            if pose is None:
                pose = ws.frame_pose(st, frame)
            if jac is None:
                jac = ws.frame_jacobian(st, frame)
        return pose, jac, st[1]

    def com_position_view(self) -> np.ndarray:
        """:meth:`com` without the copy: ``data.com[0]`` of the calling thread (kinematics only)."""
        ws, st = self._tls.ws, self._st
        if ws.com_pos is not st:
            ws.com_position(st, "centre of mass")
        com: np.ndarray = ws.data.com[0]
        return com

    def joint_jacobians_view(self) -> np.ndarray:
        """Pinocchio's world-frame joint Jacobians ``data.J`` (6×nv) for the current state.

        With mimic joints it has one column per joint DOF including the mimic joints' (6×nv_ext,
        Pinocchio's ``nvExtended``): ``J @ robot.names.mimic_coupling`` is then the Jacobian in q̇.

        Column j is the spatial motion of DOF j's axis in world axes, linear part taken at the world
        origin, over the angular part: the velocity of a point p of the body of joint i is
        v(p) = (J_v + [p]×ᵀ J_ω)[:, S_i] q̇[S_i], with S_i the DOFs of the joints that support joint i
        (``model.supports[i]``). Computing it also brings the joint placements ``data.oMi`` of the calling
        thread's data (``robot.data``) to the current state. Pinocchio's own buffer: read it before this
        thread computes a later state, never write to it.
        """
        ws, st = self._tls.ws, self._st
        if ws.jac is not st:
            ws.joint_jacobians(st, "joint Jacobians")
        jacobians: np.ndarray = ws.data.J
        return jacobians

    def com_jacobian_view(self) -> np.ndarray:
        """:meth:`com_jacobian` without the copy: the calling thread's ``data.Jcom`` (3×nv), computed
        from the kinematics alone (no M, no RNEA). Read it before this thread computes a later state."""
        ws, st = self._tls.ws, self._st
        if ws.com_pos is not st:
            ws.com_position(st, "COM Jacobian")
        return ws.com_jacobian()

    def com_bias_view(self) -> np.ndarray:
        """:meth:`com_bias` without the copy (a new array per state; never write to it)."""
        ws, st = self._tls.ws, self._st
        if ws.com is not st:
            ws.com_terms(st, "COM bias")
        return ws.com_bias

    def mass_matrix_view(self) -> np.ndarray:
        """:meth:`mass_matrix` without the copy (the calling thread's buffer, row-major, full)."""
        ws, st = self._tls.ws, self._st
        if ws.dyn is not st:
            ws.dynamics(st, "mass matrix")
        return ws.src_M

    def nonlinear_effects_view(self) -> np.ndarray:
        """:meth:`nonlinear_effects` without the copy: the calling thread's ``data.nle``."""
        ws, st = self._tls.ws, self._st
        if ws.dyn is not st:
            ws.dynamics(st, "nonlinear effects")
        return ws.nle
