"""Backend registry: dedicated adapters, the qpsolvers fallback, availability and the default choice.

Dedicated adapters (called directly, no qpsolvers round trip): daqp, quadprog (dense active set),
proxqp, piqp (dense or sparse), osqp (persistent workspace), clarabel. Every other backend that
``qpsolvers.available_solvers`` lists goes through :class:`~.generic.GenericBackend`.
"""

from __future__ import annotations

from typing import Any

from .active_set import DaqpBackend, QuadprogBackend
from .base import Backend
from .clarabel_ import ClarabelBackend
from .generic import GenericBackend
from .osqp_ import OsqpBackend
from .proximal import PiqpBackend, ProxqpBackend

__all__ = ["ADAPTERS", "PREFERENCE", "Backend", "GenericBackend", "make_backend"]

#: backend name -> its dedicated adapter class (every other backend goes through GenericBackend)
ADAPTERS: dict[str, type[Backend[Any]]] = {
    cls.name: cls
    for cls in (DaqpBackend, QuadprogBackend, ProxqpBackend, PiqpBackend, OsqpBackend, ClarabelBackend)
}

#: Default-backend preference, fastest first: the ranking ``benchmarks/bench_qp_backends.py`` prints
#: (7-DOF arm one-level problem and Talos 38-DOF two-level hierarchy with bounds; docs/benchmarks.md).
#: osqp is the one backend always installed (core dependency), so it is the default of a minimal
#: install; clarabel, slower than osqp, is never preferred over it.
PREFERENCE: tuple[str, ...] = ("daqp", "quadprog", "proxqp", "piqp", "osqp", "clarabel")


def make_backend(
    name: str, warm_start: bool, options: dict[str, Any], via_qpsolvers: bool = False
) -> Backend[Any]:
    """Instantiate the adapter for ``name`` (the generic qpsolvers one if forced or no dedicated one)."""
    if via_qpsolvers or name not in ADAPTERS:
        return GenericBackend(name, warm_start, options)
    return ADAPTERS[name](warm_start, options)
