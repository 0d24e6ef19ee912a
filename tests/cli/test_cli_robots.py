"""The command line on every robot: robots, frames, reach defaults, output paths, exit codes (issue 12
items 4-8 and 10, issue 14 class 8)."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

from wbcpy.cli import main
from wbcpy.model.registry import available, example_robot_data_dir, load_robot, registry, robot_entry

ROOT = Path(__file__).resolve().parents[2]
needs_erd = pytest.mark.skipif(example_robot_data_dir() is None, reason="example-robot-data is not installed")


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def _one_line_error(code: int, err: str, *needles: str) -> None:
    assert code == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    for needle in needles:
        assert needle in err, (needle, err)


def _wbcpy(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wbcpy", *args], capture_output=True, text=True, timeout=300, cwd=cwd
    )


def test_robots_lists_every_name_with_its_source(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["robots"], capsys)
    assert code == 0
    rows = {line.split()[0]: line for line in out.splitlines()[2:] if line.strip()}
    for name, entry in registry().items():
        assert entry.source in rows[name], name
    code, out, _ = _run(["robots", "--names"], capsys)
    assert out.split() == available()


def test_frames_lists_every_frame_with_type_and_parent_joint(robots_dir: Path, capsys) -> None:
    code, out, _ = _run(["frames", "lwr4"], capsys)
    assert code == 0
    model = pin.buildModelFromUrdf(str(robots_dir / "lwr4.urdf"))  # the oracle
    rows = [line.split() for line in out.splitlines()[3:]]
    assert len(rows) == model.nframes
    for row in rows:
        frame = model.frames[int(row[0])]
        assert row[1] == frame.name and row[3] == model.names[frame.parentJoint]
        np.testing.assert_allclose([float(x) for x in row[4:7]], frame.placement.translation, atol=1e-5)


@needs_erd
def test_frames_finds_the_panda_tcp(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["frames", "panda", "--grep", "tcp", "--type", "body"], capsys)
    assert code == 0
    assert any(line.split()[1:4] == ["panda_hand_tcp", "BODY", "panda_joint7"] for line in out.splitlines())


def test_version_comes_from_the_package_metadata() -> None:
    proc = _wbcpy("--version")
    assert proc.returncode == 0
    assert proc.stdout.startswith(f"wbcpy {importlib.metadata.version('wbcpy')} ")


def test_info_does_not_import_the_qp_and_scene_layers() -> None:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "wbcpy", "info", "lwr4"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if "|" in line}
    assert not {m for m in imported if m.startswith(("scipy", "wbcpy.scenes", "wbcpy.qp"))}


def test_demo_module_does_not_import_the_cli() -> None:
    code = "import sys, wbcpy.demo.models; print(sorted(m for m in sys.modules if m.startswith('wbcpy.cli')))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.stdout.strip() == "[]", proc.stdout + proc.stderr


def _reachable_target(name: str) -> tuple[str, str, list[str]]:
    """Root, tip and a reachable target: FK (raw Pinocchio) of the start posture with the chain's joints
    moved by 0.15 rad towards the middle of their ranges, expressed in the root frame."""
    robot = load_robot(name)
    entry = robot_entry(name)
    postures = robot.reference_configuration_names()
    q = robot.reference_configuration(postures[0]) if postures else None
    dof = robot.dof_from_q(q) if q is not None else None
    chain = robot.chain(robot.root_link, entry.end_effector, rest=dof)
    start = dof[chain.dof_indices] if dof is not None else chain.rest[chain.dof_indices]
    start = np.clip(start, chain.lower, chain.upper)
    moved = start + 0.15 * np.sign((chain.lower + chain.upper) / 2.0 - start)
    full = chain.rest.copy()
    full[chain.dof_indices] = moved
    model = robot.model
    data = model.createData()
    pin.framesForwardKinematics(model, data, robot.q_from_dof(full))
    oMr = data.oMf[model.getFrameId(robot.root_link)]
    oMt = data.oMf[model.getFrameId(entry.end_effector)]
    p = (oMr.inverse() * oMt).translation
    return robot.root_link, entry.end_effector, [f"{x:.9f}" for x in p]


@needs_erd
@pytest.mark.parametrize("name", ["talos", "baxter", "go1"])
def test_reach_defaults_work_on_real_robots(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    root, tip, target = _reachable_target(name)
    code, out, err = _run(["reach", name, "--target", *target, "--mode", "xyz"], capsys)
    assert f"chain {root} -> {tip}" in out, out
    assert code == 0, out + err
    position_error = float(out.split("final error: position ")[1].split()[0])
    assert position_error < 1e-3


@needs_erd
def test_default_end_effectors_of_icub_and_tiago() -> None:
    from wbcpy.model.registry import default_end_effector

    assert default_end_effector(load_robot("icub"), "icub") == "l_hand"
    assert default_end_effector(load_robot("tiago"), "tiago") == "arm_tool_link"
    talos = load_robot("talos")
    assert talos.chain(talos.root_link, default_end_effector(talos, "talos")).n >= 7


def test_reach_picks_xyz_for_a_3dof_arm_and_the_deepest_frame(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["reach", "planar3r", "--target", "0.5", "0.2", "0", "--max-steps", "400"], capsys)
    assert "chain base_link -> tip (3 DOF)" in out and "mode xyz" in out
    assert code == 0, out


@pytest.mark.parametrize(
    "argv",
    [
        ["reach", "lwr4", "--target", "0.3", "0", "0.5", "--ts", "1e-300"],
        ["reach", "lwr4", "--target", "0.3", "0", "0.5", "--exec-time", "nan"],
        ["reach", "lwr4", "--target", "0.3", "0", "0.5", "--tip", "nope"],
        ["reach", "lwr4", "--target", "0.3", "0", "0.5", "--q0", "home"],
        ["dynamics", "lwr4", "--q", "0", "0", "0", "0", "0", "0", "0", "--qd", *["1e200"] * 7],
        ["info", "three_lnk.urdf"],
    ],
    ids=["tiny-ts", "nan-exec-time", "unknown-tip", "no-srdf", "nan-result", "missing-file"],
)
def test_bad_values_are_one_line_and_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(argv, capsys)
    _one_line_error(code, err)
    assert "nan" not in out.lower()


def test_missing_urdf_names_the_file_and_similar_ones(
    tmp_path: Path, robots_dir: Path, capsys, monkeypatch
) -> None:
    (tmp_path / "three_link.urdf").write_text((robots_dir / "planar3r.urdf").read_text())
    monkeypatch.chdir(tmp_path)
    code, _, err = _run(["info", "three_lnk.urdf"], capsys)
    _one_line_error(code, err, "no such file", "three_link.urdf")
    assert "Errno" not in err


SCENE = ROOT / "examples" / "scene_reach.yaml"


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["demo", "--out", "FILE"], "is a file"),
        (["demo", "--out", "/proc/wbcpy-demo"], "cannot write"),
        (["scene", str(SCENE), "--plot", "x.unknownext"], "unknown image format"),
        (["scene", str(SCENE), "--plot", "DIR"], "is a folder"),
        (["scene", str(SCENE), "--plot", "/proc/x.png"], "cannot write"),
        (["reach", "lwr4", "--target", "0.3", "0", "0.5", "--plot", "/proc/x.png"], "cannot write"),
        (["scene", str(SCENE), "--dt", "1e-300"], "raise dt"),
        (["scene", str(SCENE), "--solver", "mosek"], "pip install"),
    ],
)
def test_output_paths_and_options_are_checked_first(
    argv: list[str], needle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib")
    (tmp_path / "FILE").write_text("x")
    argv = [a.replace("FILE", str(tmp_path / "FILE")).replace("DIR", str(tmp_path)) for a in argv]
    code, out, err = _run(argv, capsys)
    _one_line_error(code, err, needle)
    assert out == ""  # nothing ran


def _scene_file(tmp_path: Path, **extra: str) -> Path:
    lines = [
        "robot: lwr4",
        "steps: 30",
        "dt: 0.002",
        "tasks:",
        "  - {name: ee, type: cart, tip: lwr_ee, target: {offset: [0.0, 0.0, 0.01]}}",
    ]
    lines += [f"{k}: {v}" for k, v in extra.items()]
    path = tmp_path / "scene.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_q0_outside_the_limits_warns_first_and_exits_1(tmp_path: Path, capsys) -> None:
    # lwr_joint_2's limit is ±120° = ±2.094 rad
    path = _scene_file(tmp_path, q0="[0.3, 2.5, 0, -1.2, 0, 0.8, 0]", joint_limits="true")
    code, out, err = _run(["scene", str(path), "--quiet"], capsys)
    assert "warning: q0: joint 'lwr_joint_2' at 2.5 is outside its limits" in err
    assert "joint limits: VIOLATED" in out
    assert code == 1


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        ({"floating_base": '"false"'}, "floating_base: expected true or false"),
        ({"joint_limits": "1"}, "joint_limits: expected true or false"),
        ({"q0": "[0.1, .nan, 0, 0, 0, 0, 0]"}, "q0: expected 7 finite numbers"),
        ({"q0": "[true, 0, 0, 0, 0, 0, 0]"}, "q0: expected 7 finite numbers"),
        ({"q0": "half_sitting"}, "q0: unknown reference configuration"),
        ({"solver": "mosek"}, "solver"),
    ],
)
def test_bad_scene_values_name_the_key(tmp_path: Path, extra: dict[str, str], needle: str, capsys) -> None:
    path = _scene_file(tmp_path, **extra)
    code, _, err = _run(["scene", str(path), "--quiet"], capsys)
    _one_line_error(code, err, needle)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("robot: lwr4\ndt: null\ntasks: []\n", "dt: must be a step in seconds > 0"),
        ("robot: lwr4\nsteps: 1000000000000\ntasks: []\n", "steps"),
        ("robot: lwr4\nduration: 1e300\ntasks: []\n", "duration"),
        ("robot: lwr4\nsteps: true\ntasks: []\n", "steps: must be an integer"),
        ("robot: lwr4\ntasks:\n  - {name: ee, type: cart, tip: lwr_ee, kq: 3}\n", "kp, kd, kff"),
        ("robot: lwr4\ntasks:\n  - {name: [[1]], type: cart, tip: lwr_ee}\n", "name"),
        ("robot: lwr4\ntasks: [\n  {name: ee\n", "line 4, column 1"),
        ("robot: lwr4\n" + "x: " + "[" * 3000 + "]" * 3000 + "\n", "deep"),
    ],
    ids=[
        "dt-null",
        "steps-huge",
        "duration-huge",
        "steps-bool",
        "unknown-field",
        "name-list",
        "syntax",
        "deep",
    ],
)
def test_yaml_errors_are_one_line_with_the_key_or_position(
    tmp_path: Path, text: str, needle: str, capsys
) -> None:
    path = tmp_path / "scene.yaml"
    path.write_text(text)
    code, _, err = _run(["scene", str(path), "--quiet"], capsys)
    _one_line_error(code, err, needle)


def _bomb() -> bytes:
    """A billion-laughs document: 10⁶ strings behind six lines of aliases, used as the robot name."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 6)]
    return ("\n".join(lines) + "\nrobot: *a5\ntasks: []\n").encode()


def test_binary_utf16_and_bombs_are_config_errors(tmp_path: Path, capsys) -> None:
    cases = {
        "bin.yaml": b"\x00\x01\xff\xfe garbage",
        "u16.yaml": "robot: lwr4\n".encode("utf-16"),
        "bomb.yaml": _bomb(),
    }
    needles = {"bin.yaml": "not UTF-8", "u16.yaml": "UTF-16", "bomb.yaml": "YAML bomb"}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        code, _, err = _run(["scene", str(tmp_path / name), "--quiet"], capsys)
        _one_line_error(code, err, needles[name])
        assert len(err) < 400


@needs_erd
def test_q0_by_posture_name_in_scene_files_and_reach(tmp_path: Path, capsys) -> None:
    from wbcpy.scenes import load_scene_file

    talos = load_robot("talos")
    setup = load_scene_file(
        {"robot": "talos", "q0": "half_sitting", "steps": 2, "tasks": [{"name": "com", "type": "com"}]}
    )
    np.testing.assert_array_equal(setup.q0, talos.reference_configuration("half_sitting"))
    code, out, _ = _run(
        ["reach", "talos", "--offset", "0", "0", "0.01", "--q0", "half_sitting", "--max-steps", "5"], capsys
    )
    assert "q0: SRDF posture 'half_sitting'" in out and code in (0, 1)
