"""Exact refinement of an answer on its active set, and the cost evaluated accurately.

:func:`refine` recomputes x exactly on the active set an (inexact) backend identified, by a few
primal-dual active-set steps, each an equality-constrained QP solved by the null-space method with
orthogonal factorisations (least-squares form when the QP comes from least-squares rows: square root of
the Hessian's condition number); it returns only certified points.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from .kkt import Certificate, StdQP, certify

#: the float64 machine epsilon (the rounding unit of the certificate's allowances)
_EPS = float(np.finfo(np.float64).eps)
#: the relative singular-value cutoff of the least-squares minimisers of :func:`refine`: directions the
#: rows weigh less than this (relative to the strongest) are left at the least-norm point. Far above the
#: rounding of rows that are dependent in exact arithmetic (~kε), far below the weakest rows a hierarchy
#: meets (√λ = 1e-4 of a λ = 1e-8 regulariser, weights over twelve decades: 1e-6)
LS_RCOND = 1e-12


#: what :func:`refine` returns: (x, y, z, z_box, certificate) of a certified optimum
Refined = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, Certificate]


def _near(v: np.ndarray, lo: np.ndarray, hi: np.ndarray, tol: float) -> np.ndarray:
    """-1 / +1 where v is within tol·(1 + |bound|) of a finite lower / upper bound, else 0."""
    s = np.zeros(v.shape[0], dtype=np.int8)
    with np.errstate(invalid="ignore"):
        s[np.isfinite(lo) & (v - lo <= tol * (1.0 + np.abs(lo)))] = -1
        s[np.isfinite(hi) & (hi - v <= tol * (1.0 + np.abs(hi)))] = 1
    return s


class _Dense:
    """Dense copies of a StdQP with every constraint block present (empty when absent), and the rows
    (R, d) of its least-squares form (None when it has none)."""

    def __init__(self, q: StdQP) -> None:
        H, A, C = q.dense()
        n = q.n
        self.H, self.g, self.n = H, q.g, n
        self.lb, self.ub = q.full_bounds()
        self.A = A if A is not None and q.meq else np.zeros((0, n))
        self.b = q.b if q.b is not None and q.meq else np.zeros(0)
        self.C = C if C is not None and q.mc else np.zeros((0, n))
        self.lbC = q.lbC if q.lbC is not None and q.mc else np.zeros(0)
        self.ubC = q.ubC if q.ubC is not None and q.mc else np.zeros(0)
        self.ls = None if q.ls is None else q.ls.rows()


def _eq_qp(P: _Dense, fixed: np.ndarray, xB: np.ndarray, M: np.ndarray, rhs: np.ndarray) -> list[np.ndarray]:
    """Minimisers of the QP's cost with x[fixed] = xB and M x = rhs (M may be rank deficient).

    Null-space method: M_F = M[:, free]; Q R = M_Fᵀ P (pivoted QR); x_F = Q₁u + Q₂w. The reduced cost is
    minimised twice when the QP has a least-squares form: by QR on the rows (accurate where very
    unequal weights make H ill-conditioned) and by a Cholesky factorisation of the reduced Hessian with
    one step of iterative refinement (componentwise accurate where entries decouple, Skeel 1980); the
    caller certifies each. A semidefinite reduced Hessian gets a least-squares minimiser.

    Returns:
        candidate solutions (n each); empty when M x = rhs is inconsistent or the cost is unbounded.
    """
    free = ~fixed
    x = np.zeros(P.n)
    x[fixed] = xB
    r = rhs - M[:, fixed] @ xB
    nf = int(free.sum())
    if M.shape[0]:
        Q, R, piv = sla.qr(M[:, free].T, pivoting=True, mode="full", check_finite=False)
        d = np.abs(np.diag(R))
        rank = int(np.count_nonzero(d > 1e-12 * max(1.0, float(d[0]) if d.size else 0.0)))
        rp = r[piv]
        u = sla.solve_triangular(R[:rank, :rank], rp[:rank], trans="T", check_finite=False)
        resid = R[:rank, rank:].T @ u - rp[rank:]
        if resid.size and np.abs(resid).max() > 1e-9 * (1.0 + np.abs(r).max()):
            return []
        Z, xp = Q[:, rank:], Q[:, :rank] @ u
    else:
        Z, xp = np.eye(nf), np.zeros(nf)
    out = []
    for w in _reduced(P, free, fixed, x, xp, Z) if Z.shape[1] else [np.zeros(0)]:
        cand = x.copy()
        cand[free] = xp + Z @ w if Z.shape[1] else xp
        out.append(cand)
    return out


def _reduced(P: _Dense, free: np.ndarray, fixed: np.ndarray, x: np.ndarray, xp: np.ndarray,
             Z: np.ndarray) -> list[np.ndarray]:  # fmt: skip
    """Minimisers w of the cost at x[free] = xp + Z w (x[fixed] set): QR on the least-squares rows when
    there are some, then the refined normal-equations solution (empty list: unbounded)."""
    out = []
    if P.ls is not None:
        R, d = P.ls
        RZ = R[:, free] @ Z
        base = d - R[:, fixed] @ x[fixed] - R[:, free] @ xp  # ‖R x − d‖² with x[free] = xp + Z w
        out.append(sla.lstsq(RZ, base, cond=LS_RCOND, check_finite=False, lapack_driver="gelsy")[0])
    H = P.H
    HFF = H[np.ix_(free, free)]
    Hz = Z.T @ HFF @ Z
    rhs = -(Z.T @ (P.g[free] + HFF @ xp + H[np.ix_(free, fixed)] @ x[fixed]))
    try:
        factor = sla.cho_factor(Hz, check_finite=False)
        if _singular_factor(factor[0], Hz):
            raise np.linalg.LinAlgError("semidefinite to rounding")
        w = sla.cho_solve(factor, rhs, check_finite=False)
        out.append(w + sla.cho_solve(factor, rhs - Hz @ w, check_finite=False))
    except np.linalg.LinAlgError:
        if P.ls is None:
            # (on the Hessian itself nothing below the rounding of its entries, 8(k + 1)ε of the largest, is
            # a direction of curvature)
            w = sla.lstsq(Hz, rhs, cond=8.0 * (Hz.shape[0] + 1) * _EPS, check_finite=False)[0]
            if np.abs(Hz @ w - rhs).max() <= 1e-9 * (1.0 + np.abs(rhs).max()):
                out.append(w)  # (otherwise a descent direction without curvature: unbounded)
    return out


def _singular_factor(L: np.ndarray, Hz: np.ndarray) -> bool:
    """A Cholesky factor of Hz that only rounding kept positive: a pivot² at or below 8(k + 1)ε of the
    largest diagonal entry of Hz. Its solution has entries of the order 1/ε along the directions Hz leaves
    free, which carry no digit of the data: the least-squares minimisers take those directions instead."""
    k = Hz.shape[0]
    if not k:
        return False
    pivots = np.abs(np.diagonal(L))
    return bool(float(pivots.min()) ** 2 <= 8.0 * (k + 1) * _EPS * float(np.max(np.diagonal(Hz))))


def _multipliers(P: _Dense, x: np.ndarray, sb: np.ndarray,
                 sc: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """Least-squares multipliers (y, z, zb) of the active set (sb, sc) at x."""
    grad = P.H @ x + P.g
    act = np.flatnonzero(sc)
    fixed = sb != 0
    M = np.vstack([P.A, P.C[act]])
    y = np.zeros(P.A.shape[0])
    z = np.zeros(P.C.shape[0])
    if M.shape[0]:
        free = ~fixed
        nu, *_ = sla.lstsq(M[:, free].T, -grad[free], check_finite=False) if free.any() else (
            np.zeros(M.shape[0]),)  # fmt: skip
        y = nu[: P.A.shape[0]]
        z[act] = nu[P.A.shape[0] :]
    zb = np.zeros(P.n)
    zb[fixed] = -(grad + P.A.T @ y + P.C.T @ z)[fixed]
    return y, z, zb


def _start_sides(v: np.ndarray, lo: np.ndarray, hi: np.ndarray, mult: np.ndarray | None,
                 tol: float) -> np.ndarray:  # fmt: skip
    """Initial active sides: sides v is within ``tol`` of, and sides a significant multiplier names
    (|m| > 1e-7·(1 + ‖m‖∞); interior-point methods report tiny ones on every constraint)."""
    s = _near(v, lo, hi, tol)
    if mult is not None and mult.size:
        big = np.abs(mult) > 1e-7 * (1.0 + float(np.abs(mult).max()))
        s[big & (mult > 0.0) & np.isfinite(hi)] = 1
        s[big & (mult < 0.0) & np.isfinite(lo)] = -1
    return s


def refine(q: StdQP, x0: np.ndarray, tol: float, z0: np.ndarray | None = None,
           zb0: np.ndarray | None = None, max_steps: int | None = None,
           start_tol: float = 1e-6) -> Refined | None:  # fmt: skip
    """Exact optimum on the active set suggested by an answer, corrected by primal-dual active-set steps.

    The start set: constraints whose multiplier (``z0``, ``zb0``) names a side, and those within
    ``start_tol``·(1 + |bound|) of a side at ``x0``. Each step solves the equality-constrained QP of the
    active set (:func:`_eq_qp`), computes least-squares multipliers and stops when :func:`certify` accepts
    the point strictly. Otherwise it changes ONE constraint — the active one with the most wrong-signed
    multiplier is released, else the most violated inactive one is activated (bounded-variable least
    squares, Stark and Parker 1995) — until nothing is left to change, an active set repeats or
    ``max_steps`` (default 2·(n + m_in) + 4) steps are done; of the points certified only within rounding
    (``marginal``) on the way, the cheapest is returned.

    Returns:
        ``(x, y, z, z_box, certificate)`` of a certified optimum, or None.
    """
    P = _Dense(q)
    sb = _start_sides(x0, P.lb, P.ub, zb0, start_tol)
    cx0 = P.C @ x0 if P.C.shape[0] else np.zeros(0)
    sc = _start_sides(cx0, P.lbC, P.ubC, z0, start_tol) if P.C.shape[0] else np.zeros(0, dtype=np.int8)
    steps = 2 * (P.n + P.C.shape[0]) + 4 if max_steps is None else max_steps
    seen: set[bytes] = set()
    best: list[tuple[float, Refined]] = []  # [(cost, result)] of the cheapest marginal point
    for _ in range(steps):
        key = sb.tobytes() + sc.tobytes()
        if key in seen:
            break
        seen.add(key)
        candidates = _active_set_solutions(P, sb, sc)
        if not candidates:  # an inconsistent (or unbounded) active set: start again from fewer constraints
            if not (sc.any() or sb.any()):
                break
            (sc if sc.any() else sb)[:] = 0
            continue
        done = _certified_candidate(q, P, candidates, sb, sc, tol, best)
        if done is not None:
            return done
        x = candidates[0]
        _y, z, zb = _multipliers(P, x, sb, sc)
        if not _update_active_set(P, x, z, zb, sb, sc, tol, seen):
            break
    return best[0][1] if best else None


def _active_set_solutions(P: _Dense, sb: np.ndarray, sc: np.ndarray) -> list[np.ndarray]:
    """Minimisers of the cost with the active set (sb, sc) held as equalities (:func:`_eq_qp`)."""
    fixed = sb != 0
    xB = np.where(sb < 0, P.lb, P.ub)[fixed]
    act = sc != 0
    M = np.vstack([P.A, P.C[act]])
    rhs = np.concatenate([P.b, np.where(sc < 0, P.lbC, P.ubC)[act]])
    return _eq_qp(P, fixed, xB, M, rhs)


def _certified_candidate(q: StdQP, P: _Dense, candidates: list[np.ndarray], sb: np.ndarray, sc: np.ndarray,
                         tol: float, best: list[tuple[float, Refined]]) -> Refined | None:  # fmt: skip
    """A candidate certified strictly with the right signs, or None; the cheapest marginal one is kept
    in ``best`` (a list of one (cost, result) pair, or empty)."""
    for x in candidates:
        y, z, zb = _multipliers(P, x, sb, sc)
        cert = certify(q, x, y if q.meq else None, z if q.mc else None, zb if q.has_bounds else None, tol)
        if cert.ok and not cert.marginal and not _wrong_signs(sb, sc, z, zb, cert.dual_scale):
            return x, y, z, zb, cert
        if cert.ok:  # marginal or a sign wrong within tolerance: keep the cheapest, go on
            cost = _cost(P, x)
            if not best or cost < best[0][0]:
                best[:] = [(cost, (x, y, z, zb, cert))]
    return None


def _cost(P: _Dense, x: np.ndarray) -> float:
    """The cost at x, from the least-squares form when there is one (accurate where H is not)."""
    if P.ls is not None:
        R, d = P.ls
        e = R @ x - d
        return 0.5 * float(e @ e) - 0.5 * float(d @ d)
    return 0.5 * float(x @ (P.H @ x)) + float(P.g @ x)


def cost(q: StdQP, x: np.ndarray) -> float:
    """½ xᵀHx + gᵀx, evaluated in least-squares form when ``q`` has one (rows that are met contribute
    their tiny residuals squared: accurate where the Hessian's rounding is not)."""
    return _cost(_Dense(q), x)


def _wrong_signs(sb: np.ndarray, sc: np.ndarray, z: np.ndarray, zb: np.ndarray, dual_scale: float) -> bool:
    """An active constraint whose multiplier names the other side beyond rounding (1e-12 of the scale):
    the point may still be certified within tolerance, but it is not the exact optimum of a convex QP
    with a regularised curvature as small as λ, whose directions such a multiplier moves."""
    thr = 1e-12 * dual_scale
    wb = np.where(sb < 0, zb, np.where(sb > 0, -zb, 0.0))
    if float(np.max(wb, initial=0.0)) > thr:
        return True
    return bool(sc.size) and float(np.max(np.where(sc < 0, z, np.where(sc > 0, -z, 0.0)), initial=0.0)) > thr


def _update_active_set(P: _Dense, x: np.ndarray, z: np.ndarray, zb: np.ndarray, sb: np.ndarray,
                       sc: np.ndarray, tol: float, seen: set[bytes] | None = None) -> bool:  # fmt: skip
    """One change of the active set: release the active constraint with the most wrong-signed multiplier,
    else activate the most violated inactive one. False when there is nothing to change.

    A release that leads back to an active set already tried (``seen``) is not made: at a degenerate
    vertex of an ill-conditioned level, a multiplier's sign can be rounding (1e-15 against a scale of 1),
    and releasing it would cycle between two sets; the most violated constraint is activated instead."""
    wb = np.where(sb < 0, zb, np.where(sb > 0, -zb, 0.0))  # > 0: wrong sign
    wc = np.where(sc < 0, z, np.where(sc > 0, -z, 0.0)) if sc.size else np.zeros(0)
    worst_b, worst_c = float(np.max(wb, initial=0.0)), float(np.max(wc, initial=0.0))
    if max(worst_b, worst_c) > 0.0:
        side, k = (sb, int(np.argmax(wb))) if worst_b >= worst_c else (sc, int(np.argmax(wc)))
        was = side[k]
        side[k] = 0
        if seen is None or sb.tobytes() + sc.tobytes() not in seen:
            return True
        side[k] = was
    with np.errstate(invalid="ignore"):
        vb = np.where(sb == 0, np.maximum(P.lb - x, x - P.ub) / (1.0 + np.abs(x)), 0.0)
        vc = np.zeros(0)
        if P.C.shape[0]:
            cx = P.C @ x
            vc = np.where(sc == 0, np.maximum(P.lbC - cx, cx - P.ubC) / (1.0 + np.abs(P.C) @ np.abs(x)), 0.0)
    worst_b, worst_c = float(np.max(vb, initial=0.0)), float(np.max(vc, initial=0.0))
    if max(worst_b, worst_c) <= tol:
        return False
    if worst_b >= worst_c:
        j = int(np.argmax(vb))
        sb[j] = -1 if x[j] < P.lb[j] else 1
    else:
        i = int(np.argmax(vc))
        sc[i] = -1 if cx[i] < P.lbC[i] else 1
    return True
