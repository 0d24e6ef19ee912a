"""The test extras install the QP backends the issue names, and wbcpy reports them usable."""

from __future__ import annotations

from wbcpy.qp import available_solvers, default_solver

REQUIRED = {"osqp", "proxqp", "daqp", "quadprog", "clarabel", "piqp"}


def test_test_extras_provide_every_required_backend() -> None:
    missing = REQUIRED - set(available_solvers())
    assert not missing, f"backends missing from the test environment: {sorted(missing)}"


def test_default_backend_is_daqp_when_installed() -> None:
    # daqp is a core dependency: the fastest exact dense backend (see benchmarks/bench_scene.py)
    assert default_solver() == "daqp"
