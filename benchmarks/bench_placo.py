"""Benchmark: wbcpy against PlaCo 0.10.2 on Talos — the contact step and a kinematic walk.

Cases (constants in ``benchmarks/_peers.py``):

* **contact step** — Talos standing on both soles: PlaCo's ``DynamicsSolver`` (soft COM task weight 1,
  joints task weight 1e-3, the same PD gains, two planar contacts with hard frame tasks, μ = 0.3; its
  torque cost 1e-3 by default, and 1e-8, nearer wbcpy's λ = 1e-8 on q̈) against wbcpy's
  ``InverseDynamicsScene`` step of ``bench_contact.py`` (bound ComPD/JointPD laws, ``update``,
  ``solve``; same tasks, weights, gains, contacts), every side on the states of one closed loop (wbcpy's,
  500 steps of the COM sway, cycled; PlaCo's own loop drifts away), with the raw-Pinocchio floor of
  ``bench_contact.py``. wbcpy runs twice: the exact scene (a strict least-norm wrench level below the
  tasks) and its one-QP form, ``wrench_regularization`` ε = 1e-12 (ε Σ‖w‖² in the task level instead,
  PlaCo's form of the problem: one QP with a force or torque regulariser). Each side's q̈ is also
  compared with the exact optimum of the problem (``tests/_contact_oracle.py``): PlaCo's torque cost
  moves it.
* **kinematic walk** — Talos walks ``--steps`` footsteps of ``--length`` m at dt = 5 ms: PlaCo's walk
  step (``WalkPatternGenerator`` plan tracked by a ``KinematicsSolver`` through ``WalkTasks``, its
  example's loop: tasks, kinematics, ``solve(True)``, support update) against wbcpy's
  :class:`~wbcpy.locomotion.WalkingPattern` tracked by a :class:`~wbcpy.VelocityScene` (COM, both soles
  and the torso's orientation in one level with the posture at weight 1e-3, joint and velocity limits;
  per step: ``robot.update``, the pattern sampled, the targets set on bound velocity laws — the planted
  soles' when the phase changes, their laws evaluated at the new state otherwise —, ``update``,
  ``solve``, q ⊕ q̇ dt). Both restart their walk when it ends.

The sides run interleaved in one process (alternating blocks of ``--block`` samples), ratios are the
medians of the per-block ratios. ``--profile`` prints where wbcpy's time goes (cProfile, by own time).

PlaCo pins Pinocchio 3.8: run in its venv (``benchmarks/_peers.py``)::

    PYTHONPATH=. /work/venvs/placo/bin/python benchmarks/bench_placo.py [--repeat N] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pinocchio as pin

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the contact oracle

from _peers import DT, SOLES, PlacoTalosStanding, PlacoTalosWalk, talos_start
from _timing import Row, Timing, print_cpu, print_table
from bench_contact import WbcpyTalosStanding, accuracy, floor_step, interleaved_blocks

from wbcpy import VelocityScene
from wbcpy.cli._bench_cases import CONTACT_WRENCH_REG
from wbcpy.controllers import CartesianVelocityLaw, ComVelocityLaw, JointVelocityLaw
from wbcpy.locomotion import WalkingPattern, plan_footsteps

#: gains of the wbcpy walk's velocity laws (1/s): the references are the pattern's velocities plus these
#: corrections of the drift of a first-order integration
WALK_KP = {"com": 10.0, "feet": 10.0, "torso": 10.0, "posture": 1.0}


class WbcpyKinematicWalk:
    """wbcpy's kinematic walk (see the module docstring)."""

    name = "wbcpy walk step (WalkingPattern + VelocityScene)"

    def __init__(self, steps: int = 3, length: float = 0.2, dt: float = 0.005) -> None:
        robot, q0 = talos_start()
        self.robot, self.q0, self.dt = robot, q0, dt
        robot.update(q0)
        self.pattern = WalkingPattern(robot, plan_footsteps(robot, n_steps=steps, length=length))
        scene = self.scene = VelocityScene(robot, dt=dt)
        joints = robot.joint_names[1:]
        scene.configure([
            {"name": "com", "type": "com"},
            {"name": "left", "type": "cart", "tip": SOLES[0], "root": "universe"},
            {"name": "right", "type": "cart", "tip": SOLES[1], "root": "universe"},
            {"name": "torso", "type": "cart", "tip": "torso_2_link", "root": "universe",
             "weights": [0, 0, 0, 1, 1, 1]},
            {"name": "posture", "type": "jnt", "joint_names": joints, "weights": [1e-3] * len(joints)},
        ])  # fmt: skip
        self.com = scene.bind("com", ComVelocityLaw(kp=WALK_KP["com"]), robot.com())
        self.feet = {
            side: scene.bind(side, CartesianVelocityLaw(kp=WALK_KP["feet"]), robot.frame_placement(frame))
            for side, frame in zip(("left", "right"), SOLES, strict=True)
        }
        upright = pin.SE3(np.eye(3), robot.frame_placement("torso_2_link").translation)
        self.torso = scene.bind("torso", CartesianVelocityLaw(kp=WALK_KP["torso"]), upright)
        self.posture = scene.bind("posture", JointVelocityLaw(kp=WALK_KP["posture"]), q0[7:])
        self._M, self._twist, self._acc = np.eye(4), np.zeros(6), np.zeros(6)
        self.q, self.t = q0.copy(), 0.0
        self._phase: Any = None  # the phase whose planted soles the bindings track
        self._planted: list[Any] = []  # their bindings

    def step(self) -> None:
        """One walk step (the loop a user writes: state, pattern, targets, update, solve, integrate)."""
        robot, pattern, t = self.robot, self.pattern, self.t
        robot.update(self.q)
        pos, vel, _, _, _ = pattern.sample(t)
        self.com.set_target(pos, vel)
        swing = pattern.swing_into(t, self._M, self._twist, self._acc)
        phase = pattern.phase(t)
        if phase is not self._phase:  # (the planted soles change with the phase only: targets set once)
            planted = pattern.planted(t)
            for side, placement in planted.items():
                self.feet[side].set_target(placement)  # (a planted sole: no feed-forward)
            self._phase, self._planted = phase, [self.feet[side] for side in planted]
        else:
            for binding in self._planted:  # (the same targets: the laws at the new state)
                binding.update()
        if swing is not None:
            self.feet[swing].set_target(self._M, self._twist)  # (a 4×4 homogeneous matrix is a pose target)
        self.torso.update()
        self.posture.update()
        self.scene.solve(self.scene.update())
        self.q = pin.integrate(robot.model, self.q, self.scene.get_solver_output_raw() * self.dt)
        self.t = t + self.dt
        if self.t > pattern.duration:  # the walk again from its first state
            self.q, self.t = self.q0.copy(), 0.0


def _timing(samples: np.ndarray) -> Timing:
    flat = samples.ravel()
    return Timing(float(np.median(flat)), float(np.percentile(flat, 95)), int(flat.size))


def _ratio(ours: np.ndarray, theirs: np.ndarray) -> tuple[float, float]:
    r = np.median(ours, axis=1) / np.median(theirs, axis=1)
    return float(np.median(r)), float(np.percentile(r, 95))


def _profile(label: str, fn: Any, n: int) -> None:
    """cProfile of ``n`` calls of ``fn``: the functions with the most own time."""
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(n):
        fn()
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(18)
    lines = [ln for ln in out.getvalue().splitlines() if ln.strip()]
    start = next(i for i, ln in enumerate(lines) if "ncalls" in ln)
    print(f"\n{label}: cProfile of {n} steps (own time; cProfile inflates Python calls)")
    for ln in lines[start : start + 19]:
        print(f"  {ln[:150]}")


def record_states(ours: WbcpyTalosStanding, n: int) -> list[tuple[float, np.ndarray, np.ndarray]]:
    """The states of ``n`` steps of wbcpy's closed loop (semi-implicit Euler) from the first state."""
    _, q, v = ours.states[0]
    q, v = q.copy(), v.copy()
    states = []
    for k in range(n):
        states.append((k * DT, q.copy(), v.copy()))
        ours.control(k * DT, q, v)
        v = v + ours.qdd * DT
        q = pin.integrate(ours.model, q, v * DT)
    return states


def contact(args: argparse.Namespace) -> None:
    placo_default, placo_low = PlacoTalosStanding(), PlacoTalosStanding(torque_cost=1e-8)
    for peer in (placo_default, placo_low):
        peer.setup()
    ours = WbcpyTalosStanding(placo_default)
    one_qp = WbcpyTalosStanding(placo_default, wrench_regularization=CONTACT_WRENCH_REG)
    # every side replays the states of one closed loop: wbcpy's (PlaCo's own, biased by its torque cost,
    # drifts: its base rises 1.6 cm and its joints reach 4 rad/s within the 500 steps)
    states = record_states(ours, placo_default.n_states)
    for side in (placo_default, placo_low, ours, one_qp):
        side.states = states
    fns = [floor_step(placo_default), placo_default.step, placo_low.step, ours.step, one_qp.step]
    labels = ["floor: computeAllTerms + soles' J, a_c + COM J, bias", placo_default.name, placo_low.name,
              f"wbcpy InverseDynamicsScene step [{ours.scene.solver.name}]",
              f"wbcpy one QP (wrench_regularization={CONTACT_WRENCH_REG:g})"]  # fmt: skip
    samples = interleaved_blocks(fns, args.repeat, args.block)
    floor, *rest = (_timing(s) for s in samples)
    rows = [Row(labels[0], floor)] + [Row(lb, t, floor) for lb, t in zip(labels[1:], rest, strict=True)]
    print_table(rows, title=f"Talos standing, one control step ({args.repeat} samples per row)")
    for k, side in ((3, "wbcpy"), (4, "wbcpy one QP")):
        for j, cost in ((1, "1e-3"), (2, "1e-8")):
            med, p95 = _ratio(samples[k], samples[j])
            print(f"  {side} / PlaCo (torque cost {cost}), per block: median {med:.2f}, p95 {p95:.2f}")
    if args.states > 0:
        print(f"\nq̈ against the exact optimum of the same problem ({args.states} states):")
        sides = ((placo_default, placo_default.name), (placo_low, placo_low.name), (ours, "wbcpy"),
                 (one_qp, "wbcpy one QP"))  # fmt: skip
        for side, label in sides:
            try:
                acc = accuracy(side, args.states)
            except RuntimeError as exc:  # (the oracle's proximal iterations on a degenerate state)
                print(f"  {label}: no oracle answer ({exc})")
                continue
            print(f"  {label}: max ‖Δq̈‖∞ = {acc['max']:.3g}, median {acc['median']:.3g} (rad/s²)")
    if args.profile:
        _profile("wbcpy InverseDynamicsScene step", ours.step, 2000)


def kinematic_walk(args: argparse.Namespace) -> None:
    theirs = PlacoTalosWalk(args.steps, args.length)
    theirs.setup()
    ours = WbcpyKinematicWalk(args.steps, args.length)
    samples = interleaved_blocks([theirs.step, ours.step], args.repeat, args.block)
    a, b = (_timing(s) for s in samples)
    print_table([Row(theirs.name, a), Row(ours.name, b, a)],
                title=f"Talos kinematic walk, {args.steps} steps of {args.length} m, one step "
                      f"({args.repeat} samples per row; ratio: × PlaCo's step)")  # fmt: skip
    med, p95 = _ratio(samples[1], samples[0])
    print(f"  wbcpy / PlaCo, per block: median {med:.2f}, p95 {p95:.2f}")
    if args.profile:
        _profile("wbcpy kinematic walk step", ours.step, 2000)


def main(argv: list[str] | None = None) -> None:
    print_cpu()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3000, help="samples per row (default 3000)")
    parser.add_argument("--block", type=int, default=50, help="samples per interleaved block (default 50)")
    parser.add_argument("--states", type=int, default=20, help="states of the accuracy check (default 20)")
    parser.add_argument("--steps", type=int, default=3, help="footsteps of the walk (default 3)")
    parser.add_argument("--length", type=float, default=0.2, help="step length, m (default 0.2)")
    parser.add_argument("--profile", action="store_true", help="cProfile of wbcpy's steps")
    parser.add_argument("--case", choices=("contact", "walk", "both"), default="both")
    args = parser.parse_args(argv)
    try:
        import placo  # noqa: F401
    except ImportError:
        sys.exit("bench_placo: PlaCo is not installed here; see benchmarks/_peers.py for its venv")
    print(f"pin {pin.__version__}")
    if args.case in ("contact", "both"):
        contact(args)
    if args.case in ("walk", "both"):
        print()
        kinematic_walk(args)


if __name__ == "__main__":
    main()
