"""Mimic joints (issue 28, part 3): one DOF per independent joint, the coupling everywhere.

Oracle: raw Pinocchio on the *uncoupled* two-joint model (the same URDF without ``<mimic>``), evaluated
at q = (q₁, 0.5 q₁ + 0.1), v = (v₁, 0.5 v₁): a quantity of the coupled robot is the uncoupled one with
the chain rule applied, G = [1, 0.5]ᵀ — Jacobians J G, M → Gᵀ M G, forces → Gᵀ f.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pinocchio as pin
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wbcpy import AccelerationScene, InverseDynamicsScene, RobotModel, VelocityScene
from wbcpy.collision import CollisionAvoidance, Obstacle, Sphere
from wbcpy.errors import ConfigError, ConfigKeyError, URDFWarning
from wbcpy.model._names import MimicJoint
from wbcpy.sim.contact_simulation import ContactSimulation
from wbcpy.tasks import CartesianReference, TaskConfig

M_, O_ = 0.5, 0.1
_INERTIA = '<inertia ixx="0.01" iyy="0.02" izz="0.03" ixy="0" ixz="0" iyz="0"/>'


def _link(name: str, mass: float, com: str, collision: str = "") -> str:
    return (
        f'<link name="{name}"><inertial><mass value="{mass}"/><origin xyz="{com}"/>{_INERTIA}</inertial>'
        f"{collision}</link>"
    )


_SPHERE = '<collision><origin xyz="0.5 0 0"/><geometry><sphere radius="0.02"/></geometry></collision>'


def _urdf(mimic: bool, follower_limit: str = 'lower="-2" upper="2"') -> str:
    tag = f'<mimic joint="j1" multiplier="{M_}" offset="{O_}"/>' if mimic else ""
    return f"""<robot name="mimic2">
  <link name="base"/>
  {_link("l1", 1.0, "0.25 0 0.05")}
  {_link("l2", 0.7, "0.2 0.03 0", _SPHERE)}
  <link name="tip"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>
    <limit lower="-2" upper="2" effort="10" velocity="2"/></joint>
  <joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/><origin xyz="0.5 0 0" rpy="0.3 0 0"/>
    <axis xyz="0 0.2 1"/><limit {follower_limit} effort="10" velocity="2"/>{tag}</joint>
  <joint name="jt" type="fixed"><parent link="l2"/><child link="tip"/><origin xyz="0.5 0 0"/></joint>
</robot>"""


G = np.array([[1.0], [M_]])
RAW = pin.buildModelFromXML(_urdf(False))


def _raw(q1: float, v1: float = 0.0) -> tuple[pin.Data, np.ndarray, np.ndarray]:
    """Raw Pinocchio data of the uncoupled model at the coupled state (kinematics and Jacobians)."""
    q, v = np.array([q1, M_ * q1 + O_]), np.array([v1, M_ * v1])
    data = RAW.createData()
    pin.forwardKinematics(RAW, data, q, v, np.zeros(2))
    pin.computeJointJacobians(RAW, data, q)
    pin.updateFramePlacements(RAW, data)
    return data, q, v


@pytest.fixture(scope="module")
def robot() -> RobotModel:
    return RobotModel.from_urdf(_urdf(True))


def test_one_dof_and_the_follower_listed(robot: RobotModel) -> None:
    assert robot.nv == robot.nq == 1
    assert robot.joint_names == ["j1"] and robot.dof_names == ["j1"]
    assert robot.mimic_joints == [MimicJoint("j2", "j1", M_, O_)]
    plain = RobotModel.from_urdf(_urdf(False))  # without <mimic>: unchanged, two joints
    assert plain.nv == 2 and plain.joint_names == ["j1", "j2"] and plain.mimic_joints == []
    assert plain.names.mimic_coupling is None


@settings(max_examples=30, deadline=None)
@given(q1=st.floats(-2.0, 2.0), v1=st.floats(-3.0, 3.0))
def test_tip_placement_and_jacobian_equal_raw_pinocchio_coupled(
    robot: RobotModel, q1: float, v1: float
) -> None:
    robot.update([q1], [v1])
    data, _, _ = _raw(q1, v1)
    fid = RAW.getFrameId("tip")
    expected = data.oMf[fid]
    placement = robot.frame_placement("tip")
    np.testing.assert_allclose(placement.translation, expected.translation, atol=1e-9)
    np.testing.assert_allclose(placement.rotation, expected.rotation, atol=1e-9)
    J2 = pin.getFrameJacobian(RAW, data, fid, pin.LOCAL_WORLD_ALIGNED)
    np.testing.assert_allclose(robot.frame_jacobian("tip"), J2 @ G, atol=1e-9)
    bias = pin.getFrameClassicalAcceleration(RAW, data, fid, pin.LOCAL_WORLD_ALIGNED).vector
    np.testing.assert_allclose(robot.frame_bias("tip"), bias, atol=1e-9)


@settings(max_examples=20, deadline=None)
@given(q1=st.floats(-2.0, 2.0), v1=st.floats(-3.0, 3.0))
def test_dynamics_and_com_are_the_coupled_ones(robot: RobotModel, q1: float, v1: float) -> None:
    robot.update([q1], [v1])
    _, q, v = _raw(q1, v1)
    data = RAW.createData()
    M2 = pin.crba(RAW, data, q)
    M2 = np.triu(M2) + np.triu(M2, 1).T
    M = G.T @ M2 @ G
    np.testing.assert_allclose(robot.mass_matrix(), M, atol=1e-9)
    np.testing.assert_allclose(robot.inverse_mass_matrix(), np.linalg.inv(M), rtol=1e-9)
    # h: the generalised force of the motion q̈₁ = 0, i.e. q̈ = G·0, with the coupled velocity
    h = G.T @ pin.rnea(RAW, data, q, v, np.zeros(2))
    np.testing.assert_allclose(robot.nonlinear_effects(), h, atol=1e-9)
    np.testing.assert_allclose(robot.gravity(), G.T @ pin.computeGeneralizedGravity(RAW, data, q), atol=1e-9)
    np.testing.assert_allclose(robot.com(), pin.centerOfMass(RAW, data, q), atol=1e-9)
    np.testing.assert_allclose(robot.com_jacobian(), pin.jacobianCenterOfMass(RAW, data, q) @ G, atol=1e-9)


def test_follower_limits_narrow_the_leader() -> None:
    # j2 ∈ [-0.4, 0.6] with q2 = 0.5 q1 + 0.1  ⇔  q1 ∈ [-1, 1]; |q̇2| ≤ 0.5 ⇔ |q̇1| ≤ 1
    robot = RobotModel.from_urdf(
        _urdf(True, 'lower="-0.4" upper="0.6"').replace('velocity="2"/><mimic', 'velocity="0.5"/><mimic')
    )
    np.testing.assert_allclose(robot.dof_lower_limit, [-1.0])
    np.testing.assert_allclose(robot.dof_upper_limit, [1.0])
    np.testing.assert_allclose(robot.velocity_limit, [1.0])
    with pytest.warns(URDFWarning, match="no position"):  # needs q1 ≥ 2.8 > 2: j1 keeps [-2, 2]
        contradictory = RobotModel.from_urdf(_urdf(True, 'lower="1.5" upper="1.9"'))
    np.testing.assert_allclose(contradictory.dof_upper_limit, [2.0])


def _leader_mimics_its_child() -> str:
    """j1 mimics j2, which comes after it in the tree: Pinocchio refuses that order."""
    text = _urdf(False)
    return text.replace('velocity="2"/></joint>', 'velocity="2"/><mimic joint="j2"/></joint>', 1)


@pytest.mark.parametrize(
    ("urdf", "match"),
    [
        (_urdf(True).replace('mimic joint="j1"', 'mimic joint="j3"'), "unknown joint 'j3'"),
        (_urdf(True).replace('mimic joint="j1"', 'mimic joint="j2"'), "itself"),
        (_urdf(True).replace('name="j1" type="revolute"', 'name="j1" type="continuous"'), "continuous"),
        (_leader_mimics_its_child(), "not in the kinematic tree"),
    ],
)
def test_mimic_joints_pinocchio_cannot_couple_load_as_before_with_a_warning(urdf: str, match: str) -> None:
    """Before issue 28 every URDF loaded with independent joints; one whose mimic joints cannot be
    coupled (bad target, a continuous joint, an order Pinocchio refuses) still does, with a warning."""
    with pytest.warns(URDFWarning, match=match):
        robot = RobotModel.from_urdf(urdf)
    assert robot.nv == 2 and robot.mimic_joints == []


def test_chain_and_scenes_see_the_coupled_robot(robot: RobotModel) -> None:
    chain = robot.chain("base", "tip")
    assert chain.joint_names == ["j1"]
    q1, v1 = 0.4, -0.8
    data, _, _ = _raw(q1, v1)
    J = pin.getFrameJacobian(RAW, data, RAW.getFrameId("tip"), pin.LOCAL_WORLD_ALIGNED) @ G
    np.testing.assert_allclose(chain.jacobian([q1]), J, atol=1e-9)
    bias = pin.getFrameClassicalAcceleration(RAW, data, RAW.getFrameId("tip"), pin.LOCAL_WORLD_ALIGNED).vector
    robot.update([q1], [v1])
    a_x = 0.7  # tip x acceleration asked (one DOF: the x row alone is met exactly)
    for kind in (AccelerationScene, InverseDynamicsScene):
        scene = kind(robot)
        scene.configure([TaskConfig(name="tip", type="cart", tip="tip", weights=[1, 0, 0, 0, 0, 0])])
        scene.set_reference("tip", CartesianReference(np.array([a_x, 0, 0, 0, 0, 0])))
        scene.solve(scene.update())
        np.testing.assert_allclose(scene.get_solver_output_raw(), [(a_x - bias[0]) / J[0, 0]], rtol=1e-6)
    with pytest.raises(ConfigKeyError):
        scene.set_joint_weights({"j2": 0.5})  # a follower has no DOF
    with pytest.raises(ConfigKeyError):
        scene.configure([TaskConfig(name="p", type="jnt", joint_names=["j2"])])
    with pytest.raises(ConfigError, match="mimic"):
        ContactSimulation(robot, [], [q1])


def test_collision_rows_use_the_coupled_jacobian(robot: RobotModel) -> None:
    """The sphere on l2 vs a ball: the row is ∂d/∂q₁ of the closed-form distance of the coupled robot."""
    ball = Obstacle("ball", Sphere(0.05), pin.SE3(np.eye(3), np.array([0.8, 0.5, 0.1])))

    def distance(q1: float) -> float:
        data, _, _ = _raw(q1)
        centre = data.oMf[RAW.getFrameId("l2")].act(np.array([0.5, 0.0, 0.0]))
        return float(np.linalg.norm(centre - ball.placement.translation) - 0.07)

    scene = VelocityScene(robot, dt=0.01)
    scene.configure([TaskConfig(name="tip", type="cart", tip="tip")])
    scene.set_collision_avoidance(CollisionAvoidance(obstacles=[ball], influence_distance=1.0))
    q1 = 0.3
    robot.update([q1])
    scene.set_reference("tip", CartesianReference(twist=np.zeros(6)))
    level = scene.update().levels[0]
    h = 1e-6
    np.testing.assert_allclose(level.C[0, 0], (distance(q1 + h) - distance(q1 - h)) / (2 * h), atol=1e-7)
    assert scene.collision.status()[0].distance == pytest.approx(distance(q1), abs=1e-7)


def test_cli_info_shows_the_follower(tmp_path) -> None:
    path = tmp_path / "mimic2.urdf"
    path.write_text(_urdf(True), encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "wbcpy", "info", str(path)], capture_output=True, text=True,
                         check=True).stdout  # fmt: skip
    assert "1 DOF" in out and "= 0.5·j1 + 0.1" in out
