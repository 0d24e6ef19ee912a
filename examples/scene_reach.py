"""Reaching with an AccelerationScene on the shipped 7-DOF arm — the Python twin of scene_reach.yaml.

A Cartesian task (flange relative to the base, priority 0) is driven by a PD law towards a pose 20 cm
away; a posture task (priority 1) uses the remaining redundancy. Every control step:

    PD references -> scene.update() -> scene.solve() -> integrate q̈ (semi-implicit Euler)

Run:  python examples/scene_reach.py [--steps N] [--solver NAME]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
import pinocchio as pin

from wbcpy import AccelerationScene, load_robot
from wbcpy.controllers import CartesianPD, JointPD
from wbcpy.tasks import TaskConfig

Q0 = np.array([0.3, 0.6, -0.2, -1.2, 0.3, 0.8, 0.1])


def main(steps: int = 3000, solver: str | None = None, dt: float = 0.001, verbose: bool = True) -> dict:
    """Run the reach; returns the final errors, the status and the median update()+solve() time."""
    robot = load_robot("lwr4")
    scene = AccelerationScene(robot, solver=solver, dt=dt, joint_limits=True)
    scene.configure(
        [
            TaskConfig(name="ee", type="cart", tip="lwr_ee", priority=0),
            TaskConfig(name="posture", type="jnt", joint_names=robot.joint_names, priority=1),
        ]
    )
    q, v = Q0.copy(), np.zeros(robot.nv)
    robot.update(q, v)
    ee, posture = scene.get_task("ee"), scene.get_task("posture")
    start = ee.pose()  # flange in the base frame
    target = pin.SE3(pin.rpy.rpyToMatrix(-2.6, -0.3, 2.7), start.translation + np.array([0.10, -0.15, 0.10]))
    ee_pd = CartesianPD(kp=100.0, kd=20.0)
    posture_pd = JointPD(kp=10.0, kd=6.3)
    timings = []
    for _ in range(steps):
        scene.set_reference("ee", ee_pd.reference(ee, target))
        scene.set_reference("posture", posture_pd.reference(posture, Q0))
        t0 = time.perf_counter()
        scene.solve(scene.update())
        timings.append(time.perf_counter() - t0)
        qdd = scene.get_solver_output_raw()
        v = v + qdd * dt  # semi-implicit Euler
        q = pin.integrate(robot.model, q, v * dt)
        robot.update(q, v, qdd)
    pose = ee.pose()
    result = {
        "position_error": float(np.linalg.norm(target.translation - pose.translation)),
        "rotation_error": float(np.linalg.norm(pin.log3(target.rotation @ pose.rotation.T))),
        "median_us": 1e6 * float(np.median(timings)) if timings else math.nan,
        "status": scene.update_tasks_status(),
    }
    if verbose:
        print(f"{steps} steps of {dt} s with {scene.solver.name}")
        print(result["status"])
        pos, rot = result["position_error"], result["rotation_error"]
        print(f"position error {pos:.3g} m, rotation error {rot:.3g} rad")
        print(f"update()+solve(): median {result['median_us']:.1f} µs per step")
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--solver", default=None)
    args = parser.parse_args()
    main(args.steps, args.solver)
