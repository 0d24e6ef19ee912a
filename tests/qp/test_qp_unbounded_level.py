"""A level whose optimal set is unbounded must not hand the levels below an unusable point (issue 14).

The problem (``tests/data/contact_level_unbounded.npz``) is the hierarchy of a random contact scene of
``tests/scenes/test_random_scenes.py``: level 0 is semidefinite (the wrench split has no curvature), so its
optimal set is unbounded. Clarabel's interior point answered it with entries of 9e18; the answer passed
a certificate relative to the magnitude of its terms, and the level below, moving back to |x| ≈ 40, lost
the equations of motion to cancellation (E x − f = 1.6e3 in the final answer, with |f| ≈ 31). Checked
here with numpy and the KKT oracle of the tests: every backend's answer meets the equalities and is
optimal, or the backend raises QPSolveError.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from _qp_oracle import verify_lexicographic

from wbcpy.errors import QPSolveError
from wbcpy.qp import HierarchicalQP, QPLevel, QPSolver, available_solvers

DATA = Path(__file__).parents[1] / "data" / "contact_level_unbounded.npz"
FIELDS = ("A", "y", "regularization", "E", "f", "C", "lbC", "ubC")


def _problem() -> HierarchicalQP:
    d = np.load(DATA)
    n = d["lb"].shape[0]
    levels = []
    for i in range(2):
        levels.append(QPLevel(**{k: d[f"{i}_{k}"] for k in FIELDS if f"{i}_{k}" in d}))
    return HierarchicalQP(levels, [f"x{j}" for j in range(n)], d["lb"], d["ub"])


@pytest.mark.parametrize("name", available_solvers())
def test_every_backend_keeps_the_equalities(name: str) -> None:
    hqp = _problem()
    try:
        x = QPSolver(name).solve_hierarchy(hqp.copy())
    except QPSolveError:
        return
    E, f = hqp.levels[0].E, hqp.levels[0].f
    assert np.abs(E @ x - f).max() <= 1e-6 * (1.0 + np.abs(f).max() + np.abs(E).max() * np.abs(x).max())
    assert verify_lexicographic(hqp, x, act=1e-6, rounding=1e-10) is None
