"""``wbcpy bench [--quick] [--repeat N]``: the core benchmarks on this machine.

For each capability (a model update with M, M⁻¹, g, b and a Jacobian; a chain's FK and Jacobian; the
AccelerationScene, VelocityScene and InverseDynamicsScene steps users write; the min-jerk IK step) it
prints wbcpy's median and p95 per call (µs), the ratio (×) of the median to the raw-Pinocchio floor (the
rigid-body algorithms doing the same maths, measured side by side in the same run), and to pink and TSID
when they are installed. The cases are listed in :mod:`wbcpy.cli._bench_cases`; the full scripts with
more robots, splits and backends are in ``benchmarks/`` of the repository.

Absolute times move with the machine and its load, so the header names the CPU, the core count and the
1-minute load; ratios measured side by side are the figures to compare with docs/benchmarks.md.
``--quick`` takes 200 samples per call (a few seconds in all); the default takes 3000.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

from ..reporting import format_table
from . import CLIError


def cpu_model() -> str:
    """The CPU's model name (``lscpu``'s "Model name": ``/proc/cpuinfo`` on Linux, ``sysctl`` on macOS,
    ``platform.processor()`` elsewhere), or ``"unknown CPU"``."""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        for line in cpuinfo.read_text(errors="replace").splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    if sys.platform == "darwin":
        try:
            out = subprocess.run(
                ["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True, text=True, timeout=5
            )
            if out.returncode == 0 and out.stdout.strip():
                return out.stdout.strip()
        except OSError:
            pass
    return platform.processor() or "unknown CPU"


def _machine_line() -> str:
    load = f", 1-minute load {os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else ""
    import numpy as np

    from . import version_text

    return (
        f"{version_text()}, NumPy {np.__version__}; CPU {cpu_model()} ({os.cpu_count()} logical cores){load}"
    )


def _fmt(us: float) -> str:
    return f"{us:.1f}" if us < 100 else f"{us:.0f}"


def run(args: argparse.Namespace) -> int:
    """Build the cases, time each with its floor and peers interleaved, print one row per case."""
    from ._bench_cases import all_cases
    from ._bench_timing import measure_interleaved

    repeat = args.repeat if args.repeat is not None else (200 if args.quick else 3000)
    if repeat < 25:
        raise CLIError(f"--repeat must be ≥ 25, got {repeat}")
    print(f"wbcpy bench: {_machine_line()}")
    print(f"{repeat} samples per call, each case interleaved with its floor and peers (medians, µs)\n")
    cases, skipped = all_cases()
    rows: list[list[Any]] = []
    notes = list(skipped)
    for case in cases:
        peers = list(case.peers.items())
        timings = measure_interleaved(
            [case.wbcpy, case.floor, *(fn for _, fn in peers)],
            n_repeat=repeat,
            warmup=20 if args.quick else 200,
        )
        mine, floor = timings[0], timings[1]
        vs = [
            f"{name} {_fmt(t.median_us)}: {mine.median_us / t.median_us:.2f}×"
            for (name, _), t in zip(peers, timings[2:], strict=True)
        ]
        rows.append(
            [
                case.capability,
                case.robot,
                f"{mine.median_us / floor.median_us:.2f}×",
                "; ".join(vs) or "-",
                f"{_fmt(mine.median_us)} (p95 {_fmt(mine.p95_us)})",
                _fmt(floor.median_us),
            ]
        )
        if case.note:
            notes.append(f"{case.capability}: {case.note}")
        print(f"  measured: {case.capability} ({case.robot})", file=sys.stderr, flush=True)
    headers = ["capability", "robot", "× floor", "× peer (peer median µs)", "wbcpy µs", "floor µs"]
    print(format_table(headers, rows))
    for note in dict.fromkeys(notes):
        print(f"note: {note}")
    print(
        "\nfloor: the raw Pinocchio calls doing the same maths at the same state (docs/benchmarks.md); "
        "ratios are the figures to compare between machines"
    )
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``bench`` command."""
    parser = subparsers.add_parser(
        "bench",
        help="time the core capabilities on this machine: medians, × the Pinocchio floor, × pink/TSID",
        description=(
            "Run the core benchmarks on this machine: per capability the median per call, its ratio to "
            "the raw-Pinocchio floor measured side by side, and to pink and TSID when they are installed."
        ),
    )
    parser.add_argument("--quick", action="store_true", help="200 samples per call (a few seconds)")
    parser.add_argument(
        "--repeat", type=int, metavar="N", help="samples per call (default 3000; --quick 200)"
    )
    parser.set_defaults(func=run)
