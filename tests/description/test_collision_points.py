"""lowest_points / body_points: the lowest face of each collision shape, against closed-form support
functions (the lowest value of n·p over the shape), and the COLLADA up axis against the standard's
rotation."""

from __future__ import annotations

import math

import coal
import numpy as np
import pinocchio as pin
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wbcpy import RobotModel
from wbcpy.description.collision_points import RIM_POINTS, body_points, collada_up_rotation, lowest_points

units = (
    st.tuples(*[st.floats(-1.0, 1.0)] * 3)
    .filter(lambda v: np.linalg.norm(v) > 0.1)
    .map(lambda v: np.array(v) / np.linalg.norm(v))
)


def _object(shape, placement=None):
    return pin.GeometryObject("g", 0, 0, placement or pin.SE3.Identity(), shape)


def _lowest(shape, n, placement=None):
    return float((lowest_points(_object(shape, placement), n, pin.SE3.Identity()) @ n).min())


@settings(max_examples=40, deadline=None)
@given(n=units)
def test_box_sphere_ellipsoid_capsule_support(n):
    # closed forms of min over the shape of n·p (shape at the origin, its own axes)
    h = np.array([0.1, 0.2, 0.05])
    assert _lowest(coal.Box(*(2 * h)), n) == pytest.approx(-float(np.abs(n) @ h), abs=1e-12)
    assert _lowest(coal.Sphere(0.03), n) == pytest.approx(-0.03, abs=1e-12)
    a = np.array([0.1, 0.05, 0.02])
    assert _lowest(coal.Ellipsoid(*a), n) == pytest.approx(-float(np.linalg.norm(a * n)), abs=1e-12)
    capsule = -0.2 * abs(n[2]) - 0.05  # segment ±0.2 e_z swept by a 0.05 sphere
    assert _lowest(coal.Capsule(0.05, 0.4), n) == pytest.approx(capsule, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(n=units)
def test_cylinder_and_cone_within_the_rim_polygon(n):
    r, h = 0.05, 0.1
    sin = math.hypot(n[0], n[1])
    gap = (
        r * (1 - math.cos(math.pi / RIM_POINTS)) + 1e-12
    )  # (the rim polygon's lowest point lies this high at most)
    exact = -h * abs(n[2]) - r * sin
    got = _lowest(coal.Cylinder(r, 2 * h), n)
    assert exact - 1e-12 <= got <= exact + gap
    cone = min(-h * n[2] - r * sin, h * n[2])  # base disc at z = −h, apex at +h
    got = _lowest(coal.Cone(r, 2 * h), n)
    assert cone - 1e-12 <= got <= cone + gap


def test_placed_shape_in_another_frame():
    # a sphere of radius 0.01 at (0.1, 0.2, −0.3) in the joint frame; the points asked for in a frame at
    # (0, 0, −0.3) rotated by π about x (its z points down): "up" in that frame is −z
    obj = _object(coal.Sphere(0.01), pin.SE3(np.eye(3), np.array([0.1, 0.2, -0.3])))
    frame = pin.SE3(pin.utils.rotate("x", math.pi), np.array([0.0, 0.0, -0.3]))
    points = lowest_points(obj, np.array([0.0, 0.0, -1.0]), frame)
    np.testing.assert_allclose(points, [[0.1, -0.2, 0.01]], atol=1e-12)


def test_shapes_without_a_lowest_face_give_no_points():
    obj = _object(coal.Halfspace(np.array([0.0, 0.0, 1.0]), 0.0))
    assert lowest_points(obj, np.array([0.0, 0.0, 1.0]), pin.SE3.Identity()).shape == (0, 3)


DAE = """<?xml version="1.0"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
<asset><unit meter="1" name="meter"/><up_axis>{up}_UP</up_axis></asset>
<library_geometries><geometry id="m" name="m"><mesh>
<source id="m-p"><float_array id="m-p-a" count="9">0 0 0 1 0 0 0 2 3</float_array>
<technique_common><accessor source="#m-p-a" count="3" stride="3">
<param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/></accessor>
</technique_common></source>
<vertices id="m-v"><input semantic="POSITION" source="#m-p"/></vertices>
<triangles count="1"><input semantic="VERTEX" source="#m-v" offset="0"/><p>0 1 2</p></triangles>
</mesh></geometry></library_geometries>
<library_visual_scenes><visual_scene id="s"><node id="n"><instance_geometry url="#m"/></node></visual_scene>
</library_visual_scenes><scene><instance_visual_scene url="#s"/></scene></COLLADA>
"""


@pytest.mark.parametrize(
    ("up", "expected"),
    [("Z", [[0, 0, 0], [1, 0, 0], [0, 2, 3]]), ("Y", [[0, 0, 0], [1, 0, 0], [0, -3, 2]]),
     ("X", [[0, 0, 0], [0, 1, 0], [-2, 0, 3]])],
)  # fmt: skip
def test_collada_up_axis_turns_the_vertices_to_z_up(tmp_path, up, expected):
    """COLLADA: Y_UP means (x, y, z)_file = (x, −z, y) in z-up axes; X_UP: (−y, x, z)."""
    path = tmp_path / f"tri_{up}.dae"
    path.write_text(DAE.format(up=up), encoding="utf-8")
    collada_up_rotation.cache_clear()
    urdf = f"""<robot name="r"><link name="a"><inertial><mass value="1"/>
      <inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>
      <collision><geometry><mesh filename="{path}"/></geometry></collision></link></robot>"""
    robot = RobotModel.from_urdf(urdf)
    points = body_points(robot, "a", np.array([0.0, 0.0, 1.0]))
    got = sorted(map(tuple, np.round(points, 9)))
    assert got == sorted(map(tuple, np.array(expected, dtype=float)))
