"""Random hierarchies with general constraints, against oracles written in the tests (tests/_qp_oracle.py).

Property-based (hypothesis): random sizes, ranks, dependent rows, equality and inequality constraints per
level, bounds with fixed and unbounded variables, degenerate points (more constraints through one point
than dimensions), semidefinite intermediate levels. Every installed backend must either give the
lexicographic optimum (certified by the oracle's own KKT check; equal to quadprog called level by level
when that succeeds) or raise QPSolveError — never a wrong answer.
"""

from __future__ import annotations

import numpy as np
import pytest
from _qp_oracle import quadprog_lexicographic, verify_lexicographic
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from wbcpy.errors import QPSolveError
from wbcpy.qp import HierarchicalQP, QPLevel, QPSolver, available_solvers

SOLVERS = available_solvers()
LAM = 1e-8


def _rows(rng: np.random.Generator, m: int, n: int, rank: int) -> np.ndarray:
    if m == 0:
        return np.zeros((0, n))
    rank = max(1, min(rank, m, n))
    return rng.standard_normal((m, rank)) @ rng.standard_normal((rank, n))


def _with_selection_rows(rng: np.random.Generator, A: np.ndarray, y: np.ndarray, n: int,
                         xf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """A and y with scaled unit rows on a random subset of the variables appended (rows that pin their
    variable for the levels below, as joint tasks and regulariser rows do), and a rounding-noise row."""
    pins = rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False)
    S = np.zeros((pins.size + 1, n))
    S[np.arange(pins.size), pins] = rng.uniform(0.5, 2.0, pins.size) * rng.choice([-1.0, 1.0], pins.size)
    S[-1, int(rng.integers(0, n))] = 1e-19  # (noise: no row at all)
    return np.vstack([A, S]), np.concatenate([y, S @ xf + rng.standard_normal(S.shape[0])])


def random_hierarchy(
    seed: int, degenerate: bool, semidefinite: bool, selection: bool = False
) -> HierarchicalQP:
    """Levels with rows, equalities and inequalities around a known feasible point x_f (``selection``: some
    levels also pin variables by unit rows)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 10))
    xf = rng.uniform(-0.5, 0.5, n)
    lb, ub = -rng.uniform(0.6, 1.5, n), rng.uniform(0.6, 1.5, n)
    if rng.random() < 0.4:
        k = int(rng.integers(0, n))
        lb[k] = ub[k] = xf[k]  # a fixed variable
    if rng.random() < 0.4:
        k = int(rng.integers(0, n))
        lb[k], ub[k] = -np.inf, np.inf
    levels = []
    nlev = int(rng.integers(1, 4))
    for p in range(nlev):
        m = int(rng.integers(0, n + 2))
        A = _rows(rng, m, n, int(rng.integers(1, n + 1)))
        y = 3.0 * rng.standard_normal(m)
        if selection and rng.random() < 0.7:
            A, y = _with_selection_rows(rng, A, y, n, xf)
        last = p == nlev - 1
        reg = np.full(n, LAM)
        if semidefinite and not last:
            reg[rng.random(n) < 0.5] = 0.0  # variables without curvature at this level
        E = f = C = lo = hi = None
        if rng.random() < 0.4:
            me = int(rng.integers(1, max(2, n // 2)))
            E = _rows(rng, me, n, me)
            if me > 1 and rng.random() < 0.3:
                E[-1] = E[0]  # a duplicated equality row
            f = E @ xf
        if rng.random() < 0.6 or degenerate:
            mc = int(rng.integers(1, n + 3))
            C = rng.standard_normal((mc, n))
            cx = C @ xf
            lo = cx - rng.uniform(0.0, 0.3, mc)
            hi = cx + rng.uniform(0.0, 0.3, mc)
            lo[rng.random(mc) < 0.2] = -np.inf
            if degenerate:  # every row passes through x_f, which the rows' target pushes beyond
                hi = cx.copy()
                A = np.vstack([A, C.sum(axis=0)])
                y = np.concatenate([y, [C.sum(axis=0) @ xf + 10.0]])
        levels.append(QPLevel(A, y, reg, E, f, C, lo, hi))
    return HierarchicalQP(levels, [f"x{i}" for i in range(n)], lb, ub)


def _check(hqp: HierarchicalQP) -> None:
    results = {}
    for name in SOLVERS:
        try:
            results[name] = QPSolver(name, rescue=None).solve_hierarchy(hqp.copy())
        except QPSolveError:
            continue
        why = verify_lexicographic(hqp, results[name])
        assert why is None, f"{name}: {why}"
    if not results:
        return  # infeasible, or every backend declined: nothing returned, nothing wrong
    xs = np.array(list(results.values()))
    costs = np.array([_level_costs(hqp, x) for x in xs])  # backends × levels
    cost_spread = np.abs(costs - costs[0]).max(axis=0) / (1.0 + np.abs(costs).max(axis=0))
    assert (cost_spread <= 1e-5).all(), f"level costs disagree by {cost_spread}: {results}"
    spread = np.abs(xs - xs[0]).max()
    if spread > 1e-5 * (1.0 + np.abs(xs).max()):
        # x is determined beyond the rows only by λ = 1e-8 (e.g. fewer rows than variables): points
        # whose level costs agree and that each pass the independent KKT check above are
        # all optima of the problem as double precision resolves it (seed 995, degenerate, semidefinite:
        # daqp and quadprog 5.6e-5 away from the refined answers, the same cost to 12 digits)
        assert _lambda_determined(hqp, xs[0]), f"backends disagree by {spread:.3g}: {results}"
    if all(lv.regularization.min() > 0 for lv in hqp.levels):
        ref = quadprog_lexicographic(hqp)
        if ref is not None:
            ref_costs = np.array(_level_costs(hqp, ref))
            assert (np.abs(costs[0] - ref_costs) <= 1e-5 * (1.0 + np.abs(ref_costs))).all()
            if not _lambda_determined(hqp, ref):
                np.testing.assert_allclose(xs[0], ref, atol=1e-5 * (1.0 + np.abs(ref).max()))


def _level_costs(hqp: HierarchicalQP, x: np.ndarray) -> list[float]:
    """½‖A_p x − y_p‖² + ½ Σ r_p x² of every level p."""
    return [
        0.5 * float(np.sum((lv.A @ x - lv.y) ** 2) + np.sum(lv.regularization * x * x)) for lv in hqp.levels
    ]


def _lambda_determined(hqp: HierarchicalQP, x: np.ndarray | None = None) -> bool:
    """True when some direction of x is fixed by no row, equality or binding constraint of any level (only
    by the regularisation λ ≤ 1e-8): then x is determined only up to what λ resolves in double precision.
    With an answer x, only the inequality rows and bounds active there bind; without one, every row."""
    rows = [lv.A for lv in hqp.levels] + [lv.E for lv in hqp.levels if lv.E is not None]
    for lv in hqp.levels:
        if lv.C is not None:
            rows.append(lv.C if x is None else lv.C[_active(lv.C @ x, lv.lbC, lv.ubC)])
    if x is not None and hqp.lb is not None and hqp.ub is not None:
        rows.append(np.eye(hqp.n)[_active(x, hqp.lb, hqp.ub)])
    return np.linalg.matrix_rank(np.vstack(rows)) < hqp.n if rows else True


def _active(v: np.ndarray, lo: np.ndarray | None, hi: np.ndarray | None) -> np.ndarray:
    """Where v sits at a side of [lo, hi] (1e-7 relative)."""
    near = np.zeros(v.shape[0], dtype=bool)
    with np.errstate(invalid="ignore"):
        for side in (lo, hi):
            if side is not None:
                near |= np.isfinite(side) & (np.abs(v - side) <= 1e-7 * (1.0 + np.abs(side)))
    return near


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)  # (shrinking a seed teaches nothing)
@given(seed=st.integers(0, 2**31 - 1), degenerate=st.booleans(), semidefinite=st.booleans())
@example(seed=1391803, degenerate=True, semidefinite=True)  # osqp at its iteration limit, 2e-7 outside
def test_random_hierarchies_optimal_or_raise(seed, degenerate, semidefinite):
    _check(random_hierarchy(seed, degenerate, semidefinite))


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
@given(seed=st.integers(0, 2**31 - 1), degenerate=st.booleans(), semidefinite=st.booleans())
def test_levels_that_pin_variables_optimal_or_raise(seed, degenerate, semidefinite):
    """Selection rows pin their variables for the levels below (wbcpy.qp.pinning): the lower levels are
    then solved over the other variables, and must still be the lexicographic optimum."""
    _check(random_hierarchy(seed, degenerate, semidefinite, selection=True))


def test_a_level_that_pins_most_variables_hands_the_rest_to_the_levels_below(monkeypatch):
    """Level 0 fixes x0..x3 by unit rows (and couples x4, x5 by one row); level 1 is then solved over x4,
    x5 on the line the coupling row leaves, with the constraint of level 0 still holding."""
    import wbcpy.qp.hierarchy as hierarchy

    calls = []
    real = hierarchy.pin_selected
    monkeypatch.setattr(hierarchy, "pin_selected", lambda *a: calls.append(real(*a)) or calls[-1])
    n = 6
    A0 = np.vstack([np.diag([1.0, -2.0, 0.5, 3.0, 0.0, 0.0])[:4], [[0, 0, 0, 0, 1.0, 1.0]]])
    y0 = np.array([1.0, 2.0, -1.0, 3.0, 0.4])
    C = np.array([[0.0, 0, 0, 0, 1.0, 0]])  # x4 ≤ 0.1, from level 0 down
    levels = [QPLevel(A0, y0, np.full(n, LAM), C=C, lbC=np.array([-np.inf]), ubC=np.array([0.1])),
              QPLevel(np.eye(n), np.full(n, 5.0), np.full(n, LAM))]  # fmt: skip
    hqp = HierarchicalQP(levels, [f"x{i}" for i in range(n)])
    for name in SOLVERS:
        calls.clear()
        x = QPSolver(name).solve_hierarchy(hqp.copy())
        assert calls and calls[0] is not None and calls[0].pinned == 4
        # x0..x3 from their rows; x4 + x5 = 0.4 kept; level 1 pulls both towards 5: x4 = 0.1 (its bound)
        np.testing.assert_allclose(x, [1.0, -1.0, -2.0, 1.0, 0.1, 0.3], atol=1e-6)
        assert verify_lexicographic(hqp, x) is None


def test_default_backend_solves_the_degenerate_cases():
    """The default backend answers (with its documented fallbacks) where the problem is feasible."""
    solved = 0
    for seed in range(40):
        hqp = random_hierarchy(seed, degenerate=True, semidefinite=False)
        oracle = quadprog_lexicographic(hqp) if "quadprog" in SOLVERS else None
        try:
            x = QPSolver().solve_hierarchy(hqp.copy())
        except QPSolveError:
            assert oracle is None, f"seed {seed}: the default backend failed on a problem quadprog solves"
            for other in ("osqp", "clarabel"):  # an interior-point and an ADMM method fail there too
                if other in SOLVERS:
                    with pytest.raises(QPSolveError):
                        QPSolver(other, rescue=None).solve_hierarchy(hqp.copy())
            continue
        assert verify_lexicographic(hqp, x) is None
        solved += 1
    assert solved >= 20


def test_equality_constraints_hold_at_every_level():
    rng = np.random.default_rng(3)
    n = 6
    E = rng.standard_normal((2, n))
    f = rng.standard_normal(2)
    reg = np.full(n, LAM)
    hqp = HierarchicalQP(
        [QPLevel(rng.standard_normal((2, n)), rng.standard_normal(2), reg, E=E, f=f),
         QPLevel(np.eye(n), 10 * np.ones(n), reg)],
        [f"x{i}" for i in range(n)],
    )  # fmt: skip
    for name in SOLVERS:
        x = QPSolver(name).solve_hierarchy(hqp.copy())
        np.testing.assert_allclose(E @ x, f, atol=1e-9)
        assert verify_lexicographic(hqp, x) is None


def test_inconsistent_equalities_raise_at_their_level():
    n = 3
    reg = np.full(n, LAM)
    E1 = np.array([[1.0, 0.0, 0.0]])
    hqp = HierarchicalQP(
        [QPLevel(np.zeros((0, n)), np.zeros(0), reg, E=E1, f=np.array([1.0])),
         QPLevel(np.eye(n), np.zeros(n), reg, E=2 * E1, f=np.array([3.0]))],
        ["a", "b", "c"],
    )  # fmt: skip
    with pytest.raises(QPSolveError) as info:
        QPSolver().solve_hierarchy(hqp)
    assert info.value.level == 1 and "inconsistent" in info.value.status


def test_constraint_only_levels_and_no_rows_anywhere():
    """Levels without rows keep their constraints for the levels below; with no rows at all the last
    level's regularisation is minimised under every constraint."""
    n = 3
    reg = np.full(n, 1.0)
    C = np.array([[1.0, 1.0, 1.0]])
    only = QPLevel(np.zeros((0, n)), np.zeros(0), reg, C=C, lbC=np.array([3.0]), ubC=np.array([np.inf]))
    hqp = HierarchicalQP([only], ["a", "b", "c"])
    for name in SOLVERS:
        np.testing.assert_allclose(QPSolver(name).solve_hierarchy(hqp.copy()), np.ones(3), atol=1e-8)
    below = QPLevel(np.array([[1.0, -1.0, 0.0]]), np.array([1.0]), np.full(n, LAM))
    x = QPSolver().solve_hierarchy(HierarchicalQP([only, below], ["a", "b", "c"]))
    assert x.sum() >= 3.0 - 1e-9 and abs(x[0] - x[1] - 1.0) < 1e-7


@pytest.mark.parametrize(("eps", "r"), [(1.0, 1e-3), (1e-3, 1e-8)])
def test_a_bound_only_the_regulariser_presses_stays_free_below(eps, r):
    """Level 0, ‖ε(a + b) − εY‖² + r(a² + b²) with b ≤ B, sits at b = B only because of its regulariser
    (any a + b = const is as good for its row); level 1 wants b = T < B and may move b down while keeping
    a + b. Found by tests/scenes/test_random_scenes.py (a weak COM task over joints at their limits): the
    bound
    was carried down as an equality and level 1 stayed at b = B. Closed form: level 0 gives
    a0 = ε²(Y − B)/(ε² + r), c = a0 + B; level 1 minimises (b − T)² + r((c − b)² + b²):
    b = (T + r c)/(1 + 2r), a = c − b."""
    Y, B, T = 1.0 / eps, 0.2 / eps, -1.0 / eps
    big = 10.0 * Y
    reg = np.full(2, r)
    hqp = HierarchicalQP(
        [QPLevel(eps * np.array([[1.0, 1.0]]), np.array([eps * Y]), reg),
         QPLevel(np.array([[0.0, 1.0]]), np.array([T]), reg)],
        ["a", "b"], np.array([-big, -big]), np.array([big, B]),
    )  # fmt: skip
    c = eps**2 * (Y - B) / (eps**2 + r) + B
    b = (T + r * c) / (1.0 + 2.0 * r)
    for name in SOLVERS:
        x = QPSolver(name).solve_hierarchy(hqp.copy())
        np.testing.assert_allclose(x, [c - b, b], rtol=1e-7, err_msg=name)
