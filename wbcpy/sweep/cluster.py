"""The Dask cluster a sweep runs on: an embedded local cluster, or an existing one by address.

* Without an address: a ``distributed.LocalCluster`` of N worker *processes* with one thread each
  (default N: the cores this process may use), no dashboard. Each worker process is started with
  ``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS``, ``MKL_NUM_THREADS`` … = 1 in its environment (set by its
  nanny before the process starts, so before numpy loads its BLAS): N workers use N cores, not N × cores.
* With an address (``--scheduler`` or ``DASK_SCHEDULER_ADDRESS``): a client of that scheduler; its workers
  are whatever ``dask worker`` started (``--nthreads 1`` recommended, one worker process per core).
* In both cases :class:`PinBlasThreads` is registered as a worker plugin: every worker — also one that
  joins or is restarted later — limits its already-loaded BLAS and OpenMP pools to one thread
  (threadpoolctl), whatever environment it was started with.

A worker that dies is restarted by its nanny; the scheduler reassigns the runs it held to other workers
(:mod:`wbcpy.sweep.runner` also asks for ``retries``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from distributed import Client, LocalCluster, WorkerPlugin

#: environment of local worker processes: one thread for every BLAS/OpenMP runtime numpy may load
BLAS_ENV: dict[str, str] = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "VECLIB_MAXIMUM_THREADS": "1",
    "NUMEXPR_NUM_THREADS": "1",
}


def default_workers() -> int:
    """Number of cores this process may run on (the default number of local workers)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - macOS and Windows have no sched_getaffinity
        return max(1, os.cpu_count() or 1)


class PinBlasThreads(WorkerPlugin):
    """Worker plugin: one BLAS/OpenMP thread in every worker process (threadpoolctl)."""

    name = "wbcpy-pin-blas-threads"

    def setup(self, worker: Any) -> None:
        """Set the thread variables for libraries loaded later and limit the loaded pools to one."""
        from threadpoolctl import threadpool_limits

        os.environ.update(BLAS_ENV)
        self._limits = threadpool_limits(limits=1)  # held by the plugin: the limits last the worker's life


@contextmanager
def sweep_client(
    client: Client | None = None, workers: int | None = None, scheduler: str | None = None
) -> Iterator[Client]:
    """A Dask client for a sweep, with :class:`PinBlasThreads` registered.

    Args:
        client: use this client (the caller owns it; it is not closed).
        workers: number of local worker processes (default: :func:`default_workers`).
        scheduler: address of a running scheduler (default: ``DASK_SCHEDULER_ADDRESS`` if set); when
            neither is given, a local cluster is started and closed afterwards.

    Raises:
        ValueError: ``workers`` < 1.
        OSError: the scheduler cannot be reached.
    """
    if client is not None:
        client.register_plugin(PinBlasThreads())
        yield client
        return
    address = scheduler or os.environ.get("DASK_SCHEDULER_ADDRESS") or None
    if address is not None:
        with Client(address, timeout="20s") as remote:
            remote.register_plugin(PinBlasThreads())
            yield remote
        return
    n = default_workers() if workers is None else int(workers)
    if n < 1:
        raise ValueError(f"workers must be ≥ 1, got {workers}")
    with (
        LocalCluster(
            n_workers=n,
            threads_per_worker=1,
            processes=True,
            env=dict(BLAS_ENV),
            host="127.0.0.1",
            dashboard_address=None,  # no dashboard; its HTTP endpoints on a free port, not 8787
            scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
            silence_logs=logging.ERROR,
        ) as cluster,
        Client(cluster) as local,
    ):
        local.register_plugin(PinBlasThreads())
        yield local
