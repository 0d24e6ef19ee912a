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

Extension point for contact scenes (``examples/sweep_push.yaml``: Talos standing, random pushes, success
rate against push size — not written yet, there is no contact scene in scene files): a ``random.push``
option in :class:`RandomSpec` and :func:`~wbcpy.sweep.run.build_setup`, the per-step torque ratio and
normal force recorded into :class:`~wbcpy.sweep.metrics.ContactRecord` by
:func:`~wbcpy.sweep.run.simulate`; the two contact metrics are declared in :data:`METRICS` already.

Scripts that call :func:`run_sweep` without a client start worker processes with ``spawn``: keep the
call under ``if __name__ == "__main__":``.

``load_sweep`` and ``run_one`` need no Dask; ``run_sweep`` needs the ``sweep`` extra
(``pip install 'wbcpy[sweep]'``: ``dask[distributed]``, tqdm, threadpoolctl).
"""

from __future__ import annotations

from .load import load_sweep
from .metrics import DEFAULT_METRICS, METRICS, Metric
from .plot import plot_sweep
from .results import ResultWriter, completed_ids, read_results
from .run import run_one
from .runner import run_sweep
from .spec import RandomSpec, Run, SweepSpec

__all__ = [
    "DEFAULT_METRICS",
    "METRICS",
    "Metric",
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
