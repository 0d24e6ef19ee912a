"""``wbcpy sweep SWEEP.yaml``: many closed-loop scene runs on Dask, one CSV row per run.

Without ``--scheduler`` (and without ``DASK_SCHEDULER_ADDRESS``) the runs go to an embedded
``distributed.LocalCluster`` of ``--workers`` single-threaded worker processes (default: the cores);
with an address, to that cluster (``dask scheduler`` and ``dask worker`` on the machines). A progress
bar counts completed runs; rows are written as runs complete, so an interrupted sweep keeps every
finished run and ``--resume`` runs only the missing ones. Exit status: 0 when every run is ok, 1 when
some run failed (its row holds the error), 2 for a bad sweep file or option.

The sweep file format is documented in :mod:`wbcpy.sweep.load` and in ``examples/sweep_gains.yaml``.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from pathlib import Path
from typing import Any

from . import CLIError
from .common import add_package_dir_argument, check_output_file, check_plot_path, package_dirs_arg

NEEDS = ("distributed", "tqdm", "threadpoolctl")


def _check_installed() -> None:
    missing = [m for m in NEEDS if importlib.util.find_spec(m) is None]
    if missing:
        raise CLIError(f"sweeps need Dask ({', '.join(missing)} not installed): pip install 'wbcpy[sweep]'")


def _out_path(args: argparse.Namespace) -> Path:
    out = check_output_file(args.out if args.out else f"{Path(args.sweep).stem}-results.csv", "--out")
    if out.exists() and out.stat().st_size and not (args.resume or args.overwrite):
        raise CLIError(f"{str(out)!r} exists: --resume to add the missing runs, --overwrite to start again")
    return out


def _plot_choice(args: argparse.Namespace, spec: Any) -> tuple[str, list[str]] | None:
    if not args.plot:
        return None
    check_plot_path(args.plot)
    if args.plot_params:
        params = args.plot_params.split(",")
    else:
        params = [p for p, values in spec.grid.items() if len(values) > 1][:2]
    for p in params:
        if p not in spec.param_columns:
            raise CLIError(f"--plot-params: {p!r} is not a swept parameter ({', '.join(spec.param_columns)})")
    if not 1 <= len(params) <= 2:
        raise CLIError("--plot needs one or two swept parameters (--plot-params A[,B])")
    metric = args.plot_metric or ("success" if "success" in spec.metrics else spec.metric_columns[0])
    if metric not in spec.metric_columns:
        raise CLIError(f"--plot-metric: {metric!r} is not a result column ({', '.join(spec.metric_columns)})")
    return metric, params


def _where(args: argparse.Namespace) -> str:
    address = args.scheduler or os.environ.get("DASK_SCHEDULER_ADDRESS")
    if address:
        return f"scheduler {address}"
    from ..sweep.cluster import default_workers

    return f"a local cluster of {args.workers or default_workers()} single-threaded workers"


def _summary(rows: list[dict[str, str]], new: int, elapsed: float, out: Path) -> int:
    failed = [r for r in rows if r.get("status") != "ok"]
    rate = new / elapsed if elapsed > 0 else float("nan")
    print(
        f"{len(rows)} runs in {out} ({new} run by this call in {elapsed:.1f} s, {rate:.2f} runs/s): "
        f"{len(rows) - len(failed)} ok, {len(failed)} failed"
    )
    for row in sorted(failed, key=lambda r: int(r["run_id"]))[:5]:
        print(f"  run {row['run_id']}: {row['status']}")
    if len(failed) > 5:
        print(f"  … and {len(failed) - 5} more (see the status column)")
    return len(failed)


def _export_package_dirs(dirs: list[str]) -> None:
    """Put the ``--package-dir`` folders in front of ``ROS_PACKAGE_PATH`` of this process: the robots of
    the runs are built in the workers, and the workers of the local cluster inherit this environment
    (workers of a remote cluster need ``ROS_PACKAGE_PATH`` set where they run)."""
    if dirs:
        old = os.environ.get("ROS_PACKAGE_PATH", "")
        os.environ["ROS_PACKAGE_PATH"] = os.pathsep.join([str(Path(d).resolve()) for d in dirs] + [old])


def run(args: argparse.Namespace) -> int:
    """Load the sweep, run it on Dask, summarise, plot."""
    if args.workers is not None and args.workers < 1:
        raise CLIError(f"--workers must be ≥ 1, got {args.workers}")
    if not Path(args.sweep).is_file():
        raise CLIError(f"sweep file {args.sweep!r} not found")
    _check_installed()
    from ..sweep import load_sweep, plot_sweep, read_results, run_sweep

    _export_package_dirs(package_dirs_arg(args))
    out = _out_path(args)
    spec = load_sweep(args.sweep)
    plot = _plot_choice(args, spec)
    print(f"sweep {Path(args.sweep).name}: {spec.describe()}, on {_where(args)}")
    start = time.perf_counter()
    try:
        rows = run_sweep(
            spec,
            workers=args.workers,
            scheduler=args.scheduler,
            out=out,
            resume=args.resume,
            progress=not args.quiet,
        )
    except OSError as exc:
        raise CLIError(f"cannot reach the Dask scheduler: {exc}") from None
    except KeyboardInterrupt:
        print(f"wbcpy sweep: interrupted; finished runs are in {out} (--resume continues)", file=sys.stderr)
        raise
    _, all_rows = read_results(out)
    failed = _summary(all_rows, len(rows), time.perf_counter() - start, out)
    if plot is not None:
        metric, params = plot
        order = {p: spec.grid[p] for p in params if p in spec.grid}
        if plot_sweep(args.plot, all_rows, metric, params, order, title=f"{Path(args.sweep).name}: {metric}"):
            print(f"plot saved to {args.plot}")
        else:
            print(
                "wbcpy sweep: matplotlib is not installed; --plot skipped (pip install matplotlib)",
                file=sys.stderr,
            )
    return 1 if failed else 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``sweep`` command."""
    parser = subparsers.add_parser(
        "sweep",
        help="run a sweep of closed-loop scene runs on Dask (gains, random initial states), CSV results",
        description=(
            "Run every combination of the sweep file's grid (× random samples) as a closed-loop scene "
            "simulation on a Dask cluster, writing one CSV row per run as runs complete. Exit status 1 "
            "when some run failed. See examples/sweep_gains.yaml."
        ),
    )
    parser.add_argument("sweep", metavar="SWEEP.yaml", help="sweep file")
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="address of a running Dask scheduler (default: $DASK_SCHEDULER_ADDRESS, else a local cluster)",
    )
    parser.add_argument(
        "--workers", type=int, metavar="N", help="local worker processes, one thread each (default: cores)"
    )
    parser.add_argument("--out", metavar="FILE.csv", help="result file (default: SWEEP-results.csv)")
    parser.add_argument("--resume", action="store_true", help="keep the rows in --out, run only missing ids")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing --out file")
    parser.add_argument(
        "--plot", metavar="FILE.png", help="heat map (two parameters) or curve (one) of a metric (matplotlib)"
    )
    parser.add_argument(
        "--plot-metric", metavar="COLUMN", help="metric column to plot (default: success, else the first)"
    )
    parser.add_argument(
        "--plot-params",
        metavar="A[,B]",
        help="one or two swept parameters to plot against (default: the first two with several values)",
    )
    add_package_dir_argument(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(func=run)
