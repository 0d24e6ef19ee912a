"""QP containers: one quadratic program, one priority level, a hierarchy of levels, per-level status.

A :class:`QPProblem` is the standard form every backend understands::

    minimise    ½ xᵀ H x + gᵀ x
    subject to  A x = b,   lbC ≤ C x ≤ ubC,   lb ≤ x ≤ ub

A :class:`QPLevel` is one priority level in least-squares form, ‖A x − y‖² + Σ_j r_j x_j², and a
:class:`HierarchicalQP` stacks levels (index 0 = highest priority) with hard bounds shared by all levels.
:meth:`wbcpy.qp.QPSolver.solve_hierarchy` solves them lexicographically.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..errors import InvalidValueError

__all__ = ["HierarchicalQP", "LevelStatus", "QPLevel", "QPProblem"]

Matrix = np.ndarray | sp.spmatrix | sp.sparray


def _float_array(x: Any, name: str) -> np.ndarray:
    try:
        return np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidValueError(
            name, "a numeric array", type(x).__name__, reason=f"not numeric ({exc})"
        ) from None


def _matrix(x: Any, rows: int | None, n: int, name: str) -> Matrix:
    """A finite (rows, n) matrix, dense float64 or scipy CSC (sparse input stays sparse)."""
    if sp.issparse(x):
        arr = sp.csc_matrix(x, dtype=np.float64)
        data = arr.data
    else:
        arr = _float_array(x, name)
        if arr.ndim == 1 and rows is None and arr.shape[0] == n:  # a single row given as a vector
            arr = arr.reshape(1, n)
        data = arr
    if arr.ndim != 2 or arr.shape[1] != n or (rows is not None and arr.shape[0] != rows):
        raise InvalidValueError(name, (rows if rows is not None else "m", n), arr.shape)
    if not np.isfinite(data).all():
        raise InvalidValueError(name, arr.shape, arr.shape, reason="contains NaN or inf")
    return arr


def _vector(x: Any, n: int, name: str, allow_inf: bool = False) -> np.ndarray:
    arr = _float_array(x, name)
    if arr.ndim != 1 or arr.shape[0] != n:
        raise InvalidValueError(name, (n,), arr.shape)
    bad = np.isnan(arr) if allow_inf else ~np.isfinite(arr)
    if bad.any():
        what = "NaN" if allow_inf else "NaN or inf"
        raise InvalidValueError(
            name, (n,), arr.shape, reason=f"contains {what} at {np.flatnonzero(bad).tolist()}"
        )
    return arr


@dataclass
class QPProblem:
    """Quadratic program ``min ½ xᵀHx + gᵀx  s.t.  Ax = b, lbC ≤ Cx ≤ ubC, lb ≤ x ≤ ub``.

    Matrices are dense ``numpy`` arrays or ``scipy.sparse`` (CSC preferred); vectors are 1-D float arrays.
    Every constraint block is optional (``None``). Bounds may contain ``±inf`` (no bound); a variable with
    ``lb == ub`` is fixed. ``H`` must be symmetric positive semidefinite (positive definite on the free
    variables for the dense active-set backends).

    Attributes:
        H: (n, n) Hessian.
        g: (n,) linear cost.
        A: (m_eq, n) equality matrix, with ``b`` (m_eq,).
        C: (m_in, n) inequality matrix, with ``lbC`` / ``ubC`` (m_in,) (``None`` = unbounded side).
        lb: (n,) lower bounds. ub: (n,) upper bounds.
    """

    H: Matrix
    g: np.ndarray
    A: Matrix | None = None
    b: np.ndarray | None = None
    C: Matrix | None = None
    lbC: np.ndarray | None = None
    ubC: np.ndarray | None = None
    lb: np.ndarray | None = None
    ub: np.ndarray | None = None

    @property
    def n(self) -> int:
        """Number of variables."""
        return int(np.shape(self.g)[0]) if np.ndim(self.g) == 1 else int(self.H.shape[0])

    def validate(self) -> QPProblem:
        """Check shapes and values; normalise the fields to float64 arrays (or CSC) on success.

        Returns:
            self, for chaining.

        Raises:
            InvalidValueError: inconsistent shapes, a missing half of a constraint pair, NaN anywhere,
                inf outside the bound vectors, or a non-symmetric ``H``. The problem is left unchanged.
        """
        g = _float_array(self.g, "g")
        if g.ndim != 1:
            raise InvalidValueError("g", "(n,)", g.shape)
        n = g.shape[0]
        H = _matrix(self.H, n, n, "H")
        g = _vector(g, n, "g")
        asym = abs(H - H.T).max() if n else 0.0
        if asym > 1e-9 * (1.0 + abs(H).max()):
            raise InvalidValueError(
                "H", "a symmetric matrix", H.shape, reason=f"not symmetric (|H - Hᵀ| = {asym:.3g})"
            )
        A = b = C = lbC = ubC = None
        if (self.A is None) != (self.b is None):
            raise InvalidValueError("A, b", "both or neither", None, reason="equality needs both A and b")
        if self.A is not None:
            A = _matrix(self.A, None, n, "A")
            b = _vector(self.b, A.shape[0], "b")
        if self.C is None and (self.lbC is not None or self.ubC is not None):
            raise InvalidValueError("C", "a matrix", None, reason="lbC/ubC given without C")
        if self.C is not None:
            C = _matrix(self.C, None, n, "C")
            mc = C.shape[0]
            lbC = np.full(mc, -np.inf) if self.lbC is None else _vector(self.lbC, mc, "lbC", allow_inf=True)
            ubC = np.full(mc, np.inf) if self.ubC is None else _vector(self.ubC, mc, "ubC", allow_inf=True)
        lb = None if self.lb is None else _vector(self.lb, n, "lb", allow_inf=True)
        ub = None if self.ub is None else _vector(self.ub, n, "ub", allow_inf=True)
        self.H, self.g, self.A, self.b, self.C, self.lbC, self.ubC, self.lb, self.ub = (
            H, g, A, b, C, lbC, ubC, lb, ub,
        )  # fmt: skip
        return self


@dataclass
class QPLevel:
    """One priority level in least-squares form: cost ‖A x − y‖² + Σ_j r_j x_j².

    ``A`` rows are already weighted (rows = √W · task Jacobian, activation folded in) and ``y`` holds the
    matching weighted targets. As a QP this is ``H = AᵀA + diag(r)``, ``g = −Aᵀy`` (the common factor 2
    is dropped).

    Attributes:
        A: (m, n) weighted task rows; m may be 0 (no active task at this level).
        y: (m,) weighted targets.
        regularization: (n,) diagonal r_j ≥ 0 (λ/ω_j for the scene; 0 where unused). A variable that is
            neither fixed by the bounds, nor covered by a task row, nor regularised makes the level only
            semidefinite: its value is then not unique, and backends that need a definite H (quadprog)
            refuse the level with a :class:`~wbcpy.errors.QPSolveError`.
    """

    A: np.ndarray
    y: np.ndarray
    regularization: np.ndarray

    @property
    def m(self) -> int:
        """Number of task rows."""
        return int(np.shape(self.A)[0])

    def cost(self, x: np.ndarray) -> float:
        """Evaluate ‖A x − y‖² + Σ r_j x_j² at ``x``."""
        x = np.asarray(x, dtype=np.float64)
        e = np.asarray(self.A) @ x - self.y
        return float(e @ e + np.asarray(self.regularization) @ (x * x))

    def to_problem(self, lb: np.ndarray | None = None, ub: np.ndarray | None = None) -> QPProblem:
        """This level alone as a :class:`QPProblem` (H = AᵀA + diag r, g = −Aᵀy)."""
        A = np.asarray(self.A, dtype=np.float64)
        H = A.T @ A
        H[np.diag_indices_from(H)] += self.regularization
        return QPProblem(H=H, g=-(A.T @ self.y), lb=lb, ub=ub)


@dataclass
class HierarchicalQP:
    """Priority levels (index 0 = highest) over the same n variables, with shared hard bounds.

    Attributes:
        levels: the levels, highest priority first.
        joint_names: names of the n variables (their count defines n).
        lb, ub: (n,) hard bounds for every level; ±inf = unbounded, ``lb == ub`` fixes a variable
            (joint weight 0), ``None`` = no bound.
    """

    levels: list[QPLevel]
    joint_names: list[str]
    lb: np.ndarray | None = None
    ub: np.ndarray | None = None

    @property
    def n(self) -> int:
        """Number of variables."""
        return len(self.joint_names)

    def validate(self, check_values: bool = True) -> HierarchicalQP:
        """Check every level and the bounds; normalise arrays to float64 on success.

        Args:
            check_values: also check that A, y, r are finite and bounds are not NaN. The solver passes
                False on its hot path and checks finiteness on the assembled H, g instead (a non-finite
                H or g sends it back here with ``check_values=True``).

        Raises:
            InvalidValueError: wrong shapes, NaN/inf in A, y or r, a negative r, NaN in a bound.
        """
        n = self.n
        if self._fast_ok(n, check_values):
            return self
        levels = []
        for p, level in enumerate(self.levels):
            if not isinstance(level, QPLevel):
                raise InvalidValueError(
                    f"levels[{p}]", "a QPLevel", type(level).__name__, reason="not a QPLevel"
                )
            A = _float_array(level.A, f"levels[{p}].A")
            if A.ndim == 2 and A.shape[0] == 0 and A.shape[1] != n:
                A = np.zeros((0, n))
            A = _matrix(A, None, n, f"levels[{p}].A")
            y = _vector(level.y, A.shape[0], f"levels[{p}].y")
            r = _vector(level.regularization, n, f"levels[{p}].regularization")
            if (r < 0).any():
                raise InvalidValueError(
                    f"levels[{p}].regularization", "entries ≥ 0", r.shape, reason="negative regularization"
                )
            levels.append(QPLevel(A, y, r))
        lb = None if self.lb is None else _vector(self.lb, n, "lb", allow_inf=True)
        ub = None if self.ub is None else _vector(self.ub, n, "ub", allow_inf=True)
        self.levels, self.lb, self.ub = levels, lb, ub
        return self

    def _fast_ok(self, n: int, check_values: bool) -> bool:
        """True when every array already has the right type, shape (and values): the hot path."""
        total = 0.0
        for level in self.levels:
            A, y, r = (
                getattr(level, "A", None),
                getattr(level, "y", None),
                getattr(level, "regularization", None),
            )
            if not (
                type(A) is np.ndarray and type(y) is np.ndarray and type(r) is np.ndarray
                and A.dtype == np.float64 and y.dtype == np.float64 and r.dtype == np.float64
                and A.ndim == 2 and A.shape[1] == n and y.shape == (A.shape[0],) and r.shape == (n,)
            ):  # fmt: skip
                return False
            if r.min(initial=0.0) < 0.0:
                return False
            if check_values:
                total += A.sum() + y.sum() + r.sum()  # finite iff every entry is (overflow → slow path)
        if not math.isfinite(total):
            return False
        for v in (self.lb, self.ub):
            if v is not None and not (type(v) is np.ndarray and v.dtype == np.float64 and v.shape == (n,)):
                return False
            if check_values and v is not None and np.isnan(v).any():
                return False
        return True


@dataclass
class LevelStatus:
    """What a backend reported for one QP (one priority level of a hierarchy).

    Attributes:
        solver: backend name.
        status: status text ("solved", "solved (polished)", "skipped: no task rows", ...).
        iterations: backend iteration count, when it reports one.
        solve_time: wall time of this level in seconds (preparation, backend, checks).
        level: priority level (0 for a plain :meth:`QPSolver.solve`).
        n_eq: number of equality constraints handed to the backend (for a hierarchy: the rank of the
            stacked rows of the higher levels).
        n_variables: number of free variables the backend saw (fixed variables are eliminated).
        primal_residual, dual_residual: KKT residuals of the returned solution (∞-norm). On the DAQP
            fast path (:mod:`wbcpy.qp.fast_daqp`) they are 2-norms; for a level with bounds only both
            hold the projected-gradient residual ‖x − clip(x − (Hx + g), lb, ub)‖₂, which measures
            stationarity, feasibility and multiplier signs at once.
    """

    solver: str
    status: str
    iterations: int | None
    solve_time: float
    level: int
    n_eq: int
    n_variables: int = 0
    primal_residual: float = 0.0
    dual_residual: float = 0.0
    extras: dict[str, Any] = field(default_factory=dict)
