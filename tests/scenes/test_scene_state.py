"""State that must not go stale or be edited behind a scene's back (issue 9, findings 4 and 5).

* Task weights and activation are read-only properties; their setters validate and, on bad input, leave
  the task (and the rows the scene emits) as they were. A direct attribute write raises.
* Problems a scene hands out are independent: their regularisation is read-only (it is shared), their
  rows are copies, so editing an old problem never changes a later one.

Oracles: the weighted rows written out here from Pinocchio's frame Jacobian (√w·J), and row counts.
"""

from __future__ import annotations

import copy

import numpy as np
import pinocchio as pin
import pytest
from _scene_helpers import LWA, lwr4, random_state

from wbcpy import AccelerationScene
from wbcpy.errors import ConfigError
from wbcpy.tasks import CartesianReference, JointReference, TaskConfig


@pytest.fixture
def scene():
    robot = lwr4()
    robot.update(*random_state(robot, np.random.default_rng(70)))
    scene = AccelerationScene(robot)
    scene.configure(
        [
            TaskConfig("ee", "cart", tip="lwr_ee", weights=[1, 1, 1, 4, 4, 4]),
            TaskConfig("posture", "jnt", joint_names=robot.joint_names, weights=[1e-2] * 7),
        ]
    )
    scene.set_reference("ee", CartesianReference(np.ones(6)))
    scene.set_reference("posture", JointReference(np.zeros(7)))
    return scene


def _ee_rows(scene: AccelerationScene) -> np.ndarray:
    """The ee task's weighted rows √w·J from Pinocchio directly (LOCAL_WORLD_ALIGNED, base = world)."""
    robot = scene.robot
    model = robot.model
    J = pin.computeFrameJacobian(model, model.createData(), robot.q, model.getFrameId("lwr_ee"), LWA)
    return np.sqrt(scene.get_task("ee").weights)[:, None] * J


def test_direct_writes_raise_and_setters_validate(scene):
    task = scene.get_task("ee")
    rows = scene.update().levels[0].A.copy()
    np.testing.assert_allclose(rows[:6], _ee_rows(scene), atol=1e-12)
    with pytest.raises(AttributeError):
        task.weights = np.zeros(6)
    with pytest.raises(AttributeError):
        task.activation = 0.0
    with pytest.raises(ValueError):
        task.weights[0] = 5.0  # the array handed out is read-only
    weights, version = task.weights.copy(), task.version
    for bad in ([1, 1, 1, 1, 1, -1], [1, 1, 1, 1, 1, np.nan], [1, 1], "ones", [1, 1, 1, 1, 1, 1j]):
        with pytest.raises(ConfigError) as info:
            task.set_weights(bad)
        assert info.value.field == "ee.weights"
        with pytest.raises(ConfigError):
            scene.set_task_weights("ee", bad)
    for bad in (-0.1, 1.5, np.nan, True, "1"):
        with pytest.raises(ConfigError) as info:
            task.set_activation(bad)
        assert info.value.field == "ee.activation"
    np.testing.assert_array_equal(task.weights, weights)
    assert task.activation == 1.0 and task.version == version
    np.testing.assert_array_equal(scene.update().levels[0].A, rows)  # nothing changed


def test_activation_and_weights_set_on_the_task_reach_the_scene(scene):
    """The setters called on the task object itself (not through the scene) are seen by the next update,
    and the status agrees with the rows."""
    task = scene.get_task("ee")
    task.set_activation(0.0)
    assert scene.update().levels[0].A.shape[0] == 7  # the posture rows only
    assert scene.update_tasks_status()["ee"].state == "inactive"
    task.set_activation(1.0)
    task.set_weights([1, 0, 1, 0, 0, 9])  # zero weights drop rows
    A = scene.update().levels[0].A
    assert A.shape[0] == 3 + 7
    np.testing.assert_allclose(A[:3], _ee_rows(scene)[[0, 2, 5]], atol=1e-12)
    assert scene.update_tasks_status()["ee"].state == "active"


def test_handed_out_problems_are_independent(scene):
    first = scene.update()
    saved = first.copy()
    # the regularisation is shared by the levels and problems handed out: read-only
    for level in first.levels:
        with pytest.raises(ValueError):
            level.regularization[0] = 1.0
    # rows are copies: editing an old problem changes no later one (nor the scene's next answer)
    first.levels[0].A[:] = 0.0
    first.levels[0].y[:] = 1e3
    second = scene.update()
    np.testing.assert_array_equal(second.levels[0].A, saved.levels[0].A)
    np.testing.assert_array_equal(second.levels[0].y, saved.levels[0].y)
    np.testing.assert_array_equal(second.levels[0].regularization, saved.levels[0].regularization)
    # a copy of a handed-out problem is an editable, independent problem
    dup = second.copy()
    dup.levels[0].regularization[0] = 2.0
    assert second.levels[0].regularization[0] == saved.levels[0].regularization[0]


def _frame_terms(robot, q, v, frame):
    """(J, J̇q̇) of ``frame`` (world axes at its origin) at (q, v), from raw Pinocchio on its own data."""
    model = robot.model
    data = model.createData()
    fid = model.getFrameId(frame)
    pin.forwardKinematics(model, data, q, v, np.zeros(model.nv))
    J = pin.computeFrameJacobian(model, data, q, fid, LWA)
    return J, pin.getFrameClassicalAcceleration(model, data, fid, LWA).vector


def test_inactive_tasks_report_the_rows_of_their_update(scene):
    """A task without rows (activation 0) is computed for its status when the status reads it — its A,
    bias and y_solution = A q̈ + J̇q̇ are those of the state of the update, also when read after the robot
    moved to another state; once active again, its rows are those of the new state (oracle: raw
    Pinocchio's frame Jacobian and classical acceleration at each state)."""
    robot = scene.robot
    task = scene.get_task("ee")
    task.set_activation(0.0)
    rng = np.random.default_rng(71)
    q1, v1 = robot.q, robot.v
    scene.solve(scene.update())
    qdd = scene.get_solver_output_raw()
    J1, b1 = _frame_terms(robot, q1, v1, "lwr_ee")
    clone = copy.deepcopy(scene)  # (a copy taken while the rows are deferred: its own robot, same values)
    robot.update(*random_state(robot, rng))  # the robot moves on before anyone reads the status
    np.testing.assert_allclose(clone.get_task("ee").A, J1, atol=1e-12)
    np.testing.assert_allclose(clone.get_task("ee").bias, b1, atol=1e-10)
    status = scene.update_tasks_status()["ee"]
    assert status.state == "inactive"
    np.testing.assert_allclose(status.y_solution, J1 @ qdd + b1, atol=1e-10)
    np.testing.assert_allclose(task.A, J1, atol=1e-12)
    np.testing.assert_allclose(task.bias, b1, atol=1e-10)
    # read at the state of the update (the common case): the same values from the robot's caches
    scene.solve(scene.update())
    q2, v2 = robot.q, robot.v
    J2, b2 = _frame_terms(robot, q2, v2, "lwr_ee")
    np.testing.assert_allclose(task.A, J2, atol=1e-12)
    np.testing.assert_allclose(task.bias, b2, atol=1e-10)
    # inactive at one state, active at the next: the rows are the new state's, not the deferred ones
    scene.update()
    robot.update(*random_state(robot, rng))
    task.set_activation(1.0)
    A = scene.update().levels[0].A
    J3, b3 = _frame_terms(robot, robot.q, robot.v, "lwr_ee")
    np.testing.assert_allclose(A[:6], _ee_rows(scene), atol=1e-12)
    np.testing.assert_allclose(task.A, J3, atol=1e-12)
    np.testing.assert_allclose(task.bias, b3, atol=1e-10)
