"""Hierarchies from an independent random campaign, which QPSolver once got wrong or refused.

``tests/data/hierarchies_turn4.json`` holds three problems of another generator than the project's own
(no bounds, levels with far fewer rows than variables and no regulariser, many equality rows on level 0):

- ``seed1_40`` (7 variables, 4 levels of 1–2 rows, 2 inequality rows on level 0): level 2 is semidefinite
  with an unbounded optimal set; DAQP's factorisation of its singular Hessian answered w ≈ 3e18, and the
  certificate, relative to the magnitudes of the answer's own terms, passed it: every backend returned
  x ≈ 2.6e18 with level values [3.6e3, 1.6e4, 45, 1.0e3] instead of [0, 0, 7.8e-3, 0];
- ``seed1_31`` and ``seed2_159`` (42 and 39 variables, 10 and 4 equality rows on level 0): a lower level's
  refinement took the Cholesky solution of a numerically singular reduced Hessian (|x| ≈ 2e14), and the
  final constraint guard, relative to |E||x|, first let the lost equalities pass (a three-level prefix),
  then refused the full problem as "equality constraints violated".

Each problem is judged against the independent reference of ``tests/_hierarchy_reference.py`` (level
values within 1e-6 of (1 + value), hard constraints to 1e-9 relative), for every installed backend.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from _hierarchy_reference import level_costs, reference, violation

from wbcpy.qp import HierarchicalQP, QPLevel, QPSolver, available_solvers

DATA = Path(__file__).parents[1] / "data" / "hierarchies_turn4.json"
NAMES = ("seed1_31", "seed1_40", "seed2_159")


def _problem(name: str, levels: int | None = None) -> HierarchicalQP:
    entry = json.loads(DATA.read_text())[name]

    def arr(v: object) -> np.ndarray | None:
        return None if v is None else np.asarray(v, dtype=float)

    out = []
    for d in entry["levels"][:levels]:
        out.append(QPLevel(arr(d["A"]), arr(d["y"]), arr(d["regularization"]), arr(d["E"]), arr(d["f"]),
                           arr(d["C"]), arr(d["lbC"]), arr(d["ubC"])))  # fmt: skip
    n = out[0].A.shape[1]
    return HierarchicalQP(out, [f"x{i}" for i in range(n)], arr(entry["lb"]), arr(entry["ub"]))


def _judge(hqp: HierarchicalQP, x: np.ndarray) -> None:
    ref = reference(hqp)
    assert ref.feasible and ref.costs is not None
    costs = level_costs(hqp, x)
    off = np.abs(costs - ref.costs) / (1.0 + np.abs(ref.costs))
    assert off.max() <= 1e-6, f"level values {costs}, reference {ref.costs}"
    assert violation(hqp, x) <= 1e-9


@pytest.mark.parametrize("backend", [None, *available_solvers()])
@pytest.mark.parametrize("name", NAMES)
def test_answered_at_the_reference_optimum(name: str, backend: str | None) -> None:
    """Every backend answers each problem at its lexicographic optimum, twice in a row (the second solve
    takes the warm-started and unconstrained-minimiser paths)."""
    hqp = _problem(name)
    solver = QPSolver(backend)
    for _ in range(2):
        _judge(hqp, solver.solve_hierarchy(hqp))


@pytest.mark.parametrize(("name", "levels"), [("seed1_31", 3), ("seed2_159", 2), ("seed1_40", 3)])
def test_prefixes_answered_at_the_reference_optimum(name: str, levels: int) -> None:
    """The prefixes whose answer the final constraint guard let pass with the equalities lost."""
    hqp = _problem(name, levels)
    _judge(hqp, QPSolver().solve_hierarchy(hqp))


def test_refinement_settles_a_semidefinite_level_with_exact_null_directions() -> None:
    """A contact level in its null-space coordinates (tests/data/semidefinite_cone_level.npz: 32 variables,
    32 cone rows, a Hessian with three exact null directions and curvatures down to 1e-13 of the largest),
    in Hessian form only (no least-squares rows). Refinement from w = 0 (a feasible point) reaches a
    certified optimum whose cost is no worse than the independent reference's (proximal-point quadprog
    iterations with their own KKT check, tests/_hierarchy_reference.py). Its least-squares minimiser of the
    reduced Hessian once kept singular values down to 1e-24 of the largest — below the rounding of the
    Hessian's entries —, stepped along the null directions by 1/ε and found no certified point."""
    from _hierarchy_reference import _check_kkt, _prox_level

    from wbcpy.qp.kkt import StdQP
    from wbcpy.qp.refine import refine

    d = np.load(Path(__file__).parents[1] / "data" / "semidefinite_cone_level.npz")
    H, g, C, lo, hi = d["H"], d["g"], d["C"], d["lbC"], d["ubC"]
    rows = np.isfinite(hi)
    w_ref = _prox_level(H, g, -C[rows], -hi[rows])
    _check_kkt(H, g, -C[rows], -hi[rows], w_ref, 0)
    best = 0.5 * float(w_ref @ H @ w_ref) + float(g @ w_ref)
    got = refine(StdQP(H, g, C=C, lbC=lo, ubC=hi), np.zeros(g.shape[0]), 1e-6)
    assert got is not None and got[4].ok
    w = got[0]
    assert float(np.max(C @ w - hi)) <= 1e-9
    assert 0.5 * float(w @ H @ w) + float(g @ w) <= best + 1e-9 * (1.0 + abs(best))
