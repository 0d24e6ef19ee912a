"""Independent oracles for the QP tests: quadprog called directly, and a KKT verifier written here.

Nothing of :mod:`wbcpy.qp` is used: rows, constraints and multipliers are assembled with numpy, equality
rows reduced with numpy's SVD, multipliers found by ``scipy.optimize.lsq_linear``.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import lsq_linear

from wbcpy.qp import HierarchicalQP


def _independent(rows: np.ndarray, rhs: np.ndarray, tol: float = 1e-9) -> tuple[np.ndarray, np.ndarray]:
    """Row-space basis of ``rows`` (SVD) with the matching right-hand side (least squares)."""
    if rows.shape[0] == 0:
        return rows, rhs
    U, s, Vt = np.linalg.svd(rows, full_matrices=False)
    k = int(np.count_nonzero(s > tol * max(1.0, s[0])))
    return Vt[:k], (U[:, :k].T @ rhs) / s[:k]


def _level_data(hqp: HierarchicalQP, p: int):
    n = hqp.n
    E = [lv.E for lv in hqp.levels[: p + 1] if lv.E is not None]
    f = [lv.f for lv in hqp.levels[: p + 1] if lv.E is not None]
    C = [lv.C for lv in hqp.levels[: p + 1] if lv.C is not None]
    lo = [lv.lbC for lv in hqp.levels[: p + 1] if lv.C is not None]
    hi = [lv.ubC for lv in hqp.levels[: p + 1] if lv.C is not None]
    E = np.vstack(E) if E else np.zeros((0, n))
    f = np.concatenate(f) if f else np.zeros(0)
    C = np.vstack(C) if C else np.zeros((0, n))
    lo = np.concatenate(lo) if lo else np.zeros(0)
    hi = np.concatenate(hi) if hi else np.zeros(0)
    return E, f, C, lo, hi


def quadprog_lexicographic(hqp: HierarchicalQP) -> np.ndarray | None:
    """Level by level with quadprog: level p minimises ‖A_p x − y_p‖² + Σ r x² subject to the bounds, the
    constraints of levels ≤ p and A_h x = A_h x*_h for the higher levels h (rows reduced by an SVD).
    Every level must be strictly convex. Returns None when quadprog fails (degenerate active sets)."""
    import quadprog

    n = hqp.n
    lb = hqp.lb if hqp.lb is not None else np.full(n, -np.inf)
    ub = hqp.ub if hqp.ub is not None else np.full(n, np.inf)
    keep_rows, keep_rhs = np.zeros((0, n)), np.zeros(0)
    x = np.clip(np.zeros(n), lb, ub)
    for p, level in enumerate(hqp.levels):
        E, f, C, lo, hi = _level_data(hqp, p)
        A, y, r = level.A, level.y, level.regularization
        if A.shape[0] == 0 and p < len(hqp.levels) - 1:
            continue
        H = A.T @ A + np.diag(r)
        g = -(A.T @ y)
        eq, beq = _independent(np.vstack([E, keep_rows]), np.concatenate([f, keep_rhs]))
        G, h = [eq], [beq]
        for M, side, sign in ((C, lo, 1.0), (C, hi, -1.0), (np.eye(n), lb, 1.0), (np.eye(n), ub, -1.0)):
            fin = np.isfinite(side)
            G.append(sign * M[fin])
            h.append(sign * side[fin])
        Gm, hv = np.vstack(G), np.concatenate(h)
        try:
            x = quadprog.solve_qp(H, -g, Gm.T if Gm.shape[0] else None, hv if Gm.shape[0] else None,
                                  eq.shape[0])[0]  # fmt: skip
        except ValueError:
            return None
        if A.shape[0]:
            keep_rows, keep_rhs = np.vstack([keep_rows, A]), np.concatenate([keep_rhs, A @ x])
    return x


def _inequality_rows(C, lo, hi, lb, ub):
    """quadprog's G x ≥ h rows of lo ≤ C x ≤ hi and lb ≤ x ≤ ub (finite sides only)."""
    n = lb.shape[0]
    G, h = [], []
    for M, side, sign in ((C, lo, 1.0), (C, hi, -1.0), (np.eye(n), lb, 1.0), (np.eye(n), ub, -1.0)):
        fin = np.isfinite(side)
        G.append(sign * M[fin])
        h.append(sign * side[fin])
    return np.vstack(G), np.concatenate(h)


def _level_point(hqp: HierarchicalQP, p: int, x: np.ndarray, lb, ub, keep: np.ndarray,
                 engine: str = "quadprog") -> np.ndarray | None:  # fmt: skip
    """Level p's own optimum among the points that keep x's values of levels ≤ p: z = argmin Σ r_p z²
    (+ 1e-9 max r ‖z − x‖² to make it unique) over level p's constraints (sides relaxed by 1e-8 of their
    scale: x meets them only to rounding) with A_h z = A_h x (h ≤ p).
    On that set the rows' cost is constant, so z is level p's optimum whenever x is lexicographically
    optimal. x itself for a level without regulariser; None when the solver fails. ``engine``: quadprog,
    or clarabel (an interior-point method: the second opinion where quadprog's active-set steps lose
    digits, see :func:`verify_lexicographic`).

    Solved first for the step w = z − x: ½ wᵀ diag(r + ε) w + (r∘x)ᵀw with the constraints' sides moved
    by x. x is feasible to rounding, so w = 0 is, and the data the solver sees are the sides' distances
    from x, not |x|: with |x| ~ 3e5 and r spanning nine decades both solvers call the unshifted set
    infeasible (test_random_contact_scenes seed 680). Where the step's problem fails (Clarabel makes
    insufficient progress on an objective that is ~0 at w = 0), z itself is solved for."""
    r = hqp.levels[p].regularization
    if not r.any():
        return x
    E, f, C, lo, hi = _level_data(hqp, p)
    fixed = lb == ub  # as equalities at x's values; the other sides relaxed by 1e-8 of their scale
    rows = np.vstack([keep, hqp.levels[p].A, np.eye(x.shape[0])[fixed]])
    eq, beq = _independent(np.vstack([E, rows]), np.concatenate([f, rows @ x]))
    eps = 1e-9 * float(r.max())
    relax = 1e-8 * (1.0 + np.abs(C) @ np.abs(x))
    box = 1e-8 * (1.0 + np.abs(x).max(initial=0.0))
    Gi, hi_ = _inequality_rows(C, lo - relax, hi + relax, np.where(fixed, -np.inf, lb - box),
                               np.where(fixed, np.inf, ub + box))  # fmt: skip
    shifted = _level_step(r, eps, x, eq, beq - eq @ x, Gi, hi_ - Gi @ x, engine)
    if shifted is not None:
        return x + shifted
    return _level_step(r, eps, np.zeros_like(x), eq, beq, Gi, hi_, engine, eps * x)


def _level_step(r: np.ndarray, eps: float, x: np.ndarray, eq: np.ndarray, beq: np.ndarray, G: np.ndarray,
                h: np.ndarray, engine: str, pull: np.ndarray | None = None) -> np.ndarray | None:  # fmt: skip
    """argmin ½ wᵀ diag(r + eps) w + (r∘x)ᵀw − pullᵀw with eq w = beq and G w ≥ h, by ``engine``; None
    when it fails. (x = 0 and pull = eps·x is :func:`_level_point`'s problem in absolute coordinates.)"""
    linear = r * x - (0.0 if pull is None else pull)
    if engine == "clarabel":
        return _clarabel_point(r + eps, -linear, eq, beq, G, h)
    import quadprog

    Gm, hv = np.vstack([eq, G]), np.concatenate([beq, h])
    try:
        return quadprog.solve_qp(np.diag(r + eps), -linear, Gm.T if Gm.shape[0] else None,
                                 hv if Gm.shape[0] else None, eq.shape[0])[0]  # fmt: skip
    except ValueError:
        return None


def _clarabel_point(d: np.ndarray, a: np.ndarray, eq: np.ndarray, beq: np.ndarray, G: np.ndarray,
                    h: np.ndarray) -> np.ndarray | None:  # fmt: skip
    """argmin ½ zᵀ diag(d) z − aᵀz with eq z = beq and G z ≥ h, by Clarabel at tolerances 1e-12; None
    when Clarabel does not report it solved."""
    import scipy.sparse as sp

    return _clarabel_qp(sp.diags(d).tocsc(), a, eq, beq, G, h)


def _clarabel_qp(P, a: np.ndarray, eq: np.ndarray, beq: np.ndarray, G: np.ndarray,
                 h: np.ndarray) -> np.ndarray | None:  # fmt: skip
    """argmin ½ zᵀ P z − aᵀz (P sparse, positive semidefinite) with eq z = beq and G z ≥ h, by Clarabel
    at tolerances 1e-12; None when Clarabel does not report it solved."""
    import clarabel
    import scipy.sparse as sp

    M = sp.csc_matrix(np.vstack([eq, -G]))
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = settings.tol_gap_rel = settings.tol_feas = 1e-12
    settings.max_iter = 500
    cones = [clarabel.ZeroConeT(eq.shape[0]), clarabel.NonnegativeConeT(G.shape[0])]
    rhs = np.concatenate([beq, -h])
    sol = clarabel.DefaultSolver(sp.csc_matrix(P), -a, M, rhs, cones, settings).solve()
    if sol.status not in (clarabel.SolverStatus.Solved, clarabel.SolverStatus.AlmostSolved):
        return None
    return np.asarray(sol.x)


def _active_columns(x, cx, C, lo, hi, lb, ub, act):
    """Columns Mᵀ of the active inequality sides and bounds at x, with the sign bounds of their
    multipliers (≤ 0 on a lower side, ≥ 0 on an upper side: stationarity grad + Mᵀμ = 0). "Active":
    within ``act`` of the solution's scale (1 + max|x| for a bound, 1 + |C||x| for a row): x is
    determined only to that precision when its entries span many orders of magnitude."""
    n = x.shape[0]
    cols, lower, upper = [], [], []
    near_x = act * (1 + np.abs(x).max(initial=0.0))
    near = act * (1 + np.abs(C) @ np.abs(x))
    for mask_lo, mask_hi, M in (
        (cx - lo <= near, hi - cx <= near, C),
        (x - lb <= near_x, ub - x <= near_x, np.eye(n)),
    ):
        cols += [M[mask_lo].T, M[mask_hi].T]
        lower += [np.full(mask_lo.sum(), -np.inf), np.zeros(mask_hi.sum())]
        upper += [np.zeros(mask_lo.sum()), np.full(mask_hi.sum(), np.inf)]
    return cols, lower, upper


def _worst_stationarity(Mt, bounds, grad, allow, rounding):
    """Largest |Mᵀμ + grad|_i / allow_i over the multipliers μ (signs bounded) fitted in that metric."""
    if not Mt.shape[1]:
        return np.abs(grad) / allow
    res = lsq_linear(Mt / allow[:, None], -grad / allow, bounds=bounds, method="bvls", tol=1e-14,
                     max_iter=100000)  # fmt: skip
    allow = allow + rounding * (np.abs(Mt) @ np.abs(res.x))
    return np.abs(Mt @ res.x + grad) / allow


def _feasibility(hqp: HierarchicalQP, x: np.ndarray, lb, ub, act: float, rounding: float) -> str | None:
    """None when x satisfies the bounds and every level's equalities and inequalities."""
    if (x < lb - act * (1 + np.abs(x))).any() or (x > ub + act * (1 + np.abs(x))).any():
        return "bounds violated"
    for p in range(len(hqp.levels)):
        E, f, C, lo, hi = _level_data(hqp, p)
        off = np.abs(E @ x - f) - act * (1 + np.abs(f).max(initial=0.0)) - rounding * np.abs(E) @ np.abs(x)
        if (off > 0).any():
            return f"level {p}: equalities violated"
        cx = C @ x
        if (cx < lo - act * (1 + np.abs(cx))).any() or (cx > hi + act * (1 + np.abs(cx))).any():
            return f"level {p}: inequalities violated"
    return None


def verify_lexicographic(
    hqp: HierarchicalQP, x: np.ndarray, tol: float = 1e-6, act: float = 1e-7, rounding: float = 0.0
) -> str | None:
    """None when x is the lexicographic optimum (KKT conditions of every level hold, multipliers of the
    active inequalities with the right signs found by bounded least squares), else the first violation.

    Level p minimises ‖A_p x − y_p‖² + Σ r_p x² under the constraints of levels ≤ p and A_h x = A_h x*_h
    (h < p); the levels below keep the rows' values A_p x = A_p x*_p, not the regulariser's optimum. So
    where level p's KKT conditions fail at x (the levels below moved x along directions only the
    regulariser of level p cared about), they are checked at level p's own optimum z among the points
    that keep x's values (:func:`_level_point`); the last level is checked at x.

    Each level's stationarity residual may reach ``tol`` times the level's scale (1 + max|AᵀAz| +
    max|Aᵀy|). With ``rounding > 0`` each entry i may also reach ``rounding`` times the magnitude of the
    terms it was formed from, (|A|ᵀ(|A||z| + |y|) + r|z| + |M||μ|)_i — what representing an exact optimum
    in floating point leaves behind when |z| is large (weak directions of ill-conditioned levels) —, the
    multipliers μ are fitted in that per-entry metric, and equalities may be off by ``rounding`` |E||x|.
    Bounds and inequalities must hold within ``tol`` (1 + |value|); ``act`` decides which are active."""
    n = hqp.n
    lb = hqp.lb if hqp.lb is not None else np.full(n, -np.inf)
    ub = hqp.ub if hqp.ub is not None else np.full(n, np.inf)
    # feasibility at the library's contract, ``tol`` relative (its KKT certificate and its final check
    # of every constraint, wbcpy.qp.hierarchy): an iterative backend stopped at its iteration limit may
    # leave an answer a few 1e-7 outside a row of a degenerate level (osqp, seed 1391803 of
    # test_random_hierarchies_optimal_or_raise: 2.0e-7 once H is summed in another order); ``act`` only
    # says which constraints count as active
    why = _feasibility(hqp, x, lb, ub, tol, rounding)
    if why is not None:
        return why
    keep = np.zeros((0, n))
    last = len(hqp.levels) - 1
    for p, level in enumerate(hqp.levels):
        excess = _stationarity_at(hqp, p, x, x, keep, lb, ub, tol, act, rounding)
        z: np.ndarray | None = None
        if p < last and excess.max(initial=0.0) > 1.0:  # the levels below moved x: judge at z
            # (z is itself computed to ~1e-8: constraints within 10 act count as active). quadprog's z can
            # lose digits where H = diag(r + eps) spans nine decades and |x| is large (a contact scene
            # with q̈ ~ 1e6, test_random_contact_scenes seed 39192: 1.7e5 off, a false alarm): then
            # Clarabel's z is the second opinion
            for engine in ("quadprog", "clarabel"):
                point = _level_point(hqp, p, x, lb, ub, keep, engine)
                if point is not None:
                    z = point
                    excess = _stationarity_at(hqp, p, x, z, keep, lb, ub, tol, 10.0 * act, rounding)
                if excess.max(initial=0.0) <= 1.0:
                    break
        if p == last and excess.max(initial=0.0) > 1.0 and _cost_is_optimal(hqp, p, x, lb, ub, keep, tol):
            excess = np.zeros(1)  # (see _cost_is_optimal: multipliers beyond what the rows resolve)
        elif (
            p < last
            and excess.max(initial=0.0) > 1.0
            and z is not None
            and _cost_is_optimal(hqp, p, z, lb, ub, keep, tol)
        ):
            # the same criterion at level p's own point z (the regulariser's optimum where x keeps the
            # rows' values): a random acceleration scene with |x| ~ 1.6e6 pushed by constraint sides
            # ~1e5 (test_random_scenes, acc seed 420) leaves z 2 × the allowed stationarity on a joint
            # whose columns are 1e-3 of the others, its cost 6e-7 relative from Clarabel's optimum
            excess = np.zeros(1)
        if excess.max(initial=0.0) > 1.0:
            i = int(np.argmax(excess))
            return f"level {p}: stationarity residual at {i} is {excess[i]:.3g} × the allowed"
        if level.A.shape[0]:
            keep = np.vstack([keep, level.A])
    return None


def _cost_is_optimal(
    hqp: HierarchicalQP, p: int, x: np.ndarray, lb, ub, keep: np.ndarray, tol: float
) -> bool:
    """True when level p's cost at x, ‖A x − y‖² + Σ r x², is within tol (1 + cost) of its minimum
    over level p's constraints (sides relaxed by 1e-8 of their scale, as :func:`_level_point`) and the
    higher levels' rows kept at x's values, computed by Clarabel: the issue's own criterion, for a level
    whose KKT multipliers the rows kept above do not resolve (random_tree of test_random_scenes seed 3731:
    those rows' singular values 6.4 down to 1e-17, every backend's answer 10.8 × the allowed stationarity,
    its cost equal to Clarabel's optimum to 1e-14 relative)."""
    level = hqp.levels[p]
    A, y, r = level.A, level.y, level.regularization
    E, f, C, lo, hi = _level_data(hqp, p)
    fixed = lb == ub
    rows = np.vstack([keep, np.eye(x.shape[0])[fixed]])
    eq, beq = _independent(np.vstack([E, rows]), np.concatenate([f, rows @ x]))
    relax = 1e-8 * (1.0 + np.abs(C) @ np.abs(x))
    box = 1e-8 * (1.0 + np.abs(x).max(initial=0.0))
    Gi, hi_ = _inequality_rows(C, lo - relax, hi + relax, np.where(fixed, -np.inf, lb - box),
                               np.where(fixed, np.inf, ub + box))  # fmt: skip
    P = 2.0 * (A.T @ A + np.diag(r))  # (solved for z − x, as _level_point, else for z: see there)
    w = _clarabel_qp(P, 2.0 * A.T @ y - P @ x, eq, beq - eq @ x, Gi, hi_ - Gi @ x)
    z = x + w if w is not None else _clarabel_qp(P, 2.0 * A.T @ y, eq, beq, Gi, hi_)
    if z is None:
        return False

    def cost(v: np.ndarray) -> float:
        return float(np.sum((A @ v - y) ** 2) + np.sum(r * v * v))

    return cost(x) <= cost(z) + tol * (1.0 + abs(cost(z)))


def _stationarity_at(hqp, p, x, z, keep, lb, ub, tol, act, rounding) -> np.ndarray:
    """Level p's stationarity residuals at z (a point with A_h z = A_h x, h ≤ p) over what is allowed."""
    E, _, C, lo, hi = _level_data(hqp, p)
    level = hqp.levels[p]
    A, y, r = level.A, level.y, level.regularization
    grad = A.T @ (A @ x - y) + r * z  # A z = A x: x's residual, free of z's rounding
    scale = 1.0 + np.abs(A.T @ (A @ x)).max(initial=0) + np.abs(A.T @ y).max(initial=0)
    allow = tol * scale + rounding * (np.abs(A.T) @ (np.abs(A) @ np.abs(z) + np.abs(y)) + r * np.abs(z))
    cols, lower, upper = _active_columns(z, C @ z, C, lo, hi, lb, ub, act)
    free = E.shape[0] + keep.shape[0]
    Mt = np.hstack([E.T, keep.T, *cols])
    bounds = (
        np.concatenate([np.full(free, -np.inf), *lower]),
        np.concatenate([np.full(free, np.inf), *upper]),
    )
    return _worst_stationarity(Mt, bounds, grad, allow, rounding)
