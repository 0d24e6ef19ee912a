"""Every script in examples/ runs to completion in under 20 s; the new ones also check their maths."""

from __future__ import annotations

import os
import runpy
import subprocess
import sys
import time
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SCRIPTS = sorted(EXAMPLES.glob("*.py"))
ROOT = EXAMPLES.parent


def test_one_example_per_model_and_a_yaml_scene() -> None:
    names = {p.name for p in SCRIPTS}
    assert {"jspace_dynamics.py", "arl_chains.py", "scene_reach.py", "reach_minjerk.py"} <= names
    assert (EXAMPLES / "scene_reach.yaml").is_file()


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_example_runs_quickly(script: Path, tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    elapsed = time.perf_counter() - start
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert elapsed < 20.0, f"{script.name} took {elapsed:.1f} s"


def test_jspace_example_identities() -> None:
    result = runpy.run_path(str(EXAMPLES / "jspace_dynamics.py"))["main"]()
    assert result["torque_residual"] < 1e-9  # τ = M q̈ + b + g against Pinocchio's RNEA
    assert result["energy_drift"] < 1e-3  # free motion conserves energy (semi-implicit Euler, dt 1e-4)


def test_arl_example_reaches_its_target() -> None:
    assert runpy.run_path(str(EXAMPLES / "arl_chains.py"))["main"]() < 1e-6
