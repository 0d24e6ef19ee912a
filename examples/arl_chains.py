"""The bimanual robot as AUTh-ARL-style kinematic chains.

Loads ``robots/bimanual_chains.yaml`` (main chains torso, left_arm, right_arm; extra chains base → each arm
link), prints the chain table, then moves the left arm with KDL-style solvers: FK by ``fk_solver``, a
Jacobian-transpose step by ``jac_solver`` towards a point 5 cm away, and the global indices that put the
chain's joints into the robot's joint vector.

Run:  python examples/arl_chains.py
"""

from __future__ import annotations

import numpy as np

from wbcpy import arl
from wbcpy.reporting import model_chain_table
from wbcpy.robots import shipped_robots_dir


def main() -> float:
    """Print the chains; return the final distance (m) of the left hand to its target."""
    robot = arl.Model.from_config(shipped_robots_dir() / "bimanual_chains.yaml")
    print(model_chain_table(robot))
    left = robot.chain_index["left_arm"]
    q_all = np.zeros(robot.get_nr_of_joints())  # one value per main-chain joint, in global order
    idx = [robot.get_global_index(left, j) for j in range(robot.get_nr_of_joints(left))]
    q = np.array([0.2, -0.4, 0.3, -1.2, 0.1, 0.6, 0.0])
    start = robot.fk_solver[left].JntToCart(q).translation
    target = start + np.array([0.05, 0.0, -0.03])
    for _ in range(200):  # damped Jacobian steps on the position rows, inside the joint limits
        error = target - robot.fk_solver[left].JntToCart(q).translation
        J = robot.jac_solver[left].JntToJac(q)[:3]
        q = q + J.T @ np.linalg.solve(J @ J.T + 1e-4 * np.eye(3), error)
        q = np.clip(q, *robot.get_joint_limits(left).T)
    q_all[idx] = q
    distance = float(np.linalg.norm(target - robot.fk_solver[left].JntToCart(q).translation))
    print(f"left hand moved to {target.round(4)} (error {distance:.2e} m); global indices {idx}")
    print("robot joint vector:", q_all.round(3))
    return distance


if __name__ == "__main__":
    main()
