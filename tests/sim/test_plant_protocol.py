"""The plant protocol on the rigid plant: ContactPlant's protocol methods against its ContactSimulation
stepped directly, a force push against the momentum balance, bad push arguments."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

from wbcpy import InverseDynamicsScene
from wbcpy.errors import ConfigError, InvalidValueError, UnknownNameError
from wbcpy.scenes import SurfaceContact
from wbcpy.sim import ContactPlant, ContactSimulation
from wbcpy.sim.plant import Plant

SOLES = ("left_sole_link", "right_sole_link")


def _scene(robot, q0):
    robot.update(q0, np.zeros(robot.nv))
    scene = InverseDynamicsScene(robot, dt=0.002, effort_limits=True)
    scene.set_contacts([SurfaceContact(f, (0.1, 0.065), mu=0.3) for f in SOLES])
    scene.configure([{"name": "com", "type": "com"}])
    return scene


def test_contact_plant_satisfies_the_protocol(example_robot) -> None:
    robot = example_robot("talos")
    q0 = robot.reference_configuration("half_sitting")
    scene = _scene(robot, q0)
    plant = ContactPlant(scene, q0, np.zeros(robot.nv), 0.002, kd=50.0)
    assert isinstance(plant, Plant) and plant.name == "pinocchio" and plant.dt == 0.002
    assert plant.contact_frames == SOLES and plant.contact_options["baumgarte_kd"] == 50.0
    twin = ContactSimulation(robot, scene.contacts, q0, np.zeros(robot.nv), 0.002, kd=50.0)
    rng = np.random.default_rng(0)
    for k in range(5):
        tau = 20.0 * rng.normal(size=robot.nv - 6)
        if k == 3:  # the scene lifts the right sole: the plant follows it at its next state() / apply()
            scene.set_contact_active("right_sole_link", False)
            twin.set_contact_active("right_sole_link", False)
        q, _ = plant.state()
        np.testing.assert_array_equal(q, twin.q)
        plant.apply(tau)
        expected = twin.step(tau)
        assert plant.time == pytest.approx(twin.time)
        assert plant.active_contacts() == list(expected)
        got = plant.contact_wrenches()
        for f in SOLES:
            np.testing.assert_array_equal(got[f], expected.get(f, np.zeros(6)))
    assert plant.active_contacts() == ["left_sole_link"]


def test_a_force_push_changes_the_momentum_by_its_impulse(example_robot) -> None:
    robot = example_robot("talos")
    q0 = robot.reference_configuration("half_sitting")
    q0[2] += 1.0  # (no contact active: a free fall)
    scene = _scene(robot, q0)
    for f in SOLES:
        scene.set_contact_active(f, False)
    plant = ContactPlant(scene, q0, np.zeros(robot.nv), 0.001)
    model, data = robot.model, robot.model.createData()

    def momentum() -> np.ndarray:
        q, v = plant.state()
        return pin.computeCentroidalMomentum(model, data, q, v).linear.copy()

    before = momentum()
    plant.push([5.0, -20.0, 0.0], "torso_2_link", duration=0.01)  # ten steps of 1 ms
    for _ in range(15):
        plant.apply(np.zeros(robot.nv - 6))
    mg = robot.total_mass * model.gravity.linear
    np.testing.assert_allclose(
        momentum() - before, np.array([5.0, -20.0, 0.0]) * 0.01 + mg * 0.015, rtol=1e-3, atol=1e-3
    )
    before = momentum()
    plant.push([0.0, 3.0, 0.0])  # an impulse: at once
    np.testing.assert_allclose(momentum() - before, [0.0, 3.0, 0.0], atol=1e-9)


def test_bad_push_arguments(example_robot) -> None:
    robot = example_robot("talos")
    q0 = robot.reference_configuration("half_sitting")
    plant = ContactPlant(_scene(robot, q0), q0, np.zeros(robot.nv), 0.002)
    with pytest.raises(InvalidValueError):
        plant.push([1.0, np.nan, 0.0])
    for duration in (-0.1, float("inf"), True, "1"):
        with pytest.raises(ConfigError):
            plant.push([1.0, 0.0, 0.0], duration=duration)
    with pytest.raises(UnknownNameError):
        plant.push([1.0, 0.0, 0.0], "torso", duration=0.1)
    assert plant.time == 0.0
