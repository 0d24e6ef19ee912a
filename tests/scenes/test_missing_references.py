"""Solving a scene whose active tasks never received a reference (issue 29, point 8): one
``MissingReferenceWarning`` per task and scene, naming the tasks; those tasks are left out of the problem
(state ``no_reference``), so the solution is the one of the scene without them."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from wbcpy import AccelerationScene, MissingReferenceWarning, VelocityScene, load_robot
from wbcpy.controllers import CartesianPD
from wbcpy.tasks import JointReference

Q0 = np.array([0.3, 0.6, -0.2, -1.2, 0.3, 0.8, 0.1])


def _scene(cls: type) -> AccelerationScene:
    robot = load_robot("lwr4")
    robot.update(Q0, np.zeros(7))
    scene = cls(robot)
    scene.configure(
        [
            {"name": "ee", "type": "cart", "tip": "lwr_ee"},
            {"name": "posture", "type": "jnt", "joint_names": robot.joint_names, "priority": 1},
            {"name": "off", "type": "com", "activation": 0.0},
        ]
    )
    return scene


@pytest.mark.parametrize("cls", [AccelerationScene, VelocityScene])
def test_one_warning_names_the_active_tasks_without_a_reference(cls: type) -> None:
    scene = _scene(cls)
    velocity = cls is VelocityScene
    scene.set_reference("posture", JointReference(**{"velocity" if velocity else "acceleration": np.ones(7)}))
    with pytest.warns(MissingReferenceWarning) as record:
        out = scene.solve(scene.update())
    (warning,) = record
    assert warning.message.tasks == ["ee"]  # "off" is inactive: no warning for it
    assert "'ee'" in str(warning.message) and "set_reference" in str(warning.message)
    # the task is left out: the posture level alone decides (q̈ or q̇ = the posture reference)
    values = out.velocity if velocity else out.acceleration
    assert np.allclose(values, 1.0, atol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scene.solve(scene.update())  # once per task: the second solve is silent


def test_no_warning_once_every_task_has_a_reference_and_an_error_on_request() -> None:
    scene = _scene(AccelerationScene)
    with warnings.catch_warnings():
        warnings.simplefilter("error", MissingReferenceWarning)
        with pytest.raises(MissingReferenceWarning, match="'ee', 'posture'"):
            scene.solve(scene.update())
    ee = scene.get_task("ee")
    scene.bind("ee", CartesianPD(kp=1.0, kd=1.0), ee.pose())
    scene.set_reference("posture", JointReference(acceleration=np.zeros(7)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scene.solve(scene.update())
