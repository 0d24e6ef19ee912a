"""Offline campaign: random hierarchies against an independent sequential reference.

Problems and reference: ``tests/_hierarchy_reference.py``. Two families (``--family``): ``boxed``
(:func:`random_problem`: 2–4 levels, 5–60 variables, rank-deficient, duplicated and higher-level-span
rows, weights over three decades, λ = 1e-8 on every level in half of them, bounds with fixed variables,
equality and inequality rows) and ``open`` (:func:`random_open_problem`: no bounds, 2–5 levels of few
rows and no regulariser, many equality rows on level 0: semidefinite levels with unbounded optimal
sets); every tenth problem infeasible by construction, and an open problem whose lower-level inequality
rows the levels above leave unreachable is infeasible too (the reference says which). The reference
solves each level in the null space of its equalities with quadprog and proximal-point iterations and
checks its own KKT conditions. An answer is right when every level's cost is within 1e-6·(1 + cost) of
the reference's and every hard constraint holds to 1e-9 relative.

Prints per backend: feasible problems refused, wrong answers, infeasible problems answered, and the
problems the reference itself could not settle (left out of the counts). Usage::

    python benchmarks/campaign_hierarchies.py --problems 3000 --backends default,daqp,quadprog
    python benchmarks/campaign_hierarchies.py --family open --problems 3000
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _hierarchy_reference import (
    ReferenceFailedError,
    level_costs,
    random_open_problem,
    random_problem,
    reference,
    violation,
)
from _timing import print_cpu

from wbcpy.errors import QPSolveError
from wbcpy.qp import QPSolver


def judge(hqp, infeasible: bool, solver: QPSolver, ref_costs: np.ndarray | None) -> str:
    """The outcome: 'ok', 'refused feasible', 'wrong', 'refused infeasible' or 'infeasible answered'.
    The problem is solved twice by the same solver, as a control loop does (the second solve of a level
    whose optimum had no active constraint takes the unconstrained minimiser first); both are judged."""
    for _ in range(2):
        try:
            x = solver.solve_hierarchy(hqp)
        except QPSolveError:
            return "refused infeasible" if infeasible else "refused feasible"
        if infeasible:
            return "infeasible answered"
        assert ref_costs is not None
        costs = level_costs(hqp, x)
        if (np.abs(costs - ref_costs) > 1e-6 * (1.0 + np.abs(ref_costs))).any() or violation(hqp, x) > 1e-9:
            return "wrong"
    return "ok"


def main() -> None:
    """Run the campaign and print the counts."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--problems", type=int, default=3000)
    ap.add_argument("--first", type=int, default=0, help="first seed")
    ap.add_argument("--backends", default="default,daqp,quadprog")
    ap.add_argument("--family", choices=("boxed", "open"), default="boxed")
    ap.add_argument("--verbose", action="store_true", help="print every problem that went wrong")
    args = ap.parse_args()
    print_cpu()
    names = args.backends.split(",")
    counts = {name: Counter() for name in names}
    undecided = 0
    t0 = time.perf_counter()
    generate = random_open_problem if args.family == "open" else random_problem
    for seed in range(args.first, args.first + args.problems):
        infeasible = seed % 10 == 9
        hqp = generate(seed, infeasible)
        ref_costs = None
        if not infeasible:
            try:
                ref = reference(hqp)
            except ReferenceFailedError:
                undecided += 1
                continue
            if not ref.feasible and args.family == "boxed":  # (feasible by construction)
                undecided += 1
                continue
            infeasible = not ref.feasible
            ref_costs = ref.costs
        for name in names:
            outcome = judge(hqp, infeasible, QPSolver(None if name == "default" else name), ref_costs)
            counts[name][outcome] += 1
            if args.verbose and outcome in ("refused feasible", "wrong", "infeasible answered"):
                print(f"  {name} seed {seed}: {outcome}")
    print(f"{args.problems} {args.family} problems (seeds {args.first}…{args.first + args.problems - 1}), "
          f"{undecided} left undecided by the reference, {time.perf_counter() - t0:.0f} s")  # fmt: skip
    for name in names:
        c = counts[name]
        print(f"{name:>9}: refused feasible {c['refused feasible']}, wrong {c['wrong']}, "
              f"infeasible answered {c['infeasible answered']}  "
              f"(right: {c['ok']} answered, {c['refused infeasible']} refused)")  # fmt: skip


if __name__ == "__main__":
    main()
