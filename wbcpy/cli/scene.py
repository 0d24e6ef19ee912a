"""``wbcpy scene CONFIG.yaml``: closed-loop simulation of a scene described in YAML.

Every step the tasks' PD laws turn their targets into references, the scene builds and solves its QP,
and the robot's state is integrated with the resulting q̈ (semi-implicit Euler with ``pin.integrate``;
an ideal acceleration-controlled plant). With ``scene: velocity`` the laws give velocity references,
the scene (a VelocityScene, optionally with collision avoidance) gives q̇ and q ← q ⊕ q̇ dt. A progress
bar goes to stderr; at the end the task status table, the per-level solver status, the target errors,
the joint-limit check (and the closest collision distance) and the per-step time of ``update() +
solve()`` (median and p95, µs) are printed. ``--plot FILE.png`` saves the target errors
over time (needs matplotlib; without it the run continues and says so).

Exit status: 0 when the run ends with finite results and, with joint limits on, no limit violated; 1 when
a checked joint limit was violated, a collision pair penetrated (velocity scenes) or a result is not
finite; 2 for bad arguments or a bad scene file (one line on stderr). A ``q0`` outside the joint
limits is reported as a warning before the run.

A scene file with ``contacts`` runs an InverseDynamicsScene on a physical plant: its joint torques are
integrated by rigid-contact dynamics (``ContactSimulation``); the run also fails (exit status 1) when a
simulated contact wrench leaves its friction cone or normal-force bounds, or a torque its limit, by more
than 1e-6·m·g.

The file format is documented in :mod:`wbcpy.scenes.files.scene_file` and in ``examples/scene_reach.yaml``
(velocity scenes: :mod:`wbcpy.scenes.files.velocity_file`, ``examples/velocity_obstacle.yaml``; contacts:
``examples/talos_balance.yaml``).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..reporting import STATUS_UNITS, ProgressBar, format_table
from . import CLIError
from .common import add_package_dir_argument, check_plot_path, check_solver, package_dirs_arg

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel
    from ..scenes.acceleration_scene import AccelerationScene
    from ..scenes.velocity_scene import VelocityScene
    from ..sim.simulation import SimulationResult


def save_plot(result: SimulationResult, path: Path, title: str) -> bool:
    """Plot the error series of a simulation (log scale) into ``path``; False without matplotlib."""
    from ..viz.plotting import plot_task_errors

    return plot_task_errors(path, result.time, result.errors, title)


def run(args: argparse.Namespace) -> int:
    """Load the scene file, simulate, print the results; see the module docstring for the exit status."""
    from ..scenes import load_scene_file
    from ..sim import SceneSimulation

    if args.steps is not None and args.steps < 1:
        raise CLIError(f"--steps must be ≥ 1, got {args.steps}")
    if args.dt is not None and not (math.isfinite(args.dt) and args.dt > 0):
        raise CLIError(f"--dt must be a number > 0, got {args.dt}")
    plot = check_plot_path(args.plot) if args.plot else None
    check_solver(args.solver)
    from ..viz import animate_scene, prepare_output  # the optional viz extra is checked by prepare_output

    html = prepare_output(args.html, "--html") if args.html else None
    config = Path(args.config)
    if not config.is_file():
        raise CLIError(f"scene file {str(config)!r} not found")
    setup = load_scene_file(
        config, solver=args.solver, steps=args.steps, dt=args.dt, package_dirs=package_dirs_arg(args)
    )
    scene, robot = setup.scene, setup.robot
    for note in setup.warnings:
        print(f"wbcpy scene: warning: {note}", file=sys.stderr)
    frames = getattr(scene, "active_contact_frames", None)
    contacts = "" if frames is None else f", contacts on {', '.join(frames) or 'none'}"
    print(
        f"scene {config.name}: {scene_kind(scene)}, robot {robot.name!r} ({robot.nv} DOF), "
        f"solver {_solver_name(scene)}, dt {setup.dt:g} s, "
        f"{setup.steps} steps ({setup.steps * setup.dt:g} s), "
        f"joint limits {'on' if scene.joint_limits else 'off'}, {len(setup.targets)} tasks{contacts}"
    )
    result = SceneSimulation(setup).run(progress=None if args.quiet else ProgressBar(setup.steps))
    print()
    code = _report(result, scene, config, robot, plot)
    if html is not None:
        print(f"animation written to {animate_scene(setup, result, html, obstacles=setup.obstacles)}")
    return code


def scene_kind(scene: AccelerationScene | VelocityScene) -> str:
    """What the run's header calls the scene: ``"inverse-dynamics (contact) scene"`` for an
    InverseDynamicsScene, else ``"acceleration scene"`` or ``"velocity scene"`` (its task level)."""
    from ..scenes.inverse_dynamics_scene import InverseDynamicsScene

    if isinstance(scene, InverseDynamicsScene):
        return "inverse-dynamics (contact) scene"
    return f"{scene.task_level} scene"


def _solver_name(scene: AccelerationScene | VelocityScene) -> str:
    """The name of the scene's QP backend (a duck-typed backend without a ``name``: ``"?"``)."""
    return str(getattr(scene.solver, "name", "?"))


def _report(
    result: SimulationResult,
    scene: AccelerationScene | VelocityScene,
    config: Path,
    robot: RobotModel,
    plot: Path | None,
) -> int:
    """Print the run's results; 1 when a check failed (every check is printed), else 0."""
    print(result.status.table())
    print(getattr(result.status, "units", STATUS_UNITS))
    summary = result.status.solver_summary()
    if summary:
        print(summary)
    print()
    failed = [
        _target_errors_failed(result),
        scene.joint_limits and _joint_limits_failed(result.limit_violation),
        _contact_limits_failed(result.limit_violation, robot),
        _collision_failed(result.min_distance),
    ]
    print(
        f"update()+solve() per step: median {result.median_step_us:.1f} µs, p95 {result.p95_step_us:.1f} µs "
        f"({_solver_name(scene)})"
    )
    if plot is not None:
        _plot(result, plot, f"{config.name}: {robot.name}, {_solver_name(scene)}")
    return 1 if any(failed) else 0


def _target_errors_failed(result: SimulationResult) -> bool:
    """Print the initial and final target errors; True when a final one is not finite."""
    finals = [(k, float(v[0]), float(v[-1])) for k, v in result.errors.items()]
    print(format_table(["target error", "initial", "final"], finals))
    if all(math.isfinite(row[2]) for row in finals):
        return False
    print("wbcpy scene: error: a final target error is not finite", file=sys.stderr)
    return True


def _joint_limits_failed(viol: dict[str, float]) -> bool:
    """Print the joint-limit check; True when a limit was exceeded by more than 1e-9."""
    worst = ", ".join(f"{k} {v:.3g}" for k, v in viol.items())
    violated = max(viol.values(), default=0.0) > 1e-9
    print(f"joint limits: {'VIOLATED' if violated else 'respected'} (largest excess: {worst})")
    return violated


def _contact_limits_failed(viol: dict[str, float], robot: RobotModel) -> bool:
    """Print the contact-wrench and torque check (contact scenes); True beyond 1e-6·m·g."""
    contact = {k: v for k, v in viol.items() if k in ("friction cone", "normal force", "effort")}
    if not contact:
        return False
    worst = ", ".join(f"{k} {v:.3g}" for k, v in contact.items())
    violated = max(contact.values()) > 1e-6 * robot.total_mass * 9.81
    verdict = "VIOLATED" if violated else "within limits"
    print(f"contact wrenches and torques: {verdict} (largest excess: {worst})")
    return violated


def _collision_failed(min_distance: float | None) -> bool:
    """Print the closest collision distance (collision avoidance on); True for a penetration."""
    if min_distance is None:
        return False
    hit = min_distance <= 0.0
    print(f"collisions: closest pair distance {min_distance:.4g} m{' (PENETRATION)' if hit else ''}")
    return hit


def _plot(result: SimulationResult, plot: Path, title: str) -> None:
    if save_plot(result, plot, title):
        print(f"plot saved to {plot}")
    else:
        print(
            "wbcpy scene: matplotlib is not installed; --plot skipped (pip install matplotlib)",
            file=sys.stderr,
        )


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``scene`` command."""
    parser = subparsers.add_parser(
        "scene",
        help="simulate an acceleration, contact or velocity scene from a YAML file (targets, closed loop)",
        description=(
            "Run a closed-loop simulation of the scene in CONFIG.yaml: PD references towards the task "
            "targets, update()+solve(), semi-implicit Euler integration of q̈ (with `scene: velocity`: "
            "velocity laws, q̇ integrated; with `contacts`: the InverseDynamicsScene's torques in "
            "rigid-contact simulation). See examples/scene_reach.yaml, examples/velocity_obstacle.yaml and "
            "examples/talos_balance.yaml."
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
    add_package_dir_argument(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(func=run)
