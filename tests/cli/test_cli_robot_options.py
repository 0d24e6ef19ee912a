"""Options every robot-loading command shares (issue 29, points 2 and 3): ``--package-dir`` and
``ROS_PACKAGE_PATH`` for ``package://`` meshes, the folders a missing mesh names, and configurations given
as posture names or nq values (velocities: nv) with a message that says which size is expected."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

from wbcpy import load_robot
from wbcpy.cli import build_parser, main
from wbcpy.description.robot_files import mesh_package_dirs, visual_model
from wbcpy.errors import URDFError

ROBOT_COMMANDS = ("info", "frames", "dynamics", "reach", "view", "scene", "sweep")

_STL = """solid t
facet normal 0 0 1
outer loop
vertex 0 0 0
vertex 0.1 0 0
vertex 0 0.1 0
endloop
endfacet
endsolid t
"""


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def _copied_robot(tmp_path: Path) -> tuple[Path, Path]:
    """A URDF copied away from its meshes: ``copy/arm.urdf`` uses ``package://mypkg/...``, which lives
    in ``elsewhere/mypkg`` (no ancestor of the URDF's folder holds ``mypkg``)."""
    mesh = tmp_path / "elsewhere" / "mypkg" / "meshes" / "tri.stl"
    mesh.parent.mkdir(parents=True)
    mesh.write_text(_STL)
    urdf = tmp_path / "copy" / "arm.urdf"
    urdf.parent.mkdir()
    urdf.write_text(
        '<robot name="arm"><link name="base"/><joint name="j" type="revolute"><parent link="base"/>'
        '<child link="arm"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" velocity="1" effort="1"/></joint>'
        '<link name="arm"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" '
        'ixz="0" iyz="0"/></inertial><visual><geometry><mesh filename="package://mypkg/meshes/tri.stl"/>'
        "</geometry></visual></link></robot>"
    )
    return urdf, tmp_path / "elsewhere"


def _subparser(name: str) -> argparse.ArgumentParser:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    sub: argparse.ArgumentParser = action.choices[name]
    return sub


@pytest.mark.parametrize("command", ROBOT_COMMANDS)
def test_every_robot_command_takes_repeatable_package_dirs(command: str) -> None:
    sub = _subparser(command)
    (action,) = [a for a in sub._actions if "--package-dir" in a.option_strings]
    assert isinstance(action, argparse._AppendAction) and action.dest == "package_dirs"


def test_a_missing_mesh_names_every_folder_searched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    urdf, _ = _copied_robot(tmp_path)
    with pytest.raises(URDFError) as info:
        visual_model(load_robot(str(urdf)))
    message = str(info.value)
    assert "mypkg" in message and "--package-dir" in message and "ROS_PACKAGE_PATH" in message
    for folder in (urdf.parent, urdf.parent.parent):  # the URDF's folder and its ancestors
        assert str(folder) in message


def test_package_dirs_and_ros_package_path_resolve_the_meshes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    urdf, share = _copied_robot(tmp_path)
    mesh = share / "mypkg" / "meshes" / "tri.stl"
    given = visual_model(load_robot(str(urdf), package_dirs=[share]))
    assert Path(given.geometryObjects[0].meshPath).resolve() == mesh.resolve()
    monkeypatch.setenv("ROS_PACKAGE_PATH", f"{tmp_path / 'nothing_here'}:{share}")
    assert str(share) in mesh_package_dirs(urdf.read_text(), urdf)
    from_env = visual_model(load_robot(str(urdf)))
    assert Path(from_env.geometryObjects[0].meshPath).resolve() == mesh.resolve()
    with pytest.raises(URDFError, match="nothing_here"):  # an env folder is named among those searched
        monkeypatch.setenv("ROS_PACKAGE_PATH", str(tmp_path / "nothing_here"))
        visual_model(load_robot(str(urdf)))


def test_view_html_of_a_copied_urdf_with_package_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("meshcat", reason="the viz extra (meshcat) is not installed")
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    urdf, share = _copied_robot(tmp_path)
    code, _, err = _run(["view", str(urdf), "--html", str(tmp_path / "bad.html")], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and str(urdf.parent) in err
    page = tmp_path / "ok.html"
    code, out, err = _run(
        ["view", str(urdf), "--package-dir", str(tmp_path), "--package-dir", str(share), "--html", str(page)],
        capsys,
    )
    assert code == 0, err
    assert page.is_file() and "wrote" in out
    code, _, err = _run(
        ["view", str(urdf), "--package-dir", str(tmp_path / "nope"), "--html", "x.html"], capsys
    )
    assert code == 2 and "--package-dir" in err and "not a folder" in err


def _dynamics_columns(out: str) -> dict[str, np.ndarray]:
    head = out.partition("\nM:")[0]
    rows = [line.split() for line in head.splitlines() if line[:1].isdigit()]
    return {k: np.array([float(r[i]) for r in rows]) for i, k in enumerate(("q", "qd", "g", "b"), start=2)}


def test_dynamics_takes_a_posture_name(example_robot: object, capsys: pytest.CaptureFixture[str]) -> None:
    talos = example_robot("talos")  # type: ignore[operator]
    code, out, err = _run(["dynamics", "talos", "--q", "half_sitting"], capsys)
    assert code == 0, err
    q = talos.reference_configuration("half_sitting")
    data = talos.model.createData()
    gravity = pin.computeGeneralizedGravity(talos.model, data, q)  # raw Pinocchio oracle
    cols = _dynamics_columns(out)
    np.testing.assert_allclose(cols["g"], gravity, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(cols["q"][6:], q[7:], atol=1e-6)  # joint angles per DOF after the base


def test_dynamics_sizes_are_nq_and_nv_and_the_message_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    # a free-flyer rr_unit_mass: nq = 9, nv = 8; a configuration has nq values like RobotModel.update
    q = ["0", "0", "0", "0", "0", "0", "1", "0.4", "0.1"]
    code, out, err = _run(["dynamics", "rr_unit_mass", "--floating-base", "--q", *q], capsys)
    assert code == 0, err
    robot = load_robot("rr_unit_mass", floating_base=True)
    gravity = pin.computeGeneralizedGravity(robot.model, robot.model.createData(), np.array(q, dtype=float))
    np.testing.assert_allclose(_dynamics_columns(out)["g"], gravity, rtol=1e-5, atol=1e-9)
    code, _, err = _run(["dynamics", "rr_unit_mass", "--floating-base", "--q", *["0"] * 8], capsys)
    assert code == 2 and "expected nq = 9 values" in err and "that is nv = 8" in err
    code, _, err = _run(["dynamics", "rr_unit_mass", "--q", "0.1", "0.2", "--qd", "1"], capsys)
    assert code == 2 and "nv = 2" in err
    code, _, err = _run(["dynamics", "rr_unit_mass", "--q", "neutral"], capsys)
    assert code == 0, err
    code, _, err = _run(["dynamics", "rr_unit_mass", "--q", "half_sitting"], capsys)
    assert code == 2 and "half_sitting" in err and "nq = 2" in err and len(err.strip().splitlines()) == 1


def test_registry_physics_warnings_only_in_info(
    example_robot: object, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 29, point 8: go1's implausible inertia (example-robot-data) is reported by ``wbcpy info go1``,
    not by every command that loads it."""
    example_robot("go1")  # type: ignore[operator]  # (skips without example-robot-data)
    code, _, err = _run(["frames", "go1", "--grep", "foot"], capsys)
    assert code == 0 and "warning" not in err
    code, _, err = _run(["dynamics", "go1", "--q", "neutral"], capsys)
    assert code == 0 and "warning" not in err
    code, _, err = _run(["info", "go1"], capsys)
    assert code == 0 and "physically implausible" in err
