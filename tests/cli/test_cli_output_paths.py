"""Output paths are checked before any work, in every command that writes files: a missing folder, a
folder where a file is meant, a file where a folder is meant — one line on stderr, exit status 2, and
nothing run. ``wbcpy walk`` also bounds dt, the steps and the step time (the log's memory)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wbcpy.cli import main
from wbcpy.sim.contact_simulation import ContactSimulation

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def no_walk(monkeypatch):
    """Fail if a walk starts (its plant is built)."""

    def refuse(self, *args, **kwargs):
        raise AssertionError("the walk started before its output paths were checked")

    monkeypatch.setattr(ContactSimulation, "__init__", refuse)


def _one_line_error(capsys, command: str, needle: str) -> None:
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert len(err.splitlines()) == 1, err
    assert err.startswith(f"wbcpy {command}: error:") and needle in err, err
    assert "OK" not in captured.out and "progress" not in captured.out


@pytest.mark.parametrize(
    ("option", "value", "needle"),
    [
        ("--log", "missing/dir/walk.npz", "--log"),
        ("--log", "{folder}", "--log"),
        ("--log", "{file}/walk.npz", "--log"),
        ("--html", "{folder}", "--html"),
        ("--html", "missing/dir/walk.html", "--html"),
        ("--out", "{file}", "--out"),
    ],
)
def test_walk_output_paths_are_checked_first(tmp_path, capsys, example_robot, no_walk, option, value, needle):
    example_robot("talos")
    (tmp_path / "folder").mkdir()
    (tmp_path / "file").write_text("x")
    value = value.format(folder=tmp_path / "folder", file=tmp_path / "file")
    if value.startswith("missing"):
        value = str(tmp_path / value)
    code = main(["walk", "--steps", "2", "--quiet", option, value])
    assert code == 2
    _one_line_error(capsys, "walk", needle)


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--dt", "1e-9"], "dt"),
        (["--dt", "0.0001", "--steps", "1000"], "dt"),  # 800 s at 10 kHz: more steps than a log holds
        (["--dt", "nan"], "dt"),
        (["--steps", "1000000"], "n_steps"),
        (["--step-time", "1e-17"], "step_time"),
        (["--step-time", "1e6"], "step_time"),
        (["--width", "0.05"], "width"),
        (["--turn", "6.3", "--steps", "2"], "turn"),
        (["--push", "30@1e9"], "push"),
        (["--push", "30@-1"], "push"),
        (["--push", "1e9@1"], "push"),
    ],
)
def test_walk_bounds_are_one_line_errors(capsys, example_robot, no_walk, argv, needle):
    example_robot("talos")
    assert main(["walk", "--quiet", *argv]) == 2
    _one_line_error(capsys, "walk", needle)


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["scene", str(EXAMPLES / "scene_reach.yaml"), "--html", "{folder}"], "--html"),
        (["scene", str(EXAMPLES / "scene_reach.yaml"), "--html", "missing/x.html"], "--html"),
        (["scene", str(EXAMPLES / "scene_reach.yaml"), "--plot", "{folder}"], "--plot"),
        (["reach", "lwr4", "--html", "{folder}"], "--html"),
        (["reach", "lwr4", "--plot", "missing/x.png"], "--plot"),
        (["view", "lwr4", "--html", "{folder}"], "--html"),
        (["view", "lwr4", "--html", "missing/x.html"], "--html"),
        (["sweep", str(EXAMPLES / "sweep_gains.yaml"), "--out", "{folder}"], "--out"),
        (["sweep", str(EXAMPLES / "sweep_gains.yaml"), "--out", "missing/x.csv"], "--out"),
        (["sweep", str(EXAMPLES / "sweep_gains.yaml"), "--plot", "{folder}"], "--plot"),
        (["sweep", str(EXAMPLES / "sweep_gains.yaml"), "--plot", "{file}"], "--plot"),
        (["demo", "--out", "{file}"], "--out"),
    ],
)
def test_other_commands_check_their_output_paths_first(tmp_path, capsys, argv, needle):
    (tmp_path / "folder").mkdir()
    (tmp_path / "file").write_text("x")
    args = [
        str(tmp_path / a)
        if a.startswith("missing/")
        else a.format(folder=tmp_path / "folder", file=tmp_path / "file")
        for a in argv
    ]
    if args[0] == "sweep" and needle == "--plot":
        args += ["--out", str(tmp_path / "results.csv")]
    if args[0] == "reach":
        args += ["--target", "0.3", "0.2", "0.5"]
    assert main(args) == 2
    _one_line_error(capsys, args[0], needle)
    if args[0] == "sweep":
        assert not (tmp_path / "results.csv").exists()  # nothing ran
