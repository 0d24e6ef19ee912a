"""``run_sweep``: every run of a sweep on a Dask cluster, rows written as runs complete.

The sweep is shipped once (as the result of a small task, so the scheduler can recompute it if the
worker holding it dies); each run is a task ``run_one(spec, run)`` with a fixed key. At most ``window``
runs are in flight: a sweep of millions of runs never builds millions of futures. As each run completes
its row is written to the result file (flushed), the progress bar advances and ``on_row`` is called.
Rows are fetched from the workers in the caller's thread (one gather per batch of finished runs, then
run by run with retries if that fails), so a communication error is handled where it is seen and can
never leave the sweep waiting for a row that will not come.

Fault tolerance: a run that raises inside the scene records the error in its row (:func:`run_one`
catches it); a worker process that dies has its runs reassigned by the scheduler (its nanny restarts
it), and a task that raises outside ``run_one`` is retried ``retries`` times. A task that still fails
(e.g. ``KilledWorker`` after the scheduler's ``allowed-failures``) gives a row with that error as status:
every run id appears exactly once.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable, Iterator
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .results import ResultWriter, completed_ids
from .run import describe_error, run_one
from .spec import Run, SweepSpec, row_params

if TYPE_CHECKING:
    from dask.typing import Key as DaskKey
    from distributed import Client, Future

    #: a run's task: its row
    RunFuture = Future[dict[str, Any]]


def _hold(spec: SweepSpec) -> SweepSpec:
    """Task that returns the sweep (so workers fetch it once from a peer)."""
    return spec


def _run_task(spec: SweepSpec, run: Run) -> dict[str, Any]:
    """Task body: :func:`run_one` plus the name of the worker that ran it."""
    from distributed import get_worker

    row = run_one(spec, run)
    try:
        row["worker"] = str(get_worker().name)
    except ValueError:  # not inside a worker (a client calling it directly)
        row["worker"] = ""
    return row


#: attempts at fetching a finished run's row from its worker before the row records the failure
FETCH_ATTEMPTS = 3


def _fetch(client: Client, futures: list[RunFuture]) -> list[Any]:
    """Rows of finished futures: one gather; if it fails, each future alone, ``FETCH_ATTEMPTS`` times.

    A row that cannot be fetched is returned as the exception. Fetching happens here, in the caller's
    thread, so a communication error is seen and handled: a result can never be lost silently.
    """
    try:
        return list(client.gather(futures))
    except Exception:  # fall back to one future at a time
        pass
    out: list[Any] = []
    for future in futures:
        error: Exception | None = None
        for _ in range(FETCH_ATTEMPTS):
            try:
                out.append(future.result())
                break
            except Exception as exc:
                error = exc
        else:
            out.append(error)
    return out


def _task_error(future: RunFuture) -> BaseException:
    """The exception of a task that erred or was cancelled (e.g. ``KilledWorker``)."""
    if future.status == "error":
        try:
            error: BaseException = future.exception()
            return error
        except Exception as exc:
            return exc
    return RuntimeError(f"task ended with status {future.status!r}")


def _rows(
    client: Client, spec: SweepSpec, runs: Iterator[Run], window: int, retries: int
) -> Iterator[dict[str, Any]]:
    """Submit ``runs`` keeping at most ``window`` in flight; yield rows in completion order."""
    from distributed import as_completed

    tag = uuid.uuid4().hex[:8]
    spec_future = client.submit(_hold, spec, key=f"wbcpy-sweep-{tag}")
    pending: dict[DaskKey, tuple[RunFuture, Run]] = {}

    def submit(run: Run) -> RunFuture:
        future = client.submit(
            _run_task, spec_future, run, key=f"wbcpy-run-{tag}-{run.run_id}", retries=retries
        )
        pending[future.key] = (future, run)
        return future

    queue = as_completed([submit(r) for r in islice(runs, window)])
    try:
        for batch in queue.batches():
            finished = [f for f in batch if f.status == "finished"]
            fetched = dict(zip([f.key for f in finished], _fetch(client, finished), strict=True))
            for future in batch:
                _, run = pending.pop(future.key)
                result = fetched[future.key] if future.key in fetched else _task_error(future)
                if isinstance(result, dict):
                    row = result
                else:
                    row = {**row_params(spec, run), "status": describe_error(result), "worker": ""}
                future.release()
                following = next(runs, None)
                if following is not None:
                    queue.add(submit(following))
                yield row
    finally:
        if pending:
            client.cancel([f for f, _ in pending.values()])
        spec_future.release()


def run_sweep(
    spec: SweepSpec,
    client: Client | None = None,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    out: str | Path | None = None,
    resume: bool = False,
    progress: bool = False,
    on_row: Callable[[dict[str, Any]], None] | None = None,
    retries: int = 2,
    window: int | None = None,
) -> list[dict[str, Any]]:
    """Run every run of ``spec`` (those not already in ``out`` with ``resume``) on Dask.

    Args:
        spec: the sweep (:func:`~wbcpy.sweep.load_sweep`).
        client: a ``distributed.Client`` to use; default: connect to ``scheduler`` (or
            ``DASK_SCHEDULER_ADDRESS``) or start a local cluster of ``workers`` single-threaded processes.
        workers: local worker processes (default: the usable cores); ignored with a client or scheduler.
        scheduler: address of a running Dask scheduler (``tcp://host:8786``).
        out: CSV result file, written as runs complete (None: rows are only returned).
        resume: keep the rows already in ``out`` and run only the missing run ids.
        progress: show a progress bar over completed runs on stderr (tqdm).
        on_row: called with each row right after it is written.
        retries: extra attempts of a task that fails outside :func:`run_one` (e.g. a lost worker).
        window: most runs in flight at once (default: 8 per worker thread, at least 64).

    Returns:
        The rows of the runs done by this call, sorted by run id (rows kept from ``out`` by ``resume``
        are not repeated).

    Raises:
        ConfigError: ``out`` holds results of a different sweep (with ``resume``).
        ImportError: Dask's ``distributed`` is not installed (``pip install 'wbcpy[sweep]'``).
    """
    try:
        from tqdm import tqdm

        from .cluster import sweep_client
    except ImportError as exc:
        raise ImportError(f"wbcpy sweeps need Dask: pip install 'wbcpy[sweep]' ({exc})") from None
    done = completed_ids(out, spec.columns) if out is not None and resume else set()
    if sum(1 for i in done if 0 <= i < spec.n_runs) == spec.n_runs:
        return []  # every run is in the file already: no cluster needed
    todo = (r for r in spec.runs() if r.run_id not in done)
    rows: list[dict[str, Any]] = []
    with (
        sweep_client(
            client, workers, scheduler
        ) as dask_client,  # first: no file is touched without a cluster
        ResultWriter(out, spec.columns, append=resume) as writer,
        tqdm(
            total=spec.n_runs,
            initial=len(done),
            unit="run",
            desc="sweep",
            disable=not progress,
            file=sys.stderr,
            dynamic_ncols=True,
        ) as bar,
    ):
        threads = sum(dask_client.nthreads().values()) or 1
        size = window if window is not None else max(64, 8 * threads)
        for row in _rows(dask_client, spec, todo, max(1, size), retries):
            writer.write(row)
            rows.append(row)
            bar.update(1)
            if on_row is not None:
                on_row(row)
    rows.sort(key=lambda r: r["run_id"])
    return rows
