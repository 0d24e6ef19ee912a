"""Benchmark: AccelerationScene ``update() + solve()`` per backend, next to the raw Pinocchio floor and pink.

One control step per call; the robot state is set anew at every call (``robot.update(q, v)``), so no
cached kinematics survive from one call to the next. Everything of one robot is measured interleaved
(alternating blocks) in the same run, so the ratios are side-by-side figures.

Cases
-----
``arm`` — KUKA LWR4, 7 DOF, fixed base (``robots/lwr4.urdf``), dt = 1 ms, λ = 1e-8:

* level 0: ``ee``: Cartesian task of ``lwr_ee`` relative to the base (6 rows, weights 1), and
  ``posture``: joint task over the 7 joints (weights 1e-3) — one weighted least-squares level, as
  pink's FrameTask + PostureTask(cost=1e-3);
* joint limits on: position, velocity and acceleration (10 × v_max) limits, braking stage, as bounds
  on q̈ (13 rows, 7 bounded variables);
* extra row ``2 levels``: the same tasks with the posture (weights 1) at priority 1 (strict hierarchy).

``talos`` — Talos, 38 DOF with the free-flyer (example-robot-data), bent knees, random velocity;
several arm joints sit at a position limit, so some bounds collapse (full braking, fixed variables):

* level 0: ``com`` (3 rows) and both soles (``left_sole_link``, ``right_sole_link``, world root,
  6 rows each); level 1: ``posture`` over the 32 actuated joints; joint limits on.

Rows
----
* ``floor``: the raw Pinocchio work for the same state — ``computeAllTerms`` plus
  ``getFrameJacobian`` and ``getFrameClassicalAcceleration`` of every frame the tasks use (and
  ``centerOfMass(q, v, 0)`` for the COM bias). Ratios are medians over this floor.
* ``robot.update + scene.update()``: building the problem only.
* ``update + solve [backend]``: one full step (``robot.update`` + ``scene.update()`` +
  ``scene.solve()``), for every backend of ``wbcpy.qp.available_solvers()``.
* arm only, when pin-pink is installed: pink's step ``Configuration.update(q)`` +
  ``solve_ik(config, [FrameTask(cost 1, 1), PostureTask(cost 1e-3)], dt)`` (pink's configuration
  limits), with the same backend, and with pink's default choice (its examples use quadprog when
  installed, else the first qpsolvers backend).

Targets (issue, acceptance point 14) for the default backend: ≤ 8× the floor, ≤ 0.5× pink's step.

Run: ``python benchmarks/bench_scene.py [--repeat N] [--solvers daqp osqp ...] [--robots arm talos]``.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pinocchio as pin

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _timing import Row, Timing, measure_interleaved, print_cpu, print_table

from wbcpy import AccelerationScene, load_robot
from wbcpy.errors import WbcpyError
from wbcpy.qp import available_solvers, default_solver
from wbcpy.tasks import CartesianReference, ComReference, JointReference, TaskConfig

LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
ARM_Q = np.array([0.3, 0.6, -0.2, -1.2, 0.3, 0.8, 0.1])
FLOOR = "floor: computeAllTerms + frame J, J̇q̇"


def _floor(robot, q: np.ndarray, v: np.ndarray, frames: list[str], com: bool) -> Callable[[], None]:
    model, data = robot.model, robot.model.createData()
    fids = [model.getFrameId(f) for f in frames]
    zero = np.zeros(model.nv)

    def run() -> None:
        pin.computeAllTerms(model, data, q, v)
        for fid in fids:
            pin.getFrameJacobian(model, data, fid, LWA)
            pin.getFrameClassicalAcceleration(model, data, fid, LWA)
        if com:
            pin.centerOfMass(model, data, q, v, zero)

    return run


def _scene_step(scene: AccelerationScene, q: np.ndarray, v: np.ndarray, solve: bool) -> Callable[[], None]:
    robot = scene.robot

    def update_only() -> None:
        robot.update(q, v)
        scene.update()

    def step() -> None:
        robot.update(q, v)
        scene.solve(scene.update())

    return step if solve else update_only


def _arm_scene(robot, solver: str, levels: int = 1) -> AccelerationScene:
    """One level (posture weighted 1e-3 next to the Cartesian task, as pink's costs) or two levels."""
    scene = AccelerationScene(robot, solver=solver, joint_limits=True)
    posture_w = [1.0] * robot.nv if levels == 2 else [1e-3] * robot.nv
    scene.configure(
        [
            TaskConfig("ee", "cart", tip="lwr_ee"),
            TaskConfig(
                "posture", "jnt", joint_names=robot.joint_names, priority=levels - 1, weights=posture_w
            ),
        ]
    )
    scene.set_reference("ee", CartesianReference(np.array([0.5, -0.2, 0.3, 0.1, 0.2, -0.1])))
    scene.set_reference("posture", JointReference(np.zeros(robot.nv)))
    return scene


def _talos_scene(robot, solver: str) -> AccelerationScene:
    actuated = [n for n in robot.joint_names if n != "root_joint"]
    scene = AccelerationScene(robot, solver=solver, joint_limits=True)
    scene.configure(
        [
            TaskConfig("com", "com"),
            TaskConfig("left_foot", "cart", root="universe", tip="left_sole_link"),
            TaskConfig("right_foot", "cart", root="universe", tip="right_sole_link"),
            TaskConfig("posture", "jnt", joint_names=actuated, priority=1),
        ]
    )
    scene.set_reference("com", ComReference(np.array([0.0, 0.05, -0.1])))
    scene.set_reference("left_foot", CartesianReference(np.zeros(6)))
    scene.set_reference("right_foot", CartesianReference(np.zeros(6)))
    scene.set_reference("posture", JointReference(np.zeros(len(actuated))))
    return scene


def pink_default_solver() -> str | None:
    """The backend pink's examples pick: quadprog when installed, else the first qpsolvers backend."""
    try:
        import qpsolvers
    except ImportError:  # pragma: no cover - qpsolvers is a core dependency
        return None
    names = list(qpsolvers.available_solvers)
    if not names:
        return None
    return "quadprog" if "quadprog" in names else names[0]


def _pink_step(robot, q: np.ndarray, solver: str) -> Callable[[], None] | None:
    try:
        import pink
        from pink.tasks import FrameTask, PostureTask
    except ImportError:
        return None
    model = robot.model
    config = pink.Configuration(model, model.createData(), q)
    ee = FrameTask("lwr_ee", position_cost=1.0, orientation_cost=1.0)
    ee.set_target(config.get_transform_frame_to_world("lwr_ee") * pin.SE3(np.eye(3), np.array([0.05, 0, 0])))
    posture = PostureTask(cost=1e-3)
    posture.set_target(q)
    tasks = [ee, posture]

    def step() -> None:
        config.update(q)
        pink.solve_ik(config, tasks, 1e-3, solver=solver)

    return step


def _add_pink(robot, q, solver: str, label: str, labels: list[str], fns: list) -> None:
    if label in labels:
        return
    pink_fn = _pink_step(robot, q, solver)
    if pink_fn is None:
        return
    try:
        pink_fn()
    except Exception as exc:  # a peer failing must not stop the benchmark
        print(f"pink/{solver}: skipped ({type(exc).__name__}: {exc})", file=sys.stderr)
        return
    labels.append(label)
    fns.append(pink_fn)


def _talos_state(robot, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    bent = {f"leg_{s}_{k}_joint": a for s in ("left", "right") for k, a in ((3, -0.4), (4, 0.8), (5, -0.4))}
    dofs = robot.dof_from_q(robot.neutral())
    for joint, angle in bent.items():
        dofs[robot.joint_v_index(joint)] = angle
    dofs[2] = 1.0
    return robot.q_from_dof(dofs), rng.normal(scale=0.1, size=robot.nv)


def _robot_case(name: str, rng: np.random.Generator):
    """(robot, q, v, floor step, scene factory, title) of the ``arm`` or the ``talos`` case."""
    if name == "arm":
        robot = load_robot("lwr4")
        q, v = ARM_Q.copy(), rng.normal(scale=0.3, size=robot.nv)
        floor_fn = _floor(robot, q, v, ["lwr_ee"], com=False)
        label = "lwr4: level 0 = ee (6 rows, w 1) + posture (7 rows, w 1e-3); joint limits"
        return robot, q, v, floor_fn, _arm_scene, label
    robot = load_robot("talos")
    q, v = _talos_state(robot, rng)
    floor_fn = _floor(robot, q, v, ["left_sole_link", "right_sole_link"], com=True)
    label = "talos: level 0 = com + 2 soles (15 rows), level 1 = posture (32 rows); joint limits"
    return robot, q, v, floor_fn, _talos_scene, label


def _cases(
    name: str, robot, q: np.ndarray, v: np.ndarray, make, solvers: list[str], pink_default: str | None
) -> tuple[list[str], list[Callable[[], None]]]:
    """Labels and steps after the floor: update alone, update + solve per backend (a backend that fails
    is skipped), and for the arm pink per backend, pink's default backend and a 2-level scene."""
    default = default_solver()
    labels = ["robot.update + scene.update()"]
    fns: list[Callable[[], None]] = [_scene_step(make(robot, solvers[0]), q, v, solve=False)]
    for solver in solvers:
        scene = make(robot, solver)
        try:
            _scene_step(scene, q, v, solve=True)()
        except WbcpyError as exc:
            print(f"{name}/{solver}: skipped ({exc})", file=sys.stderr)
            continue
        labels.append(f"update + solve [{solver}]" + (" (default)" if solver == default else ""))
        fns.append(_scene_step(scene, q, v, solve=True))
        if name == "arm":
            _add_pink(robot, q, solver, f"pink update + solve_ik [{solver}]", labels, fns)
    if name == "arm":
        if pink_default is not None:
            _add_pink(robot, q, pink_default, f"pink update + solve_ik [{pink_default}]", labels, fns)
        two = _arm_scene(robot, solvers[0], levels=2)
        labels.append(f"update + solve, 2 levels (posture w 1 at priority 1) [{solvers[0]}]")
        fns.append(_scene_step(two, q, v, solve=True))
    return labels, fns


def _notes(lab: str, tim: Timing, by_label: dict[str, Timing], pink_default: str | None) -> str:
    """The note of one row: how a wbcpy step compares to pink on the same and on pink's default backend."""
    notes = []
    if lab.startswith("update + solve"):
        solver = lab.rsplit("[", 1)[1].split("]")[0]
        peer = by_label.get(f"pink update + solve_ik [{solver}]")
        if peer is not None:
            notes.append(f"{tim.median_us / peer.median_us:.2f}× pink[{solver}]")
        pink_def = by_label.get(f"pink update + solve_ik [{pink_default}]")
        if pink_def is not None and solver != pink_default:
            notes.append(f"{tim.median_us / pink_def.median_us:.2f}× pink[{pink_default}]")
    elif lab.startswith("pink") and pink_default is not None and lab.endswith(f"[{pink_default}]"):
        notes.append("pink's default backend")
    return ", ".join(notes)


def _run_robot(name: str, solvers: list[str], repeat: int) -> list[Row]:
    rng = np.random.default_rng(0)
    pink_default = pink_default_solver()
    robot, q, v, floor_fn, make, label = _robot_case(name, rng)
    robot.update(q, v)
    labels, fns = _cases(name, robot, q, v, make, solvers, pink_default)
    labels, fns = [FLOOR, *labels], [floor_fn, *fns]
    timings = measure_interleaved(fns, n_repeat=repeat, warmup=50, block=25)
    by_label = dict(zip(labels, timings, strict=True))
    floor = timings[0]
    rows = [Row(labels[0], floor)]
    for lab, tim in zip(labels[1:], timings[1:], strict=True):
        rows.append(Row(lab, tim, floor, _notes(lab, tim, by_label, pink_default)))
    print_table(rows, title=f"\n{label} ({robot.nv} DOF), state set anew every call; ratio = median / floor")
    _summary(rows, floor, by_label, pink_default)
    return rows


def _summary(rows: list[Row], floor: Timing, by_label: dict[str, Timing], pink_default: str | None) -> None:
    default = default_solver()
    for row in rows:
        if row.label == f"update + solve [{default}] (default)":
            med = row.timing.median_us
            text = f"default backend {default}: {med / floor.median_us:.1f}× floor (target ≤ 8×)"
            for solver in dict.fromkeys((default, pink_default)):
                peer = by_label.get(f"pink update + solve_ik [{solver}]")
                if peer is not None:
                    text += f", {med / peer.median_us:.2f}× pink[{solver}]"
            if any(k.startswith("pink") for k in by_label):
                text += " (target ≤ 0.5×)"
            print(text)


def main(argv: list[str] | None = None) -> int:
    print_cpu()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1000, help="samples per case (default 1000)")
    parser.add_argument("--solvers", nargs="*", default=None, help="backends (default: all available)")
    parser.add_argument("--robots", nargs="*", default=["arm", "talos"], choices=["arm", "talos"])
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", module="qpsolvers")  # pink's qpsolvers calls warn about conversions
    solvers = args.solvers or available_solvers()
    default = default_solver()
    solvers = sorted(solvers, key=lambda s: (s != default, s))
    for name in args.robots:
        try:
            _run_robot(name, solvers, args.repeat)
        except WbcpyError as exc:
            print(f"{name}: skipped ({exc})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
