"""MujocoPlant: a robot simulated by MuJoCo, driven by joint torques in Pinocchio's conventions.

It satisfies the plant protocol (:class:`~wbcpy.sim.plant.Plant`): ``state()`` in Pinocchio's q, v;
``apply(τ)`` holds the torques for one control period of ``round(dt / timestep)`` MuJoCo time steps
(``mj_step1``, pushes, ``mj_step2``); ``contact_wrenches()`` the mean wrench of each contact frame over
the period (:mod:`~wbcpy.sim.mujoco.contact_readout`); ``push(...)`` an impulse or a force over a
duration. The model is built from the robot (:mod:`~wbcpy.sim.mujoco.build`: its URDF compiled by
MuJoCo, or its MJCF file as it is) and checked against Pinocchio's at construction
(:mod:`~wbcpy.sim.mujoco.agreement`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pinocchio as pin
from numpy.typing import ArrayLike, NDArray

from ..._support.exclusive import (
    exclusive,
    exclusive_copy,
    exclusive_deepcopy,
    exclusive_getstate,
    restore_fields,
)
from ..._support.validation import as_vector
from ...contacts.contacts import Contact, SurfaceContact, as_contacts
from ...errors import ConfigError, InvalidValueError
from ..plant import push_arguments
from ._lib import mujoco_module
from .actuation import Actuation
from .agreement import check_agreement
from .build import CONTACT_GEOM_SUFFIX, model_from_mjcf, model_from_urdf
from .contact_readout import ContactReadout, frame_in_body
from .joint_map import JointMap
from .options import ContactOptions

if TYPE_CHECKING:
    from ...model.robot_model import RobotModel

_GEOMETRIES = ("contacts", "collisions")


def _start(robot: RobotModel, q0: Any, v0: Any) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(q0, v0): as given, else the robot's state, else its MJCF ``qpos0`` or neutral configuration."""
    if q0 is None:
        if robot.has_state:
            q0 = robot.state.q
        elif "qpos0" in robot.reference_configuration_names():
            q0 = robot.reference_configuration("qpos0")
        else:
            q0 = robot.neutral()
    q = as_vector(q0, robot.nq, "q0")
    robot.names.dofs.normalize_in_place(q)
    v = np.zeros(robot.nv) if v0 is None else as_vector(v0, robot.nv, "v0")
    return q, v


class MujocoPlant:
    """A robot in MuJoCo, driven by joint torques (see the module docstring and ``specs/mujoco.md``).

    Attributes:
        robot: the robot (Pinocchio's model of it; its state is never changed).
        model, data: MuJoCo's ``MjModel`` and ``MjData`` (read them freely; changing them is at one's risk).
        joints: the :class:`~wbcpy.sim.mujoco.joint_map.JointMap` between the two.
        dt: control period (s). substeps: MuJoCo time steps per period.
        contact_frames: the contact frames whose wrenches are reported.
        agreement: the relative differences of the agreement check (empty when skipped).
        name: ``"mujoco"``.

    **Copies, pickles, threads.** ``copy.copy``, ``copy.deepcopy`` and pickling give independent plants
    (MuJoCo's model and data are copied). One thread at a time: a second thread entering a plant in use
    raises :class:`~wbcpy.errors.ConcurrentUseError`.
    """

    name = "mujoco"

    def __init__(
        self,
        robot: RobotModel,
        contacts: Sequence[Contact | Any] = (),
        q0: ArrayLike | None = None,
        v0: ArrayLike | None = None,
        dt: float = 0.002,
        options: ContactOptions | None = None,
        geometry: str = "contacts",
        floor: float | str | None = "auto",
        joint_friction: bool = True,
        actuators: str = "file",
        check: bool = True,
    ) -> None:
        """Build MuJoCo's model of the robot and start it at (q0, v0).

        Args:
            robot: a robot loaded from a URDF (compiled by MuJoCo with the options below) or from an MJCF
                file (:meth:`RobotModel.from_mjcf`: the file is used as it is).
            contacts: :class:`SurfaceContact` / :class:`PointContact` objects or mappings: the frames whose
                wrenches are reported and, for a URDF robot, the contact geometry (a box per surface
                contact, a sphere per point contact) with its μ.
            q0, v0: start state (nq, nv; Pinocchio's conventions); default the robot's current state (or
                the MJCF's ``qpos0``, or the neutral configuration) at rest.
            dt: control period (s): a whole number of MuJoCo time steps.
            options: URDF robots: :class:`ContactOptions` (default the library's; MuJoCo's own with
                ``ContactOptions.mujoco_defaults()``).
            geometry: URDF robots: ``"contacts"`` (the contacts' boxes and spheres) or ``"collisions"``
                (the URDF's collision geometry).
            floor: URDF robots: height of a floor plane (m); ``"auto"``: at the lowest contact frame of q0
                (no floor without contacts); None: no floor.
            joint_friction: URDF robots: keep the URDF's joint damping and friction (False: zero).
            actuators: MJCF robots: ``"file"`` (its motors) or ``"motors"`` (gear-1 motors instead of its
                actuators).
            check: run :meth:`check_model` (agreement with Pinocchio within 1e-9) now.

        Raises:
            MissingDependencyError: mujoco is not installed.
            ConfigError: a bad argument (named), a URDF option given for an MJCF robot, a robot with
                neither URDF nor MJCF, dt not a multiple of the time step.
            InvalidValueError: a wrongly sized or non-finite q0 / v0.
            ModelError: MuJoCo cannot build the model, or it disagrees with Pinocchio's.
        """
        mujoco = mujoco_module()
        self._idle = [None]
        if not isinstance(check, bool):
            raise ConfigError("check", f"must be true or false, got {check!r}")
        self.robot = robot
        self._contacts = as_contacts(robot, contacts)
        q, v = _start(robot, q0, v0)
        if robot.mjcf_path is not None:
            self._refuse_urdf_options(options, geometry, floor, joint_friction)
            self.model = model_from_mjcf(robot.mjcf_path, actuators)
            self._options: dict[str, Any] = {"source": f"MJCF {robot.mjcf_path.name}"}
        else:
            self.model = self._urdf_model(q, options, geometry, floor, joint_friction)
        self._set_period(dt)
        self.joints = JointMap(robot.model, self.model)
        self._actuation = Actuation(self.model, self.joints)
        self._readout = self._contact_readout()
        self.data = mujoco.MjData(self.model)
        self._q0 = q
        self.agreement: dict[str, float] = self.check_model() if check else {}
        self.joints.qpos(q, self.data.qpos)
        self.joints.qvel(q, v, self.data.qvel)
        mujoco.mj_forward(self.model, self.data)
        self._pushes: list[tuple[int, NDArray[np.float64], NDArray[np.float64], float]] = []
        self._pushed = False  # (xfrc_applied holds pushes of the last time step)

    # ------------------------------------------------------------------ construction
    @staticmethod
    def _refuse_urdf_options(options: Any, geometry: str, floor: Any, joint_friction: bool) -> None:
        given = {
            "options": options is not None,
            "geometry": geometry != "contacts",
            "floor": not (isinstance(floor, str) and floor == "auto"),
            "joint_friction": joint_friction is not True,
        }
        for name, set_ in given.items():
            if set_:
                raise ConfigError(
                    name, "an MJCF robot's model is its file, used as it is (a URDF-robot option)"
                )

    def _urdf_model(
        self, q: NDArray[np.float64], options: Any, geometry: str, floor: Any, friction: Any
    ) -> Any:
        if options is None:
            options = ContactOptions()
        if not isinstance(options, ContactOptions):
            raise ConfigError("options", f"must be a ContactOptions, got {type(options).__name__}")
        if geometry not in _GEOMETRIES:
            raise ConfigError("geometry", f"must be one of {', '.join(_GEOMETRIES)}, got {geometry!r}")
        if not isinstance(friction, bool):
            raise ConfigError("joint_friction", f"must be true or false, got {friction!r}")
        height = self._floor(q, floor)
        self._options = {
            **options.as_dict(),
            "geometry": geometry,
            "floor": height,
            "joint_friction": friction,
        }
        self._options["mu"] = {c.frame: c.mu for c in self._contacts}
        return model_from_urdf(self.robot, self._contacts, options, geometry, height, friction)

    def _floor(self, q: NDArray[np.float64], floor: Any) -> float | None:
        if floor is None:
            return None
        if isinstance(floor, str) and floor == "auto":
            if not self._contacts:
                return None
            model = self.robot.model
            data = model.createData()
            pin.framesForwardKinematics(model, data, q)
            return min(float(data.oMf[model.getFrameId(c.frame)].translation[2]) for c in self._contacts)
        ok = not isinstance(floor, bool) and isinstance(floor, (int, float)) and math.isfinite(floor)
        if not ok:
            raise ConfigError("floor", f"must be a height (m), 'auto' or None, got {floor!r}")
        return float(floor)

    def _set_period(self, dt: Any) -> None:
        ok = not isinstance(dt, bool) and isinstance(dt, (int, float)) and math.isfinite(dt) and dt > 0
        step = float(self.model.opt.timestep)
        n = round(dt / step) if ok else 0
        if not ok or n < 1 or abs(n * step - dt) > 1e-9 * dt:
            raise ConfigError("dt", f"must be a whole number of MuJoCo time steps ({step} s), got {dt!r}")
        self.dt, self.substeps = float(dt), int(n)

    def _contact_readout(self) -> ContactReadout:
        mujoco, mj = mujoco_module(), self.model
        frames, sizes, geoms, placements = [], [], [], []
        for c in self._contacts:
            body, placement = frame_in_body(self.robot.model, mj, self.joints, c.frame)
            own = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_GEOM, c.frame + CONTACT_GEOM_SUFFIX)
            if own >= 0:
                ids = [own]
            else:  # the geoms rigidly attached to the frame's body (its weld group)
                weld = mj.body_weldid[body]
                ids = [g for g in range(mj.ngeom) if mj.body_weldid[mj.geom_bodyid[g]] == weld and body != 0]
            frames.append(c.frame)
            sizes.append(6 if isinstance(c, SurfaceContact) else 3)
            geoms.append(ids)
            placements.append((body, placement))
        self.contact_frames = tuple(frames)
        return ContactReadout(mj, frames, sizes, geoms, placements)

    # ------------------------------------------------------------------ the plant protocol
    @property
    def time(self) -> float:
        """Simulated time (s)."""
        return float(self.data.time)

    @property
    def contact_options(self) -> dict[str, Any]:
        """The contact options the model was built with (a URDF robot), or the MJCF file's cone, impratio,
        time step and integrator."""
        mj = self.model
        out = dict(self._options)
        if "source" in out:
            mujoco = mujoco_module()
            out["cone"] = mujoco.mjtCone(int(mj.opt.cone)).name.removeprefix("mjCONE_").lower()
            out["integrator"] = (
                mujoco.mjtIntegrator(int(mj.opt.integrator)).name.removeprefix("mjINT_").lower()
            )
            out["impratio"], out["timestep"] = float(mj.opt.impratio), float(mj.opt.timestep)
        return out

    @exclusive
    def state(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """The state (q, v) now in Pinocchio's conventions (new arrays)."""
        q = self.joints.q(self.data.qpos)
        return q, self.joints.v(q, self.data.qvel)

    @exclusive
    def apply(self, tau: ArrayLike) -> None:
        """Hold the torques τ (actuated DOFs, v order) for one control period (see the module docstring).

        Raises:
            InvalidValueError: a wrongly sized or non-finite τ (nothing integrated).
        """
        mujoco, mj, data = mujoco_module(), self.model, self.data
        tau_arr = as_vector(tau, self._actuation.n, "tau")
        self._actuation.write(tau_arr, data)
        readout = self._readout
        readout.reset()
        for _ in range(self.substeps):
            mujoco.mj_step1(mj, data)
            self._apply_pushes()
            mujoco.mj_step2(mj, data)
            readout.accumulate(mj, data)

    @exclusive
    def contact_wrenches(self) -> dict[str, NDArray[np.float64]]:
        """``{frame: wrench}``: the mean contact wrench of each contact frame over the last period (contact
        axes, about the frame origin, force over torque; 3 entries for a point contact; zeros without
        contact)."""
        return self._readout.wrenches()

    @exclusive
    def active_contacts(self) -> list[str]:
        """The contact frames that carried a positive normal force in some time step of the last period."""
        return self._readout.active()

    @exclusive
    def push(self, vector: ArrayLike, frame: str | None = None, duration: float = 0.0) -> None:
        """Push at the origin of ``frame`` (None: the floating base's body) along ``vector`` (world axes).

        ``duration == 0``: an impulse P (N·s): the velocity jumps by M⁻¹ Jᵀ P (J the point's 3 × nv
        translation Jacobian, MuJoCo's ``mj_jac``; the contacts answer in the following steps).
        ``duration > 0``: a force F (N) from now for ``duration`` seconds (``xfrc_applied``, refreshed at
        every time step at the point's current position).

        Raises:
            InvalidValueError: not 3 finite numbers. ConfigError: a bad duration, ``frame=None`` on a robot
                without a floating base. UnknownNameError: an unknown frame.
        """
        mujoco, mj, data = mujoco_module(), self.model, self.data
        P, frame_name, duration = push_arguments(self.robot, vector, frame, duration)
        body, placement = frame_in_body(self.robot.model, mj, self.joints, frame_name)
        local = np.array(placement.translation)
        if duration > 0:
            self._pushes.append((body, local, P, self.time + duration))
            return
        mujoco.mj_forward(mj, data)
        point = data.xpos[body] + data.xmat[body].reshape(3, 3) @ local
        jacp = np.zeros((3, mj.nv))
        mujoco.mj_jac(mj, data, jacp, None, point, body)
        dv = np.zeros(mj.nv)
        mujoco.mj_solveM(mj, data, dv.reshape(1, -1), (jacp.T @ P).reshape(1, -1))
        data.qvel[:] += dv
        mujoco.mj_forward(mj, data)

    def _apply_pushes(self) -> None:
        """``xfrc_applied`` of the pushes in force now (after ``mj_step1``: body poses of this step)."""
        data = self.data
        if not self._pushes and not self._pushed:
            return
        data.xfrc_applied[:] = 0.0
        now = self.time
        self._pushes = [p for p in self._pushes if now < p[3] - 1e-12]
        self._pushed = bool(self._pushes)
        for body, local, force, _ in self._pushes:
            point = data.xpos[body] + data.xmat[body].reshape(3, 3) @ local
            data.xfrc_applied[body, :3] += force
            data.xfrc_applied[body, 3:] += np.cross(point - data.xipos[body], force)

    # ------------------------------------------------------------------ checks, copies
    @exclusive
    def check_model(self, rtol: float = 1e-9) -> dict[str, float]:
        """The agreement check (:func:`~wbcpy.sim.mujoco.agreement.check_agreement`): total mass, COM at
        the start state, gravity torques and inverse dynamics at a random state, within ``rtol``.

        Returns:
            ``{quantity: relative difference}``.

        Raises:
            ModelError: a quantity differs by more than ``rtol`` (named, with the largest difference).
        """
        ok = not isinstance(rtol, bool) and isinstance(rtol, (int, float)) and rtol > 0
        if not ok:
            raise InvalidValueError(
                "rtol", "a number > 0", rtol, reason=f"must be a number > 0, got {rtol!r}"
            )
        return check_agreement(self.robot.model, self.model, self.joints, self._q0, float(rtol))

    __copy__ = exclusive_copy
    __deepcopy__ = exclusive_deepcopy
    __getstate__ = exclusive_getstate
    __setstate__ = restore_fields

    def __repr__(self) -> str:
        return (
            f"MujocoPlant({self.robot.name!r}, t={self.time:.3f} s, dt={self.dt}, substeps={self.substeps}, "
            f"contacts={list(self.contact_frames)})"
        )
