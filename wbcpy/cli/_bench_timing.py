"""Timing of ``wbcpy bench``: callables measured side by side in alternating blocks.

The same method as ``benchmarks/_timing.py`` (``measure_interleaved``): every callable is warmed up, then
timed in alternating blocks of samples, so slow drifts of a noisy machine (frequency scaling, other
processes) hit a case and its floor alike; the cost of the timer and of one Python call (measured on an
empty function) is subtracted from every sample; the garbage collector is off while timing.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Timing:
    """Per-call timing: median and 95th percentile (µs) over ``n`` samples."""

    median_us: float
    p95_us: float
    n: int


def _samples_ns(fn: Callable[[], object], n: int) -> np.ndarray:
    clock = time.perf_counter_ns
    out = np.empty(n)
    for i in range(n):
        t0 = clock()
        fn()
        out[i] = clock() - t0
    return out


def _noop() -> None:
    return None


def measure_interleaved(
    fns: Sequence[Callable[[], object]], n_repeat: int, warmup: int = 50, block: int = 25
) -> list[Timing]:
    """Time each callable ``n_repeat`` times (rounded up to whole blocks), alternating blocks of
    ``block`` samples between them; one :class:`Timing` per callable, in order."""
    overhead = float(np.median(_samples_ns(_noop, 2000)))
    for fn in fns:
        for _ in range(warmup):
            fn()
    n_blocks = max(1, -(-n_repeat // block))
    chunks: list[list[np.ndarray]] = [[] for _ in fns]
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(n_blocks):
            for i, fn in enumerate(fns):
                chunks[i].append(_samples_ns(fn, block))
    finally:
        if enabled:
            gc.enable()
    out = []
    for chunk in chunks:
        us = np.maximum(np.concatenate(chunk) - overhead, 0.0) / 1e3
        out.append(Timing(float(np.median(us)), float(np.percentile(us, 95)), int(us.size)))
    return out
