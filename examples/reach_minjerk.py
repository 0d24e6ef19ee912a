"""Minimum-jerk reaching with the multi-referential controller (iCub iKin semantics) on the shipped lwr4 arm.

The controller blends a joint-space and a task-space min-jerk controller; the joint target comes from its
damped least-squares IK because ``qd`` is not given. The arm turns left and reaches down, the tool keeping
its orientation relative to the turning arm. The same run from the command line:
``wbcpy reach lwr4 --q0 0 -0.5 0 1.3 0 -0.7 0 --target 0.35 0.25 0.45 --rpy 3.1416 0.6416 -2.5213``.

Run:  python examples/reach_minjerk.py [--plot reach.png] [--gamma 0.05]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pinocchio as pin

import wbcpy
from wbcpy.ik import MultiRefMinJerkCtrl


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plot", metavar="FILE.png", help="save the tip path and the joint trajectories")
    parser.add_argument("--gamma", type=float, default=0.05, help="task-space weight γ (default 0.05)")
    args = parser.parse_args(argv)

    robot = wbcpy.load_robot("lwr4")
    chain = robot.chain("lwr_base_link", "lwr_ee")
    ts, exec_time = 0.01, 1.0
    q0 = np.array([0.0, -0.5, 0.0, 1.3, 0.0, -0.7, 0.0])  # tip 0.62 m forward, 0.51 m up
    ctrl = MultiRefMinJerkCtrl(chain, "full", ts, q0=q0)
    ctrl.set_exec_time(exec_time)
    ctrl.set_gamma(args.gamma)
    ctrl.set_in_target_tol(1e-3)

    # target: 0.35 m forward, 0.25 m left, 0.45 m up; the start orientation turned about z towards it
    position = np.array([0.35, 0.25, 0.45])
    yaw = np.arctan2(position[1], position[0])
    target = pin.SE3(pin.rpy.rpyToMatrix(0.0, 0.0, yaw) @ ctrl.get_pose().rotation, position)
    qs, tips, cost = [ctrl.get_q()], [ctrl.get_x()[:3]], []
    for _ in range(int(5 * exec_time / ts)):
        t0 = time.perf_counter()
        qs.append(ctrl.iterate(target))  # qd omitted: DLS IK once, cached while the target stays
        cost.append(time.perf_counter() - t0)
        tips.append(ctrl.get_x()[:3])
        if ctrl.is_in_target():
            break

    final = chain.fk(ctrl.get_q())
    dp = np.linalg.norm(final.translation - target.translation)
    dr = np.linalg.norm(pin.log3(target.rotation @ final.rotation.T))
    print(f"IK for qd: success={ctrl.last_ik.success}, error={ctrl.last_ik.error:.2e}")
    print(f"state {ctrl.get_state().name} after {ctrl.get_iter()} steps ({ctrl.get_iter() * ts:.2f} s)")
    print(f"final error: {dp:.2e} m, {dr:.2e} rad")
    print(f"iterate(): median {np.median(cost) * 1e6:.1f} µs")
    print("joint angles [rad]:", np.array2string(ctrl.get_q(), precision=3))

    if args.plot:
        try:
            from matplotlib.figure import Figure
        except ImportError:
            print("matplotlib is not installed: no plot")
            return 0
        tips_a, qs_a = np.array(tips), np.array(qs)
        t = np.arange(len(qs_a)) * ts
        fig = Figure(figsize=(11, 4.5), layout="constrained")
        ax = fig.add_subplot(1, 2, 1, projection="3d")
        ax.plot(*tips_a.T, label="tip")
        ax.scatter(*target.translation, marker="x", color="tab:red", label="target")
        ax.legend()
        ax2 = fig.add_subplot(1, 2, 2)
        for i, name in enumerate(chain.joint_names):
            (line,) = ax2.plot(t, qs_a[:, i], label=name)
            ax2.axhline(chain.lower[i], color=line.get_color(), ls="--", lw=0.7)
            ax2.axhline(chain.upper[i], color=line.get_color(), ls="--", lw=0.7)
        ax2.set_xlabel("t [s]")
        ax2.legend(fontsize="small")
        fig.savefig(args.plot, dpi=100)
        print(f"plot written to {args.plot}")
    return 0 if ctrl.is_in_target() else 1


if __name__ == "__main__":
    raise SystemExit(main())
