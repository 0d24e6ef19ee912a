"""Peer controllers (TSID 1.7.1, pink, PlaCo 0.10.2) set up as their users write them, shared by the
benchmarks.

Each peer is a small class with ``setup()`` (build everything, then run the closed loop for
``n_states`` steps and record the states it visits) and ``step()`` (one full control step at the next
recorded state, cycling: what a user's loop does every period — references, problem update, solve,
outputs). The plant (integration) is not part of ``step()``: replaying recorded states keeps it out of the
timing without changing what the controller sees. The task constants below are shared with the wbcpy
side of each benchmark so that both solve the same problem.

Peers
-----
* :class:`TsidTalosStanding` — (i) issue 10: Talos on both soles (two ``Contact6d``, μ = 0.3, soles
  0.2 × 0.13 m, hard), COM task with a PD reference (weight 1) + posture task (weight 1e-3) in TSID's one
  weighted level, ``SolverHQuadProgFast``; ``feet_tasks=True`` — (iii) issue 11, "TSID standing" as its
  biped exercise writes it: the same plus an SE3 task per sole (weight 1).
* :class:`TsidPandaReach` — (ii) issue 11: Panda, ``panda_hand`` SE3 task (PD) + posture (weight 1e-3),
  position/velocity/acceleration bounds (``TaskJointPosVelAccBounds``, hard).
* :class:`PinkPandaReach` — (iv) issues 11 and 16: Panda, pink ``FrameTask`` + ``PostureTask``
  (cost 1e-3), configuration and velocity limits (pink's defaults), daqp.
* :class:`PlacoTalosStanding` — PlaCo's ``DynamicsSolver`` on the Talos standing problem of
  :class:`TsidTalosStanding`: a soft COM task (weight 1) and joints task (weight 1e-3) with the same PD
  gains, both soles as planar contacts (hard frame tasks, 0.2 × 0.13 m, μ = 0.3), PlaCo's torque cost
  (its default 1e-3, or another ``torque_cost``).
* :class:`PlacoTalosWalk` — PlaCo's kinematic walk on Talos as its walk example writes it: a
  ``WalkPatternGenerator`` plan over ``FootstepsPlannerRepetitive`` steps, tracked by a
  ``KinematicsSolver`` through ``WalkTasks`` (feet, trunk orientation, COM; soft, weight 1) with velocity
  limits; one step is ``update_tasks_from_trajectory``, ``update_kinematics``, ``solve(True)`` and the
  support-foot update.

TSID and pink are not wbcpy dependencies: install them in a benchmark venv
(``pip install tsid==1.7.1 "pin==3.4.0" "cmeel-urdfdom<5" "cmeel-tinyxml2<11" pin-pink quadprog`` then
``pip install -e .``). PlaCo 0.10.2 pins Pinocchio 3.8: a venv of its own (``pip install placo==0.10.2
qpsolvers osqp daqp scipy pyyaml example-robot-data``), with wbcpy on ``PYTHONPATH`` (its compiled
kernels built by the main venv's editable install). A peer that is not installed raises ImportError from
its ``setup()``.

Run ``python benchmarks/_peers.py [--repeat N]`` to time every installed peer (median and p95 per step).
"""

from __future__ import annotations

import argparse
import importlib
import math
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pinocchio as pin

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from wbcpy import load_robot
from wbcpy.robots import example_robot_data_dir

__all__ = [
    "PinkPandaReach",
    "PlacoTalosStanding",
    "PlacoTalosWalk",
    "TsidPandaReach",
    "TsidTalosStanding",
    "com_target",
    "import_tsid",
    "panda_start",
    "placo_talos_urdf",
    "talos_start",
]

DT = 1e-3
# Talos standing (issue 10): shared with the wbcpy side
SOLES = ("left_sole_link", "right_sole_link")
SOLE_HALF_SIZE = (0.1, 0.065)  # m
MU = 0.3
FZ_MAX = 1e4  # N (TSID needs a finite bound; far above Talos's weight, never active)
COM_KP, COM_KD = 100.0, 20.0
POSTURE_KP, POSTURE_KD = 10.0, 2.0 * math.sqrt(10.0)
FOOT_KP, FOOT_KD = 100.0, 20.0
WEIGHTS = {"com": 1.0, "posture": 1e-3, "foot": 1.0}
COM_AMPLITUDE, COM_FREQUENCY = 0.02, 0.5  # m, Hz: the COM sways sideways, from rest
# Panda reach (issue 11)
PANDA_Q0 = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785, 0.02, 0.02])
PANDA_EE = "panda_hand"
PANDA_OFFSET = np.array([0.10, -0.15, 0.10])  # target = start position + offset (base axes), same rotation
EE_KP, EE_KD = 100.0, 20.0
PANDA_POSTURE_KP, PANDA_POSTURE_KD = 10.0, 6.3


def import_tsid() -> ModuleType:
    """TSID's bindings (the 1.7.1 wheel nests them: ``tsid.tsid_pywrap``); Pinocchio is imported first.

    Raises:
        ImportError: TSID is not installed.
    """
    module = importlib.import_module("tsid")
    if hasattr(module, "Contact6d"):
        return module
    return importlib.import_module("tsid.tsid_pywrap")


def talos_start() -> tuple[Any, np.ndarray]:
    """Talos (example-robot-data, free-flyer) and its SRDF ``half_sitting`` configuration."""
    root = example_robot_data_dir()
    if root is None:
        raise ImportError("example-robot-data is not installed")
    robot = load_robot("talos")
    pin.loadReferenceConfigurations(robot.model, str(root / "talos_data" / "srdf" / "talos.srdf"), False)
    return robot, robot.model.referenceConfigurations["half_sitting"].copy()


def panda_start() -> tuple[Any, np.ndarray]:
    """Panda (example-robot-data, fixed base, 9 DOF with the fingers) and its start configuration."""
    if example_robot_data_dir() is None:
        raise ImportError("example-robot-data is not installed")
    return load_robot("panda", mimic=False), PANDA_Q0.copy()  # (the peers' Panda: independent fingers)


def com_target(t: float, com0: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """COM position, velocity and acceleration of the sway (world axes): y = A (1 − cos 2π f t), which
    starts at rest."""
    w = 2.0 * math.pi * COM_FREQUENCY
    s, c = math.sin(w * t), math.cos(w * t)
    return (
        com0 + np.array([0.0, COM_AMPLITUDE * (1.0 - c), 0.0]),
        np.array([0.0, COM_AMPLITUDE * w * s, 0.0]),
        np.array([0.0, COM_AMPLITUDE * w * w * c, 0.0]),
    )


def _tsid_formulation(owner: Any, model: pin.Model, q0: np.ndarray, floating: bool) -> tuple[Any, Any]:
    """TSID's robot wrapper and formulation on ``model`` with problem data at (q0, 0), stored on
    ``owner`` (``robot``, ``formulation``; ``_alive`` keeps the tasks TSID only references)."""
    tsid = import_tsid()
    kind = tsid.FLOATING_BASE_SYSTEM if floating else tsid.FIXED_BASE_SYSTEM
    robot = owner.robot = tsid.RobotWrapper(model, kind, False)
    owner._alive = []
    form = owner.formulation = tsid.InverseDynamicsFormulationAccForce("tsid", robot, False)
    form.computeProblemData(0.0, q0, np.zeros(model.nv))
    return tsid, form.data()


class _Replay:
    """Records the states of a closed-loop run and hands them out cyclically."""

    def __init__(self, n_states: int = 500) -> None:
        self.n_states = int(n_states)
        self.states: list[tuple[float, np.ndarray, np.ndarray]] = []
        self._k = 0

    def _record(self, model: pin.Model, q: np.ndarray, v: np.ndarray, control) -> None:
        """Run ``control(t, q, v) -> q̈`` in closed loop (semi-implicit Euler) and keep every state."""
        for k in range(self.n_states):
            t = k * DT
            self.states.append((t, q.copy(), v.copy()))
            qdd = control(t, q, v)
            v = v + qdd * DT
            q = pin.integrate(model, q, v * DT)
        self._k = 0

    def _next(self) -> tuple[float, np.ndarray, np.ndarray]:
        state = self.states[self._k]
        self._k = (self._k + 1) % self.n_states
        return state


# ------------------------------------------------------------------------------------------- TSID
class TsidTalosStanding(_Replay):
    """TSID's ``InverseDynamicsFormulationAccForce`` on Talos standing (see the module docstring).

    Args:
        feet_tasks: add an SE3 task per sole (TSID's biped exercise, issue 11's "TSID standing").
        force_regularization: weight of each Contact6d's force regularisation task (TSID's exercises
            use 1e-5); 0 leaves only the solver's 1e-8 Hessian regularisation.
        n_states: closed-loop steps recorded by :meth:`setup`.

    Attributes (after a step): ``qdd`` (nv), ``tau`` (actuated), ``forces`` (TSID's corner forces, 24).
    """

    name = "TSID Talos standing"

    def __init__(self, feet_tasks: bool = False, force_regularization: float = 1e-5, n_states: int = 500):
        super().__init__(n_states)
        self.feet_tasks = feet_tasks
        self.force_regularization = float(force_regularization)
        if feet_tasks:
            self.name = "TSID Talos standing + feet tasks"

    def setup(self) -> None:
        self.wbc_robot, q0 = talos_start()
        model = self.model = self.wbc_robot.model
        tsid, data = _tsid_formulation(self, model, q0, floating=True)
        robot, form = self.robot, self.formulation
        X, Y = SOLE_HALF_SIZE
        corners = np.array([[X, X, -X, -X], [Y, -Y, Y, -Y], [0.0, 0.0, 0.0, 0.0]])
        self.contacts = []
        for frame in SOLES:
            contact = tsid.Contact6d(
                f"contact_{frame}", robot, frame, corners, np.array([0.0, 0.0, 1.0]), MU, 0.0, FZ_MAX
            )
            contact.setKp(np.zeros(6))  # J q̈ + a_c = 0 exactly, as the scene's hard constraint
            contact.setKd(np.zeros(6))
            contact.setReference(robot.framePosition(data, model.getFrameId(frame)))
            form.addRigidContact(contact, self.force_regularization)
            self.contacts.append(contact)
        com = self.com_task = tsid.TaskComEquality("com", robot)
        com.setKp(COM_KP * np.ones(3))
        com.setKd(COM_KD * np.ones(3))
        form.addMotionTask(com, WEIGHTS["com"], 1, 0.0)
        posture = self.posture_task = tsid.TaskJointPosture("posture", robot)
        posture.setKp(POSTURE_KP * np.ones(robot.na))
        posture.setKd(POSTURE_KD * np.ones(robot.na))
        posture.setReference(tsid.TrajectoryEuclidianConstant("posture", q0[7:]).computeNext())
        form.addMotionTask(posture, WEIGHTS["posture"], 1, 0.0)
        if self.feet_tasks:
            for frame in SOLES:
                foot = tsid.TaskSE3Equality(f"foot_{frame}", robot, frame)
                foot.setKp(FOOT_KP * np.ones(6))
                foot.setKd(FOOT_KD * np.ones(6))
                placement = robot.framePosition(data, model.getFrameId(frame))
                foot.setReference(tsid.TrajectorySE3Constant(f"foot_{frame}", placement).computeNext())
                form.addMotionTask(foot, WEIGHTS["foot"], 1, 0.0)
                self._alive.append(foot)
        self.com0 = robot.com(data).copy()
        self.com_sample = tsid.TrajectoryEuclidianConstant("com", self.com0).computeNext()
        self.solver = tsid.SolverHQuadProgFast("qp")
        self.solver.resize(form.nVar, form.nEq, form.nIn)
        self._record(model, q0, np.zeros(model.nv), self._control)

    def _control(self, t: float, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        p, dp, ddp = com_target(t, self.com0)
        sample = self.com_sample
        sample.value(p)
        sample.derivative(dp)
        sample.second_derivative(ddp)
        self.com_task.setReference(sample)
        hqp = self.formulation.computeProblemData(t, q, v)
        sol = self.solver.solve(hqp)
        if sol.status != 0:
            raise RuntimeError(f"TSID solver status {sol.status}")
        self.sol = sol
        self.qdd = self.formulation.getAccelerations(sol)
        self.tau = self.formulation.getActuatorForces(sol)
        self.forces = self.formulation.getContactForces(sol)
        return self.qdd

    def step(self) -> None:
        """One control step at the next recorded state: COM reference, problem data, solve, outputs."""
        t, q, v = self._next()
        self._control(t, q, v)

    def wrenches(self) -> list[np.ndarray]:
        """Each sole's wrench (contact frame, about its origin) from TSID's corner forces."""
        return [
            c.getForceGeneratorMatrix @ self.forces[12 * i : 12 * i + 12] for i, c in enumerate(self.contacts)
        ]

    def desired_accelerations(self) -> tuple[np.ndarray, np.ndarray]:
        """The COM and posture acceleration references TSID's PD laws produced at the last step."""
        return self.com_task.getDesiredAcceleration.copy(), self.posture_task.getDesiredAcceleration.copy()


class TsidPandaReach(_Replay):
    """TSID on Panda (fixed base): ``panda_hand`` SE3 task + posture, joint bounds (hard).

    Attributes (after a step): ``qdd`` (nv), ``tau`` (nv).
    """

    name = "TSID Panda reach"

    def setup(self) -> None:
        self.wbc_robot, q0 = panda_start()
        model = self.model = self.wbc_robot.model
        tsid, data = _tsid_formulation(self, model, q0, floating=False)
        robot, form = self.robot, self.formulation
        ee = self.ee_task = tsid.TaskSE3Equality("ee", robot, PANDA_EE)
        ee.setKp(EE_KP * np.ones(6))
        ee.setKd(EE_KD * np.ones(6))
        start = robot.framePosition(data, model.getFrameId(PANDA_EE))
        target = pin.SE3(start.rotation, start.translation + PANDA_OFFSET)
        ee.setReference(tsid.TrajectorySE3Constant("ee", target).computeNext())
        form.addMotionTask(ee, 1.0, 1, 0.0)
        posture = tsid.TaskJointPosture("posture", robot)
        posture.setKp(PANDA_POSTURE_KP * np.ones(robot.na))
        posture.setKd(PANDA_POSTURE_KD * np.ones(robot.na))
        posture.setReference(tsid.TrajectoryEuclidianConstant("posture", q0).computeNext())
        form.addMotionTask(posture, 1e-3, 1, 0.0)
        self._alive.append(posture)
        bounds = tsid.TaskJointPosVelAccBounds("bounds", robot, DT, False)
        bounds.setPositionBounds(model.lowerPositionLimit, model.upperPositionLimit)
        bounds.setVelocityBounds(model.velocityLimit)
        bounds.setAccelerationBounds(10.0 * model.velocityLimit)  # wbcpy's default a_max
        bounds.setImposeBounds(True, True, True, True)
        form.addMotionTask(bounds, 1.0, 0, 0.0)
        self._alive.append(bounds)
        self.solver = tsid.SolverHQuadProgFast("qp")
        self.solver.resize(form.nVar, form.nEq, form.nIn)
        self._record(model, q0, np.zeros(model.nv), self._control)

    def _control(self, t: float, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        hqp = self.formulation.computeProblemData(t, q, v)
        sol = self.solver.solve(hqp)
        if sol.status != 0:
            raise RuntimeError(f"TSID solver status {sol.status}")
        self.qdd = self.formulation.getAccelerations(sol)
        self.tau = self.formulation.getActuatorForces(sol)
        return self.qdd

    def step(self) -> None:
        """One control step at the next recorded state: problem data (PD inside the tasks), solve."""
        t, q, v = self._next()
        self._control(t, q, v)


# ------------------------------------------------------------------------------------------- pink
class PinkPandaReach(_Replay):
    """pink differential IK on Panda: FrameTask + PostureTask (cost 1e-3), pink's default limits, daqp.

    Attributes (after a step): ``velocity`` (nv).
    """

    name = "pink Panda reach [daqp]"

    def __init__(self, solver: str = "daqp", n_states: int = 500) -> None:
        super().__init__(n_states)
        self.solver = solver
        self.name = f"pink Panda reach [{solver}]"

    def setup(self) -> None:
        import pink
        from pink.tasks import FrameTask, PostureTask

        self._pink = pink
        self.wbc_robot, q0 = panda_start()
        model = self.model = self.wbc_robot.model
        config = self.config = pink.Configuration(model, model.createData(), q0)
        ee = FrameTask(PANDA_EE, position_cost=1.0, orientation_cost=1.0)
        start = config.get_transform_frame_to_world(PANDA_EE)
        ee.set_target(pin.SE3(start.rotation, start.translation + PANDA_OFFSET))
        posture = PostureTask(cost=1e-3)
        posture.set_target(q0)
        self.tasks = [ee, posture]
        self._record_ik(model, q0)

    def _record_ik(self, model: pin.Model, q: np.ndarray) -> None:
        for k in range(self.n_states):
            self.states.append((k * DT, q.copy(), np.zeros(model.nv)))
            self.config.update(q)
            velocity = self._pink.solve_ik(self.config, self.tasks, DT, solver=self.solver)
            q = pin.integrate(model, q, velocity * DT)

    def step(self) -> None:
        """One IK step at the next recorded configuration: ``Configuration.update`` + ``solve_ik``."""
        _, q, _ = self._next()
        self.config.update(q)
        self.velocity = self._pink.solve_ik(self.config, self.tasks, DT, solver=self.solver)


# ------------------------------------------------------------------------------------------- PlaCo
#: frames PlaCo's HumanoidRobot needs, added to Talos's URDF: (new link, the link it is fixed to)
PLACO_FRAMES = (("left_foot", "left_sole_link"), ("right_foot", "right_sole_link"), ("trunk", "torso_2_link"))


def placo_talos_urdf() -> str:
    """Talos's URDF text for PlaCo: without visual and collision elements (PlaCo would load their meshes),
    with the frames its HumanoidRobot needs (:data:`PLACO_FRAMES`, fixed at the soles and the torso)."""
    import re

    robot, _ = talos_start()
    text = re.sub(r"<(visual|collision)\b.*?</\1>", "", Path(robot.source).read_text(), flags=re.S)
    extra = "".join(
        f'<link name="{name}"/><joint name="{name}_fixed" type="fixed"><parent link="{parent}"/>'
        f'<child link="{name}"/><origin xyz="0 0 0" rpy="0 0 0"/></joint>'
        for name, parent in PLACO_FRAMES
    )
    return text.replace("</robot>", f"{extra}</robot>")


def _placo_robot(kind: str = "RobotWrapper") -> tuple[Any, Any, np.ndarray]:
    """(placo module, a PlaCo robot of Talos at half_sitting, q0); its joints in wbcpy's order."""
    placo = importlib.import_module("placo")
    wbc_robot, q0 = talos_start()
    robot = getattr(placo, kind)("", 0, placo_talos_urdf())
    names = [n for n in robot.model.names if n != "universe"]
    if names != [n for n in wbc_robot.model.names if n != "universe"]:
        raise ImportError("PlaCo's Talos model orders its joints differently from wbcpy's")
    robot.state.q = q0.copy()
    robot.state.qd = np.zeros(robot.model.nv)
    robot.update_kinematics()
    return placo, robot, q0


class PlacoTalosStanding(_Replay):
    """PlaCo's DynamicsSolver on Talos standing (see the module docstring).

    Args:
        torque_cost: PlaCo's soft cost on the actuated torques (None: its default, 1e-3).
        n_states: closed-loop steps recorded by :meth:`setup`.

    Attributes (after a step): ``qdd`` (nv), ``tau`` (actuated).
    """

    name = "PlaCo DynamicsSolver Talos standing"

    def __init__(self, torque_cost: float | None = None, n_states: int = 500) -> None:
        super().__init__(n_states)
        self.torque_cost = torque_cost
        if torque_cost is not None:
            self.name = f"PlaCo DynamicsSolver Talos standing (torque cost {torque_cost:g})"

    def setup(self) -> None:
        placo, robot, q0 = _placo_robot()
        self.wbc_robot, self.robot = talos_start()[0], robot
        self.model = self.wbc_robot.model
        solver = self.solver = placo.DynamicsSolver(robot)
        solver.dt = DT
        if self.torque_cost is not None:
            solver.torque_cost = self.torque_cost
        self.com0 = robot.com_world().copy()
        com = self.com_task = solver.add_com_task(self.com0)
        com.configure("com", "soft", WEIGHTS["com"])
        com.kp, com.kd = COM_KP, COM_KD
        self.posture_target = q0[7:].copy()
        joints = [n for n in self.model.names[2:]]
        posture = self.posture_task = solver.add_joints_task()
        posture.set_joints({n: float(q) for n, q in zip(joints, self.posture_target, strict=True)})
        posture.configure("posture", "soft", WEIGHTS["posture"])
        posture.kp, posture.kd = POSTURE_KP, POSTURE_KD
        X, Y = SOLE_HALF_SIZE
        self.contacts, self._alive = [], []
        for frame in SOLES:
            foot = solver.add_frame_task(frame, robot.get_T_world_frame(frame))
            foot.configure(frame, "hard", 1.0, 1.0)
            contact = solver.add_planar_contact(foot)
            contact.length, contact.width, contact.mu = 2 * X, 2 * Y, MU
            self.contacts.append(contact)
            self._alive.append(foot)
        self._data = self.model.createData()
        self._record(self.model, q0, np.zeros(self.model.nv), self._control)

    def _control(self, t: float, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        robot = self.robot
        robot.state.q, robot.state.qd = q, v
        robot.update_kinematics()
        p, dp, ddp = com_target(t, self.com0)
        task = self.com_task
        task.target_world, task.dtarget_world, task.ddtarget_world = p, dp, ddp
        result = self.solver.solve(False)
        if not result.success:
            raise RuntimeError("PlaCo's DynamicsSolver failed")
        self.qdd, self.tau = result.qdd, result.tau[6:]
        return np.array(result.qdd)

    def step(self) -> None:
        """One control step at the next recorded state: COM target, kinematics, solve (q̈, τ)."""
        t, q, v = self._next()
        self._control(t, q, v)

    def desired_accelerations(self) -> tuple[np.ndarray, np.ndarray]:
        """The COM and posture accelerations PlaCo's PD tasks ask at the last state (the same laws as
        TSID's and wbcpy's: kp e + kd ė + feed-forward), evaluated with raw Pinocchio."""
        t, q, v = self.states[(self._k - 1) % self.n_states]
        p, dp, ddp = com_target(t, self.com0)
        com = pin.centerOfMass(self.model, self._data, q, v)
        vcom = self._data.vcom[0]
        posture = POSTURE_KP * (self.posture_target - q[7:]) - POSTURE_KD * v[6:]
        return ddp + COM_KD * (dp - vcom) + COM_KP * (p - com), posture

    def wrenches(self) -> list[np.ndarray]:
        """Each sole's wrench of the last step (its frame, about its origin, force over torque)."""
        return [np.array(c.wrench, dtype=float) for c in self.contacts]


class PlacoTalosWalk:
    """PlaCo's kinematic walk on Talos (see the module docstring): ``steps`` footsteps of ``length`` m,
    single support 0.6 s and double support 0.2 s (wbcpy's WalkingPattern's 0.8 s steps), COM height of
    half_sitting; the walk restarts from its first state when it ends."""

    name = "PlaCo walk step (WalkPatternGenerator + KinematicsSolver)"

    def __init__(self, steps: int = 3, length: float = 0.2, dt: float = 0.005) -> None:
        self.n_steps, self.length, self.dt = steps, length, dt

    def setup(self) -> None:
        placo, robot, _ = _placo_robot("HumanoidRobot")
        self.robot = robot
        params = placo.HumanoidParameters()
        params.single_support_duration = 0.6
        params.single_support_timesteps = 10
        params.double_support_ratio = 0.2 / 0.6
        params.startend_double_support_ratio = 1.5
        params.planned_timesteps = 48
        sole = robot.get_T_world_frame("left_foot")[:3, 3]
        params.walk_com_height = float(robot.com_world()[2] - sole[2])
        params.walk_foot_height = 0.05
        params.walk_trunk_pitch = 0.0
        params.walk_foot_rise_ratio = 0.2
        params.foot_length, params.foot_width = 2 * SOLE_HALF_SIZE[0], 2 * SOLE_HALF_SIZE[1]
        params.feet_spacing = float(abs(sole[1] - robot.get_T_world_frame("right_foot")[1, 3]))
        params.zmp_margin = 0.02
        params.walk_max_dx_forward = max(0.08, self.length)
        solver = self.solver = placo.KinematicsSolver(robot)
        solver.enable_velocity_limits(True)
        solver.dt = self.dt
        tasks = self.tasks = placo.WalkTasks()
        tasks.initialize_tasks(solver, robot)
        upper = [n for n in robot.joint_names() if n.startswith(("arm_", "head_", "gripper_"))]
        joints = self.joints_task = solver.add_joints_task()
        joints.set_joints({n: robot.get_joint(n) for n in upper})
        joints.configure("joints", "soft", 1.0)
        planner = placo.FootstepsPlannerRepetitive(params)
        planner.configure(self.length, 0.0, 0.0, self.n_steps)
        left = placo.flatten_on_floor(robot.get_T_world_left())
        right = placo.flatten_on_floor(robot.get_T_world_right())
        footsteps = planner.plan(placo.HumanoidRobot_Side.left, left, right)
        double = params.has_double_support()
        supports = placo.FootstepsPlanner.make_supports(footsteps, 0.0, True, double, True)
        self.walk = placo.WalkPatternGenerator(robot, params)
        self.trajectory = self.walk.plan(supports, robot.com_world(), 0.0)
        self.q_start = np.array(robot.state.q)
        self.t = 0.0

    def step(self) -> None:
        """One walk step: tasks from the plan at t, kinematics, solve and integrate, support update."""
        robot, trajectory, t = self.robot, self.trajectory, self.t
        self.tasks.update_tasks_from_trajectory(trajectory, t)
        robot.update_kinematics()
        self.solver.solve(True)
        if not trajectory.support_is_both(t):
            robot.update_support_side(str(trajectory.support_side(t)))
            robot.ensure_on_floor()
        self.t = t + self.dt
        if self.t > trajectory.t_end:  # the walk again from its first state
            robot.state.q = self.q_start.copy()
            robot.state.qd = np.zeros(robot.model.nv)
            self.t = 0.0


def all_peers() -> list[Any]:
    """Every peer of this module, default settings."""
    return [
        TsidTalosStanding(),
        TsidTalosStanding(feet_tasks=True),
        TsidPandaReach(),
        PinkPandaReach(),
        PlacoTalosStanding(),
        PlacoTalosWalk(),
    ]


def main(argv: list[str] | None = None) -> None:
    """Time every installed peer: median and p95 of one step (µs), interleaved in one process."""
    from _timing import measure_interleaved

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3000, help="samples per peer (default 3000)")
    args = parser.parse_args(argv)
    peers = []
    for peer in all_peers():
        try:
            peer.setup()
        except ImportError as exc:
            print(f"{peer.name}: skipped ({exc})", file=sys.stderr)
            continue
        peers.append(peer)
    timings = measure_interleaved([p.step for p in peers], n_repeat=args.repeat)
    print(f"peer control steps, {args.repeat} samples each, interleaved (pin {pin.__version__})")
    width = max(len(p.name) for p in peers)
    print(f"{'case'.ljust(width)}  median µs  p95 µs")
    for peer, t in zip(peers, timings, strict=True):
        print(f"{peer.name.ljust(width)}  {t.median_us:9.1f}  {t.p95_us:6.1f}")


if __name__ == "__main__":
    main()
