"""CollisionAvoidance configuration, name resolution, pair selection ("self", SRDF) and copies."""

from __future__ import annotations

import copy
import itertools
import pickle
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest
from _collision_helpers import ARM_URDF, write_arm

from wbcpy import RobotModel
from wbcpy.collision import (
    Box,
    Capsule,
    CollisionAvoidance,
    CollisionConstraint,
    Obstacle,
    Sphere,
    load_collision_geometry,
)
from wbcpy.description.robot_files import find_srdf
from wbcpy.errors import ConfigError, ConfigKeyError
from wbcpy.model.registry import example_robot_data_dir

BALL = Obstacle("ball", Sphere(0.05), pin.SE3(np.eye(3), np.array([0.3, 0.2, 0.4])))


@pytest.fixture()
def arm(tmp_path: Path) -> RobotModel:
    return RobotModel.from_urdf(write_arm(tmp_path))


# ---------------------------------------------------------------------- configuration errors
@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"safety_distance": 0.1, "influence_distance": 0.1}, "safety_distance"),
        ({"safety_distance": 0.2, "influence_distance": 0.1}, "safety_distance"),
        ({"safety_distance": -0.01}, "safety_distance"),
        ({"influence_distance": float("nan")}, "influence_distance"),
        ({"gain": 0.0}, "gain"),
        ({"gain": 1.5}, "gain"),
        ({"gain": True}, "gain"),
        ({"pairs": "all"}, "pairs"),
        ({"pairs": [("a",)]}, "pairs[0]"),
        ({"pairs": [("a", "b"), ("c", "c")]}, "pairs[1]"),
        ({"obstacles": [BALL, BALL]}, "obstacles[1].name"),
        ({"obstacles": ["ball"]}, "obstacles[0]"),
        ({"obstacles": BALL}, "obstacles"),
        ({"convex_hull": 1}, "convex_hull"),
        ({"srdf": 3}, "srdf"),
    ],
)
def test_bad_configuration_names_the_field(kwargs: dict, field: str) -> None:
    with pytest.raises(ConfigError) as info:
        CollisionAvoidance(**kwargs)
    assert info.value.field == field


@pytest.mark.parametrize(
    ("make", "field"),
    [
        (lambda: Sphere(0.0), "radius"),
        (lambda: Sphere(float("inf")), "radius"),
        (lambda: Box((0.1, 0.2)), "size"),
        (lambda: Box((0.1, -0.2, 0.3)), "size"),
        (lambda: Capsule(0.1, 0.0), "length"),
        (lambda: Obstacle("", Sphere(0.1)), "name"),
        (lambda: Obstacle("x", "sphere"), "shape"),  # type: ignore[arg-type]
        (lambda: Obstacle("x", Sphere(0.1), np.eye(4)), "placement"),  # type: ignore[arg-type]
        (lambda: Obstacle("x", Sphere(0.1), pin.SE3(np.diag([1.0, 1.0, -1.0]), np.zeros(3))), "placement"),
    ],
)
def test_bad_shapes_and_obstacles(make, field: str) -> None:
    with pytest.raises(ConfigError) as info:
        make()
    assert info.value.field == field


def test_from_dict_round_trip_and_errors() -> None:
    data = {
        "pairs": [["l1", "l3"]],
        "obstacles": [{"name": "crate", "shape": {"type": "box", "size": [0.2, 0.1, 0.3]},
                       "position": [0.5, -0.3, 0.2], "rpy": [0.3, 0.2, 0.1]}],
        "safety_distance": 0.02,
    }  # fmt: skip
    avoid = CollisionAvoidance.from_dict(data)
    (crate,) = avoid.obstacles
    np.testing.assert_allclose(crate.placement.rotation, pin.rpy.rpyToMatrix(0.3, 0.2, 0.1))
    np.testing.assert_allclose(crate.placement.translation, [0.5, -0.3, 0.2])
    assert crate.shape == Box((0.2, 0.1, 0.3))
    again = CollisionAvoidance.from_dict(avoid.to_dict())
    assert again.pairs == avoid.pairs == (("l1", "l3"),) and again.safety_distance == 0.02
    assert again.obstacles[0].shape == crate.shape
    assert again.obstacles[0].placement.isApprox(crate.placement, 1e-12)
    with pytest.raises(ConfigKeyError) as info:
        CollisionAvoidance.from_dict({"influence": 0.2}, prefix="collision.")
    assert info.value.field == "collision.influence"
    with pytest.raises(ConfigKeyError) as info:
        CollisionAvoidance.from_dict({"obstacles": [{"name": "x", "shape": {"type": "cone"}}]})
    assert info.value.field == "obstacles[0].shape.type"
    with pytest.raises(ConfigError) as info:
        CollisionAvoidance.from_dict(
            {"obstacles": [{"name": "x", "shape": {"type": "capsule", "radius": 1}}]}
        )
    assert info.value.field == "obstacles[0].shape.length"
    with pytest.raises(ConfigError) as info:
        CollisionAvoidance.from_dict({"gain": 2.0}, prefix="collision.")
    assert info.value.field == "collision.gain"
    bad = [
        ([("pairs", "self")], "collision"),
        ({"obstacles": [{"name": "x"}]}, "obstacles[0].shape"),
        ({"obstacles": [{"name": "x", "shape": {"type": "sphere", "radius": 1, "size": 2}}]},
         "obstacles[0].shape.size"),
        ({"obstacles": [{"name": "x", "shape": {"type": "sphere", "radius": 1}, "position": [1, 2]}]},
         "obstacles[0].position"),
        ({"obstacles": [{"name": "x", "shape": [1]}]}, "obstacles[0].shape"),
    ]  # fmt: skip
    for data, field in bad:
        with pytest.raises(ConfigError) as info:
            CollisionAvoidance.from_dict(data)  # type: ignore[arg-type]
        assert info.value.field == field, data


def test_configuration_is_immutable_and_private() -> None:
    placement = pin.SE3(np.eye(3), np.array([1.0, 2.0, 3.0]))
    obstacle = Obstacle("ball", Sphere(0.1), placement)
    placement.translation = np.zeros(3)
    np.testing.assert_allclose(obstacle.placement.translation, [1.0, 2.0, 3.0])
    avoid = CollisionAvoidance(obstacles=[obstacle])
    with pytest.raises(AttributeError):
        avoid.gain = 0.9  # type: ignore[misc]


def test_named_pairs_are_the_listed_pairs_and_none_for_self() -> None:
    listed = CollisionAvoidance(pairs=[["link_a", "ball"], ("link_b", "link_c")], obstacles=[BALL])
    assert listed.named_pairs == (("link_a", "ball"), ("link_b", "link_c"))
    assert not listed.self_collision
    every = CollisionAvoidance(pairs="self")
    assert every.self_collision and every.named_pairs == ()
    assert CollisionAvoidance(pairs=None, obstacles=[BALL]).named_pairs == ()


# ---------------------------------------------------------------------- names and pairs on the test arm
def test_self_pairs_of_the_arm(arm: RobotModel) -> None:
    cc = CollisionConstraint(arm, CollisionAvoidance(pairs="self"))
    # same joint: (l2_0, l2_1), (l3_0, tip_0); adjacent links: base–l1, l1–l2, l2–l3, l3–tip
    expected = {("base_0", "l2_0"), ("base_0", "l2_1"), ("base_0", "l3_0"), ("base_0", "tip_0"),
                ("l1_0", "l3_0"), ("l1_0", "tip_0"), ("l2_0", "tip_0"), ("l2_1", "tip_0")}  # fmt: skip
    assert {tuple(sorted(p)) for p in cc.pair_names} == expected


def test_srdf_beside_the_urdf_and_given_as_text(tmp_path: Path) -> None:
    srdf = '<robot name="arm3"><disable_collisions link1="tip" link2="l1" reason="Never"/></robot>'
    path = write_arm(tmp_path, with_srdf=srdf)
    assert find_srdf(path) == tmp_path / "arm3.srdf"
    arm = RobotModel.from_urdf(path)
    found = CollisionConstraint(arm, CollisionAvoidance(pairs="self"))
    assert ("l1_0", "tip_0") not in found.pair_names and found.n_pairs == 7
    given = CollisionConstraint(arm, CollisionAvoidance(pairs="self", srdf=srdf.replace("l1", "base")))
    assert ("base_0", "tip_0") not in given.pair_names and ("l1_0", "tip_0") in given.pair_names
    with pytest.raises(ConfigError) as info:
        CollisionConstraint(arm, CollisionAvoidance(pairs="self", srdf=tmp_path / "missing.srdf"))
    assert info.value.field == "srdf"


def test_named_pairs_links_geometries_and_obstacles(arm: RobotModel) -> None:
    cc = CollisionConstraint(
        arm, CollisionAvoidance(pairs=[("l2", "ball"), ("l3_0", "base")], obstacles=[BALL])
    )
    assert cc.pair_names == [("l2_0", "ball"), ("l2_1", "ball"), ("l3_0", "base_0")]
    # an obstacle named in no pair: paired with every link that can move (not the fixed base)
    cc = CollisionConstraint(arm, CollisionAvoidance(obstacles=[BALL]))
    assert cc.pair_names == [(g, "ball") for g in ("l1_0", "l2_0", "l2_1", "l3_0", "tip_0")]


@pytest.mark.parametrize(
    ("pairs", "field", "error"),
    [
        ([("l2", "bal")], "pairs[0][1]", ConfigKeyError),
        ([("l9", "ball")], "pairs[0][0]", ConfigKeyError),
        ([("l3", "tip")], "pairs[0]", ConfigError),  # same joint
        ([("ball", "crate")], "pairs[0]", ConfigError),  # two obstacles
        ([("base", "ball")], "pairs[0]", ConfigError),  # both on the universe
    ],
)
def test_bad_pairs_raise(arm: RobotModel, pairs, field: str, error: type) -> None:
    crate = Obstacle("crate", Box((0.1, 0.1, 0.1)))
    with pytest.raises(error) as info:
        CollisionConstraint(arm, CollisionAvoidance(pairs=pairs, obstacles=[BALL, crate]))
    assert info.value.field == field


def test_obstacle_named_like_the_robot_and_empty_selection(arm: RobotModel) -> None:
    with pytest.raises(ConfigError) as info:
        CollisionConstraint(arm, CollisionAvoidance(obstacles=[Obstacle("l2", Sphere(0.1))]))
    assert info.value.field == "obstacles[0].name"
    with pytest.raises(ConfigError) as info:
        CollisionConstraint(arm, CollisionAvoidance())
    assert info.value.field == "pairs"
    with pytest.raises(ConfigError) as info:
        CollisionConstraint(arm, "self")  # type: ignore[arg-type]
    assert info.value.field == "collision"


def test_robot_without_collision_geometry(robots_dir: Path) -> None:
    robot = RobotModel.from_urdf(robots_dir / "lwr4.urdf")
    with pytest.raises(ConfigError) as info:
        CollisionConstraint(robot, CollisionAvoidance(pairs="self"))
    assert info.value.field == "pairs"
    with pytest.raises(ConfigError) as info:
        CollisionConstraint(robot, CollisionAvoidance(obstacles=[BALL]))
    assert info.value.field == "obstacles"


def test_robot_that_keeps_no_urdf_and_missing_meshes(tmp_path: Path) -> None:
    robot = RobotModel.from_urdf(ARM_URDF)
    if getattr(robot, "urdf_text", None) is None:  # until RobotModel keeps the XML it was built from
        with pytest.raises(ConfigError) as info:
            load_collision_geometry(robot)
        assert info.value.field == "robot"
    urdf = ARM_URDF.replace('<sphere radius="0.03"/>', '<mesh filename="package://nowhere/missing.stl"/>')
    (tmp_path / "broken.urdf").write_text(urdf, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_collision_geometry(RobotModel.from_urdf(tmp_path / "broken.urdf"))
    assert info.value.field == "robot" and "missing.stl" in str(info.value)


def test_copies_and_pickles_are_independent(arm: RobotModel) -> None:
    cc = CollisionConstraint(arm, CollisionAvoidance(pairs="self", obstacles=[BALL], influence_distance=1.0))
    arm.update(np.array([0.3, -0.4, 0.8]))
    C, lower = (x.copy() for x in cc.compute(0.01))
    for other in (copy.deepcopy(cc), pickle.loads(pickle.dumps(cc))):
        assert other.robot is not arm and other.pair_names == cc.pair_names
        other.robot.update(np.array([0.3, -0.4, 0.8]))
        C2, lower2 = other.compute(0.01)
        np.testing.assert_array_equal(C2, C)
        np.testing.assert_array_equal(lower2, lower)
        other.robot.update(np.zeros(3))
        other.compute(0.01)
    np.testing.assert_array_equal(cc.compute(0.01)[0], C)  # the original is untouched
    shallow = copy.copy(cc)
    assert shallow.robot is arm and shallow.geometry_data is not cc.geometry_data


def test_compute_rejects_a_bad_dt(arm: RobotModel) -> None:
    cc = CollisionConstraint(arm, CollisionAvoidance(obstacles=[BALL]))
    arm.update(np.zeros(3))
    for dt in (0.0, -0.01, float("nan"), True):
        with pytest.raises(ConfigError) as info:
            cc.compute(dt)  # type: ignore[arg-type]
        assert info.value.field == "dt"


# ---------------------------------------------------------------------- SRDF of real robots
def _srdf_disabled(path: Path) -> set[frozenset[str]]:
    root = ET.parse(path).getroot()
    return {frozenset((e.get("link1"), e.get("link2"))) for e in root.iter("disable_collisions")}


@pytest.mark.parametrize(("name", "srdf"), [("panda", "panda_description/srdf/panda.srdf"),
                                             ("talos", "talos_data/srdf/talos.srdf")])  # fmt: skip
def test_self_pairs_respect_the_srdf(example_robot, name: str, srdf: str) -> None:
    robot = example_robot(name)
    cc = CollisionConstraint(robot, CollisionAvoidance(pairs="self"))
    model = robot.model
    geom = load_collision_geometry(robot)
    objs = geom.geometryObjects
    link = [model.frames[o.parentFrame].name for o in objs]
    # the oracle: every pair on different joints, links not joined by one joint, not disabled in the SRDF
    parent = {}
    for f in model.frames:
        if f.type == pin.FrameType.BODY:
            up = model.frames[f.parentFrame]
            parent[f.name] = model.frames[up.parentFrame].name
    disabled = _srdf_disabled(example_robot_data_dir() / srdf)
    expected = set()
    for a, b in itertools.combinations(range(geom.ngeoms), 2):
        la, lb = link[a], link[b]
        if objs[a].parentJoint == objs[b].parentJoint or parent.get(la) == lb or parent.get(lb) == la:
            continue
        if frozenset((la, lb)) not in disabled:
            expected.add(frozenset((objs[a].name, objs[b].name)))
    got = {frozenset(p) for p in cc.pair_names}
    assert got == expected
    assert len(
        disabled & {frozenset((link[a], link[b])) for a, b in itertools.combinations(range(geom.ngeoms), 2)}
    )
