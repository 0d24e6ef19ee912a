"""``wbcpy scene CONFIG.yaml``: closed-loop simulation of an AccelerationScene described in YAML.

Every step the tasks' PD laws turn their targets into references, the scene builds and solves its QP,
and the robot's state is integrated with the resulting q̈ (semi-implicit Euler with ``pin.integrate``;
an ideal acceleration-controlled plant). A progress bar goes to stderr; at the end the task status
table, the per-level solver status, the target errors, the joint-limit check and the per-step time of
``update() + solve()`` (median and p95, µs) are printed. ``--plot FILE.png`` saves the target errors
over time (needs matplotlib; without it the run continues and says so).

The file format is documented in :mod:`wbcpy.scenes.scene_file` and in ``examples/scene_reach.yaml``.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import TextIO

from ..plotting import plot_task_errors
from ..scenes.simulation import SimulationResult
from .common import CLIError, format_table

__all__ = ["ProgressBar", "register", "run", "save_plot"]


class ProgressBar:
    """A plain-text progress bar (``[#####-----]  50%  1500/3000 steps``) redrawn in place on a stream."""

    def __init__(self, total: int, stream: TextIO | None = None, width: int = 30) -> None:
        self.total = max(1, int(total))
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        is_tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._every = max(1, self.total // (100 if is_tty else 10))  # fewer redraws into logs and pipes

    def __call__(self, done: int, total: int | None = None) -> None:
        """Redraw after ``done`` steps (every 1 % on a terminal, 10 % otherwise, and at the end)."""
        if done % self._every and done != self.total:
            return
        filled = int(self.width * done / self.total)
        bar = "#" * filled + "-" * (self.width - filled)
        end = "\n" if done >= self.total else ""
        self.stream.write(f"\r[{bar}] {100 * done / self.total:5.1f}%  {done}/{self.total} steps{end}")
        self.stream.flush()


def save_plot(result: SimulationResult, path: Path, title: str) -> bool:
    """Plot the error series of a simulation (log scale) into ``path``; False without matplotlib."""
    return plot_task_errors(path, result.time, result.errors, title)


def run(args: argparse.Namespace) -> int:
    """Load the scene file, simulate, print the results."""
    from ..scenes import SceneSimulation, load_scene_file

    if args.steps is not None and args.steps < 1:
        raise CLIError(f"--steps must be ≥ 1, got {args.steps}")
    if args.dt is not None and not (math.isfinite(args.dt) and args.dt > 0):
        raise CLIError(f"--dt must be a number > 0, got {args.dt}")
    plot = Path(args.plot) if args.plot else None
    if plot is not None and not plot.parent.expanduser().is_dir():
        raise CLIError(f"--plot: folder {str(plot.parent)!r} does not exist")
    from ..viz import animate_scene, prepare_output  # the optional viz extra is checked by prepare_output

    html = prepare_output(args.html, "--html") if args.html else None
    config = Path(args.config)
    if not config.is_file():
        raise CLIError(f"scene file {str(config)!r} not found")
    setup = load_scene_file(config, solver=args.solver, steps=args.steps, dt=args.dt)
    scene, robot = setup.scene, setup.robot
    print(
        f"scene {config.name}: robot {robot.name!r} ({robot.nv} DOF), solver {scene.solver.name}, "
        f"dt {setup.dt:g} s, {setup.steps} steps ({setup.steps * setup.dt:g} s), "
        f"joint limits {'on' if scene.joint_limits else 'off'}, {len(setup.targets)} tasks"
    )
    sim = SceneSimulation(setup)
    result = sim.run(progress=None if args.quiet else ProgressBar(setup.steps))
    print()
    print(result.status.table())
    summary = result.status.solver_summary()
    if summary:
        print(summary)
    print()
    print(
        format_table(
            ["target error", "initial", "final"],
            [[k, float(v[0]), float(v[-1])] for k, v in result.errors.items()],
        )
    )
    viol = result.limit_violation
    if scene.joint_limits:
        worst = ", ".join(f"{k} {v:.3g}" for k, v in viol.items())
        verdict = "respected" if max(viol.values()) <= 1e-9 else "VIOLATED"
        print(f"joint limits: {verdict} (largest excess: {worst})")
    print(
        f"update()+solve() per step: median {result.median_step_us:.1f} µs, p95 {result.p95_step_us:.1f} µs "
        f"({scene.solver.name})"
    )
    if plot is not None:
        if save_plot(result, plot, f"{config.name}: {robot.name}, {scene.solver.name}"):
            print(f"plot saved to {plot}")
        else:
            print(
                "wbcpy scene: matplotlib is not installed; --plot skipped (pip install matplotlib)",
                file=sys.stderr,
            )
    if html is not None:
        print(f"animation written to {animate_scene(setup, result, html)}")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``scene`` command."""
    parser = subparsers.add_parser(
        "scene",
        help="simulate an AccelerationScene from a YAML file (PD targets, closed loop)",
        description=(
            "Run a closed-loop simulation of the scene in CONFIG.yaml: PD references towards the task "
            "targets, update()+solve(), semi-implicit Euler integration of q̈. See examples/scene_reach.yaml."
        ),
    )
    parser.add_argument("config", metavar="CONFIG.yaml", help="scene file")
    parser.add_argument(
        "--solver", metavar="NAME", help="QP backend (see `wbcpy solvers`); default: the file's"
    )
    parser.add_argument("--steps", type=int, metavar="N", help="number of steps (overrides duration/steps)")
    parser.add_argument("--dt", type=float, metavar="DT", help="step in seconds (overrides the file's dt)")
    parser.add_argument(
        "--plot", metavar="FILE.png", help="save the target errors over time (needs matplotlib)"
    )
    parser.add_argument(
        "--html", metavar="FILE.html", help="write a self-contained HTML animation of the run (viz extra)"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(func=run)
