"""Benchmark: throughput of a 40-run sweep on 1 and 2 local Dask workers, and the scheduling overhead.

The sweep: the arm reach of ``examples/scene_reach.yaml`` (lwr4, Cartesian task over a posture task,
joint limits on), ``--steps`` steps per run (default 400), Cartesian kp (4 values) × kd (2 values) × 5
random starts (q0 ± 0.02 rad) = 40 runs.

Rows
----
* ``in-process run_one``: the 40 runs called one after the other in this process — the floor: what a
  run costs without any scheduling (median and p95 per run).
* ``N local workers``: ``run_sweep`` on a ``LocalCluster`` of N single-threaded worker processes
  (started and warmed up once, outside the timing: workers have imported wbcpy and built one scene).
  Per repeat: the sweep's wall time from submission to the last row written (result file included),
  runs/s = 40 / wall time. The two clusters are measured alternately, repeat after repeat, so a
  change of machine load hits both alike; the speed-up is the median of the per-repeat ratios.
* Overhead per run = N · wall time / 40 − mean run time inside the workers (``wall_time`` column): the
  time a worker slot spends per run on anything but ``run_one`` (scheduling, transfers, idle tail).

Target (issue 15): speed-up ≥ 1.7× from 1 to 2 workers on a 2-core machine. The machine is shared:
the script prints the load average of every repeat and the machine's parallel capacity before and
after (two CPU-bound processes against one: the ceiling of any 2-worker speed-up at that moment);
quote figures from a quiet machine.

Run: ``python benchmarks/bench_sweep.py [--repeat N] [--steps N]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import yaml
from _timing import print_cpu

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from wbcpy.sweep import load_sweep, run_one, run_sweep
from wbcpy.sweep.cluster import sweep_client

ROOT = Path(__file__).resolve().parent.parent


def make_sweep(folder: Path, steps: int) -> Path:
    """Write the 40-run benchmark sweep next to a copy of the example scene; return its path."""
    scene = yaml.safe_load((ROOT / "examples" / "scene_reach.yaml").read_text())
    (folder / "scene.yaml").write_text(yaml.safe_dump(scene))
    sweep = {
        "scene": "scene.yaml",
        "steps": steps,
        "grid": {"tasks.ee.kp": [50, 100, 200, 400], "tasks.ee.kd": [15, 30]},
        "random": {"n": 5, "seed": 1, "q0_noise": 0.02},
    }
    path = folder / "bench_sweep.yaml"
    path.write_text(yaml.safe_dump(sweep))
    return path


SPIN = (
    "import time\nt = time.process_time()\nx = 0\nwhile time.process_time() - t < 1.5:\n    x += 1\nprint(x)"
)


def parallel_capacity() -> float:
    """How many cores the machine gives right now: 2 × (work of one process) / (work of two at once).

    Two concurrent processes spin for 1.5 s of CPU time each; on an idle 2-core machine their wall
    time equals one process's, on a busy one it grows. The result bounds any 2-worker speed-up.
    """
    import subprocess

    def spin(k: int) -> float:
        t0 = time.perf_counter()
        procs = [subprocess.Popen([sys.executable, "-c", SPIN], stdout=subprocess.DEVNULL) for _ in range(k)]
        for p in procs:
            p.wait()
        return time.perf_counter() - t0

    return 2.0 * spin(1) / spin(2)


def _time_in_process(spec, runs: list) -> tuple[np.ndarray, float]:
    """The floor: every run called in this process after a warm-up (run times [s], total wall time [s])."""
    run_one(spec, runs[0])  # warm-up: imports, first robot load
    t0 = time.perf_counter()
    floor = np.array([run_one(spec, r)["wall_time"] for r in runs])
    return floor, time.perf_counter() - t0


def _time_clusters(
    spec, tmp: Path, repeat: int
) -> tuple[dict[int, list[float]], dict[int, list[float]], list[float]]:
    """Sweeps on 1 and 2 local workers, alternately: wall times, mean run times inside the workers [s],
    and the 1-minute load average at the start of each repeat."""
    wall: dict[int, list[float]] = {1: [], 2: []}
    inside: dict[int, list[float]] = {1: [], 2: []}
    loads: list[float] = []
    with sweep_client(workers=1) as one, sweep_client(workers=2) as two:
        clients = {1: one, 2: two}
        for client in clients.values():  # workers import wbcpy and build a scene once
            run_sweep(load_sweep(make_sweep(tmp, 5)), client=client)
        for _ in range(repeat):
            loads.append(os.getloadavg()[0])
            for workers, client in clients.items():
                out = tmp / f"r{workers}.csv"
                t0 = time.perf_counter()
                rows = run_sweep(spec, client=client, out=out)
                wall[workers].append(time.perf_counter() - t0)
                inside[workers].append(float(np.mean([r["wall_time"] for r in rows])))
                if any(r["status"] != "ok" for r in rows):
                    raise SystemExit("a benchmark run failed")
    return wall, inside, loads


def _print_table(
    n: int, floor: np.ndarray, wall: dict[int, list[float]], inside: dict[int, list[float]]
) -> None:
    header = ("case", "runs/s median", "wall median s", "wall p95 s", "run median ms", "overhead/run ms")
    table = [header]
    med = np.median(floor)
    table.append(("in-process run_one", f"{1 / np.mean(floor):.2f}", "", "", f"{1e3 * med:.1f}", "0 (floor)"))
    for workers in (1, 2):
        w = np.array(wall[workers])
        overhead = workers * w / n - np.array(inside[workers])
        table.append(
            (
                f"{workers} local worker{'s' if workers > 1 else ''}",
                f"{n / np.median(w):.2f}",
                f"{np.median(w):.2f}",
                f"{np.percentile(w, 95):.2f}",
                f"{1e3 * np.median(inside[workers]):.1f}",
                f"{1e3 * np.median(overhead):.1f}",
            )
        )
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    for k, row in enumerate(table):
        print(
            "  ".join(
                c.ljust(wd) if i == 0 else c.rjust(wd)
                for i, (c, wd) in enumerate(zip(row, widths, strict=True))
            )
        )
        if k == 0:
            print("  ".join("-" * wd for wd in widths))


def main() -> None:
    print_cpu()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed sweeps per worker count (default 5)")
    parser.add_argument("--steps", type=int, default=400, help="steps per run (default 400)")
    args = parser.parse_args()
    print(f"cores usable: {len(os.sched_getaffinity(0))}, load average before: {os.getloadavg()}")
    capacity = [parallel_capacity()]
    with tempfile.TemporaryDirectory() as tmp:
        spec = load_sweep(make_sweep(Path(tmp), args.steps))
        n = spec.n_runs
        floor, serial = _time_in_process(spec, list(spec.runs()))
        print(f"{n} runs × {args.steps} steps; in-process run_one: {serial:.2f} s ({n / serial:.2f} runs/s)")
        wall, inside, loads = _time_clusters(spec, Path(tmp), args.repeat)
    capacity.append(parallel_capacity())
    print(f"load average after: {os.getloadavg()}")
    print(
        "parallel capacity of the machine (2 spinning processes vs 1; 2.0 = two free cores): "
        f"before {capacity[0]:.2f}, after {capacity[1]:.2f}"
    )
    print()
    _print_table(n, floor, wall, inside)
    ratios = np.array(wall[1]) / np.array(wall[2])
    print()
    print(
        f"speed-up 2 vs 1 worker: median {np.median(ratios):.2f}× (per repeat: "
        f"{', '.join(f'{r:.2f}' for r in ratios)}); target ≥ 1.7×"
    )
    print(f"1-minute load average at the start of each repeat: {', '.join(f'{x:.2f}' for x in loads)}")
    print(f"floor run time p95: {1e3 * np.percentile(floor, 95):.1f} ms")


if __name__ == "__main__":
    main()
