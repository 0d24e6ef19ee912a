"""The ARC-OPT camelCase names of the scenes: aliases kept apart from the scenes' own API.

An alias is the snake_case method looked up on the scene, so a scene that overrides a method is reached
through its alias too (a VelocityScene's ``getTasksStatus`` is its own ``get_tasks_status``, with the
limits and the collision pairs; class-body aliases bound the base class's function instead).
"""

from __future__ import annotations

import copy
import pickle
import re

import numpy as np
import pytest

from wbcpy import AccelerationScene, InverseDynamicsScene, VelocityScene, load_robot
from wbcpy._support.aliases import alias, aliases_of
from wbcpy.scenes import Scene, VelocitySceneStatus
from wbcpy.tasks import JointReference, TaskConfig

CAMEL = re.compile(r"^[a-z]+[A-Z]\w*$")


@pytest.mark.parametrize("cls", [Scene, AccelerationScene, VelocityScene, InverseDynamicsScene])
def test_a_scene_class_defines_no_camel_case_name_of_its_own(cls: type) -> None:
    own = [name for name in vars(cls) if CAMEL.match(name)]
    assert own == []
    for camel, snake in aliases_of(cls).items():
        assert getattr(cls, camel) is getattr(cls, snake), camel


def test_inverse_dynamics_names_belong_to_the_inverse_dynamics_scene_only() -> None:
    assert {"getJointTorques", "getContactWrenches", "setContacts", "setContactActive"} <= set(
        aliases_of(InverseDynamicsScene)
    )
    assert "getJointTorques" not in aliases_of(AccelerationScene)
    assert not hasattr(AccelerationScene, "getJointTorques")


def test_an_alias_reaches_the_override_of_a_subclass() -> None:
    """VelocityScene overrides get_tasks_status and update_tasks_status: its aliases call the overrides."""
    robot = load_robot("lwr4")
    robot.update(np.full(robot.nq, 0.3))
    scene = VelocityScene(robot, dt=0.01, joint_limits=True)
    scene.configure([TaskConfig(name="posture", type="jnt", joint_names=robot.joint_names)])
    scene.set_reference("posture", JointReference(velocity=np.full(robot.nv, 0.1)))
    scene.solve(scene.update())
    assert VelocityScene.getTasksStatus is VelocityScene.get_tasks_status
    assert isinstance(scene.updateTasksStatus(), VelocitySceneStatus)
    assert isinstance(scene.getTasksStatus(), VelocitySceneStatus)
    assert scene.getTask("posture") is scene.get_task("posture")


def test_aliases_survive_copies_and_pickles() -> None:
    robot = load_robot("lwr4")
    scene = AccelerationScene(robot)
    scene.configure([TaskConfig(name="posture", type="jnt", joint_names=robot.joint_names)])
    for other in (copy.deepcopy(scene), pickle.loads(pickle.dumps(scene))):
        assert other.hasTask("posture") and not other.hasTask("nope")
        assert other.getTask("posture") is other.get_task("posture")


def test_an_alias_without_its_method_names_both() -> None:
    class Facade:
        fooBar = alias("foo_bar")

    with pytest.raises(AttributeError, match="'Facade' has no 'foo_bar', which 'fooBar' is an alias of"):
        Facade().fooBar  # noqa: B018
    with pytest.raises(AttributeError, match="'Facade' has no 'foo_bar'"):
        Facade.fooBar  # noqa: B018
    assert not hasattr(Facade(), "fooBar")
    assert repr(vars(Facade)["fooBar"]) == "alias('foo_bar')"
