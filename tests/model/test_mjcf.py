"""MJCF robots: RobotModel.from_mjcf and load_robot("robot.xml") against MuJoCo's own model of the file
(mj_fullM, qfrc_bias, body and site placements), keyframes, gravity, bad files."""

from __future__ import annotations

import copy
import pickle
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

from wbcpy import RobotModel, load_robot
from wbcpy.errors import MJCFError, URDFNotFoundError

mujoco = pytest.importorskip("mujoco", reason="MuJoCo is the oracle (pip install 'wbcpy[mujoco]')")

DATA = Path(__file__).resolve().parents[1] / "data" / "mjcf"
FILES = ["floating_arm.xml", "two_hinges.xml"]


def _mj_state(robot: RobotModel, mj, q: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """MuJoCo's qpos, qvel of Pinocchio's (q, v), written here from the conventions table."""
    model = robot.model
    qpos, qvel = np.zeros(mj.nq), np.zeros(mj.nv)
    for jid in range(1, model.njoints):
        name, joint = model.names[jid], model.joints[jid]
        iq, iv = joint.idx_q, joint.idx_v
        if "FreeFlyer" in joint.shortname():
            j = mj.joint(name)
            a, d = int(j.qposadr[0]), int(j.dofadr[0])
            x, y, z, w = q[iq + 3 : iq + 7]
            qpos[a : a + 7] = [*q[iq : iq + 3], w, x, y, z]
            R = pin.Quaternion(w, x, y, z).toRotationMatrix()
            qvel[d : d + 6] = [*(R @ v[iv : iv + 3]), *v[iv + 3 : iv + 6]]
        elif "Spherical" in joint.shortname():
            j = mj.joint(name)
            a, d = int(j.qposadr[0]), int(j.dofadr[0])
            x, y, z, w = q[iq : iq + 4]
            qpos[a : a + 4] = [w, x, y, z]
            qvel[d : d + 3] = v[iv : iv + 3]
        else:
            names = [name]
            if name.startswith("Composite_"):
                body = mj.joint(name.removeprefix("Composite_")).bodyid[0]
                names = [
                    mj.joint(k).name
                    for k in range(mj.body_jntadr[body], mj.body_jntadr[body] + mj.body_jntnum[body])
                ]
            for k, n in enumerate(names):
                j = mj.joint(n)
                qpos[j.qposadr[0]], qvel[j.dofadr[0]] = q[iq + k], v[iv + k]
    return qpos, qvel


def _velocity_map(robot: RobotModel, mj, q: np.ndarray) -> np.ndarray:
    """T with v_mj = T v_pin (a free joint's linear block is its rotation R, the rest a permutation)."""
    T = np.zeros((mj.nv, robot.nv))
    for i in range(robot.nv):
        e = np.zeros(robot.nv)
        e[i] = 1.0
        T[:, i] = _mj_state(robot, mj, q, e)[1]
    return T


@pytest.mark.parametrize("name", FILES)
def test_dynamics_and_placements_equal_mujocos(name: str) -> None:
    path = DATA / name
    robot = RobotModel.from_mjcf(path)
    mj = mujoco.MjModel.from_xml_path(str(path))
    data = mujoco.MjData(mj)
    rng = np.random.default_rng(3)
    assert robot.nv == mj.nv and robot.total_mass == pytest.approx(mujoco.mj_getTotalmass(mj), rel=1e-12)
    for _ in range(5):
        q = pin.integrate(robot.model, pin.neutral(robot.model), rng.uniform(-1, 1, robot.nv))
        v = rng.normal(size=robot.nv)
        data.qpos[:], data.qvel[:] = _mj_state(robot, mj, q, v)
        mujoco.mj_forward(mj, data)
        robot.update(q, v)
        T = _velocity_map(robot, mj, q)
        M_mj = np.zeros((mj.nv, mj.nv))
        mujoco.mj_fullM(mj, data, M_mj)
        # kinetic energy vᵀMv is the same in both coordinates: M_pin = Tᵀ M_mj T (armature included)
        np.testing.assert_allclose(robot.mass_matrix(), T.T @ M_mj @ T, atol=1e-10)
        # bias forces: h_pin = Tᵀ (qfrc_bias + M_mj ȧ) with ȧ the MuJoCo acceleration of a_pin = 0
        a0 = _mj_state(robot, mj, q, np.zeros(robot.nv))[1]
        if robot.floating_base:
            a0[:3] = T[:3, :3] @ np.cross(v[3:6], v[:3])
        np.testing.assert_allclose(robot.nonlinear_effects(), T.T @ (data.qfrc_bias + M_mj @ a0), atol=1e-9)
        for b in range(1, mj.nbody):
            body = mj.body(b).name
            np.testing.assert_allclose(robot.frame_placement(body).translation, data.xpos[b], atol=1e-12)
            np.testing.assert_allclose(
                robot.frame_placement(body).rotation, data.xmat[b].reshape(3, 3), atol=1e-12
            )
        for s in range(mj.nsite):
            site = mj.site(s).name
            np.testing.assert_allclose(robot.frame_placement(site).translation, data.site_xpos[s], atol=1e-12)
            np.testing.assert_allclose(
                robot.frame_placement(site).rotation, data.site_xmat[s].reshape(3, 3), atol=1e-12
            )


def test_joint_kinds_armature_sites_keyframes_gravity() -> None:
    robot = RobotModel.from_mjcf(DATA / "floating_arm.xml")
    shorts = [robot.model.joints[j].shortname() for j in range(1, robot.model.njoints)]
    assert "FreeFlyer" in shorts[0] and "Spherical" in shorts[2] and robot.floating_base
    assert robot.nq == 7 + 1 + 4 + 1 and robot.nv == 6 + 1 + 3 + 1
    np.testing.assert_allclose(robot.model.armature[6:], [0.1, 0.05, 0.05, 0.05, 0.2])
    assert {"tool", "elbow_site"} <= set(robot.frame_names)
    assert robot.model.frames[robot.frame_id("tool")].type == pin.FrameType.OP_FRAME
    np.testing.assert_allclose(robot.model.gravity.linear, [0.3, -0.2, -9.6])
    # the keyframe's quaternions in Pinocchio's order (x, y, z, w)
    bent = robot.reference_configuration("bent")
    np.testing.assert_allclose(bent[3:7], [0, 0.3826834, 0, 0.9238795], atol=1e-7)
    np.testing.assert_allclose(bent[8:12], [0.7071068, 0, 0, 0.7071068], atol=1e-7)
    assert robot.mjcf_path == (DATA / "floating_arm.xml").resolve() and robot.urdf_path is None
    composite = RobotModel.from_mjcf(DATA / "two_hinges.xml")
    assert composite.dof_names == ["Composite_j1:0", "Composite_j1:1", "j3"]
    np.testing.assert_allclose(composite.reference_configuration("home"), [0.1, 0.2, 0.3])


def test_load_robot_takes_mjcf_paths_and_refuses_urdf_options() -> None:
    robot = load_robot(str(DATA / "two_hinges.xml"))
    assert robot.name == "two_hinges" and robot.mjcf_path is not None
    assert load_robot(DATA / "two_hinges.xml", name="chain").name == "chain"
    with pytest.raises(MJCFError, match="floating_base"):
        load_robot(DATA / "two_hinges.xml", floating_base=True)


def test_copies_and_pickles_keep_the_mjcf_path() -> None:
    robot = RobotModel.from_mjcf(DATA / "floating_arm.xml")
    for other in (robot.copy(), copy.deepcopy(robot), pickle.loads(pickle.dumps(robot))):
        assert other.mjcf_path == robot.mjcf_path and other.nq == robot.nq


def test_bad_files(tmp_path: Path) -> None:
    with pytest.raises(URDFNotFoundError):
        RobotModel.from_mjcf(tmp_path / "missing.xml")
    (tmp_path / "bad.xml").write_text("<mujoco><worldbody>")
    with pytest.raises(MJCFError, match="malformed"):
        RobotModel.from_mjcf(tmp_path / "bad.xml")
    (tmp_path / "robot.xml").write_text("<robot name='r'><link name='a'/></robot>")
    with pytest.raises(MJCFError, match="root element"):
        RobotModel.from_mjcf(tmp_path / "robot.xml")
    (tmp_path / "grav.xml").write_text('<mujoco><option gravity="0 0 x"/><worldbody/></mujoco>')
    with pytest.raises(MJCFError, match="gravity"):
        RobotModel.from_mjcf(tmp_path / "grav.xml")
    with pytest.raises(MJCFError, match="folder"):
        RobotModel.from_mjcf(tmp_path)
