"""One level of a hierarchy as a standard QP in the free directions w of x = x̄ + Z w.

With the level's weighted rows (A, y), its regularisation r, the affine set of
:class:`~wbcpy.qp.nullspace.NullSpace` and the inequality rows of this level and the levels above:

    minimise    ½ wᵀ (ZᵀAᵀAZ + Zᵀ diag(r) Z) w + ((A x̄ − y)ᵀ A Z + (r∘x̄)ᵀ Z) w
    subject to  lbC − C x̄ ≤ C Z w ≤ ubC − C x̄,     lb − x̄ ≤ Z w ≤ ub − x̄

(with Z = I and x̄ = 0 this is the level as given). Bounds stay plain bounds while Z = I and become rows
of Z otherwise; rows that vanish after the projection (a variable or a constraint fixed by the levels
above) are dropped after checking that x̄ satisfies them. The least-squares form of the cost
(R = [AZ; √r∘Z], d = [y − A x̄; −√r∘x̄]) is attached for :func:`wbcpy.qp.kkt.refine`.
"""

from __future__ import annotations

import numpy as np

from .kkt import StdQP
from .nullspace import NullSpace

__all__ = ["ConstraintStack", "InfeasibleConstantError", "LevelQP", "build_level"]

_ZERO_ROW = 1e-9  # rows of C Z (or Z) with a norm below this are constant on the free directions
_FEAS_TOL = 1e-9  # feasibility tolerance of such constant rows (relative to 1 + |side|)


class ConstraintStack:
    """Inequality rows lbC ≤ C x ≤ ubC of the levels met so far (free-variable columns)."""

    __slots__ = ("C", "hi", "lo")

    def __init__(self) -> None:
        self.C: np.ndarray | None = None
        self.lo: np.ndarray | None = None
        self.hi: np.ndarray | None = None

    def add(self, C: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> None:
        """Append rows (they hold at this level and every lower one)."""
        if self.C is None:
            self.C, self.lo, self.hi = C, lo, hi
        else:
            self.C = np.vstack((self.C, C))
            self.lo = np.concatenate((self.lo, lo))
            self.hi = np.concatenate((self.hi, hi))


class InfeasibleConstantError(Exception):
    """A constraint fixed by the levels above is violated at x̄ (the level is infeasible)."""


class LevelQP:
    """A built level: the StdQP in w and where its inequality rows come from.

    Attributes:
        q: the QP in w.
        c_rows: indices (into the constraint stack) of the stack rows kept in ``q.C`` (first rows).
        b_rows: free-variable indices of the bounds kept as rows of ``q.C`` (after the stack rows), or
            None when the bounds are plain bounds of ``q``.
    """

    __slots__ = ("b_rows", "c_rows", "q")

    def __init__(self, q: StdQP, c_rows: np.ndarray | None, b_rows: np.ndarray | None) -> None:
        self.q, self.c_rows, self.b_rows = q, c_rows, b_rows


def _hessian(AZ: np.ndarray, r: np.ndarray, Z: np.ndarray | None) -> np.ndarray:
    H = AZ.T @ AZ
    if Z is None:
        diag = H.reshape(-1)[:: H.shape[0] + 1]
        diag += r
    elif r.size and (r == r[0]).all():  # ZᵀZ = I
        H.flat[:: H.shape[0] + 1] += r[0]
    else:
        H += (Z.T * r) @ Z
    return H


def _kept_rows(M: np.ndarray, v: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Rows of M (projected constraint rows) that are not constant; raises InfeasibleConstantError when a
    constant row's value v lies outside [lo, hi]."""
    norms = np.sqrt(np.square(M).sum(axis=1))
    const = norms <= _ZERO_ROW
    if not const.any():
        return np.arange(M.shape[0])
    vc, lc, hc = v[const], lo[const], hi[const]
    with np.errstate(invalid="ignore"):
        low = vc < lc - _FEAS_TOL * (1.0 + np.abs(np.where(np.isfinite(lc), lc, 0.0)))
        high = vc > hc + _FEAS_TOL * (1.0 + np.abs(np.where(np.isfinite(hc), hc, 0.0)))
    if low.any() or high.any():
        raise InfeasibleConstantError()
    return np.flatnonzero(~const)


def _rows(ns: NullSpace, stack: ConstraintStack, lb, ub):
    """The inequality rows of the level in w: (C, lbC, ubC, c_rows, b_rows) or Nones."""
    Z, xbar = ns.Z, ns.xbar
    blocks, los, his = [], [], []
    c_rows = b_rows = None
    if stack.C is not None:
        CZ = ns.project(stack.C)
        cx = stack.C @ xbar if xbar is not None else np.zeros(stack.C.shape[0])
        c_rows = _kept_rows(CZ, cx, stack.lo, stack.hi) if Z is not None else np.arange(CZ.shape[0])
        blocks.append(CZ[c_rows])
        los.append(stack.lo[c_rows] - cx[c_rows])
        his.append(stack.hi[c_rows] - cx[c_rows])
    if Z is not None and (lb is not None or ub is not None):
        nf = Z.shape[0]
        lo = lb if lb is not None else np.full(nf, -np.inf)
        hi = ub if ub is not None else np.full(nf, np.inf)
        bounded = np.flatnonzero(np.isfinite(lo) | np.isfinite(hi))
        xb = xbar[bounded] if xbar is not None else np.zeros(bounded.size)
        keep = _kept_rows(Z[bounded], xb, lo[bounded], hi[bounded])
        b_rows = bounded[keep]
        blocks.append(Z[b_rows])
        los.append(lo[b_rows] - xb[keep])
        his.append(hi[b_rows] - xb[keep])
    if not blocks or sum(b.shape[0] for b in blocks) == 0:
        return None, None, None, c_rows, b_rows
    if len(blocks) == 1:
        return blocks[0], los[0], his[0], c_rows, b_rows
    return np.vstack(blocks), np.concatenate(los), np.concatenate(his), c_rows, b_rows


def build_level(A: np.ndarray, y: np.ndarray, r: np.ndarray, ns: NullSpace, stack: ConstraintStack,
                lb: np.ndarray | None, ub: np.ndarray | None) -> LevelQP:  # fmt: skip
    """The level's QP in w (see the module docstring); A, y, r, lb, ub over the free variables.

    Raises:
        InfeasibleConstantError: a constraint or bound that the levels above fixed is violated.
    """
    Z, xbar = ns.Z, ns.xbar
    AZ = A if Z is None else A @ Z
    H = _hessian(AZ, r, Z)
    if xbar is None:
        e = -y
        g = e @ AZ
    else:
        e = A @ xbar - y
        g = e @ AZ
        g += r * xbar if Z is None else (r * xbar) @ Z
    C, lbC, ubC, c_rows, b_rows = _rows(ns, stack, lb, ub)
    blb = bub = None
    if Z is None:
        blb = lb if (lb is None or xbar is None) else lb - xbar
        bub = ub if (ub is None or xbar is None) else ub - xbar
    ls = _LeastSquares(AZ, e, r, Z, xbar, A, y)
    q = StdQP(H, g, None, None, C, lbC, ubC, blb, bub, False, ls, ls.magnitude)
    return LevelQP(q, c_rows, b_rows)


class _LeastSquares:
    """Lazy least-squares form (R, d) of a level's cost and the magnitudes its g was formed from, built
    only when :func:`~wbcpy.qp.kkt.refine` or the certificate's rounding allowance needs them."""

    __slots__ = ("A", "AZ", "Z", "e", "r", "xbar", "y")

    def __init__(self, AZ, e, r, Z, xbar, A, y) -> None:
        self.AZ, self.e, self.r, self.Z, self.xbar, self.A, self.y = AZ, e, r, Z, xbar, A, y

    def rows(self) -> tuple[np.ndarray, np.ndarray]:
        """(R, d) with ½‖R w − d‖² = the level's cost in w up to a constant (H = RᵀR, g = −Rᵀd)."""
        s = np.sqrt(self.r)
        Zr = np.diag(s) if self.Z is None else s[:, None] * self.Z
        R = np.vstack((self.AZ, Zr))
        dr = np.zeros(s.shape[0]) if self.xbar is None else -s * self.xbar
        return R, np.concatenate((-self.e, dr))

    def gradient(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(H w + g, its scale) computed in least-squares form: with e = AZ w + (A x̄ − y) and
        u = r∘(Z w + x̄), H w + g = (AZ)ᵀe + Zᵀu and the scale is |AZ|ᵀ|e| + |Z|ᵀ|u|."""
        Z = self.Z
        e = self.AZ @ w
        e += self.e
        x = w if Z is None else Z @ w
        if self.xbar is not None:
            x = x + self.xbar
        u = self.r * x
        t = e @ self.AZ
        scale = np.abs(e) @ np.abs(self.AZ)
        if Z is None:
            t += u
            scale += np.abs(u)
        else:
            t += u @ Z
            scale += np.abs(u) @ np.abs(Z)
        return t, scale

    def magnitude(self, w: np.ndarray) -> np.ndarray:
        """Size of the terms H w + g is formed from, before any cancellation.

        Without a projection (Z = I): |A|ᵀ(|A||w| + |A||x̄| + |y|) + r∘(|w| + |x̄|), entry by entry. With
        one, the entries of AZ are only known up to rounding relative to ‖A_k‖ (Z has unit columns whose
        tiny entries are noise), so each entry is bounded by the row norms:
        Σ_k ‖A_k‖(‖A_k‖‖w‖₁ + |A_k||x̄| + |y_k|) + Σ_i r_i(‖w‖₁ + |x̄_i|), the same for every entry.
        """
        aw = np.abs(w)
        absA = np.abs(self.A)
        xb = None if self.xbar is None else np.abs(self.xbar)
        if self.Z is None:
            inner = absA @ aw + np.abs(self.y)
            if xb is not None:
                inner += absA @ xb
            out = inner @ absA
            out += self.r * (aw if xb is None else aw + xb)
            return out
        w1 = float(aw.sum())
        rows = np.sqrt(np.square(self.A).sum(axis=1))
        inner = rows * w1 + np.abs(self.y)
        if xb is not None:
            inner += absA @ xb
        total = float(rows @ inner) + float(self.r.sum()) * w1
        if xb is not None:
            total += float(self.r @ xb)
        return np.full(w.shape[0], total)
