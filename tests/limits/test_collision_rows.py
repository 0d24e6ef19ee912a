"""CollisionConstraint rows: distances against closed forms, rows against finite differences of the
distance, penetrations, the centre-normal fallback and the clipping to the velocity bounds."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest
from _collision_helpers import (
    ARM_GEOMETRY,
    geometry_pose,
    random_configuration,
    sphere_box,
    sphere_capsule,
    sphere_sphere,
    write_arm,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from wbcpy import RobotModel
from wbcpy.collision import Box, Capsule, CollisionAvoidance, CollisionConstraint, Obstacle, Sphere
from wbcpy.errors import StateNotSetError

DT = 0.01
OBSTACLES = [
    Obstacle("ball", Sphere(0.05), pin.SE3(np.eye(3), np.array([0.3, 0.2, 0.4]))),
    Obstacle(
        "crate", Box((0.2, 0.1, 0.3)), pin.SE3(pin.rpy.rpyToMatrix(0.3, 0.2, 0.1), np.array([0.5, -0.3, 0.2]))
    ),
    Obstacle(
        "pole", Capsule(0.04, 0.5), pin.SE3(pin.rpy.rpyToMatrix(1.0, 0.4, 0.0), np.array([0.2, 0.4, 0.3]))
    ),
]
SHAPES = {o.name: o for o in OBSTACLES}


@pytest.fixture(scope="module")
def arm_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_arm(tmp_path_factory.mktemp("arm"))


def _shape(model: pin.Model, q: np.ndarray, name: str) -> tuple[str, pin.SE3, object]:
    """(kind, world pose, dimensions) of a robot geometry or an obstacle, computed in the test."""
    if name in SHAPES:
        obs = SHAPES[name]
        if isinstance(obs.shape, Sphere):
            return "sphere", obs.placement, obs.shape.radius
        if isinstance(obs.shape, Box):
            return "box", obs.placement, np.array(obs.shape.size)
        return "capsule", obs.placement, (obs.shape.radius, obs.shape.length)
    kind, dims = ARM_GEOMETRY[name][2]
    return kind, geometry_pose(model, q, name), dims


def closed_form(model: pin.Model, q: np.ndarray, a: str, b: str) -> float | None:
    """The pair's signed distance from its closed form, or None when the test has none (box–box, …)."""
    (ka, pa, da), (kb, pb, db) = _shape(model, q, a), _shape(model, q, b)
    if kb == "sphere" and ka != "sphere":
        (ka, pa, da), (kb, pb, db) = (kb, pb, db), (ka, pa, da)
    if ka != "sphere":
        return None
    c = pa.translation
    if kb == "sphere":
        return sphere_sphere(c, da, pb.translation, db)
    if kb == "box":
        return sphere_box(c, da, pb, db)
    return sphere_capsule(c, da, pb, *db)


def _constraint(path: Path, floating: bool = False, **kwargs: object) -> CollisionConstraint:
    robot = RobotModel.from_urdf(path, floating_base=floating)
    options = {"pairs": "self", "obstacles": OBSTACLES, "influence_distance": 10.0}
    options.update(kwargs)
    return CollisionConstraint(robot, CollisionAvoidance(**options))


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), floating=st.booleans())
def test_distances_match_closed_forms(arm_path: Path, seed: int, floating: bool) -> None:
    cc = _constraint(arm_path, floating)
    model = cc.robot.model
    q = random_configuration(model, np.random.default_rng(seed))
    cc.robot.update(q)
    C, _ = cc.compute(DT)
    dist = cc.distances()
    checked = 0
    for k, (a, b) in enumerate(cc.pair_names):
        expected = closed_form(model, q, a, b)
        if expected is not None:
            assert dist[k] == pytest.approx(expected, abs=1e-7), (a, b)
            checked += 1
    assert checked >= 12
    assert C.shape == (int((dist < 10.0).sum()), model.nv)
    # every row's right-hand side is the damper of its own distance
    by_name = {(s.geometry_a, s.geometry_b): s for s in cc.status()}
    for k, pair in enumerate(cc.pair_names):
        assert by_name[pair].lower == pytest.approx(-0.5 * (dist[k] - 0.01) / DT, rel=1e-12, abs=1e-12)


def test_sphere_witness_points_and_normal(arm_path: Path) -> None:
    cc = _constraint(arm_path, pairs=[("l1", "l3")], obstacles=[])
    model = cc.robot.model
    q = np.array([0.3, -1.9, 2.4])
    cc.robot.update(q)
    cc.compute(DT)
    (status,) = cc.status()
    ca = geometry_pose(model, q, "l1_0").translation
    cb = geometry_pose(model, q, "l3_0").translation
    n = (cb - ca) / np.linalg.norm(cb - ca)
    np.testing.assert_allclose(status.normal, n, atol=1e-9)
    np.testing.assert_allclose(status.point_a, ca + 0.05 * n, atol=1e-9)
    np.testing.assert_allclose(status.point_b, cb - 0.03 * n, atol=1e-9)
    assert (status.link_a, status.link_b) == ("l1", "l3")


def _distance_fd(cc: CollisionConstraint, q: np.ndarray, v: np.ndarray, h: float = 1e-5) -> np.ndarray:
    """Central difference of every pair's distance along v (pin.integrate), closed form when known."""
    model = cc.robot.model
    out = []
    for a, b in cc.pair_names:
        f = [closed_form(model, pin.integrate(model, q, s * h * v), a, b) for s in (1.0, -1.0)]
        out.append(np.nan if f[0] is None else (f[0] - f[1]) / (2 * h))
    return np.array(out)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), floating=st.booleans())
def test_row_is_the_derivative_of_the_distance(arm_path: Path, seed: int, floating: bool) -> None:
    cc = _constraint(arm_path, floating)
    model = cc.robot.model
    rng = np.random.default_rng(seed)
    q = random_configuration(model, rng)
    v = rng.normal(size=model.nv)
    cc.robot.update(q)
    C, _ = cc.compute(DT)
    assert C.shape[0] == cc.n_pairs  # influence 10 m: every pair has a row
    fd = _distance_fd(cc, q, v)
    known = np.isfinite(fd)
    assert known.sum() >= 12
    np.testing.assert_allclose((C @ v)[known], fd[known], atol=1e-6)


def test_rows_only_inside_the_influence_distance(arm_path: Path) -> None:
    cc = _constraint(arm_path, influence_distance=0.25)
    q = np.array([0.4, -0.6, 1.2])
    cc.robot.update(q)
    C, lower = cc.compute(DT)
    all_d = cc.distances()
    inside = all_d < 0.25
    assert 0 < inside.sum() < cc.n_pairs
    assert C.shape[0] == lower.shape[0] == inside.sum()
    assert sorted(s.distance for s in cc.status()) == pytest.approx(sorted(all_d[inside]))


def test_penetration_is_reported_and_pushes_apart(arm_path: Path) -> None:
    robot = RobotModel.from_urdf(arm_path)
    q = np.array([0.2, -0.5, 0.9])
    tip = geometry_pose(robot.model, q, "tip_0").translation
    centre = tip + np.array([0.01, 0.02, 0.0])
    ball = Obstacle("ball", Sphere(0.05), pin.SE3(np.eye(3), centre))
    cc = CollisionConstraint(robot, CollisionAvoidance(pairs=[("tip", "ball")], obstacles=[ball], gain=0.4))
    robot.update(q)
    C, lower = cc.compute(DT)
    d = sphere_sphere(tip, 0.02, centre, 0.05)
    assert d < 0
    (status,) = cc.status()
    assert status.penetrating and status.distance == pytest.approx(d, abs=1e-9)
    assert cc.penetrating == [("tip_0", "ball")]
    np.testing.assert_allclose(status.normal, (centre - tip) / np.linalg.norm(centre - tip), atol=1e-9)
    assert lower[0] == pytest.approx(0.4 * (0.01 - d) / DT)
    # the row is still the distance derivative (the tip moves, the ball does not)
    v = np.array([0.3, -0.7, 0.5])
    fd = [sphere_sphere(geometry_pose(robot.model, q + s * 1e-6 * v, "tip_0").translation, 0.02, centre, 0.05)
          for s in (1, -1)]  # fmt: skip
    assert C[0] @ v == pytest.approx((fd[0] - fd[1]) / 2e-6, abs=1e-6)


def test_right_hand_side_clipped_to_the_velocity_bounds(arm_path: Path) -> None:
    robot = RobotModel.from_urdf(arm_path)
    q = np.array([0.0, -0.3, 0.4])
    l1 = geometry_pose(robot.model, q, "l1_0").translation
    ball = Obstacle("ball", Sphere(0.05), pin.SE3(np.eye(3), l1 + np.array([0.06, 0.0, 0.0])))
    cc = CollisionConstraint(robot, CollisionAvoidance(pairs=[("l1", "ball")], obstacles=[ball]))
    robot.update(q)
    C, free = cc.compute(DT)
    free = free.copy()
    assert free[0] > 0  # penetrating: pushes apart
    assert C[0, 1] == 0.0 and C[0, 2] == 0.0  # j2, j3 do not move l1
    lb = np.array([-1e-3, -np.inf, -np.inf])
    ub = np.array([2e-3, np.inf, np.inf])
    C, lower = cc.compute(DT, lb, ub)
    reach = max(C[0, 0] * lb[0], C[0, 0] * ub[0])
    assert np.isfinite(lower).all()
    assert lower[0] == pytest.approx(min(free[0], reach), rel=1e-12)
    assert lower[0] < free[0]
    # a row that q̇ = 0 satisfies (d > d_s) is never changed by the bounds
    far = Obstacle("ball", Sphere(0.05), pin.SE3(np.eye(3), l1 + np.array([0.15, 0.0, 0.0])))
    cc = CollisionConstraint(robot, CollisionAvoidance(pairs=[("l1", "ball")], obstacles=[far]))
    _, free = cc.compute(DT)
    free = free.copy()
    assert free[0] < 0
    np.testing.assert_array_equal(cc.compute(DT, lb, ub)[1], free)


def _cube_stl(path: Path, half: float) -> None:
    corners = np.array([[x, y, z] for x in (-half, half) for y in (-half, half) for z in (-half, half)])
    tris = [(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1),
            (2, 3, 7), (2, 7, 6), (0, 2, 6), (0, 6, 4), (1, 5, 7), (1, 7, 3)]  # fmt: skip
    lines = ["solid cube"]
    for t in tris:
        p = corners[list(t)]
        n = np.cross(p[1] - p[0], p[2] - p[0])
        lines += [f"facet normal {n[0]} {n[1]} {n[2]}", "outer loop"]
        lines += [f"vertex {x} {y} {z}" for x, y, z in p]
        lines += ["endloop", "endfacet"]
    path.write_text("\n".join([*lines, "endsolid cube"]) + "\n", encoding="utf-8")


def test_mesh_penetration_without_normal_uses_the_centres(tmp_path: Path) -> None:
    _cube_stl(tmp_path / "cube.stl", 0.1)
    mesh = f'<geometry><mesh filename="{tmp_path / "cube.stl"}"/></geometry>'
    urdf = f"""<robot name="cubes">
      <link name="m0"><collision>{mesh}</collision></link>
      <joint name="slide" type="prismatic"><parent link="m0"/><child link="m1"/><origin xyz="0.15 0.01 0"/>
        <axis xyz="1 0 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
      <link name="m1"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/>
        </inertial><collision>{mesh}</collision></link></robot>"""
    (tmp_path / "cubes.urdf").write_text(urdf, encoding="utf-8")
    robot = RobotModel.from_urdf(tmp_path / "cubes.urdf")
    robot.update(np.zeros(1))
    # triangle meshes: coal reports d = 0 and no normal → direction between the centres
    mesh_cc = CollisionConstraint(robot, CollisionAvoidance(pairs=[("m0", "m1")], convex_hull=False))
    C, _ = mesh_cc.compute(DT)
    (status,) = mesh_cc.status()
    n = np.array([0.15, 0.01, 0.0]) / np.hypot(0.15, 0.01)
    assert status.penetrating
    np.testing.assert_allclose(status.normal, n, atol=1e-12)
    np.testing.assert_allclose(C, [[n[0]]], atol=1e-12)  # the slide moves m1 along x
    # convex hulls: EPA gives the depth (overlap 0.05 along x) and the normal
    hull_cc = CollisionConstraint(robot, CollisionAvoidance(pairs=[("m0", "m1")]))
    C, _ = hull_cc.compute(DT)
    (status,) = hull_cc.status()
    assert status.distance == pytest.approx(-0.05, abs=1e-6)
    np.testing.assert_allclose(status.normal, [1.0, 0.0, 0.0], atol=1e-6)
    np.testing.assert_allclose(C, [[1.0]], atol=1e-6)


def test_panda_rows_match_distance_differences(example_robot) -> None:
    robot = example_robot("panda")
    ball = Obstacle("ball", Sphere(0.08), pin.SE3(np.eye(3), np.array([0.45, 0.1, 0.45])))
    avoid = CollisionAvoidance(pairs="self", obstacles=[ball], influence_distance=0.3)
    cc = CollisionConstraint(robot, avoid)
    probe = CollisionConstraint(example_robot("panda"), avoid)  # distances at perturbed states
    rng = np.random.default_rng(7)
    # the fingers: one DOF, panda_finger_joint2 mimics panda_finger_joint1 (distance differences of the
    # coupled robot check the coupled rows, also of the follower finger's geometry)
    assert robot.nq == 8 and [m.name for m in robot.mimic_joints] == ["panda_finger_joint2"]
    q0 = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785, 0.02])
    h = 1e-6
    for _ in range(3):
        q = q0 + rng.uniform(-0.4, 0.4, 8) * np.r_[np.ones(7), 0.0]
        v = rng.normal(size=8)
        robot.update(q)
        C, _ = cc.compute(DT)
        rows = {
            cc.pair_names[p]: C[i] for i, p in enumerate(k for k, d in enumerate(cc.distances()) if d < 0.3)
        }
        assert rows
        diffs = []
        for s in (1.0, -1.0):
            probe.robot.update(pin.integrate(robot.model, q, s * h * v))
            probe.compute(DT)
            diffs.append(probe.distances())
        fd = (diffs[0] - diffs[1]) / (2 * h)
        for k, pair in enumerate(cc.pair_names):
            if pair in rows:
                assert rows[pair] @ v == pytest.approx(fd[k], abs=1e-5), pair


@pytest.mark.parametrize("floating", [False, True])
def test_joint_jacobians_view_is_pinocchios_world_jacobian(arm_path: Path, floating: bool) -> None:
    robot = RobotModel.from_urdf(arm_path, floating_base=floating)
    model = robot.model
    with pytest.raises(StateNotSetError):
        robot.joint_jacobians_view()
    data = model.createData()
    for seed in (1, 2):
        q = random_configuration(model, np.random.default_rng(seed))
        robot.update(q)
        J = robot.joint_jacobians_view()
        pin.computeJointJacobians(model, data, q)
        for j in range(1, model.njoints):
            expected = pin.getJointJacobian(model, data, j, pin.ReferenceFrame.WORLD)
            support = expected.any(axis=0)
            np.testing.assert_allclose(J[:, support], expected[:, support], atol=1e-12)
            np.testing.assert_allclose(robot.data.oMi[j].homogeneous, data.oMi[j].homogeneous, atol=1e-12)
