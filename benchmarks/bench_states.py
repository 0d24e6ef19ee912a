"""Benchmark (issue 26): each scene's control step on a family of states — no cliffs.

A step's cost must not depend on whether the state makes the QP degenerate or its answer marginal. Each
scene below runs the loop a user writes (the same scene objects as ``bench_contact.py``, ``bench_loop.py``
and ``bench_velocity.py``, references through bindings; ``--checked``: through ``set_reference``) on
every state of its family, and the table prints each state's median step, its ratio to the scene's
fastest state (target ≤ 1.5×) and, where a peer runs the same problem, to the peer's step.

Families (what a user meets):

* **Talos, InverseDynamicsScene** (``bench_contact.py``'s problem: both soles, COM + posture in one
  weighted level, μ = 0.3): *swaying* (the recorded closed-loop states; TSID's step on the same states);
  *standing still* (half_sitting, v = 0, the COM target at the COM: the state whose DAQP answer passes its
  certificate only within rounding; TSID on the same state: target ≤ 1.0×); *single support* (right sole
  lifted, the COM target over the left sole: CoP at the sole's edge); *unloading* (the right sole in an
  unloading ramp: its normal-force bound active); *contact switch* (the right sole lifted and put back
  at alternate steps: every step is the first after a switch); *weights over twelve decades* (COM weight
  1e6, posture 1e-6, swaying).
* **Panda, AccelerationScene** (``bench_loop.py``'s one-level reach, joint limits on): *reaching*
  (recorded; TSID's step on its own recorded reach); *standing still* (at the start, the target at the
  hand); *joint at its limit* (joint 7 at its upper limit, moving into it, the target turning it further);
  *arm at a singularity* (σ_min(J) ≈ 0: a configuration minimising J's smallest singular value within the
  limits, target 5 cm away); *weights over twelve decades* (hand 1e6, posture 1e-6).
* **Panda, VelocityScene** (``bench_velocity.py``'s circle tracking, limits on): *circle* (pink's step on
  the same circle); *standing still*; *joint at its limit*; *arm at a singularity*; *weights over twelve
  decades*.

Timing: the states of a family (and the peers) are timed in interleaved blocks (``--block`` steps each,
entered anew per block, 20 unmeasured steps first), so all of them meet the same machine load; medians
over ``--repeat`` samples. Run in a benchmark venv with TSID and pink (see ``benchmarks/_peers.py``):
``python benchmarks/bench_states.py [--repeat N] [--block N] [--checked] [--only talos|panda|velocity]``.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pinocchio as pin

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bench_contact
import bench_loop
import bench_velocity
from _peers import SOLES, TsidPandaReach, TsidTalosStanding
from _timing import print_cpu

from wbcpy import load_robot

#: the state-to-fastest target of the issue
TARGET = 1.5
#: a Panda arm configuration (within the joint limits) where the hand Jacobian is singular: found by
#: minimising its smallest singular value (L-BFGS-B from random starts); σ_min is printed at run time
PANDA_SINGULAR = np.array([0.4655, 0.0, 1.541, -2.7536, 2.515, 1.2939, -2.286])
LIFTED = SOLES[1]
#: --checked: references through set_reference (the checked API) instead of bindings
CHECKED = False


def _noop() -> None:
    return None


@dataclass
class State:
    """One member of a family: ``enter`` puts the scene in the state (not timed), ``step`` is one control
    step as the user's loop runs it, ``leave`` restores the scene; ``peer`` names the case it is compared
    with (and the target of that ratio)."""

    name: str
    step: Callable[[], None]
    enter: Callable[[], None] = _noop
    leave: Callable[[], None] = _noop
    peer: tuple[str, float] | None = None
    samples: list[np.ndarray] = field(default_factory=list)


def _weights(scene, weights: dict[str, list[float]]) -> Callable[[], None]:
    """A state's ``enter`` (or ``leave``) that sets the tasks' weights ``{task: weights}``."""

    def enter() -> None:
        for name, w in weights.items():
            scene.set_task_weights(name, w)

    return enter


def time_family(states: list[State], repeat: int, block: int, warmup: int = 20) -> None:
    """Fill each state's ``samples`` (µs per step) with ``repeat`` samples taken in interleaved blocks."""
    clock = time.perf_counter_ns
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(max(1, -(-repeat // block))):
            for s in states:
                s.enter()
                for _ in range(warmup):
                    s.step()
                row = np.empty(block)
                for i in range(block):
                    t0 = clock()
                    s.step()
                    row[i] = clock() - t0
                s.leave()
                s.samples.append(row / 1e3)
    finally:
        if enabled:
            gc.enable()


def report(title: str, states: list[State]) -> bool:
    """Print the family's table; True when every wbcpy state is within :data:`TARGET` of the fastest."""
    med = {s.name: float(np.median(np.concatenate(s.samples))) for s in states}
    p95 = {s.name: float(np.percentile(np.concatenate(s.samples), 95)) for s in states}
    ours = [s for s in states if not s.name.startswith(("TSID", "pink"))]
    fastest = min(med[s.name] for s in ours)
    print(f"\n{title}")
    print(f"  {'state':<46} {'median µs':>10} {'p95 µs':>9} {'/ fastest':>10}  vs peer")
    ok = True
    for s in states:
        rel = med[s.name] / fastest
        mine = s in ours
        ok &= not mine or rel <= TARGET
        vs = ""
        if s.peer is not None:
            peer, target = s.peer
            vs = f"{med[s.name] / med[peer]:.2f}× {peer} (target ≤ {target:.1f}×)"
        col = f"{rel:>9.2f}×" if mine else f"{'':>10}"
        print(f"  {s.name:<46} {med[s.name]:>10.1f} {p95[s.name]:>9.1f} {col}  {vs}")
    worst = max(med[s.name] for s in ours) / fastest
    print(f"  slowest state / fastest: {worst:.2f}× (target ≤ {TARGET}×): {'met' if ok else 'MISSED'}")
    return ok


# ------------------------------------------------------------------------------------------ Talos
class _TsidStill(TsidTalosStanding):
    """TSID's Talos step at half_sitting with v = 0 and the COM target at the COM (standing still)."""

    def setup(self) -> None:
        self.n_states = 1
        super().setup()
        _, q0, v0 = self.states[0]
        self.states = [(0.0, q0, v0)]

    def _control(self, t: float, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        sample = self.com_sample
        sample.value(self.com0)
        sample.derivative(np.zeros(3))
        sample.second_derivative(np.zeros(3))
        self.com_task.setReference(sample)
        hqp = self.formulation.computeProblemData(t, q, v)
        sol = self.solver.solve(hqp)
        self.qdd = self.formulation.getAccelerations(sol)
        self.tau = self.formulation.getActuatorForces(sol)
        self.forces = self.formulation.getContactForces(sol)
        return self.qdd


def talos_family() -> list[State]:
    peer, still_peer = TsidTalosStanding(force_regularization=1e-5), _TsidStill(force_regularization=1e-5)
    peer.setup()
    still_peer.setup()
    w = bench_contact.WbcpyTalosStanding(peer)
    robot, scene = w.robot, w.scene
    q0, zero_v, zero3 = peer.states[0][1], np.zeros(robot.nv), np.zeros(3)
    robot.update(q0, zero_v)
    left = robot.frame_placement(SOLES[0]).translation
    over_left = np.array([left[0], left[1], w.com0[2]])
    n = len(w.posture_target)

    def hold(target: np.ndarray) -> Callable[[], None]:
        def step() -> None:
            robot.update(q0, zero_v)
            if bench_contact.CHECKED:
                scene.set_reference("com", w.com_pd.reference(w.com_task, target, zero3, zero3))
                scene.set_reference("posture", w.posture_pd.reference(w.posture_task, w.posture_target))
            else:
                w.com_binding.set_target(target, zero3, zero3)
                w.posture_binding.update()
            cmd = scene.solve(scene.update())
            w.tau, w.qdd, w.wrench = cmd.effort, scene.get_solver_output_raw(), scene.get_contact_wrenches()

        return step

    still = hold(w.com0)
    flag = [False]

    def switch() -> None:
        flag[0] = not flag[0]
        scene.set_contact_active(LIFTED, flag[0])
        still()

    def weights(com: float, posture: float) -> Callable[[], None]:
        return _weights(scene, {"com": [com] * 3, "posture": [posture] * n})

    def put_back() -> None:
        scene.set_contact_active(LIFTED, True)

    def unload() -> None:
        scene.set_contact_active(LIFTED, False, transition=0.5)

    return [
        State("TSID swaying", peer.step),
        State("TSID standing still", still_peer.step),
        State("swaying", w.step, peer=("TSID swaying", 1.0)),
        State("standing still", still, peer=("TSID standing still", 1.0)),
        State("single support", hold(over_left), lambda: scene.set_contact_active(LIFTED, False), put_back),
        State("unloading ramp", still, unload, put_back),
        State("contact switch at every step", switch, leave=put_back),
        State("weights over twelve decades", w.step, weights(1e6, 1e-6), weights(1.0, 1e-3)),
    ]


# ------------------------------------------------------------------------------------------ Panda
def _smin(robot, q: np.ndarray) -> float:
    model = robot.model
    data = model.createData()
    pin.computeJointJacobians(model, data, q)
    J = pin.getFrameJacobian(model, data, model.getFrameId("panda_hand"), pin.LOCAL_WORLD_ALIGNED)
    return float(np.linalg.svd(J[:, :7], compute_uv=False)[-1])


def _limit_state(model: pin.Model, q0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Joint 7 a hair below its upper limit, moving into it at 1 rad/s."""
    q, v = q0.copy(), np.zeros(model.nv)
    q[6] = model.upperPositionLimit[6] - 1e-4
    v[6] = 1.0
    return q, v


def _singular_q(q0: np.ndarray) -> np.ndarray:
    q = q0.copy()
    q[:7] = PANDA_SINGULAR
    return q


def _turned(pose: pin.SE3, angle: float) -> pin.SE3:
    """The pose turned by ``angle`` about its own z axis (the hand's: joint 7's axis)."""
    return pose * pin.SE3(pin.utils.rotate("z", angle), np.zeros(3))


def _moved(pose: pin.SE3, offset: np.ndarray) -> pin.SE3:
    return pin.SE3(pose.rotation, pose.translation + offset)


def panda_family() -> list[State]:
    tsid = TsidPandaReach()
    tsid.setup()
    w = bench_loop.WbcpyPandaReach(levels=1, checked=CHECKED)
    w.setup()
    robot, scene, model = w.robot, w.scene, w.robot.model
    bindings = getattr(w, "bindings", None)
    ee_binding = bindings[0] if bindings else None
    zero_v = np.zeros(model.nv)

    def pose_at(q: np.ndarray) -> pin.SE3:
        robot.update(q, zero_v)
        return w.ee.pose()

    def at(q: np.ndarray, v: np.ndarray, target: pin.SE3) -> State:
        def enter() -> None:
            w.target = target
            if ee_binding is not None:
                ee_binding.set_target(target)

        def step() -> None:
            w.control(0.0, q, v)

        return State("", step, enter, leave)

    reach_target = w.target

    def leave() -> None:
        w.target = reach_target
        if ee_binding is not None:
            ee_binding.set_target(reach_target)

    q_lim, v_lim = _limit_state(model, w.q0)
    q_sing = _singular_q(w.q0)
    print(f"Panda singular configuration: σ_min(J_hand) = {_smin(robot, q_sing):.2e}")
    still = at(w.q0, zero_v, pose_at(w.q0))
    limit = at(q_lim, v_lim, _turned(pose_at(q_lim), 0.3))
    singular = at(q_sing, zero_v, _moved(pose_at(q_sing), np.array([0.05, 0.0, 0.0])))
    nv = model.nv

    def weights(ee: float, posture: float) -> Callable[[], None]:
        return _weights(scene, {"ee": [ee] * 6, "posture": [posture] * nv})

    out = [State("TSID reaching", tsid.step), State("reaching", w.step, peer=("TSID reaching", 2.0))]
    named = (("standing still", still), ("joint at its limit", limit), ("arm at a singularity", singular))
    for name, s in named:
        s.name = name
        out.append(s)
    out.append(State("weights over twelve decades", w.step, weights(1e6, 1e-6), weights(1.0, 1e-3)))
    return out


def velocity_family() -> list[State]:
    robot = load_robot("panda", mimic=False)
    w = bench_velocity.WbcpyLoop(robot, collisions=False)
    pink = bench_velocity.pink_step(load_robot("panda", mimic=False), collisions=False)
    scene, model = w.scene, robot.model
    q_start = w.q.copy()

    def pose_at(q: np.ndarray) -> pin.SE3:
        robot.update(q)
        return w.ee.pose()

    def at(q: np.ndarray, target: pin.SE3) -> tuple[Callable[[], None], Callable[[], None]]:
        def enter() -> None:
            w.q = q.copy()

        def step() -> None:
            w.step(target)

        return step, enter

    q_lim, _ = _limit_state(model, q_start)
    q_sing = _singular_q(q_start)
    still = at(q_start, pose_at(q_start))
    limit = at(q_lim, _turned(pose_at(q_lim), 0.3))
    singular = at(q_sing, _moved(pose_at(q_sing), np.array([0.05, 0.0, 0.0])))
    nv = model.nv

    def weights(ee: float, posture: float) -> Callable[[], None]:
        return _weights(scene, {"ee": [ee] * 6, "post": [posture] * nv})

    posture = bench_velocity.POSTURE_COST**2

    def circle_enter() -> None:
        w.q = q_start.copy()

    return [
        State("pink circle", pink),
        State("circle", w.step, circle_enter, peer=("pink circle", 0.35)),
        State("standing still", still[0], still[1]),
        State("joint at its limit", limit[0], limit[1]),
        State("arm at a singularity", singular[0], singular[1]),
        State("weights over twelve decades", w.step, weights(1e6, 1e-6), weights(1.0, posture)),
    ]


FAMILIES = {
    "talos": ("Talos, InverseDynamicsScene (both soles, COM + posture)", talos_family),
    "panda": ("Panda, AccelerationScene (hand + posture, joint limits)", panda_family),
    "velocity": ("Panda, VelocityScene (hand + posture, limits)", velocity_family),
}


def main(argv: list[str] | None = None) -> int:
    print_cpu()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2000, help="samples per state (default 2000)")
    parser.add_argument("--block", type=int, default=50, help="steps per interleaved block (default 50)")
    parser.add_argument("--checked", action="store_true", help="references through set_reference")
    parser.add_argument("--only", choices=sorted(FAMILIES), action="append", help="families to run")
    args = parser.parse_args(argv)
    global CHECKED
    CHECKED = args.checked
    for module in (bench_contact, bench_velocity):
        module.CHECKED = args.checked
    api = "set_reference (checked)" if args.checked else "bindings"
    ok = True
    for key in args.only or list(FAMILIES):
        title, build = FAMILIES[key]
        try:
            states = build()
        except ImportError as exc:
            print(f"\n{title}: skipped ({exc}); see benchmarks/_peers.py")
            continue
        time_family(states, args.repeat, args.block)
        ok &= report(f"{title} — references through {api}, pin {pin.__version__}", states)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
