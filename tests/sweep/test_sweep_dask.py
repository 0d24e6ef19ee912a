"""Sweeps on Dask: identical rows on any cluster of one machine, a killed worker, failing runs, resume,
BLAS pinning.

Two clusters are shared by the module (start-up dominates): a local cluster of two single-threaded
worker processes (``sweep_client``, the code path ``run_sweep`` uses), and an external cluster started
here as separate processes — ``dask scheduler`` and two ``dask worker`` on 127.0.0.1 with random free
ports (one worker without a nanny, so nothing but the wbcpy worker plugin pins its BLAS).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from _sweep_helpers import write_sweep

from wbcpy.cli import main
from wbcpy.sweep import load_sweep, read_results, run_one, run_sweep

distributed = pytest.importorskip(
    "distributed", reason="the sweep extra (dask[distributed]) is not installed"
)
threadpoolctl = pytest.importorskip(
    "threadpoolctl", reason="the sweep extra (threadpoolctl) is not installed"
)

from wbcpy.sweep.cluster import sweep_client  # noqa: E402  (needs distributed)

ROOT = Path(__file__).resolve().parents[2]
#: 12 runs, two of each four combinations failing (a NaN gain), three random starts each
IDENTITY = {
    "steps": 30,
    "grid": {"tasks.ee.kp": [60, 120], "tasks.ee.kd": [15, float("nan")]},
    "random": {"n": 3, "seed": 11, "q0_noise": 0.03},
}
#: 40 runs (≥ 40 for the worker-kill test)
FORTY = {"steps": 60, "grid": {"tasks.ee.kp": [40, 80, 120, 160, 200]}, "random": {"n": 8, "q0_noise": 0.02}}


#: BLAS pool sizes per external worker name, measured before any sweep registered the wbcpy plugin
THREADS_BEFORE: dict[str, list[int]] = {}


def _pools_probe() -> Callable[[], list[int]]:
    """A function that lists the BLAS/OpenMP pool sizes of the process it runs in (pickled by value)."""

    def pools() -> list[int]:
        import numpy  # noqa: F401  (load numpy's BLAS if the worker has not yet)
        from threadpoolctl import threadpool_info

        return [p["num_threads"] for p in threadpool_info()]

    return pools


def _env() -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }


@pytest.fixture(scope="module")
def local2() -> Iterator[distributed.Client]:
    with sweep_client(workers=2) as client:
        yield client


def _stop(procs: list[subprocess.Popen]) -> None:
    """Terminate the workers (they leave a live scheduler at once), then the scheduler; kill stragglers."""
    for proc in procs[1:]:
        if proc.poll() is None:
            proc.terminate()
    for proc in [*procs[1:], procs[0]]:
        if proc is procs[0] and proc.poll() is None:
            proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def external(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Address of a scheduler with two workers, each a separate process started here."""
    dask = shutil.which("dask", path=str(Path(sys.executable).parent)) or shutil.which("dask")
    if dask is None:
        pytest.skip("the `dask` command is not installed")
    folder = tmp_path_factory.mktemp("dask-cluster")
    info = folder / "scheduler.json"
    # no *_NUM_THREADS variables: the worker without a nanny gets nothing but the wbcpy plugin
    env = {k: v for k, v in _env().items() if not k.endswith("_NUM_THREADS")}
    common = {"cwd": folder, "env": env, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    procs = [
        subprocess.Popen(
            [
                dask,
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--scheduler-file",
                info,
            ],
            **common,
        )
    ]
    try:
        deadline = time.monotonic() + 60
        while not (info.exists() and info.stat().st_size):
            if time.monotonic() > deadline or procs[0].poll() is not None:
                pytest.fail("dask scheduler did not start")
            time.sleep(0.1)
        address = json.loads(info.read_text())["address"]
        worker = [dask, "worker", address, "--nthreads", "1", "--host", "127.0.0.1", "--no-dashboard"]
        procs.append(subprocess.Popen([*worker, "--name", "ext-0"], **common))
        procs.append(subprocess.Popen([*worker, "--name", "ext-1", "--no-nanny"], **common))
        with distributed.Client(address, timeout="30s") as client:
            client.wait_for_workers(2, timeout=90)
            names = {addr: w["name"] for addr, w in client.scheduler_info()["workers"].items()}
            THREADS_BEFORE.update({names[a]: t for a, t in client.run(_pools_probe()).items()})
        yield address
    finally:
        _stop(procs)


def _by_id(path: Path) -> dict[int, dict[str, str]]:
    _, rows = read_results(path)
    ids = [int(r["run_id"]) for r in rows]
    assert len(ids) == len(set(ids)), "a run id appears twice"
    return {int(r["run_id"]): r for r in rows}


def test_same_rows_on_one_and_two_local_workers_and_an_external_cluster(
    tmp_path, local2, external, monkeypatch, capsys
):
    path = write_sweep(tmp_path, IDENTITY)
    spec = load_sweep(path)
    outs = {k: tmp_path / f"{k}.csv" for k in ("one", "two", "external", "env")}
    assert main(["sweep", str(path), "--workers", "1", "--out", str(outs["one"]), "--quiet"]) == 1
    assert "a local cluster of 1 single-threaded workers" in capsys.readouterr().out
    rows = run_sweep(spec, client=local2, out=outs["two"])
    assert main(["sweep", str(path), "--scheduler", external, "--out", str(outs["external"]), "--quiet"]) == 1
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", external)
    run_sweep(spec, out=outs["env"])
    assert [r["run_id"] for r in rows] == list(range(12))
    tables = {k: _by_id(p) for k, p in outs.items()}
    columns = spec.deterministic_columns
    assert "final_error.ee.position" in columns and "max_acceleration" in columns
    reference = [[tables["two"][i][c] for c in columns] for i in range(12)]
    for name, table in tables.items():
        assert sorted(table) == list(range(12)), name
        assert [[table[i][c] for c in columns] for i in range(12)] == reference, name
    # the client process itself gives the same floats, bit for bit (CSV keeps the shortest repr)
    for run in spec.runs():
        here = run_one(spec, run)
        assert [str(here.get(c, "")) for c in columns] == reference[run.run_id]
    statuses = [tables["two"][i]["status"] for i in range(12)]
    assert statuses.count("ok") == 6 and all(
        s.startswith("ConfigError: tasks[0].kd") for s in statuses if s != "ok"
    )
    assert {tables["two"][i]["worker"] for i in range(12)} == {"0", "1"}  # both local workers ran runs
    assert {tables["external"][i]["worker"] for i in range(12)} <= {"ext-0", "ext-1"}


def test_killing_a_worker_mid_sweep_loses_and_repeats_no_run(tmp_path, local2):
    spec = load_sweep(write_sweep(tmp_path, FORTY))
    assert spec.n_runs == 40
    local2.wait_for_workers(2, timeout=60)
    before = local2.run(os.getpid)
    victim = min(before.values())
    done: list[int] = []

    def on_row(row: dict) -> None:
        done.append(row["run_id"])
        if len(done) == 5:
            os.kill(victim, signal.SIGKILL)

    out = tmp_path / "r.csv"
    rows = run_sweep(spec, client=local2, out=out, on_row=on_row)
    table = _by_id(out)
    assert sorted(table) == list(range(40)) and len(rows) == 40
    assert all(r["status"] == "ok" for r in table.values())
    local2.wait_for_workers(2, timeout=90)  # the nanny restarted the killed process
    after = local2.run(os.getpid)
    assert victim not in after.values() and len(after) == 2


def _inject_failure(log: str, bad_run: int) -> Callable[[], None]:
    """A function for ``client.run``: make the sweep task of run ``bad_run`` raise outside run_one."""

    def patch() -> None:
        import wbcpy.sweep.runner as runner

        original = runner.run_one

        def failing(spec: Any, run: Any) -> Any:
            if run.run_id == bad_run:
                with open(log, "a") as fh:
                    fh.write(f"{os.getpid()}\n")
                raise RuntimeError("injected task failure")
            return original(spec, run)

        failing.original = original
        runner.run_one = failing

    return patch


def _restore() -> None:
    import wbcpy.sweep.runner as runner

    runner.run_one = getattr(runner.run_one, "original", runner.run_one)


def test_a_task_failing_outside_run_one_is_retried_then_recorded(tmp_path, local2):
    spec = load_sweep(write_sweep(tmp_path, {"steps": 5, "grid": {"tasks.ee.kp": [10, 20, 30, 40]}}))
    log = tmp_path / "attempts.txt"
    local2.run(_inject_failure(str(log), bad_run=2))
    try:
        rows = run_sweep(spec, client=local2, out=tmp_path / "r.csv", retries=2)
    finally:
        local2.run(_restore)
    assert len(log.read_text().split()) == 3  # the first attempt and two retries
    assert [r["run_id"] for r in rows] == [0, 1, 2, 3]
    assert rows[2]["status"] == "RuntimeError: injected task failure" and rows[2]["worker"] == ""
    assert all(r["status"] == "ok" for i, r in enumerate(rows) if i != 2)
    assert _by_id(tmp_path / "r.csv")[2]["status"] == "RuntimeError: injected task failure"


def test_rows_survive_a_failing_gather(tmp_path, local2, monkeypatch):
    # seen once with tornado 6.6: an AssertionError inside the client's comm while fetching a result
    spec = load_sweep(write_sweep(tmp_path, {"steps": 5, "grid": {"tasks.ee.kp": [10, 20, 30, 40, 50]}}))
    calls = []

    def broken_gather(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        raise AssertionError("injected comm failure")

    monkeypatch.setattr(local2, "gather", broken_gather)
    rows = run_sweep(spec, client=local2)
    assert calls and [r["run_id"] for r in rows] == list(range(5))
    assert all(r["status"] == "ok" and r["worker"] in ("0", "1") for r in rows)


def test_failed_runs_progress_bar_and_plot_through_the_cli(tmp_path, external, capsys):
    sweep = {"steps": 20, "grid": {"tasks.ee.kp": [50, 100, float("nan")], "tasks.ee.kd": [10, 20]}}
    path = write_sweep(tmp_path, sweep)
    out, png = tmp_path / "r.csv", tmp_path / "heat.png"
    args = ["sweep", str(path), "--scheduler", external, "--out", str(out), "--plot", str(png)]
    assert main([*args, "--plot-metric", "final_error"]) == 1  # some runs failed
    captured = capsys.readouterr()
    assert "6/6" in captured.err and "100%" in captured.err  # tqdm over completed runs
    assert "6 runs" in captured.out and "4 ok, 2 failed" in captured.out
    assert "run 4: ConfigError: tasks[0].kp" in captured.out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = _by_id(out)
    assert [table[i]["status"] == "ok" for i in range(6)] == [True] * 4 + [False] * 2
    assert table[4]["final_error"] == "" and table[4]["tasks.ee.kp"] == "nan"


def test_resume_after_an_interrupted_sweep_runs_only_the_missing_ids(tmp_path, external):
    path = write_sweep(tmp_path, {**FORTY, "steps": 100})
    out = tmp_path / "r.csv"
    cli = [sys.executable, "-m", "wbcpy", "sweep", str(path), "--scheduler", external, "--out", str(out)]
    proc = subprocess.Popen([*cli, "--quiet"], env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not out.exists() or out.read_text().count("\n") < 6:  # header + 5 runs
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        assert time.monotonic() < deadline, "the sweep made no progress"
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)  # no chance to tidy up
    proc.wait(timeout=30)
    first = set(_by_id(out)) if out.read_text().endswith("\n") else None
    spec = load_sweep(path)
    with distributed.Client(external) as client:
        rows = run_sweep(spec, client=client, out=out, resume=True)
    if first is None:  # killed in the middle of a row: the partial line was dropped
        first = set(range(40)) - {r["run_id"] for r in rows}
    assert 5 <= len(first) < 40
    assert sorted(r["run_id"] for r in rows) == sorted(set(range(40)) - first)
    table = _by_id(out)
    assert sorted(table) == list(range(40)) and all(r["status"] == "ok" for r in table.values())
    assert run_sweep(spec, scheduler="tcp://127.0.0.1:1", out=out, resume=True) == []  # nothing left to run


def test_every_worker_runs_blas_on_one_thread(local2, external):
    def env() -> str | None:
        return os.environ.get("OPENBLAS_NUM_THREADS")

    assert set(local2.run(env).values()) == {"1"}  # set before the worker process started
    if (os.cpu_count() or 1) > 1:  # without a nanny nothing else limits the external worker's BLAS
        assert max(THREADS_BEFORE["ext-1"]) > 1, THREADS_BEFORE
    with sweep_client(scheduler=external) as client:  # registers the plugin on the external workers
        for client_ in (local2, client):
            threads = client_.run(_pools_probe())
            assert len(threads) == 2 and all(t and set(t) == {1} for t in threads.values()), threads
