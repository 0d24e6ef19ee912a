"""No dead end mid-walk: where the walking controller's QP has no answer it degrades instead of raising —
its contacts relaxed (torques within their limits, wrenches within their cones, checked here against the
limits and the cone's rows), else the last torques held — and ``walk()`` reports the degraded steps in
its summary and log."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

from wbcpy import RobotModel
from wbcpy.contacts import SurfaceContact
from wbcpy.errors import QPSolveError
from wbcpy.locomotion import WalkingController, WalkingPattern, plan_footsteps, walk

SOLES = ("left_sole_link", "right_sole_link")


def _weak_talos(example_robot, limit: float) -> tuple[RobotModel, np.ndarray]:
    """Talos whose every joint gives at most ``limit`` N·m: its contacts cannot hold it."""
    talos = example_robot("talos")
    model = pin.Model(talos.model)
    model.effortLimit[6:] = limit
    robot = RobotModel(model, name=talos.name)
    q0 = talos.reference_configuration("half_sitting")
    robot.update(q0, np.zeros(robot.nv))
    return robot, q0


def test_the_controller_relaxes_its_contacts_instead_of_raising(example_robot):
    robot, _ = _weak_talos(example_robot, 0.1)
    ctrl = WalkingController(robot, WalkingPattern(robot, plan_footsteps(robot, 2, 0.1)))
    with pytest.raises(QPSolveError):  # (the scene's own problem has no answer)
        ctrl.scene.solve(ctrl.scene.update())
    cmd = ctrl.step(0.0)
    assert ctrl.fallback.count == 1
    t, what = ctrl.fallback.events[0]
    assert t == 0.0 and what.startswith("contacts relaxed")
    assert np.abs(cmd.effort).max() <= 0.1 + 1e-9
    wrenches = ctrl.scene.get_contact_wrenches()
    assert list(wrenches) == list(SOLES)
    U = SurfaceContact("s", half_size=ctrl.half_size, mu=ctrl.mu).cone()
    for w in wrenches.values():
        assert (U @ w).max() <= 1e-6 * robot.total_mass * 9.81


class _Failing:
    """A QP backend that never answers."""

    name = "failing"

    def solve_hierarchy(self, hqp):
        raise QPSolveError("failing", "no answer", hqp)


def test_a_failing_solver_holds_the_last_torques(example_robot):
    robot = example_robot("talos")
    q0 = robot.reference_configuration("half_sitting")
    robot.update(q0, np.zeros(robot.nv))
    ctrl = WalkingController(robot, WalkingPattern(robot, plan_footsteps(robot, 2, 0.1)))
    good = ctrl.step(0.0)
    ctrl.scene.solver = _Failing()
    held = ctrl.step(0.002)
    np.testing.assert_array_equal(held.effort, np.clip(good.effort, -ctrl.scene.effort_limit,
                                                       ctrl.scene.effort_limit))  # fmt: skip
    assert held.effort is not good.effort and ctrl.fallback.count == 1
    assert ctrl.fallback.events[0][1].startswith("last torques held")


def test_walk_reports_degraded_answers(tmp_path, example_robot):
    robot, _ = _weak_talos(example_robot, 0.1)
    summary = walk(robot, n_steps=1, length=0.0, log=tmp_path / "weak.npz")
    with np.load(tmp_path / "weak.npz") as f:
        degraded = f["degraded"]
    assert summary.degraded == int(degraded.sum()) > 0 and degraded[0]
    assert f"degraded answers {summary.degraded}" in summary.text()
    assert not summary.ok
