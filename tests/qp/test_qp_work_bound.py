"""The work of one backend solve is bounded, also on infeasible problems (issue 14, performance class).

ProxQP does not detect infeasibility at the tight tolerances wbcpy needs, so it runs to its iteration
limits; with ProxQP's own limits (or wbcpy's former 2000 × 1500) one infeasible 3-variable level of a
random contact scene (``tests/scenes/test_random_scenes.py``) took 2.3 million inner iterations (10–30 s). The
level below is that one, rounded; scipy's ``linprog`` proves it infeasible independently.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linprog

from wbcpy.errors import QPSolveError
from wbcpy.qp import QPProblem, QPSolver, available_solvers
from wbcpy.qp.kkt import StdQP

H = np.array([[20613.99, -459.07, 434.86], [-459.07, 561.85, -126.51], [434.86, -126.51, 57.72]])
G = np.array([286402.49, -81306.81, 67856.35])
C = np.array(
    [
        [-7.6496e-02, 7.7604e-02, 2.1375e-03],
        [1.6280e-02, 1.2796e-02, -4.4668e-03],
        [-2.8618e-01, 2.7628e-01, 1.2387e-02],
        [-2.0078e-01, 6.0987e-02, -2.5227e-02],
        [7.0074e-03, 9.8464e-01, -2.2291e-04],
    ]
)
LO = np.array([783.207, -13.841, 161.057, 25.755, -48.596])
HI = LO + 20.0

pytestmark = pytest.mark.skipif("proxqp" not in available_solvers(), reason="proxsuite is not installed")


def test_the_level_is_infeasible() -> None:
    """The independent oracle: no x satisfies lo ≤ C x ≤ hi (linear feasibility problem)."""
    res = linprog(
        np.zeros(3), A_ub=np.vstack((C, -C)), b_ub=np.concatenate((HI, -LO)), bounds=[(None, None)] * 3
    )
    assert res.status == 2  # infeasible


def test_proxqp_work_is_bounded_on_an_infeasible_level() -> None:
    from wbcpy.qp.backends.proximal import ProxqpBackend

    backend = ProxqpBackend()
    raw = backend.solve(StdQP(H, G, None, None, C, LO, HI, None, None), None)
    assert not raw.ok
    assert raw.iterations is not None and raw.iterations <= 30_000  # inner iterations (was 2.3 million)
    with pytest.raises(QPSolveError):  # and the solver says so, rescue backends included
        QPSolver("proxqp").solve(QPProblem(H=H, g=G, C=C, lbC=LO, ubC=HI))
