"""HTML animations without a browser: the recorded scene, decoded from the page, against Pinocchio run here.

The page's scene commands are decoded (base64 + msgpack, as the browser does) and compared with poses that
this test computes itself: forward kinematics at closed-form configurations (a free-flyer turned about z
and an arm moving linearly), the frame path, the target and obstacle placements. Inputs are validated and
nothing is written on a bad call; the camera keeps every point in view (a geometric check).
"""

from __future__ import annotations

import base64
import json
import math
import re
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wbcpy.errors import InvalidValueError, UnknownNameError
from wbcpy.model.registry import load_robot

pytest.importorskip("meshcat", reason='the viz extra is not installed (pip install "wbcpy[viz]")')
import coal
import meshcat.geometry as mg
import umsgpack

from wbcpy.viz.animation import frame_times, write_animation
from wbcpy.viz.camera import FOV_DEG, camera_view, three_coordinates
from wbcpy.viz.recorder import SceneRecorder


def decode(page: str) -> list[dict]:
    """The scene commands of a written page, decoded as the browser decodes them."""
    match = re.search(r"var commands = (\[.*?\]);\n", page, re.S)
    assert match, "no commands in the page"
    return [umsgpack.unpackb(base64.b64decode(c)) for c in json.loads(match.group(1))]


def by_path(cmds: list[dict], kind: str) -> dict[str, dict]:
    return {c["path"]: c for c in cmds if c["type"] == kind}


ARM0 = np.array([0.2, 0.4, -0.1, -1.0, 0.3, 0.6, 0.0])
ARM1 = np.array([1.0, -0.2, 0.5, -0.4, -0.3, 1.2, 0.8])


def _free_q(yaw: float, arm: np.ndarray) -> np.ndarray:
    return np.concatenate([[0.0, 0.0, 0.0, 0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2)], arm])


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[object, Path, list[dict]]:
    robot = load_robot("lwr4", floating_base=True)
    times = np.array([0.0, 1.0])
    q_path = np.array([_free_q(0.0, ARM0), _free_q(math.pi / 2, ARM1)])
    ball = ("ball", coal.Sphere(0.1), pin.SE3(np.eye(3), np.array([0.5, 0.2, 0.4])))
    out = tmp_path_factory.mktemp("anim") / "free.html"
    path = write_animation(
        robot,
        times,
        q_path,
        out,
        trace_frames=["lwr_ee"],
        targets=[[0.3, 0.1, 0.9]],
        obstacles=[ball],
        fps=10,
    )
    assert path == out
    return robot, out, decode(out.read_text())


def test_keyframes_are_the_geometry_poses_of_forward_kinematics(written) -> None:
    robot, _, cmds = written
    model = robot.model
    geom = pin.buildGeomFromUrdf(model, robot.source, pin.GeometryType.VISUAL)
    data, gdata = model.createData(), geom.createData()
    (anim,) = [c for c in cmds if c["type"] == "set_animation"]
    clips = {a["path"]: a["clip"] for a in anim["animations"]}
    checked = 0
    for g, obj in enumerate(geom.geometryObjects):
        clip = clips[f"/meshcat/robot/visuals/{obj.name}"]
        tracks = {t["name"]: t["keys"] for t in clip["tracks"]}
        for pos, quat in zip(tracks[".position"], tracks[".quaternion"], strict=True):
            s = pos["time"] / clip["fps"]  # seconds since the start, the animation covers [0, 1] s
            q = _free_q(s * math.pi / 2, ARM0 + s * (ARM1 - ARM0))  # base turns at constant rate about z
            pin.forwardKinematics(model, data, q)
            pin.updateGeometryPlacements(model, data, geom, gdata)
            M = gdata.oMg[g]
            x, y, z, w = quat["value"]  # three.js order
            assert np.allclose(pos["value"], M.translation, atol=1e-9)
            assert np.allclose(pin.Quaternion(w, x, y, z).toRotationMatrix(), M.rotation, atol=1e-9)
            checked += 1
    assert checked == geom.ngeoms * 11  # 1 s at 10 frames per second: 11 frames


def test_path_target_and_obstacle_are_where_they_belong(written) -> None:
    robot, _, cmds = written
    objects, transforms = by_path(cmds, "set_object"), by_path(cmds, "set_transform")
    tube = objects["/meshcat/traces/lwr_ee/path"]["object"]
    packed = tube["geometries"][0]["data"]["attributes"]["position"]["array"]  # meshcat's float32 ext type
    vertices = np.frombuffer(packed.data, dtype=np.float32).astype(float).reshape(-1, 3)
    data = robot.model.createData()
    fid = robot.model.getFrameId("lwr_ee")
    ends = []
    for q in (_free_q(0.0, ARM0), _free_q(math.pi / 2, ARM1)):  # the path joins the two samples
        pin.framesForwardKinematics(robot.model, data, q)
        ends.append(data.oMf[fid].translation.copy())
    a, b = ends
    u = np.clip((vertices - a) @ (b - a) / ((b - a) @ (b - a)), 0.0, 1.0)
    dist = np.linalg.norm(vertices - (a + u[:, None] * (b - a)), axis=1)
    assert np.allclose(dist, dist[0], atol=1e-5) and 0.002 <= dist[0] <= 0.01  # a thin tube around it
    assert np.allclose(
        np.array(transforms["/meshcat/targets/0"]["matrix"]).reshape(4, 4).T[:3, 3], [0.3, 0.1, 0.9]
    )
    ball = objects["/meshcat/obstacles/visuals/ball"]["object"]
    assert ball["geometries"][0]["type"] == "SphereGeometry" and ball["geometries"][0]["radius"] == 0.1
    placement = np.array(transforms["/meshcat/obstacles/visuals/ball"]["matrix"]).reshape(4, 4).T
    assert np.allclose(placement[:3, 3], [0.5, 0.2, 0.4])


def test_page_is_self_contained(written) -> None:
    _, out, _ = written
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and page.count("<script>") == 2
    assert not re.search(r"<(script|link|img|iframe)[^>]*(src|href)\s*=", page, re.I)
    assert "MeshCat.Viewer" in page and "lwr_ee" in page
    assert len(re.findall(r"</script", page, re.I)) == 2


def test_a_urdf_without_visuals_still_animates_its_paths(tmp_path: Path, robots_dir: Path) -> None:
    text = re.sub(r"<visual.*?</visual>", "", (robots_dir / "planar3r.urdf").read_text(), flags=re.S)
    urdf = tmp_path / "bare.urdf"
    urdf.write_text(text)
    robot = load_robot(str(urdf))
    state = robot.state_id
    out = write_animation(
        robot, [0.0, 1.0], [np.zeros(3), np.ones(3)], tmp_path / "bare.html", trace_frames=["tip"]
    )
    page = out.read_text()
    assert "no &lt;visual&gt; geometry" in page
    cmds = decode(page)
    assert not [c for c in cmds if c["path"].startswith("/meshcat/robot/visuals/")]
    assert [c for c in cmds if c["path"] == "/meshcat/traces/tip/path"]
    assert robot.state_id == state  # the robot's own state is not touched


def test_a_single_sample_is_a_still_scene(tmp_path: Path) -> None:
    robot = load_robot("puma560")
    out = write_animation(robot, [0.0], [np.zeros(6)], tmp_path / "still.html")
    cmds = decode(out.read_text())
    assert not [c for c in cmds if c["type"] == "set_animation"]
    assert len([c for c in cmds if c["path"].startswith("/meshcat/robot/visuals/")]) > 0


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"times": [0.0, 0.0]}, InvalidValueError),
        ({"times": [0.0, float("nan")]}, InvalidValueError),
        ({"q_path": np.zeros((2, 6))}, InvalidValueError),
        ({"q_path": np.full((2, 7), np.inf)}, InvalidValueError),
        ({"trace_frames": ["no_such_frame"]}, UnknownNameError),
        ({"fps": 0.0}, InvalidValueError),
        ({"fps": float("inf")}, InvalidValueError),
        ({"targets": [[0.0, 1.0]]}, InvalidValueError),
        ({"paths": {"ref": np.zeros((3, 2))}}, InvalidValueError),
        ({"obstacles": ["not an obstacle"]}, InvalidValueError),
        ({"obstacles": [("a", coal.Sphere(0.1), pin.SE3.Identity())] * 2}, InvalidValueError),
        ({"out": "missing-folder/x.html"}, InvalidValueError),
    ],
)
def test_bad_inputs_raise_and_write_nothing(tmp_path: Path, change: dict, error: type) -> None:
    robot = load_robot("lwr4")
    args = {"times": [0.0, 1.0], "q_path": np.zeros((2, 7)), "out": "a.html", **change}
    out = tmp_path / args.pop("out")
    kwargs = {k: v for k, v in args.items() if k not in ("times", "q_path")}
    with pytest.raises(error):
        write_animation(robot, args["times"], args["q_path"], out, **kwargs)
    assert list(tmp_path.rglob("*")) == []


def test_recorder_keeps_the_scene_like_meshcat_server() -> None:
    rec = SceneRecorder()
    vis = rec.visualizer()
    vis["a/b"].set_object(mg.Box([1, 1, 1]))
    vis["a/b"].set_property("visible", False)
    vis["a/b"].set_object(mg.Sphere(1.0))  # a new object drops the old one's properties
    vis["a"].set_transform(np.eye(4))
    vis["c"].set_object(mg.Box([1, 2, 3]))
    vis["c"].delete()
    cmds = [umsgpack.unpackb(c) for c in rec.commands()]
    assert [(c["type"], c["path"]) for c in cmds] == [
        ("set_transform", "/meshcat/a"),
        ("set_object", "/meshcat/a/b"),
    ]
    assert cmds[1]["object"]["geometries"][0]["type"] == "SphereGeometry"
    with pytest.raises(ValueError, match="capture_image"):
        rec.send(type("C", (), {"lower": lambda self: {"type": "capture_image", "path": ""}})())


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(*[st.floats(-3.0, 3.0, allow_nan=False)] * 3), min_size=1, max_size=20),
    st.booleans(),
)
def test_camera_keeps_every_point_in_view(points: list, about_origin: bool) -> None:
    p = np.array(points)
    target, position = camera_view(p, about_origin=about_origin)
    axis = (target - position) / np.linalg.norm(target - position)
    for x in p:
        ray = x - position
        angle = math.degrees(math.acos(np.clip(ray @ axis / np.linalg.norm(ray), -1.0, 1.0)))
        assert angle <= 0.7 * FOV_DEG / 2 + 1e-6
    assert position[2] > target[2]  # looking down


def test_three_coordinates_is_the_y_up_rotation() -> None:
    Rx = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]])  # rotation by −90° about x
    p = np.array([0.3, -1.2, 2.5])
    assert np.allclose(three_coordinates(p), Rx @ p)


@settings(max_examples=30, deadline=None)
@given(st.floats(0.0, 20.0), st.floats(0.01, 40.0), st.floats(1.0, 120.0))
def test_frame_times_cover_the_run_uniformly(t0: float, span: float, fps: float) -> None:
    times = np.array([t0, t0 + span / 3, t0 + span])
    t = frame_times(times, fps)
    assert t[0] == times[0] and t[-1] == times[-1]
    step = np.diff(t)
    assert np.allclose(step, step[0]) and step[0] <= 1.0 / fps + 1e-9


def test_notice_lists_every_bundled_javascript_package() -> None:
    import meshcat

    dist = Path(meshcat.__file__).parent / "viewer" / "dist"
    bundled = json.loads((dist / "main.min.js.THIRD_PARTY_LICENSES.json").read_text())
    notice = (Path(__file__).resolve().parents[2] / "NOTICE").read_text()
    for pkg in bundled:
        assert re.search(
            rf"\| {re.escape(pkg['name'])} \| {re.escape(pkg['version'])} \| {re.escape(pkg['license'])} \|",
            notice,
        ), pkg["name"]


_BOX_ROBOT = """<robot name="box_on_a_pole">
  <link name="base"/>
  <link name="pole"><inertial><mass value="1"/>
    <inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/>
    </inertial><visual><origin xyz="0 0 {z}" rpy="0 {pitch} 0"/><geometry><box size="0.2 0.4 0.6"/></geometry>
    </visual></link>
  <joint name="hinge" type="revolute"><parent link="base"/><child link="pole"/><axis xyz="1 0 0"/>
    <limit lower="-3" upper="3" velocity="1" effort="1"/></joint>
</robot>"""


@pytest.mark.parametrize(
    ("z", "pitch", "floating"), [(-1.0, 0.0, False), (-0.5, 0.3, False), (0.0, 0.0, True)]
)
def test_the_ground_grid_is_at_the_robots_lowest_point(
    tmp_path: Path, z: float, pitch: float, floating: bool
) -> None:
    """Issue 29, point 7: the grid is moved to the lowest point of the robot at the first frame (a box of
    0.2 × 0.4 × 0.6 m: its lowest corner in closed form), not left at the base's z = 0."""
    from wbcpy import RobotModel

    robot = RobotModel.from_urdf(_BOX_ROBOT.format(z=z, pitch=pitch), floating_base=floating)
    q0 = np.array(pin.neutral(robot.model))
    if floating:
        q0[2] = 2.0  # the base 2 m up
    out = write_animation(robot, [0.0, 1.0], [q0, q0], tmp_path / "box.html")
    grid = by_path(decode(out.read_text()), "set_transform")["/Grid"]
    height = np.array(grid["matrix"]).reshape(4, 4, order="F")[2, 3]
    half_x, half_z = 0.1, 0.3  # the pitch turns the box about y: x and z half sizes mix
    lowest = (2.0 if floating else 0.0) + z - (half_z * math.cos(pitch) + half_x * math.sin(pitch))
    assert height == pytest.approx(lowest, abs=1e-9)


def test_a_still_view_is_called_one_configuration(tmp_path: Path) -> None:
    robot = load_robot("puma560")
    page = write_animation(robot, [0.0], [np.zeros(6)], tmp_path / "still.html").read_text()
    assert "one configuration (a still view)" in page and "1 samples" not in page
    moving = write_animation(
        robot, [0.0, 2.0], [np.zeros(6), np.full(6, 0.1)], tmp_path / "run.html"
    ).read_text()
    assert "2 samples over 2 s" in moving
