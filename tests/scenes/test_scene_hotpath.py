"""The AccelerationScene hot path: per-configuration plan, rows from the robot's no-copy views, the
trusted solve of the scene's own problem, lazily built task rows, and the vectorised joint-limit bounds.

Oracles: raw Pinocchio calls written here, the scalar joint-limit formula of test_scene_limits, the
generic (validated) QP pipeline, and closed-form weighted least squares.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from _joint_limit_oracle import joint_bounds as _oracle
from _scene_helpers import LWA, lwr4, random_state, regularized_ls

from wbcpy import AccelerationScene, RobotModel
from wbcpy.errors import InvalidValueError
from wbcpy.limits import JointLimitBounds
from wbcpy.qp import HierarchicalQP, available_solvers, default_solver
from wbcpy.tasks import CartesianReference, ComReference, JointReference, TaskConfig

LAMBDA = 1e-8


@pytest.fixture
def arm():
    robot = lwr4()
    q, v = random_state(robot, np.random.default_rng(50))
    robot.update(q, v)
    return robot


def _raw_frame(model: pin.Model, q, v, fid: int) -> tuple[np.ndarray, np.ndarray]:
    data = model.createData()
    J = pin.computeFrameJacobian(model, data, q, fid, LWA)
    pin.forwardKinematics(model, data, q, v, np.zeros(model.nv))
    return J, pin.getFrameClassicalAcceleration(model, data, fid, LWA).vector.copy()


BACKENDS = available_solvers()


def _scene(robot, **kw) -> AccelerationScene:
    scene = AccelerationScene(robot, **kw)
    scene.configure(
        [
            TaskConfig("ee", "cart", tip="lwr_ee", weights=[1, 1, 1, 2, 2, 2]),
            TaskConfig("posture", "jnt", joint_names=robot.joint_names, weights=[1e-2] * 7),
        ]
    )
    return scene


# ---------------------------------------------------------------------------------------------------
# RobotModel no-copy views
# ---------------------------------------------------------------------------------------------------
def test_robot_views_match_raw_pinocchio(arm):
    model = arm.model
    rng = np.random.default_rng(51)
    fid = model.getFrameId("lwr_ee")
    for _ in range(3):
        q, v = random_state(arm, rng)
        arm.update(q, v)
        J, b = arm.frame_jacobian_bias_view("lwr_ee")
        Jr, br = _raw_frame(model, q, v, fid)
        np.testing.assert_allclose(J, Jr, atol=1e-12)
        np.testing.assert_allclose(b, br, atol=1e-12)
        assert arm.frame_jacobian_view(fid) is J and arm.frame_bias_view(fid) is b  # cached, no copy
        data = model.createData()
        np.testing.assert_allclose(
            arm.com_jacobian_view(), pin.jacobianCenterOfMass(model, data, q), atol=1e-12
        )
        pin.centerOfMass(model, data, q, v, np.zeros(7))
        np.testing.assert_allclose(arm.com_bias_view(), data.acom[0], atol=1e-12)
        np.testing.assert_allclose(arm.com_bias(), data.acom[0], atol=1e-12)
        # the frame views of a state stay a snapshot of that state
        arm.update(*random_state(arm, rng))
        np.testing.assert_allclose(J, Jr, atol=1e-12)
        np.testing.assert_allclose(b, br, atol=1e-12)


def test_robot_views_do_not_disturb_the_dynamics(arm):
    """COM views (no computeAllTerms) followed by the dynamics of the same state: same values."""
    q, v = arm.q, arm.v
    arm.update(q, v)
    arm.com_jacobian_view()
    M = arm.mass_matrix()
    data = arm.model.createData()
    pin.crba(arm.model, data, q)
    Mr = np.triu(data.M) + np.triu(data.M, 1).T
    np.testing.assert_allclose(M, Mr, atol=1e-12)
    np.testing.assert_allclose(arm.com(), pin.centerOfMass(arm.model, data, q), atol=1e-12)


# ---------------------------------------------------------------------------------------------------
# rows, plan, trusted solve
# ---------------------------------------------------------------------------------------------------
def test_rows_and_solution_match_closed_form(arm):
    scene = _scene(arm)
    rng = np.random.default_rng(52)
    a_ee, a_j = rng.normal(size=6), rng.normal(size=7)
    scene.set_reference("ee", CartesianReference(a_ee))
    scene.set_reference("posture", JointReference(a_j))
    hqp = scene.update()
    J, b = _raw_frame(arm.model, arm.q, arm.v, arm.model.getFrameId("lwr_ee"))
    w = np.array([1, 1, 1, 2, 2, 2.0])
    np.testing.assert_allclose(hqp.levels[0].A[:6], np.sqrt(w)[:, None] * J, atol=1e-12)
    np.testing.assert_allclose(hqp.levels[0].y[:6], np.sqrt(w) * (a_ee - b), atol=1e-12)
    np.testing.assert_allclose(hqp.levels[0].A[6:], 0.1 * np.eye(7), atol=0)
    cmd = scene.solve(hqp)
    expected = regularized_ls(
        [(J, a_ee - b, np.diag(w)), (np.eye(7), a_j, 1e-2 * np.eye(7))], np.full(7, LAMBDA)
    )
    np.testing.assert_allclose(cmd.acceleration, expected, atol=1e-7)
    assert [st.status for st in scene.solver_statuses] == ["solved"]  # DAQP's answer, certified as it is
    assert scene.solver_statuses[0].fallback is None
    # the task's A and bias are those of the update's state, even after the robot moved on
    task = scene.get_task("ee")
    arm.update(*random_state(arm, rng))
    np.testing.assert_allclose(task.A, J, atol=1e-12)
    np.testing.assert_allclose(task.bias, b, atol=1e-12)
    status = scene.update_tasks_status()["ee"]
    np.testing.assert_allclose(status.y_solution, J @ expected + b, atol=1e-9)


def test_plan_follows_weights_activation_references_and_timeouts(arm):
    now = [0.0]
    scene = _scene(arm, clock=lambda: now[0])
    scene.set_reference("posture", JointReference(np.ones(7)))
    assert [lv.A.shape[0] for lv in scene.update().levels] == [7]  # ee has no reference yet
    scene.set_reference("ee", CartesianReference(np.ones(6), time=0.0))
    assert [lv.A.shape[0] for lv in scene.update().levels] == [13]
    scene.set_task_weights("ee", [1, 1, 1, 0, 0, 4])  # zero weights drop rows
    A = scene.update().levels[0].A
    J, _ = _raw_frame(arm.model, arm.q, arm.v, arm.model.getFrameId("lwr_ee"))
    np.testing.assert_allclose(A[:4], np.vstack([J[:3], 2.0 * J[5]]), atol=1e-12)
    scene.get_task("posture").set_weights(np.full(7, 4.0))  # directly on the task: seen too
    np.testing.assert_allclose(scene.update().levels[0].A[4:], 2.0 * np.eye(7), atol=0)
    scene.set_task_activation("ee", 0.0)
    assert [lv.A.shape[0] for lv in scene.update().levels] == [7]
    scene.set_task_activation("ee", 1.0)
    scene.configure([TaskConfig("ee", "cart", tip="lwr_ee", timeout=0.5)])
    scene.set_reference("ee", CartesianReference(np.ones(6)))
    assert [lv.A.shape[0] for lv in scene.update().levels] == [6]
    now[0] = 1.0  # timed out
    assert [lv.A.shape[0] for lv in scene.update().levels] == [0] and scene.level_priorities == [-1]
    scene.set_reference("ee", CartesianReference(np.ones(6)))  # fresh reference
    assert [lv.A.shape[0] for lv in scene.update().levels] == [6]


def test_problems_handed_out_are_never_changed(arm):
    scene = _scene(arm, joint_limits=True)
    scene.set_reference("ee", CartesianReference(np.ones(6)))
    scene.set_reference("posture", JointReference(np.zeros(7)))
    first = scene.update()
    saved = [(lv.A.copy(), lv.y.copy()) for lv in first.levels] + [(first.lb.copy(), first.ub.copy())]
    arm.update(*random_state(arm, np.random.default_rng(53)))
    second = scene.update()
    assert not np.array_equal(second.levels[0].A, saved[0][0])
    for (A, y), lv in zip(saved[:-1], first.levels, strict=True):
        assert np.array_equal(lv.A, A) and np.array_equal(lv.y, y)
    assert np.array_equal(first.lb, saved[-1][0]) and np.array_equal(first.ub, saved[-1][1])
    # an older problem is solved through the validated path, with the same answer
    fresh = _scene(arm, joint_limits=True)
    fresh.set_reference("ee", CartesianReference(np.ones(6)))
    fresh.set_reference("posture", JointReference(np.zeros(7)))
    np.testing.assert_allclose(scene.solve(second).acceleration, fresh.solve(fresh.update()).acceleration)
    validated = []
    solver = scene.solver
    real = solver.solve_hierarchy

    def spy(h):
        validated.append(h)
        return real(h)

    solver.solve_hierarchy = spy
    scene.solve(second)
    assert validated == []  # the scene's own last problem: trusted
    scene.solve(first)
    assert validated == [first]  # an older one: validated first


def test_edited_problem_is_validated(arm):
    scene = _scene(arm)
    scene.set_reference("ee", CartesianReference(np.ones(6)))
    scene.set_reference("posture", JointReference(np.zeros(7)))
    good = scene.solve(scene.update()).acceleration
    hqp = scene.update()
    hqp.levels[0].A[0, 0] = np.nan  # in place: still "the scene's own problem", values checked anyway
    with pytest.raises(InvalidValueError):
        scene.solve(hqp)
    np.testing.assert_array_equal(scene.get_solver_output().acceleration, good)  # last good output kept
    hqp = scene.update()
    hqp.levels[0].y = hqp.levels[0].y.tolist()  # replaced array: not trusted, validated and converted
    assert not scene._is_own_problem(hqp)
    np.testing.assert_allclose(scene.solve(hqp).acceleration, good, atol=1e-12)


def test_wrong_solver_answer_never_reaches_the_command(arm, monkeypatch):
    """A backend that claims success with a wrong q̈ is caught by the certificate; the rescue answers."""
    from wbcpy.qp.backends.active_set import DaqpBackend

    scene = _scene(arm, joint_limits=True, solver="daqp")
    scene.set_reference("ee", CartesianReference(np.full(6, 30.0)))  # large: some bounds active
    scene.set_reference("posture", JointReference(np.zeros(7)))
    expected = scene.solve(scene.update()).acceleration
    real = DaqpBackend.solve

    def liar(self, q, x0):
        res = real(self, q, x0)
        if res.x is not None:
            res.x = res.x * 1.01
        return res

    monkeypatch.setattr(DaqpBackend, "solve", liar)
    monkeypatch.setattr(DaqpBackend, "solve_fused_level", lambda self, *args: None)  # (every level: solve)
    np.testing.assert_allclose(scene.solve(scene.update()).acceleration, expected, atol=1e-9)
    # not accepted as it was: recomputed exactly on DAQP's active set (or answered by a fallback)
    status = scene.solver_statuses[0]
    assert status.status.endswith("(refined)") or status.fallback is not None


@pytest.mark.parametrize("solver", ["daqp", "osqp"])
def test_talos_scene_matches_generic_pipeline(solver, example_robot):
    talos = example_robot("talos")
    rng = np.random.default_rng(54)
    q, v = random_state(talos, rng)
    talos.update(q, v)
    actuated = [n for n in talos.joint_names if n != "root_joint"]

    def make(name: str) -> AccelerationScene:
        scene = AccelerationScene(talos, solver=name, joint_limits=True)
        scene.configure(
            [
                TaskConfig("com", "com"),
                TaskConfig("lf", "cart", root="universe", tip="left_sole_link"),
                TaskConfig("rf", "cart", root="universe", tip="right_sole_link"),
                TaskConfig("posture", "jnt", joint_names=actuated, priority=1),
            ]
        )
        scene.set_joint_weights({actuated[3]: 0.0})  # a locked joint: a fixed variable
        scene.set_reference("com", ComReference(np.array([0.0, 0.05, -0.1])))
        scene.set_reference("lf", CartesianReference(np.zeros(6)))
        scene.set_reference("rf", CartesianReference(np.zeros(6)))
        scene.set_reference("posture", JointReference(rng.normal(size=len(actuated))))
        return scene

    scene = make(solver)
    hqp = scene.update()
    x = scene.solve(hqp)
    ref = make("quadprog" if solver == "daqp" and "quadprog" in BACKENDS else "osqp")
    y = ref.solve(HierarchicalQP(hqp.levels, list(hqp.joint_names), hqp.lb, hqp.ub))
    np.testing.assert_allclose(x.acceleration, y.acceleration, atol=1e-5)
    assert x.acceleration[3] == 0.0


# ---------------------------------------------------------------------------------------------------
# joint-limit bounds on other joint layouts
# ---------------------------------------------------------------------------------------------------
def _check_bounds(robot: RobotModel, rng: np.random.Generator, braking: bool, amax: float = 15.0) -> None:
    dt = 0.002
    bounds = JointLimitBounds(robot, dt, acceleration_limit=amax, braking=braking)
    model = robot.model
    vmax = robot.velocity_limit
    lo_q, hi_q = robot.lower_position_limit, robot.upper_position_limit
    for _ in range(40):
        q = pin.randomConfiguration(model, np.where(np.isfinite(lo_q), lo_q - 0.05, -1.0),
                                    np.where(np.isfinite(hi_q), hi_q + 0.05, 1.0))  # fmt: skip
        v = rng.uniform(-1.3, 1.3, robot.nv) * np.where(np.isfinite(vmax), vmax, 1.0)
        lb, ub = bounds.compute(q, v)
        assert (lb <= ub).all()
        for jid in range(1, model.njoints):
            joint = model.joints[jid]
            for k in range(joint.nv):
                iv = joint.idx_v + k
                limited = joint.nq == 1 and (np.isfinite(lo_q[joint.idx_q]) or np.isfinite(hi_q[joint.idx_q]))
                qmin = lo_q[joint.idx_q] if limited else -np.inf
                qmax = hi_q[joint.idx_q] if limited else np.inf
                p = q[joint.idx_q] if limited else 0.0
                if limited:
                    expected = _oracle(p, v[iv], qmin, qmax, vmax[iv], amax, dt, braking)
                else:  # no position limit: acceleration ∩ velocity stages only
                    expected = _oracle(0.0, v[iv], -np.inf, np.inf, vmax[iv], amax, dt, False)
                np.testing.assert_allclose((lb[iv], ub[iv]), expected, rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("braking", [False, True])
def test_bounds_with_continuous_joints(braking):
    """Continuous joints between limited ones: positions are gathered from q, not sliced."""
    model = pin.Model()
    parent = 0
    for k, joint in enumerate(
        [pin.JointModelRZ(), pin.JointModelRUBZ(), pin.JointModelRY(), pin.JointModelRX()]
    ):
        lim = np.full(joint.nq, 1.0 + 0.1 * k)
        parent = model.addJoint(parent, joint, pin.SE3(np.eye(3), np.array([0, 0, 0.1])), f"j{k}",
                                np.array([2.0]), np.array([1.5 + k]), -lim, lim)  # fmt: skip
        model.appendBodyToJoint(parent, pin.Inertia.Random(), pin.SE3.Identity())
    robot = RobotModel(model)
    # (the continuous joint's cos/sin pair shifts the q index of the joints after it by one)
    _check_bounds(robot, np.random.default_rng(55), braking)


@pytest.mark.parametrize("braking", [False, True])
def test_bounds_with_a_floating_base(braking, example_robot):
    talos = example_robot("talos")
    _check_bounds(talos, np.random.default_rng(56), braking)
    lb, ub = JointLimitBounds(talos, 0.001).compute(talos.neutral(), np.zeros(talos.nv))
    assert np.isinf(lb[:6]).all() and np.isinf(ub[:6]).all()  # the free-flyer is unbounded


def test_default_solver_is_the_fast_one():
    if "daqp" in BACKENDS:
        assert default_solver() == "daqp" and AccelerationScene(lwr4()).solver.name == "daqp"
