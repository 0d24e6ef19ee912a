"""Issue 26: every feasible hierarchy answered exactly, every infeasible one refused.

Random hierarchies of the kind users build (tests/_hierarchy_reference.py: 2–4 levels, 5–60 variables,
rank-deficient, duplicated and higher-level-span rows, weights over three decades, λ = 1e-8 on every level
in half of them, fixed variables, equality and inequality rows) against an independent sequential
reference written there (null-space SVD, quadprog with proximal-point iterations, its own KKT check).
The offline campaign (benchmarks/campaign_hierarchies.py) runs the same on thousands of seeds.
"""

from __future__ import annotations

import numpy as np
import pytest
from _hierarchy_reference import ReferenceFailedError, level_costs, random_problem, reference, violation

from wbcpy.errors import QPSolveError
from wbcpy.qp import QPSolver

#: seeds of the suite's sample (the campaign runs 0 … N); every tenth problem is made infeasible
SEEDS = range(0, 80)
COST_TOL = 1e-6
HARD_TOL = 1e-9


#: feasible problems of SEEDS still refused (none today; the campaign finds a few beyond them, issue
#: 26: at a lower level the backend and the proximal iterations both find the level's constraints
#: infeasible after the levels above, where the reference finds them feasible); listed so that the
#: test fails when one is fixed and the list must shrink
KNOWN_REFUSED: dict[str | None, set[int]] = {None: set(), "daqp": set(), "quadprog": set()}
#: problems the reference itself cannot settle (quadprog and Clarabel both fail on the level): left out
MAX_UNDECIDED = 5


def _judge(hqp, infeasible: bool, solver: QPSolver) -> str | None:
    """None when the solver's outcome is right, "undecided" when the reference fails, else what is
    wrong."""
    ref = None
    if not infeasible:
        try:
            ref = reference(hqp)
        except ReferenceFailedError:
            return "undecided"
        if not ref.feasible or ref.costs is None:
            return "undecided"
    try:
        x = solver.solve_hierarchy(hqp)
    except QPSolveError as exc:
        return None if infeasible else f"feasible problem refused: {str(exc)[:300]}"
    if ref is None or ref.costs is None:
        return "infeasible problem answered"
    costs = level_costs(hqp, x)
    off = np.abs(costs - ref.costs) / (1.0 + np.abs(ref.costs))
    if off.max() > COST_TOL:
        return f"level costs off by {off} (answer {costs}, reference {ref.costs})"
    v = violation(hqp, x)
    if v > HARD_TOL:
        return f"hard constraints violated by {v:.3g} (relative)"
    return None


@pytest.mark.parametrize("backend", [None, "daqp", "quadprog"])
def test_random_hierarchies_answered_exactly(backend: str | None) -> None:
    """Default settings (and each exact backend, on a third of the seeds): no feasible problem refused,
    no wrong answer, no infeasible problem answered."""
    bad, undecided = [], 0
    known = KNOWN_REFUSED[backend]
    for seed in SEEDS[:: 1 if backend is None else 3]:
        infeasible = seed % 10 == 9
        why = _judge(random_problem(seed, infeasible), infeasible, QPSolver(backend))
        if why == "undecided":
            undecided += 1
        elif seed in known:
            assert why is not None and why.startswith("feasible problem refused"), f"seed {seed}: {why}"
        elif why is not None:
            bad.append(f"seed {seed}: {why}")
    assert not bad, "\n".join(bad)
    assert undecided <= MAX_UNDECIDED


def test_infeasible_by_construction_is_refused_by_the_reference() -> None:
    """The reference itself tells the infeasible problems (a contradiction of size 1) from the others."""
    for seed in (9, 19, 29):
        assert not reference(random_problem(seed, True)).feasible
