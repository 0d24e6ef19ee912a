"""Tests of ``wbcpy reach`` and of examples/reach_minjerk.py.

Oracles: the printed final error is re-checked against the target, the PNG signature of the plot file,
exit codes and one-line error messages.
"""

from __future__ import annotations

import re
import runpy
import sys
from pathlib import Path

import numpy as np
import pytest

from wbcpy.cli import main

ROOT = Path(__file__).resolve().parents[2]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _final_errors(out: str) -> tuple[float, float]:
    m = re.search(r"final error: position ([0-9.e+-]+) m, orientation ([0-9.e+-]+) rad", out)
    assert m, out
    return float(m.group(1)), float(m.group(2))


def test_reach_planar_in_target(capsys):
    rc = main(["reach", "planar3r", "--chain", "base_link:tip", "--target", "0.4", "0.3", "0",
               "--mode", "full", "--q0", "0.3", "0.5", "0.2"])  # fmt: skip
    out = capsys.readouterr().out
    assert rc == 0, out
    steps = int(re.search(r"in target after (\d+) steps", out).group(1))
    assert 100 < steps < 500  # ~2 T at T = 1 s, Ts = 0.01 s
    dp, dr = _final_errors(out)
    assert dp < 1e-3 and dr < 1e-3
    assert re.search(r"iterate\(\): median [0-9.]+ µs", out)
    assert "start orientation (no --rpy)" in out


def test_reach_with_rpy_and_defaults(capsys):
    rc = main(["reach", "lwr4", "--q0", "0", "-0.5", "0", "1.3", "0", "-0.7", "0", "--tol", "5e-4",
               "--target", "0.35", "0.25", "0.45", "--rpy", "3.1416", "0.6416", "-2.5213"])  # fmt: skip
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "lwr_base_link -> lwr_ee (7 DOF)" in out  # default chain: root link to last link
    dp, dr = _final_errors(out)
    assert np.hypot(dp, dr) < 5e-4 * 1.01  # |e| < tol one step before the end, and still shrinking


def test_reach_budget_and_exec_time_clamp(capsys):
    rc = main(["reach", "planar3r", "--target", "0.4", "0.3", "0", "--q0", "0.3", "0.5", "0.2",
               "--max-steps", "5", "--exec-time", "0.05"])  # fmt: skip
    out = capsys.readouterr().out
    assert rc == 1
    assert "NOT in target after 5 steps" in out
    assert "using 0.1 s" in out


def test_reach_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    path = tmp_path / "reach.png"
    rc = main(["reach", "planar3r", "--target", "0.4", "0.3", "0", "--q0", "0.3", "0.5", "0.2",
               "--plot", str(path)])  # fmt: skip
    assert rc == 0
    assert path.read_bytes()[:8] == PNG_MAGIC
    assert f"plot written to {path}" in capsys.readouterr().out


def test_reach_plot_without_matplotlib(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    path = tmp_path / "reach.png"
    rc = main(["reach", "planar3r", "--target", "0.4", "0.3", "0", "--q0", "0.3", "0.5", "0.2",
               "--plot", str(path)])  # fmt: skip
    assert rc == 0
    assert "matplotlib is not installed" in capsys.readouterr().out
    assert not path.exists()


@pytest.mark.parametrize(
    "extra",
    [
        ["--chain", "base_link"],
        ["--chain", "base_link:nowhere"],
        ["--chain", "tip:base_link"],
        ["--ts", "0"],
        ["--ts", "nan"],
        ["--max-steps", "0"],
        ["--q0", "0.1", "0.2"],
        ["--gamma", "-1"],
        ["--rpy", "0", "0", "inf"],
        ["--plot", "/nonexistent-dir/x/y.png"],
    ],
)
def test_reach_bad_arguments(extra, capsys):
    if extra[0] == "--plot":
        pytest.importorskip("matplotlib")
    rc = main(["reach", "planar3r", "--target", "0.4", "0.3", "0", "--max-steps", "3", *extra])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.startswith("wbcpy reach: error:") and err.count("\n") == 1, err


def test_reach_unknown_robot_and_parse_errors(capsys):
    assert main(["reach", "no_such_robot", "--target", "0", "0", "0"]) == 2
    err = capsys.readouterr().err
    assert "unknown robot" in err and err.count("\n") == 1
    assert main(["reach", "planar3r", "--target", "0", "x", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("wbcpy reach: error: --target") and err.count("\n") == 1
    for argv in (["reach", "planar3r", "--target", "1", "2"], ["reach", "planar3r"]):  # argparse errors
        with pytest.raises(SystemExit) as info:
            main(argv)
        assert info.value.code == 2


def test_example_script_runs(tmp_path, capsys, monkeypatch):
    path = tmp_path / "example.png"
    argv = ["reach_minjerk.py"]
    try:
        import matplotlib  # noqa: F401

        argv += ["--plot", str(path)]
    except ImportError:
        path = None
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as info:
        runpy.run_path(str(ROOT / "examples" / "reach_minjerk.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert info.value.code == 0, out
    assert "state INTARGET" in out and "IK for qd: success=True" in out
    dp = float(re.search(r"final error: ([0-9.e+-]+) m", out).group(1))
    assert dp < 1e-3
    if path is not None:
        assert path.read_bytes()[:8] == PNG_MAGIC
