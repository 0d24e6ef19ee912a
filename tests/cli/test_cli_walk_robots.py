"""``wbcpy walk`` on humanoids other than Talos: ``--feet``, ``--sole``, ``--posture``, the views of a robot
whose sole frames wbcpy added, and bad input (exit 2). Logs judged by raw Pinocchio
(tests/locomotion/_walk_acceptance)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from wbcpy.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "locomotion"))
from _walk_acceptance import accept


def _load(path):
    with np.load(path) as f:
        return {k: f[k] for k in f.files}


def test_g1_walks_and_its_walk_is_drawn(tmp_path, capsys, example_robot, monkeypatch):
    """G1 walks; its views are drawn with the robot that walked (its sole frames added): the footprints
    of the plots are the logged soles' (stand-in for matplotlib's drawing, which other tests cover)."""
    import wbcpy.viz.walk_plots as plots

    example_robot("g1")
    drawn = {}

    def plot_walk(path, robot, log, title="walk"):
        drawn.update(plots.walk_paths(robot, log), title=title)
        return True

    monkeypatch.setattr(plots, "plot_walk", plot_walk)
    log, out = tmp_path / "g1.npz", tmp_path / "plots"
    code = main(["walk", "g1", "--steps", "2", "--quiet", "--log", str(log), "--out", str(out)])
    text = capsys.readouterr().out
    assert code == 0, text
    data = _load(log)
    assert accept(data, 2, 0.11, robot="g1").failures == []  # (G1's default step: 0.15 m × 0.76)
    assert (
        drawn["soles"].shape == (6, 4, 3) and "0.11 m" in drawn["title"]
    )  # (start + 2 touch-downs, 2 soles)
    np.testing.assert_allclose(drawn["soles"][:, :, 2], 0.0, atol=2e-3)  # (on the ground)


def test_feet_and_sole_options(tmp_path, capsys, example_robot):
    """G1's ankle links named as feet with a sole of 0.16 × 0.05 m: the sole centred on the geometry's
    footprint, of the size given."""
    example_robot("g1")
    log = tmp_path / "g1.npz"
    argv = ["walk", "g1", "--steps", "2", "--length", "0.08", "--quiet", "--log", str(log),
            "--feet", "left_ankle_roll_link,right_ankle_roll_link", "--sole", "0.16x0.05"]  # fmt: skip
    code = main(argv)
    assert code == 0, capsys.readouterr().out
    data = _load(log)
    np.testing.assert_allclose(data["half_size"], [0.08, 0.025])
    np.testing.assert_allclose(data["contact_placements"][0][:3, 3], [0.035, 0.0, -0.035], atol=1e-9)
    assert accept(data, 2, 0.08, robot="g1").failures == []


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["g1", "--sole", "0.2"], "sole"),
        (["g1", "--sole", "0x0.1"], "sole"),
        (["g1", "--feet", "left_ankle_roll_link"], "feet"),
        (["g1", "--feet", "left_ankle_rol_link,right_ankle_roll_link"], "left_ankle_roll_link"),
        (["g1", "--posture", "half_sitting"], "posture"),
        (["icub", "--posture", "half_sitting"], "does not stand flat"),
        (["panda"], "floating-base"),
    ],
)
def test_bad_input_exits_2(capsys, example_robot, argv, message):
    example_robot(argv[0])
    assert main(["walk", *argv, "--steps", "1", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "error" in err and message in err
