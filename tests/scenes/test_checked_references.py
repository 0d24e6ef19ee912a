"""The checked reference API (``scene.set_reference(name, law.reference(task, target))``) after the task
keeps a validated reference's fields and builds the reference object only when ``task.reference`` is read.

Checked here: the checked and the bound API (``scene.bind``) give the same task rows and solution for
random states and targets (two code paths within a tolerance); ``task.reference`` is a copy of what was
given, built once, whose tracked array is the one the rows read; a law-made reference mutated afterwards
(NaN, wrong size, wrong class, a NaN pose, a bad time) raises the documented error and changes nothing;
copies and pickles of a scene whose reference is not built yet carry it as independent objects.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pinocchio as pin
import pytest
from _scene_helpers import lwr4, random_state
from hypothesis import given, settings
from hypothesis import strategies as st

from wbcpy import AccelerationScene, VelocityScene
from wbcpy.controllers import CartesianPD, JointPD
from wbcpy.errors import InvalidValueError
from wbcpy.tasks import CartesianReference, ComReference, JointReference, TaskConfig
from wbcpy.tasks.references import ReferenceTypeError

JOINTS = ["lwr_joint_5", "lwr_joint_2", "lwr_joint_7"]


def _clock() -> float:
    return 2.0


def _scene(robot, cls=AccelerationScene):
    scene = cls(robot, clock=_clock)  # (a module function: scenes pickle with their clock)
    scene.configure([
        TaskConfig("ee", "cart", tip="lwr_ee", priority=0),
        TaskConfig("moving", "cart", root="lwr_link_2", tip="lwr_ee", ref_frame="lwr_link_4", priority=0),
        TaskConfig("joints", "jnt", joint_names=JOINTS, priority=0, weights=[1e-2] * 3),
    ])  # fmt: skip
    return scene


def _target(task, rng) -> pin.SE3:
    pose = task.pose()
    return pin.SE3(pin.exp3(rng.normal(scale=0.3, size=3)) @ pose.rotation,
                   pose.translation + rng.normal(scale=0.1, size=3))  # fmt: skip


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_checked_and_bound_references_give_the_same_rows(seed: int) -> None:
    """Two scenes on one robot: one takes each step's references through set_reference, the other
    through bindings; their task targets, rows and solutions agree at random states and targets."""
    rng = np.random.default_rng(seed)
    robot = lwr4()
    q, v = random_state(robot, rng)
    robot.update(q, v)
    checked, bound = _scene(robot), _scene(robot)
    laws = {"ee": CartesianPD(kp=rng.uniform(1, 100), kd=rng.uniform(0, 20)),
            "moving": CartesianPD(kp=rng.uniform(1, 100), kd=rng.uniform(0, 20), max_acceleration=5.0),
            "joints": JointPD(kp=rng.uniform(1, 100), kd=rng.uniform(0, 20))}  # fmt: skip
    targets = {name: _target(checked.get_task(name), rng) for name in ("ee", "moving")}
    targets["joints"] = rng.uniform(-1, 1, 3)
    bindings = [bound.bind(name, law, targets[name]) for name, law in laws.items()]
    for _ in range(2):  # (a second state: the bindings update in place, set_reference replaces)
        q, v = random_state(robot, rng)
        robot.update(q, v)
        for name, law in laws.items():
            checked.set_reference(name, law.reference(checked.get_task(name), targets[name]))
        for binding in bindings:
            binding.update()
        rows_checked, rows_bound = checked.update(), bound.update()
        for name in laws:
            mine, theirs = checked.get_task(name).target_view(), bound.get_task(name).target_view()
            np.testing.assert_allclose(mine, theirs, rtol=1e-12, atol=1e-12)
        assert len(rows_checked.levels) == len(rows_bound.levels)
        for a, b in zip(rows_checked.levels, rows_bound.levels, strict=True):
            np.testing.assert_allclose(a.A, b.A, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(a.y, b.y, rtol=1e-12, atol=1e-10)
        x_checked = checked.solve(rows_checked).acceleration
        x_bound = bound.solve(rows_bound).acceleration
        np.testing.assert_allclose(x_checked, x_bound, rtol=1e-8, atol=1e-8)


def _lwr_scene():
    robot = lwr4()
    q, v = random_state(robot, np.random.default_rng(3))
    robot.update(q, v)
    return _scene(robot)


def test_the_reference_is_a_copy_built_once() -> None:
    scene = _lwr_scene()
    ee, joints = scene.get_task("ee"), scene.get_task("joints")
    pose = pin.SE3(pin.exp3(np.array([0.1, -0.2, 0.3])), np.array([0.4, 0.1, 0.5]))
    given_ref = CartesianReference(np.arange(6.0), pose, None, 1.5)
    scene.set_reference("ee", given_ref)
    ref = ee.reference
    assert type(ref) is CartesianReference and ee.reference is ref  # (built once, then the same object)
    assert ref is not given_ref and ref.acceleration is not given_ref.acceleration and ref.pose is not pose
    np.testing.assert_array_equal(ref.acceleration, np.arange(6.0))
    np.testing.assert_array_equal(ref.pose.homogeneous, pose.homogeneous)
    assert ref.twist is None and ref.time == 1.5 and ee.reference_time == 1.5
    assert ee.target_view() is ref.acceleration  # (the array the rows read)
    given_ref.acceleration[:] = np.nan  # the caller reuses its objects: the task's copy is not theirs
    pose.translation = np.array([np.nan, 0.0, 0.0])
    assert np.isfinite(ee.target_view()).all() and np.isfinite(ee.reference.pose.translation).all()
    # a vector reference: class, every field copied, stamped by the scene clock when time is None
    given_joints = JointReference([1.0, 2.0, 3.0], position=[0.1, 0.2, 0.3])
    scene.set_reference("joints", given_joints)
    assert joints.reference_time == 2.0
    jref = joints.reference
    assert type(jref) is JointReference and jref.time is None and jref.velocity is None
    np.testing.assert_array_equal(jref.acceleration, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(jref.position, [0.1, 0.2, 0.3])
    assert joints.target_view() is jref.acceleration


def test_a_velocity_scene_keeps_the_twist_it_tracks() -> None:
    robot = lwr4()
    q, v = random_state(robot, np.random.default_rng(5))
    robot.update(q, v)
    scene = _scene(robot, VelocityScene)
    twist = np.linspace(-0.3, 0.2, 6)
    scene.set_reference("ee", CartesianReference(twist=twist))
    task = scene.get_task("ee")
    np.testing.assert_array_equal(task.target_view(), twist)
    assert task.target_view() is not twist and task.target_view() is task.reference.twist
    with pytest.raises(InvalidValueError, match=r"ee\.reference\.twist"):
        scene.set_reference("ee", CartesianReference(acceleration=np.zeros(6)))


def _nan_translation(ref: CartesianReference) -> None:
    ref.pose.translation = np.array([0.0, np.inf, 0.0])


def _nan_rotation(ref: CartesianReference) -> None:
    R = ref.pose.rotation.copy()
    R[1, 2] = np.nan
    ref.pose.rotation = R


def _nan_entry(ref: CartesianReference) -> None:
    ref.acceleration[2] = np.nan  # type: ignore[index]


def _short(ref: CartesianReference) -> None:
    ref.acceleration = np.zeros(5)


def _bad_time(ref: CartesianReference) -> None:
    ref.time = float("nan")


MUTATIONS = {
    "nan acceleration": (_nan_entry, InvalidValueError, r"ee\.reference\.acceleration"),
    "wrong size": (_short, InvalidValueError, r"ee\.reference\.acceleration"),
    "inf pose translation": (_nan_translation, InvalidValueError, r"ee\.reference\.pose"),
    "nan pose rotation": (_nan_rotation, InvalidValueError, r"ee\.reference\.pose"),
    "nan time": (_bad_time, InvalidValueError, r"ee\.reference\.time"),
}


@pytest.mark.parametrize("built", [False, True], ids=["pending", "built"])
@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_a_law_made_reference_mutated_afterwards_is_refused(mutation: str, built: bool) -> None:
    """The law's reference is the caller's object: anything done to it before set_reference is checked
    again, and a refused reference leaves the task's reference (built or not yet) as it was."""
    scene = _lwr_scene()
    task, law = scene.get_task("ee"), CartesianPD(kp=30.0, kd=5.0)
    target = _target(task, np.random.default_rng(1))
    scene.set_reference("ee", law.reference(task, target))
    if built:
        _ = task.reference
    before_state, before_time, before_view = task._ref_state, task.reference_time, task.target_view().copy()
    version = task._version
    ref = law.reference(task, target)
    mutate, error, name = MUTATIONS[mutation]
    mutate(ref)
    with pytest.raises(error, match=name):
        scene.set_reference("ee", ref)
    assert task._ref_state is before_state and task.reference_time == before_time and task._version == version
    np.testing.assert_array_equal(task.target_view(), before_view)
    assert np.isfinite(task.reference.acceleration).all() and task.reference.pose.isApprox(target)


def test_a_reference_of_the_wrong_class_is_refused() -> None:
    scene = _lwr_scene()
    scene.set_reference("joints", JointReference(np.zeros(3)))
    state = scene.get_task("joints")._ref_state
    with pytest.raises(ReferenceTypeError, match=r"joints") as info:
        scene.set_reference("joints", ComReference(np.zeros(3)))
    assert isinstance(info.value, TypeError)
    law = CartesianPD(kp=10.0, kd=1.0)
    with pytest.raises(ReferenceTypeError):
        scene.set_reference("joints", law.reference(scene.get_task("ee"), scene.get_task("ee").pose()))
    assert scene.get_task("joints")._ref_state is state


def test_large_finite_pose_entries_are_kept() -> None:
    """The pose check refuses only NaN and inf: |x|² overflowing to inf is still a finite pose."""
    scene = _lwr_scene()
    pose = pin.SE3(np.eye(3), np.array([1e300, -1e-300, 0.0]))
    scene.set_reference("ee", CartesianReference(np.zeros(6), pose))
    np.testing.assert_array_equal(scene.get_task("ee").reference.pose.translation, [1e300, -1e-300, 0.0])


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_copies_carry_a_reference_not_built_yet(how: str) -> None:
    scene = _lwr_scene()
    law = CartesianPD(kp=20.0, kd=4.0)
    task = scene.get_task("ee")
    target = _target(task, np.random.default_rng(2))
    scene.set_reference("ee", law.reference(task, target))
    scene.set_reference("joints", JointPD(kp=5.0, kd=1.0).reference(scene.get_task("joints"), np.zeros(3)))
    assert type(task._ref_state) is tuple  # (not built yet)
    clone = copy.deepcopy(scene) if how == "deepcopy" else pickle.loads(pickle.dumps(scene))
    for name in ("ee", "joints"):
        mine, theirs = scene.get_task(name), clone.get_task(name)
        np.testing.assert_array_equal(theirs.target_view(), mine.target_view())
        assert theirs.target_view() is theirs.reference.acceleration
        assert theirs.reference.acceleration is not mine.reference.acceleration
        theirs.target_view()[:] = 7.0  # (a copy's in-place update is its own)
        assert not np.any(mine.target_view() == 7.0)
    assert clone.get_task("ee").reference.pose.isApprox(target)
