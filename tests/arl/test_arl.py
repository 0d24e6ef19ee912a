"""Tests of the arl::robot::Model facade (wbcpy.arl) on the shipped bimanual robot and on Baxter.

Oracles: the URDF XML (xml.etree: joint paths, limits), the chain YAML read with PyYAML, and the whole
RobotModel's frame placements/Jacobians (configured from joint names), plus finite differences.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest
import yaml
from _urdf_oracle import need_example_robot, parse_joints, path_joints, urdf_file

from wbcpy import ConfigError, ConfigKeyError, InvalidValueError, UnknownNameError, load_robot
from wbcpy.arl import Model, lock_joints
from wbcpy.model.registry import shipped_robots_dir

BIMANUAL_YAML = shipped_robots_dir() / "bimanual_chains.yaml"
BAXTER_GRIPPERS = [
    "l_gripper_l_finger_joint",
    "l_gripper_r_finger_joint",
    "r_gripper_l_finger_joint",
    "r_gripper_r_finger_joint",
]
BAXTER_CHAINS = [
    ("left_arm", "torso", "left_gripper"),
    ("right_arm", "torso", "right_gripper"),
    ("head", "torso", "head"),
]


@pytest.fixture(scope="module")
def bimanual() -> Model:
    return Model.from_config(BIMANUAL_YAML)


@pytest.fixture(scope="module")
def baxter() -> Model:
    need_example_robot("baxter")
    return Model.from_urdf(
        urdf_file("baxter"), chains=BAXTER_CHAINS, main_chains=3, name="baxter", locked_joints=BAXTER_GRIPPERS
    )


def _check_against_urdf(model: Model, urdf: Path, specs: list[tuple[str, str, str]], n_main: int) -> None:
    """Counts, names, global indices and limits of ``model`` equal those read from the URDF XML."""
    joints = parse_joints(urdf)
    paths = [path_joints(urdf, base, tip) for _, base, tip in specs]
    global_names = [j for p in paths[:n_main] for j in p]
    assert model.getNrOfChains() == len(specs)
    assert model.getNrOfMainChains() == n_main
    assert model.getChainNames() == [s[0] for s in specs]
    assert model.getNrOfJoints() == len(global_names) == len(set(global_names))
    assert model.getJointNames() == global_names
    for g, name in enumerate(global_names):
        assert model.getJointName(g) == name
        assert model.getJointLimit(g) == (joints[name].lower, joints[name].upper)
        assert model.getJointLimit(name) == model.getJointLimit(g)
        assert model.getJointVelocityLimit(g) == joints[name].velocity
        assert model.getGlobalIndex(-1, g) == g
    np.testing.assert_array_equal(
        model.getJointLimits(), [[joints[j].lower, joints[j].upper] for j in global_names]
    )
    for c, ((cname, _, _), path) in enumerate(zip(specs, paths, strict=True)):
        assert model.chain_index[cname] == c and model.getChainName(c) == cname
        assert model.getNrOfJoints(c) == model.getNrOfJoints(cname) == len(path)
        assert model.getJointNames(c) == model.getJointNames(cname) == path
        np.testing.assert_array_equal(
            model.getJointLimits(cname), [[joints[j].lower, joints[j].upper] for j in path]
        )
        for j, name in enumerate(path):
            assert model.getJointName(c, j) == model.getJointName(cname, name) == name
            assert model.getGlobalIndex(c, j) == model.getGlobalIndex(cname, name) == global_names.index(name)
            assert model.getJointLimit(c, j) == (joints[name].lower, joints[name].upper)
            assert model.getJointVelocityLimit(cname, j) == joints[name].velocity


def _check_solvers(model: Model, robot_full, seed: int) -> None:
    """JntToCart/JntToJac of every chain equal the whole robot's placements and Jacobians in the base.

    ``robot_full`` is a RobotModel that contains every joint of ``model`` (it may have more, held at 0).
    """
    rng = np.random.default_rng(seed)
    for c, chain in enumerate(model.chain):
        names = model.getJointNames(c)
        lo = np.array([model.getJointLimit(c, j)[0] for j in range(len(names))])
        hi = np.array([model.getJointLimit(c, j)[1] for j in range(len(names))])
        q = rng.uniform(lo, hi)
        dof = np.clip(np.zeros(robot_full.nv), robot_full.dof_lower_limit, robot_full.dof_upper_limit)
        cols = [robot_full.joint_v_index(n) for n in names]
        dof[cols] = q
        robot_full.update_dof(dof)
        oMb, oMt = robot_full.frame_placement(chain.base), robot_full.frame_placement(chain.tip)
        R = oMb.rotation
        J = robot_full.frame_jacobian(chain.tip)[:, cols]
        M = model.fk_solver[c].JntToCart(q)
        np.testing.assert_allclose(M.homogeneous, oMb.actInv(oMt).homogeneous, atol=1e-12)
        np.testing.assert_allclose(
            model.jac_solver[c].JntToJac(q), np.vstack((R.T @ J[:3], R.T @ J[3:])), atol=1e-12
        )
        if c < 3:
            eps, Jfd = 1e-6, np.zeros((6, len(q)))
            for i in range(len(q)):
                dq = np.zeros(len(q))
                dq[i] = eps
                Mp, Mm = model.fk_solver[c].jnt_to_cart(q + dq), model.fk_solver[c].jnt_to_cart(q - dq)
                Jfd[:3, i] = (Mp.translation - Mm.translation) / (2 * eps)
                Jfd[3:, i] = pin.log3(Mp.rotation @ Mm.rotation.T) / (2 * eps)
            np.testing.assert_allclose(model.jac_solver[c].jnt_to_jac(q), Jfd, atol=1e-6)


# ------------------------------------------------------------------ acceptance 1
def test_bimanual_matches_urdf_and_config(bimanual: Model) -> None:
    cfg = yaml.safe_load(BIMANUAL_YAML.read_text())
    specs = [(c["name"], c["base"], c["tip"]) for c in cfg["chains"]]
    urdf = BIMANUAL_YAML.parent / cfg["urdf"]
    _check_against_urdf(bimanual, urdf, specs, cfg["main_chains"])
    assert bimanual.getName() == cfg["name"]
    assert bimanual.getNrOfJoints() == sum(j.type != "fixed" for j in parse_joints(urdf).values())


def test_bimanual_solvers_match_robot_model(bimanual: Model) -> None:
    _check_solvers(bimanual, load_robot(BIMANUAL_YAML.parent / "bimanual.urdf"), seed=1)


def test_baxter_matches_urdf(baxter: Model) -> None:
    _check_against_urdf(baxter, urdf_file("baxter"), BAXTER_CHAINS, 3)
    assert baxter.robot.nv == 15
    assert not set(BAXTER_GRIPPERS) & set(baxter.robot.joint_names)
    assert baxter.getJointNames("head") == ["head_pan"]


def test_baxter_solvers_match_full_robot(baxter: Model) -> None:
    # the oracle is the *full* Baxter (grippers present, at 0 = the value they were locked at)
    _check_solvers(baxter, load_robot("baxter"), seed=2)


def test_baxter_from_config_with_registry_name_and_locked_values() -> None:
    need_example_robot("baxter")
    locked = dict.fromkeys(BAXTER_GRIPPERS, 0.0)
    locked["l_gripper_l_finger_joint"] = 0.015
    cfg = {
        "robot": "baxter",
        "main_chains": 3,
        "chains": [{"name": n, "base": b, "tip": t} for n, b, t in BAXTER_CHAINS],
        "locked_joints": locked,
    }
    model = Model.from_config(cfg)
    assert model.getName() == "baxter" and model.robot.nv == 15
    full = load_robot("baxter")
    dof = np.zeros(full.nv)
    dof[full.joint_v_index("l_gripper_l_finger_joint")] = 0.015
    full.update_dof(dof)
    model.robot.update(np.zeros(model.robot.nq))
    np.testing.assert_allclose(
        model.robot.frame_placement("l_gripper_l_finger_tip").homogeneous,
        full.frame_placement("l_gripper_l_finger_tip").homogeneous,
        atol=1e-12,
    )


def test_camelcase_names_are_aliases() -> None:
    for camel, snake in [
        ("getName", "get_name"),
        ("getNrOfChains", "get_nr_of_chains"),
        ("getNrOfMainChains", "get_nr_of_main_chains"),
        ("getChainName", "get_chain_name"),
        ("getChainNames", "get_chain_names"),
        ("getNrOfJoints", "get_nr_of_joints"),
        ("getJointNames", "get_joint_names"),
        ("getJointName", "get_joint_name"),
        ("getJointLimit", "get_joint_limit"),
        ("getJointLimits", "get_joint_limits"),
        ("getJointVelocityLimit", "get_joint_velocity_limit"),
        ("getGlobalIndex", "get_global_index"),
    ]:
        assert getattr(Model, camel) is getattr(Model, snake)


def _cfg(**changes):
    cfg = yaml.safe_load(BIMANUAL_YAML.read_text())
    cfg["urdf"] = str(urdf_file("bimanual"))
    cfg.update(changes)
    return {k: v for k, v in cfg.items() if v is not None}


def test_floating_base_is_not_a_main_chain_dof() -> None:
    model = Model.from_config(_cfg(floating_base=True))
    assert model.robot.floating_base and model.robot.nv == 21
    assert model.getNrOfJoints() == 15
    assert model.test() is None


# ------------------------------------------------------------------ acceptance 4: bad input
TORSO = ("torso", "base_link", "torso_link")
LEFT = ("left_arm", "torso_link", "left_ee")
RIGHT = ("right_arm", "torso_link", "right_ee")


def test_overlapping_main_chains_name_the_joints() -> None:
    with pytest.raises(ConfigError, match="torso_joint") as err:
        Model.from_urdf("bimanual", [TORSO, ("left_all", "base_link", "left_ee"), RIGHT], main_chains=3)
    assert "torso" in str(err.value) and "left_all" in str(err.value)


def test_uncovered_dof_name_the_joints() -> None:
    with pytest.raises(ConfigError, match="right_joint_1, right_joint_2") as err:
        Model.from_urdf("bimanual", [TORSO, LEFT, RIGHT], main_chains=2)
    assert err.value.field == "main_chains"
    # the right arm is fine when locked away
    model = Model.from_urdf(
        "bimanual", [TORSO, LEFT], locked_joints=[f"right_joint_{i}" for i in range(1, 8)]
    )
    assert model.getNrOfJoints() == 8


@pytest.mark.parametrize(
    ("chains", "main", "exc", "pattern"),
    [
        ([TORSO, LEFT, ("right_arm", "torso_link", "right_eee")], 3, ConfigKeyError, "right_eee"),
        ([TORSO, LEFT, ("right_arm", "right_ee", "torso_link")], 3, ConfigError, "not below base"),
        ([TORSO, LEFT, ("left_arm", "torso_link", "right_ee")], 3, ConfigError, "duplicate chain name"),
        ([TORSO, LEFT, RIGHT], 4, ConfigError, "main_chains"),
        ([TORSO, LEFT, RIGHT], 0, ConfigError, "main_chains"),
        ([TORSO, LEFT, RIGHT], True, ConfigError, "main_chains"),
        ([], None, ConfigError, "chains"),
        ([("torso", "base_link")], None, ConfigError, "chains"),
    ],
)
def test_bad_chain_sets(chains, main, exc, pattern) -> None:
    with pytest.raises(exc, match=pattern):
        Model.from_urdf("bimanual", chains, main_chains=main)


def test_unknown_chain_and_joint_raise_and_leave_model_unchanged(bimanual: Model) -> None:
    before = (bimanual.getJointNames(), bimanual.getJointLimits(), bimanual.getChainNames())
    for chain in ("left_armm", 17, -2, 1.0, True, None):
        with pytest.raises(UnknownNameError):
            bimanual.getJointNames(chain) if chain is not None else bimanual.getChainName(chain)
    with pytest.raises(UnknownNameError, match="left_arm"):
        bimanual.getNrOfJoints("left_armm")
    for chain, joint in [("left_arm", 7), ("left_arm", "right_joint_1"), ("left_arm", -1), (1, "nope")]:
        with pytest.raises(UnknownNameError):
            bimanual.getJointLimit(chain, joint)
        with pytest.raises(KeyError):
            bimanual.getGlobalIndex(chain, joint)
        with pytest.raises(KeyError):
            bimanual.getJointName(chain, joint)
    for joint in (15, -1, "left_joint_9", 2.0):
        with pytest.raises(UnknownNameError):
            bimanual.getJointName(joint)
        with pytest.raises(UnknownNameError):
            bimanual.getJointLimit(joint)
    with pytest.raises(UnknownNameError):
        bimanual.getGlobalIndex(-1, 15)
    assert (bimanual.getJointNames(), bimanual.getChainNames()) == (before[0], before[2])
    np.testing.assert_array_equal(bimanual.getJointLimits(), before[1])


@pytest.mark.parametrize("bad", [np.zeros(6), [0.0] * 6 + [math.nan], [math.inf] * 7, np.zeros((7, 2))])
def test_solver_bad_q(bimanual: Model, bad) -> None:
    c = bimanual.chain_index["left_arm"]
    q = np.linspace(-0.5, 0.5, 7)
    M0 = bimanual.fk_solver[c].JntToCart(q)
    with pytest.raises(InvalidValueError, match="q_chain"):
        bimanual.fk_solver[c].JntToCart(bad)
    with pytest.raises(InvalidValueError, match="q_chain"):
        bimanual.jac_solver[c].JntToJac(bad)
    np.testing.assert_array_equal(bimanual.fk_solver[c].JntToCart(q).homogeneous, M0.homogeneous)


def test_joint_without_limits_raises() -> None:
    robot = need_example_robot("kinova")
    model = Model(robot, [("arm", "j2s6s200_link_base", "j2s6s200_end_effector")], name="kinova")
    with pytest.raises(InvalidValueError, match="j2s6s200_joint_1"):
        model.getJointLimit(0)
    with pytest.raises(InvalidValueError, match="j2s6s200_joint_1, j2s6s200_joint_4, j2s6s200_joint_6"):
        model.getJointLimits("arm")
    joints = parse_joints(urdf_file("kinova"))
    assert model.getJointLimit("arm", 1) == (
        joints["j2s6s200_joint_2"].lower,
        joints["j2s6s200_joint_2"].upper,
    )
    urdf = (
        '<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="continuous">'
        '<parent link="a"/><child link="b"/><axis xyz="0 0 1"/></joint></robot>'
    )
    bare = Model.from_urdf(urdf, [("c", "a", "b")])
    with pytest.raises(InvalidValueError, match="no velocity limit"):
        bare.getJointVelocityLimit("j")


# ------------------------------------------------------------------ configuration errors
@pytest.mark.parametrize(
    ("cfg", "exc", "pattern"),
    [
        (_cfg(extra=1), ConfigKeyError, "extra"),
        (_cfg(chains=None), ConfigError, "chains"),
        (_cfg(main_chains=None), ConfigError, "main_chains"),
        (_cfg(urdf=None), ConfigError, "urdf"),
        (_cfg(robot="bimanual"), ConfigError, "exactly one"),
        (_cfg(floating_base="yes"), ConfigError, "floating_base"),
        (_cfg(name=3), ConfigError, "name"),
        (_cfg(locked_joints=["nope"]), ConfigKeyError, "nope"),
        (_cfg(locked_joints=["left_joint_1", "left_joint_1"]), ConfigError, "twice"),
        (_cfg(locked_joints={"left_joint_1": 9.0}), ConfigError, "limits"),
        (_cfg(locked_joints={"left_joint_1": "a"}), ConfigError, "number"),
        (_cfg(locked_joints="left_joint_1"), ConfigError, "locked_joints"),
        (_cfg(chains=[{"name": "a", "base": "base_link"}]), ConfigError, "tip"),
        (_cfg(chains=[{"name": "a", "base": "base_link", "tip": "torso_link", "x": 1}]), ConfigKeyError, "x"),
    ],
)
def test_bad_configs(cfg, exc, pattern) -> None:
    with pytest.raises(exc, match=pattern):
        Model.from_config(cfg)


def test_bad_config_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such"):
        Model.from_config(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("chains: [unclosed\n")
    with pytest.raises(ConfigError, match="invalid YAML"):
        Model.from_config(bad)
    bad.write_text("- a\n- b\n")
    with pytest.raises(ConfigError, match="mapping"):
        Model.from_config(bad)
    with pytest.raises(ConfigError):
        Model.from_config(42)


def test_lock_joints_leaves_the_robot_unchanged() -> None:
    robot = load_robot("bimanual")
    reduced = lock_joints(robot, {"torso_joint": 0.4})
    assert robot.nv == 15 and reduced.nv == 14 and "torso_joint" not in reduced.joint_names
    assert lock_joints(robot, None) is robot and lock_joints(robot, []) is robot
    robot.update_dof(np.r_[0.4, np.zeros(14)])
    reduced.update(np.zeros(14))
    np.testing.assert_allclose(
        reduced.frame_placement("left_ee").homogeneous,
        robot.frame_placement("left_ee").homogeneous,
        atol=1e-12,
    )
