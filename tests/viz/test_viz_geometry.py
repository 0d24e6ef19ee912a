"""Visual geometry: the shipped URDFs' <visual> cylinders and boxes, meshes of installed robots, postures.

Oracles: the URDF XML read with ElementTree and a closed-form rpy → rotation (the cylinders span the link
segments between joint origins), Pinocchio models built from the same XML with every <visual> removed
(visuals change nothing else), and SRDF postures read from the SRDF XML.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

from wbcpy import RobotModel
from wbcpy.description.robot_files import mesh_package_dirs, visual_model
from wbcpy.errors import InvalidValueError, UnknownNameError, URDFError
from wbcpy.model.registry import load_robot, shipped_robots_dir
from wbcpy.viz.postures import parse_configuration

SHIPPED = sorted(p.stem for p in shipped_robots_dir().glob("*.urdf"))


def _vec(text: str | None) -> np.ndarray:
    return np.array([float(x) for x in (text or "0 0 0").split()])


def _rpy_matrix(r: float, p: float, y: float) -> np.ndarray:
    """URDF rpy: R = Rz(y) Ry(p) Rx(r) (fixed axes x, y, z), written out."""
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    return np.array(
        [
            [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr],
        ]
    )


def _cylinders(link: ET.Element) -> list[tuple[np.ndarray, np.ndarray, float, float]]:
    """(centre, axis, length, radius) of every <visual> cylinder of a link, in the link frame."""
    out = []
    for vis in link.findall("visual"):
        cyl = vis.find("geometry/cylinder")
        if cyl is None:
            continue
        origin = vis.find("origin")
        xyz = _vec(origin.get("xyz") if origin is not None else None)
        R = _rpy_matrix(*_vec(origin.get("rpy") if origin is not None else None))
        out.append((xyz, R[:, 2], float(cyl.get("length")), float(cyl.get("radius"))))
    return out


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_links_have_cylinders_along_their_segments(name: str) -> None:
    root = ET.parse(shipped_robots_dir() / f"{name}.urdf").getroot()
    links = {link.get("name"): link for link in root.findall("link")}
    for joint in root.findall("joint"):
        parent = links[joint.find("parent").get("link")]
        child = links[joint.find("child").get("link")]
        origin = joint.find("origin")
        d = _vec(origin.get("xyz") if origin is not None else None)
        boxes = parent.findall("visual/geometry/box")
        if np.linalg.norm(d) > 1e-6 and not boxes:  # a segment from the link origin to the joint
            spans = [
                c
                for c in _cylinders(parent)
                if np.allclose(c[0], d / 2, atol=1e-6)
                and abs(c[2] - np.linalg.norm(d)) < 1e-6
                and abs(abs(c[1] @ d) / np.linalg.norm(d) - 1.0) < 1e-6
            ]
            assert spans, (
                f"{name}: no cylinder of {parent.get('name')} spans the segment to {joint.get('name')}"
            )
        if joint.get("type") == "revolute":  # a hub on the joint axis at the child's origin
            axis = _vec(joint.find("axis").get("xyz"))
            hubs = [
                c for c in _cylinders(child) if np.allclose(c[0], 0.0) and abs(abs(c[1] @ axis) - 1) < 1e-6
            ]
            assert hubs, f"{name}: no joint cylinder on the axis of {joint.get('name')}"


@pytest.mark.parametrize("name", SHIPPED)
def test_visuals_change_nothing_but_the_geometry(name: str) -> None:
    text = (shipped_robots_dir() / f"{name}.urdf").read_text()
    root = ET.fromstring(text)
    count = 0
    for link in root.findall("link"):
        for vis in link.findall("visual"):
            link.remove(vis)
            count += 1
    bare = pin.buildModelFromXML(ET.tostring(root, encoding="unicode"))
    robot = load_robot(name)
    model = robot.model
    assert count > 0 and visual_model(robot).ngeoms == count
    assert (bare.nq, bare.nv, list(bare.names)) == (model.nq, model.nv, list(model.names))
    for a, b in zip(bare.jointPlacements, model.jointPlacements, strict=True):
        assert np.allclose(a.homogeneous, b.homogeneous, atol=0.0)
    for a, b in zip(bare.inertias, model.inertias, strict=True):
        assert np.allclose(a.toDynamicParameters(), b.toDynamicParameters(), atol=0.0)
    for attr in ("lowerPositionLimit", "upperPositionLimit", "velocityLimit", "effortLimit"):
        assert np.array_equal(getattr(bare, attr), getattr(model, attr))


@pytest.mark.parametrize("name", ["panda", "talos"])
def test_example_robot_meshes_resolve(example_robot, name: str) -> None:
    robot = example_robot(name)
    geom = visual_model(robot)
    visuals = ET.parse(robot.source).getroot().findall("link/visual")
    assert geom.ngeoms == len(visuals) > 0
    meshes = [g.meshPath for g in geom.geometryObjects if g.meshPath not in ("", "BOX", "CYLINDER", "SPHERE")]
    assert meshes and all(Path(m).is_file() for m in meshes)


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


def _urdf(mesh_uri: str) -> str:
    return (
        '<robot name="m"><link name="base"/><joint name="j" type="revolute"><parent link="base"/>'
        '<child link="arm"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" velocity="1" effort="1"/></joint>'
        '<link name="arm"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" '
        f'ixz="0" iyz="0"/></inertial><visual><geometry><mesh filename="{mesh_uri}"/></geometry></visual>'
        "</link></robot>"
    )


def test_package_folder_is_found_among_the_urdf_ancestors(tmp_path: Path) -> None:
    mesh = tmp_path / "share" / "mypkg" / "meshes" / "tri.stl"
    mesh.parent.mkdir(parents=True)
    mesh.write_text(_STL)
    urdf = tmp_path / "share" / "mypkg" / "urdf" / "m.urdf"
    urdf.parent.mkdir()
    urdf.write_text(_urdf("package://mypkg/meshes/tri.stl"))
    assert mesh_package_dirs(urdf.read_text(), urdf) == [str(tmp_path / "share")]
    geom = visual_model(load_robot(str(urdf)))
    assert geom.ngeoms == 1 and Path(geom.geometryObjects[0].meshPath).resolve() == mesh.resolve()


def test_missing_mesh_and_missing_urdf_raise_urdf_errors(tmp_path: Path) -> None:
    urdf = tmp_path / "m.urdf"
    urdf.write_text(_urdf("package://nopkg/meshes/gone.stl"))
    with pytest.raises(URDFError, match=r"gone\.stl"):
        visual_model(load_robot(str(urdf)))
    with pytest.raises(URDFError, match="no URDF"):
        visual_model(RobotModel(load_robot("lwr4").model))


def test_urdf_text_is_used_when_the_robot_keeps_it(robots_dir: Path) -> None:
    text = (robots_dir / "planar3r.urdf").read_text()
    robot = RobotModel.from_urdf(text)
    robot.urdf_text = text  # kept by RobotModel.from_urdf for XML strings (CLI/robot helper API)
    assert visual_model(robot).ngeoms == text.count("<visual")


def test_half_sitting_is_the_srdf_posture(example_robot) -> None:
    robot = example_robot("talos")
    before = len(robot.model.referenceConfigurations)
    srdf = robot.srdf_path
    assert srdf is not None and Path(srdf).name == "talos.srdf"
    expected = np.array(pin.neutral(robot.model))
    state = next(s for s in ET.parse(srdf).getroot().iter("group_state") if s.get("name") == "half_sitting")
    for joint in state.findall("joint"):
        if robot.model.existJointName(joint.get("name")):
            jid = robot.model.getJointId(joint.get("name"))
            i, n = robot.model.idx_qs[jid], robot.model.nqs[jid]
            expected[i : i + n] = _vec(joint.get("value"))
    assert np.allclose(parse_configuration(robot, "half_sitting"), expected, atol=1e-12)
    assert np.allclose(parse_configuration(robot, ["half_sitting"]), expected, atol=1e-12)
    with pytest.raises(UnknownNameError, match="half_sitting"):
        parse_configuration(robot, "half_sittin")
    assert len(robot.model.referenceConfigurations) == before  # the robot's model is not changed


def test_configuration_specs() -> None:
    robot = load_robot("lwr4")
    assert np.array_equal(parse_configuration(robot, None), pin.neutral(robot.model))
    assert np.array_equal(parse_configuration(robot, "neutral"), np.zeros(7))
    values = ["0.1", "-0.2", "0.3", "-1.2", "0", "0.5", "1e-1"]
    assert np.allclose(parse_configuration(robot, values), [0.1, -0.2, 0.3, -1.2, 0.0, 0.5, 0.1])
    with pytest.raises(InvalidValueError, match=r"\(7,\)"):
        parse_configuration(robot, values[:3])
    with pytest.raises(InvalidValueError):
        parse_configuration(robot, [*values[:6], "nan"])
    with pytest.raises(InvalidValueError):
        parse_configuration(robot, [*values[:6], "x"])
    with pytest.raises(UnknownNameError):  # lwr4 has no SRDF: no postures at all
        parse_configuration(robot, "half_sitting")
    free = load_robot("lwr4", floating_base=True)
    q = parse_configuration(free, ["0", "0", "0.5", "0", "0", "2", "2", *["0"] * 7])
    assert np.allclose(q[3:7], [0, 0, 1 / math.sqrt(2), 1 / math.sqrt(2)])  # quaternion normalised
