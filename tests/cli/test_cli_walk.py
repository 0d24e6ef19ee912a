"""``wbcpy walk``: exit status, summary, log, plots and animation; the spec's four acceptance commands in
slow-marked tests (WBCPY_SLOW=1), each log checked by raw Pinocchio (tests/locomotion/_walk_acceptance)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest

from wbcpy.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "locomotion"))
from _walk_acceptance import accept

SKIP_SLOW = pytest.mark.skipif(not os.environ.get("WBCPY_SLOW"), reason="full walks: set WBCPY_SLOW=1")


def _load(path):
    with np.load(path) as f:
        return {k: f[k] for k in f.files}


def test_short_walk_writes_log_plots_and_animation(tmp_path, capsys, example_robot):
    example_robot("talos")
    log, html, out = tmp_path / "w.npz", tmp_path / "walk.html", tmp_path / "plots"
    argv = ["walk", "--steps", "2", "--length", "0.1", "--quiet", "--log", str(log), "--out", str(out)]
    code = main([*argv, "--html", str(html)])
    text = capsys.readouterr().out
    assert code == 0, text
    assert "progress" in text and "OK" in text
    assert accept(_load(log), 2, 0.1).failures == []
    assert (out / "walk.png").stat().st_size > 10_000
    assert "<html" in html.read_text(encoding="utf-8")[:2000].lower()


@pytest.mark.parametrize(
    "argv", [["--push", "30"], ["--push", "x@1"], ["--steps", "0"], ["--length", "nan"], ["--dt", "-1"]]
)
def test_bad_input_exits_2(capsys, example_robot, argv):
    example_robot("talos")
    assert main(["walk", "--quiet", *argv]) == 2
    assert "error" in capsys.readouterr().err


ACCEPTANCE = [
    (["--steps", "10", "--length", "0.20"], (10, 0.20, 0.0, 0.0), None),
    (["--steps", "8", "--length", "0.10", "--turn", "1.571"], (8, 0.10, 0.0, 1.571), None),
    (["--steps", "6", "--length", "0", "--lateral", "0.08"], (6, 0.0, 0.08, 0.0), None),
    (["--steps", "10", "--length", "0.15", "--push", "30@3.0"], (10, 0.15, 0.0, 0.0), 3.0),
]


@pytest.mark.slow
@SKIP_SLOW
@pytest.mark.parametrize(("argv", "plan", "push"), ACCEPTANCE)
def test_acceptance_commands(tmp_path, capsys, example_robot, argv, plan, push):
    example_robot("talos")
    log = tmp_path / "w.npz"
    code = main(["walk", "talos", *argv, "--quiet", "--log", str(log)])
    text = capsys.readouterr().out
    result = accept(_load(log), *plan, pushed=push is not None, push_time=push)
    print(argv, text, result.figures)
    assert code == 0, text
    assert result.failures == [], (result.failures, result.figures)
