"""One implementation behind both reference APIs (issue 26): ``law.reference(task, target)`` and
``scene.bind(name, law, target)`` evaluate the law through the same :class:`~wbcpy.controllers.LawEvaluator`.

Oracle: the laws written out here from raw Pinocchio quantities (placements, frame velocities, COM) and
finite differences of the relative translation, for every kind of task the evaluator distinguishes
(a frame relative to the fixed base, with ref_frame axes of a moving link, relative to a moving root;
joints; COM); both APIs are checked against it, on random states, targets, gains and feed-forward.
"""

from __future__ import annotations

import copy
import pickle
import sys

import numpy as np
import pinocchio as pin
import pytest
from _scene_helpers import lwr4, random_state, relative_angular_velocity
from hypothesis import given, settings
from hypothesis import strategies as st

from wbcpy import AccelerationScene, VelocityScene
from wbcpy.controllers import CartesianPD, CartesianVelocityLaw, ComPD, JointPD
from wbcpy.errors import ConfigError, InvalidValueError
from wbcpy.tasks import CartesianReference, TaskConfig

#: (root, tip, ref_frame) of the Cartesian tasks: the fixed base's world axes, a moving link's axes, a
#: moving root (None = the default)
FRAMES = {
    "base": (None, "lwr_ee", None),
    "moving_ref": (None, "lwr_ee", "lwr_link_2"),
    "moving_root": ("lwr_link_2", "lwr_ee", "lwr_link_4"),
}


def _scene(robot, cls=AccelerationScene):
    scene = cls(robot, clock=lambda: 2.0)
    tasks = [TaskConfig(name, "cart", root=r, tip=t, ref_frame=f) for name, (r, t, f) in FRAMES.items()]
    tasks += [TaskConfig("joints", "jnt", joint_names=["lwr_joint_5", "lwr_joint_2", "lwr_joint_7"]),
              TaskConfig("com", "com")]  # fmt: skip
    scene.configure(tasks)
    return scene


def _relative(model, q, root: int, tip: int) -> pin.SE3:
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    return data.oMf[root].actInv(data.oMf[tip])


def _cartesian_oracle(robot, task, q, v, target, kp, kd, vd, ad, limit) -> np.ndarray:
    """K_ff a_d + K_d (v_d − ẋ) + K_p (p_d − p, log₃(R_d Rᵀ)) in root coordinates, saturated, rotated into
    ref_frame axes; ẋ = (d/dt of the tip position in root coordinates by central differences,
    ω_tip − ω_root in root axes)."""
    model = robot.model
    root, tip, ref = (model.getFrameId(n) for n in (task.root, task.tip, task.ref_frame))
    M = _relative(model, q, root, tip)
    h = 1e-6
    lin = (
        _relative(model, pin.integrate(model, q, v * h), root, tip).translation
        - _relative(model, pin.integrate(model, q, -v * h), root, tip).translation
    ) / (2 * h)
    twist = np.concatenate((lin, relative_angular_velocity(model, q, v, root, tip)))
    e = np.concatenate((target.translation - M.translation, pin.log3(target.rotation @ M.rotation.T)))
    a = kp * e + kd * (vd - twist) + ad
    ratio = np.max(np.abs(a) / limit)
    a = a / max(ratio, 1.0)
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    R = data.oMf[ref].rotation.T @ data.oMf[root].rotation
    return np.concatenate((R @ a[:3], R @ a[3:]))


def _target(task, rng) -> pin.SE3:
    pose = task.pose()
    return pin.SE3(pin.exp3(rng.normal(scale=0.3, size=3)) @ pose.rotation,
                   pose.translation + rng.normal(scale=0.1, size=3))  # fmt: skip


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), kind=st.sampled_from(sorted(FRAMES)))
def test_cartesian_references_of_both_apis_against_raw_pinocchio(seed, kind):
    robot = lwr4()
    rng = np.random.default_rng(seed)
    scene = _scene(robot)
    task = scene.get_task(kind)
    robot.update(*random_state(robot, rng))
    kp, kd = rng.uniform(1.0, 100.0, size=6), float(rng.uniform(0.0, 20.0))
    limit = rng.uniform(5.0, 200.0, size=6)
    law = CartesianPD(kp=kp, kd=kd, max_acceleration=limit)
    target, vd, ad = _target(task, rng), rng.normal(size=6), rng.normal(size=6)
    binding = scene.bind(kind, law, target, vd, ad)
    for _ in range(2):  # the bound law follows the robot; the checked one is evaluated again
        q, v = random_state(robot, rng)
        robot.update(q, v)
        expected = _cartesian_oracle(robot, task, q, v, target, kp, kd, vd, ad, limit)
        checked = law.reference(task, target, vd, ad)
        np.testing.assert_allclose(checked.acceleration, expected, atol=1e-6)
        binding.update()
        np.testing.assert_allclose(task.reference.acceleration, expected, atol=1e-6)
        assert checked.pose is not target and np.array_equal(checked.pose.homogeneous, target.homogeneous)


def test_binding_with_the_axes_of_a_moving_link_uses_them():
    """A fixed root with the ref_frame of a moving link is not the world-axes fast path (its placement in
    the model is relative to its joint): the bound reference is rotated into the link's current axes."""
    robot = lwr4()
    rng = np.random.default_rng(8)
    scene = _scene(robot)
    task = scene.get_task("moving_ref")
    q, v = random_state(robot, rng)
    robot.update(q, v)
    target = _target(task, rng)
    binding = scene.bind("moving_ref", CartesianPD(kp=40.0, kd=7.0), target)
    expected = _cartesian_oracle(robot, task, q, v, target, 40.0, 7.0, np.zeros(6), np.zeros(6), np.inf)
    np.testing.assert_allclose(task.reference.acceleration, expected, atol=1e-6)
    assert not binding.evaluator.fast


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_joint_and_com_references_of_both_apis_against_raw_pinocchio(seed):
    robot = lwr4()
    rng = np.random.default_rng(seed)
    scene = _scene(robot)
    joints, com = scene.get_task("joints"), scene.get_task("com")
    q, v = random_state(robot, rng)
    robot.update(q, v)
    idx = [robot.joint_v_index(n) for n in joints.config.joint_names]
    jd, jv, ja = rng.normal(size=3), rng.normal(size=3), rng.normal(size=3)
    jlaw = JointPD(kp=rng.uniform(1, 50, size=3), kd=2.0, kff=0.5, max_acceleration=30.0)
    expected_j = jlaw.kp * (jd - q[idx]) + 2.0 * (jv - v[idx]) + 0.5 * ja
    expected_j /= max(np.max(np.abs(expected_j)) / 30.0, 1.0)
    data = robot.model.createData()
    c = pin.centerOfMass(robot.model, data, q, v).copy()
    dc = data.vcom[0].copy()
    cd, cv, ca = c + rng.normal(scale=0.05, size=3), rng.normal(size=3), rng.normal(size=3)
    claw = ComPD(kp=[5.0, 6.0, 7.0], kd=3.0)
    expected_c = np.array([5.0, 6.0, 7.0]) * (cd - c) + 3.0 * (cv - dc) + ca
    ref = jlaw.reference(joints, jd, jv, ja)
    np.testing.assert_allclose(ref.acceleration, expected_j, atol=1e-12)
    np.testing.assert_array_equal(ref.position, jd)
    np.testing.assert_allclose(claw.reference(com, cd, cv, ca).acceleration, expected_c, atol=1e-12)
    scene.bind("joints", jlaw, jd, jv, ja)
    scene.bind("com", claw, cd, cv, ca)
    np.testing.assert_allclose(joints.reference.acceleration, expected_j, atol=1e-12)
    np.testing.assert_allclose(com.reference.acceleration, expected_c, atol=1e-12)


def test_a_reassigned_gain_is_used_and_gains_are_read_only():
    robot = lwr4()
    rng = np.random.default_rng(2)
    scene = _scene(robot)
    robot.update(*random_state(robot, rng))
    task = scene.get_task("joints")
    law = JointPD(kp=4.0, kd=0.0)
    x = task.positions()
    np.testing.assert_allclose(law.reference(task, x + 1.0).acceleration, 4.0)
    law.kp = 9.0  # (a plain number: validated when the law is next evaluated)
    np.testing.assert_allclose(law.reference(task, x + 1.0).acceleration, 9.0)
    with pytest.raises(ValueError):
        law.kd[...] = 3.0  # gains change by assignment only
    law.kd = -1.0
    with pytest.raises(ConfigError):
        law.reference(task, x)


def test_bad_inputs_raise_and_change_nothing():
    robot = lwr4()
    rng = np.random.default_rng(6)
    scene = _scene(robot)
    robot.update(*random_state(robot, rng))
    task = scene.get_task("base")
    law = CartesianPD(kp=10.0, kd=1.0)
    target = _target(task, rng)
    good = law.reference(task, target).acceleration
    bad_pose = pin.SE3(target)
    bad_pose.translation = np.array([0.0, np.nan, 0.0])
    not_a_rotation = pin.SE3(2.0 * target.rotation, target.translation)
    for bad in (bad_pose, not_a_rotation, target.homogeneous):
        with pytest.raises(InvalidValueError):
            law.reference(task, bad)
    with pytest.raises(InvalidValueError):
        law.reference(task, target, [0.0, np.inf, 0.0, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal(law.reference(task, target).acceleration, good)
    # the scene's copy: a malformed reference leaves the task's reference as it was
    scene.set_reference("base", law.reference(task, target))
    before = task.reference
    kept = before.acceleration.copy()
    for ref in (CartesianReference(good, bad_pose), CartesianReference(np.r_[good[:5], np.nan]),
                CartesianReference(good[:5]), CartesianReference(good, twist=[0.0] * 5),
                CartesianReference(good, time=float("nan"))):  # fmt: skip
        with pytest.raises(InvalidValueError):
            scene.set_reference("base", ref)
        assert task.reference is before
        np.testing.assert_array_equal(task.reference.acceleration, kept)
    ref = law.reference(task, target)
    scene.set_reference("base", ref)
    ref.acceleration[:] = np.nan  # the scene keeps a copy
    ref.pose.translation = np.zeros(3)
    np.testing.assert_array_equal(task.reference.acceleration, good)
    np.testing.assert_array_equal(task.reference.pose.translation, target.translation)


def test_a_law_of_the_wrong_kind_raises():
    robot = lwr4()
    robot.update(np.zeros(7))
    scene = _scene(robot)
    with pytest.raises(ConfigError):
        CartesianPD(kp=1.0, kd=1.0).reference(scene.get_task("joints"), pin.SE3.Identity())
    with pytest.raises(ConfigError):
        JointPD(kp=1.0, kd=1.0).reference(scene.get_task("base"), np.zeros(6))
    with pytest.raises(ConfigError):
        ComPD(kp=1.0, kd=1.0).reference(scene.get_task("joints"), np.zeros(3))
    with pytest.raises(InvalidValueError):
        JointPD(kp=1.0, kd=1.0).reference("joints", np.zeros(3))  # type: ignore[arg-type]


def test_copies_and_pickles_of_a_used_law_leave_the_tasks_behind():
    robot = lwr4()
    rng = np.random.default_rng(9)
    scene = _scene(robot)
    robot.update(*random_state(robot, rng))
    task = scene.get_task("base")
    law = CartesianPD(kp=[1, 2, 3, 4, 5, 6], kd=2.0)
    target = _target(task, rng)
    expected = law.reference(task, target).acceleration
    for other in (copy.deepcopy(law), pickle.loads(pickle.dumps(law)), copy.copy(law)):
        assert other._evaluators == {}
        np.testing.assert_array_equal(other.kp, law.kp)
        np.testing.assert_allclose(other.reference(task, target).acceleration, expected, rtol=1e-15)
    assert len(pickle.dumps(law)) < 2000  # (no robot model inside)


def test_velocity_law_reference_against_raw_pinocchio():
    robot = lwr4()
    rng = np.random.default_rng(10)
    scene = _scene(robot, VelocityScene)
    task = scene.get_task("moving_ref")
    q = random_state(robot, rng)[0]
    robot.update(q)
    target, vd = _target(task, rng), rng.normal(size=6)
    ref = CartesianVelocityLaw(kp=3.0, kff=0.5).reference(task, target, vd)
    # the velocity law is the PD law's oracle with K_d = 0 and the feed-forward K_ff v_d
    expected = _cartesian_oracle(robot, task, q, np.zeros(7), target, 3.0, 0.0, vd, 0.5 * vd, np.inf)
    np.testing.assert_allclose(ref.twist, expected, atol=1e-9)
    assert ref.acceleration is None
    scene.set_reference("moving_ref", ref)


def test_threads_sharing_a_law_get_their_own_targets():
    """``reference`` validates into locals (the evaluator is only read): threads evaluating one law for one
    task with different targets each get the reference of their own target (a target kept in the
    evaluator between validation and evaluation mixed them: 58 of 20,000 wrong)."""
    import threading

    robot = lwr4()
    rng = np.random.default_rng(12)
    scene = _scene(robot)
    q, v = random_state(robot, rng)
    robot.update(q, v)
    task = scene.get_task("joints")
    law = JointPD(kp=[3.0, 5.0, 7.0], kd=1.0)
    idx = [robot.joint_v_index(n) for n in task.config.joint_names]
    targets = [rng.normal(size=3) for _ in range(4)]
    expected = [law.kp * (t - q[idx]) - v[idx] for t in targets]
    errors: list[str] = []

    def run(k: int) -> None:
        for _ in range(5000):
            got = law.reference(task, targets[k]).acceleration
            if not np.allclose(got, expected[k], atol=1e-12):
                errors.append(f"thread {k}: {got} != {expected[k]}")
                return

    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # (thread switches inside reference(), where a shared state would mix)
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert not errors, errors[:2]
