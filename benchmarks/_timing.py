"""Small timing helpers shared by the benchmark scripts.

* :func:`measure` times one callable: median and 95th percentile per call, in µs.
* :func:`measure_interleaved` times several callables in alternating blocks, so slow drifts of a noisy
  machine (frequency scaling, other processes) hit all of them alike: use it for a case and its floor.
* :func:`print_cpu` prints the CPU model (``lscpu``'s model name): ratios travel between machines of a
  kind, absolute times do not.
* :func:`print_table` prints rows of timings with the ratio of each median to its floor's median.

The cost of the timer itself and of calling a Python function (measured once on an empty function) is
subtracted from every sample, so tiny calls are not flattered or penalised by it.
"""

from __future__ import annotations

import gc
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TextIO

import numpy as np

__all__ = ["Row", "Timing", "cpu_model", "measure", "measure_interleaved", "print_cpu", "print_table"]


@dataclass(frozen=True)
class Timing:
    """Per-call timing statistics.

    Attributes:
        median_us: median time per call (µs).
        p95_us: 95th percentile per call (µs).
        n: number of samples.
    """

    median_us: float
    p95_us: float
    n: int = 0


@dataclass(frozen=True)
class Row:
    """One line of :func:`print_table`.

    Attributes:
        label: what was timed.
        timing: its timing.
        floor: the reference timing the ratio is taken against (None for a floor row itself).
        note: free text printed in the last column.
    """

    label: str
    timing: Timing
    floor: Timing | None = None
    note: str = ""


_OVERHEAD_NS: float | None = None


def _noop() -> None:
    return None


def _samples_ns(fn: Callable[[], object], n: int, batch: int) -> np.ndarray:
    clock = time.perf_counter_ns
    out = np.empty(n)
    for i in range(n):
        t0 = clock()
        for _ in range(batch):
            fn()
        out[i] = (clock() - t0) / batch
    return out


def _overhead_ns() -> float:
    """Median cost of one timed call of an empty function (ns), measured once."""
    global _OVERHEAD_NS
    if _OVERHEAD_NS is None:
        _samples_ns(_noop, 2000, 1)
        _OVERHEAD_NS = float(np.median(_samples_ns(_noop, 20000, 1)))
    return _OVERHEAD_NS


def _timing(samples_ns: np.ndarray) -> Timing:
    corrected = np.maximum(samples_ns - _overhead_ns(), 0.0) / 1e3
    return Timing(float(np.median(corrected)), float(np.percentile(corrected, 95)), int(corrected.size))


def measure(fn: Callable[[], object], n_repeat: int = 2000, warmup: int = 200, batch: int = 1) -> Timing:
    """Time ``fn()``: ``warmup`` untimed calls, then ``n_repeat`` samples of ``batch`` calls each.

    Args:
        fn: a callable without arguments (wrap arguments in a closure).
        n_repeat: number of samples.
        warmup: calls made before timing (caches, lazy imports, branch predictors).
        batch: calls per sample; a sample's time is divided by ``batch``. Keep 1 for a true p95.

    Returns:
        :class:`Timing` with median and p95 per call in µs, timer overhead subtracted.
    """
    _overhead_ns()
    for _ in range(warmup):
        fn()
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        samples = _samples_ns(fn, n_repeat, batch)
    finally:
        if gc_was_enabled:
            gc.enable()
    return _timing(samples)


def measure_interleaved(
    fns: Sequence[Callable[[], object]], n_repeat: int = 2000, warmup: int = 200, block: int = 50
) -> list[Timing]:
    """Time several callables side by side, alternating blocks of ``block`` samples.

    Returns one :class:`Timing` per callable, in order; each gets ``n_repeat`` samples (rounded up to
    whole blocks).
    """
    _overhead_ns()
    for fn in fns:
        for _ in range(warmup):
            fn()
    n_blocks = max(1, -(-n_repeat // block))
    chunks: list[list[np.ndarray]] = [[] for _ in fns]
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(n_blocks):
            for i, fn in enumerate(fns):
                chunks[i].append(_samples_ns(fn, block, 1))
    finally:
        if gc_was_enabled:
            gc.enable()
    return [_timing(np.concatenate(c)) for c in chunks]


def print_table(rows: Sequence[Row], title: str | None = None, file: TextIO | None = None) -> None:
    """Print ``rows`` as a table: label, median µs, p95 µs, ratio of the median to the floor's, note."""
    out = file or sys.stdout
    header = ("case", "median µs", "p95 µs", "ratio", "note")
    cells = [header]
    for row in rows:
        ratio = "floor" if row.floor is None else f"{row.timing.median_us / row.floor.median_us:.2f}"
        cells.append((row.label, f"{row.timing.median_us:.2f}", f"{row.timing.p95_us:.2f}", ratio, row.note))
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    if title:
        print(title, file=out)
    for k, r in enumerate(cells):
        line = "  ".join(
            c.ljust(w) if i in (0, 4) else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        print(line.rstrip(), file=out)
        if k == 0:
            print("  ".join("-" * w for w in widths), file=out)


def cpu_model() -> str:
    """The CPU's model name as ``lscpu`` reports it ("unknown" where it cannot be read)."""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=False, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    for line in out.splitlines():
        if line.startswith("Model name:"):
            return line.split(":", 1)[1].strip()
    return "unknown"


def print_cpu(file: TextIO | None = None) -> None:
    """Print the CPU model line every benchmark starts with."""
    print(f"CPU: {cpu_model()}", file=file or sys.stdout)
