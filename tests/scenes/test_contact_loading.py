"""Landing a contact smoothly and holding a moving one: ``set_contact_active(frame, True, transition=T)``
raises the normal-force bound along the loading ramp's formula (checked step by step, and in closed loop
against Pinocchio's rigid-contact dynamics of the scene's torques); a contact velocity gain K_d makes the
contact rows J q̈ + a_c = −K_d J v (checked with raw Pinocchio's classical acceleration at the answer's q̈);
``relax_contacts`` answers where the hard constraints have none (torque limits too weak to hold the
robot), its torques within their limits and its wrenches within their cones."""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin
import pytest
from _contact_oracle import talos_half_sitting
from _id_helpers import SOLES, solve_talos, talos_scene

from wbcpy import InverseDynamicsScene, RobotModel
from wbcpy.contacts import SurfaceContact
from wbcpy.errors import ConfigError, QPSolveError
from wbcpy.sim.contact_plant import ContactPlant

G0 = 9.81


@pytest.fixture(scope="module")
def talos():
    return talos_half_sitting()


def _standing(scene, robot, q0, v0=None, com_acc=(0.0, 0.0, 0.0)):
    v = np.zeros(robot.nv) if v0 is None else v0
    return solve_talos(scene, robot, q0, v, np.asarray(com_acc), np.zeros(robot.nv - 6))


@pytest.mark.parametrize("fz_max", [math.inf, 1500.0])
def test_loading_ramp_raises_the_bound_linearly(talos, fz_max):
    """Lifted, then put down with transition 0.05 s at dt 0.01 (N = 5): the contact is active at once; after
    k updates its f_z bound is f_1 k/N (f_1 = fz_max, or m·g when infinite), binding (a COM acceleration
    towards that foot asks for more); then the contact's own bound."""
    robot, q0 = talos
    mg = robot.total_mass * G0
    scene = talos_scene(robot, dt=0.01, fz_max=fz_max)
    _standing(scene, robot, q0)
    scene.set_contact_active(SOLES[1], False)
    _standing(scene, robot, q0)
    scene.set_contact_active(SOLES[1], True, transition=0.05)
    assert scene.active_contact_frames == list(SOLES)
    end = fz_max if math.isfinite(fz_max) else mg
    for k in range(1, 6):
        left = next(c for c in scene.contacts if c.frame == SOLES[1]).loading
        assert left == pytest.approx((6 - k) * 0.01)
        _, w, _ = _standing(scene, robot, q0, com_acc=(0.0, -0.3, 0.0))
        assert w[SOLES[1]][2] <= end * k / 5 + 1e-6 * mg
        if end * k / 5 < 0.5 * mg:  # (the bound binds while it is below the foot's share)
            assert w[SOLES[1]][2] == pytest.approx(end * k / 5, abs=1e-3 * mg)
    hqp = scene.update()
    assert hqp.ub is None or hqp.ub[hqp.variable_names.index(f"{SOLES[1]}:fz")] == fz_max
    assert all(c.loading is None for c in scene.contacts)


def test_loading_interrupts_an_unloading_ramp_where_it_is(talos):
    robot, q0 = talos
    scene = talos_scene(robot, dt=0.01)
    _, w, _ = _standing(scene, robot, q0)
    f0 = w[SOLES[1]][2]
    scene.set_contact_active(SOLES[1], False, transition=0.1)  # N = 10
    for _ in range(4):
        _standing(scene, robot, q0)
    scene.set_contact_active(SOLES[1], True, transition=0.04)  # from f0 (1 − 4/10) up to m·g over 4
    contact = next(c for c in scene.contacts if c.frame == SOLES[1])
    assert contact.unloading is None and contact.loading == pytest.approx(0.04)
    hqp = scene.update()
    bound = hqp.ub[hqp.variable_names.index(f"{SOLES[1]}:fz")]
    start = f0 * 0.6
    assert bound == pytest.approx(start + (robot.total_mass * G0 - start) / 4, rel=1e-9)
    # an active contact being loaded stays so; active=True at once (transition 0) ends the ramp
    scene.set_contact_active(SOLES[1], True, transition=0.2)
    assert next(c for c in scene.contacts if c.frame == SOLES[1]).loading is not None
    scene.set_contact_active(SOLES[1], True)
    assert next(c for c in scene.contacts if c.frame == SOLES[1]).loading is None
    with pytest.raises(ConfigError) as info:
        scene.set_contact_active(SOLES[1], True, transition=-1.0)
    assert info.value.field == "transition"


def test_closed_loop_landing_follows_the_ramp(talos):
    """The right foot lifted, then put down with a 0.05 s loading ramp (dt 5 ms): the plant's normal force
    (Pinocchio's constraintDynamics of the scene's τ) never exceeds the ramp's bound and rises by at most
    f_1 / N per step, while the COM task leans on that foot."""
    robot, q0 = talos
    dt = 0.005
    mg = robot.total_mass * G0
    scene = talos_scene(robot, dt=dt)
    plant = ContactPlant(scene, q0, np.zeros(robot.nv), dt)
    robot.update(*plant.sync())
    _standing(scene, robot, plant.sim.q)
    scene.set_contact_active(SOLES[1], False)
    for _ in range(2):
        q, v = plant.sync()
        solve_talos(scene, robot, q, v, np.zeros(3), np.zeros(robot.nv - 6))
        plant.step()
    scene.set_contact_active(SOLES[1], True, transition=0.05)  # N = 10, steps of m·g / 10
    forces = []
    for _ in range(10):
        q, v = plant.sync()
        solve_talos(scene, robot, q, v, np.array([0.0, -0.5, 0.0]), np.zeros(robot.nv - 6))
        plant.step()
        forces.append(plant.sim.wrenches[SOLES[1]][2])
    bounds = mg * np.arange(1, 11) / 10
    assert np.all(np.array(forces) <= bounds + 1e-6 * mg)
    assert np.all(np.diff([0.0, *forces]) <= 0.1 * mg + 1e-6 * mg)
    assert forces[0] > 0.05 * mg  # (the ramp binds: the COM task leans on the landing foot)


@pytest.mark.parametrize("kd", [0.0, 20.0])
def test_velocity_gain_damps_a_moving_contact(talos, kd):
    """At a state whose soles move (random v), the answer's q̈ gives each sole the classical acceleration
    −K_d times its velocity (contact axes; raw Pinocchio at (q, v, q̈))."""
    robot, q0 = talos
    rng = np.random.default_rng(3)
    v = 0.05 * rng.standard_normal(robot.nv)
    scene = InverseDynamicsScene(robot)
    scene.set_contacts([SurfaceContact(f, half_size=(0.1, 0.065), mu=0.3, kd=kd) for f in SOLES])
    scene.configure([{"name": "com", "type": "com"}])
    robot.update(q0, v)
    from wbcpy.tasks import ComReference

    scene.set_reference("com", ComReference(np.zeros(3)))
    scene.solve(scene.update())
    qdd = scene.get_solver_output_raw()[: robot.nv]
    model = robot.model
    data = model.createData()
    pin.forwardKinematics(model, data, q0, v, qdd)
    pin.updateFramePlacements(model, data)
    for f in SOLES:
        fid = model.getFrameId(f)
        acc = pin.getFrameClassicalAcceleration(model, data, fid, pin.ReferenceFrame.LOCAL).vector
        vel = pin.getFrameVelocity(model, data, fid, pin.ReferenceFrame.LOCAL).vector
        np.testing.assert_allclose(acc, -kd * vel, atol=1e-7 * (1.0 + np.abs(acc).max()))


@pytest.mark.parametrize("bad", [-1.0, math.nan, math.inf, "1", True])
def test_bad_velocity_gain(bad):
    with pytest.raises(ConfigError) as info:
        SurfaceContact("sole", half_size=(0.1, 0.065), mu=0.3, kd=bad)
    assert info.value.field == "kd"


def _weak_talos(talos, limit: float) -> tuple[RobotModel, np.ndarray]:
    robot, q0 = talos
    model = pin.Model(robot.model)
    model.effortLimit[6:] = limit
    return RobotModel(model, name="weak talos"), q0


def test_relax_contacts_answers_where_the_contacts_cannot_be_held(talos):
    """Torque limits of 0.1 N·m cannot hold Talos's soles still: the scene has no answer; the relaxed problem
    has one, its torques within the limits, its wrenches within the real cones (U w ≤ 0), its contacts
    active, and the contact rows J q̈ + a_c as small as those limits allow (smaller than at free fall)."""
    robot, q0 = _weak_talos(talos, 0.1)
    scene = talos_scene(robot, effort_limits=True)
    robot.update(q0, np.zeros(robot.nv))
    from wbcpy.tasks import ComReference, JointReference

    scene.set_reference("com", ComReference(np.zeros(3)))
    scene.set_reference("posture", JointReference(np.zeros(robot.nv - 6)))
    hqp = scene.update()
    with pytest.raises(QPSolveError):
        scene.solve(hqp)
    cmd = scene.solve(scene.relax_contacts(hqp))
    assert np.abs(cmd.effort).max() <= 0.1 + 1e-9
    wrenches = scene.get_contact_wrenches()
    assert list(wrenches) == list(SOLES)
    U = SurfaceContact("s", half_size=(0.1, 0.065), mu=0.3).cone()
    for w in wrenches.values():
        assert (U @ w).max() <= 1e-6 * robot.total_mass * G0
    model, data = robot.model, robot.model.createData()
    qdd = scene.get_solver_output_raw()[: robot.nv]

    def residual(a):
        pin.forwardKinematics(model, data, q0, np.zeros(robot.nv), a)
        pin.updateFramePlacements(model, data)
        return sum(
            np.linalg.norm(pin.getFrameClassicalAcceleration(model, data, model.getFrameId(f),
                                                             pin.ReferenceFrame.LOCAL).vector) ** 2
            for f in SOLES
        )  # fmt: skip

    free_fall = pin.aba(model, data, q0, np.zeros(robot.nv), np.zeros(robot.nv))
    assert residual(qdd) < residual(free_fall)
    assert scene.relax_contacts() is not scene.relax_contacts()  # (new problems, the scene's own kept)
