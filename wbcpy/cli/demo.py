"""``wbcpy demo``: all four programming models on the shipped robots, in well under 30 s."""

from __future__ import annotations

import argparse
import time
from typing import Any


def register(subparsers: Any) -> None:
    """Add the ``demo`` command."""
    parser = subparsers.add_parser(
        "demo",
        help="run the models on the shipped robots and Talos (jspace, arl, scenes, min-jerk IK)",
        description=(
            "Short run of wbcpy's programming models: jspace dynamics of the PUMA 560, the arl chain table "
            "of the bimanual robot, an AccelerationScene reach and a minimum-jerk reach of the 7-DOF arm, "
            "Talos shifting its weight and lifting a foot with an InverseDynamicsScene in rigid-contact "
            "simulation (needs example-robot-data: pip install 'wbcpy[demo]'), PNG plots and HTML "
            "animations of the runs."
        ),
    )
    parser.add_argument(
        "--out", metavar="DIR", default="wbcpy-demo", help="folder for the PNG plots (default ./wbcpy-demo)"
    )
    parser.add_argument(
        "--solver", metavar="NAME", default=None, help="QP backend of the scene (see `wbcpy solvers`)"
    )
    parser.add_argument("--no-plots", action="store_true", help="do not write plots")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the demo; exit status 0 when every part succeeds, 1 otherwise, 2 for bad arguments.

    The output folder and the backend are checked before anything runs.
    """
    from .common import check_output_dir, check_solver

    check_solver(args.solver)
    out = None if args.no_plots else check_output_dir(args.out)
    from ..demo.models import run_demo

    t0 = time.perf_counter()
    result = run_demo(out or args.out, solver=args.solver, plots=out is not None, progress=not args.quiet)
    print(f"demo {'completed' if result.ok else 'FINISHED WITH ERRORS'} in {time.perf_counter() - t0:.1f} s")
    return 0 if result.ok else 1
