"""The affine set a hierarchy level is solved on: x = x̄ + Z w.

:class:`NullSpace` keeps a point x̄ that satisfies every equality met so far (equality constraints of the
levels and the optimality of the higher levels' rows, A_h x = A_h x*_h) and an orthonormal basis Z of the
directions still free. Each new set of rows S shrinks it by one rank-revealing, column-pivoted Householder
QR of (S Z)ᵀ (LAPACK ``dgeqp3``/``dorgqr``): the leading columns of Q span the directions S fixes, the
trailing ones the directions left, so Z ← Z Q₂ stays orthonormal and is built from the previous Z (a level
never refactorises what the levels above it already reduced).

Rank decisions are made on rows normalised to unit length *before* the projection: a direction counts as
new when its singular-value estimate |R_kk| exceeds ``rank_tol`` (default 1e-9). Task weights therefore
do not influence the rank, and a row that is (numerically) a combination of higher rows is dropped: it
changes the higher rows' normalised residual by about ``rank_tol``·‖Δx‖ at most.
"""

from __future__ import annotations

from typing import overload

import numpy as np
import scipy.linalg as sla
from scipy.linalg import lapack

__all__ = ["InconsistentEqualitiesError", "NullSpace"]

_geqp3, _orgqr = lapack.dgeqp3, lapack.dorgqr


class InconsistentEqualitiesError(Exception):
    """Equality rows that no x of the current affine set satisfies (the residual is attached)."""

    def __init__(self, residual: float) -> None:
        super().__init__(f"inconsistent equality constraints (residual {residual:.3g})")
        self.residual = residual


@overload
def _normalised(S: np.ndarray, f: np.ndarray) -> tuple[np.ndarray, np.ndarray]: ...
@overload
def _normalised(S: np.ndarray, f: None = None) -> tuple[np.ndarray, None]: ...
def _normalised(S: np.ndarray, f: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """Rows of S scaled to unit norm (numerical zero rows dropped), with f scaled alike."""
    norms = np.sqrt(np.square(S).sum(axis=1))
    big = norms > 1e-12 * max(1.0, float(norms.max(initial=0.0)))
    if not big.all():
        if f is not None and not big.any() and np.abs(f).max(initial=0.0) > 0.0:
            raise InconsistentEqualitiesError(float(np.abs(f).max()))
        S, norms = S[big], norms[big]
        f = None if f is None else f[big]
    S = S / norms[:, None]
    return S, (None if f is None else f / norms)


def _pivoted_qr(
    M: np.ndarray, rank_tol: float, need_r: bool
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray, int] | None:
    """Column-pivoted QR of M (k × m): (Q (k × k), R (upper triangle valid; None unless ``need_r``), piv,
    rank); None when LAPACK fails."""
    k, m = M.shape
    qr, piv, tau, _work, info = _geqp3(np.asfortranarray(M), overwrite_a=1)
    if info != 0:  # pragma: no cover - LAPACK failure
        return None
    d = np.abs(qr.diagonal())
    rank = int(np.count_nonzero(d > rank_tol)) if d.size else 0
    R = qr[: min(k, m)].copy() if need_r else None  # (dorgqr below overwrites qr)
    if m >= k:
        full = qr[:, :k]
    else:
        full = np.zeros((k, k), order="F")
        full[:, :m] = qr
    Q, _work, info = _orgqr(full, tau, overwrite_a=1)
    if info != 0:  # pragma: no cover
        return None
    return Q, R, piv - 1, rank


class NullSpace:
    """x = x̄ + Z w over n variables (Z None = identity, x̄ None = 0).

    Attributes:
        n: number of variables.
        xbar: the current point (None until something moved it: 0).
        Z: orthonormal basis (n × k) of the free directions, None while nothing is fixed (k = n).
        n_eq: number of directions fixed so far (n − k).
    """

    __slots__ = ("Z", "n", "n_eq", "rank_tol", "xbar")

    def __init__(self, n: int, rank_tol: float = 1e-9) -> None:
        self.n = n
        self.xbar: np.ndarray | None = None
        self.Z: np.ndarray | None = None
        self.n_eq = 0
        self.rank_tol = rank_tol

    @property
    def k(self) -> int:
        """Number of free directions."""
        return self.n - self.n_eq

    def point(self) -> np.ndarray:
        """x̄ as an array (zeros when nothing moved it)."""
        return np.zeros(self.n) if self.xbar is None else self.xbar

    def project(self, S: np.ndarray) -> np.ndarray:
        """S Z (rows restricted to the free directions)."""
        return S if self.Z is None else S @ self.Z

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
        S, _ = _normalised(S)
        if S.shape[0]:
            self._shrink(self.project(S).T, None, None)

    def add_equalities(self, E: np.ndarray, f: np.ndarray) -> None:
        """Impose E x = f: move x̄ onto it (least change within the free directions) and shrink Z.

        Raises:
            InconsistentEqualitiesError: no point of the current affine set satisfies E x = f.
        """
        E, f = _normalised(E, f)
        if E.shape[0] == 0:
            return
        e = f - E @ self.xbar if self.xbar is not None else f.copy()
        if self.k == 0:
            if np.abs(e).max() > 1e-9 * (1.0 + np.abs(f).max()):
                raise InconsistentEqualitiesError(float(np.abs(e).max()))
            return
        self._shrink(self.project(E).T, e, f)

    def _shrink(self, M: np.ndarray, e: np.ndarray | None, f: np.ndarray | None) -> None:
        """Split the free directions by the columns of M (k × m); move x̄ when e (target rows) is given."""
        res = _pivoted_qr(M, self.rank_tol, e is not None)
        if res is None:  # pragma: no cover - LAPACK failure
            raise InconsistentEqualitiesError(float("nan"))
        Q, R, piv, rank = res
        if e is not None and f is not None and R is not None:
            self._move(Q, R, piv, rank, e, f)
        if rank:
            Q2 = Q[:, rank:]
            self.Z = Q2 if self.Z is None else self.Z @ Q2
            self.n_eq += rank

    def _move(self, Q: np.ndarray, R: np.ndarray, piv: np.ndarray, rank: int, e: np.ndarray,
              f: np.ndarray) -> None:  # fmt: skip
        """Move x̄ by the least change within the free directions that meets the target rows (residuals
        e of rows with targets f, factorised as (S Z)ᵀ P = Q R); raise when they are inconsistent."""
        ep = e[piv]
        if rank:
            # (solve_triangular reads the upper triangle only)
            u = sla.solve_triangular(R[:rank, :rank], ep[:rank], trans="T", check_finite=False)
            rest = R[:rank, rank:].T @ u - ep[rank:]
            step = Q[:, :rank] @ u
            step = step if self.Z is None else self.Z @ step
            self.xbar = step if self.xbar is None else self.xbar + step
        else:
            rest = -ep
        if rest.size and np.abs(rest).max() > 1e-9 * (1.0 + np.abs(f).max()):
            raise InconsistentEqualitiesError(float(np.abs(rest).max()))
