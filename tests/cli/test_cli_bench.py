"""``wbcpy bench --quick`` (issue 29, point 6): runs from the installed package, one row per capability
with its median, its ratio to the raw-Pinocchio floor and to the installed peers, and the CPU it ran on.
No timing is asserted: only that every figure is printed, finite and positive."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from wbcpy.cli.bench import cpu_model
from wbcpy.model.registry import example_robot_data_dir

ROOT = Path(__file__).resolve().parents[2]
CAPABILITIES = [
    "jspace update + M, M⁻¹, g, b, J",
    "chain fk_jacobian",
    "AccelerationScene step",
    "VelocityScene step",
    "MultiRefMinJerkCtrl.iterate",
]


def test_bench_quick_prints_every_capability_with_its_ratios(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-m", "wbcpy", "bench", "--quick"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout
    assert cpu_model() in out.splitlines()[0] and "200 samples per call" in out
    talos = ["InverseDynamicsScene step", "InverseDynamicsScene one-QP step", "kinematic walk step"]
    expected = CAPABILITIES + (talos if example_robot_data_dir() else [])
    for capability in expected:
        (row,) = [line for line in out.splitlines() if line.startswith(capability)]
        ratios = [float(x) for x in re.findall(r"(\d+\.\d+)×", row)]
        assert ratios and all(0 < r < 1e4 for r in ratios), row
    if _have("pink"):
        assert re.search(r"pink \d+(\.\d)?: \d+\.\d+×", out)
    if not _have("tsid"):
        assert "TSID: not installed" in out or not example_robot_data_dir()
    if not _have("placo"):
        assert "PlaCo: not installed" in out or not example_robot_data_dir()


def _have(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def test_cpu_model_is_lscpus_model_name() -> None:
    lscpu = shutil.which("lscpu")
    if lscpu is None:
        pytest.skip("lscpu is not installed")
    out = subprocess.run([lscpu], capture_output=True, text=True, env={"LC_ALL": "C"}, timeout=30).stdout
    names = [line.split(":", 1)[1].strip() for line in out.splitlines() if line.startswith("Model name")]
    if not names:
        pytest.skip("lscpu prints no model name here")
    assert cpu_model() == names[0]


def test_bench_rejects_a_tiny_repeat(capsys: pytest.CaptureFixture[str]) -> None:
    from wbcpy.cli import main

    assert main(["bench", "--repeat", "3"]) == 2
    assert "--repeat" in capsys.readouterr().err
