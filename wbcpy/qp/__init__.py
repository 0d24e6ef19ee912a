"""QP layer: problem containers, a checked backend adapter over qpsolvers, lexicographic hierarchies.

>>> from wbcpy.qp import QPProblem, QPSolver
>>> import numpy as np
>>> x = QPSolver().solve(QPProblem(H=np.eye(2), g=np.array([-1.0, 4.0]), lb=np.zeros(2), ub=np.ones(2)))
>>> np.round(x, 9).tolist()
[1.0, 0.0]

``DEFAULT_SOLVER`` is :func:`default_solver` evaluated on first access.
"""

from __future__ import annotations

from .problem import HierarchicalQP, LevelStatus, QPLevel, QPProblem
from .registry import available_solvers, default_solver
from .solver import QPSolver

#: name of the default backend: :func:`default_solver` evaluated on first access (module ``__getattr__``)
DEFAULT_SOLVER: str

__all__ = [
    "DEFAULT_SOLVER",
    "HierarchicalQP",
    "LevelStatus",
    "QPLevel",
    "QPProblem",
    "QPSolver",
    "available_solvers",
    "default_solver",
]


def __getattr__(name: str) -> str:
    if name == "DEFAULT_SOLVER":
        return default_solver()
    raise AttributeError(f"module 'wbcpy.qp' has no attribute {name!r}")
