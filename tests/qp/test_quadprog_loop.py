"""quadprog's ``qpgen2`` has no iteration limit, and on some problems it never returns (issue 26).

``tests/data/quadprog_loop.npz`` holds the problem quadprog 0.1.14 was handed on a rescue level of a
random contact scene (``tests/scenes/test_random_scenes.py``): min ½xᵀHx − aᵀx, Cᵀx ≥ b, 9 variables, 19
inequality columns, eigenvalues of H from 1e-7 to 0.09, sides up to 1e4. Called as it is, quadprog loops
for ever (the suite hung there). The backend hands quadprog the same problem scaled
(``active_set._scaled``: H and a by max |H_ii|, each constraint column and its side to unit norm), which
quadprog answers. Oracles: the KKT conditions of the *given* problem checked here in NumPy, and SciPy's
SLSQP on the given problem for the minimiser; the scaling itself is checked against quadprog on random
problems it solves unscaled.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

quadprog = pytest.importorskip("quadprog")

from wbcpy.qp.backends.active_set import _scaled, _shifted  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "data" / "quadprog_loop.npz"
#: a second problem from a rescue level of a random contact scene (CI's derandomized draw of
#: tests/scenes/test_random_scenes.py, DAQP through its wrapper): 12 variables, 33 inequality columns,
#: H well conditioned (eigenvalues 7.5 to 2.4e3) but a up to 1.3e8, so the unconstrained minimiser and
#: the answer have |x| ~ 1.1e6 with sides of order 10: scaled alone, quadprog loops for ever; about the
#: unconstrained minimiser (``_shifted``) it answers
FAR = DATA.with_name("quadprog_loop_far.npz")

#: solve the stored problem through the backend's scaling in a child process (a loop cannot hang the
#: suite): prints the answer and the multipliers of the given problem
_CHILD = """
import sys, numpy as np, quadprog
from wbcpy.qp.backends.active_set import _scaled, _shifted
d = np.load(sys.argv[1])
H, a, C, b, meq = d["H"], d["a"], d["C"], d["b"], int(d["meq"])
Hs, as_, Cs, bs, back = _scaled(H.copy(), a, C, b, False)
as_, bs, x0 = _shifted(Hs, as_, Cs, bs, False)
x, _f, _xu, _it, lag, _act = quadprog.solve_qp(Hs, as_, Cs, bs, meq)
np.save(sys.stdout.buffer, np.concatenate((x + x0, np.asarray(lag) * back)))
"""


def _kkt(H, a, C, b, x, lam, meq: int = 0) -> float:
    """The largest violation of the KKT conditions of min ½xᵀHx − aᵀx, Cᵀx ≥ b (the first ``meq``
    columns equalities) at (x, λ), relative."""
    scale = 1.0 + np.abs(H).max() * np.abs(x).max() + np.abs(a).max()
    stationarity = np.abs(H @ x - a - C @ lam).max() / scale
    slack = C.T @ x - b
    side = 1.0 + np.abs(b).max() + np.abs(C).max() * np.abs(x).max()
    eq, ineq, mu = slack[:meq], slack[meq:], lam[meq:]
    primal = max(float(np.abs(eq).max(initial=0.0)), -float(ineq.min(initial=0.0))) / side
    complementarity = float(np.abs(mu * ineq).max(initial=0.0)) / (scale * side)
    return max(stationarity, primal, -float(mu.min(initial=0.0)) / scale, complementarity)


@pytest.mark.parametrize("data", [DATA, FAR], ids=["near", "far"])
def test_the_stored_problem_is_answered_and_optimal(data: Path) -> None:
    """Before the scaling (``near``) and before the shift (``far``), this child never returned (the
    timeout fails the test instead of hanging it)."""
    import io

    run = subprocess.run([sys.executable, "-c", _CHILD, str(data)], capture_output=True, timeout=120,
                         check=True)  # fmt: skip
    out = np.load(io.BytesIO(run.stdout))
    d = np.load(data)
    H, a, C, b = d["H"], d["a"], d["C"], d["b"]
    x, lam = out[: H.shape[0]], out[H.shape[0] :]
    assert _kkt(H, a, C, b, x, lam) <= 1e-9
    # (H is positive definite: the KKT point is the minimiser; SciPy's SLSQP from it cannot do better)
    from scipy.optimize import minimize

    def f(z: np.ndarray) -> float:
        return 0.5 * float(z @ H @ z) - float(a @ z)

    rows = {"type": "ineq", "fun": lambda z: C.T @ z - b, "jac": lambda z: C.T}
    res = minimize(f, x, jac=lambda z: H @ z - a, method="SLSQP", constraints=[rows])
    assert f(x) <= f(res.x) + 1e-9 * (1.0 + abs(f(x)))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 8), m=st.integers(1, 12), meq=st.integers(0, 2),
       factorized=st.booleans())  # fmt: skip
def test_scaling_keeps_the_minimiser_and_the_multipliers(seed: int, n: int, m: int, meq: int,
                                                         factorized: bool) -> None:  # fmt: skip
    """On random well-posed problems quadprog solves unscaled, the scaled problem has the same minimiser
    and its multipliers, taken back, are the unscaled ones (and meet the given problem's KKT
    conditions)."""
    rng = np.random.default_rng(seed)
    meq = min(meq, n, m)
    B = rng.standard_normal((n, n))
    H = B @ B.T + 10.0 ** rng.uniform(-3, 1) * np.eye(n)
    H *= 10.0 ** rng.uniform(-4, 4)
    a = rng.standard_normal(n) * 10.0 ** rng.uniform(-2, 2)
    C = rng.standard_normal((n, m)) * 10.0 ** rng.uniform(-3, 3, m)
    x_in = rng.standard_normal(n)
    b = C.T @ x_in - np.where(np.arange(m) < meq, 0.0, rng.uniform(0.0, 1.0, m) * np.abs(C).max(axis=0))
    G = np.linalg.inv(np.linalg.cholesky(H).T) if factorized else H.copy()
    try:
        x0, _f, _xu, _it, lam0, _act = quadprog.solve_qp(G.copy(), a, C, b, meq, factorized=factorized)
    except ValueError:  # (a draw quadprog does not solve unscaled is not the premise)
        assume(False)
    # the premise: quadprog's unscaled answer is exact (ill-conditioned draws, columns of C over six
    # decades, leave it off by more than the tolerance below, and the comparison would judge quadprog)
    assume(_kkt(H, a, C, b, x0, np.asarray(lam0), meq) <= 1e-10)
    Gs, as_, Cs, bs, back = _scaled(G.copy(), a, C, b, factorized)
    x1, _f, _xu, _it, lam1, _act = quadprog.solve_qp(Gs, as_, Cs, bs, meq, factorized=factorized)
    tol = 1e-7 * (1.0 + np.abs(x0).max())
    np.testing.assert_allclose(x1, x0, rtol=0, atol=tol)
    lam = np.asarray(lam1) * back
    assert _kkt(H, a, C, b, x1, lam, meq) <= 1e-8
    np.testing.assert_allclose(lam, lam0, rtol=1e-6, atol=1e-7 * (1.0 + np.abs(lam0).max()))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 8), m=st.integers(1, 12), meq=st.integers(0, 2),
       far=st.floats(0.0, 6.0))  # fmt: skip
def test_shift_keeps_the_minimiser_and_the_multipliers(seed: int, n: int, m: int, meq: int,
                                                       far: float) -> None:  # fmt: skip
    """On random well-posed problems quadprog solves as given, the problem about the unconstrained
    minimiser has the answer minus that point and the same multipliers. The answer sits up to 1e6 from
    the origin, the slacks of order one (the case the shift is for)."""
    rng = np.random.default_rng(seed)
    meq = min(meq, n, m)
    B = rng.standard_normal((n, n))
    H = B @ B.T + 10.0 ** rng.uniform(-2, 1) * np.eye(n)
    centre = rng.standard_normal(n) * 10.0**far
    a = H @ centre + rng.standard_normal(n)
    C = rng.standard_normal((n, m))
    C /= np.linalg.norm(C, axis=0)
    x_in = centre + rng.standard_normal(n)
    b = C.T @ x_in - np.where(np.arange(m) < meq, 0.0, rng.uniform(0.0, 1.0, m))
    try:
        x0, _f, _xu, _it, lam0, _act = quadprog.solve_qp(H.copy(), a, C, b, meq)
    except ValueError:  # (a draw quadprog does not solve as given is not the premise)
        assume(False)
    assume(_kkt(H, a, C, b, x0, np.asarray(lam0), meq) <= 1e-10)
    a1, b1, origin = _shifted(H, a, C, b, False)
    np.testing.assert_allclose(H @ origin, a, rtol=0, atol=1e-9 * (1.0 + np.abs(a).max()))
    d1, _f, _xu, _it, lam1, _act = quadprog.solve_qp(H.copy(), a1, C, b1, meq)
    x1 = d1 + origin
    np.testing.assert_allclose(x1, x0, rtol=0, atol=1e-8 * (1.0 + np.abs(x0).max()))
    assert _kkt(H, a, C, b, x1, np.asarray(lam1), meq) <= 1e-8
    np.testing.assert_allclose(lam1, lam0, rtol=1e-6, atol=1e-7 * (1.0 + np.abs(lam0).max()))


def test_shift_leaves_factorized_and_singular_problems_as_given() -> None:
    """``factorized`` (H is R⁻¹) and a singular H keep the given problem: the origin is zero."""
    a, C, b = np.array([1.0, 2.0]), np.eye(2), np.zeros(2)
    for H, factorized in ((np.eye(2), True), (np.zeros((2, 2)), False)):
        a1, b1, origin = _shifted(H, a, C, b, factorized)
        assert a1 is a and b1 is b and not origin.any()
