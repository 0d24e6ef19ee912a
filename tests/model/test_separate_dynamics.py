"""The dynamics pass from Pinocchio's separate algorithms (``all_terms(..., separate=True)``, what wbcpy
runs where the ``computeAllTerms`` binding copies the model) against raw ``computeAllTerms``.

Oracle: raw Pinocchio on its own ``pin.Data`` (``computeAllTerms``, then ``centerOfMass(q, v, 0)`` and
``getFrameClassicalAcceleration`` for the q̈ = 0 accelerations), on random states of a free-flyer model.
"""

from __future__ import annotations

import threading

import numpy as np
import pinocchio as pin
import pytest

from wbcpy import RobotModel
from wbcpy.model import _pin_bindings
from wbcpy.model._pin_bindings import _binding_copies_model, all_terms, gravity

TOL = 1e-10


@pytest.fixture(scope="module")
def model() -> pin.Model:
    model = pin.buildSampleModelHumanoidRandom(7)  # free flyer + 4 limbs of revolute joints
    model.lowerPositionLimit[:7] = -1.0
    model.upperPositionLimit[:7] = 1.0
    return model


def _random_states(model: pin.Model, n: int) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(11)
    states = []
    for _ in range(n):
        np.random.seed(int(rng.integers(1 << 31)))  # (randomConfiguration draws from NumPy's global state)
        states.append((pin.randomConfiguration(model), rng.normal(scale=2.0, size=model.nv)))
    return states


def _oracle(model: pin.Model, q: np.ndarray, v: np.ndarray) -> pin.Data:
    data = model.createData()
    pin.computeAllTerms(model, data, q, v)
    return data


def test_separate_algorithms_equal_compute_all_terms(model: pin.Model) -> None:
    data = model.createData()
    for q, v in _random_states(model, 6):
        ref = _oracle(model, q, v)
        assert all_terms(model, data, q, v, separate=True) is False  # g is left to gravity()
        gravity(model, data, q)
        np.testing.assert_allclose(np.triu(data.M), np.triu(ref.M), atol=TOL)  # (C++ fills the upper part)
        np.testing.assert_allclose(data.nle, ref.nle, atol=TOL)
        np.testing.assert_allclose(data.g, ref.g, atol=TOL)
        np.testing.assert_allclose(data.J, ref.J, atol=TOL)
        np.testing.assert_allclose(data.com[0], ref.com[0], atol=TOL)
        np.testing.assert_allclose(data.vcom[0], ref.vcom[0], atol=TOL)
        np.testing.assert_allclose(data.Jcom, ref.Jcom, atol=TOL)
        for j in range(1, model.njoints):  # placements, velocities, q̈ = 0 accelerations (no gravity)
            np.testing.assert_allclose(data.oMi[j].homogeneous, ref.oMi[j].homogeneous, atol=TOL)
            np.testing.assert_allclose(data.v[j].vector, ref.v[j].vector, atol=TOL)
            np.testing.assert_allclose(data.a[j].vector, ref.a[j].vector, atol=TOL)
        pin.centerOfMass(model, ref, q, v, np.zeros(model.nv))
        np.testing.assert_allclose(data.acom[0], ref.acom[0], atol=TOL)


def test_compute_all_terms_path_reports_gravity(model: pin.Model) -> None:
    q, v = _random_states(model, 1)[0]
    data = model.createData()
    assert all_terms(model, data, q, v, separate=False) is True
    np.testing.assert_allclose(data.g, pin.computeGeneralizedGravity(model, model.createData(), q), atol=TOL)


@pytest.mark.parametrize("separate", [True, False])
def test_robot_model_dynamics_equal_raw_pinocchio(
    model: pin.Model, separate: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every dynamics and COM getter, in an order that reads g last (lazy on the separate path) and the
    frame and COM biases after it: computeGeneralizedGravity must leave the q̈ = 0 accelerations intact."""
    monkeypatch.setattr(_pin_bindings, "SEPARATE_ALL_TERMS", separate)
    robot = RobotModel(model)
    frame = model.frames[model.nframes - 1].name
    fid = model.getFrameId(frame)
    for q, v in _random_states(model, 4):
        robot.update(q, v)
        ref = _oracle(model, q, v)
        M = robot.mass_matrix()
        np.testing.assert_allclose(M, M.T, atol=0.0)
        np.testing.assert_allclose(np.triu(M), np.triu(ref.M), atol=TOL)
        np.testing.assert_allclose(robot.nonlinear_effects(), ref.nle, atol=TOL)
        np.testing.assert_allclose(robot.com(), ref.com[0], atol=TOL)
        np.testing.assert_allclose(robot.com_jacobian(), ref.Jcom, atol=TOL)
        np.testing.assert_allclose(robot.com_velocity(), ref.vcom[0], atol=TOL)
        np.testing.assert_allclose(robot.gravity(), ref.g, atol=TOL)
        np.testing.assert_allclose(robot.coriolis_centrifugal(), ref.nle - ref.g, atol=TOL)
        pin.updateFramePlacements(model, ref)
        lwa = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
        jac = pin.getFrameJacobian(model, ref, fid, lwa)
        np.testing.assert_allclose(robot.frame_jacobian(fid), jac, atol=TOL)
        bias = pin.getFrameClassicalAcceleration(model, ref, fid, lwa).vector
        np.testing.assert_allclose(robot.frame_bias(fid), bias, atol=TOL)
        pin.centerOfMass(model, ref, q, v, np.zeros(model.nv))
        np.testing.assert_allclose(robot.com_bias(), ref.acom[0], atol=TOL)


def test_gravity_alone_on_the_separate_path(model: pin.Model, monkeypatch: pytest.MonkeyPatch) -> None:
    """g read first (before any other dynamics quantity) of a new state, then M: both that state's."""
    monkeypatch.setattr(_pin_bindings, "SEPARATE_ALL_TERMS", True)
    robot = RobotModel(model)
    for q, v in _random_states(model, 2):
        robot.update(q, v)
        ref = _oracle(model, q, v)
        np.testing.assert_allclose(robot.gravity(), ref.g, atol=TOL)
        np.testing.assert_allclose(np.triu(robot.mass_matrix()), np.triu(ref.M), atol=TOL)


@pytest.mark.parametrize(
    ("version", "copies"),
    [("3.4.0", False), ("3.5.0", True), ("3.8.0", True), ("3.9.0", True), ("4.0.0", True), ("4.1.0", False)],
)
def test_the_versions_whose_binding_copies_the_model(version: str, copies: bool) -> None:
    assert _binding_copies_model(version) is copies


def test_copies_and_threads_keep_the_separate_path(model: pin.Model, monkeypatch: pytest.MonkeyPatch) -> None:
    """A copy (same probe) and another thread (its own workspace, its own lazy g) give the same values."""
    monkeypatch.setattr(_pin_bindings, "SEPARATE_ALL_TERMS", True)
    robot = RobotModel(model)
    q, v = _random_states(model, 1)[0]
    robot.update(q, v)
    ref = _oracle(model, q, v)
    robot.mass_matrix_view()  # this thread: dynamics without g
    twin = robot.copy()
    twin.update(q, v)
    out: dict[str, np.ndarray] = {}
    worker = threading.Thread(target=lambda: out.update(g=robot.gravity(), nle=robot.nonlinear_effects()))
    worker.start()
    worker.join()
    for g in (out["g"], robot.gravity(), twin.gravity()):
        np.testing.assert_allclose(g, ref.g, atol=TOL)
    np.testing.assert_allclose(out["nle"], ref.nle, atol=TOL)
    np.testing.assert_allclose(twin.coriolis_centrifugal(), ref.nle - ref.g, atol=TOL)
