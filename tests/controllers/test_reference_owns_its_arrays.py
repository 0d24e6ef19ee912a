"""A law's ``reference()`` returns a reference that owns its arrays: the caller's target and target
velocity are copied (as float arrays), so changing them afterwards changes neither the reference nor
what a scene would take from it."""

from __future__ import annotations

import numpy as np
import pytest
from _scene_helpers import lwr4, random_state

from wbcpy import AccelerationScene
from wbcpy.controllers import ComPD, JointPD
from wbcpy.tasks import TaskConfig

NAMES = ["lwr_joint_2", "lwr_joint_4"]


@pytest.fixture(scope="module")
def scene():
    robot = lwr4()
    robot.update(*random_state(robot, np.random.default_rng(5)))
    scene = AccelerationScene(robot)
    scene.configure([TaskConfig("j", "jnt", joint_names=NAMES), TaskConfig("com", "com")])
    return scene


@pytest.mark.parametrize(("law", "task", "n"), [(JointPD(4.0, 1.0), "j", 2), (ComPD(9.0, 6.0), "com", 3)])
def test_the_reference_keeps_copies_of_the_targets(scene, law, task: str, n: int) -> None:
    target, velocity = np.linspace(0.1, 0.3, n), np.linspace(-0.2, 0.2, n)
    ref = law.reference(scene.get_task(task), target, velocity)
    before = (ref.position.copy(), ref.velocity.copy(), ref.acceleration.copy())
    target[:] = 99.0
    velocity[:] = -99.0
    for got, want in zip((ref.position, ref.velocity, ref.acceleration), before, strict=True):
        np.testing.assert_array_equal(got, want)
    assert ref.velocity is not velocity and ref.position is not target


@pytest.mark.parametrize(("law", "task", "n"), [(JointPD(4.0, 1.0), "j", 2), (ComPD(9.0, 6.0), "com", 3)])
def test_a_list_velocity_becomes_a_float_array(scene, law, task: str, n: int) -> None:
    ref = law.reference(scene.get_task(task), [0] * n, list(range(n)))
    assert isinstance(ref.velocity, np.ndarray) and ref.velocity.dtype == np.float64
    np.testing.assert_array_equal(ref.velocity, np.arange(n, dtype=float))
