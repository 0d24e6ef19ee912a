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


def verify_lexicographic(
    hqp: HierarchicalQP, x: np.ndarray, tol: float = 1e-6, act: float = 1e-7
) -> str | None:
    """None when x is the lexicographic optimum (KKT conditions of every level hold at x, multipliers of
    the active inequalities with the right signs found by bounded least squares), else the first
    violation found."""
    n = hqp.n
    lb = hqp.lb if hqp.lb is not None else np.full(n, -np.inf)
    ub = hqp.ub if hqp.ub is not None else np.full(n, np.inf)
    if (x < lb - act * (1 + np.abs(x))).any() or (x > ub + act * (1 + np.abs(x))).any():
        return "bounds violated"
    keep = np.zeros((0, n))
    for p, level in enumerate(hqp.levels):
        E, f, C, lo, hi = _level_data(hqp, p)
        if E.shape[0] and np.abs(E @ x - f).max() > act * (1 + np.abs(f).max()):
            return f"level {p}: equalities violated"
        cx = C @ x
        if C.shape[0] and (
            (cx < lo - act * (1 + np.abs(cx))).any() or (cx > hi + act * (1 + np.abs(cx))).any()
        ):
            return f"level {p}: inequalities violated"
        A, y, r = level.A, level.y, level.regularization
        grad = A.T @ (A @ x - y) + r * x
        cols, lower, upper = [E.T, keep.T], [np.full(E.shape[0] + keep.shape[0], -np.inf)], []
        upper.append(np.full(E.shape[0] + keep.shape[0], np.inf))
        near = act * (1 + np.abs(cx))
        for mask_lo, mask_hi, M in (
            (cx - lo <= near, hi - cx <= near, C),
            (x - lb <= act * (1 + np.abs(x)), ub - x <= act * (1 + np.abs(x)), np.eye(n)),
        ):
            cols.append(M[mask_lo].T)  # multiplier ≤ 0 (lower side), stationarity grad + Mᵀμ = 0
            lower.append(np.full(mask_lo.sum(), -np.inf))
            upper.append(np.zeros(mask_lo.sum()))
            cols.append(M[mask_hi].T)
            lower.append(np.zeros(mask_hi.sum()))
            upper.append(np.full(mask_hi.sum(), np.inf))
        Mt = np.hstack(cols)
        scale = 1.0 + np.abs(A.T @ (A @ x)).max(initial=0) + np.abs(A.T @ y).max(initial=0)
        if Mt.shape[1]:
            res = lsq_linear(Mt, -grad, bounds=(np.concatenate(lower), np.concatenate(upper)),
                             method="bvls", tol=1e-14, max_iter=100000)  # fmt: skip
            resid = np.abs(Mt @ res.x + grad).max()
        else:
            resid = np.abs(grad).max()
        if resid > tol * scale:
            return f"level {p}: stationarity residual {resid:.3g} (scale {scale:.3g})"
        if A.shape[0]:
            keep = np.vstack([keep, A])
    return None
