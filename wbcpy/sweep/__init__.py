"""Sweeps of closed-loop scene runs on Dask: tune gains and stress-test controllers.

A sweep file names a scene file, a grid of values at dotted paths into it, optional random
perturbations and the metrics to record (format: :mod:`wbcpy.sweep.load`). Each run builds the scene
with its values, simulates it and computes its metrics; runs are spread over a Dask cluster (an embedded
``LocalCluster`` or a running scheduler) and written to a CSV file as they complete.

* :func:`load_sweep` — read and check a sweep file (``ConfigError`` naming the key).
* :func:`run_one` — one run, a pure function of (sweep, run).
* :func:`run_sweep` — every run on Dask; rows written as runs complete; ``resume``.
* :data:`METRICS` — the metric list (:mod:`wbcpy.sweep.metrics`).
* :func:`plot_sweep` — a metric over one or two swept parameters (matplotlib).

Contact scenes (scene files with ``contacts``: an :class:`~wbcpy.InverseDynamicsScene` driving a
simulated robot) add the metrics ``max_torque_ratio`` and ``min_normal_force``, ``success`` means *still
standing* (:mod:`wbcpy.sweep.metrics`), and ``random.push`` pushes the simulated robot once per run in a
random horizontal direction (:mod:`wbcpy.sweep.perturbation`; ``examples/sweep_push.yaml``: success rate
against push size).

Scripts that call :func:`run_sweep` without a client start worker processes with ``spawn``: keep the
call under ``if __name__ == "__main__":``.

``load_sweep`` and ``run_one`` need no Dask; ``run_sweep`` needs the ``sweep`` extra
(``pip install 'wbcpy[sweep]'``: ``dask[distributed]``, tqdm, threadpoolctl).
"""

from __future__ import annotations

from .load import load_sweep
from .metrics import DEFAULT_METRICS, METRICS, Metric
from .perturbation import PushSpec, RandomSpec
from .plot import plot_sweep
from .results import ResultWriter, completed_ids, read_results
from .run import run_one
from .runner import run_sweep
from .spec import Run, SweepSpec

__all__ = [
    "DEFAULT_METRICS",
    "METRICS",
    "Metric",
    "PushSpec",
    "RandomSpec",
    "ResultWriter",
    "Run",
    "SweepSpec",
    "completed_ids",
    "load_sweep",
    "plot_sweep",
    "read_results",
    "run_one",
    "run_sweep",
]
