"""Benchmark: one MultiRefMinJerkCtrl.iterate() on a 7-DOF arm against raw Pinocchio and pink.

Cases per arm (lwr4 lwr_base_link → lwr_ee, and Panda panda_link0 → panda_link8 when example-robot-data is
installed), each measured interleaved with its floor:

* floor ``raw FK + frame Jacobian``: what a raw-Pinocchio user writes for the tip pose and its 6×7
  Jacobian (the chain base is the world frame here): ``computeJointJacobians`` + ``updateFramePlacement`` +
  ``getFrameJacobian(LOCAL_WORLD_ALIGNED)``. Ratios are taken against this floor.
* ``raw computeFrameJacobian``: the single Pinocchio call that yields both (it also places the frame).
* ``chain.fk_jacobian``: the validated chain call; ``chain.fk_jacobian_unchecked``: the one ``iterate()``
  makes once per step on its own (already valid) angles.
* ``iterate(xd, qd)``: fixed target, joint target given (the hot path).
* ``iterate(xd, qd) moving xd``: a new target array every call (target conversion included).
* ``iterate(xd)``: joint target from the cached DLS IK (computed once for the fixed target). The note says
  whether W = γI (every joint inside its interior band: the fast blend) or a joint sits in a guard band
  (rule-based weights and the general blend) during the timed steps.
* ``pink update + solve_ik``: one pink step with one FrameTask (``Configuration.update`` + ``solve_ik``)
  for each installed backend among daqp, osqp, proxqp, quadprog; ratio against the same floor. The note
  column gives iterate()/pink.

Run: ``python benchmarks/bench_ik.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pinocchio as pin

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _timing import Row, Timing, measure_interleaved, print_cpu, print_table

from wbcpy import load_robot
from wbcpy.errors import UnknownNameError
from wbcpy.ik import MultiRefMinJerkCtrl

LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
TS = 0.01
#: label -> (robot, base frame, tip frame, start configuration)
ARMS = {
    "lwr4": ("lwr4", "lwr_base_link", "lwr_ee", [0.0, -0.5, 0.0, 1.3, 0.0, -0.7, 0.0]),
    "panda": ("panda", "panda_link0", "panda_link8", [0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785]),
}
PINK_SOLVERS = ("daqp", "osqp", "proxqp", "quadprog")


def _pink_rows(
    robot, tip: str, q0: np.ndarray, target: pin.SE3, n_repeat: int, raw, it_timing: Timing
) -> list[Row]:
    """One pink step per backend: ``Configuration.update(q0)`` + ``solve_ik`` towards the same target."""
    if importlib.util.find_spec("pink") is None:
        print("pink is not installed: no pink rows (pip install pin-pink)", file=sys.stderr)
        return []
    import warnings

    import pink
    import qpsolvers
    from pink.tasks import FrameTask

    warnings.filterwarnings("ignore", module="qpsolvers")  # osqp's dense-to-sparse conversion notice
    model = robot.model
    q = pin.neutral(model)
    q[: len(q0)] = q0
    rows = []
    for solver in PINK_SOLVERS:
        if solver not in qpsolvers.available_solvers:
            continue
        config = pink.Configuration(model, model.createData(), q)
        task = FrameTask(tip, position_cost=1.0, orientation_cost=1.0)
        task.set_target(target)

        def pink_step(config=config, task=task, solver=solver) -> None:
            config.update(q)
            pink.solve_ik(config, [task], TS, solver=solver)

        t_pink, t_floor = measure_interleaved([pink_step, raw], n_repeat=max(200, n_repeat // 5))
        note = f"iterate/pink = {it_timing.median_us / t_pink.median_us:.2f}"
        rows.append(Row(f"pink update + solve_ik ({solver})", t_pink, t_floor, note))
    return rows


def bench_arm(label: str, n_repeat: int) -> list[Row]:
    name, base, tip, q_start = ARMS[label]
    try:
        robot = load_robot(name)
    except UnknownNameError as exc:
        print(f"skipping {label}: {exc}", file=sys.stderr)
        return []
    chain = robot.chain(base, tip)
    m, d = robot.model, robot.model.createData()
    tid = robot.frame_id(tip)
    q0 = np.array(q_start, dtype=np.float64)
    rng = np.random.default_rng(0)
    span = chain.upper - chain.lower
    q_goal = rng.uniform(chain.lower + 0.1 * span, chain.upper - 0.1 * span)
    target = chain.fk(q_goal)
    xd = chain.pose7(q_goal)
    q_full = chain.full_q(q0)

    def raw() -> None:
        pin.computeJointJacobians(m, d, q_full)
        pin.updateFramePlacement(m, d, tid)
        pin.getFrameJacobian(m, d, tid, LWA)

    def raw_min() -> None:
        pin.computeFrameJacobian(m, d, q_full, tid, LWA)
        d.oMf[tid].copy()

    def fk_jac() -> None:
        chain.fk_jacobian(q0)

    def fk_jac_unchecked() -> None:
        chain.fk_jacobian_unchecked(q0)

    ctrl = MultiRefMinJerkCtrl(chain, "full", TS, q0=q0)

    def iterate() -> None:
        ctrl.iterate(xd, q_goal)

    moving = MultiRefMinJerkCtrl(chain, "full", TS, q0=q0)
    xds = [xd + np.array([0.0, 0.0, 1e-4 * k, 0.0, 0.0, 0.0, 0.0]) for k in range(64)]
    counter = {"k": 0}

    def iterate_moving() -> None:
        counter["k"] = (counter["k"] + 1) % 64
        moving.iterate(xds[counter["k"]], q_goal)

    ik_ctrl = MultiRefMinJerkCtrl(chain, "full", TS, q0=q0)
    for _ in range(2):  # the DLS joint target: the first call pauses at |e| < 1e-4, the second finishes it
        ik_ctrl.iterate(xd)

    def iterate_ik() -> None:
        ik_ctrl.iterate(xd)

    def banded_share(steps: int) -> float:
        """Share of steps with a joint in a guard band, replayed on a twin (the run is deterministic)."""
        twin = MultiRefMinJerkCtrl(chain, "full", TS, q0=q0)
        banded = 0
        for _ in range(steps):
            twin.iterate(xd)
            w = twin.get_weights()
            banded += int(w.min() != w.max())
        return banded / steps

    rows: list[Row] = []
    cases = [
        ("raw computeFrameJacobian", raw_min),
        ("chain.fk_jacobian", fk_jac),
        ("chain.fk_jacobian_unchecked", fk_jac_unchecked),
        ("iterate(xd, qd)", iterate),
        ("iterate(xd, qd) moving xd", iterate_moving),
        ("iterate(xd) cached DLS qd", iterate_ik),
    ]
    floor = None
    it_timing = None
    for case_label, fn in cases:
        t_case, t_floor = measure_interleaved([fn, raw], n_repeat=n_repeat)
        if floor is None:
            floor = t_floor
            rows.append(Row("raw FK + frame Jacobian", t_floor))
        note = ""
        if fn is iterate_ik:
            share = banded_share(t_case.n + 200)  # the timed samples plus the warm-up
            note = "W = γI" if share == 0.0 else f"guard band active in {100 * share:.0f} % of steps"
        rows.append(Row(case_label, t_case, t_floor, note))
        if case_label == "iterate(xd, qd)":
            it_timing = t_case
    assert floor is not None and it_timing is not None
    rows.extend(_pink_rows(robot, tip, q0, target, n_repeat, raw, it_timing))
    return rows


def main(argv: list[str] | None = None) -> int:
    print_cpu()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3000, help="samples per case (default 3000)")
    args = parser.parse_args(argv)
    for label in ARMS:
        rows = bench_arm(label, args.repeat)
        if rows:
            print_table(rows, title=f"\n{label} ({ARMS[label][1]} -> {ARMS[label][2]}, 7 DOF), Ts = {TS} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
