"""Shared harness of the copy, pickle and thread contract tests.

``COPIERS``: the three ways a user duplicates an object. :func:`run_together` runs workers ``fn(stop)`` in
threads with the interpreter switching threads every microsecond (so that an unprotected shared workspace
is interleaved mid-computation), stops them after ``seconds`` and re-raises the first failure.
"""

from __future__ import annotations

import copy
import pickle
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

COPIERS: dict[str, Callable[[Any], Any]] = {
    "copy": copy.copy,
    "deepcopy": copy.deepcopy,
    "pickle": lambda x: pickle.loads(pickle.dumps(x)),
}


@contextmanager
def fast_switching() -> Iterator[None]:
    """Thread switches every microsecond inside the block."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


def run_together(workers: list[Callable[[threading.Event], None]], seconds: float = 0.6) -> None:
    """Run each ``worker(stop)`` in its own thread until ``seconds`` have passed (or one fails); re-raise
    the first failure."""
    stop = threading.Event()
    errors: list[BaseException] = []

    def wrap(fn: Callable[[threading.Event], None]) -> Callable[[], None]:
        def run() -> None:
            try:
                fn(stop)
            except BaseException as exc:  # reported below
                errors.append(exc)
                stop.set()

        return run

    threads = [threading.Thread(target=wrap(w)) for w in workers]
    with fast_switching():
        for t in threads:
            t.start()
        stop.wait(seconds)
        stop.set()
        for t in threads:
            t.join()
    if errors:
        raise errors[0]
