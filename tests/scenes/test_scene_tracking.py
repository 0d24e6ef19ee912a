"""AccelerationScene tracking: Cartesian (fixed and moving root), joint subset, COM; repeatability.

Oracles: raw Pinocchio Jacobians and classical accelerations written here, and finite-difference second
derivatives of the relative pose / relative angular velocity and of the COM along the motion with the
solution's q̈ (tests/_scene_helpers.py). Every test runs on every available QP backend.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from _scene_helpers import (
    BACKENDS,
    LWA,
    com_acceleration_fd,
    example_robot,
    lwr4,
    random_state,
    relative_acceleration_fd,
)

from wbcpy import AccelerationScene
from wbcpy.tasks import CartesianReference, ComReference, JointReference, TaskConfig


@pytest.fixture(scope="module")
def arm():
    return lwr4()


def _solve(robot, configs, refs, solver, **options):
    scene = AccelerationScene(robot, solver=solver, **options)
    scene.configure(configs)
    for name, ref in refs.items():
        scene.set_reference(name, ref)
    scene.solve(scene.update())
    return scene, scene.get_solver_output_raw()


@pytest.mark.parametrize("solver", BACKENDS)
def test_cartesian_fixed_root_tracks_reference(arm, solver):
    rng = np.random.default_rng(1)
    q, v = random_state(arm, rng)
    arm.update(q, v)
    ref = rng.normal(size=6) * 2.0
    cfg = TaskConfig("ee", "cart", root="lwr_base_link", tip="lwr_ee")
    _, qdd = _solve(arm, [cfg], {"ee": CartesianReference(ref)}, solver, regularization=1e-10)
    # oracle: raw Pinocchio world-aligned Jacobian and classical acceleration, rotated into root axes
    model, data = arm.model, arm.model.createData()
    tip, root = model.getFrameId("lwr_ee"), model.getFrameId("lwr_base_link")
    pin.computeJointJacobians(model, data, q)
    pin.forwardKinematics(model, data, q, v, np.zeros(arm.nv))
    pin.updateFramePlacements(model, data)
    J = pin.getFrameJacobian(model, data, tip, LWA)
    bias = pin.getFrameClassicalAcceleration(model, data, tip, LWA).vector
    Rt = data.oMf[root].rotation.T
    acc = J @ qdd + bias
    got = np.concatenate((Rt @ acc[:3], Rt @ acc[3:]))
    np.testing.assert_allclose(got, ref, atol=1e-6, rtol=0)


@pytest.mark.parametrize("solver", BACKENDS)
@pytest.mark.parametrize(("root", "tip"), [("lwr_link_1", "lwr_ee"), ("lwr_link_7", "lwr_link_1")])
def test_cartesian_moving_root_tracks_reference(arm, solver, root, tip):
    rng = np.random.default_rng(2)
    q, v = random_state(arm, rng)
    arm.update(q, v)
    ref = rng.normal(size=6)
    cfg = TaskConfig("rel", "cart", root=root, tip=tip)
    _, qdd = _solve(arm, [cfg], {"rel": CartesianReference(ref)}, solver, regularization=1e-10)
    model = arm.model
    fd = relative_acceleration_fd(model, q, v, qdd, model.getFrameId(root), model.getFrameId(tip))
    np.testing.assert_allclose(fd, ref, atol=1e-6, rtol=0)


def test_cartesian_rows_match_finite_differences_for_any_acceleration(arm):
    """A q̈ + bias is the relative acceleration for an arbitrary q̈, with ref_frame ≠ root."""
    rng = np.random.default_rng(3)
    q, v = random_state(arm, rng)
    a = rng.normal(size=arm.nv)
    arm.update(q, v)
    scene = AccelerationScene(arm)
    scene.configure([TaskConfig("rel", "cart", root="lwr_link_2", tip="lwr_ee", ref_frame="lwr_link_5")])
    task = scene.get_task("rel")
    task.compute()
    model = arm.model
    root, ref = model.getFrameId("lwr_link_2"), model.getFrameId("lwr_link_5")
    fd_root = relative_acceleration_fd(model, q, v, a, root, model.getFrameId("lwr_ee"))
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    R = data.oMf[ref].rotation.T @ data.oMf[root].rotation  # root axes -> ref_frame axes
    expected = np.concatenate((R @ fd_root[:3], R @ fd_root[3:]))
    np.testing.assert_allclose(task.A @ a + task.bias, expected, atol=1e-7, rtol=0)


@pytest.mark.parametrize("solver", BACKENDS)
def test_panda_cartesian_moving_root(solver):
    panda = example_robot("panda")
    rng = np.random.default_rng(4)
    q, v = random_state(panda, rng, margin=0.05)
    panda.update(q, v)
    ref = rng.normal(size=6)
    cfg = TaskConfig("hand", "cart", root="panda_link1", tip="panda_hand")
    _, qdd = _solve(panda, [cfg], {"hand": CartesianReference(ref)}, solver, regularization=1e-10)
    model = panda.model
    fd = relative_acceleration_fd(
        model, q, v, qdd, model.getFrameId("panda_link1"), model.getFrameId("panda_hand")
    )
    np.testing.assert_allclose(fd, ref, atol=1e-6, rtol=0)


@pytest.mark.parametrize("solver", BACKENDS)
def test_repeated_update_and_solve_are_identical(arm, solver):
    rng = np.random.default_rng(5)
    q, v = random_state(arm, rng)
    arm.update(q, v)
    scene = AccelerationScene(arm, solver=solver, joint_limits=True)
    scene.configure(
        [
            TaskConfig("ee", "cart", tip="lwr_ee", root="lwr_link_1"),
            TaskConfig("posture", "jnt", joint_names=arm.joint_names, priority=1),
        ]
    )
    scene.set_reference("ee", CartesianReference(rng.normal(size=6)))
    scene.set_reference("posture", JointReference(rng.normal(size=7)))
    hqps, sols = [], []
    for _ in range(3):
        hqp = scene.update()
        scene.solve(hqp)
        hqps.append(hqp)
        sols.append(scene.get_solver_output_raw())
    first = hqps[0]
    for other in hqps[1:]:
        assert other is not first
        assert len(other.levels) == len(first.levels) == 2
        for la, lb in zip(first.levels, other.levels, strict=True):
            assert np.array_equal(la.A, lb.A)
            assert np.array_equal(la.y, lb.y)
            assert np.array_equal(la.regularization, lb.regularization)
        assert np.array_equal(first.lb, other.lb)
        assert np.array_equal(first.ub, other.ub)
    for sol in sols[1:]:
        np.testing.assert_allclose(sol, sols[0], atol=1e-12, rtol=0)


@pytest.mark.parametrize("solver", BACKENDS)
def test_joint_subset_in_any_order_is_tracked(arm, solver):
    rng = np.random.default_rng(6)
    q, v = random_state(arm, rng)
    arm.update(q, v)
    names = ["lwr_joint_5", "lwr_joint_2", "lwr_joint_7"]
    ref = np.array([1.5, -2.0, 0.25])
    cfg = TaskConfig("sub", "jnt", joint_names=names)
    scene, qdd = _solve(arm, [cfg], {"sub": JointReference(ref)}, solver)
    idx = [arm.joint_v_index(n) for n in names]
    np.testing.assert_allclose(qdd[idx], ref, atol=1e-6, rtol=0)
    # λ-regularised closed form: tracked joints ref/(1+λ), the others stay at 0
    others = np.setdiff1d(np.arange(arm.nv), idx)
    np.testing.assert_allclose(qdd[others], 0.0, atol=1e-9)
    cmd = scene.get_solver_output()
    assert cmd.names == arm.joint_names
    assert cmd["lwr_joint_2"] == pytest.approx(-2.0, abs=1e-6)


@pytest.mark.parametrize("solver", BACKENDS)
def test_com_task_tracks_reference_fixed_base(arm, solver):
    rng = np.random.default_rng(7)
    q, v = random_state(arm, rng)
    arm.update(q, v)
    ref = np.array([0.3, -0.2, 0.5])
    _, qdd = _solve(arm, [TaskConfig("com", "com")], {"com": ComReference(ref)}, solver, regularization=1e-10)
    np.testing.assert_allclose(com_acceleration_fd(arm.model, q, v, qdd), ref, atol=1e-6, rtol=0)


@pytest.mark.parametrize("solver", BACKENDS)
def test_com_task_tracks_reference_floating_base(solver):
    talos = example_robot("talos")
    rng = np.random.default_rng(8)
    q, v = random_state(talos, rng, margin=0.05)
    talos.update(q, v)
    ref = np.array([0.1, 0.4, -0.3])
    _, qdd = _solve(
        talos, [TaskConfig("com", "com")], {"com": ComReference(ref)}, solver, regularization=1e-10
    )
    np.testing.assert_allclose(com_acceleration_fd(talos.model, q, v, qdd), ref, atol=1e-6, rtol=0)


def test_com_bias_is_the_true_com_bias(arm):
    """bias = J̇_com q̇ (finite differences at q̈ = 0), not a link's bias."""
    rng = np.random.default_rng(9)
    q, v = random_state(arm, rng)
    arm.update(q, v)
    scene = AccelerationScene(arm)
    scene.configure([TaskConfig("com", "com")])
    task = scene.get_task("com")
    task.compute()
    np.testing.assert_allclose(task.bias, com_acceleration_fd(arm.model, q, v, np.zeros(arm.nv)), atol=1e-7)
    data = arm.model.createData()
    np.testing.assert_allclose(task.A, pin.jacobianCenterOfMass(arm.model, data, q), atol=1e-12)


def test_all_backends_agree(arm):
    """Every backend gives the same q̈ (1e-5) on a two-level problem with joint limits and weights."""
    rng = np.random.default_rng(10)
    q, v = random_state(arm, rng)
    arm.update(q, v)
    ref_ee = rng.normal(size=6)
    sols = {}
    for solver in BACKENDS:
        scene = AccelerationScene(arm, solver=solver, joint_limits=True)
        scene.configure(
            [
                TaskConfig("ee", "cart", tip="lwr_ee", weights=[1, 1, 1, 0.5, 0.5, 0]),
                TaskConfig("com", "com", priority=1),
                TaskConfig("posture", "jnt", joint_names=arm.joint_names, priority=2),
            ]
        )
        scene.set_joint_weights({"lwr_joint_3": 0.3})
        scene.set_reference("ee", CartesianReference(ref_ee))
        scene.set_reference("com", ComReference(np.array([0.1, 0.0, -0.2])))
        scene.set_reference("posture", JointReference(np.zeros(7)))
        scene.solve(scene.update())
        sols[solver] = scene.get_solver_output_raw()
    first = next(iter(sols.values()))
    for name, sol in sols.items():
        np.testing.assert_allclose(sol, first, atol=1e-5, rtol=0, err_msg=name)
