"""A call into compiled code that may never return, bounded in time: quadprog's ``qpgen2``.

quadprog (Goldfarb–Idnani) has no iteration limit, and on some problems it loops for ever: rescue
levels of random contact scenes do (``tests/data/quadprog_loop.npz`` keeps one; the backend's scaling
answers that one, not every such level). It releases the GIL while it
works, so :func:`call_within` runs it on a worker thread and waits at most ``limit`` seconds: a call that
has not returned by then raises :class:`CallTimeoutError`, which the backend reports as a failed solve
(the level solver then tries its next fallback, or raises ``QPSolveError``) instead of stopping the
robot's loop for ever.

A thread stuck in such a loop cannot be stopped from Python: it is left running (a daemon thread, one core
busy until the process ends) and a :class:`RuntimeWarning` says so; later calls get a new worker. Workers
are kept in a pool (one per concurrent caller), so a call costs one hand-over to a waiting thread instead
of a thread start, which costs several times quadprog's own solve of a small QP (figures:
docs/benchmarks.md). A forked child (a multiprocessing worker) starts
with an empty pool: the parent's threads do not exist there.
"""

from __future__ import annotations

import os
import threading
import warnings
from collections.abc import Callable
from typing import Any


class CallTimeoutError(Exception):
    """The call did not return within its time limit (its thread is left running)."""


class _Worker:
    """A daemon thread that runs one call at a time, handed over through two events."""

    def __init__(self) -> None:
        self._job: tuple[Callable[..., Any], tuple[Any, ...]] | None = None
        self._result: tuple[bool, Any] = (False, None)
        self._start = threading.Event()
        self._done = threading.Event()
        threading.Thread(target=self._loop, name="wbcpy-bounded-call", daemon=True).start()

    def _loop(self) -> None:
        while True:
            self._start.wait()
            self._start.clear()
            job = self._job
            if job is None:  # pragma: no cover - (never handed over empty)
                continue
            fn, args = job
            self._job = None
            try:
                self._result = (True, fn(*args))
            except BaseException as exc:  # (handed back to the caller's thread as it is)
                self._result = (False, exc)
            self._done.set()

    def run(self, fn: Callable[..., Any], args: tuple[Any, ...], limit: float) -> Any:
        """``fn(*args)`` on this worker; raises what it raised, or :class:`CallTimeoutError` after
        ``limit`` seconds."""
        self._done.clear()
        self._job = (fn, args)
        self._start.set()
        if not self._done.wait(limit):
            raise CallTimeoutError(f"no answer within {limit:g} s")
        ok, value = self._result
        self._result = (False, None)
        if not ok:
            raise value
        return value


_idle: list[_Worker] = []
_lock = threading.Lock()


def _forget_workers() -> None:
    """In a forked child: the pool's threads did not come along (a hand-over would wait for nothing)."""
    global _lock
    _idle.clear()
    _lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_workers)


def call_within(fn: Callable[..., Any], args: tuple[Any, ...], limit: float, what: str) -> Any:
    """``fn(*args)`` run on a pooled worker thread, waited for at most ``limit`` seconds.

    ``fn`` must release the GIL while it works (quadprog does), else the wait cannot end before it.

    Raises:
        CallTimeoutError: no answer after ``limit`` seconds; the worker is abandoned (still running) and a
            RuntimeWarning names ``what``.
        Whatever ``fn`` raised.
    """
    with _lock:
        worker = _idle.pop() if _idle else None
    if worker is None:
        worker = _Worker()
    try:
        out = worker.run(fn, args, limit)
    except CallTimeoutError:
        warnings.warn(
            f"wbcpy: {what} did not return within {limit:g} s and counts as failed; its thread cannot be "
            "stopped and keeps one core busy until the process ends",
            RuntimeWarning,
            stacklevel=3,
        )
        raise
    except BaseException:
        with _lock:
            _idle.append(worker)
        raise
    with _lock:
        _idle.append(worker)
    return out
