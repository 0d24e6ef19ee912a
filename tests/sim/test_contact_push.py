"""Pushes in the contact plant: ContactSimulation.push and SceneSimulation.push.

Oracles (raw Pinocchio, numpy): momentum balance of an impulse — the centroidal momentum
(``pin.computeCentroidalMomentum``: linear, and angular about the COM) jumps by the push P plus the
contact impulses, each applied at its frame origin and rotated to world axes; the contacts are at rest
after the push (J_c v⁺ = 0, ``contact_jacobian``); q does not move.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from _contact_oracle import contact_jacobian, talos_half_sitting
from _sweep_helpers import reach_scene
from hypothesis import given, settings
from hypothesis import strategies as st

from wbcpy.contacts import SurfaceContact
from wbcpy.errors import ConfigError, InvalidValueError, UnknownNameError
from wbcpy.model.registry import load_robot
from wbcpy.scenes import load_scene_file
from wbcpy.sim import SceneSimulation
from wbcpy.sim.contact_simulation import ContactSimulation

SOLES = ("left_sole_link", "right_sole_link")
FRAMES = (None, "torso_2_link", "arm_left_7_link", "head_2_link")


@pytest.fixture(scope="module")
def talos():
    return talos_half_sitting()


def _sim(robot, q, v, active=(True, True)) -> ContactSimulation:
    contacts = [SurfaceContact(f, (0.1, 0.065), 0.3, active=a) for f, a in zip(SOLES, active, strict=True)]
    return ContactSimulation(robot, contacts, q, v)


def _momentum(model, q, v) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(linear momentum, angular momentum about the COM, COM position), raw Pinocchio."""
    data = model.createData()
    h = pin.computeCentroidalMomentum(model, data, q, v)
    return h.linear.copy(), h.angular.copy(), data.com[0].copy()


def _point(model, q, frame) -> np.ndarray:
    """World position of the pushed point: the frame's origin, or the free-flyer joint's (the base)."""
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    if frame is None:
        return data.oMi[1].translation.copy()  # Talos: joint 1 is the free-flyer
    return data.oMf[model.getFrameId(frame)].translation.copy()


@settings(max_examples=12, deadline=None)
@given(
    direction=st.lists(st.floats(-1, 1), min_size=3, max_size=3).filter(lambda d: np.linalg.norm(d) > 0.1),
    size=st.floats(0.5, 60.0),
    frame=st.sampled_from(FRAMES),
    seed=st.integers(0, 2**16),
)
def test_an_impulse_changes_the_momentum_by_itself_plus_the_contact_impulses(
    talos, direction, size, frame, seed
):
    robot, q = talos
    model = robot.model
    rng = np.random.default_rng(seed)
    J = contact_jacobian(model, q, list(SOLES), [6, 6])
    _, sv, Vt = np.linalg.svd(J)
    v = Vt[int((sv > 1e-10).sum()) :].T @ rng.normal(size=model.nv - 12) * 0.2  # soles at rest
    P = size * np.asarray(direction) / np.linalg.norm(direction)
    sim = _sim(robot, q, v)
    impulses = sim.push(P, frame)
    assert sorted(impulses) == sorted(SOLES) and all(w.shape == (6,) for w in impulses.values())
    np.testing.assert_array_equal(sim.q, q)
    np.testing.assert_allclose(J @ sim.v, 0.0, atol=1e-9 * size)
    lin0, ang0, c = _momentum(model, q, v)
    lin1, ang1, _ = _momentum(model, q, sim.v)
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    lin, ang = P.copy(), np.cross(_point(model, q, frame) - c, P)
    for f, w in impulses.items():
        M = data.oMf[model.getFrameId(f)]
        force = M.rotation @ w[:3]
        lin += force
        ang += np.cross(M.translation - c, force) + M.rotation @ w[3:]
    np.testing.assert_allclose(lin1 - lin0, lin, atol=1e-8 * size)
    np.testing.assert_allclose(ang1 - ang0, ang, atol=1e-8 * size)


def test_without_contacts_the_base_gets_the_whole_impulse(talos) -> None:
    robot, q = talos
    model = robot.model
    sim = _sim(robot, q, np.zeros(model.nv), active=(False, False))
    P = np.array([12.0, -5.0, 3.0])
    assert sim.push(P) == {}
    lin, ang, c = _momentum(model, q, sim.v)
    np.testing.assert_allclose(lin, P, atol=1e-10)  # total mass × Δ(COM velocity) = P
    np.testing.assert_allclose(ang, np.cross(_point(model, q, None) - c, P), atol=1e-10)


def test_bad_pushes_raise_and_change_nothing(talos) -> None:
    robot, q = talos
    sim = _sim(robot, q, np.zeros(robot.nv))
    v = sim.v.copy()
    for bad in ([1.0, 2.0], [np.nan, 0.0, 0.0], "push"):
        with pytest.raises(InvalidValueError):
            sim.push(bad)
    with pytest.raises(UnknownNameError):
        sim.push([1.0, 0.0, 0.0], "no_such_frame")
    np.testing.assert_array_equal(sim.v, v)
    np.testing.assert_array_equal(sim.q, q)
    arm = load_robot("lwr4")
    fixed = ContactSimulation(arm, [], np.zeros(arm.nq))
    with pytest.raises(ConfigError, match="floating base") as info:
        fixed.push([1.0, 0.0, 0.0])
    assert info.value.field == "frame"
    fixed.push([1.0, 0.0, 0.0], "lwr_ee")  # a named frame is fine on a fixed base
    assert np.abs(fixed.v).max() > 0


def test_scene_simulation_pushes_the_plant_and_the_controller_sees_it(talos) -> None:
    doc = {
        "robot": "talos",
        "q0": "half_sitting",
        "dt": 0.005,
        "steps": 3,
        "contacts": [{"type": "surface", "frame": f, "half_size": [0.1, 0.065], "mu": 0.3} for f in SOLES],
        "tasks": [{"name": "com", "type": "com", "kp": 30, "kd": 11}],
    }
    setup = load_scene_file(doc)
    sim = SceneSimulation(setup)
    sim.step()
    sim.push([20.0, 0.0, 0.0])
    np.testing.assert_array_equal(sim.v, sim.plant.sim.v)
    np.testing.assert_array_equal(setup.robot.v, sim.v)  # the controller's robot has the pushed state
    assert sim.v[0] > 0.05  # the base moves forward
    setup.scene.set_contact_active(SOLES[1], False)  # the scene lifts a foot: the push meets one sole
    assert list(sim.push([0.0, 5.0, 0.0])) == [SOLES[0]] and sim.plant.sim.active_frames == [SOLES[0]]
    with pytest.raises(ConfigError) as info:
        SceneSimulation(load_scene_file(reach_scene())).push([1.0, 0.0, 0.0], "lwr_ee")
    assert info.value.field == "push"  # an acceleration scene has no plant to push
