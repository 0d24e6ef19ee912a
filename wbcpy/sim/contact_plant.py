"""ContactPlant: a :class:`~wbcpy.sim.contact_simulation.ContactSimulation` driven by an
InverseDynamicsScene's torques, its contacts following the scene's — the rigid-contact plant of the plant
protocol (:class:`~wbcpy.sim.plant.Plant`, ``name == "pinocchio"``).
"""

from __future__ import annotations

import copy as _copy
from typing import Any

import numpy as np
import pinocchio as pin

from .._support.exclusive import exclusive
from .._support.read_only import read_only
from .contact_simulation import ContactSimulation
from .plant import push_arguments


class ContactPlant:
    """The plant of a closed loop around an :class:`~wbcpy.InverseDynamicsScene`: a
    :class:`ContactSimulation` of the robot driven by the scene's τ, whose contacts follow the scene's
    (``set_contact_active``), recording how far the simulated contact wrenches and the torques leave their
    limits. It satisfies the plant protocol (:class:`~wbcpy.sim.plant.Plant`, ``name == "pinocchio"``):
    its contacts are the scene's, held rigid while the scene keeps them active (a contact the scene puts
    down is an inelastic impact at the next :meth:`state` or :meth:`apply`).

    The attributes are read-only.

    Attributes:
        sim: the contact simulation. scene: the scene whose τ, contacts and external wrenches drive it.
        dt: the control period (= the simulation step, s). contact_frames: the scene's contact frames.
        violation: largest excess over the run so far (a copy): ``friction cone`` (N: the largest
            ``u·w / ‖u‖`` over the unit rows u of every active contact's cone, i.e. how far outside — a
            slipping or tipping foot), ``normal force`` (N, outside [fz_min, fz_max]) and ``effort``
            (N·m or N, |τ| above the scene's limits).

    **Copies, pickles, threads.** ``copy.copy`` gives a plant of its own (a ``copy.copy`` of the simulation,
    the pushes in force copied) driven by the same scene; ``copy.deepcopy`` and pickles copy the scene (and
    its robot) too. One thread at a time: :meth:`sync`, :meth:`step`, :meth:`state`, :meth:`apply` or
    :meth:`push` entered while another thread is inside raises :class:`~wbcpy.errors.ConcurrentUseError`
    and changes nothing.
    """

    name = "pinocchio"
    sim: ContactSimulation = read_only("sim", "The contact simulation (read-only).")
    scene: Any = read_only("scene", "The scene that drives the plant (read-only).")
    dt: float = read_only("dt", "The control period (= the simulation step, s; read-only).")
    contact_frames: tuple[str, ...] = read_only("contact_frames", "The scene's contact frames (read-only).")

    def __init__(self, scene: Any, q0: Any, v0: Any, dt: float, kp: float = 0.0, kd: float = 0.0) -> None:
        contacts = scene.contacts
        self._scene = scene
        self._sim = ContactSimulation(scene.robot, contacts, q0, v0, dt, kp, kd,
                                      loops=getattr(scene, "loop_closures", ()))  # fmt: skip
        self._dt = self._sim.dt
        self._gains = (float(kp), float(kd))
        self._limits = {}
        for c in contacts:
            U = c.cone()
            self._limits[c.frame] = (U / np.linalg.norm(U, axis=1, keepdims=True), c.fz_min, c.fz_max)
        self._sizes = {c.frame: c.size for c in contacts}
        self._contact_frames = tuple(c.frame for c in contacts)
        self._effort = scene.effort_limit
        self._forces: list[tuple[str, np.ndarray, float]] = []  # pushes: (frame, F world, end time)
        self._violation = {"friction cone": 0.0, "normal force": 0.0, "effort": 0.0}
        self._idle: list[None] = [None]  # (one thread at a time: wbcpy._support.exclusive)

    @property
    def violation(self) -> dict[str, float]:
        """The largest excess over the run so far (see the class docstring; a copy)."""
        return dict(self._violation)

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_idle"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._idle = [None]

    def __copy__(self) -> ContactPlant:
        """A plant of its own driven by the same scene (see the class docstring)."""
        new = object.__new__(ContactPlant)
        forces = [(f, F.copy(), end) for f, F, end in self._forces]
        new.__setstate__({**self.__getstate__(), "_sim": _copy.copy(self._sim), "_forces": forces,
                          "_violation": dict(self._violation)})  # fmt: skip
        return new

    @exclusive
    def sync(self) -> tuple[np.ndarray, np.ndarray]:
        """Give the simulation the scene's active contacts (a contact put down is an inelastic impact:
        the velocity jumps) and external wrenches (the load the scene compensates is the one simulated)
        plus the pushes in force; returns the state (q, v), which the controller should see before it
        solves.

        Raises:
            ConcurrentUseError: another thread is inside this plant.
        """
        return self._sync()

    def _sync(self) -> tuple[np.ndarray, np.ndarray]:
        sim, scene = self._sim, self._scene
        sim.clear_external_wrenches()
        loads = {f: np.array(w, dtype=float) for f, w in getattr(scene, "external_wrenches", {}).items()}
        self._forces = [p for p in self._forces if sim.time < p[2] - 1e-12]
        if self._forces:
            pin.framesForwardKinematics(sim._model, sim._data, sim.q)
        for frame, force, _ in self._forces:  # a force at the frame's origin: (Rᵀ F, 0) in its axes
            w = np.concatenate((sim._placement(frame).rotation.T @ force, np.zeros(3)))
            loads[frame] = loads.get(frame, np.zeros(6)) + w
        sim.set_external_wrenches(loads)
        active = scene.active_contact_frames
        if active != sim.active_frames:
            for frame in set(active) ^ set(sim.active_frames):
                sim.set_contact_active(frame, frame in active)
        return sim.q, sim.v

    @exclusive
    def step(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Apply the scene's last τ for one step (after :meth:`sync`); returns the new (q, v) and the
        simulated q̈.

        Raises:
            ConcurrentUseError: another thread is inside this plant.
        """
        sim = self._sim
        self._apply(self._scene.get_joint_torques())
        qdd = sim.qdd
        if qdd is None:  # pragma: no cover - apply() sets it
            raise RuntimeError("the contact simulation did not step")
        return sim.q, sim.v, qdd

    # ------------------------------------------------------------------ the plant protocol
    @property
    def time(self) -> float:
        """Simulated time (s)."""
        return self._sim.time

    @property
    def contact_options(self) -> dict[str, Any]:
        """Rigid contacts (Pinocchio's constraint dynamics), inelastic impacts, the Baumgarte gains."""
        kp, kd = self._gains
        return {"contacts": "rigid", "impact": "inelastic", "baumgarte_kp": kp, "baumgarte_kd": kd}

    @exclusive
    def state(self) -> tuple[np.ndarray, np.ndarray]:
        """The state (q, v) after :meth:`sync` (the scene's contacts taken over), as new arrays."""
        q, v = self._sync()
        return q.copy(), v.copy()

    @exclusive
    def apply(self, tau: Any) -> None:
        """Integrate one step with the torques τ (actuated DOFs, or nv generalised forces) after
        :meth:`sync`, and record the limit excesses (:attr:`violation`)."""
        self._apply(tau)

    def _apply(self, tau: Any) -> None:
        sim = self._sim
        self._sync()
        wrenches = sim.step(tau)
        viol = self._violation
        for frame, w in wrenches.items():
            U, lo, hi = self._limits[frame]
            viol["friction cone"] = max(viol["friction cone"], float((U @ w).max()))
            viol["normal force"] = max(viol["normal force"], lo - w[2], w[2] - hi)
        if self._effort is not None:
            tau_act = np.asarray(tau, dtype=float)
            tau_act = tau_act[sim._actuated] if tau_act.size == sim.robot.nv else tau_act
            viol["effort"] = max(viol["effort"], float(np.max(np.abs(tau_act) - self._effort)))

    def contact_wrenches(self) -> dict[str, np.ndarray]:
        """``{frame: wrench}`` of the last step for every contact frame (zeros when inactive)."""
        got = self._sim.wrenches
        return {f: got[f].copy() if f in got else np.zeros(self._sizes[f]) for f in self._contact_frames}

    def active_contacts(self) -> list[str]:
        """The contacts held rigid in the last step (the scene's active set at that step)."""
        return [f for f in self._contact_frames if f in self._sim.wrenches]

    @exclusive
    def push(self, vector: Any, frame: str | None = None, duration: float = 0.0) -> None:
        """An impulse (``duration`` 0: :meth:`ContactSimulation.push`, the contacts answer inelastically)
        or a force (N, world axes, at the frame's origin; None: the floating base's joint) held for
        ``duration`` seconds from now, as an external wrench of the simulation (checks:
        :func:`~wbcpy.sim.plant.push_arguments`)."""
        sim = self._sim
        force, frame_name, duration = push_arguments(sim.robot, vector, frame, duration)
        if duration == 0:
            sim.push(force, frame_name)
        else:
            self._forces.append((frame_name, force, sim.time + duration))
