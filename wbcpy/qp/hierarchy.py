"""Lexicographic (strict-priority) solution of a :class:`~wbcpy.qp.problem.HierarchicalQP`.

Level p solves

    minimise    ‖A_p x − y_p‖² + Σ_j r_j x_j²          (as a QP: H = A_pᵀA_p + diag r, g = −A_pᵀ y_p)
    subject to  N_p x = N_p x̄,   lb ≤ x ≤ ub,

where x̄ is the optimum of the previous solved level (clipped to the bounds) and the rows of N_p are an
orthonormal basis of the row space of [A_0; …; A_{p−1}]. Because x̄ satisfies all higher constraints
(exactly: it solved them), ``N_p x = N_p x̄`` is the same set as ``A_h x = A_h x*_h`` for every higher h,
every level is feasible, and level 0 is never degraded.

Row reduction: each level's rows are normalised (rows with norm ≤ 1e-12·max(1, largest norm) are
dropped: they carry no direction), stacked under the current basis, and reduced by a column-pivoted
QR (rank-revealing; about 3× cheaper than an SVD at humanoid size); a direction is kept when its
estimated singular value |R_kk| exceeds ``rank_tol``·|R_11| (default 1e-9). A direction below that
threshold changes the higher tasks' (normalised) residual by about ``rank_tol``·‖Δx‖ or less and is
left to the lower levels.

Elimination: the same QR gives an orthonormal basis Z of the null space of N_p, and the backend solves
for w in x = x̄ + Z w (k = n − rank variables, no equality constraint):

    minimise    ½ wᵀ (ZᵀHZ) w + (Zᵀ(H x̄ + g))ᵀ w
    subject to  lb − x̄ ≤ Z w ≤ ub − x̄        (rows of Z with norm ≤ 1e-9 dropped: x_j is fixed by
                                              higher levels, and x̄_j already satisfies its bounds;
                                              rows of unbounded variables dropped too)

This is equivalent to the equality-constrained form but never hands a backend equality rows that are
linearly dependent on active bounds (a variable determined by a higher level *and* sitting at its bound
is the common case), which active-set and interior-point backends report as infeasible or numerically
singular.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING

import numpy as np
from scipy.linalg import lapack

from ..errors import QPSolveError
from ._common import SolveFailedError, merge_fixed, no_inf, split_fixed
from ._kkt import StdQP
from .problem import HierarchicalQP, LevelStatus, QPProblem

if TYPE_CHECKING:
    from .solver import QPSolver

__all__ = ["row_space", "solve_levels"]

_Z_ROW_TOL = 1e-9
_geqp3, _orgqr = lapack.dgeqp3, lapack.dorgqr
_max = np.maximum.reduce
_all = np.logical_and.reduce


def row_space(S: np.ndarray, rank_tol: float = 1e-9) -> tuple[np.ndarray, np.ndarray]:
    """Orthonormal bases of the row space of ``S`` (rows normalised first) and of its null space.

    Rows with norm ≤ 1e-12·max(1, largest row norm) are dropped (numerical zeros carry no direction);
    the others are scaled to unit norm, so task weights do not influence the rank decision. The bases
    come from a column-pivoted Householder QR of the normalised Sᵀ (LAPACK ``dgeqp3``/``dorgqr``,
    rank-revealing: |R_kk| decreases and tracks the singular values): a direction belongs to the row
    space when |R_kk| exceeds ``rank_tol``·|R_11|. An SVD is used if LAPACK reports a problem.

    Args:
        S: (m, n) rows.
        rank_tol: relative threshold on |R_kk| (singular-value estimates).

    Returns:
        (N, Z): N is (r, n) with N Nᵀ = I, Z is (n, n − r) with ZᵀZ = I and N Z = 0.
    """
    m, n = S.shape
    if m == 0 or n == 0:
        return np.zeros((0, n)), np.eye(n)
    norms2 = np.square(S).dot(np.ones(n))
    big = norms2 > 1e-24 * max(1.0, float(_max(norms2)))
    if not _all(big):
        S, norms2 = S[big], norms2[big]
        m = S.shape[0]
        if m == 0:
            return np.zeros((0, n)), np.eye(n)
    norms = np.sqrt(norms2)
    St = S.T / norms  # (n, m) with unit columns, Fortran-contiguous: what LAPACK wants
    qr, _piv, tau, _work, info = _geqp3(St, overwrite_a=1)
    if info == 0:
        d = np.abs(qr.diagonal())
        rank = int(np.count_nonzero(d > rank_tol * d[0]))
        if m >= n:
            full = qr[:, :n]
        else:
            full = np.zeros((n, n), order="F")
            full[:, :m] = qr
        Q, _work, info = _orgqr(full, tau, overwrite_a=1)
        if info == 0:
            return Q[:, :rank].T, Q[:, rank:]
    _, sv, Vt = np.linalg.svd(S / norms[:, None], full_matrices=True)  # pragma: no cover - LAPACK failure
    rank = int(np.count_nonzero(sv > rank_tol * sv[0]))  # pragma: no cover
    return Vt[:rank], Vt[rank:].T  # pragma: no cover


def _level_problem(hqp: HierarchicalQP, p: int, N: np.ndarray | None, xbar: np.ndarray | None,
                   free: np.ndarray | None) -> QPProblem | None:  # fmt: skip
    """Level p in equality-constrained form over all n variables (for QPSolveError.problem)."""
    if not hqp.levels:
        return QPProblem(H=np.zeros((hqp.n, hqp.n)), g=np.zeros(hqp.n), lb=hqp.lb, ub=hqp.ub)
    prob = hqp.levels[min(p, len(hqp.levels) - 1)].to_problem(hqp.lb, hqp.ub)
    if N is not None and N.shape[0]:
        Nf = np.zeros((N.shape[0], hqp.n))
        if free is None:
            Nf[:] = N
        else:
            Nf[:, free] = N
        prob.A, prob.b = Nf, N @ xbar
    return prob


def _strongly_active(sol, q: StdQP, r: int, keep: np.ndarray | None, nf: int) -> np.ndarray | None:
    """Variables whose bound is strongly active (|multiplier| > 1e-6·dual scale) at this level's optimum.

    A bound with a strictly positive multiplier stays active on the whole optimal set of the level (its
    multiplier times the bound's directional derivative must vanish along any optimal direction), so it
    is an equality for every lower level. Adding it to the equality rows removes the degenerate
    "variable at its bound" inequalities that active-set backends otherwise report as infeasible.
    Multipliers caused by the λ-regularisation alone are orders of magnitude below the threshold.
    """
    tau = 1e-6 * sol.dual_scale
    if r == 0:
        if sol.z_box is None:
            return None
        idx = np.flatnonzero(abs(sol.z_box) > tau)
    else:
        if sol.z is None or keep is None or q.C is None:
            return None
        idx = keep[abs(sol.z) > tau]
    return idx if idx.size else None


def _clip(x: np.ndarray, lb: np.ndarray | None, ub: np.ndarray | None) -> np.ndarray:
    if lb is not None:
        np.maximum(x, lb, out=x)
    if ub is not None:
        np.minimum(x, ub, out=x)
    return x


def solve_levels(solver: QPSolver, hqp: HierarchicalQP, try_fast: bool = True) -> np.ndarray:
    """Implementation of :meth:`wbcpy.qp.QPSolver.solve_hierarchy`.

    With the plain DAQP backend the fast path of :mod:`wbcpy.qp.fast_daqp` is tried first (after the
    structural validation); whatever it cannot solve and check is solved again here from scratch.
    """
    hqp.validate(check_values=False)  # types and shapes; values are checked on H, g below
    fast = solver._fast
    if try_fast and fast is not None:
        x = fast.solve(hqp)
        if x is not None:
            return x
    n = hqp.n
    levels = hqp.levels
    for v in (hqp.lb, hqp.ub):  # NaN bounds (split_fixed's lb <= ub test catches them when both exist)
        if v is not None and (hqp.lb is None or hqp.ub is None) and np.isnan(v).any():
            hqp.validate()
    msg, fixed, xfix, lb, ub = split_fixed(hqp.lb, hqp.ub, n)
    if msg is not None:
        hqp.validate()  # NaN in a bound is an InvalidValueError, not an infeasibility
        raise QPSolveError(solver.name, msg, _level_problem(hqp, 0, None, None, None), level=0)
    free = None if fixed is None else ~fixed
    if free is not None:
        lb = None if lb is None else no_inf(lb[free])
        ub = None if ub is None else no_inf(ub[free])
    nf = n if free is None else int(np.count_nonzero(free))
    xbar = None  # optimum of the last solved level (None: none solved yet)
    last = len(levels) - 1
    while last >= 0 and levels[last].A.shape[0] == 0:
        last -= 1
    N = Z = None  # bases of the higher levels' row space and of its null space (None: no row yet)
    statuses: list[LevelStatus] = []
    warm: dict[int, np.ndarray] = {}
    for p, level in enumerate(levels):
        t0 = time.perf_counter()
        m = level.A.shape[0]
        r = 0 if N is None else N.shape[0]
        if m == 0 or nf == 0 or r >= nf:
            if m and not math.isfinite(level.A.sum() + level.y.sum() + level.regularization.sum()):
                hqp.validate()
            why = "no task rows" if m == 0 else ("no free variable" if nf == 0 else "higher levels fix x")
            statuses.append(
                LevelStatus(solver.name, f"skipped: {why}", 0, time.perf_counter() - t0, p, r, nf)
            )
            continue
        if free is None:
            A, y, reg = level.A, level.y, level.regularization
        else:
            A = level.A[:, free]
            y = level.y - level.A[:, fixed] @ xfix
            reg = level.regularization[free]
        keep = None
        if r == 0:
            H = A.T @ A
            H.flat[:: nf + 1] += reg
            g = y @ A
            g *= -1.0
            q = StdQP(H, g, lb=lb, ub=ub)
        else:  # x = x̄ + Z w
            AZ = A @ Z
            H = AZ.T @ AZ + (Z.T * reg) @ Z
            g = (A @ xbar - y) @ AZ + (reg * xbar) @ Z
            q = StdQP(H, g)
            if lb is not None or ub is not None:
                bounded = np.isfinite(lb) if lb is not None else np.zeros(nf, dtype=bool)
                if ub is not None:
                    bounded |= np.isfinite(ub)
                keep = np.flatnonzero(bounded & (np.einsum("ij,ij->i", Z, Z) > _Z_ROW_TOL**2))
                if keep.size:
                    q.C = Z[keep]
                    xk = xbar[keep]
                    q.lbC = lb[keep] - xk if lb is not None else np.full(xk.shape, -np.inf)
                    q.ubC = ub[keep] - xk if ub is not None else np.full(xk.shape, np.inf)
        if not math.isfinite(H.sum() + g.sum()):
            hqp.validate()  # raises InvalidValueError naming the level and array
        try:
            sol = solver._solve_std(q, p)
        except SolveFailedError as f:
            err = QPSolveError(solver.name, f.status, _level_problem(hqp, p, N, xbar, free), level=p)
            err.statuses = statuses  # type: ignore[attr-defined]
            raise err from None
        w = sol.x
        warm[p] = w
        x = w.copy() if r == 0 else xbar + Z @ w
        xbar = _clip(x, lb, ub) if (lb is not None or ub is not None) else x
        statuses.append(
            LevelStatus(solver.name, sol.status, sol.iterations, time.perf_counter() - t0, p, r, nf,
                        sol.primal_residual, sol.dual_residual)
        )  # fmt: skip
        if p < last:
            rows = [A] if N is None else [N, A]
            strong = _strongly_active(sol, q, r, keep, nf)
            if strong is not None:
                rows.append(np.eye(nf)[strong])
            N, Z = row_space(np.vstack(rows) if len(rows) > 1 else A, solver.rank_tol)
    if xbar is None:  # nothing solved: minimiser of the regularisation within the bounds
        xbar = _clip(np.zeros(nf), lb, ub)
    out = xbar if free is None else merge_fixed(xbar, n, free, fixed, xfix)
    solver._warm.update(warm)
    solver.statuses = statuses
    return out
