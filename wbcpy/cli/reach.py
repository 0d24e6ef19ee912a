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
from typing import Any

import numpy as np
import pinocchio as pin

from ..chain import Chain
from ..ik import CtrlPose, MultiRefMinJerkCtrl
from ..ik.reaching import ReachResult, run_reach
from ..plotting import have_matplotlib, plot_reach
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
    p.add_argument("--html", metavar="FILE.html", help="write a self-contained HTML animation (viz extra)")
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
    from ..viz import animate_reach, prepare_output  # the optional viz extra is checked by prepare_output

    html = prepare_output(args.html, "--html") if args.html else None
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

    result = run_reach(ctrl, target, max_steps)
    ik = ctrl.last_ik
    if ik is not None:
        status = "converged" if ik.success else "NOT converged (best effort)"
        print(f"joint target from DLS IK: {status}, error {ik.error:.3g}, {ik.iterations} iterations")
    reached = result.reached
    verdict = "in target" if reached else "NOT in target"
    print(f"{verdict} after {result.steps} steps ({result.steps * ctrl.Ts:g} s)")
    print(f"final error: position {result.position_error:.3e} m, orientation {result.rotation_error:.3e} rad")
    print(
        f"iterate(): median {result.median_us:.1f} µs, p95 {result.p95_us:.1f} µs "
        "per call (the first call includes the IK)"
    )
    if args.plot:
        save_reach_plots(result, chain, args.plot)
    if html is not None:
        print(f"animation written to {animate_reach(chain, result, html)}")
    return 0 if reached else 1


def _fmt(v: np.ndarray) -> str:
    return "(" + ", ".join(f"{x:.4g}" for x in v) + ")"


def save_reach_plots(result: ReachResult, chain: Chain, path: str) -> None:
    """Tip path (3-D) and joint trajectories with their limits side by side in one PNG at ``path``."""
    if not have_matplotlib():
        print("matplotlib is not installed: no plot written (pip install matplotlib)")
        return
    try:
        plot_reach(path, result, chain)
    except OSError as exc:
        raise CLIError(f"--plot: cannot write {path!r}: {exc}") from None
    print(f"plot written to {path}")
