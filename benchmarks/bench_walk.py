"""Benchmark (issue 30): the walking controller's step against the standing contact step (and TSID's), and
``walk``'s real-time factor (plant included).

Case: Talos (example-robot-data, SRDF ``half_sitting``) walks ``--steps`` footsteps of ``--length`` m
(step time 0.8 s) in closed loop with the rigid-contact plant (:func:`wbcpy.locomotion.walk`'s loop). At
every control step, at the same measured state and interleaved in the same process (the order rotates
from step to step, so no side always runs first on a cold CPU cache), each side on its own robot model
(``RobotModel.copy()``: every side computes its own per-state quantities — dynamics, Jacobians, COM —
as a controller of its own would; none reads what another computed for the state):

* ``walking``: the loop of ``walk`` and ``wbcpy walk`` — :meth:`WalkingController.schedule` (timed
  before the plant syncs the contacts, added to the step's time), ``robot.update`` and
  :meth:`WalkingController.step`: references (DCM law, swing foot, base, posture), ``scene.update``,
  ``scene.solve``;
* ``standing``: the standing contact step of the same scene kind — an ``InverseDynamicsScene`` with both
  soles as surface contacts (μ = 0.3, URDF effort limits), a COM task (``ComPD`` kp 100, kd 20 towards the
  state's own COM) and a posture task (``JointPD``, weight 1e-3) in one level: ``robot.update``, the laws
  through the hot-loop API the walking controller uses too (bound once: ``com.set_target(com)``,
  ``posture.update()``), ``update``, ``solve`` (the loop of ``benchmarks/bench_contact.py``);
* ``TSID`` (when TSID is installed, ``benchmarks/_peers.py``): TSID 1.7.1's standing contact step of
  ``bench_contact.py`` (``InverseDynamicsFormulationAccForce`` + ``SolverHQuadProgFast``, both soles,
  COM + posture) at the same states: the peer figure.

Target: walking / standing ≤ 1.2, as the ratio of the overall medians (every control step of the walk);
the median of the per-block ratios (``--block`` steps per block, both sides of a ratio timed in the same
window) is printed beside it. Then one ``walk()`` run reports its real-time factor: simulated time over
wall time, plant and logging included (target > 1 on the project's 2-core machine).

The MuJoCo loop (when mujoco is installed; ``--no-mujoco`` leaves it out): the same walk closed around
:class:`~wbcpy.sim.mujoco.MujocoPlant` (the real soles as boxes, the library's contact options: 1 ms
time steps, two per 2 ms control period), the loop of ``walk(..., plant="mujoco")`` timed per control
step in its parts — the controller (``schedule``, ``plant.state()``, ``robot.update``, ``step``), the
plant (``plant.apply``: two MuJoCo steps and the contact readout) and the record (``contact_wrenches``,
``active_contacts``) — with the plant's and the loop's medians as ratios of the controller's, and the
loop's real-time factor: the control period over the loop's median (target ≥ 3) and over its mean; then
one ``walk(..., plant="mujoco")`` run's real-time factor (simulated over wall time, logging included).

``python benchmarks/bench_walk.py [--steps 3] [--length 0.2] [--block 50] [--no-peer] [--no-walk]
[--no-mujoco]``
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

from _timing import Row, Timing, print_cpu, print_table

from wbcpy import InverseDynamicsScene
from wbcpy.contacts import SurfaceContact
from wbcpy.controllers import ComPD, JointPD
from wbcpy.locomotion import WalkingController, WalkingPattern, plan_footsteps, walk
from wbcpy.model.registry import load_robot
from wbcpy.sim.contact_plant import ContactPlant


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


def _tsid():
    """TSID's standing contact step of ``bench_contact.py`` (None, and why, without TSID): a function of
    (q, v, com) that sets the COM reference to ``com`` (at rest), builds the problem data and solves."""
    try:
        from _peers import TsidTalosStanding

        peer = TsidTalosStanding(n_states=1)
        peer.setup()
    except ImportError as exc:
        return None, f"TSID not measured ({exc})"
    sample, form, solver = peer.com_sample, peer.formulation, peer.solver
    zero = np.zeros(3)

    def step(t, q, v, com):
        sample.value(com)
        sample.derivative(zero)
        sample.second_derivative(zero)
        peer.com_task.setReference(sample)
        sol = solver.solve(form.computeProblemData(t, q, v))
        form.getAccelerations(sol)
        form.getActuatorForces(sol)
        return sol.status

    return step, ""


def _timing(samples: np.ndarray) -> Timing:
    return Timing(float(np.median(samples)), float(np.percentile(samples, 95)), samples.size)


def _timed_walk(args, peer: bool):
    """Run the walk once, timing the sides at every control step: {side: µs per step}, notes."""
    robot = load_robot("talos")
    q0 = robot.reference_configuration("half_sitting")
    robot.update(q0, np.zeros(robot.nv))
    pattern = WalkingPattern(robot, plan_footsteps(robot, args.steps, args.length))
    ctrl = WalkingController(robot, pattern, dt=0.002)
    own, probe = robot.copy(), robot.copy()  # the standing scene's robot; the COM target's
    standing = _standing(own)
    tsid, note = _tsid() if peer else (None, "TSID not measured (--no-peer)")
    plant = ContactPlant(ctrl.scene, q0, np.zeros(robot.nv), 0.002)
    clock = time.perf_counter
    times: dict[str, list[float]] = {"standing": [], "walking": [], "TSID": []}
    failed = 0

    def walking(t, q, v, com):
        robot.update(q, v)
        return ctrl.step(t)

    def standing_step(t, q, v, com):
        own.update(q, v)
        return standing(com)

    sides = [("walking", walking), ("standing", standing_step)]
    if tsid is not None:
        sides.append(("TSID", tsid))
    for k in range(round(pattern.duration / 0.002)):
        t = k * 0.002
        t0 = clock()
        ctrl.schedule(t)  # (part of the walking step: before the plant takes over the contacts)
        schedule_us = 1e6 * (clock() - t0)
        q, v = plant.sync()
        probe.update(q, v)
        com = probe.com()
        for j in range(len(sides)):
            name, fn = sides[(k + j) % len(sides)]
            t0 = clock()
            out = fn(t, q, v, com)
            times[name].append(1e6 * (clock() - t0) + (schedule_us if name == "walking" else 0.0))
            failed += name == "TSID" and out != 0
        plant.step()
    if failed:
        note = f"TSID's solver failed on {failed} states"
    return {k: np.array(v) for k, v in times.items() if v}, note


def _timed_mujoco_walk(args) -> dict[str, np.ndarray] | None:
    """The loop of ``walk(..., plant="mujoco")`` timed in its parts: {part: µs per control step}."""
    try:
        from wbcpy.sim.mujoco import MujocoPlant
    except ImportError:  # pragma: no cover - wbcpy.sim.mujoco imports without mujoco
        return None
    import importlib.util

    if importlib.util.find_spec("mujoco") is None:
        return None
    robot = load_robot("talos")
    q0 = robot.reference_configuration("half_sitting")
    robot.update(q0, np.zeros(robot.nv))
    pattern = WalkingPattern(robot, plan_footsteps(robot, args.steps, args.length))
    ctrl = WalkingController(robot, pattern, dt=0.002)
    soles = [SurfaceContact(f, half_size=ctrl.half_size, mu=ctrl.mu) for f in ctrl.feet.values()]
    plant = MujocoPlant(robot, soles, q0, dt=0.002)
    clock = time.perf_counter
    parts: dict[str, list[float]] = {"controller": [], "plant": [], "record": []}
    for k in range(round(pattern.duration / 0.002)):
        t = k * 0.002
        t0 = clock()
        ctrl.schedule(t)
        q, v = plant.state()
        robot.update(q, v)
        cmd = ctrl.step(t)
        t1 = clock()
        plant.apply(cmd.effort)
        t2 = clock()
        plant.contact_wrenches()
        plant.active_contacts()
        t3 = clock()
        parts["controller"].append(1e6 * (t1 - t0))
        parts["plant"].append(1e6 * (t2 - t1))
        parts["record"].append(1e6 * (t3 - t2))
    out = {k: np.array(v) for k, v in parts.items()}
    out["loop"] = out["controller"] + out["plant"] + out["record"]
    return out


def _print_mujoco(args) -> None:
    times = _timed_mujoco_walk(args)
    if times is None:
        print("MuJoCo loop not measured (pip install 'wbcpy[mujoco]')")
        return
    ctrl = _timing(times["controller"])
    rows = [
        Row("controller (schedule, state, update, step)", ctrl),
        Row("MuJoCo plant: apply (2 steps of 1 ms, readout)", _timing(times["plant"]), ctrl),
        Row("record (contact wrenches, active contacts)", _timing(times["record"]), ctrl),
        Row("loop (controller + plant + record)", _timing(times["loop"]), ctrl),
    ]
    title = f"Talos in MuJoCo, {args.steps} steps of {args.length} m, {times['loop'].size} periods"
    print_table(rows, title=title)
    median, mean = float(np.median(times["loop"])), float(np.mean(times["loop"]))
    print(
        f"MuJoCo loop real-time factor: {2000.0 / median:.2f} (period / loop median; target ≥ 3), "
        f"{2000.0 / mean:.2f} (period / loop mean)"
    )
    summary = walk("talos", n_steps=args.steps, length=args.length, plant="mujoco")
    print(
        f"wbcpy walk --plant mujoco (plant and log included): {summary.duration:.1f} s simulated, "
        f"real-time factor {summary.realtime:.2f}, controller step median {summary.step_us:.0f} µs"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--length", type=float, default=0.2)
    parser.add_argument("--block", type=int, default=50)
    parser.add_argument("--no-peer", action="store_true", help="leave TSID out")
    parser.add_argument("--no-walk", action="store_true", help="leave the real-time walk() run out")
    parser.add_argument("--no-mujoco", action="store_true", help="leave the MuJoCo loop out")
    parser.add_argument("--mujoco-only", action="store_true", help="only the MuJoCo loop")
    args = parser.parse_args(argv)
    if args.mujoco_only:
        print_cpu()
        _print_mujoco(args)
        return
    print_cpu()
    times, note = _timed_walk(args, not args.no_peer)
    w, s = times["walking"], times["standing"]
    n = (w.size // args.block) * args.block
    ratios = np.median(w[:n].reshape(-1, args.block), axis=1) / np.median(
        s[:n].reshape(-1, args.block), axis=1
    )
    stand = _timing(s)
    walking = _timing(w)
    rows = [
        Row("standing contact step (COM + posture)", stand),
        Row(
            "walking controller step",
            walking,
            stand,
            f"ratio of the overall medians (target ≤ 1.2); per-block ratio median {np.median(ratios):.2f}, "
            f"p95 {np.percentile(ratios, 95):.2f}",
        ),
    ]
    if "TSID" in times:
        rows.append(Row("TSID 1.7.1 standing contact step (peer)", _timing(times["TSID"]), stand, note))
    elif note:
        print(note)
    print_table(rows, title=f"Talos, {args.steps} steps of {args.length} m, {w.size} control steps")
    if "TSID" in times:
        print(f"walking / TSID (overall medians): {walking.median_us / np.median(times['TSID']):.2f}")
    if not args.no_walk:
        summary = walk("talos", n_steps=args.steps, length=args.length)
        print(
            f"wbcpy walk (plant included): {summary.duration:.1f} s simulated, real-time factor "
            f"{summary.realtime:.2f} (target > 1), controller step median {summary.step_us:.0f} µs"
        )
    if not args.no_mujoco:
        _print_mujoco(args)


if __name__ == "__main__":
    main()
