"""VelocityScene next to pink (issue 16, acceptance point 6): the same Panda frame task + posture with the
same proportional gain converge to the same hand pose.

pink solves min Σ ‖J Δq + gain·e‖²_W (body-frame log₆ error, ``solve_ik``); the VelocityScene tracks the
twist K_p (Δp, log₃(R_d Rᵀ)) with K_p = gain/dt, so both close the same fraction ``gain`` of the error per
step. The steps each needs (1 mm, 1 mrad) are printed by ``benchmarks/bench_velocity.py``.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

from wbcpy import VelocityScene
from wbcpy.controllers import CartesianVelocityLaw, JointVelocityLaw
from wbcpy.tasks import TaskConfig

pink = pytest.importorskip("pink", reason="pin-pink is not installed (a test dependency)")

DT, HAND, POSTURE_COST = 0.01, "panda_hand", 1e-3
PANDA_Q = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785, 0.02, 0.02])
GOAL_Q = PANDA_Q + np.array([0.3, -0.2, 0.2, 0.3, -0.2, 0.3, 0.2, 0.0, 0.0])


def _errors(current: pin.SE3, goal: pin.SE3) -> tuple[float, float]:
    return (
        float(np.linalg.norm(goal.translation - current.translation)),
        float(np.linalg.norm(pin.log3(goal.rotation @ current.rotation.T))),
    )


def _goal(robot) -> pin.SE3:
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, GOAL_Q)
    return pin.SE3(data.oMf[robot.model.getFrameId(HAND)])


def _pink_run(robot, gain: float, steps: int) -> tuple[int | None, pin.SE3]:
    from pink.limits import ConfigurationLimit, VelocityLimit
    from pink.tasks import FrameTask, PostureTask

    model = robot.model
    config = pink.Configuration(model, model.createData(), PANDA_Q.copy())
    ee = FrameTask(HAND, position_cost=1.0, orientation_cost=1.0, gain=gain)
    posture = PostureTask(cost=POSTURE_COST)
    posture.set_target(PANDA_Q.copy())
    goal = _goal(robot)
    ee.set_target(goal)
    limits = [ConfigurationLimit(model, config_limit_gain=0.5), VelocityLimit(model)]
    converged = None
    for step in range(1, steps + 1):
        v = pink.solve_ik(config, [ee, posture], DT, solver="daqp", limits=limits)
        config.integrate_inplace(v, DT)
        pos, rot = _errors(config.get_transform_frame_to_world(HAND), goal)
        if converged is None and pos < 1e-3 and rot < 1e-3:
            converged = step
    return converged, pin.SE3(config.get_transform_frame_to_world(HAND))


def _wbcpy_run(robot, gain: float, steps: int) -> tuple[int | None, pin.SE3]:
    scene = VelocityScene(robot, solver="daqp", dt=DT, regularization=1e-12, limit_gain=0.5)
    scene.configure(
        [
            TaskConfig(name="ee", type="cart", tip=HAND),
            # wbcpy weights act on the squared residual, pink's costs on the residual: w = cost²
            TaskConfig(name="post", type="jnt", joint_names=robot.joint_names, weights=[POSTURE_COST**2] * 9),
        ]
    )
    ee, post = scene.get_task("ee"), scene.get_task("post")
    law, posture_law = (
        CartesianVelocityLaw(kp=gain / DT),
        JointVelocityLaw(kp=1.0 / DT),
    )  # pink's posture gain 1
    goal = _goal(robot)  # (the Panda's base frame is the world frame)
    q, converged = PANDA_Q.copy(), None
    for step in range(1, steps + 1):
        robot.update(q)
        scene.set_reference("ee", law.reference(ee, goal))
        scene.set_reference("post", posture_law.reference(post, PANDA_Q))
        q = pin.integrate(robot.model, q, scene.solve(scene.update()).velocity * DT)
        robot.update(q)
        pos, rot = _errors(ee.pose(), goal)
        if converged is None and pos < 1e-3 and rot < 1e-3:
            converged = step
    return converged, ee.pose()


@pytest.mark.parametrize("gain", [0.1, 0.5, 1.0])
def test_same_gain_same_target(example_robot, gain: float) -> None:
    robot = example_robot("panda", mimic=False)  # (pink's Panda: independent fingers, Pinocchio's default)
    steps = 120
    n_pink, pose_pink = _pink_run(robot, gain, steps)
    n_wbcpy, pose_wbcpy = _wbcpy_run(robot, gain, steps)
    goal = _goal(robot)
    assert n_pink is not None and n_wbcpy is not None, (n_pink, n_wbcpy)
    for pose in (pose_pink, pose_wbcpy):
        pos, rot = _errors(pose, goal)
        assert pos < 1e-4 and rot < 1e-4  # both end on the same target
    # the same proportional gain closes the same fraction of the error per step: similar step counts
    assert abs(n_wbcpy - n_pink) <= max(3, 0.25 * n_pink), (n_wbcpy, n_pink)
