"""Which backends work here, and which one is the default.

:func:`available_solvers` starts from ``qpsolvers.available_solvers`` and keeps the backends that pass a
small self-test (an equality, a two-sided inequality row and an active bound, known solution) through
their adapter and the KKT certificate of :mod:`wbcpy.qp.level_solver`. The result is cached for the
process.

:func:`default_solver` returns the first available backend of :data:`wbcpy.qp.backends.PREFERENCE`
(fastest first according to ``benchmarks/bench_qp_backends.py``; ``daqp`` when installed), and ``osqp`` —
the backend a core install always has — otherwise. :data:`RESCUE_ORDER` lists the backends a solver
falls back on when its own fails on a problem.

This module imports the backends and the level solver only (never :mod:`wbcpy.qp.solver`).
"""

from __future__ import annotations

import numpy as np

from ..errors import ConfigError
from .backends import PREFERENCE

#: rescue backends, in order: daqp (exact; a semidefinite level through proximal-point iterations,
#: :meth:`~wbcpy.qp.level_solver.LevelSolver._proximal`), osqp (always installed; refined on its active
#: set), quadprog (exact, likewise with proximal iterations: the two dual active-set methods fail on
#: different degenerate levels)
RESCUE_ORDER: tuple[str, ...] = ("daqp", "osqp", "quadprog")

_tested: dict[str, str | None] = {}  # name -> None (works) or the reason it does not


def _self_test(name: str) -> str | None:
    """Solve a 4-variable QP with a known optimum; None if it works, else the reason."""
    from .kkt import StdQP
    from .level_solver import LevelSolver, SolveFailedError

    # min ½‖x − t‖²  s.t.  x0 + x1 = 0,  x3 ≤ 5 (row of C),  −1 ≤ x2 ≤ 0.25
    t = np.array([2.0, -3.0, 0.5, 7.0])
    C = np.array([[0.0, 0.0, 0.0, 1.0]])
    q = StdQP(np.eye(4), -t, np.array([[1.0, 1.0, 0.0, 0.0]]), np.zeros(1), C, np.array([-np.inf]),
              np.array([5.0]), np.array([-np.inf, -np.inf, -1.0, -np.inf]),
              np.array([np.inf, np.inf, 0.25, np.inf]))  # fmt: skip
    expected = np.array([2.5, -2.5, 0.25, 5.0])
    try:
        x = LevelSolver(name, False, {}, 1e-6, True, (), False).solve(q, 0).x
    except SolveFailedError as exc:
        return exc.status
    except Exception as exc:  # any failure (import, adapter) disqualifies the backend
        return f"{type(exc).__name__}: {exc}"
    err = float(np.abs(x - expected).max())
    return None if err <= 1e-6 else f"wrong solution (error {err:.2g})"


def works(name: str) -> bool:
    """True when ``name`` is installed (per qpsolvers) and passes the self-test (cached per process)."""
    import qpsolvers

    if name not in qpsolvers.available_solvers:
        return False
    if name not in _tested:
        _tested[name] = _self_test(name)
    return _tested[name] is None


def available_solvers(refresh: bool = False) -> list[str]:
    """Installed QP backends that solve wbcpy's problems correctly, sorted by name.

    Args:
        refresh: re-run the self-tests instead of using the cached answers.
    """
    import qpsolvers

    if refresh:
        _tested.clear()
    return [name for name in sorted(set(qpsolvers.available_solvers)) if works(name)]


def unavailable_reasons() -> dict[str, str]:
    """Backends qpsolvers lists that failed the self-test, with the reason."""
    available_solvers()
    return {name: why for name, why in _tested.items() if why is not None}


def default_solver() -> str:
    """Fastest working backend (see :data:`wbcpy.qp.backends.PREFERENCE`), else any working one.

    Only the backends up to the first working one in preference order are imported and self-tested.

    Raises:
        ConfigError: no QP backend works in this environment.
    """
    import qpsolvers

    installed = set(qpsolvers.available_solvers)
    for name in PREFERENCE:
        if name in installed and works(name):
            return name
    names = available_solvers()
    if names:
        return names[0]
    raise ConfigError("solver", "no working QP backend is installed (pip install qpsolvers[osqp])")
