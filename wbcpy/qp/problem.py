"""QP containers: one quadratic program, one priority level, a hierarchy of levels, per-level status.

A :class:`QPProblem` is the standard form every backend understands::

    minimise    ½ xᵀ H x + gᵀ x
    subject to  A x = b,   lbC ≤ C x ≤ ubC,   lb ≤ x ≤ ub

A :class:`QPLevel` is one priority level: least-squares rows ‖A x − y‖² + Σ_j r_j x_j² and hard
constraints E x = f, lbC ≤ C x ≤ ubC that hold at this level and at every lower one. A
:class:`HierarchicalQP` stacks levels (index 0 = highest priority) over n named variables (joint
accelerations, velocities, contact wrenches, ...) with bounds shared by all levels.
:meth:`wbcpy.qp.QPSolver.solve_hierarchy` solves them lexicographically (:mod:`wbcpy.qp.hierarchy`).

Containers are plain data. ``copy()`` gives an independent deep copy; problems that a scene hands out
never share a writable array with the scene (see ``AccelerationScene.update``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import numpy as np
import scipy.sparse as sp

from ..errors import InvalidValueError
from .kkt import Matrix, as_dense

#: One level's status as a plain tuple (cheap to keep in hot loops): (solver, status, iterations,
#: solve_time, level, n_eq, n_variables, primal_residual, dual_residual, fallback), the fields of
#: :class:`LevelStatus` in order.
StatusRecord: TypeAlias = tuple[str, str, int | None, float, int, int, int, float, float, str | None]


def _float_array(x: Any, name: str) -> np.ndarray:
    if (isinstance(x, np.ndarray) and x.dtype.kind == "c") or np.iscomplexobj(x):
        raise InvalidValueError(name, "real numbers", "complex", reason="complex values are not accepted")
    try:
        return np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as exc:
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


def _copy(x: Any) -> Any:
    return None if x is None else x.copy()


def _inequalities(C: Any, lo: Any, hi: Any, n: int, label: str) -> tuple[Any, Any, Any]:
    """Validated (C, lbC, ubC); a missing side becomes ±inf."""
    if C is None:
        if lo is not None or hi is not None:
            raise InvalidValueError(f"{label}C", "a matrix", None, reason="lbC/ubC given without C")
        return None, None, None
    C = _matrix(C, None, n, f"{label}C")
    mc = C.shape[0]
    lo = np.full(mc, -np.inf) if lo is None else _vector(lo, mc, f"{label}lbC", allow_inf=True)
    hi = np.full(mc, np.inf) if hi is None else _vector(hi, mc, f"{label}ubC", allow_inf=True)
    return C, lo, hi


def _equalities(A: Any, b: Any, n: int, names: tuple[str, str]) -> tuple[Any, Any]:
    if (A is None) != (b is None):
        raise InvalidValueError(", ".join(names), "both or neither", None, reason="an equality needs both")
    if A is None:
        return None, None
    A = _matrix(A, None, n, names[0])
    return A, _vector(b, A.shape[0], names[1])


@dataclass
class QPProblem:
    """Quadratic program ``min ½ xᵀHx + gᵀx  s.t.  Ax = b, lbC ≤ Cx ≤ ubC, lb ≤ x ≤ ub``.

    Matrices are dense ``numpy`` arrays or ``scipy.sparse`` (CSC preferred); vectors are 1-D float arrays.
    Every constraint block is optional (``None``). Bounds may contain ``±inf`` (no bound); a variable with
    ``lb == ub`` is fixed. ``H`` must be symmetric positive semidefinite.

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

    def copy(self) -> QPProblem:
        """An independent deep copy."""
        return QPProblem(
            *(_copy(getattr(self, k)) for k in ("H", "g", "A", "b", "C", "lbC", "ubC", "lb", "ub"))
        )

    def validate(self) -> QPProblem:
        """Check shapes and values; normalise the fields to float64 arrays (or CSC) on success.

        Returns:
            self, for chaining.

        Raises:
            InvalidValueError: inconsistent shapes, a missing half of a constraint pair, NaN anywhere,
                inf outside the bound vectors, complex values, or a non-symmetric ``H``. The problem is
                left unchanged.
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
        A, b = _equalities(self.A, self.b, n, ("A", "b"))
        C, lbC, ubC = _inequalities(self.C, self.lbC, self.ubC, n, "")
        lb = None if self.lb is None else _vector(self.lb, n, "lb", allow_inf=True)
        ub = None if self.ub is None else _vector(self.ub, n, "ub", allow_inf=True)
        self.H, self.g, self.A, self.b, self.C, self.lbC, self.ubC, self.lb, self.ub = (
            H, g, A, b, C, lbC, ubC, lb, ub,
        )  # fmt: skip
        return self


@dataclass
class QPLevel:
    """One priority level: cost ‖A x − y‖² + Σ_j r_j x_j², hard constraints that hold from here down.

    ``A`` rows are already weighted (rows = √W · task Jacobian, activation folded in) and ``y`` holds the
    matching weighted targets. As a QP the cost is ``H = AᵀA + diag(r)``, ``g = −Aᵀy`` (the common factor
    2 is dropped). The regularisation is this level's only: lower levels keep the optimum of the rows
    ``A`` (``A x = A x*``), not of the regulariser.

    Attributes:
        A: (m, n) weighted rows; m may be 0 (a level with constraints only, or no active task).
        y: (m,) weighted targets.
        regularization: (n,) diagonal r_j ≥ 0. A variable that is neither fixed, nor covered by a row,
            nor regularised makes the level semidefinite: the layer still finds a minimiser (exactly; the
            variable's value is then set by lower levels or is one of the minimisers).
        E, f: (m_eq, n) / (m_eq,) equality constraints ``E x = f``, or None.
        C, lbC, ubC: (m_in, n) / (m_in,) inequality constraints ``lbC ≤ C x ≤ ubC`` (±inf sides allowed),
            or None.
    """

    A: np.ndarray
    y: np.ndarray
    regularization: np.ndarray
    E: np.ndarray | None = None
    f: np.ndarray | None = None
    C: np.ndarray | None = None
    lbC: np.ndarray | None = None
    ubC: np.ndarray | None = None

    @property
    def m(self) -> int:
        """Number of least-squares rows."""
        return int(np.shape(self.A)[0])

    @property
    def has_constraints(self) -> bool:
        """True when the level carries equality or inequality constraints."""
        return self.E is not None or self.C is not None

    def copy(self) -> QPLevel:
        """An independent deep copy."""
        return QPLevel(
            *(_copy(getattr(self, k)) for k in ("A", "y", "regularization", "E", "f", "C", "lbC", "ubC"))
        )

    def cost(self, x: np.ndarray) -> float:
        """Evaluate ‖A x − y‖² + Σ r_j x_j² at ``x``."""
        x = np.asarray(x, dtype=np.float64)
        e = np.asarray(self.A) @ x - self.y
        return float(e @ e + np.asarray(self.regularization) @ (x * x))

    def to_problem(self, lb: np.ndarray | None = None, ub: np.ndarray | None = None) -> QPProblem:
        """This level alone as a :class:`QPProblem` (H = AᵀA + diag r, g = −Aᵀy, its constraints)."""
        A = np.asarray(self.A, dtype=np.float64)
        H = A.T @ A
        H[np.diag_indices_from(H)] += self.regularization
        return QPProblem(H=H, g=-(A.T @ self.y), A=_copy(self.E), b=_copy(self.f), C=_copy(self.C),
                         lbC=_copy(self.lbC), ubC=_copy(self.ubC), lb=_copy(lb), ub=_copy(ub))  # fmt: skip

    def validated(self, n: int, label: str) -> QPLevel:
        """A validated level with float64 arrays (the arrays of ``self`` are not changed).

        Raises:
            InvalidValueError: a wrong shape, NaN/inf in rows or constraint matrices, a negative r, NaN
                in a constraint side, or a level that is not a QPLevel.
        """
        A = _float_array(self.A, f"{label}.A")
        if A.ndim == 2 and A.shape[0] == 0 and A.shape[1] != n:
            A = np.zeros((0, n))
        A = _matrix(A, None, n, f"{label}.A")
        y = _vector(self.y, A.shape[0], f"{label}.y")
        r = _vector(self.regularization, n, f"{label}.regularization")
        if (r < 0).any():
            raise InvalidValueError(
                f"{label}.regularization", "entries ≥ 0", r.shape, reason="negative regularization"
            )
        E, f = _equalities(self.E, self.f, n, (f"{label}.E", f"{label}.f"))
        C, lo, hi = _inequalities(self.C, self.lbC, self.ubC, n, f"{label}.")
        # a level is dense (its rows are projected onto a dense null-space basis): sparse input densified
        E, C = (None if M is None else np.ascontiguousarray(as_dense(M)) for M in (E, C))
        return QPLevel(A, y, r, E, f, C, lo, hi)


def _plain(v: Any, n: int) -> bool:
    return v is None or (type(v) is np.ndarray and v.dtype == np.float64 and v.shape == (n,))


def _plain_level(level: Any, n: int) -> bool:
    """True when a level's arrays already have the right types and shapes (no constraints)."""
    A, y, r = getattr(level, "A", None), getattr(level, "y", None), getattr(level, "regularization", None)
    return (
        type(level) is QPLevel and type(A) is np.ndarray and type(y) is np.ndarray
        and type(r) is np.ndarray and A.dtype == np.float64 and y.dtype == np.float64
        and r.dtype == np.float64 and A.ndim == 2 and A.shape[1] == n and y.shape == (A.shape[0],)
        and r.shape == (n,) and level.E is None and level.C is None
    )  # fmt: skip


@dataclass
class HierarchicalQP:
    """Priority levels (index 0 = highest) over the same n named variables, with shared hard bounds.

    Attributes:
        levels: the levels, highest priority first.
        variable_names: names of the n variables (their count defines n); ``joint_names`` is an alias.
        lb, ub: (n,) hard bounds for every level; ±inf = unbounded, ``lb == ub`` fixes a variable
            (joint weight 0), ``None`` = no bound.
    """

    levels: list[QPLevel]
    variable_names: list[str]
    lb: np.ndarray | None = None
    ub: np.ndarray | None = None

    @property
    def n(self) -> int:
        """Number of variables."""
        return len(self.variable_names)

    @property
    def joint_names(self) -> list[str]:
        """Alias of :attr:`variable_names` (the variables of an AccelerationScene are joint DOFs)."""
        return self.variable_names

    def copy(self) -> HierarchicalQP:
        """An independent deep copy."""
        return HierarchicalQP(
            [lv.copy() for lv in self.levels], list(self.variable_names), _copy(self.lb), _copy(self.ub)
        )

    def validate(self) -> HierarchicalQP:
        """Check every level and the bounds; normalise arrays to float64 on success.

        Raises:
            InvalidValueError: wrong shapes, NaN/inf in rows or constraints, a negative r, NaN in a bound
                or a constraint side, a level that is not a QPLevel. Nothing is changed then.
        """
        n = self.n
        if self._plain(n):
            return self
        levels = []
        for p, level in enumerate(self.levels):
            if not isinstance(level, QPLevel):
                raise InvalidValueError(
                    f"levels[{p}]", "a QPLevel", type(level).__name__, reason="not a QPLevel"
                )
            levels.append(level.validated(n, f"levels[{p}]"))
        lb = None if self.lb is None else _vector(self.lb, n, "lb", allow_inf=True)
        ub = None if self.ub is None else _vector(self.ub, n, "ub", allow_inf=True)
        self.levels, self.lb, self.ub = levels, lb, ub
        return self

    def _plain(self, n: int) -> bool:
        """True when every array already has the right type, shape and finite values (fast check)."""
        total = 0.0
        for level in self.levels:
            if not _plain_level(level, n) or level.regularization.min(initial=0.0) < 0.0:
                return False
            total += level.A.sum() + level.y.sum() + level.regularization.sum()
        if not math.isfinite(total):
            return False
        return all(_plain(v, n) and (v is None or not np.isnan(v).any()) for v in (self.lb, self.ub))


@dataclass
class LevelStatus:
    """What was solved at one level of a hierarchy (or for one plain QP), and how it was checked.

    Attributes:
        solver: name of the backend that produced the accepted answer (a fallback backend when the
            configured one failed: see ``fallback``).
        status: status text ("solved", "solved (refined)", "skipped: no task rows", ...).
        iterations: backend iteration count, when it reports one.
        solve_time: wall time of this level in seconds (preparation, backend, checks).
        level: priority level (0 for a plain :meth:`QPSolver.solve`).
        n_eq: number of equality directions the level was solved under (higher levels' task rows and
            carried-down active constraints, after rank reduction, plus the equality constraints).
        n_variables: number of free variables the backend saw (after eliminations).
        primal_residual, dual_residual: KKT residuals of the accepted answer (∞-norm; for levels with
            bounds only both hold the projected-gradient residual ‖x − clip(x − (Hx + g), lb, ub)‖∞,
            which measures stationarity, feasibility and multiplier signs at once).
        fallback: None when the configured backend answered at once; otherwise which fallback did
            ("cold restart", "daqp eps_prox=1e-06", "rescue: osqp", ...).
        extras: free-form extra information.
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
    fallback: str | None = None
    extras: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_record(cls, record: StatusRecord) -> LevelStatus:
        """Build from a status record (solver, status, iterations, solve_time, level, n_eq, n_variables,
        primal_residual, dual_residual, fallback) as kept by ``QPSolver.status_records``."""
        return cls(*record)
