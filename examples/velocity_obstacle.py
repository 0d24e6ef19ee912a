"""Differential IK around an obstacle: the Panda's hand moves 50 cm sideways past a ball in its way.

A VelocityScene with strict priorities: the hand pose (priority 0, a velocity law towards the goal) and
a posture (priority 1, in the redundancy left). The ball sits on the hand's straight start–goal line; the
collision avoidance (the ball against every link, plus the Panda's self-collision pairs without the
SRDF's disabled ones) adds, for every pair closer than 15 cm, the velocity-damper row
n·(J_b − J_a) q̇ ≥ −γ (d − d_s)/dt: the hand goes around the ball and still reaches its goal. Every step:

    velocity references -> scene.update() -> scene.solve() -> q ← q ⊕ q̇ dt (pin.integrate)

Run:  python examples/velocity_obstacle.py [--steps N] [--solver NAME] [--html FILE.html]
(the same scene as a file: ``wbcpy scene examples/velocity_obstacle.yaml``)
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pinocchio as pin

from wbcpy import VelocityScene, load_robot
from wbcpy.collision import CollisionAvoidance, Obstacle, Sphere
from wbcpy.controllers import CartesianVelocityLaw, JointVelocityLaw
from wbcpy.tasks import TaskConfig

Q0 = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785, 0.02])  # Panda "ready" (finger 2 mimics finger 1)
DT = 0.01
SHIFT = np.array([0.0, 0.5, 0.0])  # hand goal: 50 cm to the left of its start (world axes)
BALL_RADIUS = 0.06
SAFETY = 0.02


def main(steps: int = 400, solver: str | None = None, verbose: bool = True, html: str | None = None) -> dict:
    """Run the reach; returns the final errors, the path, the ball, the closest distance and timings."""
    robot = load_robot("panda")
    scene = VelocityScene(robot, solver=solver, dt=DT)
    scene.configure(
        [
            TaskConfig(name="hand", type="cart", tip="panda_hand", priority=0),
            TaskConfig(name="posture", type="jnt", joint_names=robot.joint_names, priority=1),
        ]
    )
    robot.update(Q0)
    hand, posture = scene.get_task("hand"), scene.get_task("posture")
    start = hand.pose()  # the hand in the base frame (= the world frame here)
    goal = pin.SE3(start.rotation, start.translation + SHIFT)
    centre = start.translation + 0.5 * SHIFT + np.array([0.0, 0.0, 0.01])  # 1 cm above the straight line
    ball = Obstacle("ball", Sphere(BALL_RADIUS), pin.SE3(np.eye(3), centre))
    scene.set_collision_avoidance(
        CollisionAvoidance(pairs="self", obstacles=[ball], safety_distance=SAFETY, influence_distance=0.15)
    )
    hand_law, posture_law = CartesianVelocityLaw(kp=4.0), JointVelocityLaw(kp=2.0)
    q, path, closest, timings = Q0.copy(), [Q0.copy()], np.inf, []
    for _ in range(steps):
        robot.update(q)
        scene.set_reference("hand", hand_law.reference(hand, goal))
        scene.set_reference("posture", posture_law.reference(posture, Q0))
        t0 = time.perf_counter()
        qdot = scene.solve(scene.update()).velocity
        timings.append(time.perf_counter() - t0)
        closest = min(closest, float(scene.collision.distances().min()))
        q = pin.integrate(robot.model, q, qdot * DT)
        path.append(q.copy())
    robot.update(q)
    pose = hand.pose()
    result = {
        "position_error": float(np.linalg.norm(goal.translation - pose.translation)),
        "rotation_error": float(np.linalg.norm(pin.log3(goal.rotation @ pose.rotation.T))),
        "closest_distance": closest,
        "q_path": np.array(path),
        "ball": ball,
        "start": start,
        "goal": goal,
        "median_us": 1e6 * float(np.median(timings)),
        "status": scene.update_tasks_status(),
    }
    if verbose:
        print(f"{steps} steps of {DT} s with {scene.solver.name}, {scene.collision.n_pairs} collision pairs")
        print(result["status"])
        pos, rot = result["position_error"], result["rotation_error"]
        print(f"hand: position error {pos:.3g} m, rotation error {rot:.3g} rad")
        print(f"closest pair distance on the way: {closest:.4f} m (safety distance {SAFETY} m)")
        print(f"update()+solve(): median {result['median_us']:.0f} µs per step")
    if html:
        from wbcpy.viz import write_animation

        times = DT * np.arange(len(path))
        out = write_animation(robot, times, result["q_path"], html, trace_frames=["panda_hand"],
                              targets=[goal.translation], obstacles=[ball])  # fmt: skip
        print(f"animation written to {out}")
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--solver", default=None)
    parser.add_argument("--html", default=None, help="write an HTML animation (viz extra)")
    args = parser.parse_args()
    main(args.steps, args.solver, html=args.html)
