"""ContactSimulation: rigid-contact forward dynamics of given torques, semi-implicit Euler.

Oracles: the static equations of motion solved directly with raw Pinocchio (gravity compensation), the
closed form of a standing robot's contact forces (they carry the weight m g and balance its moment),
Pinocchio's crba / nonLinearEffects for free fall (q̈ = M⁻¹ (τ − h), the COM falls with g), and the
equations of motion and contact accelerations recomputed from raw Pinocchio for random states.
"""

from __future__ import annotations

import itertools

import numpy as np
import pinocchio as pin
import pytest
from _contact_oracle import contact_jacobian, rigid_contact_velocity, talos_half_sitting, talos_standing

from wbcpy import RobotModel, load_robot
from wbcpy.contacts.contacts import PointContact, SurfaceContact
from wbcpy.errors import ConfigError, InvalidValueError, UnknownNameError
from wbcpy.model.registry import example_robot_data_dir
from wbcpy.sim.contact_simulation import ContactSimulation

LOCAL = pin.ReferenceFrame.LOCAL
G0 = 9.81
SOLES = ("left_sole_link", "right_sole_link")


def soles(mu: float = 0.3) -> list[SurfaceContact]:
    return [SurfaceContact(f, half_size=(0.1, 0.065), mu=mu) for f in SOLES]


@pytest.fixture(scope="module")
def talos():
    return talos_half_sitting()


def yawed(model: pin.Model, q: np.ndarray, yaw: float) -> np.ndarray:
    """q with the free-flyer turned by ``yaw`` about the world z axis (the feet's axes turn too)."""
    out = q.copy()
    R = pin.utils.rotate("z", yaw) @ pin.Quaternion(q[6], q[3], q[4], q[5]).matrix()
    out[3:7] = pin.Quaternion(R).coeffs()
    out[:3] = pin.utils.rotate("z", yaw) @ q[:3]
    return out


def static_compensation(model: pin.Model, q: np.ndarray, frames: list[str], sizes: list[int]):
    """τ and contact wrenches (LOCAL) that hold q still: g = Sᵀτ + Σ J_cᵀ w_c, least-norm w from the
    unactuated rows (raw Pinocchio and numpy)."""
    g = pin.computeGeneralizedGravity(model, model.createData(), q)
    J = contact_jacobian(model, q, frames, sizes)
    w = np.linalg.lstsq(J[:, :6].T, g[:6], rcond=None)[0]
    tau = (g - J.T @ w)[6:]
    splits = np.cumsum([0, *sizes])
    return tau, [w[a:b] for a, b in itertools.pairwise(splits)]


def test_standing_talos_gravity_compensation_stays_still(talos) -> None:
    robot, q0 = talos
    model = robot.model
    q = yawed(model, q0, 0.7)  # the soles' axes are not the world's: catches frame errors
    tau, w_expected = static_compensation(model, q, list(SOLES), [6, 6])
    sim = ContactSimulation(robot, soles(), q)
    qdd, wrenches = sim.forward(q, np.zeros(model.nv), tau)
    np.testing.assert_allclose(qdd, 0.0, atol=1e-9)
    # the contact forces are the (unique) wrenches of the static solution, in the sole frames
    for frame, w in zip(SOLES, w_expected, strict=True):
        np.testing.assert_allclose(wrenches[frame], w, atol=1e-8)
    # closed form: they carry the weight and balance gravity's moment about the world origin
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    mass = sum(inertia.mass for inertia in model.inertias)
    force, moment = np.zeros(3), np.zeros(3)
    for frame in SOLES:
        oMf = data.oMf[model.getFrameId(frame)]
        f, t = oMf.rotation @ wrenches[frame][:3], oMf.rotation @ wrenches[frame][3:]
        force += f
        moment += np.cross(oMf.translation, f) + t
    np.testing.assert_allclose(force, [0.0, 0.0, mass * G0], rtol=1e-10, atol=1e-8)
    com = pin.centerOfMass(model, data, q)
    np.testing.assert_allclose(moment, -np.cross(com, [0.0, 0.0, -mass * G0]), atol=1e-8)
    for frame in SOLES:
        assert wrenches[frame][2] > 0.3 * mass * G0  # both feet push
    # one simulated second: nothing moves
    for _ in range(1000):
        sim.step(tau)
    assert np.abs(pin.difference(model, q, sim.q)).max() < 1e-8
    assert np.abs(sim.v).max() < 1e-7 and sim.time == pytest.approx(1.0)


def test_quadruped_on_four_point_contacts_carries_its_weight() -> None:
    if example_robot_data_dir() is None:
        pytest.skip("example-robot-data is not installed")
    robot = load_robot("solo12")
    model = robot.model
    q = pin.neutral(model)
    q[7:] = np.tile([0.0, 0.8, -1.6], 4)  # legs bent
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    feet = ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"]
    q[2] -= min(data.oMf[model.getFrameId(f)].translation[2] for f in feet)
    q = yawed(model, q, -0.4)
    tau, w_expected = static_compensation(model, q, feet, [3] * 4)
    sim = ContactSimulation(robot, [PointContact(f, mu=0.8) for f in feet], q)
    qdd, forces = sim.forward(q, np.zeros(model.nv), tau)
    np.testing.assert_allclose(qdd, 0.0, atol=1e-9)
    pin.framesForwardKinematics(model, data, q)
    mass = sum(inertia.mass for inertia in model.inertias)
    total = sum(data.oMf[model.getFrameId(f)].rotation @ forces[f] for f in feet)
    np.testing.assert_allclose(total, [0.0, 0.0, mass * G0], rtol=1e-10, atol=1e-9)
    assert all(forces[f].shape == (3,) for f in feet)
    # 12 point constraints on 12 leg joints: the forces are unique, equal to the static solution
    for f, w in zip(feet, w_expected, strict=True):
        np.testing.assert_allclose(forces[f], w, atol=1e-8)


def test_free_fall_without_contacts_is_aba(talos) -> None:
    robot, q = talos
    model = robot.model
    rng = np.random.default_rng(4)
    v = rng.normal(size=model.nv) * 0.3
    tau = rng.normal(size=model.nv - 6) * 5.0
    sim = ContactSimulation(robot, soles(), q, v)
    for frame in SOLES:
        sim.set_contact_active(frame, False)
    assert sim.active_frames == []
    qdd, wrenches = sim.forward(q, v, tau)
    data = model.createData()
    M = pin.crba(model, data, q)
    M = np.triu(M) + np.triu(M, 1).T
    h = pin.nonLinearEffects(model, data, q, v)
    np.testing.assert_allclose(qdd, np.linalg.solve(M, np.concatenate((np.zeros(6), tau)) - h), atol=1e-8)
    assert wrenches == {}
    # without torques and velocity every body falls with g: the COM accelerates at (0, 0, −g)
    qdd0, _ = sim.forward(q, np.zeros(model.nv), np.zeros(model.nv - 6))
    pin.centerOfMass(model, data, q, np.zeros(model.nv), qdd0)
    np.testing.assert_allclose(data.acom[0], [0.0, 0.0, -G0], atol=1e-10)


def test_random_state_satisfies_equations_of_motion_and_contacts(talos) -> None:
    robot, q0 = talos
    model = robot.model
    rng = np.random.default_rng(5)
    q = pin.integrate(model, q0, rng.normal(size=model.nv) * 0.05)
    contacts = [soles()[0], PointContact("gripper_right_base_link", mu=0.5)]
    v = rigid_contact_velocity(model, q, [c.frame for c in contacts], [6, 3], rng) * 0.5
    tau = rng.normal(size=model.nv - 6) * 20.0
    sim = ContactSimulation(robot, contacts, q, v)
    qdd, w = sim.forward(q, v, tau)
    data = model.createData()
    M = pin.crba(model, data, q)
    M = np.triu(M) + np.triu(M, 1).T
    h = pin.nonLinearEffects(model, data, q, v)
    pin.computeJointJacobians(model, data, q)
    pin.forwardKinematics(model, data, q, v, np.zeros(model.nv))
    pin.updateFramePlacements(model, data)
    rhs = np.concatenate((np.zeros(6), tau)) - h
    for c in contacts:
        fid = model.getFrameId(c.frame)
        J = pin.getFrameJacobian(model, data, fid, LOCAL)[: c.size]
        a_c = pin.getFrameClassicalAcceleration(model, data, fid, LOCAL).vector[: c.size]
        np.testing.assert_allclose(J @ qdd + a_c, 0.0, atol=1e-8)  # the contact does not accelerate
        rhs += J.T @ w[c.frame]
    np.testing.assert_allclose(M @ qdd, rhs, atol=1e-8)
    assert w["gripper_right_base_link"].shape == (3,)


def test_torques_of_the_exact_optimum_give_back_its_acceleration(talos) -> None:
    """The oracle's optimum (q̈*, w*) and its τ*: forward dynamics of τ* is q̈* (two 6-D contacts:
    the wrenches are unique given τ, so they come back too)."""
    robot, q = talos
    model = robot.model
    rng = np.random.default_rng(6)
    v = rigid_contact_velocity(model, q, list(SOLES), [6, 6], rng) * 0.2
    problem = talos_standing(model, q, v, np.array([0.4, -0.3, 0.2]), rng.normal(size=model.nv - 6))
    sol = problem.task_optimum()
    tau = problem.torques(sol.qdd, sol.wrenches)
    qdd, w = ContactSimulation(robot, soles(), q, v).forward(q, v, tau)
    np.testing.assert_allclose(qdd, sol.qdd, rtol=0, atol=1e-8 * (1 + np.abs(sol.qdd).max()))
    for frame, expected in zip(SOLES, sol.wrenches, strict=True):
        np.testing.assert_allclose(w[frame], expected, atol=1e-7)


def test_kinetic_energy_is_conserved_without_gravity_and_torques(talos) -> None:
    """Rigid contacts do no work: with g = 0 and τ = 0 the kinetic energy stays constant, up to the
    first-order error of semi-implicit Euler (halving dt halves the drift)."""
    robot, q = talos
    model = pin.Model(robot.model)
    model.gravity.linear[:] = 0.0
    weightless = RobotModel(model)
    v = rigid_contact_velocity(model, q, list(SOLES), [6, 6], np.random.default_rng(1)) * 0.3
    data = model.createData()

    def kinetic(qq: np.ndarray, vv: np.ndarray) -> float:
        M = pin.crba(model, data, qq)
        return 0.5 * float(vv @ (np.triu(M) + np.triu(M, 1).T) @ vv)

    e0 = kinetic(q, v)
    drifts = []
    for dt in (1e-3, 5e-4):
        sim = ContactSimulation(weightless, soles(), q, v, dt=dt)
        for _ in range(round(0.5 / dt)):
            sim.step(np.zeros(model.nv - 6))
        drifts.append(abs(kinetic(sim.q, sim.v) - e0) / e0)
    assert np.abs(sim.v).max() > 0.1  # it did move
    assert drifts[0] < 1e-5 and drifts[1] < 0.7 * drifts[0]


def test_lift_and_put_down_a_foot_anchors_it_where_it_is(talos) -> None:
    robot, q = talos
    model = robot.model
    sim = ContactSimulation(robot, soles(), q, kp=100.0)
    tau, _ = static_compensation(model, q, list(SOLES), [6, 6])
    sim.set_contact_active("right_sole_link", False)
    assert sim.active_frames == ["left_sole_link"]
    for _ in range(50):
        assert set(sim.step(tau)) == {"left_sole_link"}
    sim.set_contact_active("right_sole_link", True)  # anchored at its current (moved) placement
    qdd, _ = sim.forward(sim.q, sim.v, tau)
    # Pinocchio's 6-D constraint: spatial acceleration (LOCAL) = −kp · (pose error to the anchor). The
    # right sole was just anchored where it is (no error); the left one has drifted since the start.
    data = model.createData()
    pin.forwardKinematics(model, data, sim.q, sim.v, qdd)
    pin.updateFramePlacements(model, data)
    right = pin.getFrameAcceleration(model, data, model.getFrameId("right_sole_link"), LOCAL).vector
    left = pin.getFrameAcceleration(model, data, model.getFrameId("left_sole_link"), LOCAL).vector
    np.testing.assert_allclose(right, 0.0, atol=1e-8 * np.abs(qdd).max())
    assert np.abs(left).max() > 1e-3
    sim.set_contact_active("right_sole_link", True)  # no change: no re-anchoring, no error


def test_baumgarte_gain_pulls_a_point_contact_back_to_its_anchor(talos) -> None:
    robot, q = talos
    model = robot.model
    frame = "gripper_left_base_link"
    kp = 400.0
    sim = ContactSimulation(robot, [PointContact(frame, mu=1.0)], q, kp=kp)
    q_moved = pin.integrate(model, q, np.r_[0.0, 0.0, 0.01, np.zeros(model.nv - 3)])  # base up 1 cm
    qdd, _ = sim.forward(q_moved, np.zeros(model.nv), np.zeros(model.nv - 6))
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    anchor = data.oMf[model.getFrameId(frame)].translation.copy()
    pin.forwardKinematics(model, data, q_moved, np.zeros(model.nv), qdd)
    pin.updateFramePlacements(model, data)
    fid = model.getFrameId(frame)
    a_local = pin.getFrameClassicalAcceleration(model, data, fid, LOCAL).linear
    R = data.oMf[fid].rotation
    np.testing.assert_allclose(R @ a_local, -kp * (data.oMf[fid].translation - anchor), atol=1e-9)


def test_bad_inputs_raise_and_change_nothing(talos) -> None:
    robot, q = talos
    model = robot.model
    sim = ContactSimulation(robot, soles(), q)
    state = (sim.q.copy(), sim.v.copy(), sim.time)
    for bad in (np.zeros(5), np.full(model.nv - 6, np.nan), "x"):
        with pytest.raises(InvalidValueError):
            sim.step(bad)
    assert np.array_equal(sim.q, state[0]) and np.array_equal(sim.v, state[1]) and sim.time == state[2]
    with pytest.raises(UnknownNameError):
        sim.set_contact_active("left_hand", False)
    with pytest.raises(ConfigError):
        sim.set_contact_active("left_sole_link", 0)
    assert sim.active_frames == list(SOLES)
    for kwargs, field in (({"dt": 0.0}, "dt"), ({"kp": -1.0}, "kp"), ({"damping": np.nan}, "damping")):
        with pytest.raises(ConfigError) as info:
            ContactSimulation(robot, soles(), q, **kwargs)
        assert info.value.field == field
    with pytest.raises(ConfigError) as info:
        ContactSimulation(robot, [*soles(), SurfaceContact("no_such_frame", (0.1, 0.1), 0.3)], q)
    assert info.value.field == "contacts[2].frame"
    with pytest.raises(InvalidValueError):
        ContactSimulation(robot, soles(), q[:-1])


def test_redundant_contacts_need_damping(talos) -> None:
    robot, q = talos
    model = robot.model
    redundant = [*soles(), SurfaceContact("leg_left_6_link", (0.1, 0.065), 0.3)]  # same body as a sole
    zero, v0 = np.zeros(model.nv - 6), np.zeros(model.nv)
    reference, _ = ContactSimulation(robot, soles(), q).forward(q, v0, zero)
    # without damping the split of a redundant set is undefined: Pinocchio 4 returns NaN (ConfigError
    # naming the remedy), Pinocchio 3 some split with the right q̈
    try:
        qdd, _ = ContactSimulation(robot, redundant, q).forward(q, v0, zero)
    except ConfigError as exc:
        assert "damping" in str(exc)
    else:
        np.testing.assert_allclose(qdd, reference, atol=1e-9)
    qdd, w = ContactSimulation(robot, redundant, q, damping=1e-6).forward(q, v0, zero)
    np.testing.assert_allclose(qdd, reference, atol=1e-9)
    assert all(np.isfinite(x).all() for x in w.values())
