"""The soles wbcpy finds for each humanoid, judged against its URDF's collision geometry read independently
(tests/locomotion/_foot_geometry.py: ElementTree, closed-form shapes, coal's mesh loader, raw Pinocchio):
a sole frame's plane is the lowest plane of its foot's collision shapes, its z axis points up, and its
rectangle holds the foot's footprint (the shapes within 0.5 mm of that plane) — tightly when the sole
comes from the geometry."""

from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pinocchio as pin
import pytest
from _foot_geometry import data_root, foot_points
from _walk_acceptance import URDFS, robot_model

from wbcpy.errors import ConfigError, UnknownNameError, WalkingWarning
from wbcpy.locomotion.feet import Feet, Sole
from wbcpy.locomotion.sole_finder import FLAT_TOLERANCE, find_feet
from wbcpy.locomotion.walking_robot import walking_robot

#: robot -> (source, contact parents)
EXPECTED = {
    "talos": ("registry", ("left_sole_link", "right_sole_link")),
    "g1": ("collision geometry", ("left_ankle_roll_link", "right_ankle_roll_link")),
    "icub": ("collision geometry", ("l_sole", "r_sole")),
    "romeo": ("collision geometry", ("l_sole", "r_sole")),
}


def _walking(example_robot, name):
    example_robot(name)  # (skips without example-robot-data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WalkingWarning)
        return walking_robot(name)


@pytest.mark.parametrize("name", list(EXPECTED))
def test_soles_rest_on_the_lowest_plane_of_the_foot_geometry(example_robot, name):
    _, feet, q0, locked = _walking(example_robot, name)
    source, parents = EXPECTED[name]
    assert feet.source == source
    assert tuple(s.parent for s in feet.soles) == parents
    log = {**feet.log_arrays(), "locked_joints": list(locked), "locked_positions": list(locked.values())}
    model = robot_model(name, log)
    data = model.createData()
    pin.framesForwardKinematics(model, data, q0)
    X, Y = feet.half_size
    for sole in feet.soles:
        M = data.oMf[model.getFrameId(sole.frame)]
        assert M.rotation[2, 2] > np.cos(0.01)  # z up (Talos's half_sitting tilts its soles 1.7 mrad)
        points = foot_points(
            f"{data_root()}/example-robot-data/robots/{URDFS[name]}", model, data, sole.parent
        )
        local = (points - M.translation) @ M.rotation  # (in the sole's axes)
        lowest = float(local[:, 2].min())
        footprint = local[local[:, 2] <= lowest + FLAT_TOLERANCE]
        if source == "registry":  # Talos: the spec's soles on the URDF's sole frames
            assert abs(lowest) < 1e-3
            assert np.all(np.abs(footprint[:, 0]) <= X) and np.all(np.abs(footprint[:, 1]) <= Y)
        else:  # from the geometry: on the plane, and the footprint's bounding rectangle centred on the frame
            assert abs(lowest) < 1e-9
            for axis, half in ((0, X), (1, Y)):
                lo, hi = float(footprint[:, axis].min()), float(footprint[:, axis].max())
                assert -half - 1e-9 <= lo and hi <= half + 1e-9
                assert abs(lo + hi) < 2e-3  # centred (the two feet share the larger half size)
                assert max(-lo, hi) == pytest.approx(half, abs=1e-3)


def test_g1_soles_are_its_four_contact_spheres(example_robot):
    """G1's feet rest on four spheres of radius 5 mm, centres at (−0.05, ±0.025, −0.03) and
    (0.12, ±0.03, −0.03) in the ankle-roll link: the sole is 0.17 × 0.06 m, 35 mm under the link."""
    _, feet, _, _ = _walking(example_robot, "g1")
    assert feet.half_size == pytest.approx((0.085, 0.03), abs=1e-9)
    for sole in feet.soles:
        assert sole.added and sole.frame in ("left_sole", "right_sole")
        np.testing.assert_allclose(sole.placement[:3, 3], [0.035, 0.0, -0.035], atol=1e-9)
        np.testing.assert_allclose(sole.placement[:3, :3], np.eye(3), atol=1e-12)


def test_registry_frames_named_by_the_caller_keep_the_registry_soles(example_robot):
    robot = example_robot("talos")
    feet = find_feet(robot, ("left_sole_link", "right_sole_link"))
    assert feet.source == "registry" and feet.half_size == (0.1, 0.065) and feet.mu == 0.3
    feet = find_feet(robot, "left_sole_link,right_sole_link", sole="0.18x0.1", mu=0.5)
    assert feet.half_size == pytest.approx((0.09, 0.05)) and feet.mu == 0.5


def test_feet_of_other_frames_come_from_their_geometry(example_robot):
    """Talos's ankle links named as feet: the soles come from the ankle meshes, centred on their footprint
    (a new frame under each link), on the same plane as the URDF's sole frames to a millimetre."""
    robot = example_robot("talos")
    feet = find_feet(robot, ("leg_left_6_link", "leg_right_6_link"))
    assert feet.source == "collision geometry" and feet.frames == ("left_sole", "right_sole")
    robot = feet.attach(robot)
    robot.update(robot.reference_configuration("half_sitting"), np.zeros(robot.nv))
    for sole, urdf_sole in zip(feet.frames, ("left_sole_link", "right_sole_link"), strict=True):
        M, S = robot.frame_placement(sole), robot.frame_placement(urdf_sole)
        assert abs(float((S.rotation.T @ (M.translation - S.translation))[2])) < 1e-3


def test_lowest_bodies_are_found_without_names(example_robot):
    from wbcpy.locomotion.sole_finder import _lowest_bodies, reference_posture

    robot = example_robot("g1")
    assert _lowest_bodies(robot, reference_posture(robot)) == (
        "left_ankle_roll_link",
        "right_ankle_roll_link",
    )


def test_attach_adds_frames_to_a_new_robot_only(example_robot):
    robot = example_robot("g1")
    robot.update(robot.neutral(), np.zeros(robot.nv))
    feet = find_feet(robot)
    new = feet.attach(robot)
    assert new is not robot and not robot.model.existFrame("left_sole") and new.model.existFrame("left_sole")
    np.testing.assert_array_equal(new.q, robot.q)
    assert feet.attach(new) is new  # (nothing missing)
    # the added frame is its parent's placement composed with the sole's placement (raw Pinocchio)
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, robot.q)
    parent = data.oMf[robot.model.getFrameId("left_ankle_roll_link")]
    M = feet.left.placement
    expected = parent * pin.SE3(M[:3, :3], M[:3, 3])
    assert new.frame_placement("left_sole").isApprox(expected, 1e-12)
    assert feet.left.world(robot).isApprox(expected, 1e-12)


@pytest.mark.parametrize(
    ("kwargs", "error", "field"),
    [
        ({"feet": ("left_sole_link",)}, ConfigError, "feet"),
        ({"feet": ("left_sole_link", "left_sole_link")}, ConfigError, "feet"),
        ({"feet": "left_sole_link"}, ConfigError, "feet"),
        ({"feet": (1, 2)}, ConfigError, "feet"),
        ({"feet": ("left_sole_lnk", "right_sole_link")}, UnknownNameError, None),
        ({"sole": "0.2"}, ConfigError, "sole"),
        ({"sole": "0.2x-0.1"}, ConfigError, "sole"),
        ({"sole": (0.2, float("nan"))}, ConfigError, "sole"),
        ({"mu": 0.0}, ConfigError, "mu"),
        ({"mu": True}, ConfigError, "mu"),
    ],
)
def test_bad_arguments(example_robot, kwargs, error, field):
    robot = example_robot("talos")
    with pytest.raises(error) as info:
        find_feet(robot, **kwargs)
    if field is not None:
        assert info.value.field == field


BIPED = """<robot name="biped">
  <link name="base"><inertial><mass value="10"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/>
  </inertial></link>
  <link name="lf"/><link name="rf"/>
  <joint name="l" type="fixed"><parent link="base"/><child link="lf"/><origin xyz="0 0.1 -0.8"/></joint>
  <joint name="r" type="fixed"><parent link="base"/><child link="rf"/><origin xyz="0 -0.1 -0.8"/></joint>
</robot>"""


def test_feet_without_geometry_need_a_size():
    """Frames of bodies without collision shapes: the soles must be given; with a size they are the
    soles as they are."""
    from wbcpy import RobotModel

    robot = RobotModel.from_urdf(BIPED, floating_base=True)
    with pytest.raises(ConfigError, match="collision geometry") as info:
        find_feet(robot, ("lf", "rf"))
    assert info.value.field == "sole"
    feet = find_feet(robot, ("lf", "rf"), sole=(0.2, 0.1))
    assert feet.frames == ("lf", "rf") and feet.half_size == (0.1, 0.05) and not feet.left.added
    with pytest.raises(ConfigError, match="name its feet"):
        find_feet(robot)


def test_feet_are_frozen_and_pickle(example_robot):
    robot = example_robot("g1")
    feet = find_feet(robot)
    with pytest.raises(AttributeError):
        feet.mu = 1.0  # type: ignore[misc]
    with pytest.raises(ValueError):
        feet.left.placement[0, 0] = 2.0
    back = pickle.loads(pickle.dumps(feet))
    assert back.frames == feet.frames and back.half_size == feet.half_size
    np.testing.assert_array_equal(back.left.placement, feet.left.placement)
    assert copy.deepcopy(feet).right.parent == feet.right.parent
    with pytest.raises(ConfigError, match="half sizes"):
        Feet(Sole("a", "a"), Sole("b", "b"), (0.1, 0.0))
    with pytest.raises(ConfigError, match="same frame"):
        Feet(Sole("a", "a"), Sole("a", "a"), (0.1, 0.1))
