"""Dense active-set backends: DAQP and quadprog (exact up to rounding; called directly, dense matrices)."""

from __future__ import annotations

import inspect
from collections.abc import Hashable, Iterable, Mapping
from typing import Any, ClassVar

import numpy as np

from ..._kernels import daqp_solve as _daqp_solve
from ..._kernels import fused_level as _fused_level
from ...errors import ConfigError
from ..kkt import RawResult, StdQP, as_dense
from .base import Backend, FusedAnswer, Multipliers, OneSided, Outcome, Rows, Run
from .bounded_call import CallTimeoutError, call_within
from .daqp_direct import settings_vector

#: DAQP exit flags: text, and the outcome of the positive ones (every flag ≤ 0 is a failure)
_DAQP_EXIT: dict[int, str] = {
    1: "solved",
    2: "solved (soft constraints relaxed)",
    -1: "primal infeasible",
    -2: "cycling detected",
    -3: "unbounded",
    -4: "iteration limit reached",
    -5: "non-convex problem (H not positive definite)",
    -6: "overdetermined initial working set",
}
#: DAQP's fallback: forced proximal-point iterations with this weight (see :class:`DaqpBackend`)
FALLBACK_EPS_PROX = 1e-6
#: warm-start DAQP (``primal_start``) from the previous answer only when it had at least this many active
#: constraints (see :meth:`DaqpBackend._run`)
WARM_MIN_ACTIVE = 16
#: how the compiled level answered, when not by DAQP's first run (the status text's suffix)
_HOW = {
    1: " (second run, zero_tol 1e-14)",
    2: " (unconstrained least-squares minimiser)",
    3: " (unconstrained minimiser, Cholesky)",
    4: " (active-set iterations from the last working set)",
}
#: the compiled level's unconstrained least-squares minimiser first (after DAQP crawled): DAQP is tried
#: again after this many such steps, an interval that doubles, up to :data:`LS_PROBE_MAX`, while DAQP
#: still crawls (see :meth:`DaqpBackend._next_start`); the limit 32 is chosen from bench_states.py's
#: Talos family (docs/benchmarks.md): the twelve-decade state's step as with 256, the states after it
#: back on DAQP within 32 steps
LS_PROBE_FIRST = 8
LS_PROBE_MAX = 32
#: after a Cholesky-first attempt of the compiled level that did not settle it (a constraint active, or a
#: pivot below 1e-9 of the largest), DAQP goes first for this many calls (see :meth:`DaqpBackend._chol_first`)
CHOL_PAUSE = 16
#: status code of a DAQP run: True for a positive exit flag (an optimum), else the flag
_DAQP_STATUSES: dict[Hashable, Outcome] = {True: Outcome.SOLVED}


class DaqpBackend(Backend[np.ndarray]):
    """DAQP (dual active-set, dense): ``blower ≤ [I; C; A] x ≤ bupper`` with equality flags.

    Default options: ``primal_tol = 1e-10`` (DAQP's default 1e-6 would let bounds be violated by 1e-6).
    Warm start passes the previous solution as ``primal_start`` (initial working set) when its working set
    was large (:data:`WARM_MIN_ACTIVE` constraints or more): below that a cold start is cheaper.

    A cold solve calls DAQP's C solver directly where the installed daqp allows it
    (:mod:`~.daqp_direct`: the same function on the same arrays, without the wrapper's Python work); warm
    starts go through ``daqp.solve``. The compiled level (:meth:`solve_fused_level`) may answer before
    DAQP by the level's unconstrained minimiser (by Cholesky where the last answer had no active
    constraint, :meth:`_chol_first`; by QR after DAQP crawled, :meth:`_next_start`) or, on a box level,
    by active-set iterations from the last answer's working set (:meth:`_working_set`): no new silent path,
    each is a candidate the kernel's certificate judges exactly as it judges DAQP's answer (stationarity
    with zero multipliers, every row and bound met), and the level goes to DAQP where it fails.

    Fallback: on strongly degenerate, badly conditioned problems (many active bounds and directions of
    curvature λ = 1e-8 only) DAQP can report cycling or infeasibility. It is then re-run with forced
    proximal-point iterations (``eps_prox = 1e-6``), which are robust but stop early; that result is
    polished and checked like an iterative backend's.

    The multipliers DAQP reports (``lam``) follow its rows ``[I; C; A]`` (the identity block only when
    there are bounds). Per structure (n, m_eq, m_in, bounds) the sense flags and constant blocks are
    made once; a solve allocates only the stacked rows and sides it hands over.
    """

    name: ClassVar[str] = "daqp"
    exact: ClassVar[bool] = True
    defaults: ClassVar[dict[str, Any]] = {"primal_tol": 1e-10}
    statuses: Mapping[Hashable, Outcome] = _DAQP_STATUSES

    def __init__(self, warm_start: bool = True, options: dict[str, Any] | None = None) -> None:
        import daqp

        super().__init__(warm_start, options)
        self._solve = daqp.solve
        self._key: tuple[int, int, int, bool] | None = None
        self._sense = np.zeros(0, dtype=np.intc)
        self._no_rows = np.zeros((0, 0))
        self._inf = np.zeros(0)
        self._empty = np.zeros(0)
        self._slices: tuple[slice | None, slice | None, slice | None] = (None, None, None)
        self._active = 0  # size of the last working set (see _report)
        self._ls_first = False  # the compiled level tries the unconstrained minimiser first (see below)
        self._ls_left = 0  # steps of it left before DAQP is tried again
        self._ls_probe = LS_PROBE_FIRST  # the current interval between those tries
        self._chol_ready = False  # no active constraint last time, or a box level's set kept (_chol_first)
        self._chol_wait = 0  # calls left before a Cholesky-first attempt after one that did not settle
        self._working = np.zeros(0, dtype=np.int8)  # the box level's last working set (see _working_set)
        self._settings: np.ndarray | None = None  # the direct call's settings (_direct_settings)
        self._settings_for: dict[str, Any] | None = None

    @classmethod
    def option_names(cls) -> Iterable[str]:
        import daqp

        try:
            params = inspect.signature(daqp.solve).parameters
        except (TypeError, ValueError):  # pragma: no cover - compiled signature not introspectable
            return ()
        skip = {"H", "f", "A", "bupper", "blower", "sense", "primal_start", "dual_start"}
        return [p for p in params if p not in skip]

    def _structure(self, key: tuple[int, int, int, bool]) -> None:
        """Sense flags (equalities: active + immutable = 5), constant blocks and the slices of the
        multipliers of one structure (n, m_eq, m_in, bounds); rows are ``[I; C; A]``."""
        n, meq, mc, has_box = key
        ms = n if has_box else 0
        self._sense = np.zeros(ms + mc + meq, dtype=np.intc)  # DAQP does not modify it
        self._sense[ms + mc :] = 5
        self._no_rows = np.zeros((0, n))
        self._inf = np.full(n, np.inf)
        self._slices = (
            slice(ms + mc, None) if meq else None,
            slice(ms, ms + mc) if mc else None,
            slice(0, ms) if has_box else None,
        )
        self._key = key

    def _sides(self, q: StdQP, has_box: bool, meq: int, mc: int) -> tuple[np.ndarray, np.ndarray]:
        """(bupper, blower) over the rows ``[I; C; A]``."""
        parts_u: list[np.ndarray] = []
        parts_l: list[np.ndarray] = []
        if has_box:
            parts_u.append(q.ub if q.ub is not None else self._inf)
            parts_l.append(q.lb if q.lb is not None else -self._inf)
            if not (mc or meq):
                return parts_u[0], parts_l[0]
        elif not (mc or meq):
            return self._empty, self._empty
        if mc and q.lbC is not None and q.ubC is not None:
            parts_u.append(q.ubC)
            parts_l.append(q.lbC)
        if meq and q.b is not None:
            parts_u.append(q.b)
            parts_l.append(q.b)
        if len(parts_u) == 1:  # (rows only: the sides as they are)
            return parts_u[0], parts_l[0]
        return np.concatenate(parts_u), np.concatenate(parts_l)

    def _inputs(self, q: StdQP) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(H, rows [C; A], bupper, blower) as DAQP takes them (the structure's constants made once)."""
        H, A, C = q.dense() if q.sparse else (q.H, q.A, q.C)
        meq = 0 if A is None else A.shape[0]
        mc = 0 if C is None else C.shape[0]
        has_box = q.lb is not None or q.ub is not None
        key = (H.shape[0], meq, mc, has_box)
        if key != self._key:
            self._structure(key)
        rows = self._rows(C, A)
        if has_box and not (mc or meq) and q.lb is not None and q.ub is not None:
            return H, rows, q.ub, q.lb  # (bounds only, both sides: the common case of a scene level)
        bu, bl = self._sides(q, has_box, meq, mc)
        return H, rows, bu, bl

    def _run(self, q: StdQP, x0: np.ndarray | None) -> Run[np.ndarray]:
        H, rows, bu, bl = self._inputs(q)
        # warm start only where the working set is large: setting up primal_start costs more than the
        # iterations it saves below ~16 active constraints (a threshold from a measurement with daqp 0.11:
        # docs/benchmarks.md)
        warm = self._warm_worth_it(x0)
        if not warm:
            run = self._direct(H, q.g, rows, bu, bl)
            if run is not None:
                return run
        start = {"primal_start": x0} if warm else {}
        x, _fval, flag, info = self._solve(H, q.g, rows, bu, bl, self._sense, **start, **self.options)
        return self._report(x, int(flag), info.get("iterations"), info["lam"], warm)

    def _direct(self, H: np.ndarray, g: np.ndarray, rows: np.ndarray, bu: np.ndarray,
                bl: np.ndarray) -> Run[np.ndarray] | None:  # fmt: skip
        """A cold solve by ``daqp_quadprog`` itself (:mod:`~.daqp_direct`); None where that call is not
        available for these options or does not take these arrays (strided, another dtype)."""
        settings = self._direct_settings()
        if settings is None:
            return None
        try:
            x, lam, flag, iterations = _daqp_solve(H, g, rows, bu, bl, self._sense, settings)
        except (TypeError, ValueError):
            return None
        return self._report(x, flag, iterations, lam, False)

    def solve_fused_level(self, A: np.ndarray, y: np.ndarray, r: np.ndarray, Z: np.ndarray | None,
                          xbar: np.ndarray | None, rows: Rows | None, lb: np.ndarray | None,
                          ub: np.ndarray | None, x0: np.ndarray | None,
                          tol: float) -> FusedAnswer | None:  # fmt: skip
        """The level by :func:`wbcpy._kernels.fused_level` (the cold direct solve of :meth:`_run` and the
        certificate on the same numbers) where :meth:`_run` would solve it cold and directly."""
        if self.warm_start and x0 is not None and self._active >= WARM_MIN_ACTIVE:  # (_warm_worth_it)
            return None
        settings = self._settings if self._settings_for is self.options else self._direct_settings()
        if settings is None:
            return None
        C, lo, hi = rows if rows is not None else (None, None, None)
        tried = self._ls_first and self._ls_left > 0
        box = Z is None and rows is None
        first = self._chol_first(tried, box, A.shape[1])
        try:
            out = _fused_level(A, y, r, Z, xbar, C, lo, hi, lb, ub, settings, tol, x0 if tried else None,
                               first)  # fmt: skip
        except (TypeError, ValueError):  # (arrays or a shape the kernel does not take: the Python path)
            return None
        if out is None:
            self._ls_first = self._chol_ready = False
            return None
        w, z, t, primal, dual, smax, c_rows, b_rows, flag, iterations, x, marginal, how, active = out
        self._after_compiled(tried, first is not False, how, active, box)
        status = "solved" if flag == 1 and how == 0 else _DAQP_EXIT.get(flag, "solved") + _HOW.get(how, "")
        return w, z, t, primal, dual, smax, c_rows, b_rows, status, iterations, x, bool(marginal)

    def _after_compiled(self, tried_first: bool, chol: bool, how: int, active: int, box: bool) -> None:
        """What a compiled answer tells the next call: the working set's size, which minimiser goes first
        (:meth:`_next_start`; how 2: the least-squares minimiser answered, 3: the Cholesky one — DAQP
        would not crawl) and the Cholesky attempt's pause (:meth:`_chol_first`). A box level (no null
        space, no rows) keeps its working set (:meth:`_working_set`): the next call starts from it."""
        self._active = active
        if not tried_first and how != 2:  # (_next_start's common case: DAQP did not crawl, nothing to change)
            self._ls_first, self._ls_probe = False, LS_PROBE_FIRST
        else:
            self._next_start(tried_first, how == 2)
        if chol and how not in (3, 4):
            self._chol_wait = CHOL_PAUSE
        self._chol_ready = active == 0 or box

    def _next_start(self, tried_first: bool, minimiser: bool) -> None:
        """Whether the next compiled level tries the unconstrained least-squares minimiser first.

        The kernel takes that minimiser where DAQP crawled through many proximal iterations to a point
        with no active constraint (weights over twelve decades): one QR costs less there than DAQP's
        iterations, but more than DAQP's usual few. So it goes first after
        a crawl, and DAQP is tried again after :data:`LS_PROBE_FIRST` such steps, then after twice as
        many while it still crawls (up to :data:`LS_PROBE_MAX`): a state that stops being
        ill-conditioned goes back to DAQP within that interval, instead of keeping the slower QR for
        good.
        ``tried_first``: this call tried the minimiser first; ``minimiser``: it answered by it."""
        if tried_first:
            if minimiser:
                self._ls_left -= 1
            else:  # (it left the cones or the box: DAQP answered; it goes first next time)
                self._ls_first = False
            return
        if minimiser:  # DAQP crawled: the minimiser first, for longer when this was already a retry
            self._ls_probe = min(2 * self._ls_probe, LS_PROBE_MAX) if self._ls_first else LS_PROBE_FIRST
            self._ls_first, self._ls_left = True, self._ls_probe
        else:
            self._ls_first, self._ls_probe = False, LS_PROBE_FIRST

    def reset(self) -> None:
        """After a failure, or a compiled answer the level solver did not take: the next compiled level
        starts with DAQP (no Cholesky-first attempt from what that answer told)."""
        self._chol_ready = False
        self._working[:] = 0

    def _working_set(self, n: int) -> np.ndarray:
        """The working set a box level's compiled call starts from and writes its answer's into (−1 at the
        lower bound, +1 at the upper one, 0 free; n entries, zeros for a new size).

        Where the last answer had active bounds (a walking robot's joint limits, active over many steps),
        the level with those variables fixed is one factorisation of the free block and its primal-dual
        active-set iterations (at most a few) settle the changes since, where DAQP would start cold; each
        answer is certified as DAQP's is, and a set that does not settle leaves the level to DAQP."""
        if self._working.shape[0] != n:
            self._working = np.zeros(n, dtype=np.int8)
        return self._working

    def _chol_first(self, ls_first: bool, box: bool = False, n: int = 0) -> bool | np.ndarray:
        """Whether the compiled level tries the unconstrained minimiser by Cholesky before DAQP (and before
        the least-squares minimiser's QR, ``ls_first``): the kernel's ``chol_first``, which on a box level
        (``box``: no null space, no rows; n variables) is its working set (:meth:`_working_set`) where the
        attempt is on.

        Where the level's optimum has no active constraint (a robot standing or swaying on flat feet: its
        friction cones and torque limits are not touched), that minimiser is the answer, certified like
        DAQP's, for a factorisation of H and triangular solves instead of DAQP's setup: on the Talos
        contact level, the cheaper of the two (docs/benchmarks.md). It is tried where the level's
        last compiled answer had no active constraint; an attempt that does not settle the level (a
        constraint is active now, or a pivot is below 1e-9 of the largest) costs that factorisation, and DAQP
        then goes first for :data:`CHOL_PAUSE` calls. While the QR goes first (after weights over
        twelve decades: :meth:`_next_start`), the attempt is made at every call, the pause aside: it costs
        a few percent of the QR, and where it settles the level the weights are ordinary again (without
        it, a state after such an episode kept the QR for up to :data:`LS_PROBE_MAX` steps). A fresh
        backend starts with DAQP."""
        if not ls_first and self._chol_wait > 0:
            self._chol_wait -= 1
            return False
        if box and self._chol_ready:
            working = self._working
            return working if working.shape[0] == n else self._working_set(n)
        return self._chol_ready

    def _warm_worth_it(self, x0: np.ndarray | None) -> bool:
        """Warm-start from ``x0`` (through ``daqp.solve``): only when the last working set was large."""
        return self.warm_start and x0 is not None and self._active >= WARM_MIN_ACTIVE

    def _direct_settings(self) -> np.ndarray | None:
        """The settings vector of the direct call for the current options (None: use the wrapper); made
        again when the options object changes (:meth:`solve_with`)."""
        if self._settings_for is not self.options:
            self._settings = settings_vector(self.options)
            self._settings_for = self.options
        return self._settings

    def _rows(self, C: np.ndarray | None, A: np.ndarray | None) -> np.ndarray:
        """The general rows ``[C; A]`` DAQP sees below its bound rows (no copy for one block)."""
        if C is not None and C.shape[0]:
            return np.vstack([C, A]) if A is not None and A.shape[0] else C
        if A is not None and A.shape[0]:
            return A
        return self._no_rows

    def _report(self, x: np.ndarray, flag: int, iterations: int | None, lam: np.ndarray,
                warm: bool) -> Run[np.ndarray]:  # fmt: skip
        """What DAQP returned: a positive exit flag is an optimum (status code True), any other fails.
        Keeps the size of the working set: its active multipliers (not the iteration count: proximal
        iterations on an ill-conditioned level run many more iterations than constraints)."""
        self._active = int(np.count_nonzero(lam))
        if flag <= 0:
            return flag, _DAQP_EXIT.get(flag, f"exitflag {flag}"), iterations, None, None
        return True, _DAQP_EXIT.get(flag, "solved"), iterations, x, lam  # (x: a new float64 array)

    def _multipliers(self, q: StdQP, duals: np.ndarray) -> Multipliers:
        ys, zs, bs = self._slices
        return (
            None if ys is None else duals[ys],
            None if zs is None else duals[zs],
            None if bs is None else duals[bs],
        )

    def solve_fallback(self, q: StdQP, x0: np.ndarray | None) -> tuple[str, RawResult] | None:
        if self.options.get("eps_prox", -1.0) >= FALLBACK_EPS_PROX:  # (already as robust as that)
            return None
        opts = {**self.options, "eps_prox": FALLBACK_EPS_PROX}
        return "eps_prox=1e-06", self.solve_with(q, x0, opts)

    def solve_with(self, q: StdQP, x0: np.ndarray | None, options: dict[str, Any]) -> RawResult:
        """:meth:`solve` with the DAQP ``options`` for this call (the adapter's own are restored after)."""
        saved = self.options
        self.options = options
        try:
            return self.solve(q, x0)
        finally:
            self.options = saved


class QuadprogBackend(Backend[tuple[np.ndarray, OneSided]]):
    """quadprog (Goldfarb–Idnani dual active set, dense, H positive definite).

    Constraints become ``Cqᵀ x ≥ bq`` columns: equalities first, then each finite side of C and of the
    bounds (lower side first, :class:`~.base.OneSided`); infinite sides are dropped. quadprog has no warm
    start and no tolerance options; it reports failure by raising ``ValueError``.
    """

    name: ClassVar[str] = "quadprog"
    exact: ClassVar[bool] = True
    statuses: Mapping[Hashable, Outcome] = {"solved": Outcome.SOLVED}
    #: seconds one quadprog call may take by default (option ``time_limit``; None: called directly, with
    #: no bound): ``qpgen2`` has no iteration limit and loops for ever on some problems
    #: (:mod:`~.bounded_call`); a call that has not returned by then is a failed solve
    time_limit: ClassVar[float] = 2.0

    def __init__(self, warm_start: bool = True, options: dict[str, Any] | None = None) -> None:
        import quadprog

        super().__init__(warm_start, options)
        self._solve = quadprog.solve_qp
        limit = self.options.get("time_limit", self.time_limit)
        if limit is not None and not (isinstance(limit, (int, float)) and not isinstance(limit, bool)
                                      and 0.0 < limit < float("inf")):  # fmt: skip
            raise ConfigError("time_limit", f"must be a positive number of seconds or None, got {limit!r}")
        self._limit: float | None = None if limit is None else float(limit)
        self._kwargs = {k: v for k, v in self.options.items() if k != "time_limit"}

    @classmethod
    def option_names(cls) -> Iterable[str]:
        return ["factorized", "time_limit"]

    def _run(self, q: StdQP, x0: np.ndarray | None) -> Run[tuple[np.ndarray, OneSided]]:
        H, A, C = q.dense() if q.sparse else (q.H, q.A, q.C)
        meq = q.meq
        sides = OneSided(q, upper_first=False, bounds=True)
        blocks, rhs = sides.rows(q, C, np.eye(q.n), geq=True)
        if meq and A is not None and q.b is not None:
            blocks.insert(0, A)
            rhs.insert(0, q.b)
        Cq = np.ascontiguousarray(np.vstack(blocks).T) if blocks else None
        bq = np.concatenate(rhs) if blocks else None
        Hq = np.array(as_dense(H), dtype=np.float64)  # (a copy: quadprog may overwrite G)
        Hq, a, Cq, bq, back = _scaled(Hq, -q.g, Cq, bq, bool(self._kwargs.get("factorized", False)))
        a, bq, origin = _shifted(Hq, a, Cq, bq, bool(self._kwargs.get("factorized", False)))
        try:
            args = (Hq, a, Cq, bq, meq)
            limit = self._limit
            out = self._call(*args) if limit is None else call_within(self._call, args, limit, "quadprog")
            x, _f, _xu, iters, lag, _iact = out
        except CallTimeoutError as exc:
            return "failed", f"no answer ({exc}: quadprog has no iteration limit)", None, None, None
        except ValueError as exc:
            msg = str(exc)
            if "inconsistent" in msg or "no solution" in msg:
                msg = f"primal infeasible ({msg})"
            return "failed", msg, None, None, None
        lag = np.asarray(lag, dtype=np.float64) * back
        return "solved", "solved", int(iters[0]), np.asarray(x, dtype=np.float64) + origin, (lag, sides)

    def _call(self, H: np.ndarray, a: np.ndarray, C: np.ndarray | None, b: np.ndarray | None,
              meq: int) -> tuple[Any, ...]:  # fmt: skip
        """quadprog's ``solve_qp`` with the adapter's options (on the bounded call's worker thread)."""
        out: tuple[Any, ...] = self._solve(H, a, C, b, meq, **self._kwargs)
        return out

    def _multipliers(self, q: StdQP, duals: tuple[np.ndarray, OneSided]) -> Multipliers:
        lag, sides = duals
        meq = q.meq
        z, zb = sides.scatter(lag, meq, q.mc, q.n if q.has_bounds else None)
        return (-lag[:meq] if meq else None), z, zb


def _shifted(H: np.ndarray, a: np.ndarray, C: np.ndarray | None, b: np.ndarray | None, factorized: bool,
             ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:  # fmt: skip
    """quadprog's problem min ½xᵀHx − aᵀx, Cᵀx ≥ b written for d = x − x₀ about the unconstrained minimiser
    x₀ = H⁻¹a: min ½dᵀHd − (a − Hx₀)ᵀd, Cᵀd ≥ b − Cᵀx₀. Returns (a − Hx₀, b − Cᵀx₀, x₀); the multipliers
    are those of the given problem (Hd − (a − Hx₀) = Hx − a).

    Goldfarb–Idnani starts at x₀ and its iterates stay near the answer: when both are far from the origin
    (|x| ~ 1e6 on a rescue level of a random contact scene), every slack Cᵀx − b it evaluates loses the
    digits of |Cᵀx| and ``qpgen2`` can add and drop the same constraints for ever
    (tests/qp/test_quadprog_loop.py); about x₀ the slacks keep them. Not with ``factorized`` (H is then
    R⁻¹), nor when x₀ is not finite: x₀ = 0, the problem as given."""
    origin = np.zeros_like(a)
    if factorized or not a.size:
        return a, b, origin
    try:
        x0 = np.linalg.solve(H, a)
    except np.linalg.LinAlgError:
        return a, b, origin
    if not np.isfinite(x0).all():
        return a, b, origin
    return a - H @ x0, (None if C is None or b is None else b - C.T @ x0), x0


#: (H, a, C, b, the multipliers' factor back) of :func:`_scaled`
_Scaled = tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None, np.ndarray | float]


def _scaled(H: np.ndarray, a: np.ndarray, C: np.ndarray | None, b: np.ndarray | None, factorized: bool,
            ) -> _Scaled:  # fmt: skip
    """quadprog's problem min ½xᵀHx − aᵀx, Cᵀx ≥ b scaled to the same minimiser: H and a divided by
    s = max |H_ii| (not with ``factorized``: H is then R⁻¹), each constraint column and its side by its
    norm c_i. Returns the scaled (H, a, C, b) and the factor s / c_i that takes the scaled problem's
    multipliers back to the given one's (H x − a = Σ λ_i C_i).

    The given problem can make quadprog's ``qpgen2`` loop for ever: on a rescue level of a random contact
    scene (9 variables, 19 constraints, eigenvalues of H from 1e-7 to 0.09, sides up to 1e4) quadprog
    0.1.14 never returned; scaled, it answers (tests/qp/test_quadprog_loop.py). Unit
    constraint columns keep its step lengths and dual updates of one magnitude."""
    s = 1.0
    if not factorized:
        d = float(np.abs(np.diagonal(H)).max()) if H.size else 0.0
        if d > 0.0 and np.isfinite(d):
            s = d
            H = H / s
            a = a / s
    if C is None or b is None or not C.shape[1]:
        return H, a, C, b, s
    norms = np.sqrt(np.einsum("ij,ij->j", C, C))
    norms[~(norms > 0.0)] = 1.0  # (a zero column, 0 ≥ b: left as it is)
    return H, a, np.ascontiguousarray(C / norms), b / norms, s / norms
