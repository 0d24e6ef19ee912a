"""PD laws: closed-form outputs, saturation, gain checks, and references built from scene tasks."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from _scene_helpers import lwr4, random_state, relative_angular_velocity

from wbcpy import AccelerationScene
from wbcpy.controllers import CartesianPD, ComPD, JointPD, pose_error
from wbcpy.errors import ConfigError, InvalidValueError
from wbcpy.tasks import CartesianReference, ComReference, JointReference, TaskConfig


def test_joint_pd_closed_form_and_saturation():
    pd = JointPD(kp=[4.0, 9.0], kd=2.0, kff=0.5)
    a = pd.compute([0.1, -0.2], [1.0, 0.0], [0.3, 0.2], [0.5, 0.5], [2.0, -2.0])
    np.testing.assert_allclose(a, [0.5 * 2 + 2 * (0.5 - 1) + 4 * 0.2, 0.5 * -2 + 2 * 0.5 + 9 * 0.4])
    assert pd.update is not None and JointPD.update is JointPD.compute
    sat = JointPD(kp=100.0, kd=0.0, max_acceleration=[10.0, 1.0])
    out = sat.compute([0.0, 0.0], [0.0, 0.0], [0.05, 0.05])  # raw (5, 5): the second axis limits
    np.testing.assert_allclose(out, [1.0, 1.0])
    assert np.all(np.abs(sat.compute([0, 0], [0, 0], [0.001, 0.002])) <= [10, 1])
    with pytest.raises(ConfigError):
        JointPD(kp=[1.0, 2.0, 3.0], kd=1.0).compute([0, 0], [0, 0], [1, 1])
    for bad in (
        {"kp": -1.0, "kd": 1.0},
        {"kp": np.nan, "kd": 1.0},
        {"kp": 1.0, "kd": 1.0, "max_acceleration": 0.0},
        {"kp": "a", "kd": 1.0},
        {"kp": [[1.0]], "kd": 1.0},
    ):
        with pytest.raises(ConfigError):
            JointPD(**bad)
    with pytest.raises(InvalidValueError):
        JointPD(1.0, 1.0).compute([0, 0], [0, 0, 0], [1, 1])


def test_cartesian_pd_uses_log3_rotation_error():
    rng = np.random.default_rng(50)
    M = pin.SE3.Random()
    Rd = M.rotation @ pin.exp3(np.array([0.1, -0.2, 0.3]))
    Md = pin.SE3(Rd, M.translation + np.array([0.01, 0.02, -0.03]))
    twist = rng.normal(size=6)
    pd = CartesianPD(kp=[1, 2, 3, 4, 5, 6], kd=3.0)
    a = pd.compute(M, twist, Md)
    # independent oracle: the rotation vector w with exp(w) M.R = R_d, world (left) convention
    w = pin.log3(Rd @ M.rotation.T)
    np.testing.assert_allclose(pin.exp3(w) @ M.rotation, Rd, atol=1e-12)
    expected = (
        np.array([1, 2, 3, 4, 5, 6]) * np.concatenate((Md.translation - M.translation, w)) - 3.0 * twist
    )
    np.testing.assert_allclose(a, expected, atol=1e-12)
    np.testing.assert_allclose(pose_error(Md, M)[:3], [0.01, 0.02, -0.03], atol=1e-12)
    sat = CartesianPD(kp=1000.0, kd=0.0, max_acceleration=1.0)
    assert np.max(np.abs(sat.compute(M, np.zeros(6), Md))) == pytest.approx(1.0)
    with pytest.raises(InvalidValueError):
        pd.compute(np.eye(4), twist, Md)
    with pytest.raises(ConfigError):
        CartesianPD(kp=[1.0, 2.0], kd=1.0)


def test_com_pd_closed_form():
    pd = ComPD(kp=25.0, kd=10.0)
    a = pd.compute([0, 0, 1], [0.1, 0, 0], [0.1, 0, 0.9], target_acceleration=[0, 0, 1])
    np.testing.assert_allclose(a, [25 * 0.1 - 10 * 0.1, 0.0, 25 * -0.1 + 1.0])
    with pytest.raises(ConfigError):
        ComPD(kp=[1, 1], kd=1)


def test_references_from_tasks_use_the_task_state():
    robot = lwr4()
    rng = np.random.default_rng(51)
    q, v = random_state(robot, rng)
    robot.update(q, v)
    scene = AccelerationScene(robot)
    names = ["lwr_joint_3", "lwr_joint_1"]
    scene.configure(
        [
            TaskConfig("ee", "cart", root="lwr_link_2", tip="lwr_ee", ref_frame="lwr_link_4"),
            TaskConfig("j", "jnt", joint_names=names),
            TaskConfig("com", "com"),
        ]
    )
    model, data = robot.model, robot.model.createData()
    pin.forwardKinematics(model, data, q, v)
    pin.updateFramePlacements(model, data)
    root, tip, ref = (model.getFrameId(n) for n in ("lwr_link_2", "lwr_ee", "lwr_link_4"))
    # Cartesian: pose and twist of the tip relative to the root, output rotated into ref_frame axes
    Md = pin.SE3(pin.exp3(np.array([0.0, 0.1, 0.0])), np.array([0.1, 0.2, 0.3]))
    pd = CartesianPD(kp=50.0, kd=5.0)
    cref = pd.reference(scene.get_task("ee"), Md)
    assert isinstance(cref, CartesianReference)
    M_rel = data.oMf[root].actInv(data.oMf[tip])

    def d_rel(t: float) -> np.ndarray:
        dd = model.createData()
        pin.framesForwardKinematics(model, dd, pin.integrate(model, q, v * t))
        return dd.oMf[root].actInv(dd.oMf[tip]).translation.copy()

    lin = (d_rel(1e-6) - d_rel(-1e-6)) / 2e-6
    twist = np.concatenate((lin, relative_angular_velocity(model, q, v, root, tip)))
    a_root = 50.0 * pose_error(Md, M_rel) - 5.0 * twist
    R = data.oMf[ref].rotation.T @ data.oMf[root].rotation
    np.testing.assert_allclose(cref.acceleration, np.concatenate((R @ a_root[:3], R @ a_root[3:])), atol=1e-6)
    # joint task: positions and velocities of the task joints in task order
    jref = JointPD(kp=4.0, kd=1.0).reference(scene.get_task("j"), [0.0, 0.0])
    idx = [robot.joint_v_index(n) for n in names]
    assert isinstance(jref, JointReference)
    np.testing.assert_allclose(jref.acceleration, -4.0 * q[idx] - v[idx])
    # COM task: raw Pinocchio COM and its velocity
    com_data = model.createData()
    c = pin.centerOfMass(model, com_data, q, v).copy()
    dc = com_data.vcom[0].copy()
    cref_com = ComPD(kp=9.0, kd=6.0).reference(scene.get_task("com"), np.zeros(3))
    assert isinstance(cref_com, ComReference)
    np.testing.assert_allclose(cref_com.acceleration, -9.0 * c - 6.0 * dc, atol=1e-12)
    for name, r in (("ee", cref), ("j", jref), ("com", cref_com)):
        scene.set_reference(name, r)  # the references fit their tasks
