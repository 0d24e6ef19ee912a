"""Benchmark (issue 30): the walking controller's step against the standing contact step, and ``walk``'s
real-time factor (plant included).

Case: Talos (example-robot-data, SRDF ``half_sitting``) walks ``--steps`` footsteps of ``--length`` m
(step time 0.8 s) in closed loop with the rigid-contact plant (:func:`wbcpy.locomotion.walk`'s loop). At
every control step, at the same measured state and interleaved in the same process:

* ``walking``: :meth:`WalkingController.step` — schedule, references (DCM law, swing foot, base, posture),
  ``scene.update``, ``scene.solve``;
* ``standing``: the standing contact step of the same scene kind — an ``InverseDynamicsScene`` with both
  soles as surface contacts (μ = 0.3, URDF effort limits), a COM task (``ComPD`` kp 100, kd 20 towards the
  state's own COM) and a posture task (``JointPD``, weight 1e-3) in one level, with the hot-loop API the
  walking controller uses too (laws bound once: ``com.set_target(com)``, ``posture.update()``), then
  ``update``, ``solve`` (the loop of ``benchmarks/bench_contact.py``, whose TSID row is the peer figure).

Target: walking / standing ≤ 1.2 (median over the per-block ratios, ``--block`` steps per block). Then one
``walk()`` run without timing of the standing scene reports its real-time factor: simulated time over wall
time, plant and logging included (target > 1 on the project's 2-core machine).

``python benchmarks/bench_walk.py [--steps 3] [--length 0.2] [--block 50]``
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _timing import Row, Timing, print_table

from wbcpy.controllers import ComPD, JointPD
from wbcpy.locomotion import WalkingController, WalkingPattern, plan_footsteps, walk
from wbcpy.model.registry import load_robot
from wbcpy.scenes import InverseDynamicsScene, SurfaceContact
from wbcpy.sim.contact_simulation import ContactPlant


def _standing(robot):
    scene = InverseDynamicsScene(robot, effort_limits=True)
    scene.set_contacts(
        [SurfaceContact(f, half_size=(0.1, 0.065), mu=0.3) for f in ("left_sole_link", "right_sole_link")]
    )
    joints = [n for n in robot.joint_names if robot.model.joints[robot.joint_id(n)].nv == 1]
    scene.configure([
        {"name": "com", "type": "com"},
        {"name": "posture", "type": "jnt", "joint_names": joints, "weights": [1e-3] * len(joints)},
    ])  # fmt: skip
    posture = robot.reference_configuration("half_sitting")[7:]
    com_law = scene.bind("com", ComPD(kp=100.0, kd=20.0), robot.com())
    posture_law = scene.bind("posture", JointPD(kp=10.0, kd=2 * math.sqrt(10.0)), posture)

    def step(com):
        com_law.set_target(com)
        posture_law.update()
        scene.solve(scene.update())

    return step


def _timing(samples: np.ndarray) -> Timing:
    return Timing(float(np.median(samples)), float(np.percentile(samples, 95)), samples.size)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--length", type=float, default=0.2)
    parser.add_argument("--block", type=int, default=50)
    args = parser.parse_args(argv)
    robot = load_robot("talos")
    q0 = robot.reference_configuration("half_sitting")
    robot.update(q0, np.zeros(robot.nv))
    pattern = WalkingPattern(robot, plan_footsteps(robot, args.steps, args.length))
    ctrl = WalkingController(robot, pattern, dt=0.002)
    standing = _standing(robot)
    plant = ContactPlant(ctrl.scene, q0, np.zeros(robot.nv), 0.002)
    walking_us, standing_us = [], []
    for k in range(round(pattern.duration / 0.002)):
        t = k * 0.002
        ctrl.schedule(t)
        robot.update(*plant.sync())
        com = robot.com()
        t0 = time.perf_counter()
        standing(com)
        t1 = time.perf_counter()
        ctrl.step(t)
        t2 = time.perf_counter()
        standing_us.append(1e6 * (t1 - t0))
        walking_us.append(1e6 * (t2 - t1))
        plant.step()
    w, s = np.array(walking_us), np.array(standing_us)
    n = (w.size // args.block) * args.block
    ratios = np.median(w[:n].reshape(-1, args.block), axis=1) / np.median(
        s[:n].reshape(-1, args.block), axis=1
    )
    stand = _timing(s)
    note = (
        f"per-block ratio median {np.median(ratios):.2f}, p95 {np.percentile(ratios, 95):.2f} (target ≤ 1.2)"
    )
    rows = [
        Row("standing contact step (COM + posture)", stand),
        Row("walking controller step", _timing(w), stand, note),
    ]
    print_table(rows, title=f"Talos, {args.steps} steps of {args.length} m, {w.size} control steps")
    summary = walk("talos", n_steps=args.steps, length=args.length)
    print(
        f"wbcpy walk (plant included): {summary.duration:.1f} s simulated, real-time factor "
        f"{summary.realtime:.2f} (target > 1), controller step median {summary.step_us:.0f} µs"
    )


if __name__ == "__main__":
    main()
