"""Copies, pickles and threads of the plants: a copied ContactSimulation or ContactPlant (copy.copy,
copy.deepcopy, a pickle round trip) is an independent plant that steps on exactly as the original does
(Pinocchio's constraint models are rebuilt from the contacts and their anchors); attributes are checked or
read-only; a second thread entering a plant raises ConcurrentUseError."""

from __future__ import annotations

import numpy as np
import pytest
from _concurrency import COPIERS, run_together
from _contact_oracle import talos_half_sitting

from wbcpy.contacts import SurfaceContact
from wbcpy.errors import ConcurrentUseError, ConfigError, InvalidValueError, ReadOnlyAttributeError
from wbcpy.sim.contact_plant import ContactPlant
from wbcpy.sim.contact_simulation import ContactSimulation

SOLES = ("left_sole_link", "right_sole_link")


@pytest.fixture(scope="module")
def talos():
    return talos_half_sitting()


def _sim(robot, q0, damping=0.0) -> ContactSimulation:
    contacts = [SurfaceContact(f, (0.1, 0.065), 0.3) for f in SOLES]
    return ContactSimulation(robot, contacts, q0, dt=0.002, kd=20.0, damping=damping)


def _torques(robot, k: int) -> np.ndarray:
    rng = np.random.default_rng(k)
    return rng.uniform(-20.0, 20.0, robot.nv - 6)


@pytest.mark.parametrize("how", list(COPIERS))
@pytest.mark.parametrize("damping", [0.0, 1e-8])
def test_a_copied_simulation_steps_on_as_the_original(talos, how, damping):
    """Mid-run (a foot lifted and put back, an external wrench, a push), the copy and the original take
    the same steps from the same state and stay equal; changing one does not change the other."""
    robot, q0 = talos
    sim = _sim(robot, q0, damping)
    for k in range(30):
        sim.step(_torques(robot, k))
    sim.set_contact_active(SOLES[0], False)
    sim.set_external_wrench("arm_left_7_link", [0.0, 0.0, -30.0, 0.0, 0.0, 0.0])
    for k in range(30, 40):
        sim.step(_torques(robot, k))
    sim.set_contact_active(SOLES[0], True)
    sim.push([0.0, 5.0, 0.0])
    twin = COPIERS[how](sim)
    assert twin.active_frames == sim.active_frames and twin.time == sim.time
    for k in range(40, 80):
        w1, w2 = sim.step(_torques(robot, k)), twin.step(_torques(robot, k))
        for f in w1:
            np.testing.assert_allclose(w2[f], w1[f], rtol=1e-9, atol=1e-8)
    np.testing.assert_allclose(twin.q, sim.q, atol=1e-12)
    np.testing.assert_allclose(twin.v, sim.v, atol=1e-10)
    twin.set_contact_active(SOLES[1], False)
    twin.clear_external_wrenches()
    assert sim.active_frames == list(SOLES) and list(sim.external_wrenches) == ["arm_left_7_link"]
    if how == "copy":
        assert twin.robot is sim.robot
    else:
        assert twin.robot is not sim.robot


@pytest.mark.parametrize("how", list(COPIERS))
def test_a_copied_plant_steps_on_as_the_original(talos, how):
    """A plant closed around a standing InverseDynamicsScene: the copy (its own simulation; with its own
    scene for deepcopy and pickles) gives the same states and violations."""
    from _id_helpers import talos_scene

    from wbcpy.tasks import ComReference, JointReference

    robot, q0 = talos
    scene = talos_scene(robot, dt=0.002)
    scene.set_reference("com", ComReference(np.array([0.0, 0.05, 0.0])))
    scene.set_reference("posture", JointReference(np.zeros(robot.nv - 6)))
    plant = ContactPlant(scene, q0, np.zeros(robot.nv), 0.002, kd=20.0)

    def step(p):
        q, v = p.sync()
        p.scene.robot.update(q, v)
        p.scene.solve(p.scene.update())
        return p.step()

    for _ in range(20):
        step(plant)
    twin = COPIERS[how](plant)
    assert (twin.scene is plant.scene) == (how == "copy") and twin.sim is not plant.sim
    for _ in range(20):  # (copy: one scene, solved at each plant's own state in turn)
        a, b = step(plant), step(twin)
        for x, y in zip(a, b, strict=True):
            np.testing.assert_allclose(y, x, atol=1e-9)
    assert twin.violation == pytest.approx(plant.violation, abs=1e-9)
    twin.violation["effort"] = 1e9  # a copy of the record
    assert plant.violation["effort"] < 1e9


def test_simulation_attributes_are_checked_or_read_only(talos):
    robot, q0 = talos
    sim = _sim(robot, q0)
    for name, bad in [("q", np.zeros(3)), ("q", "x"), ("v", [np.nan] * robot.nv), ("v", None)]:
        with pytest.raises(InvalidValueError) as info:
            setattr(sim, name, bad)
        assert info.value.argument == name
    for name, bad in [
        ("dt", 0.0),
        ("dt", True),
        ("dt", "0.01"),
        ("time", np.nan),
        ("time", "1"),
        ("time", 10**400),
    ]:
        with pytest.raises(ConfigError) as info:
            setattr(sim, name, bad)
        assert info.value.field == name
    np.testing.assert_array_equal(sim.q, q0)
    for name in ("robot", "qdd", "wrenches"):
        with pytest.raises(ReadOnlyAttributeError):
            setattr(sim, name, None)
    sim.dt, sim.time = 0.001, 5.0
    sim.step(np.zeros(robot.nv - 6))
    assert sim.time == pytest.approx(5.001)
    from _id_helpers import talos_scene

    plant = ContactPlant(talos_scene(robot), q0, None, 0.002)
    for name in ("sim", "scene", "violation"):
        with pytest.raises(AttributeError):
            setattr(plant, name, None)


def test_a_second_thread_is_detected(talos):
    """Two threads computing the forward dynamics of one simulation (its one pin.Data): the second raises
    ConcurrentUseError, every answer that went through is the single-threaded one."""
    robot, q0 = talos
    sim = _sim(robot, q0)
    tau = _torques(robot, 0)
    want, wrenches = _sim(robot, q0).forward(q0, np.zeros(robot.nv), tau)
    done: list[int] = []  # (list.append is atomic; a shared counter's += is not)
    refused: list[int] = []

    def use(stop):
        while not stop.is_set():
            try:
                qdd, w = sim.forward(q0, np.zeros(robot.nv), tau)
            except ConcurrentUseError:
                refused.append(1)
                continue
            np.testing.assert_allclose(qdd, want, atol=1e-9)
            np.testing.assert_allclose(w[SOLES[0]], wrenches[SOLES[0]], atol=1e-7)
            done.append(1)

    run_together([use, use], seconds=0.8)
    assert refused and done


def test_set_contact_active_checks_its_flags(talos):
    robot, q0 = talos
    sim = _sim(robot, q0)
    for kwargs in (
        {"active": "no"},
        {"active": 0},
        {"active": False, "impact": "yes"},
        {"active": True, "impact": 1},
    ):
        with pytest.raises(ConfigError):
            sim.set_contact_active(SOLES[0], **kwargs)
    assert sim.active_frames == list(SOLES)
