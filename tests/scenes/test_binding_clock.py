"""A binding stamps its task's reference with the scene clock in float seconds: a standard-library clock
read directly, any other clock through ``scene.clock()`` (which converts what it returns)."""

from __future__ import annotations

import copy
import pickle
import time

import numpy as np
import pytest
from _scene_helpers import lwr4

from wbcpy import VelocityScene
from wbcpy.controllers import JointVelocityLaw
from wbcpy.tasks import TaskConfig


def _bound(clock):  # type: ignore[no-untyped-def]
    robot = lwr4()
    scene = VelocityScene(robot, clock=clock)
    joints = [n for n in robot.joint_names if n != "root_joint"]
    scene.configure([TaskConfig("posture", "jnt", joint_names=joints)])
    robot.update(np.zeros(robot.nq))
    return scene, scene.bind("posture", JointVelocityLaw(kp=1.0), np.zeros(len(joints)))


@pytest.mark.parametrize("clock", [time.monotonic, time.perf_counter, time.time])
def test_a_standard_clock_stamps_its_own_time(clock) -> None:  # type: ignore[no-untyped-def]
    scene, binding = _bound(clock)
    assert scene.clock_function is clock
    before = clock()
    binding.update()
    stamp = scene.get_task("posture").reference_time
    assert type(stamp) is float and before <= stamp <= clock()


def test_another_clock_is_converted() -> None:
    ticks = iter(range(10, 100))
    scene, binding = _bound(lambda: next(ticks))  # (an int clock)
    binding.update()
    stamp = scene.get_task("posture").reference_time
    assert type(stamp) is float and stamp == float(next(ticks) - 1)  # (the last tick read, as a float)


def test_copies_and_pickles_keep_the_clock() -> None:
    _scene, binding = _bound(time.monotonic)
    for other in (copy.deepcopy(binding), pickle.loads(pickle.dumps(binding))):
        other.update()
        assert type(other.task.reference_time) is float
