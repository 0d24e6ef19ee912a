"""Benchmark: chain FK + Jacobian (wbcpy.model.chain.Chain) against the raw Pinocchio calls doing the same.

Each case returns the tip placement in the chain base frame (``pin.SE3``) and the 6×n chain Jacobian in
base axes at the tip, for a chain-local joint vector:

* ``fk_jacobian``: ``chain.fk_jacobian(q_c)`` (one kinematics pass; validation, q write-in, base transform).
* ``fk + jacobian``: the two separate calls (two passes).
* ``fk`` / ``jacobian`` alone.
* floor ``raw`` (the reference of the ratios): what a raw-Pinocchio user writes for the same result,
  given the full q: ``computeJointJacobians`` + ``updateFramePlacement`` (tip and base) +
  ``getFrameJacobian(LOCAL_WORLD_ALIGNED)`` + base transform (``oMb.actInv(oMt)``, ``Rᵦᵀ`` on both
  3-row blocks of the chain columns in one broadcast matmul). ``raw fk``: ``forwardKinematics`` +
  ``updateFramePlacement`` ×2 + ``actInv``. ``raw jacobian``: the raw floor minus the placement output.
* ``raw minimal``: the fewest raw calls found for the same result (``computeFrameJacobian`` + a base
  transform precomputed once, the chain's own strategy, hand-inlined without validation): shown so
  the wrapper's own cost is visible.

Every case cycles through the same 64 random chain configurations; each case is measured interleaved with
its floor. Run: ``python benchmarks/bench_chains.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

import numpy as np
import pinocchio as pin

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _timing import Row, measure_interleaved, print_cpu, print_table

from wbcpy import load_robot
from wbcpy.errors import UnknownNameError

LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
#: label -> (robot, base frame, tip frame)
CASES = {
    "panda link0->link8": ("panda", "panda_link0", "panda_link8"),
    "panda link0->hand": ("panda", "panda_link0", "panda_hand"),
    "baxter left arm": ("baxter", "torso", "left_gripper"),
    "baxter left_arm_mount->gripper": ("baxter", "left_arm_mount", "left_gripper"),
}


def bench_case(label: str, robot_name: str, base: str, tip: str, n_repeat: int) -> tuple[str, list[Row]]:
    """Title and rows (floors first) for one chain."""
    try:
        robot = load_robot(robot_name)
    except UnknownNameError as exc:
        print(f"skipping {label}: {exc}", file=sys.stderr)
        return label, []
    chain = robot.chain(base, tip)
    rng = np.random.default_rng(0)
    lo = np.where(np.isfinite(chain.lower), chain.lower, -np.pi)
    hi = np.where(np.isfinite(chain.upper), chain.upper, np.pi)
    qcs = [rng.uniform(lo, hi) for _ in range(64)]
    qs = [chain.full_q(qc) for qc in qcs]
    m, d = robot.model, robot.model.createData()
    bid, tid, cols, n = robot.frame_id(base), robot.frame_id(tip), chain.dof_indices, chain.n

    sl = (
        slice(int(cols[0]), int(cols[-1]) + 1)
        if np.array_equal(cols, np.arange(cols[0], cols[-1] + 1))
        else cols
    )

    def raw(q: np.ndarray) -> tuple[pin.SE3, np.ndarray]:
        pin.computeJointJacobians(m, d, q)
        oMt = pin.updateFramePlacement(m, d, tid)
        oMb = pin.updateFramePlacement(m, d, bid)
        J = pin.getFrameJacobian(m, d, tid, LWA)
        # Rᵦᵀ on the linear and the angular blocks in one broadcast matmul (fastest form found)
        Jb = (oMb.rotation.T @ J[:, sl].reshape(2, 3, n)).reshape(6, n)
        return oMb.actInv(oMt), Jb

    def raw_fk(q: np.ndarray) -> pin.SE3:
        pin.forwardKinematics(m, d, q)
        oMt = pin.updateFramePlacement(m, d, tid)
        return pin.updateFramePlacement(m, d, bid).actInv(oMt)

    # minimal: base placement is constant (its joints are outside the chain) -> precompute once
    pin.framesForwardKinematics(m, d, qs[0])
    bMo = d.oMf[bid].inverse()
    R6 = np.kron(np.eye(2), bMo.rotation)

    def raw_min(q: np.ndarray) -> tuple[pin.SE3, np.ndarray]:
        J = pin.computeFrameJacobian(m, d, q, tid, LWA)
        return bMo * pin.updateFramePlacement(m, d, tid), R6 @ J[:, sl]

    nq_c = itertools.cycle(qcs).__next__
    nq_f = itertools.cycle(qs).__next__
    cases = {
        "fk_jacobian": lambda: chain.fk_jacobian(nq_c()),
        "fk + jacobian": lambda: (chain.fk(nq_c()), chain.jacobian(nq_c())),
        "fk": lambda: chain.fk(nq_c()),
        "jacobian": lambda: chain.jacobian(nq_c()),
    }
    floors = {
        "raw": lambda: raw(nq_f()),
        "raw fk": lambda: raw_fk(nq_f()),
        "raw jacobian": lambda: raw(nq_f())[1],
        "raw minimal": lambda: raw_min(nq_f()),
    }
    floor_of = {"fk": "raw fk", "jacobian": "raw jacobian"}
    names = list(floors) + list(cases)
    timings = dict(
        zip(names, measure_interleaved([*floors.values(), *cases.values()], n_repeat), strict=True)
    )
    title = f"{label}: {robot_name} {base} -> {tip} (n={n}, robot nv={robot.nv})"
    rows = [Row("raw (floor)", timings["raw"]), Row("raw fk (floor)", timings["raw fk"])]
    rows.append(
        Row("raw minimal", timings["raw minimal"], timings["raw"], "vs raw; fewest raw calls, no checks")
    )
    for name in cases:
        floor = floor_of.get(name, "raw")
        rows.append(Row(name, timings[name], timings[floor], f"vs {floor}"))
    rows.append(Row("fk_jacobian", timings["fk_jacobian"], timings["raw minimal"], "vs raw minimal"))
    return title, rows


def main(argv: list[str] | None = None) -> int:
    print_cpu()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3000, help="samples per case (default 3000)")
    args = parser.parse_args(argv)
    print("Chain FK + Jacobian per call (µs); ratio = median / floor median, measured interleaved\n")
    for label, (robot, base, tip) in CASES.items():
        title, rows = bench_case(label, robot, base, tip, args.repeat)
        if rows:
            print_table(rows, title=title)
            print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
