"""Fast path of :meth:`QPSolver.solve_hierarchy` for the dense DAQP backend (the default).

Same problem, same lexicographic method and same result as :func:`wbcpy.qp.hierarchy.solve_levels`
(fixed variables eliminated, level p solved over x = x̄ + Z w with Z a basis of the null space of the
higher levels' rows, strongly active bounds carried down), without the generic machinery: no
:class:`~wbcpy.qp._kkt.StdQP` / result objects, ``daqp.solve`` called directly on preallocated buffers,
statuses recorded as tuples and turned into :class:`~wbcpy.qp.LevelStatus` only when read.

Every level's answer is still checked before it is used (a wrong x is never returned):

* DAQP's exit flag must be 1 (solved);
* a level with box bounds only (the first solved level, and a one-level scene) passes the projected
  gradient test ``‖x − clip(x − (Hx + g), lb, ub)‖₂ ≤ kkt_tol · (1 + ‖g‖₂ + ‖x‖₂)``: the residual is 0
  exactly at the optimum (stationarity, feasibility and the sign of the bound multipliers in one
  number) and grows with the distance to it;
* a level with general constraints (x = x̄ + Z w, bounds as rows of Z) passes
  ``‖Hw + g + Cᵀλ‖₂ ≤ kkt_tol · (1 + ‖g‖₂ + ‖Cᵀλ‖₂)`` and ``‖Cw − clip(Cw, lbC, ubC)‖₂ ≤ kkt_tol ·
  (1 + ‖w‖₂)`` (DAQP is an exact active-set solver: multipliers sit on active rows, as in the generic
  path's check of exact backends).

Anything else — a failed or unchecked level, NaN anywhere, inconsistent bounds, an exception — makes
:meth:`DaqpFastPath.solve` return None and the caller runs the generic path from scratch, which
validates the problem, retries (DAQP's proximal fallback) and raises the documented errors.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from ._common import FIX_TOL, merge_fixed
from .hierarchy import _Z_ROW_TOL, row_space

if TYPE_CHECKING:
    from .problem import HierarchicalQP
    from .solver import QPSolver

__all__ = ["DaqpFastPath"]

# numpy's clip ufunc (one pass, no Python wrapper); min + max where it is not exposed
_umath_clip = getattr(getattr(getattr(np, "_core", None), "umath", None), "clip", None)
_min = np.minimum.reduce
_NOT_SINGLE = object()  # _solve_single: "not the single-level case", use _solve


def _clip(x: np.ndarray, lo: np.ndarray, hi: np.ndarray, out: np.ndarray) -> np.ndarray:
    if _umath_clip is not None:
        return _umath_clip(x, lo, hi, out)
    np.minimum(x, hi, out=out)
    return np.maximum(out, lo, out=out)


def _box_residual(
    H: np.ndarray, g: np.ndarray, x: np.ndarray, lb: Any, ub: Any, bounded: bool, tol: float
) -> float | None:
    """Projected-gradient residual ‖x − clip(x − (Hx + g), lb, ub)‖ of the box-constrained QP (‖Hx + g‖
    without bounds), 0 exactly at its optimum; None when it exceeds tol·(1 + ‖g‖ + ‖x‖)."""
    t = np.dot(H, x)
    np.add(t, g, t)
    if bounded:
        np.subtract(x, t, t)
        _clip(t, lb, ub, t)
        np.subtract(x, t, t)
    rr = math.sqrt(float(t.dot(t)))
    # (the scale is ≥ 1: computed only when needed)
    if not rr <= tol and not rr <= tol * (1.0 + math.sqrt(float(g.dot(g))) + math.sqrt(float(x.dot(x)))):
        return None
    return rr


class DaqpFastPath:
    """Per-solver workspace of the dense DAQP fast path (see the module docstring).

    Args:
        solver: the owning :class:`~wbcpy.qp.QPSolver` (backend ``daqp``).
    """

    def __init__(self, solver: QPSolver) -> None:
        import daqp

        self._solver = solver
        self._daqp = daqp.solve
        self._hess: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # n -> (H buffer, its diagonal view)
        self._sense: dict[int, np.ndarray] = {}
        self._no_rows: dict[int, np.ndarray] = {}
        self._iters: dict[int, int] = {}  # level -> iterations of its last solve (warm start when > 1)
        self._e0 = np.zeros(0)
        self._box: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}  # _solve_single
        from .backends.active_set import DaqpBackend

        self._adapter = DaqpBackend

    def reset(self) -> None:
        """Forget the warm-start bookkeeping."""
        self._iters.clear()

    # -- buffers ------------------------------------------------------------------------------------
    def _hessian(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        buf = self._hess.get(n)
        if buf is None:
            H = np.empty((n, n))
            buf = (H, H.reshape(-1)[:: n + 1])
            self._hess[n] = buf
        return buf

    def _zeros_sense(self, m: int) -> np.ndarray:
        s = self._sense.get(m)
        if s is None:
            s = self._sense[m] = np.zeros(m, dtype=np.intc)  # DAQP does not modify it
        return s

    def _empty_rows(self, n: int) -> np.ndarray:
        e = self._no_rows.get(n)
        if e is None:
            e = self._no_rows[n] = np.zeros((0, n))
        return e

    def _call(self, p: int, H, g, rows, bu, bl, sense, x0) -> tuple[np.ndarray, np.ndarray, int] | None:
        solver = self._solver
        opts = solver._backends["solve"].options
        if x0 is not None and solver.warm_start and self._iters.get(p, 0) > 1 and x0.shape == g.shape:
            x, _f, flag, info = self._daqp(H, g, rows, bu, bl, sense, primal_start=x0, **opts)
        else:
            x, _f, flag, info = self._daqp(H, g, rows, bu, bl, sense, **opts)
        if flag != 1:
            return None
        iters = int(info["iterations"])
        self._iters[p] = iters
        return x, info["lam"], iters

    # -- solve --------------------------------------------------------------------------------------
    def solve(self, hqp: HierarchicalQP) -> np.ndarray | None:
        """Solve ``hqp``; None = use the generic path instead (also when a backend object of the solver
        was replaced by something else than the plain DAQP adapter)."""
        adapter = self._adapter
        for b in self._solver._backends.values():
            if b.__class__ is not adapter:
                return None
        try:
            levels = hqp.levels
            if len(levels) == 1 and (hqp.lb is None) == (hqp.ub is None):
                x = self._solve_single(levels[0], hqp.lb, hqp.ub)
                if x is not _NOT_SINGLE:
                    return x
            return self._solve(hqp)
        except Exception:  # any surprise: the generic path redoes it and reports properly
            return None

    def _solve_single(self, level, lb: np.ndarray | None, ub: np.ndarray | None) -> Any:
        """One level with rows, with two-sided bounds or none (the common one-level scene):
        :meth:`_solve` without its bookkeeping. Returns x, None (failed) or ``_NOT_SINGLE``.

        Small problems (n ≤ 16) leave variables with lb = ub (locked joints, collapsed limit bounds) to
        DAQP, which keeps them at their value (x is clipped into the bounds afterwards, so they are
        exact; the check below certifies the result all the same, and inconsistent bounds make DAQP
        fail → generic path, which reports them): cheaper than finding them. Larger problems with such
        variables go to :meth:`_solve`, which eliminates them (DAQP is twice as slow with equal bounds
        at humanoid size).
        """
        A = level.A
        m, n = A.shape
        bounded = lb is not None
        if m == 0 or (bounded and n > 16 and not _min(np.subtract(ub, lb)) > FIX_TOL):
            return _NOT_SINGLE
        t0 = time.perf_counter()
        solver = self._solver
        work = self._box.get(n)
        if work is None:
            work = self._box[n] = (*self._hessian(n), self._empty_rows(n), self._zeros_sense(n))
        H, Hdiag, rows0, sense = work
        if not bounded:
            lb = ub = self._e0
            sense = self._zeros_sense(0)
        np.dot(A.T, A, out=H)
        np.add(Hdiag, level.regularization, Hdiag)
        g = np.dot(level.y, A)
        np.negative(g, g)
        opts = solver._backends["solve"].options
        x0 = solver._warm.get(0)
        if x0 is not None and self._iters.get(0, 0) > 1 and solver.warm_start and x0.shape == g.shape:
            x, _f, flag, info = self._daqp(H, g, rows0, ub, lb, sense, primal_start=x0, **opts)
        else:
            x, _f, flag, info = self._daqp(H, g, rows0, ub, lb, sense, **opts)
        if flag != 1:
            return None
        rr = _box_residual(H, g, x, lb, ub, bounded, solver.kkt_tol)
        if rr is None:
            return None
        if bounded:
            _clip(x, lb, ub, x)
        iters = info["iterations"]
        self._iters[0] = iters
        solver._warm[0] = x
        solver._status_records = [("solved", iters, time.perf_counter() - t0, 0, 0, n, rr, rr)]
        solver._statuses = None  # (QPSolver._set_status_records, inlined)
        return x

    def _solve(self, hqp: HierarchicalQP) -> np.ndarray | None:
        """Any hierarchy (see the module docstring); variables with lb = ub are eliminated first, as in
        the generic path (DAQP itself is about twice as slow with equal bounds)."""
        solver = self._solver
        tol = solver.kkt_tol
        n = len(hqp.joint_names)
        levels = hqp.levels
        lb, ub = hqp.lb, hqp.ub
        fixed = free = xfix = None
        if lb is not None and ub is not None:
            d = np.subtract(ub, lb)
            dmin = _min(d)
            if not dmin > FIX_TOL:  # (also for NaN)
                if not dmin >= 0.0:
                    return None  # inconsistent bounds or NaN: the generic path reports them
                mask = d <= FIX_TOL
                fixed = mask.nonzero()[0]  # (ndarray.nonzero: much cheaper than np.flatnonzero)
                free = (~mask).nonzero()[0]
                xfix = lb.take(fixed)
                xfix += ub.take(fixed)
                xfix *= 0.5
                lb, ub = lb.take(free), ub.take(free)
        elif lb is not None or ub is not None:
            return None  # one-sided bound vectors: generic path
        nf = n if free is None else free.shape[0]
        has_bounds = lb is not None
        last = len(levels) - 1
        while last >= 0 and levels[last].A.shape[0] == 0:
            last -= 1
        xbar = None
        N = Z = None
        bounded = None
        recs: list[tuple] = []
        warm: dict[int, np.ndarray] = {}
        prev = solver._warm
        for p, level in enumerate(levels):
            t0 = time.perf_counter()
            A, y, reg = level.A, level.y, level.regularization
            m = A.shape[0]
            r = 0 if N is None else N.shape[0]
            if m == 0 or nf == 0 or r >= nf:
                if m and not math.isfinite(A.sum() + y.sum() + reg.sum()):
                    return None
                why = "no task rows" if m == 0 else ("no free variable" if nf == 0 else "higher levels fix x")
                recs.append((f"skipped: {why}", 0, time.perf_counter() - t0, p, r, nf, 0.0, 0.0))
                continue
            if free is not None:
                y = y - np.dot(A.take(fixed, 1), xfix)
                A = A.take(free, 1)
                reg = reg.take(free)
            C = keep = None
            if r == 0:
                H, Hdiag = self._hessian(nf)
                np.dot(A.T, A, out=H)
                np.add(Hdiag, reg, Hdiag)
                g = np.dot(y, A)
                np.negative(g, g)
                rows0 = self._empty_rows(nf)
                if has_bounds:
                    res = self._call(p, H, g, rows0, ub, lb, self._zeros_sense(nf), prev.get(p))
                else:
                    res = self._call(p, H, g, rows0, self._e0, self._e0, self._zeros_sense(0), prev.get(p))
                if res is None:
                    return None
                x, lam, iters = res
                rr = _box_residual(H, g, x, lb, ub, has_bounds, tol)
                if rr is None:
                    return None
                rp = rd = rr
                w = xnew = x
            else:
                k = Z.shape[1]
                AZ = np.dot(A, Z)
                H, Hdiag = self._hessian(k)  # (level 0's buffer has another size: k < nf)
                np.dot(AZ.T, AZ, out=H)
                r0 = reg[0]
                if np.count_nonzero(reg != r0):
                    H += np.dot(Z.T * reg, Z)
                else:  # ZᵀZ = I: Zᵀ diag(λ) Z = λ I
                    Hdiag += r0
                e = np.dot(A, xbar)
                np.subtract(e, y, e)
                g = np.dot(e, AZ)
                g += np.dot(reg * xbar, Z)
                lbC = ubC = None
                if has_bounds:
                    if bounded is None:
                        bounded = np.isfinite(lb) | np.isfinite(ub)
                    znorm2 = np.square(Z).dot(np.ones(k))  # (cheaper than einsum on Fortran-ordered Z)
                    keep = (bounded & (znorm2 > _Z_ROW_TOL**2)).nonzero()[0]
                    if keep.shape[0]:
                        C = Z.take(keep, 0)
                        xk = xbar.take(keep)
                        lbC = lb.take(keep)
                        lbC -= xk
                        ubC = ub.take(keep)
                        ubC -= xk
                if C is not None:
                    res = self._call(p, H, g, C, ubC, lbC, self._zeros_sense(C.shape[0]), prev.get(p))
                else:
                    e0 = self._e0
                    res = self._call(p, H, g, self._empty_rows(k), e0, e0, self._zeros_sense(0), prev.get(p))
                if res is None:
                    return None
                w, lam, iters = res
                s = np.dot(H, w)
                s += g
                rp = 0.0
                if C is not None:
                    ct = np.dot(lam, C)
                    s += ct
                    c = np.dot(C, w)
                    viol = np.subtract(c, _clip(c, lbC, ubC, np.empty_like(c)))
                    rp = math.sqrt(float(viol.dot(viol)))
                    if not rp <= tol and not rp <= tol * (1.0 + math.sqrt(float(w.dot(w)))):
                        return None
                rd = math.sqrt(float(s.dot(s)))
                if not rd <= tol:
                    dscale = 1.0 + math.sqrt(float(g.dot(g)))
                    if C is not None:
                        dscale += math.sqrt(float(ct.dot(ct)))
                    if not rd <= tol * dscale:
                        return None
                xnew = np.dot(Z, w)
                xnew += xbar
            if has_bounds:
                _clip(xnew, lb, ub, xnew)
            xbar = xnew
            warm[p] = w
            recs.append(("solved", iters, time.perf_counter() - t0, p, r, nf, rp, rd))
            if p < last:
                rows = [A] if N is None else [N, A]
                strong = None
                if lam.shape[0] and np.count_nonzero(lam):
                    if r == 0:
                        strong = self._strongly_active_mask(g, lam).nonzero()[0]
                    else:
                        strong = self._strongly_active_rows(g, lam, keep, C)
                if strong is not None and strong.shape[0]:
                    rows.append(np.eye(nf)[strong])
                N, Z = row_space(np.vstack(rows) if len(rows) > 1 else A, solver.rank_tol)
        if xbar is None:  # nothing solved: minimiser of the regularisation within the bounds
            xbar = np.zeros(nf)
            if has_bounds:
                _clip(xbar, lb, ub, xbar)
        out = xbar if free is None else merge_fixed(xbar, n, free, fixed, xfix)
        prev.update(warm)
        solver._set_status_records(recs)
        return out

    @staticmethod
    def _strongly_active_mask(g: np.ndarray, lam: np.ndarray) -> np.ndarray:
        """Box level: bounds with |multiplier| > 1e-6 · dual scale (the generic ``_strongly_active``)."""
        alam = np.abs(lam)
        tau = 1e-6 * (1.0 + max(float(np.abs(g).max()), float(alam.max())))
        return alam > tau

    @staticmethod
    def _strongly_active_rows(g, lam, keep, C) -> np.ndarray | None:
        """Level with bound rows C = Z[keep]: the variables whose row has |multiplier| > 1e-6 · scale."""
        if keep is None or C is None:
            return None
        ct = np.dot(lam, C)
        tau = 1e-6 * (1.0 + max(float(np.abs(g).max()), float(np.abs(ct).max())))
        return keep[np.abs(lam) > tau]
