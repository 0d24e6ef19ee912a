"""External wrenches in the InverseDynamicsScene and the ContactSimulation (issue 28, part 2).

Oracle: the equations of motion M q̈ + h = Sᵀτ + Σ_c J_cᵀ w_c + J_eᵀ w_e written with raw Pinocchio
(``crba``, ``rnea``, ``getFrameJacobian`` in the frames' own axes), independently of the scene's rows.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pinocchio as pin
import pytest
from _contact_oracle import talos_half_sitting
from _id_helpers import SOLES, solve_talos, talos_scene

from wbcpy.contacts.external import ExternalWrenches
from wbcpy.errors import ConfigError, ConfigKeyError, InvalidValueError, UnknownNameError
from wbcpy.scenes import load_scene_file
from wbcpy.sim.contact_plant import ContactPlant
from wbcpy.sim.contact_simulation import ContactSimulation

HAND = "arm_left_7_link"
LOAD = 40.0  # N, hanging from the hand


@pytest.fixture(scope="module")
def talos():
    return talos_half_sitting()


def _hanging_load(model: pin.Model, q: np.ndarray) -> np.ndarray:
    """40 N straight down (world), as a wrench in the hand frame's axes about its origin."""
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    R = data.oMf[model.getFrameId(HAND)].rotation
    return np.concatenate((R.T @ np.array([0.0, 0.0, -LOAD]), np.zeros(3)))


def _eom_residual(model, q, v, qdd, tau, wrenches: dict[str, np.ndarray], external: dict[str, np.ndarray]):
    """M q̈ + h − Sᵀτ − Σ J_cᵀ w_c − Σ J_eᵀ w_e from raw Pinocchio (nv)."""
    data = model.createData()
    M = pin.crba(model, data, q)
    M = np.triu(M) + np.triu(M, 1).T
    h = pin.rnea(model, data, q, v, np.zeros(model.nv))
    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)
    generalized = np.zeros(model.nv)
    generalized[6:] = tau
    for frame, w in {**wrenches, **external}.items():
        generalized += pin.getFrameJacobian(model, data, model.getFrameId(frame), pin.LOCAL).T @ w
    return M @ qdd + h - generalized


def test_talos_with_a_load_in_the_hand_satisfies_the_equations_of_motion(talos) -> None:
    robot, q = talos
    model = robot.model
    v = np.zeros(model.nv)
    scene = talos_scene(robot)
    com, posture = np.array([0.1, -0.05, 0.0]), np.zeros(model.nv - 6)
    qdd0, w0, tau0 = solve_talos(scene, robot, q, v, com, posture)
    load = _hanging_load(model, q)
    scene.set_external_wrench(HAND, load)
    assert list(scene.external_wrenches) == [HAND]
    qdd, wrenches, tau = solve_talos(scene, robot, q, v, com, posture)
    residual = _eom_residual(model, q, v, qdd, tau, wrenches, {HAND: load})
    assert np.abs(residual).max() <= 1e-6
    # without the load in the oracle, the same answer does not balance: the load is really in there
    assert np.abs(_eom_residual(model, q, v, qdd, tau, wrenches, {})).max() > 1.0
    assert np.abs(tau - tau0).max() > 1.0  # the arm and legs carry the load
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)

    def vertical(ws: dict[str, np.ndarray]) -> float:
        return sum(float((data.oMf[model.getFrameId(f)].rotation @ w[:3])[2]) for f, w in ws.items())

    # the soles take the extra 40 N (same COM acceleration)
    assert vertical(wrenches) - vertical(w0) == pytest.approx(LOAD, rel=1e-6)
    np.testing.assert_allclose(qdd, qdd0, atol=1e-6)  # the tasks are still met exactly
    scene.clear_external_wrenches()
    _, _, tau1 = solve_talos(scene, robot, q, v, com, posture)
    np.testing.assert_allclose(tau1, tau0, atol=1e-8)


def test_simulation_with_the_same_wrench_reproduces_the_scene(talos) -> None:
    """Pinocchio's constraint dynamics with τ and the load give back the scene's q̈ and soles' wrenches."""
    robot, q = talos
    model = robot.model
    v = np.zeros(model.nv)
    scene = talos_scene(robot)
    load = _hanging_load(model, q)
    scene.set_external_wrench(HAND, load)
    qdd, wrenches, tau = solve_talos(scene, robot, q, v, np.array([0.1, 0.0, 0.0]), np.zeros(model.nv - 6))
    sim = ContactSimulation(robot, scene.contacts, q, v, dt=1e-3)
    sim.set_external_wrench(HAND, load)
    qdd_sim, w_sim = sim.forward(q, v, tau)
    np.testing.assert_allclose(qdd_sim, qdd, atol=1e-6)
    for frame in SOLES:
        np.testing.assert_allclose(w_sim[frame], wrenches[frame], atol=1e-5)
    sim.clear_external_wrenches()
    assert np.abs(sim.forward(q, v, tau)[0] - qdd).max() > 1e-2  # without the load it moves otherwise
    plant = ContactPlant(scene, q, v, 1e-3)
    plant.sync()
    assert list(plant.sim.external_wrenches) == [HAND]
    np.testing.assert_allclose(plant.sim.external_wrenches[HAND], load)


def test_bad_external_wrenches_change_nothing(talos) -> None:
    robot, _ = talos
    scene = talos_scene(robot)
    scene.set_external_wrench(HAND, np.arange(6.0))
    with pytest.raises(UnknownNameError):
        scene.set_external_wrench("hnad", np.zeros(6))
    with pytest.raises(InvalidValueError):
        scene.set_external_wrench(HAND, [0.0, 0.0, np.nan, 0, 0, 0])
    with pytest.raises(InvalidValueError):
        scene.set_external_wrench(HAND, np.zeros(3))
    with pytest.raises(ConfigError):
        scene.set_external_wrenches([HAND, np.zeros(6)])
    with pytest.raises(UnknownNameError):  # all are checked before any is set
        scene.set_external_wrenches({"arm_right_7_link": np.ones(6), "nope": np.zeros(6)})
    assert list(scene.external_wrenches) == [HAND]
    np.testing.assert_array_equal(scene.external_wrenches[HAND], np.arange(6.0))


def test_external_wrenches_copy_and_pickle(talos) -> None:
    robot, _ = talos
    ext = ExternalWrenches(robot)
    ext.set(HAND, np.ones(6))
    for clone in (copy.deepcopy(ext), pickle.loads(pickle.dumps(ext))):
        clone.set(HAND, np.zeros(6))
        np.testing.assert_array_equal(ext.as_dict()[HAND], np.ones(6))


def test_scene_files_take_external_wrenches(talos) -> None:
    doc = {
        "robot": "talos",
        "floating_base": True,
        "q0": "half_sitting",
        "steps": 3,
        "contacts": [{"type": "surface", "frame": f, "half_size": [0.1, 0.065], "mu": 0.3} for f in SOLES],
        "external_wrenches": {HAND: [0, 0, -40, 0, 0, 0]},
        "tasks": [{"name": "com", "type": "com"}],
    }
    setup = load_scene_file(doc)
    np.testing.assert_array_equal(setup.scene.external_wrenches[HAND], [0, 0, -40, 0, 0, 0])
    for bad, field, error in (
        ({"hnad": [0] * 6}, "external_wrenches.hnad", ConfigKeyError),
        ({HAND: [0] * 5}, f"external_wrenches.{HAND}", ConfigError),
        ([1, 2], "external_wrenches", ConfigError),
    ):
        with pytest.raises(error) as info:
            load_scene_file({**doc, "external_wrenches": bad})
        assert info.value.field == field
