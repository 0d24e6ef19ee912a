"""Reference bindings (scene.bind): the hot-loop API gives the references of the checked API.

Both APIs evaluate the law through one ``LawEvaluator`` (issue 26): the comparisons here check the
plumbing (stamps, reference arrays, the scene's solve); the values are checked against the law written out
from raw Pinocchio quantities here, in test_controllers.py and in controllers/test_one_reference_path.py.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from _scene_helpers import lwr4, random_state

from wbcpy import AccelerationScene, InverseDynamicsScene, VelocityScene
from wbcpy.controllers import (
    CartesianPD,
    CartesianVelocityLaw,
    ComPD,
    ComVelocityLaw,
    JointPD,
    JointVelocityLaw,
)
from wbcpy.errors import ConfigError, InvalidValueError, UnknownNameError
from wbcpy.tasks import TaskConfig


def _scene(robot, cls=AccelerationScene, **kw):
    scene = cls(robot, clock=lambda: 7.0, **kw)
    joints = [n for n in robot.joint_names if n != "root_joint"]
    scene.configure([
        TaskConfig("ee", "cart", tip="lwr_ee"),
        TaskConfig("rel", "cart", root="lwr_link_3", tip="lwr_ee", ref_frame="lwr_link_5"),
        TaskConfig("posture", "jnt", joint_names=joints),
        TaskConfig("com", "com"),
    ])  # fmt: skip
    return scene


def _target(task) -> pin.SE3:
    pose = task.pose()
    return pin.SE3(
        pin.exp3(np.array([0.1, -0.2, 0.05])) @ pose.rotation, pose.translation + np.array([0.05, -0.1, 0.2])
    )


@pytest.mark.parametrize("floating", [False, True])
def test_pd_bindings_equal_the_checked_references(floating):
    robot = lwr4() if not floating else lwr4_floating()
    rng = np.random.default_rng(3)
    scene = _scene(robot)
    laws = {"ee": CartesianPD(kp=[100, 90, 80, 70, 60, 50], kd=20, kff=0.5, max_acceleration=1e3),
            "rel": CartesianPD(kp=30, kd=[1, 2, 3, 4, 5, 6]),
            "posture": JointPD(kp=10, kd=6.3), "com": ComPD(kp=[5, 6, 7], kd=3)}  # fmt: skip
    robot.update(*random_state(robot, rng))
    joints = scene.get_task("posture")
    targets = {
        "ee": _target(scene.get_task("ee")),
        "rel": _target(scene.get_task("rel")),
        "posture": joints.positions() + 0.1,
        "com": scene.get_task("com").position() + 0.01,
    }
    ff = {"ee": (rng.normal(size=6), rng.normal(size=6)), "rel": (None, None),
          "posture": (rng.normal(size=joints.n), None), "com": (None, rng.normal(size=3))}  # fmt: skip
    bindings = {k: scene.bind(k, laws[k], targets[k], *ff[k]) for k in laws}
    for _ in range(3):  # several states: the bindings follow the robot
        robot.update(*random_state(robot, rng))
        for name, binding in bindings.items():
            binding.update()
            task = scene.get_task(name)
            expected = laws[name].reference(task, targets[name], *ff[name]).acceleration
            np.testing.assert_allclose(task.reference.acceleration, expected, rtol=1e-12, atol=1e-12)
            assert task.reference_time == 7.0
    # the scene solves with them: same q̈ as with references set through the checked API
    qdd = scene.solve(scene.update()).acceleration
    other = _scene(robot)
    for name in laws:
        other.set_reference(name, laws[name].reference(other.get_task(name), targets[name], *ff[name]))
    np.testing.assert_allclose(other.solve(other.update()).acceleration, qdd, rtol=1e-10, atol=1e-10)


def lwr4_floating():
    from wbcpy import load_robot

    return load_robot("lwr4", floating_base=True)


def test_fast_cartesian_path_against_raw_pinocchio():
    """The fixed-root path: e = (p_d − p, log3(R_d Rᵀ)), twist = J q̇ (world axes), written out here."""
    robot = lwr4()
    rng = np.random.default_rng(4)
    scene = _scene(robot)
    q, v = random_state(robot, rng)
    robot.update(q, v)
    target = _target(scene.get_task("ee"))
    binding = scene.bind("ee", CartesianPD(kp=100, kd=20), target)
    model, data = robot.model, robot.model.createData()
    fid = model.getFrameId("lwr_ee")
    pin.forwardKinematics(model, data, q, v)
    pin.updateFramePlacements(model, data)
    M = data.oMf[fid]
    twist = pin.getFrameVelocity(model, data, fid, pin.LOCAL_WORLD_ALIGNED).vector
    e = np.concatenate([target.translation - M.translation, pin.log3(target.rotation @ M.rotation.T)])
    np.testing.assert_allclose(scene.get_task("ee").reference.acceleration, 100 * e - 20 * twist, atol=1e-10)
    assert binding.evaluator.fast


def test_velocity_bindings_equal_the_checked_references():
    robot = lwr4()
    rng = np.random.default_rng(5)
    scene = VelocityScene(robot, clock=lambda: 3.0)
    scene.configure(
        [
            TaskConfig("ee", "cart", tip="lwr_ee"),
            TaskConfig("post", "jnt", joint_names=robot.joint_names),
            TaskConfig("com", "com"),
        ]
    )
    robot.update(random_state(robot, rng)[0])
    laws = {"ee": CartesianVelocityLaw(kp=5, max_velocity=0.3), "post": JointVelocityLaw(kp=2),
            "com": ComVelocityLaw(kp=1)}  # fmt: skip
    targets = {"ee": _target(scene.get_task("ee")), "post": np.zeros(7), "com": np.array([0.1, 0.0, 0.5])}
    bindings = {k: scene.bind(k, laws[k], targets[k]) for k in laws}
    robot.update(random_state(robot, rng)[0])
    for name, binding in bindings.items():
        binding.update()
        task = scene.get_task(name)
        ref = laws[name].reference(task, targets[name])
        got = task.reference.twist if name == "ee" else task.reference.velocity
        np.testing.assert_allclose(got, ref.twist if name == "ee" else ref.velocity, rtol=1e-12, atol=1e-12)


def test_bad_bindings_raise_and_change_nothing():
    robot = lwr4()
    robot.update(np.zeros(7))
    scene = _scene(robot)
    with pytest.raises(ConfigError):
        scene.bind("ee", JointPD(kp=1, kd=1), np.zeros(7))  # a joint law on a Cartesian task
    with pytest.raises(ConfigError):
        scene.bind("posture", JointVelocityLaw(kp=1), np.zeros(7))  # a velocity law in an acceleration scene
    with pytest.raises(ConfigError):
        scene.bind("com", ComPD(kp=[1, 2], kd=1), np.zeros(3))  # per-axis gains of the wrong size
    with pytest.raises(UnknownNameError):
        scene.bind("nope", JointPD(kp=1, kd=1), np.zeros(7))
    with pytest.raises(InvalidValueError):
        scene.bind("ee", CartesianPD(kp=1, kd=1), pin.SE3(np.zeros((3, 3)), np.zeros(3)))  # not a rotation
    assert all(scene.get_task(n).reference is None for n in ("ee", "posture", "com"))
    binding = scene.bind("posture", JointPD(kp=1, kd=1), np.zeros(7))
    before = scene.get_task("posture").reference.acceleration.copy()
    with pytest.raises(InvalidValueError):
        binding.set_target([np.nan] * 7)
    with pytest.raises(InvalidValueError):
        binding.set_target(np.zeros(6))
    np.testing.assert_array_equal(scene.get_task("posture").reference.acceleration, before)


@pytest.mark.parametrize("cls", [AccelerationScene, InverseDynamicsScene])
def test_binding_on_a_humanoid(example_robot, cls):
    """Talos: COM, a sole relative to the world (fast path) and the posture without the free-flyer. In
    an InverseDynamicsScene the COM binding takes the COM terms from the dynamics pass it runs first."""
    talos = example_robot("talos")
    q0 = talos.reference_configuration("half_sitting")
    rng = np.random.default_rng(6)
    talos.update(q0, 0.1 * rng.normal(size=talos.nv))
    scene = cls(talos)
    joints = [n for n in talos.joint_names if n != "root_joint"]
    scene.configure(
        [
            TaskConfig("com", "com"),
            TaskConfig("lf", "cart", root="universe", tip="left_sole_link"),
            TaskConfig("rf", "cart", tip="right_sole_link"),  # relative to the moving pelvis
            TaskConfig("post", "jnt", joint_names=joints),
        ]
    )
    lf = scene.get_task("lf")
    target = lf.pose()
    laws = {"com": ComPD(kp=100, kd=20), "lf": CartesianPD(kp=100, kd=20), "rf": CartesianPD(kp=50, kd=10),
            "post": JointPD(kp=10, kd=6)}  # fmt: skip
    targets = {"com": scene.get_task("com").position(), "lf": target, "rf": scene.get_task("rf").pose(),
               "post": q0[7:]}  # fmt: skip
    bindings = {k: scene.bind(k, laws[k], targets[k]) for k in laws}
    talos.update(
        pin.integrate(talos.model, q0, 0.01 * rng.normal(size=talos.nv)), 0.1 * rng.normal(size=talos.nv)
    )
    for name, b in bindings.items():
        b.update()
        expected = laws[name].reference(scene.get_task(name), targets[name]).acceleration
        np.testing.assert_allclose(
            scene.get_task(name).reference.acceleration, expected, rtol=1e-11, atol=1e-11
        )
    assert bindings["lf"].evaluator.fast and not bindings["rf"].evaluator.fast
