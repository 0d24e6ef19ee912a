"""Soak test (not part of CI): long closed loops, watching memory, NaNs and step-time drift.

Four loops, each ``--steps`` control steps (default 1e5) of the code a user writes:

* ``arm``: the ``examples/scene_reach.yaml`` AccelerationScene on lwr4 (Cartesian ``ee`` task over a
  ``posture`` task, joint limits on, default backend), CartesianPD/JointPD references, semi-implicit Euler
  at dt = 1 ms; the Cartesian target moves on a 5 cm circle (period 4 s) so the loop never settles.
* ``talos``: an AccelerationScene on Talos with its free-flyer (example-robot-data): COM and both soles at
  level 0, posture of the 32 actuated joints at level 1, joint limits on; the COM target sways ±3 cm
  sideways (period 2 s), the soles hold their initial poses; dt = 1 ms.
* ``contact``: an InverseDynamicsScene on Talos standing on both soles (SRDF ``half_sitting``, surface
  contacts 0.2 × 0.13 m, μ = 0.3, effort limits on): COM (PD, kp 100, kd 20) swaying ±2 cm sideways
  (period 2 s) and posture (weight 1e-3, PD towards half_sitting) in one level; its joint torques τ drive
  Pinocchio's rigid-contact dynamics (:class:`~wbcpy.sim.contact_plant.ContactPlant`), dt = 1 ms.
  A step is the controller and the plant; a non-finite q, v, q̈, τ or contact wrench counts as bad.
* ``multiref``: ``MultiRefMinJerkCtrl`` on the lwr4 chain, Ts = 10 ms, the target pose moving on the same
  circle; the joint target comes from the controller's bounded DLS IK (a new IK every 10 steps).

Every ``--block`` steps (default 1e4) it prints the resident set size (RSS, MB, from /proc/self/statm),
the number of steps with a non-finite q, v or q̈ so far, and the median / p95 step time of the block;
the last line gives the drift (last block's median over the first's) and the RSS growth.

The contact loop also prints the plant's largest friction-cone / normal-force / effort excess over the run.

Run: ``python benchmarks/soak.py [--steps N] [--block N] [--loops arm talos contact multiref]``.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pinocchio as pin
from _timing import print_cpu

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from wbcpy import AccelerationScene, InverseDynamicsScene, RobotModel, load_robot
from wbcpy.contacts import SurfaceContact
from wbcpy.controllers import CartesianPD, ComPD, JointPD
from wbcpy.errors import UnknownNameError
from wbcpy.ik import MultiRefMinJerkCtrl
from wbcpy.sim.contact_plant import ContactPlant
from wbcpy.tasks import TaskConfig

DT = 0.001
_PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_mb() -> float:
    """Current resident set size of this process in MB (Linux /proc)."""
    with open("/proc/self/statm", encoding="ascii") as f:
        return int(f.read().split()[1]) * _PAGE / 2**20


def _circle(center: np.ndarray, t: float, radius: float = 0.05, period: float = 4.0) -> np.ndarray:
    w = 2.0 * np.pi / period
    return center + radius * np.array([0.0, np.cos(w * t) - 1.0, np.sin(w * t)])


def _plant(robot: RobotModel, scene: AccelerationScene, q0: np.ndarray) -> Callable[[], bool]:
    """Solve the scene and integrate q̈ (semi-implicit Euler, an ideal acceleration-controlled robot);
    the returned function gives False when a non-finite q̈ or q appeared."""
    state = {"q": q0.copy(), "v": np.zeros(robot.nv)}

    def integrate() -> bool:
        scene.solve(scene.update())
        qdd = scene.get_solver_output_raw()  # full q̈ (nv; the free-flyer included)
        v = state["v"] + qdd * DT
        q = pin.integrate(robot.model, state["q"], v * DT)
        state["q"], state["v"] = q, v
        robot.update(q, v, qdd)
        return bool(np.isfinite(qdd).all() and np.isfinite(q).all())

    return integrate


def arm_loop() -> Callable[[int], bool]:
    """One step of the lwr4 reaching scene; returns False when a non-finite value appeared."""
    robot = load_robot("lwr4")
    q0 = np.array([0.3, 0.6, -0.2, -1.2, 0.3, 0.8, 0.1])
    robot.update(q0, np.zeros(7))
    scene = AccelerationScene(robot, dt=DT, joint_limits=True)
    scene.configure(
        [
            TaskConfig(name="ee", type="cart", tip="lwr_ee", priority=0),
            TaskConfig(name="posture", type="jnt", joint_names=robot.joint_names, priority=1),
        ]
    )
    ee, posture = scene.get_task("ee"), scene.get_task("posture")
    start = ee.pose()
    ee_pd, posture_pd = CartesianPD(kp=100.0, kd=20.0), JointPD(kp=10.0, kd=6.3)
    integrate = _plant(robot, scene, q0)

    def step(k: int) -> bool:
        target = pin.SE3(start.rotation, _circle(start.translation, k * DT))
        scene.set_reference("ee", ee_pd.reference(ee, target))
        scene.set_reference("posture", posture_pd.reference(posture, q0))
        return integrate()

    return step


def talos_loop() -> Callable[[int], bool]:
    """One step of the Talos COM + feet + posture scene."""
    robot = load_robot("talos")
    bent = {f"leg_{s}_{k}_joint": a for s in ("left", "right") for k, a in ((3, -0.4), (4, 0.8), (5, -0.4))}
    dofs = robot.dof_from_q(robot.neutral())
    for joint, angle in bent.items():
        dofs[robot.joint_v_index(joint)] = angle
    dofs[2] = 1.0
    q0 = robot.q_from_dof(dofs)
    robot.update(q0, np.zeros(robot.nv))
    actuated = [n for n in robot.joint_names if n != "root_joint"]
    scene = AccelerationScene(robot, dt=DT, joint_limits=True)
    scene.configure(
        [
            TaskConfig("com", "com"),
            TaskConfig("left_foot", "cart", root="universe", tip="left_sole_link"),
            TaskConfig("right_foot", "cart", root="universe", tip="right_sole_link"),
            TaskConfig("posture", "jnt", joint_names=actuated, priority=1),
        ]
    )
    tasks = {name: scene.get_task(name) for name in ("com", "left_foot", "right_foot", "posture")}
    com0 = tasks["com"].position()
    feet = {name: tasks[name].pose() for name in ("left_foot", "right_foot")}
    posture0 = np.array([q0[robot.joint_q_index(j)] for j in actuated])
    com_pd, foot_pd, posture_pd = (
        ComPD(kp=50.0, kd=14.0),
        CartesianPD(kp=100.0, kd=20.0),
        JointPD(kp=10.0, kd=6.3),
    )
    integrate = _plant(robot, scene, q0)

    def step(k: int) -> bool:
        sway = com0 + np.array([0.0, 0.03 * np.sin(np.pi * k * DT), 0.0])
        scene.set_reference("com", com_pd.reference(tasks["com"], sway))
        for name, pose in feet.items():
            scene.set_reference(name, foot_pd.reference(tasks[name], pose))
        scene.set_reference("posture", posture_pd.reference(tasks["posture"], posture0))
        return integrate()

    return step


def contact_loop() -> Callable[[int], bool]:
    """One control + plant step of Talos standing on its soles (InverseDynamicsScene, contact plant)."""
    robot = load_robot("talos")
    q0 = robot.reference_configuration("half_sitting")
    robot.update(q0, np.zeros(robot.nv))
    soles = ("left_sole_link", "right_sole_link")
    scene = InverseDynamicsScene(robot, dt=DT, effort_limits=True)
    scene.set_contacts([SurfaceContact(f, half_size=(0.1, 0.065), mu=0.3) for f in soles])
    joints = [n for n in robot.joint_names if robot.model.joints[robot.joint_id(n)].nv == 1]
    scene.configure(
        [
            {"name": "com", "type": "com"},
            {"name": "posture", "type": "jnt", "joint_names": joints, "weights": [1e-3] * len(joints)},
        ]
    )
    com_task, posture_task = scene.get_task("com"), scene.get_task("posture")
    com0, posture0 = robot.com(), q0[7:].copy()
    com_pd, posture_pd = ComPD(kp=100.0, kd=20.0), JointPD(kp=10.0, kd=2.0 * np.sqrt(10.0))
    plant = ContactPlant(scene, q0, np.zeros(robot.nv), DT)
    w = np.pi  # rad/s: period 2 s

    def step(k: int) -> bool:
        t = k * DT
        sway = np.array([0.0, 0.02 * np.sin(w * t), 0.0])
        vel = np.array([0.0, 0.02 * w * np.cos(w * t), 0.0])
        scene.set_reference("com", com_pd.reference(com_task, com0 + sway, vel, -(w**2) * sway))
        scene.set_reference("posture", posture_pd.reference(posture_task, posture0))
        tau = scene.solve(scene.update()).effort
        q, v, qdd = plant.step()
        robot.update(q, v)
        values = [q, v, qdd, tau, *plant.sim.wrenches.values()]
        return all(np.isfinite(x).all() for x in values)

    step.plant = plant  # type: ignore[attr-defined]  # its violation record is printed at the end
    return step


def multiref_loop() -> Callable[[int], bool]:
    """One iterate() of the min-jerk controller towards a moving target (IK joint targets)."""
    chain = load_robot("lwr4").chain("lwr_base_link", "lwr_ee")
    q0 = np.array([0.3, 0.6, -0.2, -1.2, 0.3, 0.8, 0.1])
    ctrl = MultiRefMinJerkCtrl(chain, "full", 0.01, q0=q0)
    start = chain.fk(q0)

    def step(k: int) -> bool:
        xd = pin.SE3(start.rotation, _circle(start.translation, (k // 10) * 0.1))
        q = ctrl.iterate(xd)
        return bool(np.isfinite(q).all() and np.isfinite(ctrl.get_qdot()).all())

    return step


LOOPS = {"arm": arm_loop, "talos": talos_loop, "contact": contact_loop, "multiref": multiref_loop}


def soak(name: str, steps: int, block: int) -> None:
    """Run one loop and print its table."""
    try:
        step = LOOPS[name]()
    except UnknownNameError as exc:  # example-robot-data missing
        print(f"skipping {name}: {exc}", file=sys.stderr)
        return
    print(f"\n{name}: {steps} steps, a row every {block}")
    print(f"{'steps':>8}  {'RSS MB':>8}  {'non-finite':>10}  {'median µs':>9}  {'p95 µs':>8}")
    gc.collect()
    rss0, bad, medians = rss_mb(), 0, []
    times = np.empty(block)
    clock = time.perf_counter_ns
    for b in range(steps // block):
        for i in range(block):
            t0 = clock()
            ok = step(b * block + i)
            times[i] = clock() - t0
            bad += not ok
        medians.append(float(np.median(times)) / 1e3)
        p95 = float(np.percentile(times, 95)) / 1e3
        print(f"{(b + 1) * block:>8}  {rss_mb():>8.1f}  {bad:>10}  {medians[-1]:>9.1f}  {p95:>8.1f}")
    print(
        f"{name}: drift {medians[-1] / medians[0]:.2f}× (last block median / first), "
        f"RSS {rss_mb() - rss0:+.1f} MB over the run, {bad} non-finite steps"
    )
    plant = getattr(step, "plant", None)
    if plant is not None:
        excess = ", ".join(f"{k} {v:.3g}" for k, v in plant.violation.items())
        print(f"{name}: largest excess over the run: {excess}")


def main(argv: list[str] | None = None) -> int:
    print_cpu()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000, help="steps per loop (default 100000)")
    parser.add_argument("--block", type=int, default=10_000, help="steps per printed row (default 10000)")
    parser.add_argument("--loops", nargs="*", default=list(LOOPS), choices=list(LOOPS))
    args = parser.parse_args(argv)
    if args.steps < args.block or args.block < 1:
        parser.error("need steps >= block >= 1")
    for name in args.loops:
        soak(name, args.steps, args.block)
    return 0


if __name__ == "__main__":
    sys.exit(main())
