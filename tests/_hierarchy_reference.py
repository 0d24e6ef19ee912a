"""Random hierarchies of the kind users meet (issue 26) and an independent sequential reference.

Nothing of :mod:`wbcpy.qp` is used but the problem containers (:class:`~wbcpy.qp.HierarchicalQP`,
:class:`~wbcpy.qp.QPLevel`): the reference solves each level in the null space of its equalities (an SVD
written here) with quadprog, made strictly convex by a proximal term ε‖w − w_k‖² that is iterated to
convergence (proximal-point method: its fixed points are exactly the minimisers of the semidefinite
level; a level with λ > 0 everywhere is also solved by quadprog directly), and checks its own answer's
KKT conditions (bounded least-squares multipliers, SciPy).

The problems (:func:`random_problem`): 2–4 levels over 5–60 variables, rank-deficient and duplicated
rows, rows in the span of a higher level's rows with other targets, row weights over three decades,
λ = 1e-8 on every level in half of them (else no regularisation at all: semidefinite levels), bounds
with a few fixed variables, equality and inequality rows (some active at the known feasible point x_f).
Feasible ones are feasible by construction (x_f meets every constraint); infeasible ones
(``infeasible=True``) carry a contradiction by construction: an equality row repeated with another
value, or an inequality row whose side lies beyond what the box allows.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla
from scipy.optimize import lsq_linear

from wbcpy.qp import HierarchicalQP, QPLevel

__all__ = [
    "Reference",
    "ReferenceFailedError",
    "level_costs",
    "random_open_problem",
    "random_problem",
    "reference",
    "violation",
]


def _rows(rng: np.random.Generator, m: int, n: int, rank: int) -> np.ndarray:
    """m rows of rank ≤ ``rank``, some duplicated, each scaled by a weight over three decades."""
    if m == 0:
        return np.zeros((0, n))
    rank = max(1, min(rank, m, n))
    A = rng.standard_normal((m, rank)) @ rng.standard_normal((rank, n))
    if m > 1 and rng.random() < 0.4:
        A[-1] = A[0]  # a duplicated row
    sparse = rng.random((m, n)) < 0.3
    if rng.random() < 0.5:
        A[sparse] = 0.0  # (some structure: rows touching part of the variables)
    w = 10.0 ** rng.uniform(-1.5, 1.5, m)
    return np.sqrt(w)[:, None] * A


def random_problem(seed: int, infeasible: bool = False) -> HierarchicalQP:
    """A random hierarchy of the module docstring; feasible by construction unless ``infeasible``."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 61))
    xf = rng.uniform(-1.0, 1.0, n)
    lb, ub = xf - rng.uniform(0.05, 2.0, n), xf + rng.uniform(0.05, 2.0, n)
    fixed = rng.choice(n, size=int(rng.integers(0, 4)), replace=False)
    lb[fixed] = ub[fixed] = xf[fixed]
    free_side = rng.choice(n, size=int(rng.integers(0, 3)), replace=False)
    lb[free_side] = -np.inf
    lam = 1e-8 if rng.random() < 0.5 else 0.0
    nlev = int(rng.integers(2, 5))
    levels: list[QPLevel] = []
    higher: list[np.ndarray] = []
    for p in range(nlev):
        m = int(rng.integers(1, max(2, n // 2) + 3))
        A = _rows(rng, m, n, int(rng.integers(1, m + 1)))
        if higher and rng.random() < 0.5:  # rows in the span of a higher level, other targets
            H = higher[int(rng.integers(0, len(higher)))]
            extra = rng.standard_normal((int(rng.integers(1, 3)), H.shape[0])) @ H
            A = np.vstack([A, extra])
        y = A @ xf + 3.0 * rng.standard_normal(A.shape[0])
        higher.append(A)
        E, f, C, lo, hi = _level_constraints(rng, p, n, xf, lb, ub)
        levels.append(QPLevel(A, y, np.full(n, lam), E, f, C, lo, hi))
    if infeasible:
        _contradict(rng, levels, lb, ub, n)
    return HierarchicalQP(levels, [f"x{i}" for i in range(n)], lb, ub)


def random_open_problem(seed: int, infeasible: bool = False) -> HierarchicalQP:
    """A random hierarchy of the "open" family: the structure :func:`random_problem` leaves out.

    No bounds (or a few one-sided ones), so nothing but the levels' own rows and constraints keeps the
    answer finite: 2–5 levels of 1 to n/3 + 2 rows (1 to 3 in half the problems) over 3–60 variables
    (levels with far fewer rows than free directions, and no regulariser but on the last level, 1e-6, in
    a third of them: semidefinite levels whose optimal sets are unbounded), row norms over two decades,
    up to n/4 + 2 equality rows on level 0 and a few inequality rows there (one- or two-sided, some
    active at the feasible point x_f, some bounded on neither side), and in a quarter of the problems
    inequality rows on a lower level that x_f meets with a margin (the levels above may still choose an
    optimum that violates them: such a problem is infeasible, and the reference says so). Feasible by
    construction otherwise, unless ``infeasible``: then an equality row stated twice with values 1 apart,
    or an inequality row c x ≥ v + 1 beside c x ≤ v.
    """
    rng = np.random.default_rng(1_000_003 + seed)
    n = int(rng.integers(3, 61))
    xf = rng.uniform(-1.0, 1.0, n)
    lb = ub = None
    if rng.random() < 0.3:  # a few one-sided bounds, met at x_f with a margin
        lb, ub = np.full(n, -np.inf), np.full(n, np.inf)
        some = rng.choice(n, size=int(rng.integers(1, max(2, n // 5) + 1)), replace=False)
        lb[some] = xf[some] - rng.uniform(0.0, 1.0, some.size)
    nlev = int(rng.integers(2, 6))
    last_reg = 1e-6 if rng.random() < 0.35 else 0.0
    levels: list[QPLevel] = []
    few = rng.random() < 0.5  # (levels of one to three rows: most directions left free at every level)
    for p in range(nlev):
        m = int(rng.integers(1, 4)) if few else int(rng.integers(1, n // 3 + 3))
        A = rng.standard_normal((m, n)) * 10.0 ** rng.uniform(-1.0, 1.0, (m, 1))
        if m > 2 and rng.random() < 0.3:  # rank deficient
            k = int(rng.integers(1, m))
            A = rng.standard_normal((m, k)) @ rng.standard_normal((k, n))
        y = A @ xf + 3.0 * rng.standard_normal(m)
        r = np.full(n, last_reg if p == nlev - 1 else 0.0)
        E = f = C = lo = hi = None
        if p == 0 and rng.random() < 0.6:
            me = int(rng.integers(1, n // 4 + 3))
            E = rng.standard_normal((me, n)) * 10.0 ** rng.uniform(-0.5, 0.5, (me, 1))
            f = E @ xf
        if (p == 0 and rng.random() < 0.6) or (p > 0 and rng.random() < 0.25):
            mc = int(rng.integers(1, 5))
            C = rng.standard_normal((mc, n))
            cx = C @ xf
            margin = 0.0 if p == 0 else 0.2
            lo = cx - margin - rng.uniform(0.0, 3.0, mc)
            hi = cx + margin + rng.uniform(0.0, 3.0, mc)
            if p == 0:
                tight = rng.random(mc) < 0.3
                hi[tight] = cx[tight]
            lo[rng.random(mc) < 0.5] = -np.inf
            hi[rng.random(mc) < 0.15] = np.inf
        levels.append(QPLevel(A, y, r, E, f, C, lo, hi))
    if infeasible:
        _contradict_open(rng, levels, n)
    return HierarchicalQP(levels, [f"x{i}" for i in range(n)], lb, ub)


def _contradict_open(rng: np.random.Generator, levels: list[QPLevel], n: int) -> None:
    """Make an open-family problem infeasible at a random level, provably, without using bounds."""
    p = int(rng.integers(0, len(levels)))
    lv = levels[p]
    e = rng.standard_normal(n)
    v = float(rng.standard_normal())
    if rng.random() < 0.5:
        E = np.vstack([e, 2.0 * e]) if lv.E is None else np.vstack([lv.E, e, 2.0 * e])
        f = np.array([v, 2.0 * v + 1.0]) if lv.f is None else np.concatenate([lv.f, [v, 2.0 * v + 1.0]])
        levels[p] = QPLevel(lv.A, lv.y, lv.regularization, E, f, lv.C, lv.lbC, lv.ubC)
        return
    rows = np.vstack([e, -3.0 * e])  # e x ≥ v + 1 and −3 e x ≥ −3 v, i.e. e x ≤ v
    lo2, hi2 = np.array([v + 1.0, -3.0 * v]), np.array([np.inf, np.inf])
    C = rows if lv.C is None else np.vstack([lv.C, rows])
    lo = lo2 if lv.lbC is None else np.concatenate([lv.lbC, lo2])
    hi = hi2 if lv.ubC is None else np.concatenate([lv.ubC, hi2])
    levels[p] = QPLevel(lv.A, lv.y, lv.regularization, lv.E, lv.f, C, lo, hi)


def _level_constraints(rng: np.random.Generator, p: int, n: int, xf: np.ndarray, lb: np.ndarray,
                       ub: np.ndarray) -> tuple[np.ndarray | None, ...]:  # fmt: skip
    """(E, f, C, lbC, ubC) of level p. Level 0 (hard constraints): equalities and inequalities met at x_f,
    some active there. Lower levels: rows over the bounded variables whose sides lie at or beyond the
    box's extreme values, some exactly at it (weakly active at a corner): met wherever the bounds are,
    so whatever the higher levels choose."""
    E = f = C = lo = hi = None
    if p == 0 and rng.random() < 0.6:
        me = int(rng.integers(1, max(2, n // 4) + 1))
        E = _rows(rng, me, n, int(rng.integers(1, me + 1)))
        f = E @ xf
    if p == 0 and rng.random() < 0.8:
        mc = int(rng.integers(1, n + 3))
        C = _rows(rng, mc, n, int(rng.integers(1, mc + 1)))
        cx = C @ xf
        lo = cx - rng.uniform(0.0, 0.5, mc) * (1.0 + np.abs(cx))
        hi = cx + rng.uniform(0.0, 0.5, mc) * (1.0 + np.abs(cx))
        tight = rng.random(mc) < 0.3
        hi[tight] = cx[tight]  # active at x_f
        lo[rng.random(mc) < 0.2] = -np.inf
        hi[rng.random(mc) < 0.1] = np.inf
    elif p > 0 and rng.random() < 0.5:
        bounded = np.isfinite(lb) & np.isfinite(ub)
        mc = int(rng.integers(1, n // 2 + 2))
        C = _rows(rng, mc, n, int(rng.integers(1, mc + 1)))
        C[:, ~bounded] = 0.0
        lo_b, hi_b = np.where(bounded, lb, 0.0), np.where(bounded, ub, 0.0)
        top = np.maximum(C * lo_b, C * hi_b).sum(axis=1)  # extreme values over the box
        bottom = np.minimum(C * lo_b, C * hi_b).sum(axis=1)
        hi = top + rng.choice([0.0, 0.0, 0.1], mc) * (1.0 + np.abs(top))
        lo = bottom - rng.choice([0.0, 0.1, np.inf], mc) * (1.0 + np.abs(bottom))
    return E, f, C, lo, hi


def _contradict(rng: np.random.Generator, levels: list[QPLevel], lb: np.ndarray, ub: np.ndarray,
                n: int) -> None:  # fmt: skip
    """Make the problem infeasible at a random level, provably: an equality row stated twice with values
    1 apart, or an inequality row c x ≥ (its largest value over the box) + 1."""
    p = int(rng.integers(0, len(levels)))
    lv = levels[p]
    if rng.random() < 0.5:
        e = rng.standard_normal(n)
        v = float(rng.standard_normal())
        E = np.vstack([e, 2.0 * e]) if lv.E is None else np.vstack([lv.E, e, 2.0 * e])
        f = np.array([v, 2.0 * v + 1.0]) if lv.f is None else np.concatenate([lv.f, [v, 2.0 * v + 1.0]])
        levels[p] = QPLevel(lv.A, lv.y, lv.regularization, E, f, lv.C, lv.lbC, lv.ubC)
        return
    bounded = np.flatnonzero(np.isfinite(lb) & np.isfinite(ub))
    c = np.zeros(n)
    c[bounded] = rng.standard_normal(bounded.size)
    lo_b, hi_b = np.where(np.isfinite(lb), lb, 0.0), np.where(np.isfinite(ub), ub, 0.0)
    top = float(np.maximum(c * lo_b, c * hi_b).sum())  # max of c x over the box
    C = c[None, :] if lv.C is None else np.vstack([lv.C, c])
    lo = np.array([top + 1.0]) if lv.lbC is None else np.concatenate([lv.lbC, [top + 1.0]])
    hi = np.array([np.inf]) if lv.ubC is None else np.concatenate([lv.ubC, [np.inf]])
    levels[p] = QPLevel(lv.A, lv.y, lv.regularization, lv.E, lv.f, C, lo, hi)


def level_costs(hqp: HierarchicalQP, x: np.ndarray) -> np.ndarray:
    """Each level's cost ‖A_p x − y_p‖² + Σ r_p x²."""
    return np.array(
        [float(np.sum((lv.A @ x - lv.y) ** 2) + lv.regularization @ (x * x)) for lv in hqp.levels]
    )


def violation(hqp: HierarchicalQP, x: np.ndarray) -> float:
    """Largest violation of a bound or hard constraint, relative to 1 + the magnitudes of its terms."""
    worst = 0.0
    n = hqp.n
    lb = hqp.lb if hqp.lb is not None else np.full(n, -np.inf)
    ub = hqp.ub if hqp.ub is not None else np.full(n, np.inf)
    ax = np.abs(x)
    worst = max(worst, float(np.max((lb - x) / (1.0 + ax), initial=0.0)))
    worst = max(worst, float(np.max((x - ub) / (1.0 + ax), initial=0.0)))
    for lv in hqp.levels:
        if lv.E is not None and lv.f is not None:
            s = 1.0 + np.abs(lv.E) @ ax + np.abs(lv.f)
            worst = max(worst, float(np.max(np.abs(lv.E @ x - lv.f) / s, initial=0.0)))
        if lv.C is not None and lv.lbC is not None and lv.ubC is not None:
            cx = lv.C @ x
            s = 1.0 + np.abs(lv.C) @ ax
            with np.errstate(invalid="ignore"):
                worst = max(worst, float(np.max((lv.lbC - cx) / (s + _fin(lv.lbC)), initial=0.0)))
                worst = max(worst, float(np.max((cx - lv.ubC) / (s + _fin(lv.ubC)), initial=0.0)))
    return worst


def _fin(v: np.ndarray) -> np.ndarray:
    a = np.abs(v)
    a[~np.isfinite(a)] = 0.0
    return a


class ReferenceFailedError(Exception):
    """The reference could not settle a level (quadprog failed on a feasible level, or its own KKT check
    failed): the problem is left undecided, which the tests count as a failure of the reference."""


class Reference:
    """The reference's answer: ``feasible`` (False with the level found infeasible), ``x`` and the
    level costs (feasible problems)."""

    def __init__(self, feasible: bool, x: np.ndarray | None, costs: np.ndarray | None, level: int = -1):
        self.feasible, self.x, self.costs, self.level = feasible, x, costs, level


def _orth_rows(M: np.ndarray, rhs: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """(Q, c, residual): orthonormal rows Q spanning M's row space (SVD, rank at 1e-10 of σ_max) and c with
    Q x = c ⟺ M x = rhs when consistent; ``residual`` = the least-squares misfit, relative."""
    if M.shape[0] == 0:
        return M, rhs, 0.0
    U, s, Vt = np.linalg.svd(M, full_matrices=False)
    k = int(np.count_nonzero(s > 1e-10 * s[0])) if s.size and s[0] > 0 else 0
    c = (U[:, :k].T @ rhs) / s[:k]
    xls = Vt[:k].T @ c
    res = float(np.max(np.abs(M @ xls - rhs) / (1.0 + np.abs(M) @ np.abs(xls) + np.abs(rhs)), initial=0.0))
    return Vt[:k], c, res


def _null_space(Q: np.ndarray, n: int) -> np.ndarray:
    """Orthonormal basis of {d : Q d = 0} for orthonormal rows Q."""
    if Q.shape[0] == 0:
        return np.eye(n)
    _, _, Vt = np.linalg.svd(np.vstack([Q, np.zeros((max(0, n - Q.shape[0]), n))]), full_matrices=True)
    return Vt[Q.shape[0] :].T


def _ineq(hqp: HierarchicalQP, p: int, lb: np.ndarray, ub: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """G x ≥ h of the inequality rows of levels ≤ p and the bounds of the free variables, without the
    sides the box implies (min over the box of the row ≥ its side: provably redundant) and without
    repeated rows (the tightest kept): quadprog's dual method declares feasible problems inconsistent
    when many linearly dependent constraints are active at one vertex."""
    n = hqp.n
    G, h = [], []
    free = lb < ub
    lo_b, hi_b = np.where(np.isfinite(lb), lb, -np.inf), np.where(np.isfinite(ub), ub, np.inf)
    for lv in hqp.levels[: p + 1]:
        if lv.C is not None and lv.lbC is not None and lv.ubC is not None:
            for side, sign in ((lv.lbC, 1.0), (lv.ubC, -1.0)):
                M = sign * lv.C
                with np.errstate(invalid="ignore"):
                    low = np.where(M > 0, M * lo_b, np.where(M < 0, M * hi_b, 0.0)).sum(axis=1)
                keep = np.isfinite(side) & ~(low >= sign * side)
                G.append(M[keep])
                h.append(sign * side[keep])
    eye = np.eye(n)
    for side, sign in ((lb, 1.0), (ub, -1.0)):
        fin = np.isfinite(side) & free
        G.append(sign * eye[fin])
        h.append(sign * side[fin])
    Gm, hv = np.vstack(G), np.concatenate(h)
    norms = np.linalg.norm(Gm, axis=1)
    Gn, hn = Gm / norms[:, None], hv / norms
    order = np.lexsort((-hn, *np.round(Gn, 12).T[::-1]))  # (equal rows adjacent, tightest first)
    first = np.ones(order.size, dtype=bool)
    same = np.all(np.abs(np.diff(Gn[order], axis=0)) <= 1e-12, axis=1)
    first[1:] = ~same
    keep = order[first]
    return Gn[keep], hn[keep]


def _prox_level(Hw: np.ndarray, gw: np.ndarray, G: np.ndarray, h: np.ndarray) -> np.ndarray | None:
    """argmin ½wᵀHw + gᵀw s.t. G w ≥ h for a positive semidefinite H: proximal-point iterations
    w_{k+1} = argmin ½wᵀHw + gᵀw + ½ε‖w − w_k‖² (quadprog, strictly convex), to a fixed point. When
    quadprog fails on one of them (it declares some degenerate, ill-conditioned but feasible problems
    inconsistent), the level goes to Clarabel's interior-point method (semidefinite H allowed), tight
    tolerances. None when the level is infeasible."""
    import quadprog

    k = Hw.shape[0]
    scale = 1.0 + float(np.abs(np.diag(Hw)).max(initial=0.0))
    eps = 1e-7 * scale
    w = np.zeros(k)
    Gt = G.T if G.shape[0] else None
    hv = h if G.shape[0] else None
    retries = 0
    for it in range(1000):
        try:
            wn = quadprog.solve_qp(Hw + eps * np.eye(k), -(gw - eps * w), Gt, hv, 0)[0]
        except ValueError as exc:
            if it == 0 and "inconsistent" in str(exc) and not _clarabel_feasible(G, h):
                return None
            if retries < 4:  # (another ε: quadprog's failure depends on the conditioning)
                retries += 1
                eps *= 7.0
                continue
            return _clarabel(Hw, gw, G, h)
        step = float(np.abs(wn - w).max(initial=0.0))
        w = wn
        if step <= 1e-14 * (1.0 + float(np.abs(w).max(initial=0.0))):
            break
    return w


def _clarabel_solve(P: np.ndarray, q: np.ndarray, G: np.ndarray, h: np.ndarray) -> tuple[str, np.ndarray]:
    import clarabel
    import scipy.sparse as sp

    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = settings.tol_gap_rel = 1e-10
    settings.tol_feas = 1e-10
    settings.max_iter = 500
    cones = [clarabel.NonnegativeConeT(G.shape[0])] if G.shape[0] else []
    solver = clarabel.DefaultSolver(sp.csc_matrix(np.triu(P)), q, sp.csc_matrix(-G), -h, cones, settings)
    sol = solver.solve()
    return str(sol.status), np.array(sol.x)


def _clarabel_feasible(G: np.ndarray, h: np.ndarray) -> bool:
    """Whether G w ≥ h has a point (Clarabel on the minimum-norm problem)."""
    status, _ = _clarabel_solve(np.eye(G.shape[1]), np.zeros(G.shape[1]), G, h)
    return "Infeasible" not in status


def _clarabel(Hw: np.ndarray, gw: np.ndarray, G: np.ndarray, h: np.ndarray) -> np.ndarray | None:
    status, w = _clarabel_solve(Hw, gw, G, h)
    if "Infeasible" in status:
        return None
    if not status.startswith("Solved") and status != "AlmostSolved":
        raise ReferenceFailedError(f"clarabel: {status}")
    return w


def reference(hqp: HierarchicalQP, max_violation: float = 1e-10) -> Reference:
    """Level by level: level p minimises its cost over the bounds, the constraints of levels ≤ p and
    A_h x = A_h x*_h (h < p), in the null space of those equalities (and of the fixed variables). An
    answer more than ``max_violation`` (relative, :func:`violation`) outside the constraints raises
    ReferenceFailedError."""
    n = hqp.n
    lb = hqp.lb if hqp.lb is not None else np.full(n, -np.inf)
    ub = hqp.ub if hqp.ub is not None else np.full(n, np.inf)
    fixed = lb == ub
    eq_rows = [np.eye(n)[fixed]]
    eq_rhs = [lb[fixed]]
    x = np.clip(np.zeros(n), lb, ub)
    for p, lv in enumerate(hqp.levels):
        met = sum(rows.shape[0] for rows in eq_rows)  # (rows the higher levels' answer x meets)
        if lv.E is not None and lv.f is not None:
            eq_rows.append(lv.E)
            eq_rhs.append(lv.f)
        M, rhs = np.vstack(eq_rows), np.concatenate(eq_rhs)
        Q, c, res = _orth_rows(M, rhs)
        if res > 1e-9:
            return Reference(False, None, None, p)
        N = _null_space(Q, n)
        G, h = _ineq(hqp, p, lb, ub)
        found = _level(lv, G, h, Q.T @ c, N, p)
        if found is None and p > 0:  # (infeasible, or only off the set the higher levels' answer is on)
            found = _level(lv, G, h, _through(M, rhs, met, x), N, p)
        if found is None:
            return Reference(False, None, None, p)
        x = found
        A = lv.A
        eq_rows.append(A)
        eq_rhs.append(A @ x)
    off = violation(hqp, x)
    if off > max_violation:  # (degenerate problems whose cost moves by 1e-6 per 1e-10 of a side: seed 2385)
        raise ReferenceFailedError(f"the reference's answer is {off:.3g} outside the constraints")
    return Reference(True, x, level_costs(hqp, x))


def _level(
    lv: QPLevel, G: np.ndarray, h: np.ndarray, x0: np.ndarray, N: np.ndarray, p: int
) -> np.ndarray | None:
    """Level p's answer on the affine set x0 + span(N) (N orthonormal), under G x ≥ h; None when
    infeasible there."""
    if N.shape[1] == 0:
        return None if (G @ x0 < h - 1e-9 * (1.0 + np.abs(h))).any() else x0
    A, y, r = lv.A, lv.y, lv.regularization
    AN, sr = A @ N, np.sqrt(r)
    # ½‖R w − d‖² = the level's cost / 2 up to a constant: H = RᵀR, g = −Rᵀd
    R = np.vstack([AN, sr[:, None] * N])
    d = np.concatenate([y - A @ x0, -sr * x0])
    w = _level_in_null_space(R, d, G, h, x0, N, p, r)
    return None if w is None else x0 + N @ w


def _through(M: np.ndarray, rhs: np.ndarray, met: int, x: np.ndarray) -> np.ndarray:
    """The point of the level's affine set {M x = rhs} nearest the higher levels' answer ``x``, which meets
    the first ``met`` rows (their sides are the values A_h x fixed, or equalities it was solved under):
    x + Δ with M Δ = r, r zero on those rows and the new rows' misfit below. The level is solved on the
    set through the minimum-norm point first, through this one when that finds it infeasible: where a row
    of the stack has a small singular value σ, the sides' rounding divided by σ moves the minimum-norm
    point off the set x lies on (by 2e-9 under one CPU's BLAS kernels on Talos's sole tasks, enough to
    leave a level's tight cone rows infeasible on its two free directions)."""
    r = np.zeros(M.shape[0])
    r[met:] = rhs[met:] - M[met:] @ x
    if not r.any():
        return x.copy()
    delta: np.ndarray = np.linalg.lstsq(M, r, rcond=1e-10)[0]
    return x + delta


#: outward moves of the inequality sides tried in turn, relative to 1 + |side| (see _level_in_null_space)
RELAX = (0.0, 1e-10)


def _level_in_null_space(R: np.ndarray, d: np.ndarray, G: np.ndarray, h: np.ndarray, x0: np.ndarray,
                         N: np.ndarray, p: int, r: np.ndarray) -> np.ndarray | None:  # fmt: skip
    """argmin ½‖R w − d‖² s.t. G (x0 + N w) ≥ h, checked (:func:`_check_kkt`); None when infeasible.

    The proximal iterations' answer is then solved again exactly on its active set (:func:`_polish`, in
    least-squares form) and the polished point kept when it passes the same check at no higher cost:
    with λ = 1e-8 the iterations converge by λ/ε per step in the directions only λ curves (seed 2731 of
    the campaign: level 0's cost 50 % above its optimum after 1000 steps).

    The sides as they are first; then moved outwards by 1e-10 of their scale: quadprog declares some
    feasible but degenerate levels inconsistent (many constraints active at one vertex), and a
    contradiction of the infeasible problems is of size 1. Not the relaxed sides first: at a degenerate
    vertex the relaxation moves the level's optimum by far more than 1e-10 (seed 844 of the campaign:
    x by 1e-5, the level's cost by 1.4e-8 of itself, the next level's by 8.7e-6).

    A level whose regularisation is positive on every variable is strictly convex: quadprog also solves it
    directly (:func:`_direct_level`), and that answer replaces the proximal one where its cost is lower by
    more than 1e-6 of the cost itself (the proximal iterations unconverged, by an amount the CPU's BLAS
    kernels decide: a level whose rows nearly meet their targets can be left 50 % above its optimum, and
    the next level's optimum moves with it), or where the proximal path fails. Not always: a point on the
    exact vertex can leave a level below degenerate for quadprog, where the proximal answer, optimal to
    well within 1e-6 of its cost, lets it be solved."""
    direct = _direct_level(R, d, G, h, x0, N, p) if np.all(r > 0.0) else None
    try:
        w = _level_by_proximal_points(R, d, G, h, x0, N, p)
    except ReferenceFailedError:
        if direct is None:
            raise
        return direct
    if w is None or direct is None:
        return w

    def cost(v: np.ndarray) -> float:
        return float(np.sum((R @ v - d) ** 2))

    return direct if cost(direct) < (1.0 - 1e-6) * cost(w) else w


def _level_by_proximal_points(R: np.ndarray, d: np.ndarray, G: np.ndarray, h: np.ndarray, x0: np.ndarray,
                              N: np.ndarray, p: int) -> np.ndarray | None:  # fmt: skip
    """:func:`_level_in_null_space` by proximal-point iterations (quadprog), polished, on the sides as they
    are, then relaxed (see there); None when infeasible."""
    GN0 = G @ N
    # rows constant on the level's affine set (a constraint the higher levels' rows fix): checked at x0
    # and dropped, as their sides leave no interior for the methods below
    const = np.linalg.norm(GN0, axis=1) <= 1e-9 * (1.0 + np.linalg.norm(G, axis=1))
    Hw, gw = R.T @ R, -(R.T @ d)
    failure: ReferenceFailedError | None = None
    hw0 = h - G @ x0
    for k, relax in enumerate(RELAX):
        hw = h - G @ x0 - relax * (1.0 + np.abs(h))
        if (hw[const] > 1e-8 * (1.0 + np.abs(h[const]))).any():
            return None
        GN, hwk = GN0[~const], hw[~const]
        try:
            w = _prox_level(Hw, gw, GN, hwk)
            if w is None:
                if k + 1 < len(RELAX):
                    continue
                return None
            if relax:  # (back onto the sides as they are)
                w = _polish(R, d, GN, hw0[~const], hwk, w, p)
            _check_kkt(Hw, gw, GN, hw0[~const], w, p)
            return _polished(R, d, GN, hw0[~const], w, p) if not relax else w
        except ReferenceFailedError as exc:
            failure = exc
    assert failure is not None
    raise failure


def _direct_level(R: np.ndarray, d: np.ndarray, G: np.ndarray, h: np.ndarray, x0: np.ndarray,
                  N: np.ndarray, p: int) -> np.ndarray | None:  # fmt: skip
    """A strictly convex level (λ > 0 on every variable: H = RᵀR ⪰ λ_min I) by quadprog's dual active-set
    method on H itself, then :func:`_polished`, checked (:func:`_check_kkt`); None where quadprog or the
    check refuses it. The proximal iterations move the directions only λ curves by λ/ε per step: at
    λ = 1e-8 they stop far from the optimum, and where the level's rows nearly meet their targets that is
    a large part of its cost."""
    import quadprog

    GN = G @ N
    const = np.linalg.norm(GN, axis=1) <= 1e-9 * (1.0 + np.linalg.norm(G, axis=1))
    hw = h - G @ x0
    if (hw[const] > 1e-8 * (1.0 + np.abs(h[const]))).any():
        return None  # (a constant row violated: the proximal path reports it)
    GN, hw = GN[~const], hw[~const]
    Hw, gw = R.T @ R, -(R.T @ d)
    try:
        w = quadprog.solve_qp(Hw, -gw, GN.T if GN.shape[0] else None, hw if GN.shape[0] else None, 0)[0]
        _check_kkt(Hw, gw, GN, hw, w, p)
    except (ValueError, ReferenceFailedError):
        return None
    return _polished(R, d, GN, hw, w, p)


def _polish(R: np.ndarray, d: np.ndarray, G: np.ndarray, h: np.ndarray, h_active: np.ndarray,
            w: np.ndarray, p: int) -> np.ndarray:  # fmt: skip
    """The optimum on the sides h of the active set of w (the rows within 1e-9 of their side h_active:
    the relaxed sides, or h itself): a linearly independent subset of those rows (pivoted QR) held as
    equalities G_a w = h_a, and min ‖R w − d‖ on them by the null-space method in least-squares form
    (w = w_a + Z u; u of least norm, R Z's singular values below 1e-10 of max(1, its largest) taken as
    zero: a level whose rows lie in the span of the levels above has R ≈ 0 on their null space, singular
    values of rounding, 1e-17, that a threshold relative to R Z alone keeps — u then went out to 1e16 on
    some CPUs' BLAS kernels and the rows of the levels above were lost; 1 is the judge's own absolute
    floor, costs within 1e-6 (1 + cost)). Raises ReferenceFailedError when the point misses a side of h
    (at a degenerate vertex the relaxed level's optimum can lie on another face: seed 238 of the
    campaign, where 1e-10 of relaxation lowered level 1's cost by 1.1e-6 of itself)."""
    act = np.flatnonzero(G @ w - h_active <= 1e-9 * (1.0 + np.abs(h_active)))
    if act.size:
        _, Rq, piv = sla.qr(G[act].T, mode="economic", pivoting=True)
        dg = np.abs(np.diag(Rq))
        act = act[piv[: int(np.count_nonzero(dg > 1e-10 * dg[0]))]]
    k = R.shape[1]
    if act.size:
        Ga = G[act]
        wa = np.linalg.lstsq(Ga, h[act], rcond=None)[0]
        Z = sla.null_space(Ga, rcond=1e-12)
    else:
        wa, Z = np.zeros(k), np.eye(k)
    wp = wa + Z @ _least_norm(R @ Z, d - R @ wa) if Z.shape[1] else wa
    if (G @ wp - h < -1e-11 * (1.0 + np.abs(h))).any():
        raise ReferenceFailedError(f"level {p}: the active set misses the true sides")
    return wp


def _least_norm(M: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The least-norm minimiser of ‖M u − b‖, M's singular values below 1e-10 max(1, σ_max) taken as 0."""
    U, s, Vt = np.linalg.svd(M, full_matrices=False)
    keep = s > 1e-10 * max(1.0, float(s.max(initial=0.0)))
    return Vt[keep].T @ ((U[:, keep].T @ b) / s[keep])


def _polished(R: np.ndarray, d: np.ndarray, G: np.ndarray, h: np.ndarray, w: np.ndarray,
              p: int) -> np.ndarray:  # fmt: skip
    """:func:`_polish` of the checked answer w when the polished point passes :func:`_check_kkt` at no
    higher cost (½‖R w − d‖², relative 1e-15); else w."""
    try:
        wp = _polish(R, d, G, h, h, w, p)
        _check_kkt(R.T @ R, -(R.T @ d), G, h, wp, p)
    except ReferenceFailedError:
        return w
    cost = float(np.sum((R @ w - d) ** 2))
    return wp if float(np.sum((R @ wp - d) ** 2)) <= cost * (1.0 + 1e-15) + 1e-300 else w


def _check_kkt(H: np.ndarray, g: np.ndarray, G: np.ndarray, h: np.ndarray, w: np.ndarray, p: int) -> None:
    """The reference's own optimality check: feasible, and H w + g = Gᵀμ with μ ≥ 0 on the active rows
    (bounded least squares), to 1e-7 of the gradient's scale."""
    grad = H @ w + g
    scale = 1.0 + np.abs(H) @ np.abs(w) + np.abs(g)
    gw = G @ w - h
    if (gw < -1e-8 * (1.0 + np.abs(h))).any():
        raise ReferenceFailedError(f"level {p}: reference infeasible by {-gw.min():.3g}")
    act = gw <= 1e-8 * (1.0 + np.abs(h))
    if act.any():
        M = G[act].T / scale[:, None]
        mu = lsq_linear(M, grad / scale, bounds=(0.0, np.inf), method="bvls", tol=1e-14).x
        err = float(np.abs(M @ mu - grad / scale).max())
    else:
        err = float(np.abs(grad / scale).max())
    if err > 1e-7:
        raise ReferenceFailedError(f"level {p}: reference stationarity {err:.3g}")
