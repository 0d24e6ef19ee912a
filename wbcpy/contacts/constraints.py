"""The hard constraints of an inverse-dynamics scene, assembled from the robot's per-state caches.

Variables ``x = (q̈, w_1, …, w_k)``: the nv joint accelerations, then one wrench per *active* contact
(6 entries, force over torque, for a surface contact; 3, the force, for a point contact), in contact
order. :class:`ContactLayout` records where each wrench sits. With J_c the contact frame's Jacobian in
its own axes (``LOCAL``; the 6 rows of a surface contact, the 3 linear rows of a point contact), a_c its
classical acceleration at q̈ = 0 in the same axes, M, h the mass matrix and nonlinear effects, and u / a
the unactuated (free-flyer) and actuated DOFs, :meth:`ContactConstraints.update` builds

* equalities ``E x = f`` — the unactuated rows of the equations of motion
  ``M_u q̈ − Σ_c J_c,uᵀ w_c = −h_u`` and the rigid contacts ``J_c q̈ = −a_c`` (``J_c q̈ = −a_c − K_d J_c v``
  for a contact with a velocity gain ``kd`` = K_d > 0: :mod:`~wbcpy.contacts.contacts`); a loop closure
  (:mod:`~wbcpy.contacts.loop_closure`) is one more block of both, its wrench λ after the contacts', its
  rows J q̈ = −(J̇q̇ + K_p e + K_d J q̇) in place of a contact's (no cone, no bounds);
* inequalities ``lbC ≤ C x ≤ ubC`` — each contact's friction cone ``U_c w_c ≤ 0``
  (:mod:`~wbcpy.contacts.wrench_cone`, constant rows written once), then the effort limits
  ``−τ_max − h_a ≤ M_a q̈ − Σ_c J_c,aᵀ w_c ≤ τ_max − h_a`` of the actuated DOFs that have one;
* the rows ``T = [M_a, −J_aᵀ]`` and ``h_a`` of the torques, ``τ = T x + h_a``;
* known external wrenches w_e (:class:`~wbcpy.contacts.external.ExternalWrenches`, frame axes, on the
  robot) enter every row through h − Σ_e J_eᵀ w_e in place of h (M q̈ + h = Sᵀτ + Σ J_cᵀ w_c + Σ J_eᵀ w_e);
* bounds on the normal forces (:meth:`ContactLayout.wrench_bounds`) — only where they add to the cone
  (which already implies f_z ≥ 0): ``fz_min > 0`` or a finite ``fz_max``.

J_c and a_c are Pinocchio's ``getFrameJacobian`` and ``getFrameClassicalAcceleration`` (``LOCAL``) on the
calling thread's ``robot.data`` right after :meth:`~wbcpy.RobotModel.mass_matrix_view` filled it for the
current state (the dynamics pass, :func:`~wbcpy.model._pin_bindings.all_terms`: joint placements, Jacobians
and the q̈ = 0 accelerations are there).
The arrays returned are new at every update (problems handed out never share memory with the scene).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pinocchio as pin

from .._kernels import dynamics_rows as _dynamics_rows
from .contacts import Contact
from .external import ExternalWrenches
from .loop_closure import LoopClosure

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel

Array = np.ndarray

_LOCAL = pin.ReferenceFrame.LOCAL
_jacobian, _acceleration = pin.getFrameJacobian, pin.getFrameClassicalAcceleration


def index_or_slice(idx: np.ndarray) -> slice | np.ndarray:
    """A slice when the indices are contiguous and increasing (views instead of copies), else the array."""
    if idx.size == 0:
        return slice(0, 0)
    if idx[-1] - idx[0] + 1 == idx.size and (np.diff(idx) == 1).all():
        return slice(int(idx[0]), int(idx[-1]) + 1)
    return idx


class ContactLayout:
    """Where the wrenches of the active contacts (and of the loop closures) sit in x = (q̈, w_1, …, λ_1, …).

    Attributes:
        nv: number of q̈ variables.
        n: number of variables (nv + Σ wrench sizes).
        contacts: the active contacts, in contact order (the scene's own objects).
        slices: each active contact's columns in x.
        frame_slices: (frame, columns among the wrench columns x[nv:]) of each active contact.
        loops: the loop closures (:mod:`~wbcpy.contacts.loop_closure`), after the contacts.
        loop_slices: (name, columns in x) of each loop's wrench λ.
        names: variable names: the DOF names, then ``<frame>:fx`` … ``<frame>:tz``, then ``<loop>:fx`` ….
    """

    __slots__ = ("contacts", "frame_slices", "loop_slices", "loops", "n", "names", "nv", "slices")

    _LABELS = ("fx", "fy", "fz", "tx", "ty", "tz")

    def __init__(
        self, dof_names: list[str], contacts: list[Contact], loops: Sequence[LoopClosure] = ()
    ) -> None:
        self.nv = len(dof_names)
        self.contacts = [c for c in contacts if c.active]
        self.slices: list[slice] = []
        names = list(dof_names)
        k = self.nv
        for c in self.contacts:
            self.slices.append(slice(k, k + c.size))
            names += [f"{c.frame}:{label}" for label in self._LABELS[: c.size]]
            k += c.size
        self.loops = list(loops)
        self.loop_slices: list[tuple[str, slice]] = []
        for loop in self.loops:
            self.loop_slices.append((loop.name, slice(k, k + loop.size)))
            names += [f"{loop.name}:{label}" for label in self._LABELS[: loop.size]]
            k += loop.size
        self.n = k
        self.names = names
        #: (frame, its columns among the wrench columns x[nv:]) per active contact
        self.frame_slices = [(c.frame, slice(s.start - self.nv, s.stop - self.nv))
                             for c, s in zip(self.contacts, self.slices, strict=True)]  # fmt: skip

    def columns(self, frame: str) -> slice | None:
        """The columns of ``frame``'s wrench, or None when its contact is not active."""
        for c, s in zip(self.contacts, self.slices, strict=True):
            if c.frame == frame:
                return s
        return None

    def wrench_bounds(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(lb, ub) over the wrench columns (n − nv) from the normal-force bounds, or None when none adds
        to the cones."""
        m = self.n - self.nv
        lb, ub = np.full(m, -np.inf), np.full(m, np.inf)
        for c, s in zip(self.contacts, self.slices, strict=True):
            iz = s.start - self.nv + c.normal_index
            if c.fz_min > 0.0:
                lb[iz] = c.fz_min
            ub[iz] = c.fz_max
        if not (np.isfinite(lb).any() or np.isfinite(ub).any()):
            return None
        return lb, ub


class ContactConstraints:
    """Preallocated assembly of the hard constraints for one layout (see the module docstring).

    Args:
        robot: the robot (its per-state views are read).
        layout: the active contacts' layout.
        actuated: indices (in v) of the actuated DOFs; the others are unactuated (a free-flyer).
        effort_limit: |τ| limit per actuated DOF (inf: none), or None for no effort limits.
        external: the known external wrenches (read at every :meth:`update`), or None.
    """

    def __init__(
        self,
        robot: RobotModel,
        layout: ContactLayout,
        actuated: np.ndarray,
        effort_limit: np.ndarray | None,
        external: ExternalWrenches | None = None,
    ) -> None:
        self.robot = robot
        self.external = external
        self.layout = layout
        nv, n = layout.nv, layout.n
        self._nv, self._n = nv, n
        mask = np.zeros(nv, dtype=bool)
        mask[actuated] = True
        self._u_idx = np.flatnonzero(~mask)
        self._a_idx = np.ascontiguousarray(actuated, dtype=np.intp)
        self._fids = [robot.frame_id(c.frame) for c in layout.contacts]
        self._rows = [(s.start - nv, c.size) for c, s in zip(layout.contacts, layout.slices, strict=True)]
        self._mw = n - nv
        self._J = np.zeros((self._mw, nv))  # stacked contact Jacobians (contact axes)
        self._acc = np.zeros(self._mw)
        self._targets = self._target_views()
        #: the contacts with a velocity gain: (K_d, their rows' views in J and a_c)
        self._damped = [(c.kd, J, acc) for c, (_, J, acc) in zip(layout.contacts, self._targets, strict=True)
                        if c.kd > 0.0]  # fmt: skip
        cones = [c.cone() for c in layout.contacts]
        m_cone = sum(U.shape[0] for U in cones)
        self._cone = np.zeros((m_cone, n))
        k = 0
        for U, s in zip(cones, layout.slices, strict=True):
            self._cone[k : k + U.shape[0], s] = U
            k += U.shape[0]
        self._cone_lo, self._cone_hi = np.full(m_cone, -np.inf), np.zeros(m_cone)
        for a in (self._cone, self._cone_lo, self._cone_hi):  # (handed out as they are: see update)
            a.setflags(write=False)
        if effort_limit is not None:
            lim = np.asarray(effort_limit, dtype=float)
            limited = np.flatnonzero(np.isfinite(lim))
        else:
            lim, limited = np.zeros(0), np.zeros(0, dtype=np.intp)
        self._limited = index_or_slice(limited)
        self._lim = lim[limited]
        self._n_limited = int(limited.size)

    def _target_views(self) -> list[tuple[int, np.ndarray, np.ndarray]]:
        """Per contact: its frame id and the views of its rows in the stacked J and J̇q̇ buffers."""
        return [(fid, self._J[r0 : r0 + m], self._acc[r0 : r0 + m])
                for fid, (r0, m) in zip(self._fids, self._rows, strict=True)]  # fmt: skip

    def __getstate__(self) -> dict[str, Any]:
        """The attributes for copies and pickles, without the row views (rebuilt by ``__setstate__``:
        a copy of a view is a separate array, not a view of the copied buffer)."""
        state = self.__dict__.copy()
        del state["_targets"]
        state["_damped"] = [kd for kd, _, _ in self._damped]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restore a copy and make its row views views of its own buffers."""
        gains = state.pop("_damped")
        self.__dict__.update(state)
        self._targets = self._target_views()
        views = [(J, acc) for c, (_, J, acc) in zip(self.layout.contacts, self._targets, strict=True)
                 if c.kd > 0.0]  # fmt: skip
        self._damped = [(kd, J, acc) for kd, (J, acc) in zip(gains, views, strict=True)]

    @property
    def has_inequalities(self) -> bool:
        """True when there is a cone row or an effort-limit row."""
        return int(self._cone.shape[0]) + self._n_limited > 0

    def contact_jacobian(self) -> np.ndarray:
        """The stacked contact Jacobians (contact axes) of the last :meth:`update` (a view; read only)."""
        return self._J

    def _contact_rows(self) -> None:
        """J_c and a_c of every active contact, in its own axes, into the preallocated buffers (the
        robot's data holds the current state's dynamics pass: see the module docstring); then
        each loop closure's J and its a_c (J q̈ = −a_c: drift and Baumgarte terms); a contact with a
        velocity gain K_d adds K_d J_c v to its a_c (J_c q̈ = −a_c − K_d J_c v)."""
        robot = self.robot
        model, data = robot.model, robot.data
        for fid, J, acc in self._targets:
            jac, bias = _jacobian(model, data, fid, _LOCAL), _acceleration(model, data, fid, _LOCAL).vector
            if J.shape[0] == 6:  # a surface contact: all rows (a whole-array store, no slice object)
                J[...], acc[...] = jac, bias
            else:  # a point contact: the linear rows
                J[...], acc[...] = jac[:3], bias[:3]
        if self._damped:
            v = robot.state_view("contact rows")[1]
            for kd, J, acc in self._damped:
                acc += kd * J.dot(v)
        for loop, (_, cols) in zip(self.layout.loops, self.layout.loop_slices, strict=True):
            rows = slice(cols.start - self._nv, cols.stop - self._nv)
            self._J[rows], self._acc[rows] = loop.acceleration_rows(robot)

    def update(
        self,
    ) -> tuple[Array | None, Array | None, Array | None, Array | None, Array | None, Array, Array]:
        """The constraints at the robot's current state: ``(E, f, C, lbC, ubC, T, h_a)``, new arrays —
        except C, lbC, ubC without effort limits: the cone rows and their sides never change, and are
        handed out as the same read-only arrays (like the scene's regularisation and wrench bounds).

        E/f or C/lbC/ubC are None when empty (no free-flyer and no contact; no cone and no limit).
        """
        robot = self.robot
        M = robot.mass_matrix_view()
        h = robot.nonlinear_effects_view()
        external = self.external
        if external is not None and len(external):  # (robot.data holds this state's dynamics pass)
            h = h - external.generalized_force(robot.model, robot.data)
        if self._mw:
            self._contact_rows()
        # E = [M_u, −J_uᵀ; J_c, 0], f = [−h_u; −a_c], T = [M_a, −J_aᵀ], h_a: one compiled pass
        Ed, fd, T, h_a = _dynamics_rows(M, h, self._J, self._acc, self._u_idx, self._a_idx, self._n)
        E, f = (Ed, fd) if fd.shape[0] else (None, None)
        C = lo = hi = None
        if self._n_limited:
            Tl, hl = T[self._limited], h_a[self._limited]
            C = np.concatenate((self._cone, Tl))
            lo = np.concatenate((self._cone_lo, -self._lim - hl))
            hi = np.concatenate((self._cone_hi, self._lim - hl))
        elif self._cone.shape[0]:  # constant rows: the read-only arrays themselves, shared by every problem
            C, lo, hi = self._cone, self._cone_lo, self._cone_hi
        return E, f, C, lo, hi, T, h_a
