"""Contact simulation: joint torques integrated with Pinocchio's rigid constraint dynamics.

The plant a torque controller (:class:`~wbcpy.InverseDynamicsScene`) drives. One step with period dt:

1. forward dynamics with rigid contacts (``pin.constraintDynamics``, one ``RigidConstraintModel`` per
   active contact: ``CONTACT_6D`` for a :class:`~wbcpy.contacts.contacts.SurfaceContact`, ``CONTACT_3D``
   for a :class:`~wbcpy.contacts.contacts.PointContact`, both in the contact frame's axes, ``LOCAL``):

   .. math::

       M \\ddot q + h = τ + \\sum_c J_c^T w_c, \\qquad J_c \\ddot q + a_c = −K_p e_c − K_d \\dot e_c,

   with ``a_c`` the contact frame's acceleration at q̈ = 0 — Pinocchio's 6-D constraint uses the
   *spatial* acceleration (LOCAL), its 3-D constraint the *classical* acceleration of the point — and
   ``(e_c, ė_c)`` the contact frame's pose and velocity error to its anchor (the placement it had when
   the contact became active); the Baumgarte gains ``K_p, K_d`` are 0 by default. The scene's hard
   constraint uses the classical acceleration for both; the two differ by ``ω × v`` of the contact frame,
   which is zero while the contact is at rest — as rigid contacts keep it (a state whose soles move gives
   a different q̈);
   Known external wrenches w_e (:meth:`ContactSimulation.set_external_wrench`; frame axes, about its
   origin, on the robot, as in :mod:`wbcpy.contacts.external`) add Σ_e J_eᵀ w_e to τ;
2. semi-implicit Euler: ``v ← v + q̈ dt``, ``q ← q ⊕ v dt`` (``pin.integrate``).

The contact wrenches ``w_c`` are what the environment exerts on the robot, in the contact frame's axes,
about its origin (force over torque; the force only for a point contact) — the convention of
``specs/contact-scene.md``. The constraints are bilateral: the simulation reports a pulling or slipping
wrench, it does not prevent it; checking ``w_c`` against the contact's cone is the caller's job.
"""

from __future__ import annotations

import copy as _copy
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pinocchio as pin
from numpy.typing import ArrayLike, NDArray

from .._support.exclusive import exclusive
from .._support.read_only import read_only
from .._support.validation import as_state_vector, as_vector
from ..contacts.contacts import Contact, as_contacts
from ..contacts.external import ExternalWrenches
from ..contacts.loop_closure import LoopClosure
from ..errors import ConfigError, InvalidValueError, UnknownNameError
from ..model.robot_model import RobotModel

_LOCAL = pin.ReferenceFrame.LOCAL
_WORLD = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED


def _gain(value: Any, field: str) -> float:
    ok = not isinstance(value, bool) and isinstance(value, (int, float, np.floating, np.integer))
    if not ok or not np.isfinite(value) or value < 0:
        raise ConfigError(field, f"must be a finite number ≥ 0, got {value!r}")
    return float(value)


def _step(value: Any) -> float:
    """An integration step dt (s): a finite number > 0."""
    dt = _gain(value, "dt")
    if dt <= 0:
        raise ConfigError("dt", f"must be > 0, got {value!r}")
    return dt


#: the largest |time| (s) a simulation takes (about 3e10 years)
_TIME_LIMIT = 1e18
#: what copies and pickles leave out and rebuild (Pinocchio's data, constraint models and settings, the
#: thread token)
_REBUILT = ("_data", "_cms", "_cds", "_slices", "_prox", "_idle")


def _vector(x: ArrayLike, n: int | None, name: str) -> NDArray[np.float64]:
    """``x`` itself when it is a finite float64 vector of length n (read only here), else a checked copy."""
    if (
        type(x) is np.ndarray
        and x.ndim == 1
        and x.dtype == np.float64
        and (n is None or x.shape[0] == n)
        and math.isfinite(x.dot(x))
    ):
        return x
    return as_vector(x, n, name)


def _set_baumgarte(cm: pin.RigidConstraintModel, kp: float, kd: float) -> None:
    """Baumgarte gains of one constraint (Pinocchio 3: per-axis ``corrector``; 4: scalar parameters)."""
    if hasattr(cm, "corrector"):
        cm.corrector.Kp[:] = kp
        cm.corrector.Kd[:] = kd
    else:
        cm.setBaumgarteCorrectorParameters(pin.BaumgarteCorrectorParameters(kp, kd))


class ContactSimulation:
    """A robot with rigid contacts driven by joint torques (semi-implicit Euler).

    Attributes:
        robot: the robot model (its ``pin.Model``; the simulation keeps its own ``pin.Data`` and never
            changes the robot's state). Read-only.
        dt: integration step (s; settable, checked).
        q, v: current configuration (nq) and velocity (nv) (settable, checked: a new state; reading
            gives the simulation's arrays, which must not be written to).
        time: simulated time (s; settable, checked).
        qdd: q̈ of the last :meth:`step` or :meth:`forward` (nv), None before. Read-only.
        wrenches: ``{frame: wrench}`` of the active contacts at the last step (contact frame, about its
            origin; 6 or 3 entries). Read-only.

    **Copies, pickles, threads.** ``copy.copy`` gives an independent simulation of the same robot (shared
    ``pin.Model``, its own ``pin.Data`` and constraint models, the state, contacts, anchors and external
    wrenches copied); ``copy.deepcopy`` and pickles copy the robot too. Pinocchio's constraint models and
    data are never copied or pickled: they are rebuilt from the contacts and their anchors, so a copy
    steps on exactly as the original. One thread at a time: :meth:`step`, :meth:`forward`, :meth:`push`
    and :meth:`set_contact_active` entered while another thread is inside raise
    :class:`~wbcpy.errors.ConcurrentUseError` and change nothing.
    """

    robot: RobotModel = read_only("robot", "The robot model (read-only).")
    qdd: np.ndarray | None = read_only("qdd", "q̈ of the last step or forward (nv), None before (read-only).")
    wrenches: dict[str, np.ndarray] = read_only(
        "wrenches", "{frame: wrench} of the active contacts at the last step (read-only)."
    )

    def __init__(
        self,
        robot: RobotModel,
        contacts: Sequence[Contact | Any],
        q0: Any,
        v0: Any = None,
        dt: float = 0.001,
        kp: float = 0.0,
        kd: float = 0.0,
        damping: float = 0.0,
        loops: Sequence[LoopClosure] = (),
    ) -> None:
        """Set up the simulation at (q0, v0); every active contact is anchored where it is at q0.

        Args:
            robot: the robot (a free-flyer base is unactuated; every other DOF takes a torque).
            contacts: :class:`SurfaceContact` / :class:`PointContact` objects or mappings (copied).
            q0: initial configuration (nq).
            v0: initial velocity (nv), default zero.
            dt: step (s), > 0.
            kp, kd: Baumgarte gains (1/s², 1/s) of every contact, ≥ 0 (0: no drift correction).
            damping: proximal regularisation μ of ``pin.constraintDynamics``; 0 (default) solves the
                contact problem exactly and needs independent constraints (with redundant ones
                Pinocchio 4 returns NaN — a ConfigError here — and Pinocchio 3 an arbitrary split); μ > 0
                iterates (up to 100 times, to 1e-12) and also handles redundant contacts (e.g. two soles
                on one link).
            loops: loop closures (:class:`~wbcpy.contacts.loop_closure.LoopClosure`) simulated as rigid
                constraints between their frames, with their own Baumgarte gains (1/T², 2/T).

        Raises:
            ConfigError: an invalid contact (``contacts[i].field``), gain, damping or dt; a robot with
                mimic joints (field ``robot``: Pinocchio's constraint dynamics refuses them).
            InvalidValueError: a wrongly sized or non-finite q0 / v0.
        """
        self._robot = robot
        model = robot.model
        if robot.mimic_joints:
            raise ConfigError(
                "robot",
                f"{robot.name!r} has mimic joints, which Pinocchio's constraint dynamics does not take "
                f"(pinocchio {pin.__version__})",
            )
        self._model = model
        self._data = model.createData()
        self._contacts = as_contacts(robot, contacts)
        self._by_frame = {c.frame: c for c in self._contacts}
        self._dt = _step(dt)
        self._kp, self._kd = _gain(kp, "kp"), _gain(kd, "kd")
        self._damping = _gain(damping, "damping")
        self._actuated = self._actuated_dofs(model)
        self._tau_full = np.zeros(model.nv)
        self._q = as_vector(q0, model.nq, "q0")
        self._v = np.zeros(model.nv) if v0 is None else as_vector(v0, model.nv, "v0")
        self._time = 0.0
        self._qdd: np.ndarray | None = None
        self._wrenches: dict[str, np.ndarray] = {}
        self._external = ExternalWrenches(robot)
        self._anchors: dict[str, pin.SE3] = {}
        self._loops = list(loops)
        pin.framesForwardKinematics(model, self._data, self._q)
        for c in self._contacts:
            if c.active:
                self._anchors[c.frame] = self._placement(c.frame)
        self._build()
        self._idle: list[None] = [None]  # (one thread at a time: wbcpy._support.exclusive)

    # ------------------------------------------------------------------ state, copies, pickles
    @property
    def q(self) -> np.ndarray:
        """The configuration (nq; the simulation's array: do not write to it)."""
        return self._q

    @q.setter
    def q(self, value: Any) -> None:
        self._q = as_state_vector(value, self._model.nq, "q")

    @property
    def v(self) -> np.ndarray:
        """The velocity (nv; the simulation's array: do not write to it)."""
        return self._v

    @v.setter
    def v(self, value: Any) -> None:
        self._v = as_state_vector(value, self._model.nv, "v")

    @property
    def dt(self) -> float:
        """The integration step (s), a finite number > 0."""
        return self._dt

    @dt.setter
    def dt(self, value: float) -> None:
        self._dt = _step(value)

    @property
    def time(self) -> float:
        """The simulated time (s)."""
        return self._time

    @time.setter
    def time(self, value: float) -> None:
        ok = not isinstance(value, bool) and isinstance(value, (int, float, np.integer, np.floating))
        if not ok or not -_TIME_LIMIT <= value <= _TIME_LIMIT:  # (False for NaN; no float() overflow)
            raise ConfigError("time", f"must be a finite number of seconds, got {value!r:.80}")
        self._time = float(value)

    def __getstate__(self) -> dict[str, Any]:
        """The state for copies and pickles: without Pinocchio's data and constraint models (rebuilt)."""
        state = {k: v for k, v in self.__dict__.items() if k not in _REBUILT}
        state["_anchors"] = {f: (M.rotation.copy(), M.translation.copy()) for f, M in self._anchors.items()}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._anchors = {f: pin.SE3(R, p) for f, (R, p) in state["_anchors"].items()}
        self._data = self._model.createData()
        self._idle = [None]
        self._build()

    def __copy__(self) -> ContactSimulation:
        """An independent simulation of the same robot (see the class docstring)."""
        shared = ("_robot", "_model")
        state = _copy.deepcopy({k: v for k, v in self.__getstate__().items() if k not in shared})
        new = object.__new__(ContactSimulation)
        new.__setstate__({**state, "_robot": self._robot, "_model": self._model})
        return new

    @staticmethod
    def _actuated_dofs(model: pin.Model) -> np.ndarray:
        mask = np.ones(model.nv, dtype=bool)
        for jid in range(1, model.njoints):
            joint = model.joints[jid]
            if "FreeFlyer" in joint.shortname():
                mask[joint.idx_v : joint.idx_v + joint.nv] = False
        return np.flatnonzero(mask)

    def _placement(self, frame: str) -> pin.SE3:
        """The frame's current placement (the data's frame placements must be up to date)."""
        return pin.SE3(self._data.oMf[self._model.getFrameId(frame)])

    def _build(self) -> None:
        """Constraint models and data of the active contacts (after any change of the active set), and
        the proximal settings of the constraint solve."""
        model = self._model
        mu = self._damping
        self._prox = pin.ProximalSettings(1e-12, mu, 100 if mu > 0 else 1)
        cms = pin.StdVec_RigidConstraintModel()
        self._slices: list[tuple[str, slice]] = []
        k = 0
        for c in self._contacts:
            if not c.active:
                continue
            frame = model.frames[model.getFrameId(c.frame)]
            kind = pin.ContactType.CONTACT_6D if c.size == 6 else pin.ContactType.CONTACT_3D
            cm = pin.RigidConstraintModel(
                kind, model, frame.parentJoint, frame.placement, 0, self._anchors[c.frame], _LOCAL
            )
            _set_baumgarte(cm, self._kp, self._kd)
            cms.append(cm)
            self._slices.append((c.frame, slice(k, k + c.size)))
            k += c.size
        for loop in self._loops:  # (after the contacts: their multipliers are not reported)
            fa, fb = (model.frames[model.getFrameId(f)] for f in (loop.frame_a, loop.frame_b))
            kind = pin.ContactType.CONTACT_6D if loop.size == 6 else pin.ContactType.CONTACT_3D
            cm = pin.RigidConstraintModel(kind, model, fa.parentJoint, fa.placement, fb.parentJoint,
                                          fb.placement * loop.b_M_c, _LOCAL)  # fmt: skip
            T = loop.time_constant
            _set_baumgarte(cm, 1.0 / (T * T), 2.0 / T)
            cms.append(cm)
        cds = pin.StdVec_RigidConstraintData()
        for cm in cms:
            cds.append(cm.createData())
        try:
            pin.initConstraintDynamics(model, self._data, cms, cds)
        except TypeError:  # Pinocchio 3.x: (model, data, models)
            pin.initConstraintDynamics(model, self._data, cms)
        self._cms, self._cds = cms, cds

    # ------------------------------------------------------------------ contacts
    @property
    def contacts(self) -> list[Contact]:
        """Copies of the contacts (with their current ``active`` flags)."""
        return [c.copy() for c in self._contacts]

    @property
    def active_frames(self) -> list[str]:
        """Frames of the active contacts, in contact order."""
        return [c.frame for c in self._contacts if c.active]

    @exclusive
    def set_contact_active(self, frame: str, active: bool, impact: bool = True) -> None:
        """Lift (False) or put down (True) a contact; a contact put down is anchored where it is now.

        Putting a contact down is an inelastic impact (``impact=True``, restitution 0): the velocity jumps
        to the one closest to it in the kinetic-energy metric at which every active contact frame is at
        rest (Pinocchio's ``impulseDynamics``, v⁺ = v − M⁻¹Jᵀ(JM⁻¹Jᵀ)⁻¹ J v). With ``impact=False`` the
        velocity is kept (the frame keeps moving through its anchor unless ``kd > 0``).

        Raises:
            UnknownNameError: ``frame`` has no contact (a KeyError).
            ConfigError: ``active`` or ``impact`` is not a bool.
        """
        contact = self._by_frame.get(frame) if isinstance(frame, str) else None
        if contact is None:
            raise UnknownNameError("contact", frame, list(self._by_frame))
        for name, flag in (("active", active), ("impact", impact)):
            if not isinstance(flag, (bool, np.bool_)):
                raise ConfigError(name, f"must be true or false, got {flag!r:.80}")
        if contact.active == bool(active):
            return
        if active:
            pin.framesForwardKinematics(self._model, self._data, self._q)
            self._anchors[frame] = self._placement(frame)
        contact.active = bool(active)
        self._build()
        if active and impact:
            self._impact()

    def _impact(self) -> None:
        """Inelastic impact of the active contacts (see :meth:`set_contact_active`)."""
        pin.computeJointJacobians(self._model, self._data, self._q)
        pin.updateFramePlacements(self._model, self._data)
        self._v = self._rest_contacts(self._v)

    def _rest_contacts(self, v: np.ndarray) -> np.ndarray:
        """The velocity closest to ``v`` (kinetic-energy metric) at which every active contact is at rest;
        the contact impulses are left in ``data.impulse_c`` (Jacobians and frame placements up to date)."""
        model, data = self._model, self._data
        J = [pin.getFrameJacobian(model, data, model.getFrameId(c.frame), _LOCAL)[: c.size]
             for c in self._contacts if c.active]  # fmt: skip
        if not J:
            return v
        return np.array(pin.impulseDynamics(model, data, self._q, v, np.vstack(J), 0.0), dtype=float)

    @exclusive
    def push(self, impulse: Any, frame: str | None = None) -> dict[str, np.ndarray]:
        """An instantaneous push: a linear impulse P (N·s, world axes) at the origin of ``frame``.

        The velocity jumps to v⁺ = v + M⁻¹(J_pᵀ P + Σ_c J_cᵀ Λ_c) with every active contact at rest after
        the push (J_c v⁺ = 0, an inelastic contact response): the free response v + M⁻¹J_pᵀP projected as
        in :meth:`set_contact_active`. J_p is the 3 × nv linear part of the frame's Jacobian in world axes
        (``LOCAL_WORLD_ALIGNED``). q does not change. A zero impulse is still a projection (it removes any
        contact velocity the integration left).

        Args:
            impulse: P, 3 entries (N·s, world axes).
            frame: the frame pushed at its origin; None: the floating base (its free-flyer joint's origin).

        Returns:
            ``{frame: Λ_c}``: the contact impulses (N·s and N·m·s, contact axes, 6 or 3 entries).

        Raises:
            InvalidValueError: P is not 3 finite numbers.
            UnknownNameError: an unknown frame (a KeyError).
            ConfigError: ``frame=None`` on a robot without a floating base.
        """
        model, data = self._model, self._data
        P = as_vector(impulse, 3, "impulse")
        if frame is None:
            joints = [j for j in range(1, model.njoints) if "FreeFlyer" in model.joints[j].shortname()]
            if not joints:
                raise ConfigError("frame", "the robot has no floating base: name the frame to push")
        elif not isinstance(frame, str) or not model.existFrame(frame):
            raise UnknownNameError("frame", frame, [f.name for f in model.frames])
        pin.computeJointJacobians(model, data, self._q)
        pin.updateFramePlacements(model, data)
        if frame is None:
            Jp = pin.getJointJacobian(model, data, joints[0], _WORLD)[:3]
        else:
            Jp = pin.getFrameJacobian(model, data, model.getFrameId(frame), _WORLD)[:3]
        M = pin.crba(model, data, self._q)
        M = np.triu(M) + np.triu(M, 1).T  # crba fills the upper triangle
        self._v = self._rest_contacts(self._v + np.linalg.solve(M, Jp.T @ P))
        lam = np.asarray(data.impulse_c, dtype=float)
        return {f: lam[s].copy() for f, s in self._slices} if self.active_frames else {}

    # ------------------------------------------------------------------ external wrenches
    def set_external_wrench(self, frame: str, wrench: Any) -> None:
        """A wrench on the robot at ``frame`` from the next step on (6 numbers: force over torque, frame
        axes, about its origin; replaces the frame's previous one).

        Raises:
            UnknownNameError: an unknown frame. InvalidValueError: not 6 finite numbers.
        """
        self._external.set(frame, wrench)

    def set_external_wrenches(self, wrenches: Any) -> None:
        """Set several external wrenches ``{frame: wrench}`` (all checked before any is set).

        Raises:
            ConfigError: not a mapping; UnknownNameError, InvalidValueError: as set_external_wrench.
        """
        self._external.update(wrenches)

    def clear_external_wrenches(self) -> None:
        """Remove every external wrench."""
        self._external.clear()

    @property
    def external_wrenches(self) -> dict[str, np.ndarray]:
        """``{frame: wrench}`` of the external wrenches in use (new arrays)."""
        return self._external.as_dict()

    # ------------------------------------------------------------------ dynamics
    def _torque(self, tau: Any) -> np.ndarray:
        """τ as nv generalised forces (actuated-only input is scattered, the base rows are 0)."""
        nv, act = self._model.nv, self._actuated
        arr = _vector(tau, None, "tau")
        if arr.shape[0] == nv:
            return arr
        if arr.shape[0] != act.size:
            raise InvalidValueError("tau", f"({act.size},) or ({nv},)", arr.shape)
        full = self._tau_full  # base rows stay 0
        full[act] = arr
        return full

    @exclusive
    def forward(self, q: Any, v: Any, tau: Any) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Rigid-contact forward dynamics at (q, v) with joint torques τ (no step is taken).

        Args:
            q: configuration (nq).
            v: velocity (nv).
            tau: torques of the actuated DOFs (nv − 6 with a free-flyer; robot order), or nv generalised
                forces (a free-flyer's 6 entries are then forces on the base, normally 0). The external
                wrenches' Σ J_eᵀ w_e is added to them.

        Returns:
            ``(q̈, {frame: wrench})``: new arrays; the wrenches of the active contacts in their frames.

        Raises:
            InvalidValueError: a wrongly sized or non-finite input.
            ConfigError: the constraint solve returned non-finite values (redundant contacts with
                ``damping = 0``).
            ConcurrentUseError: another thread is inside this simulation.
        """
        return self._forward(q, v, tau)

    def _forward(self, q: Any, v: Any, tau: Any) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """:meth:`forward` (the one path of :meth:`step` too)."""
        model = self._model
        q = _vector(q, model.nq, "q")
        v = _vector(v, model.nv, "v")
        tau = self._torque(tau)
        if len(self._external):
            pin.computeJointJacobians(model, self._data, q)
            tau = tau + self._external.generalized_force(model, self._data)
        out = pin.constraintDynamics(model, self._data, q, v, tau, self._cms, self._cds, self._prox)
        qdd = np.array(out, dtype=float)
        lam = np.asarray(self._data.lambda_c)
        if not (math.isfinite(qdd.dot(qdd)) and math.isfinite(lam.dot(lam))):  # NaN/inf (or overflow)
            raise ConfigError(
                "contacts",
                "constraint dynamics returned non-finite values: the active contacts' constraints are "
                "redundant or singular; use damping > 0",
            )
        wrenches = {frame: lam[s].copy() for frame, s in self._slices}
        self._qdd = qdd
        return qdd.copy(), wrenches

    @exclusive
    def step(self, tau: Any) -> dict[str, np.ndarray]:
        """Advance one step dt with joint torques τ (see :meth:`forward`); returns the contact wrenches.

        The state is changed only when the dynamics succeeded.
        """
        qdd, wrenches = self._forward(self._q, self._v, tau)
        v = self._v + qdd * self._dt
        self._q = pin.integrate(self._model, self._q, v * self._dt)
        self._v = v
        self._time += self._dt
        self._wrenches = wrenches
        return {k: w.copy() for k, w in wrenches.items()}
