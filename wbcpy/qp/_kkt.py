"""Internal standard form, KKT residuals and the exact active-set polish.

Every backend adapter receives a :class:`StdQP` (fixed variables already eliminated, all arrays
validated) and returns primal and dual variables in one convention, the stationarity condition

    H x + g + Aᵀ y + Cᵀ z + z_box = 0,

with z_i ≥ 0 when the upper side of row i is active, z_i ≤ 0 when the lower side is (same for z_box).
:func:`kkt_residuals` measures a candidate against it; :func:`polish` recomputes x exactly on the active
set a backend identified.

Why polish: the scene's regularisation λ = 1e-8 leaves directions of curvature λ only. An iterative
backend stops when the dual residual is below its tolerance ε; in those directions x can still be off
by ε/λ (1e-10/1e-8 = 1e-2). Solving the equality-constrained KKT system of the identified active set by
a direct factorisation removes that error (like OSQP's polishing, which OSQP skips when no constraint
is active). The polished point is accepted only if it is primal feasible and its multipliers have the
right signs, i.e. it is a verified optimum of the convex QP.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

__all__ = ["RawResult", "StdQP", "kkt_residuals", "polish"]


@dataclass(slots=True)
class StdQP:
    """A validated QP over the free variables: H, g; A x = b; lbC ≤ C x ≤ ubC; lb ≤ x ≤ ub.

    H/A/C are dense arrays or CSC matrices; missing blocks are None; bounds may hold ±inf.
    """

    H: np.ndarray | sp.csc_matrix
    g: np.ndarray
    A: np.ndarray | sp.csc_matrix | None = None
    b: np.ndarray | None = None
    C: np.ndarray | sp.csc_matrix | None = None
    lbC: np.ndarray | None = None
    ubC: np.ndarray | None = None
    lb: np.ndarray | None = None
    ub: np.ndarray | None = None
    sparse: bool = False  # True when H, A or C is a scipy sparse matrix

    @property
    def n(self) -> int:
        return self.g.shape[0]

    @property
    def meq(self) -> int:
        return 0 if self.A is None else self.A.shape[0]

    @property
    def mc(self) -> int:
        return 0 if self.C is None else self.C.shape[0]

    def dense(self) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
        """H, A, C as dense arrays."""

        def d(M: np.ndarray | sp.csc_matrix | None) -> np.ndarray | None:
            return M.toarray() if sp.issparse(M) else M

        return d(self.H), d(self.A), d(self.C)


@dataclass(slots=True)
class RawResult:
    """What an adapter returns (duals in the convention of this module; None when not reported)."""

    x: np.ndarray | None
    ok: bool
    status: str
    iterations: int | None = None
    y: np.ndarray | None = None
    z: np.ndarray | None = None
    z_box: np.ndarray | None = None
    inaccurate: bool = False  # the backend stopped early but x may be polished into an optimum


def _inf_norm(v: np.ndarray) -> float:
    return float(np.max(np.abs(v))) if v.size else 0.0


def kkt_residuals(
    q: StdQP, x: np.ndarray, y, z, z_box, complementarity: bool = True
) -> tuple[float, float, float, float, float]:
    """Primal, dual and complementarity residuals of (x, y, z, z_box) and their scales (n ≥ 1).

    Returns:
        (primal, dual, complementarity, primal_scale, dual_scale). ``primal`` is the largest constraint
        violation (∞-norm, scale 1 + ‖x‖∞), ``dual`` the ∞-norm of Hx + g + Aᵀy + Cᵀz + z_box (scale
        1 + max ‖·‖∞ of g and the multiplier terms; Hx balances them at an optimum).
        ``complementarity`` is already relative: the largest
        min(|z_i| / dual_scale, slack_i / primal_scale) over inequalities, where slack_i is the distance
        to the bound the sign of z_i refers to (0 at an optimum); it is skipped (0) when
        ``complementarity`` is False, for results that hold multipliers on active constraints only by
        construction (active-set backends, polished points). Missing duals count as zero.
    """
    grad = q.H @ x
    grad += q.g
    dscale = 1.0 + float(abs(q.g).max())  # Hx is balanced by g and the multiplier terms
    has_box = q.lb is not None or q.ub is not None
    if q.A is None and q.C is None and not has_box:  # hot path: unconstrained
        return 0.0, float(abs(grad).max()), 0.0, 1.0, dscale
    primal = 0.0
    pairs = []
    if q.A is not None and q.A.shape[0]:
        primal = float(abs(q.A @ x - q.b).max())
        if y is not None:
            t = q.A.T @ y
            grad += t
            dscale = max(dscale, 1.0 + float(abs(t).max()))
    if q.C is not None and q.C.shape[0]:
        v = q.C @ x
        primal = max(primal, float((q.lbC - v).max()), float((v - q.ubC).max()))
        if z is not None:
            t = q.C.T @ z
            grad += t
            dscale = max(dscale, 1.0 + float(abs(t).max()))
            if complementarity:
                pairs.append((z, v, q.lbC, q.ubC))
    if has_box:
        if q.lb is not None:
            primal = max(primal, float((q.lb - x).max()))
        if q.ub is not None:
            primal = max(primal, float((x - q.ub).max()))
        if z_box is not None:
            grad += z_box
            dscale = max(dscale, 1.0 + float(abs(z_box).max()))
            if complementarity:
                pairs.append((z_box, x, q.lb, q.ub))
    pscale = 1.0 + float(abs(x).max())
    compl = 0.0
    for mult, v, lo, hi in pairs:
        up = hi - v if hi is not None else np.inf
        dn = v - lo if lo is not None else np.inf
        slack = np.where(mult > 0, up, dn)
        compl = max(compl, float(np.minimum(abs(mult) / dscale, slack / pscale).max()))
    return max(primal, 0.0), float(abs(grad).max()), compl, pscale, dscale


def _solve_eq_qp(H: np.ndarray, g: np.ndarray, M: np.ndarray, r: np.ndarray):
    """Minimise ½xᵀHx + gᵀx s.t. M x = r by the null-space method; M may be rank deficient.

    Returns (x, ν, consistent) with Hx + g + Mᵀν = 0 (least-squares ν when M is rank deficient).
    """
    m = M.shape[0]
    if m == 0:
        try:
            c = sla.cho_factor(H, check_finite=False)
            return sla.cho_solve(c, -g, check_finite=False), np.zeros(0), True
        except np.linalg.LinAlgError:
            return np.linalg.lstsq(H, -g, rcond=None)[0], np.zeros(0), True
    Q, R, piv = sla.qr(M.T, pivoting=True, check_finite=False)  # Mᵀ[:, piv] = Q R
    d = np.abs(np.diag(R))
    rank = int(np.count_nonzero(d > 1e-12 * max(1.0, d[0]))) if d.size else 0
    Q1, Z = Q[:, :rank], Q[:, rank:]
    R1 = R[:rank, :rank]
    rp = r[piv]
    # M x = r with x = Q1 u + Z w:  R[:rank]ᵀ u = r[piv]  (first `rank` rows determine u)
    u = sla.solve_triangular(R1, rp[:rank], trans="T", check_finite=False) if rank else np.zeros(0)
    consistent = bool(
        np.allclose(R[:rank, rank:].T @ u, rp[rank:], rtol=0.0, atol=1e-9 * (1.0 + np.abs(r).max()))
    )
    xp = Q1 @ u
    if Z.shape[1]:
        Hz = Z.T @ H @ Z
        rhs = -(Z.T @ (g + H @ xp))
        try:
            w = sla.cho_solve(sla.cho_factor(Hz, check_finite=False), rhs, check_finite=False)
        except np.linalg.LinAlgError:
            w = np.linalg.lstsq(Hz, rhs, rcond=None)[0]
        x = xp + Z @ w
    else:
        x = xp
    grad = H @ x + g
    # Mᵀ ν = −grad:  Mᵀ[:, piv] = Q R  →  R1 ν_piv[:rank] = −Q1ᵀ grad, remaining ν_piv = 0
    nu_p = np.zeros(m)
    if rank:
        nu_p[:rank] = sla.solve_triangular(R1, -(Q1.T @ grad), check_finite=False)
    nu = np.empty(m)
    nu[piv] = nu_p
    return x, nu, consistent


def _near(v: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """-1 / +1 where v is within 1e-6·(1 + |bound|) of a finite lower / upper bound, else 0."""
    s = np.zeros(v.shape[0], dtype=np.int8)
    with np.errstate(invalid="ignore"):
        s[np.isfinite(lo) & (v - lo <= 1e-6 * (1.0 + np.abs(lo)))] = -1
        s[np.isfinite(hi) & (hi - v <= 1e-6 * (1.0 + np.abs(hi)))] = 1
    return s


def polish(q: StdQP, x0: np.ndarray, tol: float = 1e-9, sign_tol: float = 1e-13):
    """Recompute the optimum exactly on the active set suggested by ``x0`` (primal-dual active-set steps).

    Constraints within ``1e-6·(1 + |bound|)`` of a bound at ``x0`` start active. Each step solves the
    equality-constrained QP of the current active set (bounds fix their variables) and checks it:
    an active constraint whose multiplier has the wrong sign by more than ``sign_tol``·(1 + ‖g‖∞ + ‖Hx‖∞)
    is released, an inactive one violated by more than ``tol``·(1 + ‖x‖∞) is activated. Phase 1 applies
    all changes at once (≤ 10 steps, fast when ``x0`` is close); if that cycles, phase 2 restarts and
    changes one constraint per step (the most violated first, then the most wrong-signed multiplier).

    Returns:
        (x, y, z, z_box) of a verified KKT point, or None if no consistent active set was found.
    """
    if q.meq == 0 and q.mc == 0 and not q.sparse:
        res = _polish_box(q, x0, tol, sign_tol)
        if res is not None:
            return res
    P = _Polisher(q, tol, sign_tol)
    sb0 = _near(x0, P.lb, P.ub)  # -1 lower active, +1 upper active, 0 inactive
    sc0 = _near(P.C @ x0, P.lbC, P.ubC) if P.mc else np.zeros(0, dtype=np.int8)
    for single in (False, True):
        sb, sc = sb0.copy(), sc0.copy()
        seen: set[bytes] = set()
        for _ in range(10 if not single else 3 * (P.n + P.mc) + 10):
            key = sb.tobytes() + sc.tobytes()
            if key in seen:
                break
            seen.add(key)
            step = P.step(sb, sc)
            if step is None:
                break
            sol, changes = step
            if changes is None:
                return sol
            P.apply(sb, sc, changes, single)
    return None


def _polish_box(q: StdQP, x0: np.ndarray, tol: float, sign_tol: float):
    """:func:`polish` for dense problems with bounds only (the common case), in fewer operations."""
    H, g, n = q.H, q.g, q.n
    if q.lb is None and q.ub is None:
        try:
            return np.linalg.solve(H, -g), None, None, None
        except np.linalg.LinAlgError:
            return None
    lb = q.lb if q.lb is not None else np.full(n, -np.inf)
    ub = q.ub if q.ub is not None else np.full(n, np.inf)
    sb = _near(x0, lb, ub)
    seen: set[bytes] = set()
    gscale = 1.0 + _inf_norm(g)
    for _ in range(2 * n + 10):
        key = sb.tobytes()
        if key in seen:
            return None
        seen.add(key)
        fixed = sb != 0
        x = np.where(sb < 0, lb, ub)
        try:
            if fixed.any():
                free = ~fixed
                x[free] = np.linalg.solve(
                    H[np.ix_(free, free)], -(g[free] + H[np.ix_(free, fixed)] @ x[fixed])
                )
            else:
                x = np.linalg.solve(H, -g)
        except np.linalg.LinAlgError:
            return None
        Hx = H @ x
        zb = -(Hx + g)
        zb[~fixed] = 0.0
        ptol = tol * (1.0 + _inf_norm(x))
        dtol = sign_tol * max(gscale, 1.0 + _inf_norm(Hx))
        release = ((sb < 0) & (zb > dtol)) | ((sb > 0) & (zb < -dtol))
        low = ~fixed & (x < lb - ptol)
        high = ~fixed & (x > ub + ptol)
        if not (release.any() or low.any() or high.any()):
            return x, None, None, zb
        if low.any() or high.any():  # feasibility first, most violated bound
            viol = np.where(low, lb - x, 0.0) + np.where(high, x - ub, 0.0)
            j = int(np.argmax(viol))
            sb[j] = -1 if low[j] else 1
        else:
            sb[int(np.argmax(np.abs(zb) * release))] = 0
    return None


class _Polisher:
    """Equality-constrained sub-problems of one QP for :func:`polish`."""

    def __init__(self, q: StdQP, tol: float, sign_tol: float) -> None:
        self.H, A, C = q.dense()
        self.g = q.g
        self.n, self.meq, self.mc = n, meq, mc = q.n, q.meq, q.mc
        inf = np.full(n, np.inf)
        self.lb = q.lb if q.lb is not None else -inf
        self.ub = q.ub if q.ub is not None else inf
        self.C = C if mc else np.zeros((0, n))
        self.lbC = q.lbC if mc else np.zeros(0)
        self.ubC = q.ubC if mc else np.zeros(0)
        self.A = A if meq else np.zeros((0, n))
        self.b = q.b if meq else np.zeros(0)
        self.tol, self.sign_tol = tol, sign_tol

    def step(self, sb: np.ndarray, sc: np.ndarray):
        """Solve on the active set (sb, sc). Returns None (inconsistent) or ((x, y, z, zb), changes)."""
        H, g, C, n = self.H, self.g, self.C, self.n
        fixed = sb != 0
        free = ~fixed
        xB = np.where(sb < 0, self.lb, self.ub)[fixed]
        act = sc != 0
        M = np.vstack([self.A, C[act]])
        r = np.concatenate([self.b, np.where(sc < 0, self.lbC, self.ubC)[act]])
        HF = H[np.ix_(free, free)]
        gF = g[free] + H[np.ix_(free, fixed)] @ xB
        xF, nu, consistent = _solve_eq_qp(HF, gF, M[:, free], r - M[:, fixed] @ xB)
        if not consistent:
            return None
        x = np.empty(n)
        x[free] = xF
        x[fixed] = xB
        y = nu[: self.meq]
        z = np.zeros(self.mc)
        z[act] = nu[self.meq :]
        Hx = H @ x
        grad = Hx + g + self.A.T @ y + C.T @ z
        zb = np.zeros(n)
        zb[fixed] = -grad[fixed]
        ptol = self.tol * (1.0 + _inf_norm(x))
        # multipliers of bounds active only through the λ-regularisation are ~λ·|x|: the sign test must
        # resolve them, so its tolerance sits just above the rounding level of the gradient
        dtol = self.sign_tol * (1.0 + max(_inf_norm(g), _inf_norm(Hx)))
        Cx = C @ x
        # wrongness > 0 marks a change: release (wrong sign) for active, activate (violated) for inactive
        wb = np.where(sb < 0, zb, np.where(sb > 0, -zb, 0.0)) / dtol - 1.0
        wc = np.where(sc < 0, z, np.where(sc > 0, -z, 0.0)) / dtol - 1.0
        vb = np.maximum(self.lb - x, x - self.ub) / ptol - 1.0
        vc = np.maximum(self.lbC - Cx, Cx - self.ubC) / ptol - 1.0 if self.mc else np.zeros(0)
        vb[fixed] = -1.0
        vc[act] = -1.0
        wb[~fixed] = -1.0
        wc[~act] = -1.0
        sol = (x, y, z, zb)
        if max(wb.max(initial=-1.0), wc.max(initial=-1.0), vb.max(initial=-1.0), vc.max(initial=-1.0)) <= 0.0:
            return sol, None
        return sol, (x, Cx, wb, wc, vb, vc)

    def apply(self, sb, sc, changes, single: bool) -> None:
        x, Cx, wb, wc, vb, vc = changes
        if not single:
            sb[wb > 0] = 0
            sc[wc > 0] = 0
            sb[(vb > 0) & (x < self.lb)] = -1
            sb[(vb > 0) & (x > self.ub)] = 1
            if self.mc:
                sc[(vc > 0) & (Cx < self.lbC)] = -1
                sc[(vc > 0) & (Cx > self.ubC)] = 1
            return
        if vb.max(initial=-1.0) > 0 or vc.max(initial=-1.0) > 0:  # feasibility first
            if vb.max(initial=-1.0) >= vc.max(initial=-1.0):
                j = int(np.argmax(vb))
                sb[j] = -1 if x[j] < self.lb[j] else 1
            else:
                i = int(np.argmax(vc))
                sc[i] = -1 if Cx[i] < self.lbC[i] else 1
        elif wb.max(initial=-1.0) >= wc.max(initial=-1.0):
            sb[int(np.argmax(wb))] = 0
        else:
            sc[int(np.argmax(wc))] = 0
