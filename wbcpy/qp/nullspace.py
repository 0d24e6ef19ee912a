"""The affine set a hierarchy level is solved on: x = x̄ + Z w.

:class:`NullSpace` keeps a point x̄ that satisfies every equality met so far (equality constraints of the
levels and the optimality of the higher levels' rows, A_h x = A_h x*_h) and an orthonormal basis Z of the
directions still free. Each new set of rows S shrinks it by one rank-revealing, column-pivoted Householder
QR of (S Z)ᵀ (written out in C for small matrices, LAPACK ``dgeqp3``/``dormqr`` for larger ones): the
leading columns of Q span the directions S fixes, the trailing ones the directions left, so Z ← Z Q₂ stays
orthonormal and is built from the previous Z (a level never refactorises what the levels above it already
reduced). The factorisation, the move of x̄ and the
new basis are one compiled call (:func:`wbcpy._kernels.nullspace_update`).

Rank decisions are made on rows normalised to unit length *before* the projection: a direction counts as
new when its singular-value estimate |R_kk| exceeds ``rank_tol`` (default 1e-9). Task weights therefore
do not influence the rank, and a row that is (numerically) a combination of higher rows is dropped: it
changes the higher rows' normalised residual by about ``rank_tol``·‖Δx‖ at most.
"""

from __future__ import annotations

import numpy as np

from .._kernels import matmul as _matmul
from .._kernels import nullspace_update as _nullspace_update


class InconsistentEqualitiesError(Exception):
    """Equality rows that no x of the current affine set satisfies (the residual is attached)."""

    def __init__(self, residual: float) -> None:
        super().__init__(f"inconsistent equality constraints (residual {residual:.3g})")
        self.residual = residual


class NullSpace:
    """x = x̄ + Z w over n variables (Z None = identity, x̄ None = 0).

    Attributes:
        n: number of variables.
        xbar: the current point (None until something moved it: 0).
        Z: orthonormal basis (n × k) of the free directions, None while nothing is fixed (k = n).
        n_eq: number of directions fixed so far (n − k).
    """

    __slots__ = ("Z", "blocks", "n", "n_eq", "rank_tol", "xbar")

    def __init__(self, n: int, rank_tol: float = 1e-9) -> None:
        self.n = n
        self.xbar: np.ndarray | None = None
        self.Z: np.ndarray | None = None
        self.n_eq = 0
        self.rank_tol = rank_tol
        #: the row blocks imposed so far (x̄ satisfies each: S x = S x̄), for :mod:`wbcpy.qp.pinning`
        self.blocks: list[np.ndarray] = []

    @property
    def k(self) -> int:
        """Number of free directions."""
        return self.n - self.n_eq

    def point(self) -> np.ndarray:
        """x̄ as an array (zeros when nothing moved it)."""
        return np.zeros(self.n) if self.xbar is None else self.xbar

    def project(self, S: np.ndarray) -> np.ndarray:
        """S Z (rows restricted to the free directions; one compiled product that skips S's zeros)."""
        return S if self.Z is None else _matmul(S, self.Z)

    def lift(self, w: np.ndarray) -> np.ndarray:
        """x̄ + Z w as a new array."""
        x = w.copy() if self.Z is None else self.Z @ w
        if self.xbar is not None:
            x += self.xbar
        return x

    def add_rows(self, S: np.ndarray) -> None:
        """Fix the directions of rows S that x̄ already satisfies (higher-level optimality, active sets)."""
        if self.k == 0 or S.shape[0] == 0:
            return
        self.Z, _, rank, _ = _nullspace_update(S, None, self.Z, self.xbar, self.rank_tol)
        self.n_eq += rank
        self.blocks.append(S)

    def add_equalities(self, E: np.ndarray, f: np.ndarray) -> None:
        """Impose E x = f: move x̄ onto it (least change within the free directions) and shrink Z.

        Raises:
            InconsistentEqualitiesError: no point of the current affine set satisfies E x = f.
        """
        if E.shape[0] == 0:
            return
        Z, xbar, rank, residual = _nullspace_update(E, f, self.Z, self.xbar, self.rank_tol)
        if residual > 0.0:
            raise InconsistentEqualitiesError(residual)
        self.Z, self.xbar = Z, xbar
        self.n_eq += rank
        self.blocks.append(E)
