"""``wbcpy info`` and ``wbcpy dynamics``: tables, numbers against closed forms, one-line errors (exit 2)."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from wbcpy.cli import main
from wbcpy.model.registry import example_robot_data_dir

ROOT = Path(__file__).resolve().parents[2]


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def _assert_one_line_error(code: int, out: str, err: str) -> None:
    assert code == 2
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert "error" in err


# -------------------------------------------------------------------------------------------------- info
def test_info_table_matches_urdf(robots_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["info", "puma560"], capsys)
    assert code == 0 and err == ""
    root = ET.parse(robots_dir / "puma560.urdf").getroot()
    links = {link.get("name"): link for link in root.findall("link")}
    total = 0.0
    rows = {line.split()[1]: line.split() for line in out.splitlines() if line[:1].isdigit()}
    for joint in root.findall("joint"):
        row = rows[joint.get("name")]
        limit = joint.find("limit")
        child = joint.find("child").get("link")
        mass = float(links[child].find("inertial/mass").get("value"))
        total += mass
        assert row[2] == joint.get("type") and row[8] == child
        lower, upper, vel, effort = (float(x) for x in row[4:8])
        assert lower == pytest.approx(float(limit.get("lower")), rel=1e-5)
        assert upper == pytest.approx(float(limit.get("upper")), rel=1e-5)
        assert vel == pytest.approx(float(limit.get("velocity")), rel=1e-5)
        assert effort == pytest.approx(float(limit.get("effort")), rel=1e-5)
        assert float(row[9]) == pytest.approx(mass, rel=1e-5)
    assert len(rows) == 6
    total_line = next(line for line in out.splitlines() if line.startswith("total mass"))
    assert float(total_line.split(":")[1].split()[0]) == pytest.approx(total, rel=1e-5)


def test_info_list_and_path(robots_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["info", "--list"], capsys)
    assert code == 0
    names = out.split()
    assert {p.stem for p in robots_dir.glob("*.urdf")} <= set(names)
    if example_robot_data_dir() is not None:
        assert "panda" in names
    copy = tmp_path / "my_arm.urdf"
    copy.write_text((robots_dir / "rr_unit_mass.urdf").read_text())
    code, out, _ = _run(["info", str(copy)], capsys)
    assert code == 0 and "joint1" in out and "total mass (moving links): 2 kg" in out


def test_info_joint_types_of_real_robots(capsys: pytest.CaptureFixture[str]) -> None:
    if example_robot_data_dir() is None:
        pytest.skip("example-robot-data is not installed")
    code, out, _ = _run(["info", "kinova"], capsys)
    assert code == 0 and "continuous" in out
    code, out, _ = _run(["info", "talos"], capsys)
    assert code == 0 and "free-flyer" in out and "0-5" in out and "floating base" in out


def test_info_floating_base_flag(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["info", "rr_unit_mass", "--floating-base"], capsys)
    assert code == 0 and "free-flyer" in out and "8 DOF" in out


@pytest.mark.parametrize(
    "argv",
    [["info"], ["info", "no_such_robot"], ["info", "/nonexistent/arm.urdf"], ["info", "--bogus"]],
)
def test_info_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    _assert_one_line_error(*_run(argv, capsys))


def test_info_malformed_urdf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.urdf"
    bad.write_text("<robot name='x'><link name='a'></robot>")
    _assert_one_line_error(*_run(["info", str(bad)], capsys))
    empty = tmp_path / "empty.urdf"
    empty.write_text("<robot name='x'/>")
    _assert_one_line_error(*_run(["info", str(empty)], capsys))


# ---------------------------------------------------------------------------------------------- dynamics
def _parse_dynamics(out: str) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Per-DOF columns (q, qd, g, b) and the matrix M from ``wbcpy dynamics`` output."""
    head, _, tail = out.partition("\nM:")
    per_dof = [line.split() for line in head.splitlines() if line[:1].isdigit()]
    columns = {
        k: np.array([float(r[i]) for r in per_dof]) for i, k in enumerate(("q", "qd", "g", "b"), start=2)
    }
    mass = np.array(
        [[float(x) for x in line.split()[1:]] for line in tail.splitlines() if line[:1].isdigit()]
    )
    return columns, mass


def test_dynamics_matches_closed_form(capsys: pytest.CaptureFixture[str]) -> None:
    q1, q2, v1, v2 = 0.3, -0.5, 1.0, -0.2
    code, out, err = _run(["dynamics", "rr_unit_mass", "--q", str(q1), str(q2), "--qd=1,-2e-1"], capsys)
    assert code == 0 and err == ""
    cols, mass = _parse_dynamics(out)
    np.testing.assert_allclose(cols["q"], [q1, q2])
    np.testing.assert_allclose(cols["qd"], [v1, v2])
    c2, s2 = math.cos(q2), math.sin(q2)
    np.testing.assert_allclose(mass, [[3 + 2 * c2, 1 + c2], [1 + c2, 1.0]], rtol=1e-5)
    c1, c12 = math.cos(q1), math.cos(q1 + q2)
    np.testing.assert_allclose(cols["g"], [9.81 * (2 * c1 + c12), 9.81 * c12], rtol=1e-5)
    np.testing.assert_allclose(cols["b"], [-2 * s2 * v1 * v2 - s2 * v2**2, s2 * v1**2], rtol=1e-5)


def test_dynamics_floating_base(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(
        ["dynamics", "rr_unit_mass", "--floating-base", "--q", *["0"] * 6, "1", "0.4", "0.1"], capsys
    )
    assert code == 0
    cols, mass = _parse_dynamics(out)
    assert mass.shape == (8, 8)
    np.testing.assert_allclose(np.diag(mass)[:3], 2.0, rtol=1e-6)  # total mass on the base translation
    assert cols["g"][2] == pytest.approx(2 * 9.81, rel=1e-5)  # base z force holds both masses


@pytest.mark.parametrize(
    "argv",
    [
        ["dynamics", "rr_unit_mass", "--q", "0.3"],
        ["dynamics", "rr_unit_mass", "--q", "0.3", "nan"],
        ["dynamics", "rr_unit_mass", "--q", "0.3", "abc"],
        ["dynamics", "rr_unit_mass", "--q", "0.3", "0.2", "--qd", "1"],
        ["dynamics", "rr_unit_mass"],
        ["dynamics", "no_such_robot", "--q", "0"],
        ["dynamics", "/nonexistent/arm.urdf", "--q", "0"],
    ],
)
def test_dynamics_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    _assert_one_line_error(*_run(argv, capsys))


def test_python_dash_m(robots_dir: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    ok = subprocess.run(
        [sys.executable, "-m", "wbcpy", "info", str(robots_dir / "puma560.urdf")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert ok.returncode == 0 and "shoulder-yaw" in ok.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "wbcpy", "dynamics", "puma560", "--q", "1", "2"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    (line,) = bad.stderr.strip().splitlines()
    assert line.startswith("wbcpy dynamics: error: --q: expected nq = 6 values") and "got 2 values" in line
