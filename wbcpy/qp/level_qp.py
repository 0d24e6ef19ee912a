"""One level of a hierarchy as a standard QP in the free directions w of x = x̄ + Z w.

With the level's weighted rows (A, y), its regularisation r, the affine set of
:class:`~wbcpy.qp.nullspace.NullSpace` and the inequality rows of this level and the levels above:

    minimise    ½ wᵀ (ZᵀAᵀAZ + Zᵀ diag(r) Z) w + ((A x̄ − y)ᵀ A Z + (r∘x̄)ᵀ Z) w
    subject to  lbC − C x̄ ≤ C Z w ≤ ubC − C x̄,     lb − x̄ ≤ Z w ≤ ub − x̄

(with Z = I and x̄ = 0 this is the level as given). Bounds stay plain bounds while Z = I and become rows
of Z otherwise; rows that vanish after the projection (a variable or a constraint fixed by the levels
above) are dropped after checking that x̄ satisfies them. The least-squares form of the cost
(R = [AZ; √r∘Z], d = [y − A x̄; −√r∘x̄]) is attached for :func:`wbcpy.qp.refine.refine`.
"""

from __future__ import annotations

import numpy as np

from .._kernels import box_certificate as _box_certificate
from .._kernels import kept_rows as _kept_rows
from .._kernels import level_equations as _level_equations
from .._kernels import ls_gradient as _ls_gradient
from .._kernels import matmul as _matmul
from .._kernels import rows_certificate as _rows_certificate
from .kkt import StdQP
from .nullspace import NullSpace


class ConstraintStack:
    """Inequality rows lbC ≤ C x ≤ ubC of the levels met so far (free-variable columns).

    Attributes:
        rows: ``(C, lbC, ubC)``, or None while no level had inequality rows.
    """

    __slots__ = ("rows",)

    def __init__(self) -> None:
        self.rows: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def add(self, C: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> None:
        """Append rows (they hold at this level and every lower one)."""
        if self.rows is None:
            self.rows = (C, lo, hi)
        else:
            C0, lo0, hi0 = self.rows
            self.rows = (np.vstack((C0, C)), np.concatenate((lo0, lo)), np.concatenate((hi0, hi)))


class InfeasibleConstantError(Exception):
    """A constraint fixed by the levels above is violated at x̄ (the level is infeasible)."""


class LevelQP:
    """A built level: the StdQP in w and where its inequality rows come from.

    Attributes:
        q: the QP in w (None for a level the backend's compiled path solved without building it).
        c_rows: indices (into the constraint stack) of the stack rows kept in ``q.C`` (first rows).
        b_rows: free-variable indices of the bounds kept as rows of ``q.C`` (after the stack rows), or
            None when the bounds are plain bounds of ``q``.
        lb, ub: the plain bounds of ``q`` (in w; None: no plain bound on that side).
    """

    __slots__ = ("b_rows", "c_rows", "lb", "q", "ub")

    def __init__(self, q: StdQP | None, c_rows: np.ndarray | None, b_rows: np.ndarray | None,
                 lb: np.ndarray | None = None, ub: np.ndarray | None = None) -> None:  # fmt: skip
        self.q, self.c_rows, self.b_rows, self.lb, self.ub = q, c_rows, b_rows, lb, ub


#: inequality rows of a level in w: (C, lbC, ubC) blocks, and the indices they come from
_Block = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _kept(M: np.ndarray, v: np.ndarray | None, lo: np.ndarray, hi: np.ndarray, constant: bool) -> _Block:
    """Rows lo ≤ M w + v ≤ hi that bound something (and, with ``constant``, that are not constant on
    the free directions: a norm above 1e-9): (M_kept, lo − v, hi − v, their indices), one compiled pass.

    Raises:
        InfeasibleConstantError: a constant row's value v lies outside [lo, hi] (tolerance 1e-9 relative
            to 1 + |side|).
    """
    kept = _kept_rows(M, v, lo, hi, constant)
    if kept is None:
        raise InfeasibleConstantError()
    return kept


def _stack_block(ns: NullSpace, stack: ConstraintStack) -> _Block | None:
    """The constraint stack's rows in w, constant rows dropped: (C Z, lbC − C x̄, ubC − C x̄, c_rows)."""
    if stack.rows is None:
        return None
    C, lo, hi = stack.rows
    # (C x̄ by the compiled product, as the compiled level path forms it: the same rounding)
    return _kept(ns.project(C), None if ns.xbar is None else _matmul(C, ns.xbar[:, None])[:, 0], lo, hi, True)


def _bound_block(ns: NullSpace, lb: np.ndarray | None, ub: np.ndarray | None) -> _Block | None:
    """The bounds as rows of Z (only when Z ≠ I), constant rows dropped: (Z_B, lb − x̄, ub − x̄, b_rows)."""
    Z = ns.Z
    if Z is None or (lb is None and ub is None):
        return None
    nf = Z.shape[0]
    lo = lb if lb is not None else np.full(nf, -np.inf)
    hi = ub if ub is not None else np.full(nf, np.inf)
    return _kept(Z, ns.xbar, lo, hi, True)


def _rows(ns: NullSpace, stack: ConstraintStack, lb: np.ndarray | None, ub: np.ndarray | None) -> tuple[
    np.ndarray | None, np.ndarray | None, np.ndarray | None, np.ndarray | None, np.ndarray | None
]:  # fmt: skip
    """The inequality rows of the level in w: (C, lbC, ubC, c_rows, b_rows), C and its sides None when
    no row is left."""
    cb, bb = _stack_block(ns, stack), _bound_block(ns, lb, ub)
    c_rows = None if cb is None else cb[3]
    b_rows = None if bb is None else bb[3]
    blocks = [blk for blk in (cb, bb) if blk is not None and blk[0].shape[0]]
    if not blocks:
        return None, None, None, c_rows, b_rows
    if len(blocks) == 1:
        C, lo, hi, _ = blocks[0]
        return C, lo, hi, c_rows, b_rows
    return (np.vstack([blk[0] for blk in blocks]), np.concatenate([blk[1] for blk in blocks]),
            np.concatenate([blk[2] for blk in blocks]), c_rows, b_rows)  # fmt: skip


def plain_bounds(lb: np.ndarray | None, ub: np.ndarray | None,
                 xbar: np.ndarray | None) -> tuple[np.ndarray | None, np.ndarray | None]:  # fmt: skip
    """The bounds of a level without a null space in w = x − x̄: (lb − x̄, ub − x̄), None sides kept."""
    if xbar is None:
        return lb, ub
    return (None if lb is None else lb - xbar), (None if ub is None else ub - xbar)


def build_level(A: np.ndarray, y: np.ndarray, r: np.ndarray, ns: NullSpace, stack: ConstraintStack,
                lb: np.ndarray | None, ub: np.ndarray | None) -> LevelQP:  # fmt: skip
    """The level's QP in w (see the module docstring); A, y, r, lb, ub over the free variables.

    Raises:
        InfeasibleConstantError: a constraint or bound that the levels above fixed is violated.
    """
    Z, xbar = ns.Z, ns.xbar
    AZ, e, H, g = _level_equations(A, y, r, Z, xbar)  # (AZ, A x̄ − y, H, g in w: one compiled pass)
    if Z is None and stack.rows is None:  # (bounds only: the plain level of a scene)
        C = lbC = ubC = c_rows = b_rows = None
    else:
        C, lbC, ubC, c_rows, b_rows = _rows(ns, stack, lb, ub)
    blb, bub = plain_bounds(lb, ub, xbar) if Z is None else (None, None)
    ls = _LeastSquares(AZ, e, r, Z, xbar, A, y)
    q = StdQP(H, g, None, None, C, lbC, ubC, blb, bub, False, ls, ls.magnitude)
    return LevelQP(q, c_rows, b_rows, blb, bub)


class _LeastSquares:
    """Lazy least-squares form (R, d) of a level's cost and the magnitudes its g was formed from, built
    only when :func:`~wbcpy.qp.refine.refine` or the certificate's rounding allowance needs them."""

    __slots__ = ("A", "AZ", "Z", "e", "r", "xbar", "y")

    def __init__(self, AZ: np.ndarray, e: np.ndarray, r: np.ndarray, Z: np.ndarray | None,
                 xbar: np.ndarray | None, A: np.ndarray, y: np.ndarray) -> None:  # fmt: skip
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
        u = r∘(Z w + x̄), H w + g = (AZ)ᵀe + Zᵀu and the scale is |AZ|ᵀ|e| + |Z|ᵀ|u| (one compiled
        pass)."""
        return _ls_gradient(self.AZ, self.e, self.r, self.Z, self.xbar, w)

    def box_certificate(self, w: np.ndarray, lb: np.ndarray | None, ub: np.ndarray | None,
                        z_box: np.ndarray | None) -> tuple[float, float, np.ndarray, np.ndarray]:  # fmt: skip
        """The box certificate's residual, max scale and :meth:`gradient` (one compiled pass)."""
        return _box_certificate(self.AZ, self.e, self.r, self.Z, self.xbar, w, lb, ub, z_box)

    def rows_certificate(self, w: np.ndarray, C: np.ndarray, lo: np.ndarray, hi: np.ndarray, z: np.ndarray,
                         c: float) -> tuple[float, float, float, np.ndarray, np.ndarray]:  # fmt: skip
        """The rows certificate's stationarity error, residual, max scale and gradient (one pass)."""
        return _rows_certificate(self.AZ, self.e, self.r, self.Z, self.xbar, w, C, lo, hi, z, c)

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
            out: np.ndarray = inner @ absA
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
