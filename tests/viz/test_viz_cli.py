"""The CLI's visualisation: ``wbcpy view``, ``scene --html``, ``reach --html``, the demo's animations.

Without the viz extra (meshcat hidden from the import system) every command that needs it says how to get
it in one line and exits with 2, before running anything. The written animations cover the whole run: the
animation lasts as long as the run and starts at the run's first configuration.
"""

from __future__ import annotations

import base64
import io
import json
import re
import socket
import sys
from pathlib import Path

import numpy as np
import pytest

from wbcpy.cli import main

pytest.importorskip("meshcat", reason='the viz extra is not installed (pip install "wbcpy[viz]")')

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _commands(path: Path) -> list[dict]:
    import umsgpack

    match = re.search(r"var commands = (\[.*?\]);\n", path.read_text(), re.S)
    assert match
    return [umsgpack.unpackb(base64.b64decode(c)) for c in json.loads(match.group(1))]


def _duration(path: Path) -> float:
    (anim,) = [c for c in _commands(path) if c["type"] == "set_animation"]
    clip = anim["animations"][0]["clip"]
    return max(k["time"] for t in clip["tracks"] for k in t["keys"]) / clip["fps"]


@pytest.mark.parametrize(
    "argv",
    [
        ["view", "lwr4"],
        ["view", "lwr4", "--html", "x.html"],
        ["scene", str(EXAMPLES / "scene_reach.yaml"), "--html", "x.html"],
        ["reach", "lwr4", "--target", "0.3", "0.3", "0.7", "--html", "x.html"],
    ],
)
def test_without_the_viz_extra_the_commands_say_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, "meshcat", None)  # importlib.util.find_spec("meshcat") -> None
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and 'pip install "wbcpy[viz]"' in err
    assert list(tmp_path.iterdir()) == []


def test_view_html_writes_a_still_view(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bimanual.html"
    assert main(["view", "bimanual", "--q", *["0.3"] * 15, "--html", str(out)]) == 0
    cmds = _commands(out)
    assert not [c for c in cmds if c["type"] == "set_animation"]
    assert len([c for c in cmds if c["type"] == "set_object" and "/robot/visuals/" in c["path"]]) == 31
    assert str(out) in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["view", "lwr4", "--q", "0.1", "0.2"], "expected nq = 7 values"),
        (["view", "lwr4", "--q", "half_sitting"], "reference configuration"),
        (["view", "no_such_robot"], "no_such_robot"),
        (["view", "lwr4", "--html", "nofolder/x.html"], "no folder"),
        (
            ["reach", "lwr4", "--target", "0.3", "0.3", "0.7", "--html", "nofolder/x.html"],
            "--html: no folder",
        ),
    ],
)
def test_view_bad_arguments_exit_2(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    argv: list,
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_view_on_a_taken_port_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["view", "lwr4", "--port", str(port)]) == 2
    assert f"cannot serve the 3-D view on 127.0.0.1:{port}" in capsys.readouterr().err


def test_reach_html_animates_the_whole_reach(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "reach.html"
    assert main(["reach", "lwr4", "--target", "0.3", "0.3", "0.7", "--html", str(out)]) == 0
    text = capsys.readouterr().out
    steps = int(re.search(r"in target after (\d+) steps", text).group(1))
    assert _duration(out) == pytest.approx(steps * 0.01)
    assert f"animation written to {out}" in text


def test_scene_html_animates_the_whole_simulation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "scene.html"
    argv = ["scene", str(EXAMPLES / "scene_reach.yaml"), "--steps", "200", "--quiet", "--html", str(out)]
    assert main(argv) == 0
    dt = float(re.search(r"dt ([0-9.e-]+) s", capsys.readouterr().out).group(1))
    assert _duration(out) == pytest.approx(200 * dt)
    traced = [c["path"] for c in _commands(out) if c["path"].startswith("/meshcat/traces/")]
    assert traced and all(p.endswith(("/path", "/marker")) for p in traced)
    assert [c for c in _commands(out) if c["path"] == "/meshcat/targets/0"]


def test_demo_writes_both_animations_beside_its_plots(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from wbcpy.demo.models import run_demo

    result = run_demo(
        tmp_path, progress=False, out=io.StringIO(), parts=("scene", "reach")
    )  # (talos: test_demo)
    assert [p.name for p in result.animations] == ["scene_reach.html", "reach.html"]
    assert all(p.parent == tmp_path and p.stat().st_size > 100_000 for p in result.animations)
    assert _duration(result.animations[0]) == pytest.approx(
        float(result.scene.time[-1] - result.scene.time[0])
    )
    assert np.isclose(_duration(result.animations[1]), result.reach.time[-1] - result.reach.time[0])


def test_demo_without_the_viz_extra_skips_the_animations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from wbcpy.demo.models import run_demo

    monkeypatch.setitem(sys.modules, "meshcat", None)
    log = io.StringIO()
    result = run_demo(tmp_path, progress=False, out=log, parts=("scene", "reach"))
    assert result.ok and result.animations == []
    assert 'animations: skipped, the viz extra is not installed (pip install "wbcpy[viz]")' in log.getvalue()
    assert not list(tmp_path.glob("*.html"))
