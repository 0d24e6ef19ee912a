"""The QP layer's parts with their own oracles: the KKT certificate, refinement on an active set, the
null-space bookkeeping of hierarchies, fixed variables; ill-conditioned weights; copies, pickles, threads
and the layering of the modules."""

from __future__ import annotations

import copy
import pickle
import threading

import numpy as np
import pytest
import scipy.linalg as sla
from scipy.optimize import lsq_linear

from wbcpy.errors import ConcurrentUseError, QPSolveError
from wbcpy.qp import HierarchicalQP, QPLevel, QPProblem, QPSolver, available_solvers
from wbcpy.qp.fixed import FixedSplit, InfeasibleBoundsError
from wbcpy.qp.kkt import StdQP, certify, certify_box
from wbcpy.qp.nullspace import InconsistentEqualitiesError, NullSpace
from wbcpy.qp.refine import refine

SOLVERS = available_solvers()


# -------------------------------------------------------------------------------------- certificate
def test_certificate_accepts_the_optimum_and_rejects_each_kind_of_error():
    # min ½‖x − t‖² on the box [0, 1]²: optimum clip(t)
    t = np.array([2.0, -0.5])
    H, g, lb, ub = np.eye(2), -t, np.zeros(2), np.ones(2)
    good = certify_box(H, g, np.array([1.0, 0.0]), lb, ub, 1e-6)
    assert good.ok and not good.marginal
    np.testing.assert_allclose(-good.gradient, [1.0, -0.5])  # z_box = −(H x + g) on the active bounds
    assert not certify_box(H, g, np.array([0.0, 0.0]), lb, ub, 1e-6).ok  # wrong side: gradient pushes out
    assert not certify_box(H, g, np.array([1.0, 0.3]), lb, ub, 1e-6).ok  # not stationary
    assert not certify_box(H, g, np.array([1.2, 0.0]), lb, ub, 1e-6).ok  # infeasible
    # general rows: the same problem with the box as rows of C, multipliers given by the caller
    q = StdQP(H, g, C=np.eye(2), lbC=lb, ubC=ub)
    assert certify(q, np.array([1.0, 0.0]), None, np.array([1.0, -0.5]), None, 1e-6).ok
    assert not certify(q, np.array([1.0, 0.0]), None, np.array([1.0, 0.5]), None, 1e-6).ok  # sign
    assert not certify(q, np.array([0.0, 0.0]), None, np.array([2.0, -0.5]), None, 1e-6).ok  # side
    q_eq = StdQP(H, g, A=np.array([[1.0, 1.0]]), b=np.array([0.5]))
    x = np.array([1.5, -1.0])  # min ½‖x − t‖² on x0 + x1 = 0.5: x = t − μ(1, 1), μ = ½ = y
    assert certify(q_eq, x, np.array([0.5]), None, None, 1e-6).ok
    assert not certify(q_eq, x + 1e-3, np.array([0.5]), None, None, 1e-6).ok


@pytest.mark.parametrize("bounds", [False, True])
def test_certificate_rejects_multipliers_beyond_double_precision(bounds: bool) -> None:
    """min ½‖x‖² − x₁ s.t. x₁ + x₂ ≤ 0 and −x₁ − x₂ ≤ 0 (an implicit equality): optimum (½, −½) in closed
    form. At the wrong point 0 the multipliers (1e12 + ½, 1e12) cancel each other down to residual
    (−½, ½), only 2.5e-13 of their own magnitudes: a relative test passes it, although its rounding alone
    (ρ·2e12 = 0.01) exceeds the tolerance on the gradient's scale. Such a certificate proves nothing and
    fails (``unresolved``); the optimum with its multipliers (½, 0) passes. Rows only (the hierarchy
    levels' certificate) and with inactive bounds (the general one)."""
    H, g = np.eye(2), np.array([-1.0, 0.0])
    C, lo, hi = np.array([[1.0, 1.0], [-1.0, -1.0]]), np.full(2, -np.inf), np.zeros(2)
    lb, ub = (np.full(2, -10.0), np.full(2, 10.0)) if bounds else (None, None)
    q = StdQP(H, g, C=C, lbC=lo, ubC=hi, lb=lb, ub=ub)
    zb = np.zeros(2) if bounds else None
    bad = certify(q, np.zeros(2), None, np.array([1e12 + 0.5, 1e12]), zb, 1e-6)
    assert not bad.ok and bad.unresolved
    assert bad.dual <= 1e-6  # (the relative residual itself passes: only the resolution test catches it)
    good = certify(q, np.array([0.5, -0.5]), None, np.array([0.5, 0.0]), zb, 1e-6)
    assert good.ok and not good.unresolved


def test_certificate_is_componentwise():
    """A weak row's error hides in a norm-wise test behind a strong row; not in the componentwise one."""
    A = np.diag([1e6, 1e-3])
    y = np.array([1e6, 1e-3])  # optimum x = (1, 1)
    H, g = A.T @ A, -(A.T @ y)
    x_bad = np.array([1.0, 0.5])
    r = H @ x_bad + g
    assert np.abs(r).max() <= 1e-6 * (np.abs(H).max() * np.abs(x_bad).max())  # passes a norm-wise test
    assert not certify_box(H, g, x_bad, None, None, 1e-6).ok
    assert certify_box(H, g, np.ones(2), None, None, 1e-6).ok


def _weighted_problem(seed: int):
    rng = np.random.default_rng(seed)
    n, m = 7, 13
    J, y = rng.standard_normal((m, n)), rng.standard_normal(m)
    w = 10.0 ** rng.uniform(-11, 11, m)
    A, yy = np.sqrt(w)[:, None] * J, np.sqrt(w) * y
    lb, ub = -2.0 * np.ones(n), 2.0 * np.ones(n)
    return A, yy, lb, ub


@pytest.mark.parametrize("seed", range(6))
def test_ill_conditioned_weights_optimal_or_raise(seed):
    """Task weights spanning 1e-11…1e11: every backend's answer has the optimal cost (bounded least squares
    by scipy's BVLS on the weighted rows, which never forms AᵀA) or it raises."""
    A, y, lb, ub = _weighted_problem(seed)
    reg = np.full(7, 1e-8)
    R = np.vstack([A, np.sqrt(reg[0]) * np.eye(7)])
    d = np.concatenate([y, np.zeros(7)])
    oracle = lsq_linear(R, d, bounds=(lb, ub), method="bvls", tol=1e-15).x
    level = QPLevel(A, y, reg)
    best = level.cost(oracle)
    for name in SOLVERS:
        try:
            x = QPSolver(name, rescue=None).solve_hierarchy(
                HierarchicalQP([level], [f"q{i}" for i in range(7)], lb, ub)
            )
        except QPSolveError:
            continue
        assert level.cost(x) <= best * (1 + 1e-6) + 1e-9, (name, level.cost(x), best)


# ------------------------------------------------------------------------------------------- refine
def test_refine_corrects_a_wrong_active_set_step_by_step():
    # min ½Σ d_i (x_i − t_i)² s.t. x ≤ u, x0 + x1 ≤ 0.2
    d, t = np.array([1.0, 2.0, 3.0]), np.array([2.0, -0.5, 0.3])
    C = np.array([[1.0, 1.0, 0.0]])
    x1 = (0.2 - 2.0 - 0.5 * 2.0) / 3.0  # the row alone active: x0 − 2 = 2(x1 + ½) on x0 + x1 = 0.2
    cases = {1.5: np.array([0.2 - x1, x1, 0.3]),  # only the row is active
             1.0: np.array([1.0, -0.8, 0.3])}  # the row and x0 ≤ 1 (closed form: x1 = 0.2 − 1)  # fmt: skip
    for u, expected in cases.items():
        q = StdQP(np.diag(d), -d * t, C=C, lbC=np.array([-np.inf]), ubC=np.array([0.2]), lb=-np.ones(3),
                  ub=np.full(3, u))  # fmt: skip
        for start in (np.zeros(3), np.array([1.0, -1.0, 1.0]), np.ones(3), expected + 1e-4):
            res = refine(q, start, 1e-9)
            assert res is not None, (u, start)
            np.testing.assert_allclose(res[0], expected, atol=1e-13)
            assert res[2][0] > 0 and res[4].ok  # the row is active on its upper side
    # an infeasible problem has no certified point
    bad = StdQP(np.eye(2), np.zeros(2), C=np.array([[1.0, 1.0]]), lbC=np.array([3.0]), ubC=np.array([4.0]),
                lb=np.zeros(2), ub=np.ones(2))  # fmt: skip
    assert refine(bad, np.zeros(2), 1e-9) is None


def test_refine_handles_dependent_active_rows():
    """Three rows through one point in 2-D (a degenerate vertex): the multipliers are not unique."""
    C = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    q = StdQP(np.eye(2), -np.array([5.0, 5.0]), C=C, lbC=np.full(3, -np.inf), ubC=np.array([1.0, 1.0, 2.0]))
    res = refine(q, np.array([1.0, 1.0]), 1e-9)
    assert res is not None
    np.testing.assert_allclose(res[0], [1.0, 1.0], atol=1e-12)
    z = res[2]
    assert (z >= -1e-12).all()
    np.testing.assert_allclose(q.H @ res[0] + q.g + C.T @ z, 0.0, atol=1e-10)


def test_refine_semidefinite_and_unbounded():
    # zero curvature in x1, which the constraint pins: a minimiser exists
    q = StdQP(
        np.diag([1.0, 0.0]), np.array([-1.0, -1.0]), lb=np.array([-np.inf, -2.0]), ub=np.array([np.inf, 3.0])
    )
    res = refine(q, np.array([0.7, 2.9]), 1e-9, zb0=np.array([0.0, 1.0]))  # a backend's rough answer
    assert res is not None
    np.testing.assert_allclose(res[0], [1.0, 3.0], atol=1e-12)
    # unbounded: no certified point
    q2 = StdQP(np.diag([1.0, 0.0]), np.array([-1.0, -1.0]))
    assert refine(q2, np.zeros(2), 1e-9) is None


# --------------------------------------------------------------------------------------- null space
def test_null_space_rows_and_equalities():
    rng = np.random.default_rng(20)
    B = rng.standard_normal((3, 8))
    S = np.vstack([B, 1e3 * B[0] - 2 * B[2], np.zeros((1, 8)), 1e-6 * B[1]])  # rank 3, mixed scales
    ns = NullSpace(8)
    ns.add_rows(S)
    assert ns.n_eq == 3 and ns.Z.shape == (8, 5)
    np.testing.assert_allclose(ns.Z.T @ ns.Z, np.eye(5), atol=1e-12)
    np.testing.assert_allclose(ns.Z @ ns.Z.T, np.eye(8) - np.linalg.pinv(B) @ B, atol=1e-9)
    # equalities: x̄ moves onto them within the remaining directions (least change), Z shrinks again
    E = rng.standard_normal((2, 8))
    f = rng.standard_normal(2)
    ns.add_equalities(np.vstack([E, E[0] + E[1]]), np.concatenate([f, [f.sum()]]))  # a dependent row
    assert ns.n_eq == 5
    np.testing.assert_allclose(E @ ns.point(), f, atol=1e-12)
    np.testing.assert_allclose(B @ ns.point(), 0.0, atol=1e-12)  # the rows fixed before still hold
    Z_ref = sla.null_space(np.vstack([B, E]))
    np.testing.assert_allclose(ns.Z @ ns.Z.T, Z_ref @ Z_ref.T, atol=1e-9)
    with pytest.raises(InconsistentEqualitiesError):
        ns.add_equalities(E[:1], f[:1] + 1.0)


def test_fixed_split():
    split = FixedSplit(np.array([0.0, 1.0, -np.inf]), np.array([1.0, 1.0, np.inf]), 3)
    assert split.fixed.tolist() == [1] and split.free.tolist() == [0, 2] and split.values.tolist() == [1.0]
    np.testing.assert_array_equal(split.merge(np.array([0.5, 7.0])), [0.5, 1.0, 7.0])
    for lb, ub in (([0.0, 2.0], [1.0, 1.0]), ([np.nan, 0.0], [1.0, 1.0]), ([np.inf, 0.0], None),
                   (None, [-np.inf, 0.0])):  # fmt: skip
        with pytest.raises(InfeasibleBoundsError):
            FixedSplit(None if lb is None else np.array(lb), None if ub is None else np.array(ub), 2)
    assert FixedSplit(np.full(2, -np.inf), np.full(2, np.inf), 2).fixed is None  # unbounded: nothing fixed


# --------------------------------------------------------------------------------------- handed out
def test_problem_copies_are_independent():
    level = QPLevel(np.eye(2), np.ones(2), np.full(2, 1e-8), E=np.ones((1, 2)), f=np.zeros(1))
    hqp = HierarchicalQP([level], ["a", "b"], -np.ones(2), np.ones(2))
    dup = hqp.copy()
    dup.levels[0].A[0, 0] = 5.0
    dup.levels[0].E[0, 0] = 5.0
    dup.lb[0] = -3.0
    assert hqp.levels[0].A[0, 0] == 1.0 and hqp.levels[0].E[0, 0] == 1.0 and hqp.lb[0] == -1.0
    p = QPProblem(np.eye(2), np.zeros(2), lb=np.zeros(2))
    p2 = p.copy()
    p2.lb[0] = 4.0
    assert p.lb[0] == 0.0


# ---------------------------------------------------------------------------------- copies, threads
def test_solver_copies_and_pickles_are_fresh_equal_solvers():
    s = QPSolver("osqp", kkt_tol=1e-7, eps_abs=1e-9)
    p = QPProblem(H=np.eye(2), g=np.array([-1.0, 4.0]), lb=np.zeros(2), ub=np.ones(2))
    x = s.solve(p)
    for other in (copy.copy(s), copy.deepcopy(s), pickle.loads(pickle.dumps(s))):
        assert other is not s and other.name == "osqp" and other.kkt_tol == 1e-7
        assert other.solver_options["eps_abs"] == 1e-9 and other.statuses == []
        np.testing.assert_allclose(other.solve(p), x, atol=1e-12)


def test_concurrent_use_of_one_solver_raises(monkeypatch):
    """Two threads on one solver: the overlapping call raises instead of mixing workspaces."""
    from wbcpy.qp.backends import ADAPTERS

    name = "daqp" if "daqp" in SOLVERS else "osqp"
    s = QPSolver(name)
    hqp = HierarchicalQP([QPLevel(np.eye(30), np.ones(30), np.full(30, 1e-8))], [f"x{i}" for i in range(30)])
    inside, release = threading.Event(), threading.Event()
    real = ADAPTERS[name].solve

    def slow(self, q, x0):
        inside.set()
        release.wait(5)
        return real(self, q, x0)

    monkeypatch.setattr(ADAPTERS[name], "solve", slow)
    t = threading.Thread(target=s.solve_hierarchy, args=(hqp,))
    t.start()
    assert inside.wait(5)
    with pytest.raises(ConcurrentUseError):
        s.solve_hierarchy(hqp)
    with pytest.raises(ConcurrentUseError):
        s.solve(QPProblem(H=np.eye(2), g=np.zeros(2)))
    release.set()
    t.join(5)
    monkeypatch.undo()
    np.testing.assert_allclose(s.solve_hierarchy(hqp), np.ones(30) / (1 + 1e-8), atol=1e-12)


# ----------------------------------------------------------------------------------------- layering
def _import_graph() -> dict[str, set[str]]:
    """Every import (module level or inside functions) between wbcpy modules, from their source."""
    import ast
    from pathlib import Path

    import wbcpy

    root = Path(wbcpy.__file__).parent
    modules = {}
    for path in root.rglob("*.py"):
        rel = path.relative_to(root.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        pkg = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        edges = set()
        for node in ast.walk(ast.parse(path.read_text())):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                    base = ".".join(anchor + ([base] if base else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            for t in targets:
                while t and t not in modules:
                    t = t.rsplit(".", 1)[0] if "." in t else ""
                if t and t != name and not name.startswith(t + "."):  # (a parent package is not an edge)
                    edges.add(t)
        graph[name] = edges
    return graph


def test_no_import_cycles():
    """No two wbcpy modules import each other, directly or through others (registry ⇄ solver,
    demo ⇄ cli, ...); a package's __init__ re-exporting its children does not count."""
    graph = _import_graph()
    state: dict[str, int] = {}
    cycles = []

    def visit(m: str, stack: list[str]) -> None:
        state[m] = 1
        for t in graph.get(m, ()):
            if state.get(t) == 1:
                cycles.append([*stack[stack.index(t) :], t])
            elif t not in state:
                visit(t, [*stack, t])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    qp_cycles = [c for c in cycles if any(x.startswith("wbcpy.qp") for x in c)]
    assert not qp_cycles, qp_cycles
    # the library's demo module and the command line (which runs it) import one way only: cli → demo
    demo_cli = [
        c
        for c in cycles
        if any(x == "wbcpy.demo.models" for x in c) and any(x.startswith("wbcpy.cli") for x in c)
    ]
    assert not demo_cli, demo_cli
    assert "wbcpy.demo.models" in graph["wbcpy.cli.demo"] and not any(
        t.startswith("wbcpy.cli") for t in graph["wbcpy.demo.models"]
    )


def test_no_private_numpy_or_backend_api():
    """wbcpy uses the public API of NumPy and of the QP backends: no ``np._core`` (numpy's private
    ufunc module), no private member of an imported third-party module, and no private ``_solver`` of a
    backend's workspace object (OSQP's ``ws._solver``); wbcpy's own ``self._x`` members are fine."""
    import ast
    from pathlib import Path

    import wbcpy

    third_party = {"numpy", "scipy", "pinocchio", "osqp", "qpsolvers", "daqp", "proxsuite", "piqp",
                   "clarabel", "quadprog", "coal", "hppfcl"}  # fmt: skip
    found = []
    for path in Path(wbcpy.__file__).parent.rglob("*.py"):
        tree = ast.parse(path.read_text())
        aliases = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                mod = node.module if isinstance(node, ast.ImportFrom) else None
                for a in node.names:
                    full = f"{mod}.{a.name}" if mod else a.name
                    if full.split(".")[0] in third_party:
                        aliases.add(a.asname or a.name.split(".")[0])
                        if any(
                            part.startswith("_") and not part.startswith("__") for part in full.split(".")
                        ):
                            found.append(f"{path.name}:{node.lineno} imports {full}")
        for node in ast.walk(tree):
            if (
                not isinstance(node, ast.Attribute)
                or not node.attr.startswith("_")
                or node.attr.startswith("__")
            ):
                continue
            base = node.value
            if isinstance(base, ast.Name) and base.id in aliases:
                found.append(f"{path.name}:{node.lineno} {base.id}.{node.attr}")
            elif node.attr == "_solver" and not (isinstance(base, ast.Name) and base.id == "self"):
                found.append(f"{path.name}:{node.lineno} {ast.unparse(base)}._solver")
    assert not found, found
