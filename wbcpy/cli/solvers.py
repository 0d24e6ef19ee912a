"""``wbcpy solvers``: the QP backends usable by scenes on this installation, default marked.

A backend is listed when qpsolvers reports it installed and it passes wbcpy's self-test
(:func:`wbcpy.qp.available_solvers`); the default (:func:`wbcpy.qp.default_solver`) is the fastest one
according to ``benchmarks/bench_qp_backends.py``. Backends qpsolvers lists that fail the self-test are
reported below the table with the reason.
"""

from __future__ import annotations

import argparse

from ..reporting import format_table


def _formats(name: str) -> str:
    import qpsolvers

    dense = name in getattr(qpsolvers, "dense_solvers", [])
    sparse = name in getattr(qpsolvers, "sparse_solvers", [])
    return "dense+sparse" if dense and sparse else ("sparse" if sparse else "dense")


def _kind(name: str) -> str:
    try:
        from ..qp.backends import ADAPTERS
    except ImportError:  # pragma: no cover - older QP layer
        return "-"
    cls = ADAPTERS.get(name)
    if cls is None:
        return "via qpsolvers"
    return "active set (exact)" if cls.exact else "iterative (polished)"


def solver_rows() -> list[list[str]]:
    """One row per usable backend: name, default mark, matrix formats, kind."""
    from ..qp import available_solvers, default_solver

    default = default_solver()
    return [
        [name, "*" if name == default else "", _formats(name), _kind(name)] for name in available_solvers()
    ]


def run(args: argparse.Namespace) -> int:
    """Print the backend table (or only the names with ``--names``)."""
    rows = solver_rows()
    if args.names:
        print("\n".join(r[0] for r in rows))
        return 0
    print(format_table(["solver", "default", "matrices", "kind"], rows))
    try:
        from ..qp.registry import unavailable_reasons
    except ImportError:  # pragma: no cover - older QP layer
        unavailable_reasons = dict
    for name, why in sorted(unavailable_reasons().items()):
        print(f"not usable: {name}: {why}")
    print("* default backend; choose another with AccelerationScene(robot, solver=NAME) or --solver NAME")
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``solvers`` command."""
    parser = subparsers.add_parser(
        "solvers",
        help="list the installed QP backends (default marked)",
        description="List the QP backends scenes can use here; the default is marked with an asterisk.",
    )
    parser.add_argument("--names", action="store_true", help="print only the backend names, one per line")
    parser.set_defaults(func=run)
