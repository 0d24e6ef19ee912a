"""``wbcpy demo``: a short run of the programming models on the shipped robots and on Talos.

1. jspace (Stanford-WBC): the PUMA 560 at a named configuration — M, g, b and the end-effector Jacobian.
2. arl (AUTh-ARL): the bimanual robot as named kinematic chains — its chain table.
3. AccelerationScene (ARC-OPT wbc): a 1.2 s closed-loop reach of the 7-DOF arm (Cartesian task over a
   posture task, joint limits on) with the chosen QP backend — status table and time per control step.
4. MultiRefMinJerkCtrl (iCub iKin): a minimum-jerk reach of the same arm — steps to target, final error.
5. InverseDynamicsScene (ARC-OPT AccelerationSceneTSID, TSID): Talos shifts its weight onto the left foot,
   lifts the right foot and puts it down, simulated as a torque-controlled robot with rigid contacts
   (:mod:`wbcpy.demo.talos`) — contact wrenches in their cones, torques in limits (needs
   example-robot-data: ``pip install "wbcpy[demo]"``; skipped with a note without it).
6. Walking (:func:`wbcpy.locomotion.walk`): Talos walks 4 steps of 0.1 m, torque-controlled, in MuJoCo
   when ``mujoco`` is installed (``pip install "wbcpy[mujoco]"``), else in the rigid-contact plant — the
   walk's acceptance summary.
7. PNG plots in the output folder (3: task errors and joints; 4: tip path, error and speed; 5: COM over the
   support polygons, normal forces, torques against limits; 6: soles, COM and ZMP, normal forces,
   torques), unless plots are off or matplotlib is missing.
8. Self-contained HTML animations of 3, 4, 5 and 6 beside the plots (:mod:`wbcpy.viz`), unless plots are
   off or the ``viz`` extra is missing.

Parts 1–4 run offline on the shipped URDFs. ``pip install "wbcpy[demo]"`` installs everything the demo
uses (matplotlib, meshcat, example-robot-data).

The demo is the list :data:`PARTS` of ``(key, function)`` pairs run in order; each function takes the
:class:`DemoContext` (output stream, solver, progress flag, results so far) and returns its result, kept in
``DemoResult.parts[key]``. A new part (another robot, an HTML report) is one function and one list entry;
a part's result with an ``ok`` attribute (or a plain bool) counts for :attr:`DemoResult.ok`.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import pinocchio as pin

from .._support.file_writers import FileWriters
from ..arl import Model as ArlModel
from ..ik import CtrlPose, MultiRefMinJerkCtrl
from ..ik.reaching import ReachResult, run_reach
from ..jspace import Model as JspaceModel
from ..jspace import State
from ..model.registry import load_robot, shipped_robots_dir
from ..reporting import STATUS_UNITS, ProgressBar, model_chain_table
from ..scenes import load_scene_file
from ..sim import SceneSimulation
from ..sim.simulation import SimulationResult
from ..viz.plotting import have_matplotlib, plot_contact_run, plot_reach, plot_scene_summary
from ..viz.walk_plots import plot_walk
from .talos import TalosRun as TalosRunType
from .talos import animate_talos

#: named PUMA configurations (rad), jspace joint order
PUMA_POSES: dict[str, tuple[float, ...]] = {
    "zero": (0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
    "ready": (0.0, -math.pi / 4, math.pi, 0.0, math.pi / 4, 0.0),
}
#: start configuration of the 7-DOF arm (rad)
ARM_Q0 = (0.3, 0.6, -0.2, -1.2, 0.3, 0.8, 0.1)

#: the AccelerationScene of step 3 (format of ``wbcpy scene`` files, see examples/scene_reach.yaml)
DEMO_SCENE: dict[str, Any] = {
    "robot": "lwr4",
    "q0": list(ARM_Q0),
    "dt": 0.005,
    "duration": 1.2,
    "joint_limits": True,
    "tasks": [
        {
            "name": "ee",
            "type": "cart",
            "tip": "lwr_ee",
            "priority": 0,
            "target": {"offset": [0.10, -0.15, 0.10], "rpy": [-2.6, -0.3, 2.7]},
            "kp": 100.0,
            "kd": 20.0,
        },
        {
            "name": "posture",
            "type": "jnt",
            "priority": 1,
            "joint_names": [f"lwr_joint_{i}" for i in range(1, 8)],
            "target": list(ARM_Q0),
            "kp": 10.0,
            "kd": 6.3,
        },
    ],
}


@dataclass
class DemoContext:
    """What every demo part gets: where to print, the QP backend, the progress flag, earlier results."""

    out: TextIO
    solver: str | None = None
    progress: bool = True
    results: dict[str, Any] = field(default_factory=dict)


@dataclass
class DemoResult:
    """What :func:`run_demo` computed (used by the tests and for the exit status).

    Attributes:
        parts: each part's result by key (``jspace``, ``arl``, ``scene``, ``reach``...).
        plots: the image files written (empty with plots off or without matplotlib).
        animations: the HTML animations written (empty with plots off or without the viz extra).
    """

    parts: dict[str, Any]
    plots: list[Path] = field(default_factory=list)
    animations: list[Path] = field(default_factory=list)

    @property
    def scene(self) -> SimulationResult:
        """The AccelerationScene simulation of part 3."""
        result: SimulationResult = self.parts["scene"]
        return result

    @property
    def talos(self) -> Any:
        """The Talos run of part 5 (:class:`~wbcpy.demo.talos.TalosRun`; True when it was skipped)."""
        return self.parts["talos"]

    @property
    def reach(self) -> ReachResult:
        """The min-jerk reach of part 4 (its controller is ``parts["reach_ctrl"]``)."""
        result: ReachResult = self.parts["reach"]
        return result

    @property
    def ok(self) -> bool:
        """Every part succeeded: the scene's end-effector errors below 1e-3 with the limits respected, the
        min-jerk reach in target, and every other part whose result says so.

        The posture task sits on the lower priority level and cannot reach its target while the
        end-effector task holds: its error is reported but not judged.
        """
        checks = [_part_ok(r) for k, r in self.parts.items() if k not in ("scene", "reach")]
        if "scene" in self.parts:
            ee = [v for k, v in self.scene.final_errors().items() if k.startswith("ee ")]
            checks.append(bool(ee) and max(ee) < 1e-3)
            checks.append(max(self.scene.limit_violation.values(), default=0.0) <= 1e-9)
        if "reach" in self.parts:
            checks.append(self.reach.reached)
        return all(checks)


def _part_ok(result: Any) -> bool:
    if isinstance(result, bool):
        return result
    return bool(getattr(result, "ok", True))


def _print_matrix(out: TextIO, name: str, m: np.ndarray) -> None:
    out.write(f"{name} =\n")
    rows = np.atleast_2d(m)
    for row in rows:
        out.write("  " + " ".join(f"{x:9.4f}" for x in row) + "\n")


def _jspace_part(ctx: DemoContext, pose: str = "ready") -> bool:
    out = ctx.out
    model = JspaceModel.load("puma560")
    q = np.array(PUMA_POSES[pose])
    qd = np.full(model.get_n_dof(), 0.5)
    model.update(State(q, qd))
    tip = model.get_n_nodes() - 1
    out.write(
        f"== 1. jspace::Model — PUMA 560, pose {pose!r} q = {np.round(q, 4).tolist()} rad, "
        f"q̇ = 0.5 rad/s each\n"
    )
    _print_matrix(out, "M [kg·m²]", model.get_mass_inertia())
    _print_matrix(out, "g [N·m]", model.get_gravity())
    _print_matrix(out, "b = C(q, q̇)q̇ [N·m]", model.get_coriolis_centrifugal())
    _print_matrix(
        out, f"J of node {tip} ({model.get_node_name(tip)}), linear over angular", model.compute_jacobian(tip)
    )
    frame = model.get_global_frame(tip)
    out.write(f"end-effector origin [m]: {np.round(frame.translation, 4).tolist()}\n\n")
    return True


def _arl_part(ctx: DemoContext) -> bool:
    model = ArlModel.from_config(shipped_robots_dir() / "bimanual_chains.yaml")
    ctx.out.write("== 2. arl::robot::Model — bimanual robot as kinematic chains\n")
    ctx.out.write(model_chain_table(model) + "\n\n")
    return True


def _scene_part(ctx: DemoContext) -> SimulationResult:
    out = ctx.out
    setup = load_scene_file(DEMO_SCENE, solver=ctx.solver)
    scene = setup.scene
    out.write(
        f"== 3. AccelerationScene — lwr4 reach, Cartesian task over posture, joint limits on, "
        f"{setup.steps} steps of {setup.dt:g} s, QP backend {getattr(scene.solver, 'name', '?')}\n"
    )
    result = SceneSimulation(setup).run(progress=ProgressBar(setup.steps) if ctx.progress else None)
    out.write(result.status.table() + "\n" + STATUS_UNITS + "\n")
    errors = ", ".join(f"{k} {v:.2e}" for k, v in result.final_errors().items())
    worst = max(result.limit_violation.values(), default=0.0)
    out.write(f"final target errors: {errors}\n")
    out.write(f"joint limits: {'respected' if worst <= 1e-9 else f'VIOLATED by {worst:.3g}'}\n")
    out.write(
        f"update()+solve() per control step: median {result.median_step_us:.1f} µs, "
        f"p95 {result.p95_step_us:.1f} µs\n\n"
    )
    return result


def _reach_part(ctx: DemoContext) -> ReachResult:
    out = ctx.out
    robot = load_robot("lwr4")
    chain = robot.chain("lwr_base_link", "lwr_ee")
    ctrl = MultiRefMinJerkCtrl(chain, CtrlPose.FULL, 0.01, q0=ARM_Q0)
    ctrl.set_exec_time(1.0)
    ctrl.set_in_target_tol(1e-3)
    start = ctrl.get_pose()
    target = pin.SE3(
        start.rotation @ pin.rpy.rpyToMatrix(0.3, -0.2, 0.4),
        start.translation + np.array([-0.15, 0.20, -0.10]),
    )
    out.write(
        "== 4. MultiRefMinJerkCtrl — lwr4 min-jerk reach (T = 1 s, Ts = 0.01 s, FULL pose) to "
        f"{np.round(target.translation, 3).tolist()} m\n"
    )
    result = run_reach(ctrl, target, max_steps=500)
    verdict = "in target" if result.reached else "NOT in target"
    out.write(
        f"{verdict} after {result.steps} steps ({result.steps * ctrl.Ts:g} s); final error "
        f"{result.position_error:.2e} m, {result.rotation_error:.2e} rad; iterate() median "
        f"{result.median_us:.1f} µs\n\n"
    )
    ctx.results["reach_ctrl"] = ctrl
    return result


def _talos_part(ctx: DemoContext) -> Any:
    out = ctx.out
    from ..model.registry import example_robot_data_dir

    if example_robot_data_dir() is None:
        out.write('== 5. InverseDynamicsScene — Talos: skipped, example-robot-data is not installed '
                  '(pip install "wbcpy[demo]")\n\n')  # fmt: skip
        return True
    from .talos import run_talos

    out.write(
        "== 5. InverseDynamicsScene — Talos (half_sitting, soles μ = 0.3, URDF torque limits): COM over the "
        "left foot, lift the right foot 5 cm, put it down, shift back; rigid-contact simulation of τ\n"
    )
    run = run_talos(ctx.solver)
    mg = run.mass * 9.81
    v = run.violation
    out.write(
        f"feet never slip or tip: contact wrenches outside their cones by ≤ {v['friction cone']:.2g} N, "
        f"normal forces outside their bounds by {v['normal force']:.2g} N (m g = {mg:.0f} N)\n"
        f"torques: largest |τ| / limit {np.max(np.abs(run.tau) / run.effort_limit):.2f}; COM inside the "
        f"support polygon by ≥ {100 * run.com_margin:.1f} cm; lifted foot at its target apex within "
        f"{1000 * run.foot_error:.1f} mm\n"
        f"update()+solve() per control step: median {np.median(run.step_us):.0f} µs, "
        f"p95 {np.percentile(run.step_us, 95):.0f} µs ({len(run.step_us)} steps of "
        f"{run.time[1] - run.time[0]:g} s) — {'ok' if run.ok else 'FAILED'}\n\n"
    )
    return run


#: the demo's walk: footsteps, step length (m)
WALK_STEPS, WALK_LENGTH = 4, 0.1


def _walk_part(ctx: DemoContext) -> Any:
    out = ctx.out
    from ..model.registry import example_robot_data_dir

    if example_robot_data_dir() is None:
        out.write(
            "== 6. walking — Talos: skipped, example-robot-data is not installed "
            '(pip install "wbcpy[demo]")\n\n'
        )
        return True
    from ..locomotion import walk
    from ..sim.mujoco import mujoco_available

    plant = "mujoco" if mujoco_available() else "pinocchio"
    where = (
        "MuJoCo"
        if plant == "mujoco"
        else "rigid-contact plant (pip install 'wbcpy[mujoco]' to walk in MuJoCo)"
    )
    out.write(
        f"== 6. walking — Talos: {WALK_STEPS} steps of {WALK_LENGTH} m, torque-controlled, in the {where}\n"
    )
    summary = walk("talos", n_steps=WALK_STEPS, length=WALK_LENGTH, solver=ctx.solver, plant=plant)
    out.write(summary.text() + "\n\n")
    return summary


#: the demo, in order: (key of the result, part); see the module docstring
PARTS: list[tuple[str, Callable[[DemoContext], Any]]] = [
    ("jspace", _jspace_part),
    ("arl", _arl_part),
    ("scene", _scene_part),
    ("reach", _reach_part),
    ("talos", _talos_part),
    ("walk", _walk_part),
]


def _plots(out: TextIO, folder: Path, parts: dict[str, Any]) -> list[Path]:
    """Step 6: one light PNG per simulated part (a few axes each: matplotlib's cost is per axes)."""
    folder.mkdir(parents=True, exist_ok=True)
    files: dict[str, Callable[[Path], Any]] = {}
    if "scene" in parts:
        scene, robot = parts["scene"], load_robot("lwr4")
        files["scene.png"] = lambda p: plot_scene_summary(
            p, scene.time, scene.errors, scene.q_path, robot.joint_names, robot.lower_position_limit,
            robot.upper_position_limit, "AccelerationScene reach: target errors and joints",
        )  # fmt: skip
    if "reach" in parts:
        files["reach.png"] = lambda p: plot_reach(p, parts["reach"], parts["reach_ctrl"].chain, joints=False)
    if isinstance(parts.get("talos"), TalosRunType):
        files["talos.png"] = lambda p: plot_contact_run(p, parts["talos"])
    walked = parts.get("walk")
    if walked is not None and walked is not True:
        files["walk.png"] = lambda p: plot_walk(
            p, walked.robot, walked.log, f"Talos walking ({walked.plant})"
        )
    written = []
    for name, draw in files.items():
        path = folder / name
        draw(path)
        written.append(path)
    out.write("== 7. plots\n" + "".join(f"wrote {p}\n" for p in written))
    return written


def _animation_writers(parts: dict[str, Any]) -> dict[str, Callable[[Path], Path]]:
    """Step 7: one HTML animation per entry (file name -> writer)."""
    from ..viz import animate_reach, animate_scene
    from ..viz.walk_plots import animate_walk

    animations: dict[str, Callable[[Path], Path]] = {}
    if "scene" in parts:
        animations["scene_reach.html"] = lambda p: animate_scene(
            load_scene_file(DEMO_SCENE), parts["scene"], p
        )
    if "reach" in parts:
        animations["reach.html"] = lambda p: animate_reach(parts["reach_ctrl"].chain, parts["reach"], p)
    if isinstance(parts.get("talos"), TalosRunType):
        animations["talos.html"] = lambda p: animate_talos(parts["talos"], p)
    walked = parts.get("walk")
    if walked is not None and walked is not True:
        animations["walk.html"] = lambda p: animate_walk(walked.robot, walked.log, p, title="Talos walking")
    return animations


class _Animations:
    """Step 7, written in a forked process while this one draws the plots
    (:mod:`wbcpy._support.file_writers`)."""

    def __init__(self, out: TextIO, folder: Path, parts: dict[str, Any], background: bool) -> None:
        from ..viz import INSTALL_HINT, have_viz

        self.out, self._writers = out, None
        if not have_viz():
            out.write(f"== 8. animations: skipped, the viz extra is not installed ({INSTALL_HINT})\n")
            return
        folder.mkdir(parents=True, exist_ok=True)
        self._writers = FileWriters(_animation_writers(parts), folder, background)

    def result(self) -> list[Path]:
        """The files written (waits for them); raises WbcpyError when a writer failed."""
        if self._writers is None:
            return []
        paths = self._writers.result()
        self.out.write(
            "== 8. animations (open from disk, no network)\n" + "".join(f"wrote {p}\n" for p in paths)
        )
        return paths


def run_demo(
    out_dir: str | Path = "wbcpy-demo",
    solver: str | None = None,
    plots: bool = True,
    out: TextIO | None = None,
    progress: bool = True,
    parts: tuple[str, ...] | None = None,
    background: bool = True,
) -> DemoResult:
    """Run the demo's :data:`PARTS`, printing to ``out`` (default stdout); returns what they computed.

    Args:
        out_dir: folder for the PNG plots (created when needed).
        solver: QP backend of the scenes (None: the default backend).
        plots: write the plots (skipped with a note when matplotlib is missing).
        progress: draw a progress bar on stderr during the scene simulation.
        parts: keys of the parts to run (default: all, in :data:`PARTS` order).
        background: write the HTML animations in a forked process while the plots are drawn (where
            fork exists); False: one after the other, in this process.
    """
    ctx = DemoContext(out if out is not None else sys.stdout, solver, progress)
    for key, part in PARTS:
        if parts is None or key in parts:
            ctx.results[key] = part(ctx)
    result = DemoResult(ctx.results)
    animations = _Animations(ctx.out, Path(out_dir), ctx.results, background) if plots else None
    if not plots:
        ctx.out.write("== 7. plots: off (--no-plots)\n")
    elif not have_matplotlib():
        ctx.out.write("== 7. plots: skipped, matplotlib is not installed (pip install 'wbcpy[plot]')\n")
    else:
        result.plots = _plots(ctx.out, Path(out_dir), ctx.results)
    if animations is not None:
        result.animations = animations.result()
    return result
