"""Benchmark: AccelerationScene ``update() + solve()`` per backend, next to the raw Pinocchio floor and pink.

Cases (one control step each, the robot state is set anew every call so no cache survives):

* ``arm``: lwr4 (7 DOF) with a Cartesian task (flange, 6 rows) and a posture task (7 rows, weight 1e-3)
  on one level, like pink's single weighted QP, and joint limits (position, velocity, acceleration
  bounds); one extra row puts the posture on a second priority level (default backend only).
* ``talos``: Talos (38 DOF, floating base) with a COM task and two foot Cartesian tasks (world root,
  priority 0), a posture task over the 32 actuated joints (priority 1) and joint limits.

Rows per case: ``robot.update(q, v) + scene.update()`` alone, then ``+ scene.solve()`` for every available
backend. The floor (ratio 1) is the raw Pinocchio work for the same state: ``computeAllTerms`` plus
``getFrameJacobian`` and ``getFrameClassicalAcceleration`` of every frame the tasks use (and
``centerOfMass(q, v, 0)`` for the COM bias). For the arm, pink's step (``Configuration.update(q)`` +
``solve_ik`` with a FrameTask and a PostureTask, same backend name, pink's default configuration
limits) is measured too when pin-pink is installed. Cases of one robot are measured interleaved.

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

from _timing import Row, Timing, measure_interleaved, print_table

from wbcpy import load_robot
from wbcpy.errors import WbcpyError
from wbcpy.qp import available_solvers, default_solver
from wbcpy.scenes import AccelerationScene
from wbcpy.tasks import CartesianReference, ComReference, JointReference, TaskConfig

LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
ARM_Q = np.array([0.3, 0.6, -0.2, -1.2, 0.3, 0.8, 0.1])


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


def _run_robot(name: str, solvers: list[str], repeat: int) -> list[Row]:
    rng = np.random.default_rng(0)
    if name == "arm":
        robot = load_robot("lwr4")
        q, v = ARM_Q.copy(), rng.normal(scale=0.3, size=robot.nv)
        floor_fn = _floor(robot, q, v, ["lwr_ee"], com=False)
        make = _arm_scene
        label = "lwr4: cart + posture (one level, posture weight 1e-3) + limits"
    else:
        robot = load_robot("talos")
        bent = {
            f"leg_{s}_{k}_joint": a for s in ("left", "right") for k, a in ((3, -0.4), (4, 0.8), (5, -0.4))
        }
        dofs = robot.dof_from_q(robot.neutral())
        for joint, angle in bent.items():
            dofs[robot.joint_v_index(joint)] = angle
        dofs[2] = 1.0
        q, v = robot.q_from_dof(dofs), rng.normal(scale=0.1, size=robot.nv)
        floor_fn = _floor(robot, q, v, ["left_sole_link", "right_sole_link"], com=True)
        make = _talos_scene
        label = "talos: com + 2 feet + posture + limits"
    robot.update(q, v)
    labels = ["floor: computeAllTerms + frame J, J̇q̇"]
    fns: list[Callable[[], None]] = [floor_fn]
    first = make(robot, solvers[0])
    labels.append("robot.update + scene.update()")
    fns.append(_scene_step(first, q, v, solve=False))
    for solver in solvers:
        scene = make(robot, solver)
        try:
            _scene_step(scene, q, v, solve=True)()
        except WbcpyError as exc:
            print(f"{name}/{solver}: skipped ({exc})", file=sys.stderr)
            continue
        labels.append(f"update + solve [{solver}]" + (" (default)" if solver == default_solver() else ""))
        fns.append(_scene_step(scene, q, v, solve=True))
        if name == "arm":
            pink_fn = _pink_step(robot, q, solver)
            if pink_fn is not None:
                try:
                    pink_fn()
                except Exception as exc:  # a peer failing must not stop the benchmark
                    print(f"pink/{solver}: skipped ({type(exc).__name__}: {exc})", file=sys.stderr)
                else:
                    labels.append(f"pink update + solve_ik [{solver}]")
                    fns.append(pink_fn)
    if name == "arm":
        two = _arm_scene(robot, solvers[0], levels=2)
        labels.append(f"update + solve, 2 levels [{solvers[0]}]")
        fns.append(_scene_step(two, q, v, solve=True))
    timings = measure_interleaved(fns, n_repeat=repeat, warmup=50, block=25)
    floor = timings[0]
    rows = [Row(labels[0], floor)]
    by_label = dict(zip(labels, timings, strict=True))
    for lab, tim in zip(labels[1:], timings[1:], strict=True):
        note = ""
        if lab.startswith("update + solve"):
            solver = lab.split("[")[1].split("]")[0]
            peer = by_label.get(f"pink update + solve_ik [{solver}]")
            if peer is not None:
                note = f"{tim.median_us / peer.median_us:.2f}× pink"
        rows.append(Row(lab, tim, floor, note))
    print_table(rows, title=f"\n{label} ({robot.nv} DOF), state set anew every call; ratio = median / floor")
    _summary(rows, floor)
    return rows


def _summary(rows: list[Row], floor: Timing) -> None:
    default = default_solver()
    for row in rows:
        if row.label.startswith(f"update + solve [{default}]"):
            ratio = row.timing.median_us / floor.median_us
            pink = f", {row.note} (target ≤ 0.5×)" if row.note else ""
            print(f"default backend {default}: {ratio:.1f}× floor (target ≤ 8×){pink}")


def main(argv: list[str] | None = None) -> int:
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
