"""The installed package works outside a checkout: console script, shipped URDFs, robot registry."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(sys.executable).parent / "wbcpy"


@pytest.mark.skipif(
    not SCRIPT.is_file(), reason="wbcpy is not installed in this environment (no console script)"
)
def test_console_script_finds_shipped_robots_from_any_directory(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        [str(SCRIPT), "info", "puma560"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert "shoulder-yaw" in proc.stdout and "total mass" in proc.stdout.lower()
    where = subprocess.run(
        [sys.executable, "-c", "import wbcpy.robots as r; print(r.shipped_robots_dir())"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    shipped = Path(where.stdout.strip())
    assert (shipped / "puma560.urdf").is_file()
    assert (shipped / "bimanual_chains.yaml").is_file()
