"""Peer controllers (TSID 1.7.1, pink) set up as their users write them, shared by the benchmarks.

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

TSID and pink are not wbcpy dependencies: install them in a benchmark venv
(``pip install tsid==1.7.1 "pin==3.4.0" "cmeel-urdfdom<5" "cmeel-tinyxml2<11" pin-pink quadprog`` then
``pip install -e .``). A peer that is not installed raises ImportError from its ``setup()``.

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
    "TsidPandaReach",
    "TsidTalosStanding",
    "com_target",
    "import_tsid",
    "panda_start",
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


def all_peers() -> list[Any]:
    """Every peer of this module, default settings."""
    return [
        TsidTalosStanding(),
        TsidTalosStanding(feet_tasks=True),
        TsidPandaReach(),
        PinkPandaReach(),
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
