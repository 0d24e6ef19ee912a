"""``wbcpy walk``: a humanoid walks in the rigid-contact plant or in MuJoCo (:func:`wbcpy.locomotion.walk`).

``--feet LEFT,RIGHT`` names the sole frames or foot links, ``--sole LxW`` the sole size (m), ``--posture
NAME`` the start posture (an SRDF posture, or ``computed``); by default the robot's own (the registry's
feet, or its feet's collision geometry; SRDF ``half_sitting``, or a computed standing posture).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(subparsers: Any) -> None:
    """Add the ``walk`` command."""
    parser = subparsers.add_parser(
        "walk",
        help="walk a humanoid (Talos, G1, iCub, Romeo, ...) in rigid-contact simulation or MuJoCo",
        description=(
            "Footsteps, a DCM walking pattern and an InverseDynamicsScene that outputs torques, closed "
            "around Pinocchio's rigid-contact dynamics (--plant pinocchio) or MuJoCo (--plant mujoco). "
            "Prints a summary; exit status 0 when the walk completed without a fall, slip or limit "
            "violation, 1 otherwise, 2 on bad input."
        ),
    )
    parser.add_argument("robot", nargs="?", default="talos", help="a floating-base humanoid (default talos)")
    parser.add_argument("--steps", type=int, default=8, help="number of footsteps (default 8)")
    parser.add_argument(
        "--length", type=float, default=None, help="forward advance per step, m (0.15 scaled to the robot)"
    )
    parser.add_argument("--width", type=float, default=None, help="feet distance, m (default: today's)")
    parser.add_argument("--turn", type=float, default=0.0, help="total heading change, rad (0)")
    parser.add_argument("--lateral", type=float, default=0.0, help="sideways advance per step, m (0)")
    parser.add_argument("--step-time", type=float, default=0.8, help="s per step incl. 0.2 s double support")
    parser.add_argument(
        "--push",
        metavar="IMPULSE@TIME",
        default=None,
        help="lateral push (+y) on the base: an impulse N·s@s, e.g. 30@3.0, or a force N@s:duration, e.g. "
        "300@3.0:0.1",
    )
    parser.add_argument(
        "--plant", choices=("pinocchio", "mujoco"), default="pinocchio",
        help="the simulation: Pinocchio's rigid contacts (default) or MuJoCo (pip install 'wbcpy[mujoco]')",
    )  # fmt: skip
    parser.add_argument(
        "--contact-options", choices=("library", "mujoco"), default="library",
        help="with --plant mujoco: wbcpy's stiff contact options (default) or MuJoCo's own",
    )  # fmt: skip
    parser.add_argument("--dt", type=float, default=0.002, help="control and simulation step, s (0.002)")
    parser.add_argument(
        "--feet", metavar="LEFT,RIGHT", default=None, help="sole frames or foot links (default: the robot's)"
    )
    parser.add_argument(
        "--sole", metavar="LxW", default=None, help="sole size, m, e.g. 0.2x0.13 (default: the robot's)"
    )
    parser.add_argument(
        "--posture", metavar="NAME", default=None,
        help="start posture: an SRDF posture or 'computed' (default: half_sitting when flat, else computed)",
    )  # fmt: skip
    parser.add_argument("--solver", metavar="NAME", default=None, help="QP backend of the scene")
    parser.add_argument("--log", metavar="FILE.npz", default=None, help="write the log file")
    parser.add_argument("--html", metavar="FILE", default=None, help="write the walk as an HTML animation")
    parser.add_argument("--out", metavar="DIR", default=None, help="write plots (PNG) into this folder")
    parser.add_argument("--quiet", action="store_true", help="no progress output")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the walk; 0 when it completed without fall, slip or violation, 1 otherwise (2: bad input).

    Every input is checked before the walk starts (the output paths — ``--log``, ``--html``, ``--out``
    — included): a bad one is one line on stderr and exit status 2.
    """
    from .common import check_output_dir, check_output_file, check_solver

    check_solver(args.solver)
    from ..locomotion import walk
    from ..locomotion.walk import parse_push

    push = parse_push(args.push) if args.push is not None else None
    options = _contact_options(args)
    if args.log is not None:  # (NumPy appends .npz to a name without it: both must be files to be)
        for path in {args.log, args.log if args.log.endswith(".npz") else args.log + ".npz"}:
            check_output_file(path, "--log")
    out = check_output_dir(args.out) if args.out is not None else None
    html = _html_path(args.html) if args.html is not None else None

    def progress(t: float, total: float) -> None:
        print(f"\r  t = {t:5.1f} / {total:.1f} s", end="", file=sys.stderr, flush=True)

    summary = walk(
        args.robot, n_steps=args.steps, length=args.length, width=args.width, turn=args.turn,
        lateral=args.lateral, step_time=args.step_time, push=push, dt=args.dt, log=args.log,
        solver=args.solver, progress=None if args.quiet else progress, plant=args.plant,
        plant_options=options, feet=args.feet, sole=args.sole, posture=args.posture,
    )  # fmt: skip
    if not args.quiet:
        print(file=sys.stderr)
    print(summary.text())
    if out is not None or html is not None:
        _views(args, summary, out)
    return 0 if summary.ok else 1


def _contact_options(args: argparse.Namespace) -> Any:
    """The MuJoCo plant's ContactOptions of ``--contact-options`` (None: the library's, or no MuJoCo)."""
    from . import CLIError

    if args.contact_options == "library":
        return None
    if args.plant != "mujoco":
        raise CLIError("--contact-options: the options of the MuJoCo plant; give --plant mujoco")
    from ..sim.mujoco import ContactOptions

    return ContactOptions.mujoco_defaults()


def _html_path(path: str) -> Any:
    """``--html``: a file in an existing, writable folder, and the ``viz`` extra installed."""
    from ..viz.animation import prepare_output

    return prepare_output(path, "--html")


def _views(args: argparse.Namespace, summary: Any, out: Any) -> None:
    from ..viz.walk_plots import animate_walk, plot_walk

    robot = summary.robot  # (with its sole frames)
    length = summary.planned[0] / max(args.steps - 1, 1) if args.length is None else args.length
    title = (
        f"{args.robot}: {args.steps} steps of {length:.2f} m"
        + (f", push {args.push}" if args.push else "")
        + (f" ({args.plant})" if args.plant != "pinocchio" else "")
    )
    if out is not None:
        png = out / "walk.png"
        if plot_walk(png, robot, summary.log, title):
            print(f"plots: {png}")
        else:
            print("plots: skipped, matplotlib is not installed (pip install 'wbcpy[plot]')")
    if args.html is not None:
        print(f"animation: {animate_walk(robot, summary.log, args.html, title=title)}")
