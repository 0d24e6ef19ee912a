"""Peers of ``wbcpy bench``, measured when installed: pink (differential IK) and TSID (inverse dynamics).

Each function builds the peer as its users write it, for the same robot, state and task set as wbcpy's
case, and returns ``({name: one call}, note)``: an empty dict and the reason when the peer is not
installed or cannot run here (the bench goes on without it).

* pink: ``Configuration.update(q)`` + ``solve_ik(config, [FrameTask(cost 1, 1), PostureTask(cost 1e-3)],
  dt, solver="daqp")`` — the differential-IK step a velocity or acceleration scene replaces.
* TSID: Talos on both soles as ``benchmarks/_peers.py`` sets it up (``InverseDynamicsFormulationAccForce``,
  two ``Contact6d`` with μ = 0.3, COM task weight 1 + posture weight 1e-3, ``SolverHQuadProgFast``): one
  step is ``computeProblemData`` + ``solve`` + the outputs (q̈, τ, contact forces).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import pinocchio as pin

from ..model.robot_model import RobotModel

__all__ = ["pink_step", "tsid_talos_step"]

Peers = tuple[dict[str, Callable[[], object]], str]


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
