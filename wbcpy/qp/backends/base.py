"""Base class of the backend adapters: one solve in three steps, and the helpers the adapters share.

An adapter turns a :class:`~wbcpy.qp.kkt.StdQP` into one backend call in the matrix format that backend
prefers (dense for the dense active-set and proximal solvers, CSC for the sparse ones), with tolerances
tight enough for the scene's λ = 1e-8 regularisation, and maps the backend's multipliers onto the
convention of :mod:`wbcpy.qp.kkt`. Adapters never emit warnings and never print.

Every adapter solves the same way (:meth:`Backend.solve`):

1. :meth:`Backend._run` — set the problem up in the backend's format (updating a persistent workspace
   when the structure allows it, warm-starting when asked) and call the backend; it reports a
   :data:`Run` tuple: the backend's status code, its text, iterations, x and the multipliers as reported;
2. the adapter's :attr:`Backend.statuses` table maps the status code onto an :class:`Outcome` (a code
   not in the table is a failure); a failure, or a run without x or multipliers, forgets the workspace
   (:meth:`Backend.reset`) and returns a failed :class:`~wbcpy.qp.kkt.RawResult`;
3. :meth:`Backend._multipliers` maps the reported multipliers onto (y, z, z_box).
"""

from __future__ import annotations

import enum
from collections.abc import Hashable, Iterable, Mapping
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np
import scipy.sparse as sp

from ...errors import ConfigError
from ..kkt import Matrix, RawResult, StdQP, as_dense

#: the multipliers a backend reports, in its own layout (array, result object, ...)
D = TypeVar("D")
#: (y, z, z_box) in the convention of :mod:`wbcpy.qp.kkt` (None: not reported / block absent)
Multipliers = tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]

_NO_ROWS = np.zeros(0, dtype=np.intp)
_NO_ROWS.flags.writeable = False


class Outcome(enum.Enum):
    """What a backend status means for wbcpy."""

    #: the backend reports an optimum (certified as it is by exact backends, refined otherwise)
    SOLVED = "solved"
    #: the backend stopped early (iteration limit, inaccurate): x may still be refined into an optimum
    INACCURATE = "inaccurate"
    #: no usable answer (infeasible, unbounded, numerical failure, crash)
    FAILED = "failed"


_FAILED, _INACCURATE = Outcome.FAILED, Outcome.INACCURATE


#: What :meth:`Backend._run` reports, a plain tuple (no object built per call):
#: ``(code, text, iterations, x, duals)`` — the backend's status code (a key of
#: :attr:`Backend.statuses`; any other value fails), the status as text, the iteration count (None when
#: not reported), x as a float64 array and the multipliers in the backend's layout (None when the
#: backend returned none).
Run = tuple[Hashable, str, int | None, np.ndarray | None, D | None]

#: Inequality rows ``(C, lo, hi)``: lo ≤ C x ≤ hi
Rows = tuple[np.ndarray, np.ndarray, np.ndarray]
#: What :meth:`Backend.solve_fused_level` returns: ``(w, z, t, primal, dual, max scale, c_rows, b_rows,
#: status, iterations, x, marginal)`` — the answer; without a null space the gradient t = H w + g of the box
#: certificate (:func:`wbcpy.qp.kkt.certify_box`; z, c_rows and b_rows None), on one the row multipliers z
#: of the rows certificate and the indices of the rows kept (``c_rows``: of ``rows``, ``b_rows``: of the
#: bounds, as rows of Z; None where that block is absent; t None); the certificate's residuals (≤ the
#: tolerance) and stationarity scale minus 1, the status text, the iteration count, and the next point
#: x = clip(x̄ + Z w, lb, ub); ``marginal``: the certificate passed only with the rounding allowance of the
#: magnitudes the level was formed from (:func:`wbcpy.qp.kkt.certify_box`, ``_dual_error``).
FusedAnswer = tuple[np.ndarray, np.ndarray | None, np.ndarray | None, float, float, float, np.ndarray | None,
                    np.ndarray | None, str, int, np.ndarray, bool]  # fmt: skip


class Backend(Generic[D]):
    """One backend with its tuned default options and (optionally) a persistent workspace.

    Class attributes:
        name: backend name as in ``qpsolvers.available_solvers``.
        exact: True for active-set / direct solvers whose solution is exact up to rounding (no polish).
        defaults: options applied unless the user overrides them.

    Attributes:
        statuses: backend status code → :class:`Outcome` (codes not listed are failures).
        warm_start: reuse previous answers and workspaces.
        options: effective options (defaults merged with the user's).
        reused: the last solve updated a persistent workspace (the level solver retries once cold if
            such a solve fails: stale internal state must not turn a feasible problem into a failure).
    """

    name: ClassVar[str] = ""
    exact: ClassVar[bool] = False
    defaults: ClassVar[dict[str, Any]] = {}
    statuses: Mapping[Hashable, Outcome] = {}

    def __init__(self, warm_start: bool = True, options: dict[str, Any] | None = None) -> None:
        user = dict(options or {})
        valid = set(self.option_names())
        for key in user:
            if valid and key not in valid:
                raise ConfigError(
                    f"solver_options.{key}",
                    f"unknown option for QP solver {self.name!r}; valid options: {', '.join(sorted(valid))}",
                )
        self.warm_start = bool(warm_start)
        self.options: dict[str, Any] = {**self.defaults, **user}
        self.reused = False

    @classmethod
    def option_names(cls) -> Iterable[str]:
        """Names of the options this backend accepts (empty = not checked)."""
        return ()

    def reset(self) -> None:
        """Forget any persistent workspace (called after a failure)."""

    def solve(self, q: StdQP, x0: np.ndarray | None) -> RawResult:
        """Solve ``q``; ``x0`` is a warm-start guess (None = cold start). See the module docstring."""
        code, text, iterations, x, duals = self._run(q, x0)
        outcome = self.statuses.get(code, _FAILED)
        if outcome is _FAILED or x is None or duals is None:
            self.reset()
            return RawResult(None, False, text, iterations)
        y, z, z_box = self._multipliers(q, duals)
        inaccurate = outcome is _INACCURATE
        return RawResult(x, not inaccurate, text, iterations, y, z, z_box, inaccurate)

    def _run(self, q: StdQP, x0: np.ndarray | None) -> Run[D]:  # pragma: no cover - interface
        """Set ``q`` up in the backend's format (workspace reused / warm-started as configured), call
        the backend and report what it returned."""
        raise NotImplementedError

    def _multipliers(self, q: StdQP, duals: D) -> Multipliers:  # pragma: no cover - interface
        """(y, z, z_box) of ``q`` from the multipliers in the backend's layout."""
        raise NotImplementedError

    def solve_fused_level(self, A: np.ndarray, y: np.ndarray, r: np.ndarray, Z: np.ndarray | None,
                          xbar: np.ndarray | None, rows: Rows | None, lb: np.ndarray | None,
                          ub: np.ndarray | None, x0: np.ndarray | None,
                          tol: float) -> FusedAnswer | None:  # fmt: skip
        """A hierarchy level (‖A x − y‖² + Σ r x², lb ≤ x ≤ ub and the rows lo ≤ C x ≤ hi of ``rows`` =
        (C, lo, hi), on x = x̄ + Z w) built, solved and certified in one compiled call, for the backends
        that have one (DAQP); None otherwise, or when that call does not settle the level: the level is
        then built as a :class:`StdQP` and solved by :meth:`solve`, whose answer it would be."""
        return None

    def solve_fallback(self, q: StdQP, x0: np.ndarray | None) -> tuple[str, RawResult] | None:
        """Second attempt with more robust (less exact) settings after a failed :meth:`solve`.

        Returns:
            (description of the settings, result), or None when the backend has no fallback. The
            result is treated as inexact: it is polished and fully KKT-checked.
        """
        return None


def finite_rows(lo: np.ndarray | None, hi: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the rows with a finite lower side and of those with a finite upper side."""
    lo_idx = np.flatnonzero(np.isfinite(lo)) if lo is not None else _NO_ROWS
    hi_idx = np.flatnonzero(np.isfinite(hi)) if hi is not None else _NO_ROWS
    return lo_idx, hi_idx


class OneSided:
    """The finite sides of ``lbC ≤ C x ≤ ubC`` (and of ``lb ≤ x ≤ ub``) as one-sided rows.

    For backends that take ``G x ≤ h`` (``geq=False``: the row of an upper side is ``C_i``, of a lower
    side ``−C_i``) or ``G x ≥ h`` (``geq=True``: signs swapped). A row's multiplier μ ≥ 0 adds
    σ·μ·C_i to the stationarity residual, σ = +1 for an upper side and −1 for a lower one, in either form;
    :meth:`scatter` sums them into z and z_box.

    Args:
        q: the problem.
        upper_first: order of the two sides of each block (the order of the rows handed over).
        bounds: also turn the bounds into rows (after the rows of C).
    """

    __slots__ = ("parts",)

    def __init__(self, q: StdQP, upper_first: bool, bounds: bool) -> None:
        c_lo, c_hi = finite_rows(q.lbC, q.ubC) if q.mc else (_NO_ROWS, _NO_ROWS)
        b_lo, b_hi = finite_rows(q.lb, q.ub) if bounds else (_NO_ROWS, _NO_ROWS)
        c, b = [(c_hi, 1.0), (c_lo, -1.0)], [(b_hi, 1.0), (b_lo, -1.0)]
        if not upper_first:
            c.reverse()
            b.reverse()
        #: (is a bound, indices, σ) per block of rows, in the order handed to the backend
        self.parts: list[tuple[bool, np.ndarray, float]] = [(False, i, s) for i, s in c] + [
            (True, i, s) for i, s in b
        ]

    @property
    def size(self) -> int:
        """Number of one-sided rows."""
        return sum(idx.size for _, idx, _ in self.parts)

    def rows(self, q: StdQP, C: Matrix, eye: Matrix, geq: bool) -> tuple[list[Matrix], list[np.ndarray]]:
        """The row blocks (of ``C`` and ``eye``, dense or sparse) and right-hand sides, empty blocks
        left out."""
        blocks: list[Matrix] = []
        rhs: list[np.ndarray] = []
        for box, idx, sigma in self.parts:
            if not idx.size:
                continue
            side = (q.ub if box else q.ubC) if sigma > 0 else (q.lb if box else q.lbC)
            if side is None:  # pragma: no cover - finite_rows found no index on an absent side
                continue
            M = (eye if box else C)[idx]
            if (sigma < 0) != geq:
                blocks.append(-M)
                rhs.append(-side[idx])
            else:
                blocks.append(M)
                rhs.append(side[idx])
        return blocks, rhs

    def scatter(
        self, mult: np.ndarray, start: int, mc: int, n_box: int | None
    ) -> tuple[np.ndarray | None, np.ndarray | None]:
        """(z, z_box) from the rows' multipliers ``mult[start:]`` (z None when ``mc`` = 0, z_box None
        when ``n_box`` is None)."""
        z = np.zeros(mc) if mc else None
        zb = np.zeros(n_box) if n_box is not None else None
        k = start
        for box, idx, sigma in self.parts:
            out = zb if box else z
            if out is not None and idx.size:
                seg = mult[k : k + idx.size]
                if sigma > 0:
                    out[idx] += seg
                else:
                    out[idx] -= seg
            k += idx.size
        return z, zb


def sparse_or_dense(M: Matrix, sparse: bool) -> Matrix:
    """M as a CSC matrix (``sparse``) or as a dense array."""
    return sp.csc_matrix(M) if sparse else as_dense(M)
