"""Peers of ``wbcpy bench``, measured when installed: pink (differential IK), TSID (inverse dynamics) and
PlaCo (inverse dynamics, kinematic walk).

Each function builds the peer as its users write it, for the same robot, state and task set as wbcpy's
case, and returns ``({name: one call}, note)``: an empty dict and the reason when the peer is not
installed or cannot run here (the bench goes on without it).

* pink: ``Configuration.update(q)`` + ``solve_ik(config, [FrameTask(cost 1, 1), PostureTask(cost 1e-3)],
  dt, solver="daqp")`` — the differential-IK step a velocity or acceleration scene replaces.
* TSID: Talos on both soles as ``benchmarks/_peers.py`` sets it up (``InverseDynamicsFormulationAccForce``,
  two ``Contact6d`` with μ = 0.3, COM task weight 1 + posture weight 1e-3, ``SolverHQuadProgFast``): one
  step is ``computeProblemData`` + ``solve`` + the outputs (q̈, τ, contact forces).
* PlaCo 0.10.2 (it pins Pinocchio 3.8: a venv of its own, ``benchmarks/_peers.py``): its DynamicsSolver on
  the same Talos problem, and its kinematic walk (``WalkPatternGenerator`` + ``KinematicsSolver``).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pinocchio as pin

from ..model.robot_model import RobotModel

Peers = tuple[dict[str, Callable[[], object]], str]
#: Talos's soles
SOLES = ("left_sole_link", "right_sole_link")
_PLACO_MISSING = "PlaCo: not installed (a venv of its own: pip install placo==0.10.2; benchmarks/_peers.py)"


def pink_step(robot: RobotModel, frame: str, q: np.ndarray, target: pin.SE3) -> Peers:
    """pink's IK step on ``robot`` (a frame task to ``target`` + posture), or ``({}, why)``."""
    try:
        pink: Any = importlib.import_module("pink")
        tasks_module: Any = importlib.import_module("pink.tasks")
    except ImportError:
        return {}, "pink: not installed (pip install pin-pink)"
    model = robot.model
    config = pink.Configuration(model, model.createData(), q)
    ee = tasks_module.FrameTask(frame, position_cost=1.0, orientation_cost=1.0)
    ee.set_target(target)
    posture = tasks_module.PostureTask(cost=1e-3)
    posture.set_target(q)
    tasks = [ee, posture]

    def step() -> None:
        config.update(q)
        pink.solve_ik(config, tasks, 0.001, solver="daqp")

    return {"pink": step}, ""


def _import_tsid() -> ModuleType:
    """TSID's bindings (the 1.7.1 wheel nests them in ``tsid.tsid_pywrap``)."""
    module = importlib.import_module("tsid")
    return module if hasattr(module, "Contact6d") else importlib.import_module("tsid.tsid_pywrap")


def tsid_talos_step(robot: RobotModel, q0: np.ndarray, com_goal: np.ndarray) -> Peers:
    """TSID's step on Talos standing (see the module docstring), or ``({}, why)``."""
    try:
        tsid: Any = _import_tsid()
    except ImportError:
        return {}, "TSID: not installed (pip install tsid; see docs/benchmarks.md)"
    model = robot.model
    try:
        wrapper = tsid.RobotWrapper(model, tsid.FLOATING_BASE_SYSTEM, False)
        form = tsid.InverseDynamicsFormulationAccForce("tsid", wrapper, False)
        v0 = np.zeros(model.nv)
        form.computeProblemData(0.0, q0, v0)
        data = form.data()
        corners = np.array([[0.1, 0.1, -0.1, -0.1], [0.065, -0.065, 0.065, -0.065], [0.0] * 4])
        alive: list[Any] = []
        for frame in ("left_sole_link", "right_sole_link"):
            contact = tsid.Contact6d(
                f"contact_{frame}", wrapper, frame, corners, np.array([0.0, 0.0, 1.0]), 0.3, 0.0, 1e4
            )
            contact.setKp(np.zeros(6))
            contact.setKd(np.zeros(6))
            contact.setReference(wrapper.framePosition(data, model.getFrameId(frame)))
            form.addRigidContact(contact, 1e-5)
            alive.append(contact)
        com = tsid.TaskComEquality("com", wrapper)
        com.setKp(100.0 * np.ones(3))
        com.setKd(20.0 * np.ones(3))
        com.setReference(tsid.TrajectoryEuclidianConstant("com", com_goal).computeNext())
        form.addMotionTask(com, 1.0, 1, 0.0)
        posture = tsid.TaskJointPosture("posture", wrapper)
        posture.setKp(10.0 * np.ones(wrapper.na))
        posture.setKd(6.3 * np.ones(wrapper.na))
        posture.setReference(tsid.TrajectoryEuclidianConstant("posture", q0[7:]).computeNext())
        form.addMotionTask(posture, 1e-3, 1, 0.0)
        alive += [com, posture]
        solver = tsid.SolverHQuadProgFast("qp")
        solver.resize(form.nVar, form.nEq, form.nIn)
    except Exception as exc:  # a TSID that does not fit this Pinocchio: say so, go on
        return {}, f"TSID: cannot be set up here ({type(exc).__name__}: {exc})"

    def step() -> None:
        sol = solver.solve(form.computeProblemData(0.0, q0, v0))
        form.getAccelerations(sol), form.getActuatorForces(sol), form.getContactForces(sol)
        _ = alive  # TSID only references its tasks: keep them alive with the closure

    return {"TSID": step}, ""


def _placo_talos(robot: RobotModel, kind: str) -> Any:
    """PlaCo's model of ``robot`` (Talos) built from its URDF without meshes, with the frames PlaCo's
    HumanoidRobot needs (``left_foot``/``right_foot`` at the soles, ``trunk`` at the torso), at q0.

    Raises:
        ImportError: PlaCo is not installed. ValueError: its model orders the joints differently.
    """
    placo: Any = importlib.import_module("placo")
    text = re.sub(r"<(visual|collision)\b.*?</\1>", "", Path(str(robot.source)).read_text(), flags=re.S)
    extra = "".join(
        f'<link name="{name}"/><joint name="{name}_fixed" type="fixed"><parent link="{parent}"/>'
        f'<child link="{name}"/><origin xyz="0 0 0" rpy="0 0 0"/></joint>'
        for name, parent in (("left_foot", SOLES[0]), ("right_foot", SOLES[1]), ("trunk", "torso_2_link"))
    )
    model = getattr(placo, kind)("", 0, text.replace("</robot>", f"{extra}</robot>"))
    if list(model.model.names) != list(robot.model.names):
        raise ValueError("PlaCo's model orders the joints differently")
    return placo, model


def placo_talos_step(robot: RobotModel, q0: np.ndarray, com_goal: np.ndarray) -> Peers:
    """PlaCo's DynamicsSolver step on Talos standing (soft COM task weight 1 and joints task weight 1e-3
    with wbcpy's PD gains, planar contacts on both soles with hard frame tasks, μ = 0.3, its default torque
    cost): state, kinematics, ``solve`` — or ``({}, why)``."""
    try:
        placo, model = _placo_talos(robot, "RobotWrapper")
    except ImportError:
        return {}, _PLACO_MISSING
    except Exception as exc:  # a PlaCo that does not fit this Pinocchio: say so, go on
        return {}, f"PlaCo: cannot be set up here ({type(exc).__name__}: {exc})"
    v0 = np.zeros(robot.nv)
    model.state.q, model.state.qd = q0.copy(), v0
    model.update_kinematics()
    solver = placo.DynamicsSolver(model)
    solver.dt = 0.001
    com = solver.add_com_task(com_goal)
    com.configure("com", "soft", 1.0)
    com.kp, com.kd = 100.0, 20.0
    posture = solver.add_joints_task()
    posture.set_joints({n: float(x) for n, x in zip(robot.model.names[2:], q0[7:], strict=True)})
    posture.configure("posture", "soft", 1e-3)
    posture.kp, posture.kd = 10.0, 6.3
    alive = []
    for frame in SOLES:
        foot = solver.add_frame_task(frame, model.get_T_world_frame(frame))
        foot.configure(frame, "hard", 1.0, 1.0)
        contact = solver.add_planar_contact(foot)
        contact.length, contact.width, contact.mu = 0.2, 0.13, 0.3
        alive += [foot, contact]

    def step() -> None:
        model.state.q, model.state.qd = q0, v0
        model.update_kinematics()
        solver.solve(False)
        _ = alive  # (PlaCo's solver only references its tasks)

    return {"PlaCo": step}, ""


def placo_walk_step(robot: RobotModel, steps: int, length: float, dt: float) -> Peers:
    """PlaCo's kinematic walk step on Talos (``WalkPatternGenerator`` + ``KinematicsSolver`` through
    ``WalkTasks``, velocity limits; ``benchmarks/_peers.py``'s ``PlacoTalosWalk``), restarting at the
    end of the walk — or ``({}, why)``."""
    try:
        placo, model = _placo_talos(robot, "HumanoidRobot")
    except ImportError:
        return {}, _PLACO_MISSING
    except Exception as exc:
        return {}, f"PlaCo: cannot be set up here ({type(exc).__name__}: {exc})"
    q0 = robot.reference_configuration("half_sitting")
    model.state.q, model.state.qd = q0.copy(), np.zeros(robot.nv)
    model.update_kinematics()
    params = placo.HumanoidParameters()
    params.single_support_duration, params.single_support_timesteps = 0.6, 10
    params.double_support_ratio, params.startend_double_support_ratio = 0.2 / 0.6, 1.5
    sole = model.get_T_world_frame("left_foot")[:3, 3]
    params.walk_com_height = float(model.com_world()[2] - sole[2])
    params.walk_foot_height, params.walk_trunk_pitch = 0.05, 0.0
    params.foot_length, params.foot_width, params.zmp_margin = 0.2, 0.13, 0.02
    params.feet_spacing = float(abs(sole[1] - model.get_T_world_frame("right_foot")[1, 3]))
    params.walk_max_dx_forward = max(0.08, length)
    solver = placo.KinematicsSolver(model)
    solver.enable_velocity_limits(True)
    solver.dt = dt
    tasks = placo.WalkTasks()
    tasks.initialize_tasks(solver, model)
    planner = placo.FootstepsPlannerRepetitive(params)
    planner.configure(length, 0.0, 0.0, steps)
    left, right = (placo.flatten_on_floor(T) for T in (model.get_T_world_left(), model.get_T_world_right()))
    footsteps = planner.plan(placo.HumanoidRobot_Side.left, left, right)
    supports = placo.FootstepsPlanner.make_supports(footsteps, 0.0, True, params.has_double_support(), True)
    walk = placo.WalkPatternGenerator(model, params)
    trajectory = walk.plan(supports, model.com_world(), 0.0)
    start = np.array(model.state.q)
    clock = [0.0]

    def step() -> None:
        t = clock[0]
        tasks.update_tasks_from_trajectory(trajectory, t)
        model.update_kinematics()
        solver.solve(True)
        if not trajectory.support_is_both(t):
            model.update_support_side(str(trajectory.support_side(t)))
            model.ensure_on_floor()
        clock[0] = t + dt
        if clock[0] > trajectory.t_end:
            model.state.q, model.state.qd, clock[0] = start.copy(), np.zeros(robot.nv), 0.0
        _ = (walk, planner)  # (kept alive with the closure)

    return {"PlaCo": step}, ""
