"""``wbcpy reach``: drive a chain's tip to a Cartesian target with the min-jerk multi-referential controller.

Runs :class:`~wbcpy.ik.MultiRefMinJerkCtrl` at sample time Ts until it reports INTARGET (‖e‖ < ``--tol``)
or the step budget runs out, with the joint target q_d from the controller's damped least-squares IK.
Prints the number of steps, the final error (from FK of the final joint angles) and the cost of one
``iterate()`` call; ``--plot`` draws the tip path, the Cartesian error and speed over time (the bell-shaped
min-jerk profile) and the joint trajectories with their limits (needs matplotlib).

Defaults:

* ``--root``: the robot's root link (the floating body for a floating base); ``--tip``: the registry's end
  effector of the robot (Talos's left gripper, iCub's left hand, Baxter's left gripper, Tiago's arm tool,
  Go1's front-left foot...), else the frame deepest in the tree (see ``wbcpy frames ROBOT``).
* ``--mode``: ``full`` (position and orientation) for chains of 6 DOF or more, else ``xyz`` (a 3-DOF arm
  cannot hold an orientation); without ``--rpy`` the target orientation is the start orientation.
* ``--q0``: the robot's first SRDF posture when it has one (Go1 ``standing``, Talos ``half_sitting``),
  else the chain's rest configuration (Pinocchio's neutral clipped to the limits); a posture by name
  (``--q0 half_sitting``) or values. A q0 outside the limits is clipped, with a warning.

Exit status: 0 in target, 1 budget exhausted or a non-finite result, 2 bad arguments (one line on stderr).
"""

from __future__ import annotations

import argparse
import math
import sys
from typing import TYPE_CHECKING, Any

from . import CLIError
from .common import add_robot_argument, check_finite_output, check_plot_path, load_robot_arg

if TYPE_CHECKING:
    import numpy as np

    from ..ik.reaching import ReachResult
    from ..model.chain import Chain
    from ..model.robot_model import RobotModel

#: largest step budget (--max-steps, or 5·T/Ts)
MAX_STEPS = 1_000_000


def register(subparsers: Any) -> None:
    """Add the ``reach`` sub-command."""
    p = subparsers.add_parser(
        "reach",
        help="reach a Cartesian target with the min-jerk multi-referential controller (iKin)",
        description=(
            "Run the iKin minimum-jerk multi-referential controller at sample time Ts until ‖e‖ < --tol or\n"
            "the step budget runs out; the joint target comes from its damped least-squares IK. Prints the\n"
            "steps, the final error and the median cost of one iterate() call."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=(
            "defaults: --root = root link, --tip = the robot's end effector (registry) or deepest frame;\n"
            "--mode full for chains of 6+ DOF, else xyz; --q0 the first SRDF posture, else the rest;\n"
            "exit status 0 in target, 1 budget exhausted."
        ),
    )
    add_robot_argument(p)
    p.add_argument("--root", metavar="FRAME", help="chain base frame (default: the root link)")
    p.add_argument("--tip", metavar="FRAME", help="chain tip frame (default: the robot's end effector)")
    p.add_argument("--chain", metavar="BASE:TIP", help="base and tip at once (same as --root and --tip)")
    target = p.add_mutually_exclusive_group(required=True)
    target.add_argument("--target", nargs=3, metavar=("X", "Y", "Z"), help="target position in the root [m]")
    target.add_argument(
        "--offset", nargs=3, metavar=("DX", "DY", "DZ"), help="target = start position + offset [m]"
    )
    p.add_argument("--rpy", nargs=3, metavar=("R", "P", "Y"), help="target roll, pitch, yaw [rad]")
    p.add_argument("--mode", choices=("full", "xyz", "ang"), help="pose part tracked (default: see below)")
    p.add_argument("--exec-time", type=float, default=1.0, metavar="T", help="execution time T [s] (1.0)")
    p.add_argument("--gamma", type=float, default=0.05, metavar="G", help="task-space weight γ (0.05)")
    p.add_argument("--ts", type=float, default=0.01, metavar="TS", help="sample time [s] (0.01)")
    p.add_argument("--max-steps", type=int, default=None, metavar="N", help="step budget (default 5·T/Ts)")
    p.add_argument("--tol", type=float, default=1e-3, metavar="TOL", help="in-target tolerance on ‖e‖ (1e-3)")
    p.add_argument("--q0", nargs="+", metavar="Q", help="initial joint angles [rad], or an SRDF posture name")
    p.add_argument(
        "--plot", metavar="FILE.png", help="save the tip path, error, speed and joint trajectories"
    )
    p.add_argument("--html", metavar="FILE.html", help="write a self-contained HTML animation (viz extra)")
    p.set_defaults(func=run)


def _positive(value: float, option: str) -> float:
    if not (math.isfinite(value) and value > 0):
        raise CLIError(f"{option}: must be a finite number > 0, got {value}")
    return value


def _frames(robot: RobotModel, args: argparse.Namespace) -> tuple[str, str]:
    from ..model.registry import default_end_effector

    root, tip = args.root, args.tip
    if args.chain is not None:
        if root is not None or tip is not None:
            raise CLIError("--chain: give either --chain BASE:TIP or --root/--tip, not both")
        root, sep, tip = args.chain.partition(":")
        if not sep or not root or not tip or ":" in tip:
            raise CLIError(f"--chain: expected BASE:TIP, got {args.chain!r}")
    return root or robot.root_link, tip or default_end_effector(robot, args.robot)


def _chain_and_q0(robot: RobotModel, args: argparse.Namespace) -> tuple[Chain, np.ndarray | None]:
    from .common import parse_vector

    root, tip = _frames(robot, args)
    postures = robot.reference_configuration_names()
    posture = postures[0] if args.q0 is None and postures else None
    if args.q0 is not None and len(args.q0) == 1 and not _is_float(args.q0[0]):
        posture = args.q0[0]
    if posture is not None:
        dof = robot.dof_from_q(robot.reference_configuration(posture))
        chain = robot.chain(root, tip, rest=dof)
        print(f"q0: SRDF posture {posture!r}")
        return chain, dof[chain.dof_indices]
    chain = robot.chain(root, tip)
    what = f"one angle per joint of the chain {root} → {tip}, or an SRDF posture name"
    return chain, None if args.q0 is None else parse_vector(args.q0, chain.n, "--q0", what)


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _check_numbers(args: argparse.Namespace) -> None:
    for option, value in (("--exec-time", args.exec_time), ("--ts", args.ts), ("--tol", args.tol)):
        _positive(value, option)
    if not (math.isfinite(args.gamma) and args.gamma >= 0):
        raise CLIError(f"--gamma: must be a finite number >= 0, got {args.gamma}")
    if args.max_steps is not None and not 1 <= args.max_steps <= MAX_STEPS:
        raise CLIError(f"--max-steps: must be in 1..{MAX_STEPS}, got {args.max_steps}")
    if args.max_steps is None and 5.0 * args.exec_time / args.ts > MAX_STEPS:
        raise CLIError(
            f"--ts {args.ts:g} s: 5·T/Ts is more than {MAX_STEPS} steps; raise --ts or give --max-steps"
        )


def _warn_outside_limits(chain: Chain, q0: np.ndarray | None) -> None:
    if q0 is None:
        return
    for name, x, lo, hi in zip(chain.joint_names, q0, chain.lower, chain.upper, strict=True):
        if x < lo - 1e-9 or x > hi + 1e-9:
            print(
                f"wbcpy reach: warning: --q0 {name} = {x:.6g} is outside [{lo:.6g}, {hi:.6g}]: clipped",
                file=sys.stderr,
            )


def run(args: argparse.Namespace) -> int:
    """Run the ``reach`` command (see the module docstring); returns the exit status."""
    import pinocchio as pin

    from ..ik import MultiRefMinJerkCtrl
    from ..ik.reaching import run_reach
    from ..viz import animate_reach, prepare_output  # the optional viz extra is checked by prepare_output
    from .common import parse_vector

    _check_numbers(args)
    plot = check_plot_path(args.plot) if args.plot else None
    html = prepare_output(args.html, "--html") if args.html else None
    robot = load_robot_arg(args)
    chain, q0 = _chain_and_q0(robot, args)
    mode = args.mode or ("full" if chain.n >= 6 else "xyz")
    _warn_outside_limits(chain, q0)
    ctrl = MultiRefMinJerkCtrl(chain, mode, args.ts, q0=q0)
    exec_time = ctrl.set_exec_time(args.exec_time)
    ctrl.set_gamma(args.gamma)
    ctrl.set_in_target_tol(args.tol)
    max_steps = args.max_steps or math.ceil(5.0 * exec_time / ctrl.Ts)
    start = ctrl.get_pose()
    if args.target is not None:
        position = parse_vector(args.target, 3, "--target")
    else:
        position = start.translation + parse_vector(args.offset, 3, "--offset")
    if args.rpy is None:
        rotation, orientation = start.rotation, "start orientation (no --rpy)"
    else:
        rpy = parse_vector(args.rpy, 3, "--rpy")
        rotation, orientation = pin.rpy.rpyToMatrix(*rpy), f"rpy {_fmt(rpy)} rad"
    target = pin.SE3(rotation, position)

    print(
        f"reach: {robot.name}, chain {chain.base} -> {chain.tip} ({chain.n} DOF), Ts = {ctrl.Ts:g} s, "
        f"T = {exec_time:g} s, gamma = {ctrl.get_gamma():g}, mode {mode}"
    )
    if exec_time != args.exec_time:
        print(f"note: exec time {args.exec_time:g} s is below 10*Ts; using {exec_time:g} s")
    print(f"target: position {_fmt(position)} m, {orientation}")
    result = _report(run_reach(ctrl, target, max_steps), ctrl, chain, mode, plot)
    if html is not None:
        print(f"animation written to {animate_reach(chain, result, html)}")
    return 0 if result.reached else 1


def _report(result: ReachResult, ctrl: Any, chain: Chain, mode: str, plot: Any) -> ReachResult:
    ik = ctrl.last_ik
    if ik is not None:
        status = "converged" if ik.success else "NOT converged (best effort)"
        print(f"joint target from DLS IK: {status}, error {ik.error:.3g}, {ik.iterations} iterations")
    check_finite_output("reach", result.q, result.position_error, result.rotation_error)
    verdict = "in target" if result.reached else "NOT in target"
    print(f"{verdict} after {result.steps} steps ({result.steps * ctrl.Ts:g} s)")
    tracked = {"full": "", "xyz": " (orientation not tracked)", "ang": " (position not tracked)"}[mode]
    print(
        f"final error: position {result.position_error:.3e} m, orientation {result.rotation_error:.3e} rad"
        f"{tracked}"
    )
    print(
        f"iterate(): median {result.median_us:.1f} µs, p95 {result.p95_us:.1f} µs "
        "per call (the first calls include the IK)"
    )
    if plot is not None:
        save_reach_plots(result, chain, plot)
    return result


def _fmt(v: Any) -> str:
    return "(" + ", ".join(f"{x:.4g}" for x in v) + ")"


def save_reach_plots(result: ReachResult, chain: Chain, path: Any) -> None:
    """Tip path (3-D), error and speed over time, joint trajectories with limits: one image at ``path``."""
    from ..viz.plotting import have_matplotlib, plot_reach

    if not have_matplotlib():
        print("matplotlib is not installed: no plot written (pip install matplotlib)")
        return
    try:
        plot_reach(path, result, chain)
    except OSError as exc:
        raise CLIError(f"--plot: cannot write {str(path)!r}: {exc}") from None
    print(f"plot written to {path}")
