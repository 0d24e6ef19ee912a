"""Velocity laws of wbcpy.controllers: ẋ_ref = K_ff ẋ_d + K_p e, with the PD laws' errors.

The rotation error is checked against scipy's rotation vector of R_d Rᵀ (an independent log₃), frames
against raw Pinocchio forward kinematics, and the closed loop against its closed-form contraction.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from wbcpy import VelocityScene, load_robot
from wbcpy.controllers import CartesianVelocityLaw, ComVelocityLaw, JointVelocityLaw
from wbcpy.errors import ConfigError, InvalidValueError
from wbcpy.tasks import TaskConfig

DT = 0.01


def _random_pose(rng: np.random.Generator) -> pin.SE3:
    return pin.SE3(Rotation.random(random_state=rng).as_matrix(), rng.normal(size=3))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 100_000))
def test_cartesian_law_is_gain_times_pose_error(seed: int) -> None:
    rng = np.random.default_rng(seed)
    pose, target = _random_pose(rng), _random_pose(rng)
    kp = rng.uniform(0.1, 10.0, size=6)
    vd = rng.normal(size=6)
    twist = CartesianVelocityLaw(kp=kp, kff=0.5).compute(pose, target, vd)
    rotvec = Rotation.from_matrix(target.rotation @ pose.rotation.T).as_rotvec()
    expected = 0.5 * vd + kp * np.concatenate((target.translation - pose.translation, rotvec))
    np.testing.assert_allclose(twist, expected, atol=1e-9)


def test_saturation_keeps_the_direction() -> None:
    law = JointVelocityLaw(kp=10.0, max_velocity=[1.0, 2.0, 0.5])
    out = law.compute([0.0, 0.0, 0.0], [1.0, -1.0, 0.02])
    raw = np.array([10.0, -10.0, 0.2])
    np.testing.assert_allclose(out, raw / 10.0)  # the first entry sets the scale: |10| / 1
    assert np.all(np.abs(out) <= [1.0, 2.0, 0.5])


def test_joint_and_com_references_from_the_robot_state() -> None:
    robot = load_robot("lwr4", floating_base=True)
    scene = VelocityScene(robot)
    scene.configure(
        [
            TaskConfig(name="j", type="jnt", joint_names=["lwr_joint_2", "lwr_joint_5"]),
            TaskConfig(name="com", type="com"),
        ]
    )
    q = pin.neutral(robot.model)
    q[[8, 11]] = [0.3, -0.4]  # lwr_joint_2 and lwr_joint_5 (after the free-flyer's 7 coordinates)
    robot.update(q)
    ref = JointVelocityLaw(kp=[2.0, 3.0]).reference(scene.get_task("j"), [0.5, 0.0], [0.1, 0.0], time=1.0)
    np.testing.assert_allclose(ref.velocity, [0.1 + 2.0 * 0.2, 3.0 * 0.4])
    assert ref.acceleration is None and ref.time == 1.0
    com = pin.centerOfMass(robot.model, robot.model.createData(), q)
    ref = ComVelocityLaw(kp=4.0).reference(scene.get_task("com"), com + np.array([0.01, 0.0, -0.02]))
    np.testing.assert_allclose(ref.velocity, [0.04, 0.0, -0.08], atol=1e-12)
    scene.set_reference("com", ref)  # accepted as it is by a velocity scene


def test_cartesian_reference_in_ref_frame_axes() -> None:
    robot = load_robot("lwr4")
    scene = VelocityScene(robot)
    scene.configure([TaskConfig(name="ee", type="cart", tip="lwr_ee", ref_frame="lwr_link_2")])
    q = np.array([0.3, 0.6, -0.2, -1.2, 0.3, 0.8, 0.1])
    robot.update(q)
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, q)
    pose = data.oMf[robot.model.getFrameId("lwr_ee")]  # the base is the world frame
    target = pin.SE3(
        pin.exp3(np.array([0.0, 0.2, 0.1])) @ pose.rotation, pose.translation + np.array([0.1, 0, 0])
    )
    ref = CartesianVelocityLaw(kp=2.0).reference(scene.get_task("ee"), target)
    R = data.oMf[robot.model.getFrameId("lwr_link_2")].rotation
    rotvec = Rotation.from_matrix(target.rotation @ pose.rotation.T).as_rotvec()
    expected = 2.0 * np.concatenate((R.T @ [0.1, 0.0, 0.0], R.T @ rotvec))
    np.testing.assert_allclose(ref.twist, expected, atol=1e-12)
    assert ref.pose is not target and np.allclose(ref.pose.homogeneous, target.homogeneous)


def test_closed_loop_contracts_by_one_minus_kp_dt() -> None:
    """A joint task alone: q_{k+1} − q_d = (1 − K_p dt/(1 + λ)) (q_k − q_d), exactly."""
    robot = load_robot("lwr4")
    scene = VelocityScene(robot, dt=DT, regularization=1e-8)
    scene.configure([TaskConfig(name="post", type="jnt", joint_names=robot.joint_names)])
    law, kp = JointVelocityLaw(kp=5.0), 5.0
    target = np.array([0.3, 0.6, -0.2, -1.2, 0.3, 0.8, 0.1])
    q = target + 0.05
    for _ in range(20):
        robot.update(q)
        scene.set_reference("post", law.reference(scene.get_task("post"), target))
        q_next = q + DT * scene.solve(scene.update()).velocity
        np.testing.assert_allclose(q_next - target, (1.0 - kp * DT / (1.0 + 1e-8)) * (q - target), atol=1e-15)
        q = q_next


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({"kp": -1.0}, "kp"), ({"kp": np.nan}, "kp"), ({"kp": 1.0, "kff": "x"}, "kff"),
     ({"kp": 1.0, "max_velocity": 0.0}, "max_velocity"), ({"kp": [1.0, 2.0]}, "kp")],
)  # fmt: skip
def test_bad_gains_raise(kwargs: dict, field: str) -> None:
    with pytest.raises(ConfigError) as info:
        CartesianVelocityLaw(**kwargs)
    assert info.value.field == field


def test_bad_inputs_raise() -> None:
    law = CartesianVelocityLaw(kp=1.0)
    with pytest.raises(InvalidValueError):
        law.compute(np.eye(4), pin.SE3.Identity())
    bad = pin.SE3.Identity()
    bad.translation = np.array([0.0, np.nan, 0.0])
    for args in ((pin.SE3.Identity(), bad), (bad, pin.SE3.Identity())):
        with pytest.raises(InvalidValueError):
            law.compute(*args)
    with pytest.raises(InvalidValueError):
        law.reference(None, bad)  # type: ignore[arg-type]  (checked before the task is read)
    with pytest.raises(InvalidValueError):
        law.compute(pin.SE3.Identity(), pin.SE3.Identity(), [0.0, 1.0])
    with pytest.raises(InvalidValueError):
        JointVelocityLaw(kp=1.0).compute([0.0, 0.0], [1.0])
    with pytest.raises(ConfigError):
        JointVelocityLaw(kp=[1.0, 2.0, 3.0]).compute([0.0, 0.0], [1.0, 1.0])
