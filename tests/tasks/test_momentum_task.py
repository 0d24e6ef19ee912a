"""The ``momentum`` task: rows against Pinocchio's centroidal map and finite differences, in the three
scenes (achieved ḣ / h from raw Pinocchio; Newton's law for the contact scene), MomentumPD, scene files."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from _contact_oracle import talos_half_sitting
from _id_helpers import SOLES, actuated_joints

from wbcpy import AccelerationScene, InverseDynamicsScene, VelocityScene, load_robot
from wbcpy.contacts import SurfaceContact
from wbcpy.controllers import MomentumPD
from wbcpy.errors import ConfigError
from wbcpy.scenes import load_scene_file
from wbcpy.tasks import MomentumReference, TaskConfig

G0 = 9.81


def _momentum(model, q, v):
    data = model.createData()
    return pin.computeCentroidalMomentum(model, data, q, v).vector.copy()


@pytest.fixture(scope="module")
def talos():
    return talos_half_sitting()


def _state(robot, seed=3):
    rng = np.random.default_rng(seed)
    q = pin.randomConfiguration(robot.model, -np.ones(robot.nq), np.ones(robot.nq))
    q[:3] = rng.normal(size=3)
    q[3:7] = pin.Quaternion(pin.SE3.Random().rotation).coeffs()
    return q, rng.normal(size=robot.nv)


def test_rows_match_the_centroidal_map_and_finite_differences(talos):
    robot, _ = talos
    q, v = _state(robot)
    robot.update(q, v)
    scene = AccelerationScene(robot)
    scene.configure([TaskConfig(name="h", type="momentum")])
    task = scene.get_task("h")
    task.compute()
    Ag = pin.computeCentroidalMap(robot.model, robot.model.createData(), q)
    np.testing.assert_allclose(task.A, Ag, atol=1e-10)
    np.testing.assert_allclose(task.position(), _momentum(robot.model, q, v), atol=1e-9)
    # ḣ = A q̈ + bias: the momentum along q(t) = q ⊕ (v t + a t²/2), v(t) = v + a t, differentiated
    a = np.random.default_rng(1).normal(size=robot.nv)
    h = 1e-6

    def mom(t):
        return _momentum(robot.model, pin.integrate(robot.model, q, v * t + 0.5 * a * t * t), v + a * t)

    fd = (mom(h) - mom(-h)) / (2 * h)
    np.testing.assert_allclose(task.A @ a + task.bias, fd, atol=1e-5 * (1 + np.abs(fd).max()))


def test_acceleration_scene_realises_the_rate():
    robot = load_robot("lwr4")
    q = np.array([0.3, 0.6, -0.2, -1.1, 0.4, 0.8, 0.1])
    v = np.array([0.2, -0.1, 0.3, 0.2, -0.4, 0.1, 0.5])
    robot.update(q, v)
    scene = AccelerationScene(robot, regularization=1e-12)  # (λ trades ~1e-5 of ḣ on this arm at 1e-8)
    scene.configure([TaskConfig(name="h", type="momentum", weights=[1, 1, 1, 1, 1, 1])])
    data = robot.model.createData()
    dAg = pin.computeCentroidalMapTimeVariation(robot.model, data, q, v)
    # a rate the arm can produce with moderate q̈ (A_G of a fixed-base arm is poorly conditioned)
    rate = data.Ag @ np.array([1.0, -0.5, 0.3, 0.8, -0.2, 0.4, 0.6]) + dAg @ v
    scene.set_reference("h", MomentumReference(rate=rate))
    scene.solve(scene.update())
    qdd = scene.get_solver_output_raw()
    np.testing.assert_allclose(data.Ag @ qdd + dAg @ v, rate, atol=1e-6)


def test_velocity_scene_realises_the_momentum():
    robot = load_robot("lwr4")
    q = np.array([0.3, 0.6, -0.2, -1.1, 0.4, 0.8, 0.1])
    robot.update(q, np.zeros(7))
    scene = VelocityScene(robot, regularization=1e-12)
    scene.configure([TaskConfig(name="h", type="momentum")])
    Ag = pin.computeCentroidalMap(robot.model, robot.model.createData(), q)
    target = Ag @ np.array([0.2, 0.1, -0.1, 0.3, 0.2, -0.1, 0.1])  # a momentum q̇ ~ 0.3 rad/s reaches
    scene.set_reference("h", MomentumReference(momentum=target))
    scene.solve(scene.update())
    qd = scene.get_solver_output_raw()
    np.testing.assert_allclose(_momentum(robot.model, q, qd), target, atol=1e-6)


def test_inverse_dynamics_damps_angular_momentum_and_obeys_newton(talos):
    """Talos standing, moving: the angular rows reach ḣ* = −k_d k (MomentumPD, h_d = 0) and the linear
    rate equals m g + the contact forces (world axes), both from raw Pinocchio."""
    robot, q0 = talos
    v = np.zeros(robot.nv)
    v[6:] = 0.2 * np.random.default_rng(2).normal(size=robot.nv - 6)
    # keep the soles at rest: project v on the contact null space
    data = robot.model.createData()
    pin.computeJointJacobians(robot.model, data, q0)
    pin.updateFramePlacements(robot.model, data)
    J = np.vstack(
        [pin.getFrameJacobian(robot.model, data, robot.model.getFrameId(f), pin.LOCAL) for f in SOLES]
    )
    v = v - np.linalg.pinv(J) @ (J @ v)
    robot.update(q0, v)
    scene = InverseDynamicsScene(robot, effort_limits=True)
    scene.set_contacts([SurfaceContact(f, half_size=(0.1, 0.065), mu=0.3) for f in SOLES])
    joints = actuated_joints(robot)
    scene.configure(
        [
            {"name": "h", "type": "momentum", "weights": [0, 0, 0, 1, 1, 1]},
            {"name": "posture", "type": "jnt", "joint_names": joints, "weights": [1e-3] * len(joints)},
        ]
    )
    law = MomentumPD(kd=5.0)
    ref = law.reference(scene.get_task("h"))
    hk = _momentum(robot.model, q0, v)
    np.testing.assert_allclose(ref.rate, -5.0 * hk, atol=1e-9)
    scene.set_reference("h", ref)
    from wbcpy.tasks import JointReference

    scene.set_reference("posture", JointReference(np.zeros(len(joints))))
    scene.solve(scene.update())
    qdd = scene.get_solver_output_raw()
    dAg = pin.computeCentroidalMapTimeVariation(robot.model, data, q0, v)
    hdot = data.Ag @ qdd + dAg @ v
    np.testing.assert_allclose(hdot[3:], -5.0 * hk[3:], atol=1e-5 * (1 + np.abs(hk).max()))
    pin.framesForwardKinematics(robot.model, data, q0)
    force = np.zeros(3)
    for f, w in scene.get_contact_wrenches().items():
        force += data.oMf[robot.model.getFrameId(f)].rotation @ w[:3]
    mass = robot.total_mass
    np.testing.assert_allclose(hdot[:3], force + mass * np.array([0, 0, -G0]), atol=1e-6 * mass * G0)


def test_reference_synonyms_and_errors():
    ref = MomentumReference(rate=[1, 2, 3, 4, 5, 6])
    assert ref.acceleration == ref.rate and ref.velocity is None
    with pytest.raises(ConfigError):
        TaskConfig(name="h", type="momentum", weights=[1, 1, 1])
    with pytest.raises(ConfigError):
        MomentumPD(kd=-1.0)


def test_scene_file_with_a_momentum_task():
    """A YAML scene (here a mapping) with ``type: momentum``, MomentumPD's kd and a zero target: the arm's
    angular momentum decays about as e^{−kd t} (raw Pinocchio on the simulated states)."""
    q0 = [0.3, 0.6, -0.2, -1.1, 0.4, 0.8, 0.1]
    v0 = [0.2, -0.1, 0.3, 0.2, -0.4, 0.1, 0.5]
    doc = {
        "robot": "lwr4", "q0": q0, "v0": v0, "steps": 200, "dt": 0.001,
        "tasks": [
            {"name": "h", "type": "momentum", "weights": [0, 0, 0, 1, 1, 1], "kp": 0, "kd": 5,
             "target": [0, 0, 0, 0, 0, 0]},
            {"name": "posture", "type": "jnt", "weights": [1e-3] * 7, "kp": 0, "kd": 0,
             "joint_names": [f"lwr_joint_{i}" for i in range(1, 8)]},
        ],
    }  # fmt: skip
    from wbcpy.sim.simulation import SceneSimulation

    setup = load_scene_file(doc)
    sim = SceneSimulation(setup)
    sim.run()
    k0 = _momentum(setup.robot.model, np.array(q0), np.array(v0))[3:]
    k1 = _momentum(setup.robot.model, sim.q, sim.v)[3:]
    ratio = np.linalg.norm(k1) / np.linalg.norm(k0)
    assert ratio == pytest.approx(np.exp(-5 * 0.2), rel=0.05)
