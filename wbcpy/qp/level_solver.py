"""The per-level solve strategy: one backend call, checked; documented fallbacks when it fails.

:meth:`LevelSolver.solve` turns one :class:`~wbcpy.qp.kkt.StdQP` into a certified answer:

1. the configured backend, warm-started from the previous answer of the same level (same size);
2. an exact (active-set) backend whose answer fails (or, with ``tighten``, stays loose: see
   :data:`LOOSE`): proximal-point iterations on it (:meth:`LevelSolver._proximal`): the strictly convex
   ½wᵀ(H + δI)w + (g − δw_k)ᵀw, whose fixed points are the level's minimisers — the method for a
   semidefinite level (an unregularised level with fewer independent rows than free directions), where
   DAQP answers a point that is not stationary and quadprog refuses the Hessian; a δ whose steps the
   backend fails (DAQP calls some ill-conditioned, degenerate levels infeasible at δ = 1e-6 relative and
   solves them at 1e-2) hands its last iterate to the next δ;
3. if that failed after reusing a persistent workspace: the same backend from scratch (``cold restart``);
4. the backend's own robust settings, if it has any (DAQP: forced proximal iterations, ``eps_prox``);
5. the rescue backends (default: daqp, osqp — the one backend every install has —, quadprog), cold,
   the exact ones with step 2;
6. with rescues on, when the caller knows a feasible point of the QP (``start``: a level below the
   first is solved on x = x̄ + Z w, and w = 0, the level above's answer, satisfies every constraint):
   the exact active-set refinement (:func:`wbcpy.qp.refine.refine`) started there. A dual active-set method
   can call such a level infeasible at a degenerate vertex — constraints tight at x̄ whose rows are
   dependent to rounding, e.g. bound rows that the null space makes parallel to 1e-8 and that are tight
   from opposite sides (an implicit equality): it meets the dependent pair, finds a dual ray within its
   tolerance and reports infeasibility; OSQP converges slowly there. The primal refinement from the
   feasible point solves the dependent active set by least squares.

Steps 3–6 run when no answer is certified after step 2, and, with ``tighten``, when the certified one is
still loose: then the first answer that is not loose ends the chain, else the tightest one is kept.

Every answer is accepted only with a KKT certificate (:func:`wbcpy.qp.kkt.certify`) of the level itself
(never of a perturbed problem: a proximal iterate is certified with its multipliers against the level's
own H and g): an exact backend's answer is certified as it is when its stationarity residual is below
:data:`LOOSE`·kkt_tol; an iterative backend's answer, a proximal iterate, or an exact one that fails its
certificate or passes it only loosely, is first refined on its active set (:func:`wbcpy.qp.refine.refine`,
when ``polish`` is on: exact equality-constrained solves, least-squares form) and must then pass. A
fallback that answered is counted (:attr:`LevelSolver.fallbacks`) and named in the level's status — never
silent. When every attempt fails the level raises :class:`SolveFailedError` with what each attempt
reported.

The compiled level (:meth:`LevelSolver.solve_fused_level`, DAQP's C solver and the certificate in one
call, ``wbcpy._kernels.fused_level``) is step 1 for the levels it takes and applies the same certificate:
the strict test, then the rounding allowance of the magnitudes the level was formed from (``marginal``,
kkt.py's second test), which an exact backend's answer is accepted with, as ``_exact_answer``
accepts it. An answer that fails both gets a second, cold DAQP run with ``zero_tol`` 1e-14 — DAQP
regularises pivots below zero_tol·max diag H proximally, which leaves the weak directions of a level
whose weights span twelve decades unsolved — certified the same way and named in the status ("second
run"). Where DAQP crawls — ten or more proximal iterations to an answer without active constraint that
passes only within rounding, the weak directions of such a level — the level's unconstrained
least-squares minimiser (a pivoted QR of its rows, the one nearest DAQP's answer on a semidefinite
level) is certified instead when it meets the constraints, and tried first on the level's next solves,
with DAQP tried again at doubling intervals while it still crawls (status "unconstrained least-squares
minimiser"). Whatever the compiled call does not settle goes to
:meth:`LevelSolver.solve`, which decides.
"""

from __future__ import annotations

import time
from collections.abc import Hashable, Iterator
from typing import Any

import numpy as np

from .._kernels import all_finite as _all_finite
from .._kernels import bounds_gap as _bounds_gap
from .backends import Backend, make_backend
from .backends.base import FusedAnswer, Rows
from .fixed import FIX_TOL
from .kkt import Certificate, RawResult, StdQP, as_dense, certify, oversized
from .problem import QPLevel, StatusRecord
from .refine import cost, refine

_EPS = float(np.finfo(np.float64).eps)
#: with ``tighten``, an exact backend's answer whose stationarity or feasibility residual exceeds
#: LOOSE·kkt_tol (relative) is refined on its active set before it is accepted, and one still loose after
#: refinement and proximal iterations goes on through the fallbacks (the tightest certified answer is
#: kept): an active-set method on a well-posed level leaves ~1e-14; more says the level is singular,
#: ill-conditioned or its active set degenerate, and a residual that passes the certificate can still
#: move the rows' optimum that the levels below keep. On a level with λ = 1e-8 the directions of
#: curvature λ move the kept values A x by √λ per unit of w while their gradient is λ per unit, far below
#: the certificate's scale: answers at 3e-11 can move the next level's cost by 3e-6 of itself, which a
#: looser threshold lets pass. The scenes' DAQP levels run without ``tighten`` (a contact scene's DAQP,
#: eta_prox 1e-10, leaves ~1e-10…7e-7 on ordinary states)
LOOSE = 1e-6
#: proximal weights of :meth:`LevelSolver._proximal`, relative to the largest diagonal entry of H,
#: tried in turn: a small one converges in few steps where the curvature decides, a large one where
#: constraints and flat directions do (a rank-1 level over 59 directions: steps of ~2 that do not settle
#: with 1e-6)
PROX_DELTAS = (1e-6, 1e-2)
#: outward move of the constraint sides in the proximal iterations (:func:`_relaxed`), relative
PROX_RELAX = 1e-11
#: largest violation by x̄ (w = 0) of a side that :func:`_relaxed` moves up to it, relative
PROX_INHERITED = 1e-8
#: most proximal-point steps per level
PROX_STEPS = 30
_F64 = np.dtype(np.float64)
_clock = time.perf_counter


class SolveFailedError(Exception):
    """Every attempt at one QP failed (turned into :class:`wbcpy.errors.QPSolveError` by the caller)."""

    def __init__(self, status: str, iterations: int | None = None) -> None:
        super().__init__(status)
        self.status = status
        self.iterations = iterations


class Solved:
    """A certified answer of one StdQP.

    Attributes:
        x: the solution; z, z_box: row and bound multipliers of the certificate (may be None; for a
            box certificate ``gradient`` = H x + g instead, whose negative on the active bounds is z_box).
        status, iterations: the backend's report ("(refined)" appended when refined).
        primal, dual: relative KKT residuals of the certificate; dual_scale: its stationarity scale.
        solver: the backend that answered; fallback: None or the fallback that answered.
        exact: the multipliers are exact up to rounding (an active-set backend's answer, or one refined
            on its active set), not an iterative backend's estimate.
    """

    __slots__ = ("dual", "dual_scale", "exact", "fallback", "gradient", "iterations", "primal", "solver",
                 "status", "x", "z", "z_box")  # fmt: skip

    def __init__(self, x: np.ndarray, z: np.ndarray | None, z_box: np.ndarray | None, status: str,
                 iterations: int | None, primal: float, dual: float, dual_scale: float, solver: str,
                 fallback: str | None, gradient: np.ndarray | None = None,
                 exact: bool = True) -> None:  # fmt: skip
        self.x, self.z, self.z_box, self.status, self.iterations = x, z, z_box, status, iterations
        self.primal, self.dual, self.dual_scale, self.solver = primal, dual, dual_scale, solver
        self.fallback, self.gradient, self.exact = fallback, gradient, exact


def fused_solved(out: FusedAnswer, name: str) -> Solved:
    """The :class:`Solved` of an answer of :meth:`LevelSolver.solve_fused_level` (level solver ``name``):
    exact multipliers (an active-set answer), the box certificate's gradient t where there is no null
    space, the stationarity scale 1 + max scale."""
    w, z, t, primal, dual, smax, _c_rows, _b_rows, status, iterations, _x, _marginal = out
    return Solved(w, z, None, status, iterations, primal, dual, 1.0 + smax, name, None, t)


def _usable(raw: RawResult, n: int) -> np.ndarray | None:
    """The answer's x when it is finite and of the right shape and the backend reports success (or an
    early stop); else None."""
    x = raw.x
    if (raw.ok or raw.inaccurate) and x is not None and x.ndim == 1 and x.shape[0] == n:
        if x.dtype is _F64 and _all_finite(x):
            return x
        if x.dtype is not _F64 and np.isfinite(x).all():
            return np.asarray(x, dtype=np.float64)
    return None


def _guarded(b: Backend[Any], q: StdQP) -> RawResult:
    """``b.solve(q)`` from a cold start; a crash becomes a failed result."""
    try:
        return b.solve(q, None)
    except Exception as exc:  # a backend crash is a failed attempt, not a wbcpy bug
        return RawResult(None, False, f"{type(exc).__name__}: {exc}")


class LevelSolver:
    """Backends (one per level key, each with its own workspace), warm starts and the fallback chain.

    Args:
        name: backend name.
        warm_start: reuse previous answers and workspaces.
        options: backend options (validated by the adapter).
        kkt_tol: tolerance of the KKT certificate.
        polish: refine inexact answers on their active set (False: certify them as they are).
        rescue: installed backends tried (cold) when the configured one fails (``name`` itself skipped).
        via_qpsolvers: use the generic qpsolvers adapter.
        tighten: refine exact answers whose residual exceeds :data:`LOOSE`·kkt_tol (see
            :class:`~wbcpy.qp.QPSolver`).
    """

    def __init__(self, name: str, warm_start: bool, options: dict[str, Any], kkt_tol: float, polish: bool,
                 rescue: tuple[str, ...], via_qpsolvers: bool, tighten: bool = True) -> None:  # fmt: skip
        self.name = name
        self.warm_start = warm_start
        self.options = dict(options)
        self.kkt_tol = kkt_tol
        self.polish = polish
        #: refine loose exact answers (residual above LOOSE·kkt_tol); only with polish
        self.tighten = tighten and polish
        self.rescue = tuple(r for r in rescue if r != name)
        self.via = via_qpsolvers
        self.backends: dict[Hashable, Backend[Any]] = {
            "solve": make_backend(name, warm_start, self.options, via_qpsolvers)
        }
        self._rescuers: dict[str, Backend[Any]] = {}
        self._warm: dict[Hashable, np.ndarray] = {}
        #: number of answers that came from a fallback (cold restart, backend fallback, rescue backend)
        self.fallbacks = 0

    def backend(self, key: Hashable) -> Backend[Any]:
        """The backend (and workspace) of one level key."""
        b = self.backends.get(key)
        if b is None:
            b = self.backends[key] = make_backend(self.name, self.warm_start, self.options, self.via)
        return b

    def reset(self) -> None:
        """Forget warm-start data and backend workspaces."""
        self._warm.clear()
        for b in (*self.backends.values(), *self._rescuers.values()):
            b.reset()

    # ------------------------------------------------------------------------------------------ solve
    def solve(self, q: StdQP, key: Hashable, start: np.ndarray | None = None) -> Solved:
        """A certified answer of ``q`` (see the module docstring; ``start``: a point known to satisfy
        the constraints of ``q``, or None); raises :class:`SolveFailedError`."""
        b, x0 = self._start(key, q.g.shape[0])
        try:
            raw = b.solve(q, x0)
        except Exception as exc:  # a backend crash is a failed attempt, not a wbcpy bug
            raw = RawResult(None, False, f"{type(exc).__name__}: {exc}")
        sol = self._exact_answer(q, raw) if b.exact else None
        if sol is None:
            sol = self._attempts(q, raw, b, x0, start)
        self._warm[key] = sol.x
        return sol

    def solve_fused_level(self, A: np.ndarray, y: np.ndarray, r: np.ndarray, Z: np.ndarray | None,
                          xbar: np.ndarray | None, rows: Rows | None, lb: np.ndarray | None,
                          ub: np.ndarray | None, key: Hashable) -> FusedAnswer | None:  # fmt: skip
        """The certified answer of a level (‖A x − y‖² + Σ r x², lb ≤ x ≤ ub, the rows lo ≤ C x ≤ hi of
        ``rows`` = (C, lo, hi), on x = x̄ + Z w) from the backend's one compiled call
        (:meth:`Backend.solve_fused_level`), as that call answers it (w, z, t, residuals, the indices of the
        rows it kept, status, iterations, the next point x = clip(x̄ + Z w, lb, ub); :func:`fused_solved`
        makes the :class:`Solved` of it where a caller keeps one): the answer :meth:`solve` gives for
        the level's StdQP when its first attempt passes the certificate, without building it; None
        when the backend has no such call or it does not settle the level (then build the StdQP and
        call :meth:`solve`)."""
        b = self.backends.get(key) or self.backend(key)
        x0 = self._warm.get(key) if self.warm_start else None
        n = A.shape[1] if Z is None else Z.shape[1]
        out = b.solve_fused_level(A, y, r, Z, xbar, rows, lb, ub, x0 if x0 is not None and len(x0) == n
                                  else None, self.kkt_tol)  # fmt: skip
        if out is None or not self._accepted(b, n, out[3], out[4], out[5]):
            return None
        self._warm[key] = out[0]
        return out

    def solve_box_level(self, level: QPLevel, lb: np.ndarray,
                        ub: np.ndarray) -> tuple[np.ndarray, tuple[StatusRecord]] | None:  # fmt: skip
        """The most common problem of a scene — one level with task rows, bounds on both sides, no
        constraint rows and no fixed variable (every ub − lb above :data:`~wbcpy.qp.fixed.FIX_TOL`, the test
        :class:`~wbcpy.qp.fixed.FixedSplit` makes first) — by :meth:`solve_fused_level` of the first level
        (key 0) of a hierarchy without null space or rows (x̄ = 0, Z = I): the same call and acceptance,
        answered as (x, (the level's status record,)) without the objects the level loop keeps. None:
        another problem, or the compiled level did not settle it (the level loop decides)."""
        A = level.A
        if level.E is not None or level.C is not None or not A.shape[0] or not A.shape[1]:
            return None
        if not _bounds_gap(lb, ub) > FIX_TOL:  # (a fixed variable, or inconsistent bounds)
            return None
        t0 = _clock()
        b = self.backends.get(0) or self.backend(0)
        x0 = self._warm.get(0) if self.warm_start else None
        n = A.shape[1]
        start = x0 if x0 is not None and x0.shape[0] == n else None
        out = b.solve_fused_level(A, level.y, level.regularization, None, None, None, lb, ub, start,
                                  self.kkt_tol)  # fmt: skip
        if out is None:
            return None
        w, _z, _t, primal, dual, smax, _c, _b, status, iterations, x, _marginal = out
        if not self._accepted(b, n, primal, dual, smax):
            return None
        self._warm[0] = w
        return x, ((self.name, status, iterations, _clock() - t0, 0, 0, n, primal, dual, None),)

    def _accepted(self, b: Backend[Any], n: int, primal: float, dual: float, smax: float) -> bool:
        """Whether the level solver takes the backend's compiled answer of a level of n variables (its
        residuals, its largest multiplier smax) as it is (then the caller keeps it as the level's warm
        start); otherwise the backend forgets what that answer told it about the level."""
        # (a marginal exact answer is kept, as _exact_answer keeps it; a loose one is refined on the built
        # level, see LOOSE)
        loose = self.tighten and (dual > LOOSE * self.kkt_tol or primal > LOOSE * self.kkt_tol)
        if loose or 8.0 * _EPS * (n + 1) * smax > self.kkt_tol:  # (or multipliers perhaps beyond
            b.reset()  # double precision: the built level's certificate judges them, see kkt.certify)
            return False
        return True

    def _start(self, key: Hashable, n: int) -> tuple[Backend[Any], np.ndarray | None]:
        """The backend of ``key`` and its warm start: the level's previous answer when warm starts are on
        and it has the level's n variables, else None."""
        b = self.backends.get(key) or self.backend(key)
        x0 = self._warm.get(key) if self.warm_start else None
        return b, (x0 if x0 is not None and x0.shape[0] == n else None)

    def _exact_answer(self, q: StdQP, raw: RawResult) -> Solved | None:
        """An exact backend's answer that passes its certificate as it is: the common case, in few steps
        (no retry bookkeeping of :meth:`_try`); None when that does
        not settle it (:meth:`_attempts` then decides, with refinement and notes)."""
        x = raw.x
        if not raw.ok or x is None or x.dtype is not _F64 or x.ndim != 1 or x.shape[0] != q.g.shape[0]:
            return None
        if not _all_finite(x):
            return None
        cert = certify(q, x, raw.y, raw.z, raw.z_box, self.kkt_tol)
        if not cert.ok or (self.polish and _loose(cert, self.kkt_tol, True, self.tighten)):
            return None
        return self._solved(x, cert, raw.status, raw, self.name, None)

    def _attempts(self, q: StdQP, raw: RawResult, b: Backend[Any], x0: np.ndarray | None,
                  start: np.ndarray | None = None) -> Solved:  # fmt: skip
        """The first answer judged in full, then the fallbacks of the module docstring, in order; raises
        :class:`SolveFailedError` when none is certified. With ``tighten``, a certified answer that is
        still loose (stationarity or feasibility above :data:`LOOSE`·kkt_tol after refinement and proximal
        iterations) goes on through the fallbacks too, and the tightest certified answer is kept."""
        notes: list[str] = []
        sol = self._judged(q, raw, b, x0, self.name, None, notes)
        if sol is None or self._loose(sol):
            other = self._fallbacks(q, b, x0, start, notes if sol is None else [])
            if other is not None and (sol is None or _residual(other) < _residual(sol)):
                sol = other
        if sol is None:
            b.reset()
            raise SolveFailedError("; ".join(notes))
        if sol.fallback is not None:
            self.fallbacks += 1
        return sol

    def _judged(self, q: StdQP, raw: RawResult, b: Backend[Any], x0: np.ndarray | None, who: str,
                fallback: str | None, notes: list[str]) -> Solved | None:  # fmt: skip
        """One backend answer certified (:meth:`_try`); for an exact backend whose answer fails, or is
        loose (:meth:`_loose`, also after refinement), the proximal iterations from it
        (:meth:`_proximal`) too: the answer with the smaller residual (:func:`_residual`)."""
        sol = self._try(q, raw, b.exact, who, fallback, notes)
        if b.exact and self.polish and (sol is None or self._loose(sol)):
            prox = self._proximal(q, b, raw, x0, notes, who)
            if prox is not None and (sol is None or _residual(prox) < _residual(sol)):
                sol = prox
        return sol

    def _loose(self, sol: Solved | Certificate) -> bool:
        """With ``tighten``: a certified answer whose stationarity or feasibility residual exceeds
        :data:`LOOSE`·kkt_tol."""
        return self.tighten and _residual(sol) > LOOSE * self.kkt_tol

    def _fallbacks(self, q: StdQP, b: Backend[Any], x0: np.ndarray | None, start: np.ndarray | None,
                   notes: list[str]) -> Solved | None:  # fmt: skip
        """Steps 3 to 6 of the module docstring, in order, after the first answer (and its proximal
        iterations) failed or stayed loose: cold restart, the backend's robust settings, the rescue
        backends, the refinement from a known feasible point. The first certified answer that is not
        loose; else the tightest certified one; None when none is certified."""
        best = None
        for sol in self._fallback_answers(q, b, x0, start, notes):
            if sol is not None and (best is None or _residual(sol) < _residual(best)):
                best = sol
                if not self._loose(sol):
                    break
        return best

    def _fallback_answers(self, q: StdQP, b: Backend[Any], x0: np.ndarray | None,
                          start: np.ndarray | None, notes: list[str]) -> Iterator[Solved | None]:  # fmt: skip
        """The answers of steps 3 to 6, each computed only when the caller asks for it."""
        if b.reused:
            b.reset()
            yield self._try(q, _guarded(b, q), b.exact, self.name, "cold restart", notes)
        yield self._fallback(q, b, x0, notes)
        yield from self._rescue(q, notes)
        if start is not None and self.rescue:  # (rescue=None: no fallback after step 3)
            yield self._from_feasible_start(q, start, notes)

    def _proximal(self, q: StdQP, b: Backend[Any], raw: RawResult, x0: np.ndarray | None,
                  notes: list[str], who: str | None = None) -> Solved | None:  # fmt: skip
        """Proximal-point iterations for a level whose Hessian is singular (an unregularised level with
        fewer independent rows than free directions): the exact backend on the strictly convex
        ½wᵀ(H + δI)w + (g − δw_k)ᵀw under the same constraints (sides moved out by :func:`_relaxed`
        when the first step finds them infeasible),
        δ = each of :data:`PROX_DELTAS` in turn times max H_ii (1 where H is zero: relative to the
        level's own curvature, so that a level whose curvatures are all far below 1 — a COM task's rows
        of 1e-2 over a λ = 1e-8 regulariser — is not swamped by an absolute δ),
        from w_0 = the backend's first answer (or the warm start, or 0; never an answer beyond what the
        data resolve, :func:`~wbcpy.qp.kkt.oversized`: the iterates stay within ‖w_0 − w*‖ of the
        minimiser w* nearest w_0, so an answer far out along a free direction of a semidefinite level
        would keep them there, and w = 0 — the level above's answer — bounds them by the data). A fixed
        point is a minimiser of
        the level itself: the iterate's multipliers make the level's stationarity residual δ(w_{k+1} − w_k),
        and every iterate is judged by the level's own full certificate (:func:`certify`, with those
        multipliers), then refined on its active set (:func:`refine`) towards a strict certificate —
        never accepted on the perturbed problem's word. An active-set backend fails on a singular H (DAQP
        returns a point that is not stationary, quadprog refuses it): this is not a rescue but the
        method for that case, and it is named in the status ("proximal")."""
        who = self.name if who is None else who
        H = as_dense(q.H)
        n = q.n
        if n == 0 or not np.isfinite(H).all():
            return None
        scale = float(np.abs(np.diagonal(H)).max(initial=0.0)) or 1.0
        w = self._proximal_start(q, raw, x0)
        best: _Iterate | None = None
        b.reset()
        sides: tuple[np.ndarray | None, ...] = (q.lbC, q.ubC, q.lb, q.ub)
        relaxed = False
        for rel in PROX_DELTAS:
            best, w, done = self._prox_steps(q, b, H, rel * scale, w, sides, best)
            if best is None and not relaxed:  # (the first step failed: once more, sides relaxed)
                relaxed = True
                sides = tuple(
                    _relaxed(v, sign) for v, sign in zip(sides, (-1.0, 1.0, -1.0, 1.0), strict=True)
                )
                best, w, done = self._prox_steps(q, b, H, rel * scale, w, sides, best)
            if done and self._settled(best):  # (else — a failed first step, or a step that failed before
                break  # a tight iterate —: the next δ from the last iterate)
        b.reset()
        if best is None:  # (the backend failed on the first strictly convex step: its own note says why)
            return None
        wb, cert, step = best
        found = self._refined(q, wb, step, cert, f"{step.status} (proximal)", who, None, True)
        if isinstance(found, Solved):
            return found
        notes.append(f"{who} proximal: no certified iterate, nor refined")
        return None

    def _proximal_start(self, q: StdQP, raw: RawResult, x0: np.ndarray | None) -> np.ndarray:
        """w_0 of :meth:`_proximal`: the backend's answer, else the warm start, else 0 — the first of them
        that is usable and not beyond what the data resolve (:func:`~wbcpy.qp.kkt.oversized`)."""
        for w in (_usable(raw, q.n), x0):
            if w is not None and not oversized(q, w, self.kkt_tol):
                return w
        return np.zeros(q.n)

    def _settled(self, best: _Iterate | None) -> bool:
        """A certified proximal iterate that is not loose (:meth:`_loose`)."""
        return best is not None and best[1] is not None and not self._loose(best[1])

    def _prox_steps(self, q: StdQP, b: Backend[Any], H: np.ndarray, delta: float, w: np.ndarray,
                    sides: tuple[np.ndarray | None, ...],
                    best: _Iterate | None) -> tuple[_Iterate | None, np.ndarray, bool]:  # fmt: skip
        """Up to :data:`PROX_STEPS` proximal steps of weight δ from w: (the best iterate so far — the
        last certified one, else the last one —, the last iterate, whether to stop: an iterate certified
        with a residual 1e-3 below the tolerance, a fixed point, or a failed step)."""
        n = q.n
        Hd = H + delta * np.eye(n)
        lbC, ubC, lb, ub = sides
        for _ in range(PROX_STEPS):
            step = _guarded(b, StdQP(Hd, q.g - delta * w, q.A, q.b, q.C, lbC, ubC, lb, ub, False))
            wn = _usable(step, n)
            if wn is None or not step.ok:
                return best, w, True
            cert = certify(q, wn, step.y, step.z, step.z_box, self.kkt_tol)
            moved = float(np.abs(wn - w).max(initial=0.0))
            w = wn
            if cert.ok:
                best = (wn, cert, step)
                if cert.dual <= 1e-3 * self.kkt_tol or moved <= 1e-13 * (1.0 + float(np.abs(wn).max())):
                    return best, w, True
            elif best is None or best[1] is None:
                best = (wn, None, step)  # (the last iterate: refined when none is certified)
        return best, w, False

    def _fallback(self, q: StdQP, b: Backend[Any], x0: np.ndarray | None, notes: list[str]) -> Solved | None:
        b.reset()
        fb = _guarded_fallback(b, q, x0)
        if fb is None:
            return None
        desc, raw = fb
        return self._try(q, raw, False, self.name, f"{self.name} {desc}", notes)

    def _rescue(self, q: StdQP, notes: list[str]) -> Iterator[Solved | None]:
        """The rescue backends' answers, in turn (cold; the exact ones with :meth:`_judged`)."""
        for name in self.rescue:
            r = self._rescuers.get(name)
            if r is None:
                r = self._rescuers[name] = make_backend(name, False, {}, False)
            r.reset()
            sol = self._judged(q, _guarded(r, q), r, None, name, f"rescue: {name}", notes)
            if sol is not None and sol.fallback is None:
                sol.fallback = f"rescue: {name}"
            yield sol

    def _from_feasible_start(self, q: StdQP, start: np.ndarray, notes: list[str]) -> Solved | None:
        """Step 5 of the module docstring: the refinement from a feasible point, certified as always."""
        ref = refine(q, start, self.kkt_tol)
        if ref is None:
            notes.append("refinement from a feasible point: no certified optimum")
            return None
        x, _y, z, zb, cert = ref
        cert.z, cert.z_box = (z if q.mc else None), (zb if q.has_bounds else None)
        raw = RawResult(x, True, "solved (refined from a feasible point)")
        return self._solved(x, cert, raw.status, raw, "refine", "feasible start")

    @staticmethod
    def _solved(x: np.ndarray, cert: Certificate, status: str, raw: RawResult, who: str,
                fallback: str | None, exact: bool = True) -> Solved:  # fmt: skip
        return Solved(x, cert.z, cert.z_box, status, raw.iterations, cert.primal, cert.dual, cert.dual_scale,
                      who, fallback, cert.gradient, exact)  # fmt: skip

    def _try(self, q: StdQP, raw: RawResult, exact: bool, who: str, fallback: str | None,
             notes: list[str]) -> Solved | None:  # fmt: skip
        """Certify (refining when allowed) one backend answer; None (and a note) when it fails."""
        x = _usable(raw, q.g.shape[0])
        label = who if fallback is None else fallback
        if x is None:
            notes.append(f"{label}: {raw.status}" + (" (not solved)" if raw.x is not None else ""))
            return None
        status = raw.status if raw.ok else f"{raw.status} (inaccurate)"
        cert = None
        if exact or not self.polish:
            cert = certify(q, x, raw.y, raw.z, raw.z_box, self.kkt_tol)
            loose = _loose(cert, self.kkt_tol, exact, self.tighten)
            if cert.ok and not (loose and self.polish):
                return self._solved(x, cert, status, raw, who, fallback, exact)
            if not self.polish:
                self._failed(label, status, cert, notes)
                return None
        found = self._refined(q, x, raw, cert, status, who, fallback, exact)
        if isinstance(found, Solved):
            return found
        self._failed(label, status, found, notes)
        return None

    def _failed(self, label: str, status: str, cert: Certificate, notes: list[str]) -> None:
        """Note why an answer was rejected."""
        unresolved = f", multipliers up to {cert.dual_scale:.3g} unresolved" if cert.unresolved else ""
        if cert.oversized:
            unresolved += ", the answer beyond what the data resolve"
        notes.append(
            f"{label}: {status}; KKT certificate failed (relative residuals: primal {cert.primal:.3g}, "
            f"dual {cert.dual:.3g}, complementarity {cert.complementarity:.3g}{unresolved}; tolerance "
            f"{self.kkt_tol:g})"
        )

    def _refined(self, q: StdQP, x: np.ndarray, raw: RawResult, cert: Certificate | None, status: str,
                 who: str, fallback: str | None, exact: bool) -> Solved | Certificate:  # fmt: skip
        """The answer x (of ``raw``, from an ``exact`` backend or not) refined on its active set (or, when
        refinement finds nothing better, the answer itself if it is a KKT point); otherwise the failed
        certificate of the answer."""
        ref = refine(q, x, self.kkt_tol, raw.z, raw.z_box)
        if ref is not None:
            xr, _y, z, zb, c = ref
            c.z, c.z_box = (z if q.mc else None), (zb if q.has_bounds else None)
            if cert is not None and cert.ok and c.marginal and cost(q, x) < cost(q, xr):
                return self._solved(x, cert, status, raw, who, fallback, exact)  # both within rounding
            return self._solved(xr, c, f"{status} (refined)", raw, who, fallback)
        if cert is None:
            cert = certify(q, x, raw.y, raw.z, raw.z_box, self.kkt_tol)
        if cert.ok:  # refinement found no better active set, but the answer is a KKT point
            return self._solved(x, cert, f"{status} (unrefined)", raw, who, fallback, exact)
        return cert


def _residual(sol: Solved | Certificate) -> float:
    """The larger of a certified answer's relative stationarity and feasibility residuals: the smaller,
    the tighter the answer (a feasibility residual of 1e-7 that the certificate passes still violates a
    hard constraint beyond the 1e-9 the hierarchy's answers keep)."""
    return max(sol.dual, sol.primal)


#: a proximal iterate: (w, its certificate or None when it failed, the backend's result)
_Iterate = tuple[np.ndarray, Certificate | None, RawResult]


def _loose(cert: Certificate, tol: float, exact: bool = False, tighten: bool = True) -> bool:
    """Refine before accepting: a stationarity or feasibility residual above :data:`LOOSE`·tol (when
    ``tighten``), or a certificate that passes only within rounding (``marginal``) from an iterative
    backend.

    An exact (active-set) backend's marginal answer whose residuals are below LOOSE·tol is accepted as it
    is: it solved the equality system of its active set, and the certificate shows it optimal to 1e-4 of
    the tolerance within what the problem's formation resolves; refinement on the same active set can
    only move it by rounding, at the cost of a second solve of the same system.
    """
    if tighten and (cert.dual > LOOSE * tol or cert.primal > LOOSE * tol):
        return True
    return cert.marginal and not exact


def _relaxed(side: np.ndarray | None, sign: float) -> np.ndarray | None:
    """A side (in w, so the current point x̄ is w = 0) of the inequality rows or bounds moved outwards by
    :data:`PROX_RELAX`·(1 + |side|), and up to w = 0 where x̄ lies outside it by at most
    :data:`PROX_INHERITED`·(1 + |side|): active sets of constraints that the levels above made linearly
    dependent (a row fixed by higher rows up to rounding, two rows that became parallel) leave a sliver
    that the rounding of x̄ itself (the level above's certified answer, feasible to ~1e-9) can close, and
    an active-set method then declares the level infeasible. The iterates may sit that much outside: far
    inside the certificate's feasibility tolerance, and no further than x̄ already was."""
    if side is None:
        return None
    slack = 1.0 + np.abs(side)
    out: np.ndarray = side + sign * PROX_RELAX * slack
    with np.errstate(invalid="ignore"):
        inherited = (sign * side < 0.0) & (-sign * side <= PROX_INHERITED * slack)
    if inherited.any():
        out = np.where(inherited, sign * PROX_RELAX * slack, out)
    return out


def _guarded_fallback(b: Backend[Any], q: StdQP, x0: np.ndarray | None) -> tuple[str, RawResult] | None:
    try:
        return b.solve_fallback(q, x0)
    except Exception as exc:  # the fallback itself crashed
        return "fallback", RawResult(None, False, f"{type(exc).__name__}: {exc}")
