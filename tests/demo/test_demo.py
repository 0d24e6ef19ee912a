"""``wbcpy demo`` runs every part to completion and writes a non-trivial PNG plot and an HTML animation
per simulated part (the Talos part needs example-robot-data, a test dependency)."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from wbcpy.cli import main
from wbcpy.demo.models import run_demo
from wbcpy.model.registry import example_robot_data_dir
from wbcpy.sim.mujoco import mujoco_available

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_demo_completes_and_writes_valid_plots_and_animations(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason="plots need the wbcpy[plot] extra")
    import matplotlib.image as mpimg

    if example_robot_data_dir() is None:
        pytest.skip("the Talos part needs example-robot-data")
    out = io.StringIO()
    result = run_demo(tmp_path, out=out, progress=False)
    text = out.getvalue()
    sections = ("1. jspace", "2. arl", "3. AccelerationScene", "4. MultiRefMinJerkCtrl")
    sections += ("5. InverseDynamicsScene", "6. walking", "7. plots", "8. animations")
    for section in sections:
        assert section in text
    assert result.ok, text
    assert result.reach.position_error < 1e-3
    assert result.talos.ok and "— ok" in text
    walked = result.parts["walk"]  # (in MuJoCo where it is installed: a test dependency)
    assert walked.plant == ("mujoco" if mujoco_available() else "pinocchio")
    assert walked.ok and walked.progress >= 0.9, walked.text()
    assert [p.name for p in result.plots] == ["scene.png", "reach.png", "talos.png", "walk.png"]
    if result.animations:  # (the viz extra is a test dependency too)
        names = ["scene_reach.html", "reach.html", "talos.html", "walk.html"]
        assert [p.name for p in result.animations] == names
        assert result.animations[2].stat().st_size > 1_000_000  # Talos's meshes are in it
    for path in result.plots:
        data = path.read_bytes()
        assert data[:8] == PNG_SIGNATURE, path
        assert len(data) > 10_000, path
        image = mpimg.imread(path)
        assert image.shape[0] >= 300 and image.shape[1] >= 400
        # a plot, not a blank canvas: many distinct colours and a fair share of non-white pixels
        rgb = image[..., :3].reshape(-1, 3)
        assert np.unique(np.round(rgb, 2), axis=0).shape[0] > 20
        assert (rgb.min(axis=1) < 0.9).mean() > 0.01


def test_demo_without_plots_via_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["demo", "--no-plots", "--quiet", "--out", str(tmp_path / "x")])  # every part
    captured = capsys.readouterr()
    assert code == 0, captured.out
    assert "plots: off" in captured.out
    assert not (tmp_path / "x").exists()


def test_demo_rejects_an_unknown_backend_with_one_line() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "wbcpy", "demo", "--solver", "nosuchsolver", "--no-plots"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    # (a daqp release not called directly adds its one notice per process, issue 27: not an error line)
    lines = [ln for ln in proc.stderr.splitlines() if "DAQP's C solver is not called directly" not in ln]
    assert len(lines) == 1 and "nosuchsolver" in lines[0]
    assert "Traceback" not in proc.stderr
