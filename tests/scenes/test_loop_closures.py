"""``scene.add_loop_closure``: two frames held at their relative placement (6d) or position (3d).

Oracles: Pinocchio's ``RigidConstraintModel`` between the same two frames — its constraint Jacobian,
placement error and, for the same τ and Baumgarte gains, ``constraintDynamics``'s q̈ and multiplier λ
(the loop wrench of the inverse-dynamics scene); finite differences of J q̇ along q ⊕ t v for the drift;
raw Pinocchio's frame placements over a closed loop integrated for many steps (the relative placement
stays put).
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pinocchio as pin
import pytest

from wbcpy import load_robot
from wbcpy.contacts.loop_closure import LoopClosure
from wbcpy.errors import ConfigError, ConfigKeyError, StateNotSetError, UnknownNameError
from wbcpy.scenes import AccelerationScene, InverseDynamicsScene, VelocityScene
from wbcpy.scenes.joint_command import NoSolutionError
from wbcpy.tasks import JointReference

LOCAL = pin.ReferenceFrame.LOCAL
HANDS = ("left_ee", "right_ee")


def _pin_constraint(robot, loop: LoopClosure) -> pin.RigidConstraintModel:
    model = robot.model
    fa, fb = (model.frames[model.getFrameId(f)] for f in (loop.frame_a, loop.frame_b))
    kind = pin.ContactType.CONTACT_6D if loop.size == 6 else pin.ContactType.CONTACT_3D
    cm = pin.RigidConstraintModel(kind, model, fa.parentJoint, fa.placement, fb.parentJoint,
                                  fb.placement * loop.b_M_c, LOCAL)  # fmt: skip
    T = loop.time_constant
    if hasattr(cm, "corrector"):  # Pinocchio 3
        cm.corrector.Kp[:], cm.corrector.Kd[:] = 1 / T**2, 2 / T
    else:
        cm.setBaumgarteCorrectorParameters(pin.BaumgarteCorrectorParameters(1 / T**2, 2 / T))
    return cm


def _forward(robot, loop, q, v, tau_full):
    """Pinocchio's rigid-constraint forward dynamics: (q̈, λ, constraint Jacobian, placement error)."""
    model = robot.model
    data = model.createData()
    cms = pin.StdVec_RigidConstraintModel()
    cms.append(_pin_constraint(robot, loop))
    cds = pin.StdVec_RigidConstraintData()
    cds.append(cms[0].createData())
    pin.initConstraintDynamics(model, data, cms, cds)
    qdd = pin.constraintDynamics(model, data, q, v, tau_full, cms, cds, pin.ProximalSettings(1e-12, 0.0, 1))
    J = pin.getConstraintJacobian(model, data, cms[0], cds[0])
    return np.array(qdd), np.array(data.lambda_c), J, np.array(cds[0].contact_placement_error.vector)


def _relative(robot, q, a: str, b: str) -> pin.SE3:
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, q)
    return data.oMf[robot.model.getFrameId(a)].actInv(data.oMf[robot.model.getFrameId(b)])


# ---------------------------------------------------------------------------------------- the rows
@pytest.mark.parametrize("kind", ["6d", "3d"])
def test_rows_are_pinocchios_constraint_and_the_drift_its_derivative(kind: str) -> None:
    robot = load_robot("lwr4", floating_base=True)
    model = robot.model
    rng = np.random.default_rng(3)
    q = pin.normalize(model, pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq)))
    v = rng.standard_normal(model.nv)
    robot.update(q, v)
    loop = LoopClosure(robot, "lwr_ee", "lwr_link_3", kind)
    q2 = pin.integrate(model, q, 0.1 * rng.standard_normal(model.nv))  # the loop now off by a little
    robot.update(q2, v)
    _, _, J, err = _forward(robot, loop, q2, v, np.zeros(model.nv))
    np.testing.assert_allclose(loop.jacobian(robot), J, atol=1e-12)
    np.testing.assert_allclose(loop.error(robot), err[: loop.size], atol=1e-12)
    eps = 1e-6

    def Jv(qq: np.ndarray) -> np.ndarray:
        robot.update(qq, v)
        return loop.jacobian(robot) @ v

    fd = (Jv(pin.integrate(model, q2, eps * v)) - Jv(pin.integrate(model, q2, -eps * v))) / (2 * eps)
    robot.update(q2, v)
    if kind == "3d":  # the origins' relative classical acceleration in a's axes: d/dt(J q̇) + ω_a × J q̇
        omega_a = robot.frame_placement("lwr_ee").rotation.T @ (robot.frame_jacobian("lwr_ee")[3:] @ v)
        fd = fd + np.cross(omega_a, loop.jacobian(robot) @ v)
    np.testing.assert_allclose(loop.drift(robot), fd, atol=1e-7)


# ---------------------------------------------------------------------------------------- closed loops
def _pose_task_scene(cls, robot, **options):
    scene = cls(robot, **options)
    scene.configure([
        {"name": "torso", "type": "jnt", "joint_names": ["torso_joint"]},
        {"name": "posture", "type": "jnt", "joint_names": robot.joint_names, "priority": 1},
    ])  # fmt: skip
    return scene


@pytest.mark.parametrize("kind", ["6d", "3d"])
def test_a_velocity_scene_keeps_the_hands_together(kind: str) -> None:
    robot = load_robot("bimanual")
    q = np.linspace(-0.4, 0.5, robot.nv)
    robot.update(q)
    scene = _pose_task_scene(VelocityScene, robot, dt=0.01)
    scene.add_loop_closure(*HANDS, kind)
    start = _relative(robot, q, *HANDS)
    for k in range(300):  # the torso turns 0.6 rad and back: the arms must follow together
        robot.update(q)
        scene.set_reference("torso", JointReference(velocity=[2.0 * np.cos(k * 0.02)]))
        scene.set_reference("posture", JointReference(velocity=np.zeros(robot.nv)))
        scene.solve(scene.update())
        q = pin.integrate(robot.model, q, scene.get_solver_output_raw() * 0.01)
    rel = _relative(robot, q, *HANDS)
    assert abs(q[0] - np.linspace(-0.4, 0.5, robot.nv)[0]) > 0.2  # it moved
    np.testing.assert_allclose(rel.translation, start.translation, atol=1e-5)
    if kind == "6d":
        assert np.linalg.norm(pin.log3(rel.rotation @ start.rotation.T)) < 1e-5


@pytest.mark.parametrize("kind", ["6d", "3d"])
def test_an_acceleration_scene_keeps_the_hands_together(kind: str) -> None:
    robot = load_robot("bimanual")
    q, v, dt = np.linspace(-0.4, 0.5, robot.nv), np.zeros(robot.nv), 0.005
    robot.update(q, v)
    scene = _pose_task_scene(AccelerationScene, robot, dt=dt)
    scene.add_loop_closure(*HANDS, kind)
    start = _relative(robot, q, *HANDS)
    for k in range(400):
        robot.update(q, v)
        scene.set_reference("torso", JointReference(acceleration=[20.0 * np.sin(k * dt * 5)]))
        scene.set_reference("posture", JointReference(acceleration=-5.0 * v))
        scene.solve(scene.update())
        v = v + dt * scene.get_solver_output_raw()
        q = pin.integrate(robot.model, q, v * dt)
    rel = _relative(robot, q, *HANDS)
    np.testing.assert_allclose(rel.translation, start.translation, atol=1e-4)
    if kind == "6d":
        assert np.linalg.norm(pin.log3(rel.rotation @ start.rotation.T)) < 1e-4


@pytest.mark.parametrize("kind", ["6d", "3d"])
def test_inverse_dynamics_q_ddot_and_loop_wrench_are_constraint_dynamics(kind: str, example_robot) -> None:
    """A floating UR5 hanging from its tool, welded (6d) or pinned (3d) to the world: the loop carries its
    weight, so λ is determined by the equations of motion — and equal to Pinocchio's multiplier. (A
    floating model whose first body is massless, such as the shipped lwr4, has a singular M.)"""
    robot = example_robot("ur5", floating_base=True)
    model = robot.model
    q = pin.normalize(model, pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq)))
    rng = np.random.default_rng(1)
    robot.update(q, np.zeros(model.nv))
    scene = InverseDynamicsScene(robot)
    arm = robot.joint_names[1:]
    scene.configure([{"name": "posture", "type": "jnt", "joint_names": arm}])
    name = scene.add_loop_closure("tool0", "universe", kind)
    loop = scene.loop_closures[0]
    q2 = pin.integrate(model, q, 1e-3 * rng.standard_normal(model.nv))  # drift and motion to correct
    v = 0.2 * rng.standard_normal(model.nv)
    robot.update(q2, v)
    scene.set_reference("posture", JointReference(rng.standard_normal(len(arm))))
    cmd = scene.solve(scene.update())
    lam = scene.get_loop_wrenches()[name]
    tau = np.concatenate((np.zeros(6), cmd.effort))
    qdd, lam_pin, _, _ = _forward(robot, loop, q2, v, tau)
    np.testing.assert_allclose(scene.get_solver_output_raw(), qdd, atol=1e-7 * (1 + np.abs(qdd).max()))
    np.testing.assert_allclose(lam, lam_pin, atol=1e-6 * (1 + np.abs(lam_pin).max()))
    weight = robot.total_mass * 9.81
    assert np.linalg.norm(lam[:3]) > 0.5 * weight  # (it does carry the arm)
    assert scene.get_contact_wrenches() == {}


# ---------------------------------------------------------------------------------------- bad inputs
def test_bad_loops_are_refused_and_change_nothing() -> None:
    robot = load_robot("bimanual")
    scene = VelocityScene(robot)
    with pytest.raises(StateNotSetError):
        scene.add_loop_closure(*HANDS)
    robot.update(np.zeros(robot.nv))
    name = scene.add_loop_closure(*HANDS, "3d", name="grip")
    cases = [
        (("left_eee", "right_ee"), {}, ConfigKeyError, "frame_a"),
        (("left_ee", 3), {}, ConfigError, "frame_b"),
        (HANDS, {"kind": "5d"}, ConfigKeyError, "kind"),
        (("left_ee", "left_ee_joint"), {}, ConfigError, "frame_b"),  # one body
        (HANDS, {"time_constant": 0.0}, ConfigError, "time_constant"),
        (HANDS, {"time_constant": np.nan}, ConfigError, "time_constant"),
        (HANDS, {"name": "grip"}, ConfigError, "name"),
        (HANDS, {"name": ""}, ConfigError, "name"),
    ]
    for args, kwargs, error, field in cases:
        with pytest.raises(error) as info:
            scene.add_loop_closure(*args, **kwargs)
        assert info.value.field == field, (args, kwargs)
    assert [lp.name for lp in scene.loop_closures] == [name] == ["grip"]
    with pytest.raises(UnknownNameError):
        scene.remove_loop_closure("gripp")
    scene.remove_loop_closure("grip")
    assert scene.loop_closures == []


def test_loop_wrenches_before_a_solve_and_after_removal() -> None:
    robot = load_robot("lwr4", floating_base=True)
    robot.update(robot.neutral(), np.zeros(robot.nv))
    scene = InverseDynamicsScene(robot)
    scene.configure([{"name": "posture", "type": "jnt", "joint_names": robot.joint_names[1:]}])
    name = scene.add_loop_closure("lwr_ee", "universe")
    with pytest.raises(NoSolutionError):
        scene.get_loop_wrenches()
    scene.set_reference("posture", JointReference(np.zeros(7)))
    scene.solve(scene.update())
    assert list(scene.get_loop_wrenches()) == [name]
    assert scene.update().variable_names[-6:] == [f"{name}:{a}" for a in ("fx", "fy", "fz", "tx", "ty", "tz")]
    scene.remove_loop_closure(name)
    robot.update(robot.neutral(), np.zeros(robot.nv))
    scene.solve(scene.update())  # (a free floating arm now: it falls)
    assert scene.get_loop_wrenches() == {}
    assert scene.get_solver_output_raw()[2] == pytest.approx(-9.81, abs=1e-6)


def test_copies_and_pickles_keep_the_loop() -> None:
    robot = load_robot("bimanual")
    q = np.linspace(-0.4, 0.5, robot.nv)
    robot.update(q)
    scene = _pose_task_scene(VelocityScene, robot, dt=0.01)
    scene.add_loop_closure(*HANDS)
    scene.set_reference("torso", JointReference(velocity=[1.0]))
    scene.set_reference("posture", JointReference(velocity=np.zeros(robot.nv)))
    scene.solve(scene.update())
    answer = scene.get_solver_output_raw()
    for other in (copy.deepcopy(scene), pickle.loads(pickle.dumps(scene))):
        other.robot.update(q)
        other.solve(other.update())
        np.testing.assert_allclose(other.get_solver_output_raw(), answer, atol=1e-9)
        other.remove_loop_closure(other.loop_closures[0].name)
        assert len(scene.loop_closures) == 1
    J = pin.computeFrameJacobian  # (the hands' relative twist of the answer is zero)
    data = robot.model.createData()
    ja, jb = (J(robot.model, data, q, robot.model.getFrameId(f), pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)
              for f in HANDS)  # fmt: skip
    np.testing.assert_allclose(ja[3:] @ answer, jb[3:] @ answer, atol=1e-7)


def test_an_inverse_dynamics_copy_keeps_its_loop_variables(example_robot) -> None:
    robot = example_robot("ur5", floating_base=True)
    q = robot.neutral()
    q[7:] = (0.3, -1.0, 1.2, -0.5, 0.4, 0.2)
    robot.update(q, np.zeros(robot.nv))
    scene = InverseDynamicsScene(robot)
    scene.configure([{"name": "posture", "type": "jnt", "joint_names": robot.joint_names[1:]}])
    name = scene.add_loop_closure("tool0", "universe", "3d")
    scene.set_reference("posture", JointReference(np.zeros(6)))
    scene.solve(scene.update())
    wrench = scene.get_loop_wrenches()[name]
    for other in (copy.deepcopy(scene), pickle.loads(pickle.dumps(scene))):
        other.robot.update(q, np.zeros(robot.nv))
        other.solve(other.update())
        np.testing.assert_allclose(other.get_loop_wrenches()[name], wrench, atol=1e-8)
        other.remove_loop_closure(name)
        assert scene.loop_closures and not other.loop_closures
