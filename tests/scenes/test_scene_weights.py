"""Task weights, activations, joint weights and strict priorities against closed-form solutions.

The closed forms are the normal equations of the documented cost, written here with raw Pinocchio rows:
activation·Σ_k w_k (A_k q̈ − y_k)² + λ Σ_j q̈_j²/ω_j, with Cartesian weights given in ref_frame axes
becoming the full matrix R diag(w) Rᵀ per 3×3 block in root axes; strict levels via the null space of
the higher level's rows (scipy.linalg.null_space).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
import scipy.linalg as sla
from _scene_helpers import BACKENDS, LWA, lwr4, random_state, regularized_ls

from wbcpy import AccelerationScene
from wbcpy.tasks import CartesianReference, JointReference, TaskConfig

LAMBDA = 1e-8


@pytest.fixture(scope="module")
def arm():
    return lwr4()


def _ee_rows(robot, q, v, ref_frame: str | None = None):
    """Root-axes (base) Jacobian and bias of lwr_ee, and R_{root←ref} (raw Pinocchio)."""
    model, data = robot.model, robot.model.createData()
    tip = model.getFrameId("lwr_ee")
    pin.computeJointJacobians(model, data, q)
    pin.forwardKinematics(model, data, q, v, np.zeros(robot.nv))
    pin.updateFramePlacements(model, data)
    J = pin.getFrameJacobian(model, data, tip, LWA)
    b = pin.getFrameClassicalAcceleration(model, data, tip, LWA).vector.copy()
    R = np.eye(3) if ref_frame is None else data.oMf[model.getFrameId(ref_frame)].rotation
    return J, b, R  # the base frame lwr_base_link is the world frame (identity placement)


def _block(R):
    return sla.block_diag(R, R)


@pytest.mark.parametrize("solver", BACKENDS)
def test_conflicting_tasks_on_one_level_give_weighted_compromise(arm, solver):
    rng = np.random.default_rng(20)
    q, v = random_state(arm, rng)
    arm.update(q, v)
    w_ee = np.array([1.0, 4.0, 0.25, 2.0, 0.5, 1.0])
    w_j = rng.uniform(0.1, 2.0, size=7)
    act_ee = 0.7
    a_ref = rng.normal(size=6)
    a_j = rng.normal(size=7) * 3.0
    scene = AccelerationScene(arm, solver=solver)
    scene.configure(
        [
            TaskConfig(
                "ee", "cart", tip="lwr_ee", ref_frame="lwr_link_4", weights=list(w_ee), activation=act_ee
            ),
            TaskConfig("posture", "jnt", joint_names=arm.joint_names, weights=list(w_j)),
        ]
    )
    scene.set_reference("ee", CartesianReference(a_ref))
    scene.set_reference("posture", JointReference(a_j))
    scene.solve(scene.update())
    qdd = scene.get_solver_output_raw()
    J, b, R = _ee_rows(arm, q, v, "lwr_link_4")
    RR = _block(R)
    W_root = act_ee * RR @ np.diag(w_ee) @ RR.T  # full matrix per 3×3 block, not diagonal
    y_root = RR @ a_ref - b
    expected = regularized_ls([(J, y_root, W_root), (np.eye(7), a_j, np.diag(w_j))], np.full(7, LAMBDA))
    np.testing.assert_allclose(qdd, expected, rtol=1e-6, atol=1e-6)
    # the compromise really is a compromise: neither task is met
    assert np.linalg.norm(qdd - a_j) > 1e-2
    assert np.linalg.norm(J @ qdd + b - RR @ a_ref) > 1e-2


@pytest.mark.parametrize("solver", BACKENDS)
def test_zero_task_weight_frees_that_axis(arm, solver):
    rng = np.random.default_rng(21)
    q, v = random_state(arm, rng)
    arm.update(q, v)
    w = np.array([1.0, 1.0, 0.0, 1.0, 1.0, 1.0])  # z of lwr_link_4's axes is free
    a_ref = rng.normal(size=6)
    a_j = rng.normal(size=7)
    scene = AccelerationScene(arm, solver=solver)
    scene.configure(
        [
            TaskConfig("ee", "cart", tip="lwr_ee", ref_frame="lwr_link_4", weights=list(w)),
            TaskConfig("posture", "jnt", joint_names=arm.joint_names, weights=[1e-3] * 7),
        ]
    )
    scene.set_reference("posture", JointReference(a_j))
    sols = []
    for z in (a_ref[2], a_ref[2] + 50.0):  # changing the free axis' reference changes nothing
        ref = a_ref.copy()
        ref[2] = z
        scene.set_reference("ee", CartesianReference(ref))
        scene.solve(scene.update())
        sols.append(scene.get_solver_output_raw())
    np.testing.assert_allclose(sols[0], sols[1], atol=1e-9)
    J, b, R = _ee_rows(arm, q, v, "lwr_link_4")
    RR = _block(R)
    expected = regularized_ls(
        [(J, RR @ a_ref - b, RR @ np.diag(w) @ RR.T), (np.eye(7), a_j, 1e-3 * np.eye(7))], np.full(7, LAMBDA)
    )
    np.testing.assert_allclose(sols[0], expected, rtol=1e-6, atol=1e-6)
    # alone on its level, the task tracks the five weighted axes (in ref_frame axes) exactly
    alone = AccelerationScene(arm, solver=solver)
    alone.configure([TaskConfig("ee", "cart", tip="lwr_ee", ref_frame="lwr_link_4", weights=list(w))])
    alone.set_reference("ee", CartesianReference(a_ref))
    alone.solve(alone.update())
    acc_ref = RR.T @ (J @ alone.get_solver_output_raw() + b)
    np.testing.assert_allclose(acc_ref[[0, 1, 3, 4, 5]], a_ref[[0, 1, 3, 4, 5]], atol=1e-5)
    assert abs(acc_ref[2] - a_ref[2]) > 1e-3  # the free axis is not tracked


@pytest.mark.parametrize("solver", BACKENDS)
def test_joint_weight_zero_locks_and_small_weight_moves_less(arm, solver):
    rng = np.random.default_rng(22)
    q, v = random_state(arm, rng)
    arm.update(q, v)
    a_ref = rng.normal(size=3)
    J, b, _ = _ee_rows(arm, q, v)
    j = arm.joint_v_index("lwr_joint_3")

    def solve(weight: float):
        scene = AccelerationScene(arm, solver=solver)
        scene.configure([TaskConfig("pos", "cart", tip="lwr_ee", weights=[1, 1, 1, 0, 0, 0])])
        scene.set_joint_weights({"lwr_joint_3": weight})
        scene.set_reference("pos", CartesianReference(np.concatenate((a_ref, np.zeros(3)))))
        scene.solve(scene.update())
        return scene, scene.get_solver_output_raw()

    scene0, locked = solve(0.0)
    assert locked[j] == 0.0
    assert scene0.get_joint_weights()["lwr_joint_3"] == 0.0
    np.testing.assert_allclose(J[:3] @ locked + b[:3], a_ref, atol=1e-5)  # 6 DOF left for 3 rows
    _, full = solve(1.0)
    _, light = solve(0.1)
    for sol in (full, light):
        np.testing.assert_allclose(J[:3] @ sol + b[:3], a_ref, atol=1e-5)
    assert abs(light[j]) < abs(full[j])
    omega = np.ones(7)
    omega[j] = 0.1
    expected = regularized_ls([(J[:3], a_ref - b[:3], np.eye(3))], LAMBDA / omega)
    np.testing.assert_allclose(light, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("solver", BACKENDS)
def test_two_priority_levels_are_strict(arm, solver):
    rng = np.random.default_rng(23)
    q, v = random_state(arm, rng)
    arm.update(q, v)
    a_ref = rng.normal(size=6)
    w = np.array([1.0, 2.0, 1.0, 1.0, 1.0, 0.5])
    a_j = rng.normal(size=7) * 5.0  # conflicts with the Cartesian task
    scene = AccelerationScene(arm, solver=solver)
    scene.configure(
        [
            TaskConfig("posture", "jnt", joint_names=arm.joint_names, priority=1),
            TaskConfig("ee", "cart", tip="lwr_ee", priority=0, weights=list(w)),
        ]
    )
    scene.set_reference("ee", CartesianReference(a_ref))
    scene.set_reference("posture", JointReference(a_j))
    hqp = scene.update()
    assert [lv.A.shape[0] for lv in hqp.levels] == [6, 7]
    assert scene.level_priorities == [0, 1]
    scene.solve(hqp)
    qdd = scene.get_solver_output_raw()
    J, b, _ = _ee_rows(arm, q, v)
    # level 0 met exactly (up to λ) although level 1 conflicts
    np.testing.assert_allclose(J @ qdd + b, a_ref, atol=1e-5)
    # closed form: x0 = level-0 optimum; level 1 over x0 + N z with N = null(A0)
    A0 = np.sqrt(w)[:, None] * J
    y0 = np.sqrt(w) * (a_ref - b)
    x0 = regularized_ls([(A0, y0, np.eye(6))], np.full(7, LAMBDA))
    N = sla.null_space(A0)
    H = N.T @ N * LAMBDA + N.T @ N  # A1 = I
    g = N.T @ (a_j - x0) - LAMBDA * N.T @ x0
    expected = x0 + N @ np.linalg.solve(H, g)
    np.testing.assert_allclose(qdd, expected, rtol=1e-6, atol=1e-6)
    # level 1 lowers its own cost compared with level 0 alone
    assert np.linalg.norm(qdd - a_j) < np.linalg.norm(x0 - a_j)
