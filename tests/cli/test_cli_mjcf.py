"""``wbcpy info/frames/dynamics robot.xml``: MJCF robots on the command line, numbers against MuJoCo."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from wbcpy.cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "mjcf"


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_info_lists_mjcf_joints_and_keyframes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["info", str(DATA / "floating_arm.xml")], capsys)
    assert code == 0 and err == "", err
    for text in (
        "free-flyer",
        "spherical",
        "prismatic",
        "revolute",
        "floating base",
        "MJCF keyframes",
        "bent",
    ):
        assert text in out
    assert "total mass (moving links): 4.8 kg" in out


def test_frames_lists_sites(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["frames", str(DATA / "floating_arm.xml"), "--type", "op"], capsys)
    assert code == 0
    assert {line.split()[1] for line in out.splitlines()[3:]} == {"elbow_site", "tool"}


def test_dynamics_equals_mujocos(capsys: pytest.CaptureFixture[str]) -> None:
    mujoco = pytest.importorskip("mujoco", reason="MuJoCo is the oracle")
    code, out, _ = _run(["dynamics", str(DATA / "two_hinges.xml"), "--q", "home"], capsys)
    assert code == 0
    rows = [line.split() for line in out.splitlines()[3:6]]
    gravity = np.array([float(r[4]) for r in rows])
    mj = mujoco.MjModel.from_xml_path(str(DATA / "two_hinges.xml"))
    data = mujoco.MjData(mj)
    data.qpos[:] = [0.1, 0.2, 0.3]
    mujoco.mj_forward(mj, data)
    np.testing.assert_allclose(gravity, data.qfrc_bias, rtol=1e-5)  # (printed with 6 digits)


def test_mjcf_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "bad.xml").write_text("<mujoco><worldbody>")
    for argv in (
        ["info", str(tmp_path / "bad.xml")],
        ["frames", str(DATA / "two_hinges.xml"), "--floating-base"],
    ):
        code, _, err = _run(argv, capsys)
        assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
        assert "MJCF" in err
