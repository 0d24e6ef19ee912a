"""Which backends work here, and which one is the default.

:func:`available_solvers` starts from ``qpsolvers.available_solvers`` and keeps the backends that pass a
small self-test through the full wbcpy pipeline (equality, two-sided inequality, an active bound and a
fixed variable, known solution). The result is cached for the process.

:func:`default_solver` returns the first available backend of
:data:`wbcpy.qp.backends.PREFERENCE` (fastest first according to ``benchmarks/bench_qp_backends.py``;
``daqp`` when installed), and ``osqp`` — the backend a core install always has — otherwise.
"""

from __future__ import annotations

import numpy as np

from ..errors import ConfigError
from .backends import PREFERENCE

__all__ = ["available_solvers", "default_solver", "unavailable_reasons", "works"]

_tested: dict[str, str | None] = {}  # name -> None (works) or the reason it does not


def _self_test(name: str) -> str | None:
    """Solve a 5-variable QP with a known optimum; None if it works, else the reason."""
    from .problem import QPProblem
    from .solver import QPSolver

    # min ½‖x − t‖²  s.t.  x0 + x1 = 0,  x4 ≤ 5 (row of C),  −1 ≤ x2 ≤ 0.25,  x3 fixed at 0.3
    t = np.array([2.0, -3.0, 0.5, 1.0, 7.0])
    C = np.zeros((1, 5))
    C[0, 4] = 1.0
    problem = QPProblem(
        H=np.eye(5), g=-t, A=np.array([[1.0, 1.0, 0.0, 0.0, 0.0]]), b=np.zeros(1),
        C=C, lbC=np.array([-np.inf]), ubC=np.array([5.0]),
        lb=np.array([-np.inf, -np.inf, -1.0, 0.3, -np.inf]), ub=np.array([np.inf, np.inf, 0.25, 0.3, np.inf]),
    )  # fmt: skip
    expected = np.array([2.5, -2.5, 0.25, 0.3, 5.0])
    try:
        x = QPSolver._unchecked(name).solve(problem)
    except Exception as exc:  # any failure disqualifies the backend
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
