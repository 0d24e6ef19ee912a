"""Benchmark (issue 10): Talos standing on both soles — the full control step, and its accuracy.

Case (constants in ``benchmarks/_peers.py``, shared by every side): Talos (example-robot-data, SRDF
``half_sitting``), both soles rigid surface contacts (0.2 × 0.13 m, μ = 0.3, contact gains 0), a COM task
with a PD reference (kp 100, kd 20) tracking a sideways sway y = 2 (1 − cos π t) cm, and a posture task
(kp 10, kd 2√10) towards half_sitting, in one weighted level (weights 1 and 1e-3). One step is what a
user's loop does every period at the measured state: PD references, problem update, solve, outputs
(q̈, τ). States come from a recorded closed-loop run (500 steps, cycled), so the plant is not timed.

Rows (timed interleaved in one process, ``--repeat`` samples each, median and p95 per step):

* ``floor``: the raw Pinocchio work of the same state — ``computeAllTerms``, both soles' LOCAL Jacobians
  and classical accelerations, ``jacobianCenterOfMass`` and ``centerOfMass(q, v, 0)``; ratios are
  medians over this floor;
* ``TSID``: ``InverseDynamicsFormulationAccForce`` + ``SolverHQuadProgFast`` (TSID 1.7.1): COM reference,
  ``computeProblemData``, ``solve``, ``getAccelerations``, ``getActuatorForces``, ``getContactForces``;
  with each Contact6d's force regularisation weight 1e-5 (TSID's exercises) and 0.

* ``wbcpy``: ``InverseDynamicsScene`` (default backend) on the same states — the loop a user writes:
  ``robot.update``, the ``ComPD``/``JointPD`` references through bindings (``scene.bind``, the documented
  hot-loop API: the moving COM target through ``binding.set_target``, validated; ``--checked``:
  ``scene.set_reference(name, law.reference(...))`` instead), ``scene.update``, ``scene.solve`` (q̈ and
  τ), ``get_contact_wrenches``. Same tasks, weights, gains, contacts; no normal-force
  upper bound (TSID needs a finite one, 1e4 N, never active).

Target: wbcpy's step ≤ 1.0× TSID's. The ratio wbcpy / TSID is computed per interleaved block (one block
= ``--block`` consecutive samples of each row), so that both sides of a ratio saw the same machine load;
its median and p95 over the blocks are printed, over ``--runs`` runs.

Accuracy: at ``--states`` recorded states, TSID's and wbcpy's q̈ are compared with the exact optimum of the
same problem (each side's PD outputs as references), computed by the independent oracle of the test suite
(``tests/_contact_oracle.py``: corner-force parametrisation, no force regulariser, quadprog).

Run in a benchmark venv with TSID (see ``benchmarks/_peers.py``):
``python benchmarks/bench_contact.py [--repeat N] [--states N]``.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pinocchio as pin

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the contact oracle

from _peers import (
    COM_KD,
    COM_KP,
    FZ_MAX,
    MU,
    POSTURE_KD,
    POSTURE_KP,
    SOLE_HALF_SIZE,
    SOLES,
    WEIGHTS,
    TsidTalosStanding,
    com_target,
)
from _timing import Row, Timing, print_cpu, print_table

from wbcpy import InverseDynamicsScene
from wbcpy.contacts import SurfaceContact
from wbcpy.controllers import ComPD, JointPD

LOCAL = pin.ReferenceFrame.LOCAL


#: --checked: references through ``scene.set_reference(name, law.reference(...))`` (the checked API, every
#: input validated at every step) instead of bindings
CHECKED = False


class WbcpyTalosStanding:
    """wbcpy's side: an InverseDynamicsScene replaying the TSID peer's recorded states (see the module
    docstring). Attributes after a step: ``qdd`` (nv), ``tau`` (actuated), ``wrench`` ({frame: wrench})."""

    name = "wbcpy InverseDynamicsScene"

    def __init__(self, peer: TsidTalosStanding, solver: str | None = None,
                 wrench_regularization: float = 0.0) -> None:  # fmt: skip
        self.states = peer.states
        self.robot = peer.wbc_robot.copy()  # its own data: the peer's robot stays untouched
        robot = self.robot
        self.model = robot.model
        q0 = peer.states[0][1]
        self.scene = scene = InverseDynamicsScene(
            robot, solver=solver, wrench_regularization=wrench_regularization
        )
        scene.set_contacts([SurfaceContact(f, half_size=SOLE_HALF_SIZE, mu=MU) for f in SOLES])
        joints = [n for n in robot.joint_names if robot.model.joints[robot.joint_id(n)].nv == 1]
        n = len(joints)
        scene.configure(
            [
                {"name": "com", "type": "com", "weights": [WEIGHTS["com"]] * 3},
                {
                    "name": "posture",
                    "type": "jnt",
                    "joint_names": joints,
                    "weights": [WEIGHTS["posture"]] * n,
                },
            ]
        )
        self.com_task, self.posture_task = scene.get_task("com"), scene.get_task("posture")
        self.com_pd = ComPD(kp=COM_KP, kd=COM_KD)
        self.posture_pd = JointPD(kp=POSTURE_KP, kd=POSTURE_KD)
        self.posture_target = q0[7:].copy()
        robot.update(q0, np.zeros(robot.nv))
        self.com0 = robot.com()
        self._k = 0
        # the hot-loop API (scene.bind): laws bound to their tasks, the moving COM target set per step
        p, dp, ddp = com_target(0.0, self.com0)
        self.com_binding = scene.bind("com", self.com_pd, p, dp, ddp)
        self.posture_binding = scene.bind("posture", self.posture_pd, self.posture_target)

    def step(self) -> None:
        """One control step at the next recorded state (the loop a user writes)."""
        t, q, v = self.states[self._k]
        self._k = (self._k + 1) % len(self.states)
        self.control(t, q, v)

    def control(self, t: float, q: np.ndarray, v: np.ndarray) -> None:
        robot, scene = self.robot, self.scene
        robot.update(q, v)
        p, dp, ddp = com_target(t, self.com0)
        if CHECKED:
            scene.set_reference("com", self.com_pd.reference(self.com_task, p, dp, ddp))
            scene.set_reference("posture", self.posture_pd.reference(self.posture_task, self.posture_target))
        else:
            self.com_binding.set_target(p, dp, ddp)  # a moving target: validated, then evaluated
            self.posture_binding.update()
        cmd = scene.solve(scene.update())
        self.tau = cmd.effort
        self.qdd = scene.get_solver_output_raw()
        self.wrench = scene.get_contact_wrenches()

    def desired_accelerations(self) -> tuple[np.ndarray, np.ndarray]:
        """The COM and posture acceleration references of the last step."""
        return self.com_task.reference.acceleration.copy(), self.posture_task.reference.acceleration.copy()

    def wrenches(self) -> list[np.ndarray]:
        """Each sole's wrench of the last step (contact frame, about its origin)."""
        return [self.wrench[f] for f in SOLES]


def interleaved_blocks(
    fns: list[Callable[[], None]], n_repeat: int, block: int, warmup: int = 200
) -> list[np.ndarray]:
    """Per callable, the per-call times (µs) of ``n_repeat`` samples taken in alternating blocks of
    ``block`` samples, shaped (n_blocks, block): row b of every callable ran in the same time window."""
    clock = time.perf_counter_ns
    for fn in fns:
        for _ in range(warmup):
            fn()
    n_blocks = max(1, -(-n_repeat // block))
    out = [np.empty((n_blocks, block)) for _ in fns]
    enabled = gc.isenabled()
    gc.disable()
    try:
        for b in range(n_blocks):
            for fn, samples in zip(fns, out, strict=True):
                row = samples[b]
                for i in range(block):
                    t0 = clock()
                    fn()
                    row[i] = clock() - t0
    finally:
        if enabled:
            gc.enable()
    return [s / 1e3 for s in out]


def _timing(samples: np.ndarray) -> Timing:
    flat = samples.ravel()
    return Timing(float(np.median(flat)), float(np.percentile(flat, 95)), int(flat.size))


def floor_step(peer: TsidTalosStanding) -> Callable[[], None]:
    """The raw Pinocchio calls of one step, on the peer's recorded states (cycled)."""
    model = peer.model
    data = model.createData()
    fids = [model.getFrameId(f) for f in SOLES]
    zero = np.zeros(model.nv)
    states = peer.states
    k = [0]

    def run() -> None:
        _, q, v = states[k[0]]
        k[0] = (k[0] + 1) % len(states)
        pin.computeAllTerms(model, data, q, v)
        for fid in fids:
            pin.getFrameJacobian(model, data, fid, LOCAL)
            pin.getFrameClassicalAcceleration(model, data, fid, LOCAL)
        pin.jacobianCenterOfMass(model, data, q)
        pin.centerOfMass(model, data, q, v, zero)

    return run


def accuracy(peer: TsidTalosStanding | WbcpyTalosStanding, n_states: int) -> dict[str, float]:
    """Distance of a side's q̈ from the exact optimum of the same problem at ``n_states`` recorded states.

    Returns the largest and median ‖q̈ − q̈*‖∞ (rad/s², m/s²), the largest relative to 1 + ‖q̈*‖∞, the
    largest effect of a λ = 1e-8 regulariser on q̈ alone (what the scene uses), and the check that both
    solve the same problem: the side's answer is feasible for the oracle's problem (largest constraint
    residual) and its task cost is not below the optimum (relative excess range).
    """
    from _contact_oracle import talos_standing

    model = peer.model
    errors, relative, lam_effect, primal, excess = [], [], [], [], []
    for idx in np.linspace(0, len(peer.states) - 1, n_states).astype(int):
        peer._k = int(idx)
        peer.step()
        _, q, v = peer.states[idx]
        com_acc, posture_acc = peer.desired_accelerations()
        weights = (WEIGHTS["com"], WEIGHTS["posture"])
        problem = talos_standing(model, q, v, com_acc, posture_acc, mu=MU, weights=weights, fz_max=FZ_MAX)
        optimum = problem.task_optimum()
        exact = optimum.qdd
        err = float(np.abs(peer.qdd - exact).max())
        errors.append(err)
        relative.append(err / (1.0 + float(np.abs(exact).max())))
        regularised = talos_standing(
            model, q, v, com_acc, posture_acc, mu=MU, weights=weights, fz_max=FZ_MAX, regularization=1e-8
        ).task_optimum()
        lam_effect.append(float(np.abs(regularised.qdd - exact).max()))
        # same problem: the side's answer is feasible for the oracle's (residuals of its constraints,
        # cones via NNLS) and costs at least the optimum
        cert = problem.certificate(peer.qdd, peer.wrenches())
        primal.append(max(cert.equality, cert.inequality, cert.cone))
        excess.append((problem.cost(peer.qdd) - optimum.cost) / optimum.cost)
    return {
        "max": max(errors),
        "median": float(np.median(errors)),
        "max_relative": max(relative),
        "lambda_1e-8": max(lam_effect),
        "primal": max(primal),
        "cost_excess": (min(excess), max(excess)),
    }


def _table(samples: list[np.ndarray], labels: list[str], title: str) -> None:
    floor, *rest = (_timing(s) for s in samples)
    rows = [Row(labels[0], floor)] + [Row(label, t, floor) for label, t in zip(labels[1:], rest, strict=True)]
    print_table(rows, title=title)


def _run(fns: list[Callable[[], None]], labels: list[str], repeat: int, block: int, title: str):
    """One interleaved run: prints the table, returns the samples and the per-block ratios wbcpy / TSID
    (1e-5)."""
    samples = interleaved_blocks(fns, repeat, block)
    _table(samples, labels, title)
    return samples, np.median(samples[3], axis=1) / np.median(samples[1], axis=1)


def main(argv: list[str] | None = None) -> None:
    print_cpu()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3000, help="samples per row and run (default 3000)")
    parser.add_argument("--runs", type=int, default=3, help="interleaved runs (default 3)")
    parser.add_argument("--block", type=int, default=50, help="samples per interleaved block (default 50)")
    parser.add_argument("--states", type=int, default=50, help="states of the accuracy check (default 50)")
    parser.add_argument("--checked", action="store_true", help="references through set_reference")
    args = parser.parse_args(argv)
    global CHECKED
    CHECKED = args.checked
    try:
        peers = [TsidTalosStanding(force_regularization=1e-5), TsidTalosStanding(force_regularization=0.0)]
        for peer in peers:
            peer.setup()
    except ImportError as exc:
        sys.exit(f"bench_contact: TSID or example-robot-data is missing ({exc}); see benchmarks/_peers.py")
    ours = WbcpyTalosStanding(peers[0])
    labels = [
        "floor: computeAllTerms + soles' J, a_c + COM J, bias",
        "TSID step (force regularisation 1e-5)",
        "TSID step (force regularisation 0)",
        f"wbcpy InverseDynamicsScene step [{ours.scene.solver.name}]",
    ]
    fns = [floor_step(peers[0]), peers[0].step, peers[1].step, ours.step]
    ratios, pooled = [], [[] for _ in fns]
    for run in range(args.runs):
        title = f"Talos standing, one control step, run {run + 1}/{args.runs} (pin {pin.__version__}, " \
                f"{args.repeat} samples per row)"  # fmt: skip
        samples, r = _run(fns, labels, args.repeat, args.block, title)
        ratios.append(r)
        for acc, x in zip(pooled, samples, strict=True):
            acc.append(x)
        print(
            f"  wbcpy / TSID (1e-5), per block: median {np.median(r):.2f}, p95 {np.percentile(r, 95):.2f}\n"
        )
    _table([np.vstack(x) for x in pooled], labels, f"all {args.runs} runs pooled")
    r = np.concatenate(ratios)
    medians = [float(np.median(x)) for x in ratios]
    print(
        f"wbcpy / TSID step ratio over {args.runs} runs ({r.size} blocks): median {np.median(r):.2f}, "
        f"p95 {np.percentile(r, 95):.2f} (run medians {', '.join(f'{m:.2f}' for m in medians)})"
    )
    if args.states > 0:
        print(f"\nq̈ against the exact optimum of the same problem ({args.states} states):")
        sides = [(peers[0], "TSID, force regularisation 1e-5"), (peers[1], "TSID, force regularisation 0"),
                 (ours, "wbcpy InverseDynamicsScene")]  # fmt: skip
        for side, label in sides:
            acc = accuracy(side, args.states)
            print(
                f"  {label}: max ‖Δq̈‖∞ = {acc['max']:.3g}, median {acc['median']:.3g} "
                f"(rad/s²), max relative {acc['max_relative']:.3g}; λ = 1e-8 on q̈ alone moves the "
                f"optimum by ≤ {acc['lambda_1e-8']:.3g}"
            )
            lo, hi = acc["cost_excess"]
            print(
                f"    (same problem: the answer violates the oracle's constraints by ≤ "
                f"{acc['primal']:.2g}; its task cost exceeds the optimum by {lo:.2g} to {hi:.2g}, relative)"
            )


if __name__ == "__main__":
    main()
