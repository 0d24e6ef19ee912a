"""Checks of the robot description files shipped in ``robots/``, with raw Pinocchio only.

No wbcpy import on purpose: these tests pin the files themselves (they load, their inertial data is
physical, every joint has limits, the PUMA reproduces Stanford-WBC jspace's reference frames, and the
three analytic robots obey their closed-form kinematics and dynamics), independently of RobotModel.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest
import yaml

ROBOTS = Path(__file__).parents[2] / "robots"
URDFS = sorted(ROBOTS.glob("*.urdf"))

# robot file -> (nq, tip / flange frame names that must exist)
EXPECTED = {
    "puma560.urdf": (6, ["end-effector"]),
    "rr_unit_mass.urdf": (2, ["tip"]),
    "rr_unit_inertia.urdf": (2, ["tip"]),
    "rp_unit_mass.urdf": (2, ["tip"]),
    "planar3r.urdf": (3, ["tip"]),
    "lwr4.urdf": (7, ["lwr_ee"]),
    "bimanual.urdf": (15, ["left_ee", "right_ee", "torso_link"]),
}
# The PUMA's diagonal inertias are jspace's, whose Izz lumps in reflected rotor inertia: they violate the
# triangle inequality on purpose (see robots/README.md). No other file may.
TRIANGLE_EXEMPT = {"puma560.urdf"}


def _load(name: str) -> tuple[pin.Model, pin.Data]:
    model = pin.buildModelFromUrdf(str(ROBOTS / name))
    return model, model.createData()


def _full_crba(model: pin.Model, data: pin.Data, q: np.ndarray) -> np.ndarray:
    upper = pin.crba(model, data, q).copy()
    return np.triu(upper) + np.triu(upper, 1).T


def _rot_x(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


# --- all files ---
def test_every_expected_file_is_present() -> None:
    assert sorted(p.name for p in URDFS) == sorted(EXPECTED)
    assert (ROBOTS / "bimanual_chains.yaml").is_file()
    assert (ROBOTS / "README.md").is_file()


@pytest.mark.parametrize("path", URDFS, ids=lambda p: p.name)
def test_urdf_loads_with_expected_dofs_and_frames(path: Path) -> None:
    model, _ = _load(path.name)
    nq, frames = EXPECTED[path.name]
    assert model.nq == nq and model.nv == nq
    for frame in frames:
        assert model.existFrame(frame), frame
    assert np.allclose(model.gravity.linear, [0.0, 0.0, -9.81])


@pytest.mark.parametrize("path", URDFS, ids=lambda p: p.name)
def test_inertial_data_is_physical(path: Path) -> None:
    root = ET.parse(path).getroot()
    n_massive = 0
    for link in root.iter("link"):
        inertial = link.find("inertial")
        if inertial is None:
            continue
        n_massive += 1
        mass = float(inertial.find("mass").get("value"))
        assert mass > 0.0, link.get("name")
        att = inertial.find("inertia").attrib
        inertia = np.array(
            [
                [float(att["ixx"]), float(att["ixy"]), float(att["ixz"])],
                [float(att["ixy"]), float(att["iyy"]), float(att["iyz"])],
                [float(att["ixz"]), float(att["iyz"]), float(att["izz"])],
            ]
        )
        principal = np.linalg.eigvalsh(inertia)
        assert principal.min() >= 0.0, link.get("name")  # point masses have exactly zero inertia
        if path.name not in TRIANGLE_EXEMPT:
            a, b, c = principal
            assert a + b >= c - 1e-12, link.get("name")
    assert n_massive >= EXPECTED[path.name][0]
    # the assembled joint-space inertia is symmetric positive definite on random states
    model, data = _load(path.name)
    rng = np.random.default_rng(7)
    for _ in range(20):
        q = rng.uniform(model.lowerPositionLimit, model.upperPositionLimit)
        M = _full_crba(model, data, q)
        assert np.linalg.eigvalsh(M).min() > 1e-9
        assert np.all(np.isfinite(pin.computeGeneralizedGravity(model, data, q)))


def test_puma_triangle_exemption_is_needed() -> None:
    # Guard the exemption: jspace's PUMA inertias really are non-rigid-body (so the exemption is needed).
    root = ET.parse(ROBOTS / "puma560.urdf").getroot()
    att = root.find("link[@name='upper_arm']/inertial/inertia").attrib
    assert float(att["ixx"]) + float(att["iyy"]) < float(att["izz"])


@pytest.mark.parametrize("path", URDFS, ids=lambda p: p.name)
def test_every_joint_has_limits(path: Path) -> None:
    root = ET.parse(path).getroot()
    moving = [j for j in root.iter("joint") if j.get("type") != "fixed"]
    assert len(moving) == EXPECTED[path.name][0]
    for j in moving:
        assert j.get("type") in ("revolute", "prismatic"), j.get("name")
        lim = j.find("limit")
        assert lim is not None, j.get("name")
        lower, upper = float(lim.get("lower")), float(lim.get("upper"))
        assert lower < 0.0 < upper, j.get("name")
        assert float(lim.get("velocity")) > 0.0 and float(lim.get("effort")) > 0.0, j.get("name")
    model, _ = _load(path.name)
    assert np.all(model.lowerPositionLimit < model.upperPositionLimit)
    assert np.all(model.velocityLimit > 0.0) and np.all(model.effortLimit > 0.0)


# --- PUMA 560 ---
PUMA_Q0 = [  # node: quaternion (x y z w), translation, from specs/puma560.md (jspace's test values)
    ((0, 0, 0, 1), (0, 0, 0)),
    ((-0.707107, 0, 0, 0.707107), (0, 0.2435, 0)),
    ((-0.707107, 0, 0, 0.707107), (0.4318, 0.1501, 0)),
    ((0, 0, 0, 1), (0.4115, 0.1501, 0.4331)),
    ((-0.707107, 0, 0, 0.707107), (0.4115, 0.1501, 0.4331)),
    ((0, 0, 0, 1), (0.4115, 0.1501, 0.4331)),
]
PUMA_Q1 = {1: (-0.172181, 0.17218, 0), 3: (0.184837, 0.397112, 0.4331)}
PUMA_Q1[4] = PUMA_Q1[5] = PUMA_Q1[3]
PUMA_JOINTS = ["shoulder-yaw", "shoulder-pitch", "elbow", "wrist-roll1", "wrist-pitch", "wrist-roll2"]
PUMA_LINKS = ["base", "upper_arm", "lower_arm", "wrist-hand", "wrist-finger", "end-effector"]


def test_puma_names() -> None:
    model, _ = _load("puma560.urdf")
    assert list(model.names)[1:] == PUMA_JOINTS
    for i, link in enumerate(PUMA_LINKS):
        assert model.frames[model.getFrameId(link)].parentJoint == i + 1
    assert model.existFrame("base_link")


def test_puma_reference_frames_at_zero() -> None:
    model, data = _load("puma560.urdf")
    pin.forwardKinematics(model, data, np.zeros(6))
    for node, (quat, trans) in enumerate(PUMA_Q0):
        placement = data.oMi[node + 1]
        x, y, z, w = quat
        expected_rot = pin.Quaternion(w, x, y, z).normalized().toRotationMatrix()
        angle = np.linalg.norm(pin.log3(expected_rot.T @ placement.rotation))
        assert math.degrees(angle) < 0.15, node
        assert np.linalg.norm(placement.translation - np.array(trans)) < 1e-6, node


def test_puma_reference_frames_with_first_joint_at_45_degrees() -> None:
    model, data = _load("puma560.urdf")
    q = np.zeros(6)
    q[0] = 0.7854
    pin.forwardKinematics(model, data, q)
    for node, trans in PUMA_Q1.items():
        assert np.linalg.norm(data.oMi[node + 1].translation - np.array(trans)) < 1e-6, node
    # every node frame is the q = 0 frame rotated about the base z axis by q1
    pin.forwardKinematics(model, data, q)
    turned = [data.oMi[i + 1].copy() for i in range(6)]
    pin.forwardKinematics(model, data, np.zeros(6))
    rz = pin.SE3(pin.utils.rotate("z", 0.7854), np.zeros(3))
    for i in range(6):
        assert (rz * data.oMi[i + 1]).isApprox(turned[i], 1e-12)


def test_puma_inertial_values_match_the_spec() -> None:
    model, _ = _load("puma560.urdf")
    masses = [17.40, 6.04, 0.82, 0.34, 0.09]
    assert model.inertias[1].mass == pytest.approx(34.40)
    for i, m in enumerate(masses):
        assert model.inertias[i + 2].mass == pytest.approx(m)
    assert np.allclose(model.inertias[2].lever, [0.068, 0.006, -0.016])
    assert np.allclose(np.diag(model.inertias[6].inertia), [0.00015, 0.00015, 0.19304])


# --- analytic robots ---
GRID = [(a, b) for a in np.linspace(-3.0, 3.0, 7) for b in np.linspace(-2.5, 2.5, 6)]
TOL = 1e-10
G = 9.81


def _rr_unit_mass(q1: float, q2: float) -> dict[str, np.ndarray]:
    s1, c1, s12, c12 = math.sin(q1), math.cos(q1), math.sin(q1 + q2), math.cos(q1 + q2)
    m11 = 1 + (s1 + s12) ** 2 + (c1 + c12) ** 2
    m12 = s12 * (s1 + s12) + c12 * (c1 + c12)
    return {
        "M": np.array([[m11, m12], [m12, 1.0]]),
        "tip": np.array([0, c1 + c12, s1 + s12]),
        "R": _rot_x(q1 + q2),
        "J": np.array([[0, -s1 - s12, c1 + c12, 1, 0, 0], [0, -s12, c12, 1, 0, 0]]).T,
        "com": np.array([0, c1 + 0.5 * c12, s1 + 0.5 * s12]),
        "g": G * np.array([2 * c1 + c12, c12]),
    }


def _rr_unit_inertia(q1: float, q2: float) -> dict[str, np.ndarray]:
    s1, c1, s12, c12 = math.sin(q1), math.cos(q1), math.sin(q1 + q2), math.cos(q1 + q2)
    m11 = 3 + (2 * s1 + s12) ** 2 + (2 * c1 + c12) ** 2
    m12 = 1 + s12 * (2 * s1 + s12) + c12 * (2 * c1 + c12)
    return {
        "M": np.array([[m11, m12], [m12, 2.0]]),
        "tip": np.array([0, 2 * c1 + 2 * c12, 2 * s1 + 2 * s12]),
        "R": _rot_x(q1 + q2),
        "J": np.array([[0, -2 * s1 - 2 * s12, 2 * c1 + 2 * c12, 1, 0, 0], [0, -2 * s12, 2 * c12, 1, 0, 0]]).T,
        "com": np.array([0, 1.5 * c1 + 0.5 * c12, 1.5 * s1 + 0.5 * s12]),
        "g": G * np.array([3 * c1 + c12, c12]),
    }


def _rp_unit_mass(q1: float, q2: float) -> dict[str, np.ndarray]:
    s1, c1 = math.sin(q1), math.cos(q1)
    m11 = 1 + (s1 + c1 * q2) ** 2 + (c1 - s1 * q2) ** 2
    m12 = s1 * (s1 + c1 * q2) + c1 * (c1 - s1 * q2)
    return {
        "M": np.array([[m11, m12], [m12, 1.0]]),
        "tip": np.array([0, c1 - s1 * q2, s1 + c1 * q2]),
        "R": _rot_x(q1),
        "J": np.array([[0, -s1 - c1 * q2, c1 - s1 * q2, 1, 0, 0], [0, -s1, c1, 0, 0, 0]]).T,
        "com": np.array([0, c1 - 0.5 * s1 * q2, s1 + 0.5 * c1 * q2]),
        "g": G * np.array([2 * c1 - s1 * q2, c1]),
    }


CLOSED_FORMS = {
    "rr_unit_mass.urdf": _rr_unit_mass,
    "rr_unit_inertia.urdf": _rr_unit_inertia,
    "rp_unit_mass.urdf": _rp_unit_mass,
}


@pytest.mark.parametrize("name", sorted(CLOSED_FORMS))
def test_analytic_robot_matches_closed_forms(name: str) -> None:
    model, data = _load(name)
    tip = model.getFrameId("tip")
    oracle = CLOSED_FORMS[name]
    for q1, q2 in GRID:
        q = np.array([q1, q2])
        if name.startswith("rp"):
            q[1] = q2 * 0.8  # stay inside the +-2 m prismatic range
        ref = oracle(*q)
        M = _full_crba(model, data, q)
        np.testing.assert_allclose(M, ref["M"], rtol=0, atol=TOL)
        pin.framesForwardKinematics(model, data, q)
        np.testing.assert_allclose(data.oMf[tip].translation, ref["tip"], rtol=0, atol=TOL)
        np.testing.assert_allclose(data.oMf[tip].rotation, ref["R"], rtol=0, atol=TOL)
        J = pin.computeFrameJacobian(model, data, q, tip, pin.LOCAL_WORLD_ALIGNED)
        np.testing.assert_allclose(J, ref["J"], rtol=0, atol=TOL)
        np.testing.assert_allclose(pin.centerOfMass(model, data, q), ref["com"], rtol=0, atol=TOL)
        np.testing.assert_allclose(pin.computeGeneralizedGravity(model, data, q), ref["g"], rtol=0, atol=TOL)
    assert sum(inertia.mass for inertia in model.inertias) == pytest.approx(2.0)


def test_point_masses_have_zero_rotational_inertia() -> None:
    for name in ("rr_unit_mass.urdf", "rp_unit_mass.urdf"):
        model, _ = _load(name)
        for inertia in list(model.inertias)[1:]:
            assert inertia.mass == 1.0
            assert np.all(inertia.inertia == 0.0)


# --- planar 3R, LWR ---
def test_planar3r_tip() -> None:
    model, data = _load("planar3r.urdf")
    tip = model.getFrameId("tip")
    pin.framesForwardKinematics(model, data, np.zeros(3))
    np.testing.assert_allclose(data.oMf[tip].translation, [0.7, 0.0, 0.0], atol=1e-12)
    rng = np.random.default_rng(3)
    for _ in range(10):
        q = rng.uniform(-2.9, 2.9, 3)
        a1, a12, a123 = q[0], q[0] + q[1], q.sum()
        expected = [
            0.3 * math.cos(a1) + 0.25 * math.cos(a12) + 0.15 * math.cos(a123),
            0.3 * math.sin(a1) + 0.25 * math.sin(a12) + 0.15 * math.sin(a123),
            0.0,
        ]
        pin.framesForwardKinematics(model, data, q)
        np.testing.assert_allclose(data.oMf[tip].translation, expected, atol=1e-12)
    np.testing.assert_allclose(np.degrees(model.upperPositionLimit), 170.0)


def test_lwr_geometry_and_limits() -> None:
    model, data = _load("lwr4.urdf")
    assert list(model.names)[1:] == [f"lwr_joint_{i}" for i in range(1, 8)]
    for i in range(1, 8):
        assert model.existFrame(f"lwr_link_{i}")
    ee = model.getFrameId("lwr_ee")
    pin.framesForwardKinematics(model, data, np.zeros(7))
    np.testing.assert_allclose(data.oMf[ee].translation, [0, 0, 0.31 + 0.4 + 0.39 + 0.078], atol=1e-12)
    # joint axes at q = 0 in the world: Z, -Y, Z, Y, Z, -Y, Z
    J = pin.computeJointJacobians(model, data, np.zeros(7))
    axes = [(0, 0, 1), (0, -1, 0), (0, 0, 1), (0, 1, 0), (0, 0, 1), (0, -1, 0), (0, 0, 1)]
    np.testing.assert_allclose(J[3:, :].T, axes, atol=1e-12)
    np.testing.assert_allclose(np.degrees(model.upperPositionLimit), [170, 120, 170, 120, 170, 120, 170])
    np.testing.assert_allclose(np.degrees(model.velocityLimit), [110, 110, 128, 128, 204, 184, 184])
    np.testing.assert_allclose(model.effortLimit, [176, 176, 100, 100, 100, 38, 38])
    # q = 0 (straight up) is singular: the 6x7 flange Jacobian loses rank
    Jee = pin.computeFrameJacobian(model, data, np.zeros(7), ee, pin.LOCAL_WORLD_ALIGNED)
    assert np.linalg.matrix_rank(Jee, tol=1e-9) < 6


# --- bimanual ---
def _support_joints(model: pin.Model, frame: str) -> set[int]:
    joint = model.frames[model.getFrameId(frame)].parentJoint
    return set(model.supports[joint]) - {0}


def _chain_joints(model: pin.Model, base: str, tip: str) -> set[int]:
    base_support = _support_joints(model, base)
    tip_support = _support_joints(model, tip)
    assert base_support <= tip_support, (base, tip)  # base is an ancestor of tip: a serial chain
    return tip_support - base_support


def test_bimanual_chain_config() -> None:
    cfg = yaml.safe_load((ROBOTS / "bimanual_chains.yaml").read_text())
    urdf = (ROBOTS / cfg["urdf"]).resolve()
    assert urdf == (ROBOTS / "bimanual.urdf").resolve()
    model = pin.buildModelFromUrdf(str(urdf))
    chains = cfg["chains"]
    n_main = cfg["main_chains"]
    assert n_main == 3 and [c["name"] for c in chains[:n_main]] == ["torso", "left_arm", "right_arm"]
    assert len({c["name"] for c in chains}) == len(chains) == n_main + 14
    main = [_chain_joints(model, c["base"], c["tip"]) for c in chains[:n_main]]
    assert [len(s) for s in main] == [1, 7, 7]
    assert set.union(*main) == set(range(1, model.njoints))  # cover every DOF
    assert sum(len(s) for s in main) == model.nv  # mutually exclusive
    for c in chains[n_main:]:
        side, n = c["tip"].rsplit("_link_", 1)
        assert c["base"] == "base_link" and side in ("left", "right")
        names = sorted(model.names[j] for j in _chain_joints(model, c["base"], c["tip"]))
        assert names == sorted(["torso_joint"] + [f"{side}_joint_{k}" for k in range(1, int(n) + 1)])
    assert cfg.get("locked_joints", []) == []


def test_bimanual_is_mirror_symmetric_and_plausible() -> None:
    model, data = _load("bimanual.urdf")
    total = sum(inertia.mass for inertia in model.inertias)
    assert 35.0 < total < 45.0
    left, right = model.getFrameId("left_ee"), model.getFrameId("right_ee")
    rng = np.random.default_rng(5)
    flip = np.diag([1.0, -1.0, 1.0])
    for _ in range(5):
        qa = rng.uniform(-1.0, 1.0, 7)
        # mirror about the X-Z plane: the right arm's joints about z and y flip sign appropriately
        q = np.concatenate([[0.0], qa, qa * np.array([-1, 1, -1, 1, -1, 1, -1])])
        pin.framesForwardKinematics(model, data, q)
        np.testing.assert_allclose(flip @ data.oMf[left].translation, data.oMf[right].translation, atol=1e-12)
    pin.framesForwardKinematics(model, data, np.zeros(model.nq))
    p_left = data.oMf[left].translation
    assert p_left[1] > 0.25 and p_left[2] < 1.1  # sideways and down from the shoulder
