"""The ``momentum`` task in a velocity scene: MomentumVelocityLaw (h* = K_ff h_d), its registration, its
binding, scene files (``kff``, ``target``; ``kp`` refused) and the generic law refused.

Oracles: the momentum A_G q̇ that raw Pinocchio (``computeCentroidalMomentum``) computes from the scene's
q̇; the law's closed form K_ff h_d with direction-keeping saturation.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wbcpy import VelocityScene, load_robot
from wbcpy.controllers import MomentumVelocityLaw, TaskVelocityLaw, law_for, laws_taken
from wbcpy.errors import ConfigError, InvalidValueError
from wbcpy.scenes import load_scene_file
from wbcpy.tasks import TaskConfig

Q0 = [0.3, 0.6, -0.2, -1.1, 0.4, 0.8, 0.1]
#: a momentum the arm reaches with q̇ ~ 0.3 rad/s
QD = np.array([0.2, 0.1, -0.1, 0.3, 0.2, -0.1, 0.1])


def _momentum(model, q, v):
    return pin.computeCentroidalMomentum(model, model.createData(), np.asarray(q), v).vector.copy()


def _target(robot):
    return _momentum(robot.model, Q0, QD)


def _scene():
    robot = load_robot("lwr4")
    robot.update(np.array(Q0), np.zeros(7))
    scene = VelocityScene(robot, regularization=1e-12)
    scene.configure([TaskConfig(name="h", type="momentum")])
    return robot, scene


def test_registered_as_the_only_velocity_law_of_momentum():
    assert law_for("momentum", "velocity") is MomentumVelocityLaw
    assert laws_taken("momentum", "velocity") == (MomentumVelocityLaw,)
    # other vector types keep the generic law
    assert TaskVelocityLaw in laws_taken("com", "velocity")


def test_bound_law_reaches_the_target_momentum():
    robot, scene = _scene()
    hd = _target(robot)
    binding = scene.bind("h", MomentumVelocityLaw(kff=0.5), hd)
    binding.update()
    scene.solve(scene.update())
    achieved = _momentum(robot.model, Q0, scene.get_solver_output_raw())
    np.testing.assert_allclose(achieved, 0.5 * hd, atol=1e-6)
    binding.set_target(np.zeros(6))  # no momentum: the arm stops
    binding.update()
    scene.solve(scene.update())
    np.testing.assert_allclose(_momentum(robot.model, Q0, scene.get_solver_output_raw()), 0.0, atol=1e-9)
    with pytest.raises(ConfigError, match="takes only a target"):
        binding.set_target(hd, np.ones(6))


def test_generic_velocity_law_is_refused_with_the_reason():
    _, scene = _scene()
    with pytest.raises(ConfigError, match="MomentumVelocityLaw"):
        scene.bind("h", TaskVelocityLaw(kp=5.0), np.zeros(6))


def test_scene_file_momentum_in_a_velocity_scene():
    robot = load_robot("lwr4")
    hd = _target(robot)
    doc = {
        "robot": "lwr4", "q0": Q0, "scene": "velocity", "dt": 0.01, "steps": 1, "regularization": 1e-12,
        "tasks": [{"name": "h", "type": "momentum", "target": hd.tolist(), "kff": 1.0}],
    }  # fmt: skip
    setup = load_scene_file(doc)
    target = setup.targets[0]
    assert isinstance(target.controller, MomentumVelocityLaw)
    scene = setup.scene
    scene.set_reference("h", target.reference())
    scene.solve(scene.update())
    np.testing.assert_allclose(_momentum(robot.model, Q0, scene.get_solver_output_raw()), hd, atol=1e-6)
    # kp has no meaning there: refused, naming the key and the reason
    doc["tasks"][0]["kp"] = 5.0
    with pytest.raises(ConfigError, match="no error to feed back") as info:
        load_scene_file(doc)
    assert info.value.field.endswith(".kp")


def test_saturation_and_bad_input():
    law = MomentumVelocityLaw(kff=4.0, max_velocity=1.0)
    out = law.compute([0.1, 0.2, 0.0, 0.0, 0.0, 0.4])  # K_ff h_d = (0.4, 0.8, 0, 0, 0, 1.6): scaled by 1/1.6
    np.testing.assert_allclose(out, [0.25, 0.5, 0.0, 0.0, 0.0, 1.0])
    with pytest.raises(InvalidValueError):
        law.compute([0.0] * 5)
    with pytest.raises(ConfigError):
        MomentumVelocityLaw(kff=[1.0, 2.0])


@settings(max_examples=50, deadline=None)
@given(
    hd=st.lists(st.floats(-50, 50), min_size=6, max_size=6),
    kff=st.floats(0, 10),
)
def test_law_is_kff_times_target(hd, kff):
    np.testing.assert_allclose(MomentumVelocityLaw(kff=kff).compute(hd), kff * np.array(hd), atol=1e-12)
