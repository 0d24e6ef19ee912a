"""Every feasible hierarchy answered exactly, every infeasible one refused.

Random hierarchies of the kind users build (tests/_hierarchy_reference.py: 2–4 levels, 5–60 variables,
rank-deficient, duplicated and higher-level-span rows, weights over three decades, λ = 1e-8 on every level
in half of them, fixed variables, equality and inequality rows), and of the "open" family (no bounds, few
rows per level, no regulariser, many equality rows on level 0: semidefinite levels whose optimal sets are
unbounded), against an independent sequential reference written there (null-space SVD, quadprog with
proximal-point iterations, its own KKT check). The offline campaign (benchmarks/campaign_hierarchies.py)
runs the same on thousands of seeds.
"""

from __future__ import annotations

import numpy as np
import pytest
from _hierarchy_reference import (
    ReferenceFailedError,
    level_costs,
    random_open_problem,
    random_problem,
    reference,
    violation,
)

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


def _judge(hqp, infeasible: bool, solver: QPSolver, max_violation: float = 1e-10,
           decided: bool = False) -> str | None:  # fmt: skip
    """None when the solver's outcome is right, "undecided" when the reference fails (its answer more
    than ``max_violation`` outside the constraints included), else what is wrong. ``decided``: the
    reference decides feasibility (a problem it finds infeasible must be refused); otherwise a problem
    feasible by construction that the reference calls infeasible is undecided."""
    ref = None
    if not infeasible:
        try:
            ref = reference(hqp, max_violation)
        except ReferenceFailedError:
            return "undecided"
        if not ref.feasible and decided:
            infeasible, ref = True, None
        elif not ref.feasible or ref.costs is None:
            return "undecided"
    # twice by the same solver: the second solve of a level whose optimum had no active constraint takes
    # the unconstrained minimiser first (DaqpBackend._chol_first), both answers are judged
    for solve in ("", " (second solve)"):
        try:
            x = solver.solve_hierarchy(hqp)
        except QPSolveError as exc:
            return None if infeasible else f"feasible problem refused{solve}: {str(exc)[:300]}"
        if ref is None or ref.costs is None:
            return "infeasible problem answered"
        costs = level_costs(hqp, x)
        off = np.abs(costs - ref.costs) / (1.0 + np.abs(ref.costs))
        if off.max() > COST_TOL:
            return f"level costs off by {off}{solve} (answer {costs}, reference {ref.costs})"
        v = violation(hqp, x)
        if v > HARD_TOL:
            return f"hard constraints violated by {v:.3g} (relative){solve}"
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


#: seeds of the open family's sample (benchmarks/campaign_hierarchies.py --family open runs 0 … N)
OPEN_SEEDS = range(0, 60)


@pytest.mark.parametrize("backend", [None, "daqp", "quadprog"])
def test_random_open_hierarchies_answered_exactly(backend: str | None) -> None:
    """The open family (no bounds, semidefinite levels with unbounded optimal sets): no feasible problem
    refused, no wrong answer, no infeasible problem answered — the answers bounded by the data, so that
    the levels below keep their rows and the hard constraints."""
    bad, undecided = [], 0
    for seed in OPEN_SEEDS[:: 1 if backend is None else 3]:
        infeasible = seed % 10 == 9
        why = _judge(random_open_problem(seed, infeasible), infeasible, QPSolver(backend), decided=True)
        if why == "undecided":
            undecided += 1
        elif why is not None:
            bad.append(f"seed {seed}: {why}")
    assert not bad, "\n".join(bad)
    assert undecided <= MAX_UNDECIDED


#: open-family seeds that the solver got wrong before its certificates bounded the answer by the data
#: (semidefinite levels answered 1e14…3e16 out along a free direction, passed by tests relative to the
#: answer's own terms: level costs off by 8 to 3e4; 921 refused at level 3, its equality lost)
OPEN_REGRESSIONS = [518, 921, 984, 1208]


@pytest.mark.parametrize("seed", OPEN_REGRESSIONS)
def test_open_family_regressions(seed: int) -> None:
    """Each open-family problem the solver once got wrong is answered exactly."""
    infeasible = seed % 10 == 9
    why = _judge(random_open_problem(seed, infeasible), infeasible, QPSolver(), decided=True)
    assert why is None, f"seed {seed}: {why}"


#: campaign seeds (benchmarks/campaign_hierarchies.py) that went wrong before a fix, with the backend
#: (None: default settings) they went wrong on: 2151 refused (a DAQP answer 2.5e-9 outside its level's
#: constraints accepted by the compiled path without refinement, and proximal iterations that stopped at
#: the first δ whose first step DAQP called infeasible); 246 quadprog's level 1 certified with multipliers
#: of 6e13 that cancel each other (beyond double precision); 788, 1317, 1333 quadprog's level 0 certified
#: at a stationarity residual of 3e-11, loose in the λ = 1e-8 directions that move the values the levels
#: below keep; 1134 quadprog's proximal iterations stopped at a residual of 1.3e-7 when a step failed;
#: 2986 quadprog's level 2 certified 1e-7 outside a hard constraint (a loose feasibility residual was not
#: chased like a loose stationarity one); 844 the reference's own answer moved by its relaxed sides, 2731
#: the reference's proximal iterations unconverged at λ = 1e-8 (see _level_in_null_space)
REGRESSIONS = [(2151, None), (2151, "daqp"), (246, "quadprog"), (788, "quadprog"), (1134, "quadprog"),
               (1317, "quadprog"), (1333, "quadprog"), (2986, "quadprog"), (844, None),
               (2731, None)]  # fmt: skip


@pytest.mark.parametrize(("seed", "backend"), REGRESSIONS)
def test_campaign_regressions(seed: int, backend: str | None) -> None:
    """Each problem the campaign once got wrong is answered exactly."""
    # (seed 2151's reference meets the constraints to 2e-10 only: judged with the answers' own 1e-9)
    why = _judge(random_problem(seed, seed % 10 == 9), seed % 10 == 9, QPSolver(backend), HARD_TOL)
    assert why is None, f"seed {seed}: {why}"


def test_reference_meets_the_constraints_exactly_at_a_degenerate_vertex() -> None:
    """Seed 844: the reference solves each level on the constraints as they are (relaxing them only when
    quadprog calls them inconsistent); its answer meets them to rounding, and its level costs agree with
    Clarabel's interior-point method run on the full space (level 0 alone, tight tolerances)."""
    hqp = random_problem(844)
    ref = reference(hqp)
    assert ref.feasible and ref.x is not None and ref.costs is not None
    # (rounding at this degenerate vertex: 2e-14 to 2.3e-12 with the BLAS kernels of different CPUs; an
    # answer on the sides relaxed by 1e-10 is 1.0e-10 outside)
    assert violation(hqp, ref.x) <= 1e-11
    assert abs(ref.costs[0] - _clarabel_level0(hqp)) <= 1e-9 * (1.0 + ref.costs[0])


def test_reference_leaves_an_answer_outside_the_constraints_undecided() -> None:
    """Seed 2385 is degenerate: the reference's proximal answer meets the constraints only to rounding that
    depends on the CPU (5.9e-10 on one, 5e-13 on another: OpenBLAS picks its kernels per CPU), and each
    1e-10 outside lowers level 1's cost by up to ~3e-7 of itself below the lexicographic optimum
    (QPSolver's level 1 is a single point, which Clarabel confirms within its own 1e-10 infeasibility).
    So an answer more than ``max_violation`` outside is not a reference (ReferenceFailedError), and one
    within the default 1e-10 is one: its level costs are QPSolver's within the campaign's COST_TOL."""
    hqp = random_problem(2385)
    ungated = reference(hqp, max_violation=np.inf)
    assert ungated.x is not None and ungated.costs is not None
    off = violation(hqp, ungated.x)
    assert off < 1e-8  # (outside by rounding only)
    if off > 0.0:
        with pytest.raises(ReferenceFailedError, match="outside the constraints"):
            reference(hqp, max_violation=0.5 * off)
    optimum = level_costs(hqp, QPSolver().solve_hierarchy(hqp))
    below = (optimum - ungated.costs) / (1.0 + np.abs(optimum))
    assert below.max() <= 1e4 * off + 1e-11  # what the violation buys, and no more (1e-11: rounding)
    if off <= 1e-10:
        gated = reference(hqp)
        assert gated.costs is not None and np.abs(gated.costs - optimum).max() <= COST_TOL * (
            1.0 + np.abs(optimum).max()
        )
    else:
        with pytest.raises(ReferenceFailedError, match="outside the constraints"):
            reference(hqp)


def _clarabel_level0(hqp) -> float:
    """Level 0's optimal cost by Clarabel on the full space (equalities, inequality rows, bounds)."""
    import clarabel
    import scipy.sparse as sp

    lv, n = hqp.levels[0], hqp.n
    eye = np.eye(n)
    fixed = hqp.lb == hqp.ub
    Aeq = np.vstack([lv.E, eye[fixed]])
    beq = np.concatenate([lv.f, hqp.lb[fixed]])
    C, lo, hi = lv.C, lv.lbC, lv.ubC
    G = np.vstack([C[np.isfinite(hi)], -C[np.isfinite(lo)], eye[~fixed & np.isfinite(hqp.ub)],
                   -eye[~fixed & np.isfinite(hqp.lb)]])  # fmt: skip
    h = np.concatenate([hi[np.isfinite(hi)], -lo[np.isfinite(lo)], hqp.ub[~fixed & np.isfinite(hqp.ub)],
                        -hqp.lb[~fixed & np.isfinite(hqp.lb)]])  # fmt: skip
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = settings.tol_gap_rel = settings.tol_feas = 1e-12
    settings.max_iter = 1000
    P = sp.csc_matrix(np.triu(2.0 * lv.A.T @ lv.A))
    cones = [clarabel.ZeroConeT(beq.size), clarabel.NonnegativeConeT(h.size)]
    sol = clarabel.DefaultSolver(P, -2.0 * lv.A.T @ lv.y, sp.csc_matrix(np.vstack([Aeq, G])),
                                 np.concatenate([beq, h]), cones, settings).solve()  # fmt: skip
    assert str(sol.status) == "Solved"
    return float(level_costs(hqp, np.array(sol.x))[0])


def test_infeasible_by_construction_is_refused_by_the_reference() -> None:
    """The reference itself tells the infeasible problems (a contradiction of size 1) from the others."""
    for seed in (9, 19, 29):
        assert not reference(random_problem(seed, True)).feasible
