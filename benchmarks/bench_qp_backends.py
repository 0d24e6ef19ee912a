"""Benchmark of the QP backends behind :class:`wbcpy.qp.QPSolver` on whole-body-control sized problems.

Problems (built once from Pinocchio Jacobians along a joint trajectory, then cycled through so that
every call sees a slightly different problem, as in a control loop with warm start):

- ``arm7 1-level``: 7-DOF KUKA LWR4 (shipped), end-effector task (6 rows) + posture (7 rows, weight
  1e-2) in one level, λ = 1e-8, no bounds.
- ``arm7 limits``: the end-effector task alone (6 rows: one direction of curvature λ only) with
  acceleration bounds, some of them active.
- ``arm7 2-level``: end-effector task at priority 0, posture at priority 1, wide bounds.
- ``talos38 2-level``: Talos (38 DOF, floating base): both feet (12 rows) at priority 0, COM (3 rows)
  + posture (32 rows, weight 1e-2) at priority 1, bounds on the joints (some active), two locked joints.
- ``talos38 QP eq+bounds``: one QPProblem: COM + posture cost, the left foot as 6 equality
  constraints, bounds; solved with :meth:`QPSolver.solve`.

For each backend of ``available_solvers()`` the table lists the dedicated adapter and the generic
qpsolvers path (``via_qpsolvers=True``) — median and p95 per call in µs and the ratio of the median to
the raw Pinocchio floor (``computeAllTerms`` of the same robot, measured in the same run). The
``raw daqp.solve`` row is the bare C call on the same H, g (no validation, no checks); the ``raw
daqp_quadprog`` row the same C function without daqp's Python wrapper (as the DAQP backend calls it).

Run: ``PYTHONPATH=. python benchmarks/bench_qp_backends.py [--quick]``.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pinocchio as pin
from _timing import print_cpu

from wbcpy import load_robot
from wbcpy.qp import HierarchicalQP, QPLevel, QPSolver, available_solvers, default_solver
from wbcpy.qp.backends import PREFERENCE

LAM = 1e-8
N_STEPS = 40  # distinct problems cycled through


def timeit(fn, budget_s: float, max_calls: int) -> np.ndarray:
    for _ in range(5):
        fn()
    ts = []
    t_end = time.perf_counter() + budget_s
    while len(ts) < max_calls and (len(ts) < 50 or time.perf_counter() < t_end):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return np.array(ts) * 1e6


def floor_us(model: pin.Model, budget: float) -> float:
    data = model.createData()
    q = pin.neutral(model)
    v = np.zeros(model.nv)
    return float(np.median(timeit(lambda: pin.computeAllTerms(model, data, q, v), budget, 20000)))


def trajectory(model: pin.Model, rng: np.random.Generator, q0: np.ndarray | None = None) -> list[np.ndarray]:
    q0 = pin.neutral(model) if q0 is None else q0
    dq = rng.standard_normal(model.nv) * 0.02
    return [pin.integrate(model, q0, dq * k) for k in range(N_STEPS)]


def arm_problems(rng: np.random.Generator):
    model = load_robot("lwr4").model
    data = model.createData()
    fid = model.getFrameId("lwr_ee")
    names = [str(nm) for nm in model.names[1:]]
    n = model.nv
    reg = np.full(n, LAM)
    lb, ub = -3.0 * np.ones(n), 3.0 * np.ones(n)  # some active for the end-effector task alone
    lb2, ub2 = -10.0 * np.ones(n), 10.0 * np.ones(n)  # leave freedom to the posture level
    one, limits, two = [], [], []
    bent = np.array([0.0, 0.6, 0.0, -1.2, 0.0, 0.7, 0.0])  # away from the straight (singular) pose
    for k, q in enumerate(trajectory(model, rng, bent)):
        J = pin.computeFrameJacobian(model, data, q, fid, pin.LOCAL_WORLD_ALIGNED)
        y = 4.0 * np.sin(0.3 * k + np.arange(6))  # reference accelerations
        post_A, post_y = 0.1 * np.eye(n), 0.1 * (-q)
        one.append(HierarchicalQP([QPLevel(np.vstack([J, post_A]), np.concatenate([y, post_y]), reg)], names))
        limits.append(HierarchicalQP([QPLevel(J, y, reg)], names, lb, ub))
        two.append(HierarchicalQP([QPLevel(J, y, reg), QPLevel(post_A, post_y, reg)], names, lb2, ub2))
    return model, [("arm7 1-level", one), ("arm7 limits", limits), ("arm7 2-level", two)]


def talos_problems(rng: np.random.Generator):
    try:
        robot = load_robot("talos")
    except Exception as exc:  # example-robot-data missing
        print(f"(talos skipped: {exc})")
        return None, []
    model = robot.model
    data = model.createData()
    n = model.nv
    names = [f"v{i}" for i in range(n)]
    feet = [model.getFrameId("left_sole_link"), model.getFrameId("right_sole_link")]
    reg = np.full(n, LAM)
    lb = np.full(n, -np.inf)
    ub = np.full(n, np.inf)
    lb[6:], ub[6:] = -20.0, 20.0
    lb[6 + 3 : 6 + 5], ub[6 + 3 : 6 + 5] = -0.5, 0.5  # a few tight bounds (active)
    lb[-2:] = ub[-2:] = 0.0  # two locked joints (joint weight 0)
    post_A = np.hstack([np.zeros((n - 6, 6)), 0.1 * np.eye(n - 6)])
    hier, flat = [], []
    for k, q in enumerate(trajectory(model, rng)):
        pin.computeJointJacobians(model, data, q)
        pin.updateFramePlacements(model, data)
        Jf = np.vstack([pin.getFrameJacobian(model, data, f, pin.LOCAL_WORLD_ALIGNED) for f in feet])
        Jc = pin.jacobianCenterOfMass(model, data, q)
        yc = np.array([0.5 * np.sin(0.2 * k), 0.3, -0.2])
        post_y = 0.1 * np.sin(0.1 * k + np.arange(n - 6))
        top = QPLevel(Jf, np.zeros(12), reg)
        low = QPLevel(np.vstack([Jc, post_A]), np.concatenate([yc, post_y]), reg)
        hier.append(HierarchicalQP([top, low], names, lb, ub))
        prob = low.to_problem(lb, ub)
        prob.A, prob.b = Jf[:6], np.zeros(6)
        flat.append(prob)
    return model, [("talos38 2-level", hier), ("talos38 QP eq+bounds", flat)]


def run_case(solver: QPSolver, problems: list, budget: float, max_calls: int) -> np.ndarray | str:
    it = [0]
    hier = isinstance(problems[0], HierarchicalQP)

    def call():
        p = problems[it[0] % len(problems)]
        it[0] += 1
        return solver.solve_hierarchy(p) if hier else solver.solve(p)

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            return timeit(call, budget, max_calls)
    except Exception as exc:  # report, keep benchmarking the others
        return f"{type(exc).__name__}: {str(exc)[:60]}"


def _print_row(pname: str, label: str, timings: np.ndarray, floor: float, status: str) -> float:
    """One table row (median, p95, ratio to the floor); returns the median [µs]."""
    med, p95 = float(np.median(timings)), float(np.percentile(timings, 95))
    print(f"{pname:22s} {label:24s} {med:10.1f} {p95:10.1f} {med / floor:8.1f}  {status}")
    return med


def _raw_daqp_row(pname: str, level: QPLevel, floor: float, budget: float, max_calls: int) -> None:
    """The bare ``daqp.solve`` call on the level's H, g (no validation, no checks), and the same C function
    called without daqp's Python wrapper (``wbcpy._kernels.daqp_solve``, as the DAQP backend calls it): the
    difference of the two rows is the wrapper's Python work per call."""
    import daqp

    from wbcpy import _kernels
    from wbcpy.qp.backends import daqp_direct

    H = level.A.T @ level.A + np.diag(level.regularization)
    g = -(level.y @ level.A)
    no_rows, empty, sense = np.zeros((0, H.shape[0])), np.zeros(0), np.zeros(0, dtype=np.intc)
    args = (H, g, no_rows, empty, empty, sense)
    raw = timeit(lambda args=args: daqp.solve(*args), budget, max_calls)
    _print_row(pname, "raw daqp.solve", raw, floor, "bare C call through daqp's wrapper")
    settings = daqp_direct.settings_vector({})
    if settings is not None:
        direct = timeit(lambda args=args: _kernels.daqp_solve(*args, settings), budget, max_calls)
        _print_row(pname, "raw daqp_quadprog", direct, floor, "the same C call, no wrapper")


def _bench_problem(
    pname: str, problems: list, floor: float, solvers: list[str], budget: float, max_calls: int
) -> dict[str, float]:
    """The rows of one problem (every backend, dedicated and via qpsolvers): label -> median µs."""
    rows = [(name, QPSolver(name)) for name in solvers]
    rows += [(f"{name} (via qpsolvers)", QPSolver(name, via_qpsolvers=True)) for name in solvers]
    medians: dict[str, float] = {}
    for label, solver in rows:
        res = run_case(solver, problems, budget, max_calls)
        if isinstance(res, str):
            print(f"{pname:22s} {label:24s} {'-':>10s} {'-':>10s} {'-':>8s}  {res}")
            continue
        last = solver.statuses[-1].status if solver.statuses else ""
        medians[label] = _print_row(pname, label, res, floor, last[:40])
    if pname == "arm7 1-level" and "daqp" in solvers:
        _raw_daqp_row(pname, problems[0].levels[0], floor, budget, max_calls)
    print()
    return medians


def _print_ranking(solvers: list[str], medians: dict[str, dict[str, float]]) -> None:
    print("ranking of the dedicated adapters (median µs, arm7 1-level / talos38 2-level):")
    key_problems = [p for p in ("arm7 1-level", "talos38 2-level") if p in medians]
    ranking = sorted(
        (name for name in solvers if all(name in medians[p] for p in key_problems)),
        key=lambda name: sum(medians[p][name] for p in key_problems),
    )
    for name in ranking:
        print(f"  {name:10s} " + " / ".join(f"{medians[p][name]:.1f}" for p in key_problems))


def main() -> None:
    print_cpu()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="shorter time budget per row")
    args = parser.parse_args()
    budget = 0.25 if args.quick else 1.0
    max_calls = 3000 if args.quick else 20000
    rng = np.random.default_rng(0)
    arm_model, arm = arm_problems(rng)
    talos_model, talos = talos_problems(rng)
    floors = {"arm7": floor_us(arm_model, budget)}
    if talos_model is not None:
        floors["talos38"] = floor_us(talos_model, budget)
    solvers = available_solvers()
    print(f"backends: {', '.join(solvers)}; default_solver() = {default_solver()}")
    print("floor (pin.computeAllTerms): " + ", ".join(f"{k} {v:.1f} µs" for k, v in floors.items()))
    print()
    header = f"{'problem':22s} {'backend':24s} {'median µs':>10s} {'p95 µs':>10s} {'×floor':>8s}  status"
    print(header)
    print("-" * len(header))
    medians: dict[str, dict[str, float]] = {}
    for pname, problems in arm + talos:
        found = _bench_problem(pname, problems, floors[pname.split()[0]], solvers, budget, max_calls)
        if found:  # (a problem every backend failed on has no entry)
            medians[pname] = found
    _print_ranking(solvers, medians)
    print(f"wbcpy.qp.backends.PREFERENCE = {PREFERENCE}")


if __name__ == "__main__":
    main()
