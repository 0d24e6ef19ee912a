"""Tests of wbcpy.model.chain.Chain: paths, limits, FK and Jacobians against independent oracles.

Oracles: the URDF XML (xml.etree) for joint paths and limits; RobotModel's whole-robot frame placements
and Jacobians (configured by the test from joint names, not from the chain's index arrays); central finite
differences of ``fk``; scipy's rotation vectors for the iKin pose vector.
"""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin
import pytest
from _urdf_oracle import need_example_robot, parse_joints, path_joints, urdf_file
from scipy.spatial.transform import Rotation

from wbcpy import ConfigError, InvalidValueError, RobotModel, UnknownNameError, load_robot
from wbcpy.model import pose7_from_se3, se3_from_pose7
from wbcpy.model.chain import Chain

RNG = np.random.default_rng(20240611)


@pytest.fixture(scope="module")
def bimanual():
    return load_robot("bimanual")


def _random_chain_q(chain: Chain, rng: np.random.Generator = RNG) -> np.ndarray:
    lo = np.where(np.isfinite(chain.lower), chain.lower, -math.pi)
    hi = np.where(np.isfinite(chain.upper), chain.upper, math.pi)
    return rng.uniform(lo, hi)


def _expected(robot, chain: Chain, q_chain: np.ndarray, rest: np.ndarray | None = None):
    """Placement and Jacobian of the tip in the base frame, from the whole RobotModel.

    The per-DOF vector is built from joint *names* (robot.joint_v_index), not from chain.dof_indices.
    """
    dof = chain.rest if rest is None else rest.copy()
    cols = [robot.joint_v_index(name) for name in chain.joint_names]
    dof[cols] = q_chain
    robot.update_dof(dof)
    oMb = robot.frame_placement(chain.base)
    oMt = robot.frame_placement(chain.tip)
    J = robot.frame_jacobian(chain.tip)[:, cols]
    R = oMb.rotation
    Jb = np.vstack((R.T @ J[:3], R.T @ J[3:]))
    return oMb.actInv(oMt), Jb


def _fd_jacobian(chain: Chain, q: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """Central differences of fk: linear rows from positions, angular rows from log3(R⁺ R⁻ᵀ) (base axes)."""
    J = np.zeros((6, chain.n))
    for i in range(chain.n):
        dq = np.zeros(chain.n)
        dq[i] = eps
        Mp, Mm = chain.fk(q + dq), chain.fk(q - dq)
        J[:3, i] = (Mp.translation - Mm.translation) / (2 * eps)
        J[3:, i] = pin.log3(Mp.rotation @ Mm.rotation.T) / (2 * eps)
    return J


BIMANUAL_CHAINS = [
    ("torso_link", "left_ee"),
    ("torso_link", "right_ee"),
    ("base_link", "torso_link"),
    ("base_link", "right_link_2"),  # torso + right arm: non-contiguous DOF columns (0, 8, 9)
    ("left_link_2", "left_ee"),  # base moved by joints outside the chain
]


# ------------------------------------------------------------------ structure vs the URDF
@pytest.mark.parametrize(("base", "tip"), BIMANUAL_CHAINS)
def test_bimanual_chain_structure_matches_urdf(bimanual, base: str, tip: str) -> None:
    chain = bimanual.chain(base, tip)
    urdf = urdf_file("bimanual")
    joints = parse_joints(urdf)
    expected = path_joints(urdf, base, tip)
    assert chain.joint_names == expected
    assert chain.n == len(expected)
    np.testing.assert_array_equal(chain.lower, [joints[j].lower for j in expected])
    np.testing.assert_array_equal(chain.upper, [joints[j].upper for j in expected])
    np.testing.assert_array_equal(chain.velocity_limit, [joints[j].velocity for j in expected])
    np.testing.assert_array_equal(chain.effort_limit, [joints[j].effort for j in expected])
    assert chain.dof_indices.tolist() == [bimanual.joint_v_index(j) for j in expected]
    assert chain.base == base and chain.tip == tip and chain.name == f"{base}->{tip}"


@pytest.mark.parametrize(("base", "tip"), BIMANUAL_CHAINS)
def test_bimanual_fk_jacobian_match_robot_model(bimanual, base: str, tip: str) -> None:
    chain = bimanual.chain(base, tip, name="c")
    for _ in range(3):
        q = _random_chain_q(chain)
        M_exp, J_exp = _expected(bimanual, chain, q)
        M, J = chain.fk_jacobian(q)
        np.testing.assert_allclose(M.homogeneous, M_exp.homogeneous, atol=1e-12)
        np.testing.assert_allclose(J, J_exp, atol=1e-12)
        np.testing.assert_allclose(chain.fk(q).homogeneous, M_exp.homogeneous, atol=1e-12)
        np.testing.assert_allclose(chain.jacobian(q), J_exp, atol=1e-12)
        np.testing.assert_allclose(J, _fd_jacobian(chain, q), atol=1e-6)


def test_baxter_left_arm_matches_urdf_and_robot_model() -> None:
    robot = need_example_robot("baxter")
    chain = robot.chain("torso", "left_gripper", name="left_arm")
    urdf = urdf_file("baxter")
    expected = path_joints(urdf, "torso", "left_gripper")
    assert chain.joint_names == expected == [f"left_{s}" for s in ("s0", "s1", "e0", "e1", "w0", "w1", "w2")]
    joints = parse_joints(urdf)
    np.testing.assert_array_equal(chain.lower, [joints[j].lower for j in expected])
    np.testing.assert_array_equal(chain.upper, [joints[j].upper for j in expected])
    q = _random_chain_q(chain)
    M_exp, J_exp = _expected(robot, chain, q)
    M, J = chain.fk_jacobian(q)
    np.testing.assert_allclose(M.homogeneous, M_exp.homogeneous, atol=1e-12)
    np.testing.assert_allclose(J, J_exp, atol=1e-12)
    np.testing.assert_allclose(J, _fd_jacobian(chain, q), atol=1e-6)


# ------------------------------------------------------------------ whole arms equal the whole robot
@pytest.mark.parametrize(("name", "base", "tip"), [("ur5", "world", "tool0"), ("xarm7", "world", "link_eef")])
def test_first_to_last_link_equals_full_robot(name: str, base: str, tip: str) -> None:
    robot = need_example_robot(name)
    assert robot.link_names[0] == base and robot.link_names[-1] == tip
    chain = robot.chain(base, tip)
    assert chain.n == robot.nv
    rng = np.random.default_rng(7)
    for _ in range(3):
        q = pin.randomConfiguration(robot.model, -np.full(robot.nq, 3.0), np.full(robot.nq, 3.0))
        rng.shuffle(q)  # any values, not only Pinocchio's sampler
        robot.update(q)
        oMb, oMt = robot.frame_placement(base), robot.frame_placement(tip)
        J = robot.frame_jacobian(tip)
        R = oMb.rotation
        M_exp = pin.SE3(R.T @ oMt.rotation, R.T @ (oMt.translation - oMb.translation))
        M, Jc = chain.fk_jacobian(q)
        np.testing.assert_allclose(M.homogeneous, M_exp.homogeneous, atol=1e-12)
        np.testing.assert_allclose(Jc, np.vstack((R.T @ J[:3], R.T @ J[3:])), atol=1e-12)


# ------------------------------------------------------------------ continuous joints
def test_kinova_continuous_angles_of_any_size() -> None:
    robot = need_example_robot("kinova")
    chain = robot.chain("j2s6s200_link_base", "j2s6s200_end_effector")
    assert chain.continuous.tolist() == [True, False, False, True, False, True]
    assert np.isinf(chain.lower[chain.continuous]).all() and np.isinf(chain.upper[chain.continuous]).all()
    q = _random_chain_q(chain)
    q[chain.continuous] = [7.0, -9.5, 12.25]
    shift = np.where(chain.continuous, 2 * math.pi, 0.0)
    M0, J0 = chain.fk_jacobian(q)
    for k in (-2, -1, 1, 3):
        Mk, Jk = chain.fk_jacobian(q + k * shift)
        np.testing.assert_allclose(Mk.homogeneous, M0.homogeneous, atol=1e-12)
        np.testing.assert_allclose(Jk, J0, atol=1e-12)
    M_exp, J_exp = _expected(robot, chain, q)  # RobotModel at q_from_dof (cos/sin of 7 rad ...)
    np.testing.assert_allclose(M0.homogeneous, M_exp.homogeneous, atol=1e-12)
    np.testing.assert_allclose(J0, J_exp, atol=1e-12)
    np.testing.assert_allclose(J0, _fd_jacobian(chain, q), atol=1e-6)
    Mu, Ju = chain.fk_jacobian_unchecked(q)  # cos/sin written by the unchecked path too
    np.testing.assert_allclose(Mu.homogeneous, M_exp.homogeneous, atol=1e-12)
    np.testing.assert_allclose(Ju, J_exp, atol=1e-12)


# ------------------------------------------------------------------ rest, offset, isolation
def test_rest_of_outside_joints_does_not_move_tip_in_base(bimanual) -> None:
    chain = bimanual.chain("torso_link", "left_ee")
    q = _random_chain_q(chain)
    M0, J0 = chain.fk_jacobian(q)
    rest = RNG.uniform(-1.0, 1.0, bimanual.nv)  # moves the torso (the chain base) and the right arm
    chain.rest = rest
    np.testing.assert_array_equal(chain.rest, rest)
    M1, J1 = chain.fk_jacobian(q)
    M_exp, J_exp = _expected(bimanual, chain, q, rest)
    np.testing.assert_allclose(M1.homogeneous, M_exp.homogeneous, atol=1e-12)
    np.testing.assert_allclose(J1, J_exp, atol=1e-12)
    np.testing.assert_allclose(M1.homogeneous, M0.homogeneous, atol=1e-12)
    np.testing.assert_allclose(J1, J0, atol=1e-12)


def test_default_rest_is_neutral_clipped_to_limits() -> None:
    robot = need_example_robot("panda")  # panda_joint4 has limits [-3.07, -0.07]: neutral 0 is outside
    chain = robot.chain("panda_link0", "panda_link3")
    j4 = robot.joint_v_index("panda_joint4")
    assert chain.rest[j4] == pytest.approx(parse_joints(urdf_file("panda"))["panda_joint4"].upper)


def test_tip_offset_moves_point_and_jacobian(bimanual) -> None:
    off = pin.SE3(pin.exp3(np.array([0.3, -0.2, 0.5])), np.array([0.05, -0.1, 0.2]))
    plain = bimanual.chain("torso_link", "left_ee")
    tool = bimanual.chain("torso_link", "left_ee", tip_offset=off)
    q = _random_chain_q(plain)
    M_tool, J_tool = tool.fk_jacobian(q)
    np.testing.assert_allclose(M_tool.homogeneous, plain.fk(q).homogeneous @ off.homogeneous, atol=1e-12)
    np.testing.assert_allclose(tool.fk(q).homogeneous, M_tool.homogeneous, atol=1e-12)
    np.testing.assert_allclose(J_tool, _fd_jacobian(tool, q), atol=1e-6)
    assert np.abs(J_tool[:3] - plain.jacobian(q)[:3]).max() > 1e-3  # the offset really changes it
    np.testing.assert_allclose(J_tool[3:], plain.jacobian(q)[3:], atol=1e-12)
    tool.tip_offset = None
    np.testing.assert_allclose(tool.jacobian(q), plain.jacobian(q), atol=1e-15)


@pytest.mark.parametrize(("base", "tip"), BIMANUAL_CHAINS)
def test_fk_jacobian_unchecked_equals_checked(bimanual, base: str, tip: str) -> None:
    chain = bimanual.chain(base, tip)
    tool = bimanual.chain(base, tip, tip_offset=pin.SE3(np.eye(3), np.array([0.05, -0.1, 0.2])))
    for c in (chain, tool):
        q1, q2 = _random_chain_q(c), _random_chain_q(c)
        M1, J1 = c.fk_jacobian_unchecked(q1)
        saved = M1.homogeneous.copy(), J1.copy()
        M2, J2 = c.fk_jacobian_unchecked(q2)  # never writes into the first results
        np.testing.assert_array_equal(M1.homogeneous, saved[0])
        np.testing.assert_array_equal(J1, saved[1])
        M_exp, J_exp = c.fk_jacobian(q2)
        np.testing.assert_allclose(M2.homogeneous, M_exp.homogeneous, atol=1e-14)
        np.testing.assert_allclose(J2, J_exp, atol=1e-14)
        assert J2.shape == (6, c.n)
    M_exp, J_exp = _expected(bimanual, chain, q1)  # the oracle for one unchecked call
    M, J = chain.fk_jacobian_unchecked(q1)
    np.testing.assert_allclose(M.homogeneous, M_exp.homogeneous, atol=1e-12)
    np.testing.assert_allclose(J, J_exp, atol=1e-12)


def test_whole_robot_chain_unchecked_matches_robot_model() -> None:
    """Base at the world origin and every DOF in the chain: Pinocchio's results are passed through."""
    robot = load_robot("lwr4")
    chain = robot.chain(robot.root_link, "lwr_ee")
    assert chain.n == robot.nv
    q = _random_chain_q(chain)
    M_exp, J_exp = _expected(robot, chain, q)
    M, J = chain.fk_jacobian_unchecked(q)
    np.testing.assert_allclose(M.homogeneous, M_exp.homogeneous, atol=1e-12)
    np.testing.assert_allclose(J, J_exp, atol=1e-12)
    J[:] = 99.0
    assert not np.any(chain.fk_jacobian_unchecked(q)[1] == 99.0)


ONE_DOF_URDF = (
    '<robot name="one"><link name="base_link"/>'
    '<joint name="j0" type="revolute"><parent link="base_link"/><child link="l0"/><axis xyz="0 0 1"/>'
    '<limit lower="-1" upper="1" velocity="1" effort="1"/></joint>'
    '<link name="l0"><inertial><mass value="1"/><origin xyz="0.25 0 0"/>'
    '<inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>'
    '<joint name="tip_joint" type="fixed"><parent link="l0"/><child link="tip"/><origin xyz="0.5 0 0"/>'
    '</joint><link name="tip"/></robot>'
)


@pytest.mark.parametrize("offset", [0.0, 0.2])
def test_one_dof_robot_gives_6x1_jacobians(offset: float) -> None:
    """nv = 1: Pinocchio returns the Jacobian as a 6-vector; the chain's is 6×1 (closed form)."""
    robot = RobotModel.from_urdf(ONE_DOF_URDF)
    assert robot.nv == 1
    chain = robot.chain("base_link", "tip", tip_offset=pin.SE3(np.eye(3), np.array([offset, 0.0, 0.0])))
    for q in (-0.7, 0.2, 0.9):
        r = 0.5 + offset
        J_exp = np.array([[-r * math.sin(q)], [r * math.cos(q)], [0.0], [0.0], [0.0], [1.0]])
        qv = np.array([q])
        for J in (chain.jacobian(qv), chain.fk_jacobian(qv)[1], chain.fk_jacobian_unchecked(qv)[1]):
            assert J.shape == (6, 1)
            np.testing.assert_allclose(J, J_exp, atol=1e-12)
        p_exp = [r * math.cos(q), r * math.sin(q), 0.0]
        np.testing.assert_allclose(chain.fk(qv).translation, p_exp, atol=1e-12)


def test_chain_never_touches_robot_state(bimanual) -> None:
    bimanual.update(np.zeros(bimanual.nq))
    state, placement = bimanual.state_id, bimanual.frame_placement("left_ee").homogeneous.copy()
    chain = bimanual.chain("torso_link", "left_ee")
    chain.fk_jacobian(_random_chain_q(chain))
    chain.rest = np.ones(bimanual.nv)
    assert bimanual.state_id == state
    np.testing.assert_array_equal(bimanual.frame_placement("left_ee").homogeneous, placement)
    np.testing.assert_array_equal(bimanual.q, np.zeros(bimanual.nq))


def test_outputs_are_new_arrays(bimanual) -> None:
    chain = bimanual.chain("base_link", "torso_link")  # identity base: the copy-only path
    q = np.array([0.3])
    M1, J1 = chain.fk_jacobian(q)
    J1[:] = 99.0
    M1.translation = np.full(3, 99.0)
    M2, J2 = chain.fk_jacobian(q)
    assert not np.any(J2 == 99.0) and not np.any(M2.translation == 99.0)


def test_clip_and_full_vectors(bimanual) -> None:
    chain = bimanual.chain("torso_link", "left_ee")
    q = np.full(chain.n, 10.0)
    urdf = parse_joints(urdf_file("bimanual"))
    np.testing.assert_array_equal(chain.clip(q), [urdf[j].upper for j in chain.joint_names])
    dof = chain.full_dof(np.arange(chain.n, dtype=float))
    for i, j in enumerate(chain.joint_names):
        assert dof[bimanual.joint_v_index(j)] == i
    np.testing.assert_allclose(chain.full_q(np.arange(chain.n, dtype=float)), bimanual.q_from_dof(dof))


# ------------------------------------------------------------------ iKin pose vector
def test_pose7_matches_scipy_rotvec_and_round_trips(bimanual) -> None:
    for _ in range(20):
        M = pin.SE3.Random()
        p = pose7_from_se3(M)
        rotvec = Rotation.from_matrix(M.rotation).as_rotvec()
        np.testing.assert_allclose(p[:3], M.translation, atol=1e-15)
        np.testing.assert_allclose(p[3:6] * p[6], rotvec, atol=1e-9)
        assert abs(np.linalg.norm(p[3:6]) - 1.0) < 1e-12 and 0.0 <= p[6] <= math.pi
        np.testing.assert_allclose(se3_from_pose7(p).homogeneous, M.homogeneous, atol=1e-12)
    ident = pose7_from_se3(pin.SE3(np.eye(3), np.array([1.0, 2.0, 3.0])))
    np.testing.assert_array_equal(ident, [1.0, 2.0, 3.0, 0.0, 0.0, 1.0, 0.0])
    R_pi = Rotation.from_rotvec([0.0, math.pi, 0.0]).as_matrix()
    p = pose7_from_se3(pin.SE3(R_pi, np.zeros(3)))
    assert p[6] == pytest.approx(math.pi) and abs(abs(p[4]) - 1.0) < 1e-9
    chain = bimanual.chain("torso_link", "left_ee")
    q = _random_chain_q(chain)
    np.testing.assert_allclose(
        se3_from_pose7(chain.pose7(q)).homogeneous, chain.fk(q).homogeneous, atol=1e-12
    )
    # a non-unit axis is normalised
    np.testing.assert_allclose(
        se3_from_pose7([0, 0, 0, 0, 0, 2.0, 0.5]).rotation, Rotation.from_rotvec([0, 0, 0.5]).as_matrix()
    )


def test_se3_from_pose7_rejects_bad_vectors() -> None:
    with pytest.raises(InvalidValueError, match="zero rotation axis"):
        se3_from_pose7([0, 0, 0, 0, 0, 0, 1.0])
    with pytest.raises(InvalidValueError):
        se3_from_pose7([0, 0, 0, 0, 0, 1.0])
    with pytest.raises(InvalidValueError):
        se3_from_pose7([0, 0, math.nan, 0, 0, 1.0, 0.0])


# ------------------------------------------------------------------ bad input
def test_unknown_frames_are_named(bimanual) -> None:
    with pytest.raises(UnknownNameError, match="left_eee") as err:
        bimanual.chain("torso_link", "left_eee")
    assert "left_ee" in err.value.suggestions
    with pytest.raises(UnknownNameError, match="torso_lnk"):
        bimanual.chain("torso_lnk", "left_ee")
    with pytest.raises(KeyError):
        bimanual.chain(3, "left_ee")


@pytest.mark.parametrize(
    ("base", "tip", "pattern"),
    [
        ("left_ee", "torso_link", "not below base"),  # reversed
        ("left_link_3", "right_ee", "not below base"),  # another branch
        ("left_link_7", "left_ee", "empty chain"),  # fixed joint only
        ("left_ee", "left_ee", "empty chain"),
    ],
)
def test_bad_paths_raise_with_names(bimanual, base: str, tip: str, pattern: str) -> None:
    with pytest.raises(ConfigError, match=pattern) as err:
        bimanual.chain(base, tip)
    assert base in str(err.value) and tip in str(err.value)


def test_multi_dof_joint_in_path_is_rejected() -> None:
    robot = load_robot("bimanual", floating_base=True)
    with pytest.raises(ConfigError, match="1-DOF"):
        robot.chain("universe", "left_ee")
    assert robot.chain("base_link", "left_ee").n == 8  # below the free-flyer is fine


@pytest.mark.parametrize(
    "bad",
    [np.zeros(6), np.zeros(8), np.zeros((7, 1)), [0, 0, 0, math.nan, 0, 0, 0], [math.inf] + [0] * 6, "abc"],
    ids=["short", "long", "2d", "nan", "inf", "text"],
)
def test_bad_q_raises_and_leaves_chain_unchanged(bimanual, bad) -> None:
    chain = bimanual.chain("torso_link", "left_ee")
    q = _random_chain_q(chain)
    M0, J0 = chain.fk_jacobian(q)
    rest0 = chain.rest
    for method in (chain.fk, chain.jacobian, chain.fk_jacobian, chain.pose7, chain.clip, chain.full_dof):
        with pytest.raises(InvalidValueError, match="q_chain"):
            method(bad)
    np.testing.assert_array_equal(chain.rest, rest0)
    M1, J1 = chain.fk_jacobian(q)
    np.testing.assert_array_equal(M1.homogeneous, M0.homogeneous)
    np.testing.assert_array_equal(J1, J0)


def test_bad_rest_and_offset_leave_chain_unchanged(bimanual) -> None:
    chain = bimanual.chain("torso_link", "left_ee")
    rest0, off0 = chain.rest, chain.tip_offset
    with pytest.raises(InvalidValueError, match="rest"):
        chain.rest = np.zeros(3)
    with pytest.raises(InvalidValueError, match="rest"):
        chain.rest = np.full(bimanual.nv, math.nan)
    with pytest.raises(InvalidValueError, match="tip_offset"):
        chain.tip_offset = np.eye(4)
    np.testing.assert_array_equal(chain.rest, rest0)
    assert chain.tip_offset == off0
