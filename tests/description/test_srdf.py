"""Reference postures from SRDF files and the URDF source kept on RobotModel (issue 12 item 3)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

from wbcpy import RobotModel, SRDFError, UnknownNameError, load_robot
from wbcpy.model.registry import robot_entry


def _srdf_postures(path: Path) -> dict[str, dict[str, list[float]]]:
    """The oracle: group_state -> joint -> values, read with ElementTree."""
    root = ET.parse(path).getroot()
    return {
        s.get("name"): {j.get("name"): [float(x) for x in j.get("value").split()] for j in s.findall("joint")}
        for s in root.findall("group_state")
    }


def test_talos_half_sitting_matches_the_srdf(example_robot) -> None:
    talos = example_robot("talos")
    assert talos.srdf_path is not None and talos.srdf_path.name == "talos.srdf"
    postures = _srdf_postures(talos.srdf_path)
    assert talos.reference_configuration_names() == sorted(postures)
    q = talos.reference_configuration("half_sitting")
    assert q.shape == (talos.nq,)
    for joint, values in postures["half_sitting"].items():
        start = talos.joint_q_index(joint) if joint != "root_joint" else 0
        np.testing.assert_allclose(q[start : start + len(values)], values, atol=1e-12)
    q[:] = 0.0  # a copy: the stored posture is unchanged
    assert talos.reference_configuration("half_sitting")[2] > 0.5


def test_continuous_joints_take_one_angle(example_robot) -> None:
    kinova = example_robot("kinova")
    q = kinova.reference_configuration("arm_up")
    angles = _srdf_postures(kinova.srdf_path)["arm_up"]
    i = kinova.joint_q_index("j2s6s200_joint_1")
    np.testing.assert_allclose(
        q[i : i + 2], [np.cos(angles["j2s6s200_joint_1"][0]), np.sin(angles["j2s6s200_joint_1"][0])]
    )


def test_unknown_posture_lists_the_known_ones(example_robot, robots_dir: Path) -> None:
    talos = example_robot("talos")
    with pytest.raises(UnknownNameError, match="half_sitting"):
        talos.reference_configuration("half_siting")
    lwr = load_robot("lwr4")
    assert lwr.srdf_path is None and lwr.reference_configuration_names() == []
    with pytest.raises(UnknownNameError, match="without an SRDF"):
        lwr.reference_configuration("home")


def _write_srdf(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "arm.srdf"
    path.write_text(
        f'<robot name="lwr4">\n<group_state name="home" group="arm">\n{body}\n</group_state>\n</robot>'
    )
    return path


def test_own_srdf_with_from_urdf(tmp_path: Path, robots_dir: Path) -> None:
    srdf = _write_srdf(
        tmp_path, '<joint name="lwr_joint_2" value="0.5"/>\n<joint name="lwr_joint_4" value="-1.2"/>'
    )
    robot = RobotModel.from_urdf(robots_dir / "lwr4.urdf", srdf=srdf)
    q = robot.reference_configuration("home")
    expected = np.zeros(7)
    expected[[1, 3]] = [0.5, -1.2]
    np.testing.assert_allclose(q, expected)
    assert robot.srdf_path == srdf.resolve()


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('<joint name="lwr_joint_2" value="half"/>', "'half' is not numbers"),
        ('<joint name="lwr_joint_2" value="0.1 0.2"/>', "2 values"),
        ('<joint name="lwr_joint_2"/>', "needs name and value"),
        ('<joint name="lwr_joint_2" value="nan"/>', "is not numbers"),
    ],
)
def test_bad_srdf_values_raise_with_the_line(
    tmp_path: Path, robots_dir: Path, body: str, expected: str
) -> None:
    srdf = _write_srdf(tmp_path, body)
    with pytest.raises(SRDFError) as info:
        RobotModel.from_urdf(robots_dir / "lwr4.urdf", srdf=srdf)
    assert expected in str(info.value) and "line 3" in str(info.value)


def test_missing_and_malformed_srdf(tmp_path: Path, robots_dir: Path) -> None:
    with pytest.raises(SRDFError, match="no such file"):
        RobotModel.from_urdf(robots_dir / "lwr4.urdf", srdf=tmp_path / "nope.srdf")
    (tmp_path / "bad.srdf").write_text("<robot><group_state")
    with pytest.raises(SRDFError, match="malformed XML"):
        RobotModel.from_urdf(robots_dir / "lwr4.urdf", srdf=tmp_path / "bad.srdf")


def test_urdf_source_is_kept_for_geometry_loading(robots_dir: Path, example_robot) -> None:
    path_robot = RobotModel.from_urdf(robots_dir / "lwr4.urdf")
    assert path_robot.urdf_path == (robots_dir / "lwr4.urdf").resolve() and path_robot.urdf_text is None
    text = (robots_dir / "lwr4.urdf").read_text()
    xml_robot = RobotModel.from_urdf(text)
    assert xml_robot.urdf_path is None and xml_robot.urdf_text == text
    panda = example_robot("panda")
    assert list(panda.package_dirs) == list(robot_entry("panda").package_dirs)
    geom = pin.buildGeomFromUrdf(
        panda.model, str(panda.urdf_path), pin.COLLISION, package_dirs=panda.package_dirs
    )
    assert geom.ngeoms > 0
