"""A Cartesian binding's target as a 4×4 homogeneous matrix: the same reference as the ``pin.SE3`` target,
checked as strictly, kept as a copy of its own."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pinocchio as pin
import pytest
from _scene_helpers import lwr4, random_state

from wbcpy import AccelerationScene, VelocityScene
from wbcpy.controllers import CartesianPD, CartesianVelocityLaw
from wbcpy.errors import InvalidValueError
from wbcpy.tasks import TaskConfig

_TASKS = {
    "ee": TaskConfig("ee", "cart", tip="lwr_ee"),
    "rel": TaskConfig("rel", "cart", root="lwr_link_3", tip="lwr_ee", ref_frame="lwr_link_5"),
}


def _scene(robot, cls, name="ee"):
    scene = cls(robot)
    scene.configure([_TASKS[name]])
    return scene


def _target(task) -> pin.SE3:
    pose = task.pose()
    return pin.SE3(
        pin.exp3(np.array([0.2, -0.1, 0.3])) @ pose.rotation, pose.translation + np.array([0.04, -0.02, 0.1])
    )


@pytest.mark.parametrize("kff", [0.7, 1.0, [1.0, 1.0, 1.0, 1.0, 1.0, 0.5]])
def test_matrix_target_against_raw_pinocchio(kff):
    """Velocity law, world-axes path: twist_ref = K_p (p_d − p, log3(R_d Rᵀ)) + K_ff v_d, written out here
    (K_ff = 1, the default, included)."""
    robot = lwr4()
    rng = np.random.default_rng(11)
    q, _ = random_state(robot, rng)
    robot.update(q)
    scene = _scene(robot, VelocityScene)
    target = _target(scene.get_task("ee"))
    vd = rng.normal(size=6)
    scene.bind("ee", CartesianVelocityLaw(kp=[5, 4, 3, 2, 1, 0.5], kff=kff), target.homogeneous, vd)
    model, data = robot.model, robot.model.createData()
    pin.framesForwardKinematics(model, data, q)
    M = data.oMf[model.getFrameId("lwr_ee")]
    e = np.concatenate([target.translation - M.translation, pin.log3(target.rotation @ M.rotation.T)])
    expected = np.array([5, 4, 3, 2, 1, 0.5]) * e + np.asarray(kff) * vd
    np.testing.assert_allclose(scene.get_task("ee").reference.twist, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("cls", [AccelerationScene, VelocityScene])
@pytest.mark.parametrize("name", ["ee", "rel"])
def test_matrix_and_se3_targets_give_the_same_references(cls, name):
    """Both Cartesian paths (world axes; moving root with other reference axes), both scene levels."""
    robot = lwr4()
    rng = np.random.default_rng(12)
    robot.update(*random_state(robot, rng))
    scenes = [_scene(robot, cls, name), _scene(robot, cls, name)]
    pd = cls is AccelerationScene
    law = CartesianPD(kp=30, kd=[1, 2, 3, 4, 5, 6]) if pd else CartesianVelocityLaw(kp=3)
    target = _target(scenes[0].get_task(name))
    ff = rng.normal(size=6)
    by_se3 = scenes[0].bind(name, law, target, ff)
    by_matrix = scenes[1].bind(name, law, target.homogeneous, ff)
    field = "acceleration" if cls is AccelerationScene else "twist"
    for _ in range(3):
        robot.update(*random_state(robot, rng))
        by_se3.update()
        by_matrix.update()
        a, b = (getattr(s.get_task(name).reference, field) for s in scenes)
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12)
    x1, x0 = (s.solve(s.update()).values for s in scenes[::-1])
    np.testing.assert_allclose(x1, x0, rtol=1e-10, atol=1e-12)


class _Sub(np.ndarray):
    """An ndarray subclass (its instances are matrices of their own kind)."""


def test_the_callers_array_is_copied():
    robot = lwr4()
    robot.update(np.full(7, 0.3))
    scene = _scene(robot, VelocityScene)
    target = _target(scene.get_task("ee"))
    M = target.homogeneous.copy()
    binding = scene.bind("ee", CartesianVelocityLaw(kp=2), M)
    before = scene.get_task("ee").reference.twist.copy()
    M[:3, 3] += 1.0  # the caller writes its next target into the same array
    binding.update()
    np.testing.assert_array_equal(scene.get_task("ee").reference.twist, before)
    np.testing.assert_array_equal(binding.target, target.homogeneous)
    assert binding.target is not M
    # an ndarray subclass is read as its plain array
    binding.set_target(target.homogeneous.view(_Sub))
    assert type(binding.target) is np.ndarray
    np.testing.assert_array_equal(scene.get_task("ee").reference.twist, before)
    # copies and pickles of the scene carry the reference the matrix target gave
    for other in (copy.deepcopy(scene), pickle.loads(pickle.dumps(scene))):
        np.testing.assert_array_equal(other.get_task("ee").reference.twist, before)


def _bad_matrices():
    good = pin.SE3(pin.exp3(np.array([0.1, 0.2, 0.3])), np.array([0.3, 0.0, 0.5])).homogeneous
    nan = good.copy()
    nan[1, 3] = np.nan
    inf = good.copy()
    inf[0, 0] = np.inf
    scaled = good.copy()
    scaled[:3, :3] *= 1.01
    reflection = good.copy()
    reflection[:3, 2] *= -1.0
    last = good.copy()
    last[3, 0] = 0.1
    last_nan = good.copy()
    last_nan[3, 3] = np.nan
    return {"shape 3x4": good[:3], "ints": np.eye(4, dtype=int), "float32": good.astype(np.float32),
            "nan": nan, "inf": inf, "not orthonormal": scaled, "reflection": reflection, "last row": last,
            "last row nan": last_nan, "vector": good.ravel()}  # fmt: skip


@pytest.mark.parametrize("case", list(_bad_matrices()))
def test_bad_matrices_raise_and_change_nothing(case):
    robot = lwr4()
    robot.update(np.full(7, 0.2))
    scene = _scene(robot, VelocityScene)
    target = _target(scene.get_task("ee"))
    binding = scene.bind("ee", CartesianVelocityLaw(kp=2), target)
    before = scene.get_task("ee").reference.twist.copy()
    with pytest.raises(InvalidValueError) as info:
        binding.set_target(_bad_matrices()[case])
    assert info.value.argument == "target"
    binding.update()
    np.testing.assert_array_equal(scene.get_task("ee").reference.twist, before)
    assert binding.target is target


def test_the_checked_law_api_still_takes_se3_only():
    """``law.reference`` builds a CartesianReference whose pose is a pin.SE3: a matrix is refused there."""
    robot = lwr4()
    robot.update(np.full(7, 0.2))
    scene = _scene(robot, VelocityScene)
    task = scene.get_task("ee")
    with pytest.raises(InvalidValueError):
        CartesianVelocityLaw(kp=1).reference(task, _target(task).homogeneous)
