"""VelocityScene: task rows against closed forms (issue 16, acceptance points 1, 2 and 5).

Oracles are computed in the tests from raw Pinocchio (world-aligned frame Jacobians, COM Jacobian) or
from finite differences of the relative pose, and the λ-regularised least-squares solutions are written
out with numpy: q̇* = (Σ AᵢᵀWᵢAᵢ + λ diag(1/ω))⁻¹ Σ AᵢᵀWᵢyᵢ, and for strict levels the null-space form.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from _scene_helpers import BACKENDS, LWA, random_state
from hypothesis import given, settings
from hypothesis import strategies as st

from wbcpy import VelocityScene, load_robot
from wbcpy.errors import ConfigError, ConfigKeyError, InvalidValueError, QPSolveError
from wbcpy.scenes import JointCommand
from wbcpy.tasks import CartesianReference, ComReference, JointReference, TaskConfig

LAM = 1e-8


def _scene(robot, configs, **kwargs) -> VelocityScene:
    kwargs = {"joint_limits": False, "velocity_limits": False, "regularization": LAM, **kwargs}
    scene = VelocityScene(robot, **kwargs)
    scene.configure(configs)
    return scene


def _closed_form(blocks: list[tuple[np.ndarray, np.ndarray, np.ndarray]], n: int, lam: float = LAM):
    """argmin Σ (A x − y)ᵀ W (A x − y) + λ‖x‖² for blocks (A, W, y)."""
    H = lam * np.eye(n)
    g = np.zeros(n)
    for A, W, y in blocks:
        H += A.T @ W @ A
        g += A.T @ W @ y
    return np.linalg.solve(H, g)


def _world_jacobian(robot, q: np.ndarray, frame: str) -> np.ndarray:
    data = robot.model.createData()
    return pin.computeFrameJacobian(robot.model, data, q, robot.model.getFrameId(frame), LWA)


def _relative_pose(robot, q: np.ndarray, root: str, tip: str) -> pin.SE3:
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, q)
    return data.oMf[robot.model.getFrameId(root)].actInv(data.oMf[robot.model.getFrameId(tip)])


def _relative_twist_fd(robot, q: np.ndarray, qdot: np.ndarray, root: str, tip: str, h: float = 1e-6):
    """d/dt of the tip position in root coordinates and the relative angular velocity in root axes,
    by central differences of the relative pose along q ⊕ t q̇."""
    m_plus = _relative_pose(robot, pin.integrate(robot.model, q, h * qdot), root, tip)
    m_minus = _relative_pose(robot, pin.integrate(robot.model, q, -h * qdot), root, tip)
    lin = (m_plus.translation - m_minus.translation) / (2 * h)
    ang = pin.log3(m_plus.rotation @ m_minus.rotation.T) / (2 * h)
    return np.concatenate((lin, ang))


def _fd_jacobian(robot, q, root, tip) -> np.ndarray:
    return np.column_stack([_relative_twist_fd(robot, q, e, root, tip) for e in np.eye(robot.nv)])


# ---------------------------------------------------------------------- point 1: one task, closed forms
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_cartesian_task_fixed_root(seed: int) -> None:
    robot = load_robot("lwr4")
    rng = np.random.default_rng(seed)
    q, _ = random_state(robot, rng)
    scene = _scene(robot, [TaskConfig(name="ee", type="cart", tip="lwr_ee")])
    robot.update(q)
    y = rng.normal(size=6)
    scene.set_reference("ee", CartesianReference(twist=y))
    cmd = scene.solve(scene.update())
    qdot = scene.get_solver_output_raw()
    J = _world_jacobian(robot, q, "lwr_ee")  # the base is the world frame here
    expected = _closed_form([(J, np.eye(6), y)], robot.nv)
    assert np.linalg.norm(qdot - expected) <= 1e-6 * np.linalg.norm(expected)  # near-singular: norm-wise
    # J q̇ = y up to the regularisation: y − J q̇* = λ (J Jᵀ + λ I)⁻¹ y, |·| ≤ λ/σ_min² |y|
    sigma = np.linalg.svd(J, compute_uv=False).min()
    assert np.linalg.norm(J @ qdot - y) <= 1.01 * LAM / sigma**2 * np.linalg.norm(y) + 1e-9
    assert isinstance(cmd, JointCommand) and cmd.acceleration is None
    np.testing.assert_array_equal(cmd.velocity, qdot)
    status = scene.update_tasks_status()["ee"]
    np.testing.assert_allclose(status.y_solution, J @ qdot, atol=1e-9)
    np.testing.assert_array_equal(status.y_ref, y)


@pytest.mark.parametrize("floating", [False, True])
def test_cartesian_task_moving_root_matches_finite_differences(floating: bool) -> None:
    robot = load_robot("lwr4", floating_base=floating)
    rng = np.random.default_rng(3)
    q, _ = random_state(robot, rng)
    q[-7:] = [0.3, 0.6, -0.2, -1.2, 0.3, 0.8, 0.1]  # well conditioned: q̇ stays O(|y|)
    root, tip = "lwr_link_1", "lwr_ee"  # joints 2..7 move the tip relative to the root: 6 DOF
    scene = _scene(robot, [TaskConfig(name="ee", type="cart", root=root, tip=tip)])
    robot.update(q)
    y = rng.normal(size=6)
    scene.set_reference("ee", CartesianReference(twist=y))
    scene.solve(scene.update())
    qdot = scene.get_solver_output_raw()
    np.testing.assert_allclose(_relative_twist_fd(robot, q, qdot, root, tip), y, atol=1e-6)
    A = _fd_jacobian(robot, q, root, tip)
    np.testing.assert_allclose(qdot, _closed_form([(A, np.eye(6), y)], robot.nv), rtol=1e-4, atol=1e-6)


def test_cartesian_weights_in_ref_frame_axes() -> None:
    """Weights given in a rotated ref_frame: the root-axes weight is R diag(w) Rᵀ per 3×3 block."""
    robot = load_robot("lwr4")
    rng = np.random.default_rng(11)
    q, _ = random_state(robot, rng)
    w = np.array([1.0, 0.0, 4.0, 0.5, 2.0, 0.0])
    cfg = TaskConfig(name="ee", type="cart", tip="lwr_ee", ref_frame="lwr_link_3", weights=list(w))
    scene = _scene(robot, [cfg])
    robot.update(q)
    y_ref = rng.normal(size=6)
    scene.set_reference("ee", CartesianReference(twist=y_ref))
    scene.solve(scene.update())
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, q)
    R = data.oMf[robot.model.getFrameId("lwr_link_3")].rotation  # ref axes → world (= root) axes
    Rb = np.kron(np.eye(2), R)
    W = Rb @ np.diag(w) @ Rb.T
    J = _world_jacobian(robot, q, "lwr_ee")
    expected = _closed_form([(J, W, Rb @ y_ref)], robot.nv)
    np.testing.assert_allclose(scene.get_solver_output_raw(), expected, rtol=1e-6, atol=1e-9)


def test_joint_task_selects_its_joints() -> None:
    robot = load_robot("lwr4")
    names = ["lwr_joint_6", "lwr_joint_2"]
    scene = _scene(robot, [TaskConfig(name="j", type="jnt", joint_names=names)])
    robot.update(np.full(7, 0.3))
    scene.set_reference("j", JointReference(velocity=[0.4, -0.7]))
    qdot = scene.solve(scene.update()).velocity
    expected = np.zeros(7)
    expected[[5, 1]] = np.array([0.4, -0.7]) / (1.0 + LAM)  # (1 + λ) x = y on the selected rows
    np.testing.assert_allclose(qdot, expected, atol=1e-12)


def test_com_task_on_a_floating_base() -> None:
    robot = load_robot("lwr4", floating_base=True)
    rng = np.random.default_rng(5)
    q, _ = random_state(robot, rng)
    scene = _scene(robot, [TaskConfig(name="com", type="com")])
    robot.update(q)
    y = np.array([0.05, -0.02, 0.1])
    scene.set_reference("com", ComReference(velocity=y))
    cmd = scene.solve(scene.update())
    qdot = scene.get_solver_output_raw()
    data = robot.model.createData()
    Jc = pin.jacobianCenterOfMass(robot.model, data, q)
    # the λ-regularised least squares as a stacked, well-conditioned problem [Jc; √λ I] x ≈ [y; 0]; the
    # scene solves the normal equations (condition ~1e8 here: 3 COM rows, 13 DOF, λ = 1e-8), so its answer
    # is exact to ~κ ε ‖x‖ ≈ 3e-9 ‖x‖ — norm-wise, not entry by entry (entries of 1e-4 carry that error too)
    n = robot.nv
    expected = np.linalg.lstsq(
        np.vstack((Jc, np.sqrt(LAM) * np.eye(n))), np.concatenate((y, np.zeros(n))), rcond=None
    )[0]
    assert np.linalg.norm(qdot - expected) <= 1e-7 * np.linalg.norm(expected)
    h = 1e-6  # the COM moves with the commanded velocity (finite difference of the COM position)
    c_plus = pin.centerOfMass(robot.model, data, pin.integrate(robot.model, q, h * qdot))
    c_minus = pin.centerOfMass(robot.model, data, pin.integrate(robot.model, q, -h * qdot))
    np.testing.assert_allclose((c_plus - c_minus) / (2 * h), y, atol=1e-6)
    assert cmd.names == robot.dof_names[6:]  # the free-flyer's DOFs are not commanded
    np.testing.assert_array_equal(cmd.velocity, qdot[6:])


# ---------------------------------------------------------------------- point 2: weights and priorities
def test_weighted_compromise_and_joint_weights() -> None:
    robot = load_robot("lwr4")
    rng = np.random.default_rng(7)
    q, _ = random_state(robot, rng)
    wc, wp = np.array([1.0, 1.0, 1.0, 0.2, 0.2, 0.2]), np.full(7, 0.05)
    scene = _scene(
        robot,
        [
            TaskConfig(name="ee", type="cart", tip="lwr_ee", weights=list(wc), activation=0.5),
            TaskConfig(name="post", type="jnt", joint_names=robot.joint_names, weights=list(wp)),
        ],
        regularization=1e-4,
    )
    omega = np.array([1.0, 0.5, 1.0, 0.25, 1.0, 1.0, 0.8])
    scene.set_joint_weights(dict(zip(robot.joint_names, omega, strict=True)))
    robot.update(q)
    y1, y2 = rng.normal(size=6), rng.normal(size=7)
    scene.set_reference("ee", CartesianReference(twist=y1))
    scene.set_reference("post", JointReference(velocity=y2))
    scene.solve(scene.update())
    J = _world_jacobian(robot, q, "lwr_ee")
    H = 0.5 * J.T @ np.diag(wc) @ J + np.diag(wp) + np.diag(1e-4 / omega)
    g = 0.5 * J.T @ np.diag(wc) @ y1 + np.diag(wp) @ y2
    np.testing.assert_allclose(scene.get_solver_output_raw(), np.linalg.solve(H, g), rtol=1e-7, atol=1e-10)


def test_strict_levels_equal_the_null_space_solution() -> None:
    robot = load_robot("lwr4")
    rng = np.random.default_rng(9)
    q, _ = random_state(robot, rng)
    scene = _scene(
        robot,
        [
            TaskConfig(name="ee", type="cart", tip="lwr_ee", priority=0),
            TaskConfig(name="post", type="jnt", joint_names=robot.joint_names, priority=1),
        ],
    )
    robot.update(q)
    y1, y2 = rng.normal(size=6), rng.normal(size=7)
    scene.set_reference("ee", CartesianReference(twist=y1))
    scene.set_reference("post", JointReference(velocity=y2))
    scene.solve(scene.update())
    A1 = _world_jacobian(robot, q, "lwr_ee")
    x0 = _closed_form([(A1, np.eye(6), y1)], 7)  # level 0
    Z = np.linalg.svd(A1)[2][6:].T  # orthonormal basis of A1's null space (1 direction)
    A2 = np.eye(7)
    z = np.linalg.solve(
        Z.T @ A2.T @ A2 @ Z + LAM * np.eye(Z.shape[1]), Z.T @ (A2.T @ (y2 - A2 @ x0) - LAM * x0)
    )
    expected = x0 + Z @ z
    qdot = scene.get_solver_output_raw()
    np.testing.assert_allclose(qdot, expected, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(A1 @ qdot, y1, atol=1e-6)  # level 0 is not degraded by level 1
    assert scene.level_priorities == [0, 1]


def test_inactive_and_missing_references_add_no_rows() -> None:
    robot = load_robot("lwr4")
    scene = _scene(
        robot,
        [
            TaskConfig(name="ee", type="cart", tip="lwr_ee"),
            TaskConfig(name="post", type="jnt", joint_names=robot.joint_names, priority=1),
        ],
    )
    robot.update(np.full(7, 0.2))
    scene.set_reference("post", JointReference(velocity=np.full(7, 0.1)))
    hqp = scene.update()
    assert [lv.A.shape[0] for lv in hqp.levels] == [7] and scene.level_priorities == [1]
    scene.set_task_activation("post", 0.0)
    hqp = scene.update()
    assert [lv.A.shape[0] for lv in hqp.levels] == [0]
    np.testing.assert_array_equal(scene.solve(hqp).velocity, np.zeros(7))
    states = {s.name: s.state for s in scene.update_tasks_status()}
    assert states == {"ee": "no_reference", "post": "inactive"}


# ---------------------------------------------------------------------- point 5: backends, errors
@pytest.mark.parametrize("backend", BACKENDS)
def test_every_backend_agrees_or_raises(backend: str) -> None:
    """Two levels, position and velocity bounds (some active) and a locked joint."""
    robot = load_robot("lwr4")
    configs = [
        TaskConfig(name="ee", type="cart", tip="lwr_ee", weights=[1, 1, 1, 0.1, 0.1, 0.1]),
        TaskConfig(name="post", type="jnt", joint_names=robot.joint_names, priority=1),
    ]
    results = {}
    for name in ("daqp", backend):
        scene = VelocityScene(robot, solver=name, regularization=LAM, dt=0.01)
        scene.configure(configs)
        scene.set_joint_weights({"lwr_joint_3": 0.0})
        q = np.array([0.3, 2.09, -0.2, -1.2, 0.3, 0.8, 0.1])  # joint 2 near its limit
        robot.update(q)
        scene.set_reference("ee", CartesianReference(twist=[0.4, -0.3, 0.5, 0.0, 0.2, 0.0]))
        scene.set_reference("post", JointReference(velocity=np.full(7, 3.0)))
        hqp = scene.update()
        try:
            results[name] = scene.solve(hqp).velocity
        except QPSolveError:
            assert name != "daqp"
            return
        lb, ub = scene.limits.compute(q)
        np.testing.assert_array_equal(hqp.lb, np.where(np.arange(7) == 2, 0.0, lb))  # locked: 0
        np.testing.assert_array_equal(hqp.ub, np.where(np.arange(7) == 2, 0.0, ub))
        lb, ub = hqp.lb, hqp.ub
        assert np.all(results[name] >= lb - 1e-9) and np.all(results[name] <= ub + 1e-9)
        assert results[name][2] == 0.0  # locked
        x = results[name]
        on_bound = {n for j, n in enumerate(robot.joint_names) if min(x[j] - lb[j], ub[j] - x[j]) < 1e-7}
        assert set(scene.update_tasks_status().limits) == on_bound and len(on_bound) >= 2
    np.testing.assert_allclose(results[backend], results["daqp"], atol=1e-5)


@pytest.mark.parametrize(
    ("kwargs", "field", "error"),
    [
        ({"dt": 0.0}, "dt", ConfigError),
        ({"dt": -0.01}, "dt", ConfigError),
        ({"limit_gain": 0.0}, "limit_gain", ConfigError),
        ({"limit_gain": 1.5}, "limit_gain", ConfigError),
        ({"regularization": 0.0}, "regularization", ConfigError),
        ({"joint_limits": "yes"}, "joint_limits", ConfigError),
        ({"velocity_limits": 1}, "velocity_limits", ConfigError),
        ({"braking": True}, "braking", ConfigKeyError),
        ({"solver": "nope"}, "solver", ConfigKeyError),
    ],
)
def test_bad_scene_options_raise(kwargs: dict, field: str, error: type) -> None:
    with pytest.raises(error) as info:
        VelocityScene(load_robot("lwr4"), **kwargs)
    assert info.value.field == field


def test_bad_references_raise_and_change_nothing() -> None:
    robot = load_robot("lwr4")
    scene = _scene(robot, [TaskConfig(name="ee", type="cart", tip="lwr_ee")])
    good = CartesianReference(twist=np.ones(6))
    scene.set_reference("ee", good)
    for bad, field in [
        (CartesianReference(acceleration=np.ones(6)), "ee.reference.twist"),  # an acceleration scene's
        (CartesianReference(twist=np.ones(5)), "ee.reference.twist"),
        (CartesianReference(twist=[np.nan, 0, 0, 0, 0, 0]), "ee.reference.twist"),
    ]:
        with pytest.raises(InvalidValueError) as info:
            scene.set_reference("ee", bad)
        assert info.value.argument == field
    np.testing.assert_array_equal(scene.get_task("ee").reference.twist, np.ones(6))
    q = np.full(7, 0.4)
    robot.update(q)
    qdot = scene.solve(scene.update()).velocity
    np.testing.assert_allclose(_world_jacobian(robot, q, "lwr_ee") @ qdot, np.ones(6), atol=1e-5)
