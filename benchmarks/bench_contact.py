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

The wbcpy row (``InverseDynamicsScene``: ``ComPD``/``JointPD`` references, ``set_reference``,
``robot.update``, ``scene.update``, ``scene.solve``) is added with the scene itself (issue 10, phase 2);
this script has no wbcpy row yet. Target: wbcpy's step ≤ 1.0× TSID's.

Accuracy: at ``--states`` recorded states, TSID's q̈ is compared with the exact optimum of the same
problem (TSID's PD outputs as references), computed by the independent oracle of the test suite
(``tests/_contact_oracle.py``: corner-force parametrisation, no force regulariser, quadprog).

Run in a benchmark venv with TSID (see ``benchmarks/_peers.py``):
``python benchmarks/bench_contact.py [--repeat N] [--states N]``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pinocchio as pin

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the contact oracle

from _peers import FZ_MAX, MU, SOLES, WEIGHTS, TsidTalosStanding
from _timing import Row, measure_interleaved, print_table

LOCAL = pin.ReferenceFrame.LOCAL


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


def accuracy(peer: TsidTalosStanding, n_states: int) -> dict[str, float]:
    """Distance of TSID's q̈ from the exact optimum of the same problem at ``n_states`` recorded states.

    Returns the largest and median ‖q̈_TSID − q̈*‖∞ (rad/s², m/s²), the largest relative to
    1 + ‖q̈*‖∞, the largest effect of a λ = 1e-8 regulariser on q̈ alone (what the scene uses), and
    the check that both solve the same problem: TSID's answer is feasible for the oracle's problem
    (largest constraint residual) and its task cost is not below the optimum (relative excess range).
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
        # same problem: TSID's answer is feasible for the oracle's (residuals of its constraints, cones
        # via NNLS) and costs at least the optimum
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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3000, help="samples per row (default 3000)")
    parser.add_argument("--states", type=int, default=50, help="states of the accuracy check (default 50)")
    args = parser.parse_args(argv)
    try:
        peers = [TsidTalosStanding(force_regularization=1e-5), TsidTalosStanding(force_regularization=0.0)]
        for peer in peers:
            peer.setup()
    except ImportError as exc:
        sys.exit(f"bench_contact: TSID or example-robot-data is missing ({exc}); see benchmarks/_peers.py")
    labels = [
        "floor: computeAllTerms + soles' J, a_c + COM J, bias",
        "TSID step (force regularisation 1e-5)",
        "TSID step (force regularisation 0)",
    ]
    fns = [floor_step(peers[0]), peers[0].step, peers[1].step]
    floor, *rest = measure_interleaved(fns, n_repeat=args.repeat)
    rows = [Row(labels[0], floor)] + [Row(label, t, floor) for label, t in zip(labels[1:], rest, strict=True)]
    title = f"Talos standing, one control step (pin {pin.__version__}, {args.repeat} samples)"
    print_table(rows, title=title)
    if args.states > 0:
        print(f"\nTSID's q̈ against the exact optimum of the same problem ({args.states} states):")
        for peer, label in zip(peers, ("1e-5", "0"), strict=True):
            acc = accuracy(peer, args.states)
            print(
                f"  force regularisation {label}: max ‖Δq̈‖∞ = {acc['max']:.3g}, median {acc['median']:.3g} "
                f"(rad/s²), max relative {acc['max_relative']:.3g}; λ = 1e-8 on q̈ alone moves the "
                f"optimum by ≤ {acc['lambda_1e-8']:.3g}"
            )
            lo, hi = acc["cost_excess"]
            print(
                f"    (same problem: TSID's answer violates the oracle's constraints by ≤ "
                f"{acc['primal']:.2g}; its task cost exceeds the optimum by {lo:.2g} to {hi:.2g}, relative)"
            )


if __name__ == "__main__":
    main()
