"""``wbcpy reach``: drive a chain's tip to a Cartesian target with the min-jerk multi-referential controller.

Runs :class:`~wbcpy.ik.MultiRefMinJerkCtrl` in FULL mode (position and orientation) at sample time Ts
until it reports INTARGET (‖e‖ < ``--tol``) or the step budget runs out, with the joint target q_d from
the controller's damped least-squares IK. Prints the number of steps, the final error (from FK of the final
joint angles) and the cost of one ``iterate()`` call; ``--plot`` draws the tip path and the joint
trajectories with their limits (needs matplotlib; without it a note is printed and the run still counts).

Defaults:

* ``--chain``: from the robot's root link to the last link of the URDF (Pinocchio's frame order). For
  branched robots (hands with fingers, humanoids) give ``--chain BASE:TIP``.
* no ``--rpy``: the target orientation is the tip's orientation at the start (still FULL mode: the
  orientation is held while the position moves).
* ``--q0``: the chain's rest configuration (Pinocchio's neutral clipped to the limits).

Exit status: 0 in target, 1 budget exhausted, 2 bad arguments (one line on stderr).
"""

from __future__ import annotations

import argparse
import math
import time
from typing import Any

import numpy as np
import pinocchio as pin

from ..chain import Chain
from ..ik import CtrlPose, MultiRefMinJerkCtrl
from .common import CLIError, add_robot_argument, load_robot_arg, parse_vector

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add the ``reach`` sub-command."""
    p = subparsers.add_parser(
        "reach",
        help="reach a Cartesian target with the min-jerk multi-referential controller (iKin)",
        description=(
            "Run the iKin minimum-jerk multi-referential controller (FULL pose) at sample time Ts until\n"
            "|e| < --tol or the step budget runs out; the joint target comes from its damped least-squares\n"
            "IK. Prints the steps, the final error and the median cost of one iterate() call; --plot draws\n"
            "the tip path and the joint trajectories with their limits (needs matplotlib)."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=(
            "defaults: --chain = root link to the last URDF link; without --rpy the target orientation is\n"
            "the start orientation (FULL mode); exit status 0 in target, 1 step budget exhausted."
        ),
    )
    add_robot_argument(p)
    p.add_argument("--chain", metavar="BASE:TIP", help="base and tip frames (default: root link:last link)")
    p.add_argument("--target", nargs=3, metavar=("X", "Y", "Z"), required=True, help="target position [m]")
    p.add_argument("--rpy", nargs=3, metavar=("R", "P", "Y"), help="target roll, pitch, yaw [rad]")
    p.add_argument("--exec-time", type=float, default=1.0, metavar="T", help="execution time T [s] (1.0)")
    p.add_argument("--gamma", type=float, default=0.05, metavar="G", help="task-space weight γ (0.05)")
    p.add_argument("--ts", type=float, default=0.01, metavar="TS", help="sample time [s] (0.01)")
    p.add_argument("--max-steps", type=int, default=None, metavar="N", help="step budget (default 5·T/Ts)")
    p.add_argument("--tol", type=float, default=1e-3, metavar="TOL", help="in-target tolerance on ‖e‖ (1e-3)")
    p.add_argument("--q0", nargs="+", metavar="Q", help="initial joint angles [rad] (default: rest)")
    p.add_argument("--plot", metavar="FILE.png", help="save the tip path and joint trajectories")
    p.set_defaults(func=run)


def _chain(robot: Any, spec: str | None) -> Chain:
    if spec is None:
        return robot.chain(robot.root_link, robot.link_names[-1])
    base, sep, tip = spec.partition(":")
    if not sep or not base or not tip or ":" in tip:
        raise CLIError(f"--chain: expected BASE:TIP, got {spec!r}")
    return robot.chain(base, tip)


def run(args: argparse.Namespace) -> int:
    """Run the ``reach`` command (see the module docstring); returns the exit status."""
    robot = load_robot_arg(args)
    chain = _chain(robot, args.chain)
    position = parse_vector(args.target, 3, "--target")
    q0 = None if args.q0 is None else parse_vector(args.q0, chain.n, "--q0")
    ctrl = MultiRefMinJerkCtrl(chain, CtrlPose.FULL, args.ts, q0=q0)
    exec_time = ctrl.set_exec_time(args.exec_time)
    ctrl.set_gamma(args.gamma)
    ctrl.set_in_target_tol(args.tol)
    if args.max_steps is None:
        max_steps = math.ceil(5.0 * exec_time / ctrl.Ts)
    elif args.max_steps < 1:
        raise CLIError(f"--max-steps: must be >= 1, got {args.max_steps}")
    else:
        max_steps = args.max_steps
    start = ctrl.get_pose()
    if args.rpy is None:
        rotation, orientation = start.rotation, "start orientation (no --rpy)"
    else:
        rpy = parse_vector(args.rpy, 3, "--rpy")
        rotation, orientation = pin.rpy.rpyToMatrix(*rpy), f"rpy {_fmt(rpy)} rad"
    target = pin.SE3(rotation, position)

    print(
        f"reach: {robot.name}, chain {chain.base} -> {chain.tip} ({chain.n} DOF), Ts = {ctrl.Ts:g} s, "
        f"T = {exec_time:g} s, gamma = {ctrl.get_gamma():g}, FULL pose"
    )
    if exec_time != args.exec_time:
        print(f"note: exec time {args.exec_time:g} s is below 10*Ts; using {exec_time:g} s")
    print(f"target: position {_fmt(position)} m, {orientation}")

    times_ns = np.empty(max_steps)
    qs, tips = [ctrl.get_q()], [start.translation.copy()]
    steps = 0
    clock = time.perf_counter_ns
    while steps < max_steps:
        t0 = clock()
        q = ctrl.iterate(target)
        times_ns[steps] = clock() - t0
        steps += 1
        if args.plot:
            qs.append(q)
            tips.append(ctrl.get_x()[:3])
        if ctrl.is_in_target():
            break

    ik = ctrl.last_ik
    if ik is not None:
        status = "converged" if ik.success else "NOT converged (best effort)"
        print(f"joint target from DLS IK: {status}, error {ik.error:.3g}, {ik.iterations} iterations")
    final = chain.fk(ctrl.get_q())
    dp = float(np.linalg.norm(target.translation - final.translation))
    dr = float(np.linalg.norm(pin.log3(target.rotation @ final.rotation.T)))
    reached = ctrl.is_in_target()
    verdict = "in target" if reached else "NOT in target"
    print(f"{verdict} after {steps} steps ({steps * ctrl.Ts:g} s)")
    print(f"final error: position {dp:.3e} m, orientation {dr:.3e} rad")
    per_call = times_ns[:steps] / 1e3
    print(
        f"iterate(): median {np.median(per_call):.1f} µs, p95 {np.percentile(per_call, 95):.1f} µs "
        "per call (the first call includes the IK)"
    )
    if args.plot:
        _plot(args.plot, ctrl.Ts, np.array(tips), np.array(qs), chain, target.translation)
    return 0 if reached else 1


def _fmt(v: np.ndarray) -> str:
    return "(" + ", ".join(f"{x:.4g}" for x in v) + ")"


def _plot(path: str, ts: float, tips: np.ndarray, qs: np.ndarray, chain: Chain, target: np.ndarray) -> None:
    """Tip path (3-D) and joint trajectories with dashed limit lines, saved to ``path``."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        print("matplotlib is not installed: no plot written (pip install matplotlib)")
        return
    fig = Figure(figsize=(12, 5), layout="constrained")
    ax = fig.add_subplot(1, 2, 1, projection="3d")
    ax.plot(tips[:, 0], tips[:, 1], tips[:, 2], lw=1.5, label="tip path")
    ax.scatter(*tips[0], marker="o", color="tab:green", label="start")
    ax.scatter(*target, marker="x", s=60, color="tab:red", label="target")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_zlabel("z [m]")
    ax.set_title(f"tip path in {chain.base}")
    ax.legend(loc="upper left")
    ax2 = fig.add_subplot(1, 2, 2)
    t = np.arange(qs.shape[0]) * ts
    for i, name in enumerate(chain.joint_names):
        (line,) = ax2.plot(t, qs[:, i], label=name)
        for limit in (chain.lower[i], chain.upper[i]):
            if np.isfinite(limit):
                ax2.axhline(limit, color=line.get_color(), ls="--", lw=0.8)
    ax2.set_xlabel("t [s]")
    ax2.set_ylabel("q [rad or m]")
    ax2.set_title("joint trajectories (dashed: limits)")
    ax2.legend(fontsize="small", loc="best")
    try:
        fig.savefig(path, dpi=100)
    except OSError as exc:
        raise CLIError(f"--plot: cannot write {path!r}: {exc}") from None
    print(f"plot written to {path}")
