"""InverseDynamicsScene configuration: contacts, wrench tasks, effort limits, status and bad inputs
(issue 10, acceptance points 6 and 8).

Oracles: the contact oracle with a wrench task (``WrenchRows``) for the 70 % weight split; closed forms
(the total normal force of a robot at rest carries its weight); for bad inputs, the scene's problem and
outputs before and after the rejected call.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _contact_oracle import TALOS_SOLE, WrenchRows, talos_half_sitting, talos_standing
from _id_helpers import G0, SOLES, solve_talos, talos_scene

from wbcpy import AccelerationScene, AccelerationSceneTSID, InverseDynamicsScene, load_robot
from wbcpy.contacts import PointContact, SurfaceContact
from wbcpy.errors import ConfigError, ConfigKeyError, InvalidValueError
from wbcpy.scenes import NoSolutionError
from wbcpy.tasks import ComReference, ReferenceTypeError, WrenchReference


@pytest.fixture(scope="module")
def talos():
    return talos_half_sitting()


def _with_wrench_task(robot, weights=None, frame="left_sole_link", priority=0):
    scene = talos_scene(robot)
    configs = scene.get_wbc_config()
    task = {"name": "lf_force", "type": "wrench", "frame": frame, "priority": priority}
    if weights is not None:
        task["weights"] = weights
    scene.configure([*(c.to_dict() for c in configs), task])
    return scene


def _vertical_force(robot, wrenches) -> float:
    """Σ of the contact forces' world z components (the soles of half_sitting are tilted by 1.7 mrad)."""
    return sum(float((robot.frame_placement(f).rotation @ w[:3])[2]) for f, w in wrenches.items())


def test_wrench_task_gives_the_left_sole_seventy_percent_of_the_weight(talos) -> None:
    robot, q = talos
    model = robot.model
    mg = robot.total_mass * G0
    rng = np.random.default_rng(8)
    v = np.zeros(model.nv)
    com, post = np.array([0.3, -0.2, 0.1]), rng.normal(size=model.nv - 6)
    free_qdd = solve_talos(talos_scene(robot), robot, q, v, com, post)[0]
    scene = _with_wrench_task(robot, weights=[0, 0, 1, 0, 0, 0])
    scene.set_reference("lf_force", WrenchReference([0.0, 0.0, 0.7 * mg, 0.0, 0.0, 0.0]))
    qdd, wrenches, _ = solve_talos(scene, robot, q, v, com, post)
    assert wrenches["left_sole_link"][2] == pytest.approx(0.7 * mg, rel=1e-9)
    # the split does not change what the robot can do in double support: q̈ as without the task
    np.testing.assert_allclose(qdd, free_qdd, rtol=0, atol=1e-8 * (1 + np.abs(free_qdd).max()))
    fz = np.zeros((1, 6))
    fz[0, 2] = 1.0
    ask = WrenchRows(0, fz, np.array([0.7 * mg]), np.ones(1))
    problem = talos_standing(model, q, v, com, post, wrench_tasks=(ask,), regularization=1e-8)
    opt = problem.task_optimum()
    split = problem.least_norm_wrenches(opt.qdd, opt.wrenches)
    for frame, theirs in zip(SOLES, split, strict=True):
        np.testing.assert_allclose(wrenches[frame], theirs, rtol=0, atol=1e-6 * mg)
    status = scene.update_tasks_status()["lf_force"]
    assert status.state == "active" and status.type == "wrench"
    np.testing.assert_allclose(status.y_solution, wrenches["left_sole_link"])
    assert status.error[2] == pytest.approx(0.0, abs=1e-6 * mg)


def test_infeasible_wrench_request_is_met_as_well_as_possible(talos) -> None:
    """Asking one sole for 120 % of the weight at rest, below the COM and posture tasks: the COM keeps its
    reference (a higher level), and the sole carries as much as it can — the most its centre of pressure
    allows: the COM is between the feet, so the sole's CoP sits on its inner edge (|τ_x| = Y f_z)."""
    robot, q = talos
    model = robot.model
    mg = robot.total_mass * G0
    scene = _with_wrench_task(robot, weights=[0, 0, 1, 0, 0, 0], priority=1)
    scene.set_reference("lf_force", WrenchReference([0, 0, 1.2 * mg, 0, 0, 0]))
    solve_talos(scene, robot, q, np.zeros(model.nv), np.zeros(3), np.zeros(model.nv - 6))
    w = scene.get_contact_wrenches()
    assert _vertical_force(robot, w) == pytest.approx(mg, rel=1e-9)
    assert mg * 0.6 < w["left_sole_link"][2] < mg
    assert abs(w["left_sole_link"][3]) == pytest.approx(TALOS_SOLE[1] * w["left_sole_link"][2], rel=1e-7)
    np.testing.assert_allclose(scene.update_tasks_status()["com"].y_solution, 0.0, atol=1e-9)


def test_lifting_a_contact_deactivates_its_wrench_task_and_puts_it_back(talos) -> None:
    robot, q = talos
    model = robot.model
    mg = robot.total_mass * G0
    scene = _with_wrench_task(robot, weights=[0, 0, 1, 0, 0, 0], frame="right_sole_link")
    scene.set_reference("lf_force", WrenchReference([0, 0, 0.3 * mg, 0, 0, 0]))
    args = (robot, q, np.zeros(model.nv), np.zeros(3), np.zeros(model.nv - 6))
    solve_talos(scene, *args)
    assert scene.get_contact_wrenches()["right_sole_link"][2] == pytest.approx(0.3 * mg, rel=1e-8)
    scene.set_contact_active("right_sole_link", False)
    hqp = scene.update()
    labels = ("fx", "fy", "fz", "tx", "ty", "tz")
    assert hqp.n == model.nv + 6 and hqp.variable_names[-6:] == [f"left_sole_link:{c}" for c in labels]
    scene.solve(hqp)
    assert list(scene.get_contact_wrenches()) == ["left_sole_link"]
    status = scene.update_tasks_status()["lf_force"]
    assert status.state == "contact_inactive" and status.y_solution is None and status.error is None
    assert "contact_inactive" in str(scene.get_tasks_status())
    scene.set_contact_active("right_sole_link", True)
    solve_talos(scene, *args)
    assert scene.get_contact_wrenches()["right_sole_link"][2] == pytest.approx(0.3 * mg, rel=1e-8)


def test_outputs_api_and_alias(talos) -> None:
    robot, q = talos
    model = robot.model
    assert AccelerationSceneTSID is InverseDynamicsScene
    scene = talos_scene(robot)
    for getter in (scene.get_joint_torques, scene.get_contact_wrenches, scene.get_solver_output):
        with pytest.raises(NoSolutionError):
            getter()
    robot.update(q, np.zeros(model.nv))
    scene.set_reference("com", ComReference(np.zeros(3)))
    cmd = scene.solve(scene.update())
    assert cmd.names == scene.get_solver_output().names and len(cmd.names) == model.nv - 6
    np.testing.assert_array_equal(cmd.effort, scene.get_joint_torques())
    w = scene.getContactWrenches()
    # at rest, without posture reference: the soles carry the weight (closed form)
    assert _vertical_force(robot, w) == pytest.approx(robot.total_mass * G0, rel=1e-9)
    w["left_sole_link"][:] = 0.0  # a copy
    assert scene.get_contact_wrenches()["left_sole_link"][2] > 0.0
    assert [c.frame for c in scene.contacts] == list(SOLES)


def test_wrench_tasks_need_an_inverse_dynamics_scene() -> None:
    robot = load_robot("lwr4")
    with pytest.raises(ConfigError, match="InverseDynamicsScene"):
        AccelerationScene(robot).configure([{"name": "f", "type": "wrench", "frame": "lwr_ee"}])


def _snapshot(scene, robot, q):
    robot.update(q, np.zeros(robot.nv))
    hqp = scene.update()
    return (
        [c.to_dict() for c in scene.contacts],
        [c.to_dict() for c in scene.get_wbc_config()],
        hqp.variable_names,
        [lv.A.copy() for lv in hqp.levels],
        None if hqp.levels[0].C is None else hqp.levels[0].C.copy(),
    )


def _same(a, b) -> None:
    assert a[:3] == b[:3]
    assert all(np.array_equal(x, y) for x, y in zip(a[3], b[3], strict=True))
    assert (a[4] is None and b[4] is None) or np.array_equal(a[4], b[4])


BAD_CONTACTS = {
    "unknown_frame": (
        [{"type": "surface", "frame": "left_sole", "half_size": TALOS_SOLE, "mu": 0.3}],
        "frame",
    ),
    "mu_zero": ([{"type": "point", "frame": "left_sole_link", "mu": 0.0}], "mu"),
    "mu_negative": ([SurfaceContact("left_sole_link", TALOS_SOLE, 0.3)], "mu"),  # edited below
    "half_size": (
        [{"type": "surface", "frame": "left_sole_link", "half_size": [0.1, 0.0], "mu": 0.3}],
        "half_size",
    ),
    "fz_min_negative": ([{"type": "point", "frame": "left_sole_link", "mu": 0.3, "fz_min": -1.0}], "fz_min"),
    "fz_min_above_max": (
        [{"type": "point", "frame": "left_sole_link", "mu": 0.3, "fz_min": 5.0, "fz_max": 4.0}],
        "fz_min",
    ),
    "nan_mu": ([{"type": "point", "frame": "left_sole_link", "mu": math.nan}], "mu"),
    "nan_half_size": (
        [{"type": "surface", "frame": "left_sole_link", "half_size": [math.nan, 0.1], "mu": 0.3}],
        "half_size",
    ),
    "nan_fz_max": ([{"type": "point", "frame": "left_sole_link", "mu": 0.3, "fz_max": math.nan}], "fz_max"),
    "two_on_one_frame": ([PointContact("left_sole_link", 0.3), PointContact("left_sole_link", 0.5)], "frame"),
    "unknown_type": ([{"type": "line", "frame": "left_sole_link", "mu": 0.3}], "type"),
    "not_a_list": ({"type": "point", "frame": "left_sole_link", "mu": 0.3}, "contacts"),
    "drops_the_wrench_tasks_frame": ([PointContact("right_sole_link", 0.3)], "contacts"),
    "changes_its_size": ([PointContact("left_sole_link", 0.3)], "contacts"),
}


@pytest.mark.parametrize("case", BAD_CONTACTS)
def test_bad_contacts_raise_config_error_and_change_nothing(talos, case: str) -> None:
    robot, q = talos
    scene = _with_wrench_task(robot)
    before = _snapshot(scene, robot, q)
    items, field = BAD_CONTACTS[case]
    if case == "mu_negative":
        items[0].mu = -0.3  # a dataclass edited after construction is re-validated
    with pytest.raises(ConfigError) as info:
        scene.set_contacts(items)
    assert field in info.value.field
    _same(before, _snapshot(scene, robot, q))


def test_bad_tasks_and_options_raise_config_error_and_change_nothing(talos) -> None:
    robot, q = talos
    scene = _with_wrench_task(robot)
    before = _snapshot(scene, robot, q)
    configs = [c.to_dict() for c in scene.get_wbc_config()]
    bad = [
        ({"name": "f", "type": "wrench", "frame": "head_2_link"}, ConfigKeyError, "frame"),  # not a contact
        ({"name": "f", "type": "wrench"}, ConfigError, "frame"),
        (
            {"name": "f", "type": "wrench", "frame": "left_sole_link", "weights": [1, 1, 1]},
            ConfigError,
            "weights",
        ),
        ({"name": "f", "type": "com", "frame": "left_sole_link"}, ConfigError, "frame"),
    ]
    for task, exc, field in bad:
        with pytest.raises(exc) as info:
            scene.configure([*configs, task])
        assert field in info.value.field
    with pytest.raises(ConfigKeyError):
        scene.set_contact_active("head_2_link", False)
    with pytest.raises(ConfigError):
        scene.set_contact_active("left_sole_link", "no")
    with pytest.raises(ReferenceTypeError):
        scene.set_reference("lf_force", ComReference(np.zeros(3)))
    for wrench in ([0.0] * 3, [math.nan] + [0.0] * 5):
        with pytest.raises(InvalidValueError):
            scene.set_reference("lf_force", WrenchReference(wrench))
    _same(before, _snapshot(scene, robot, q))
    for option in ({"leg_left_9_joint": 10.0}, {"leg_left_4_joint": 0.0}, {"leg_left_4_joint": math.nan},
                   {"root_joint": 10.0}, "yes", 1):  # fmt: skip
        with pytest.raises(ConfigError):
            InverseDynamicsScene(robot, effort_limits=option)
    with pytest.raises(ConfigKeyError):
        InverseDynamicsScene(robot, contacts=[])  # not an option: set_contacts


def test_effort_limits_option(talos) -> None:
    robot, _ = talos
    scene = InverseDynamicsScene(
        robot, effort_limits={"leg_left_4_joint": 50.0, "arm_left_1_joint": math.inf}
    )
    urdf = robot.effort_limit[6:]
    knee = robot.joint_v_index("leg_left_4_joint") - 6
    arm = robot.joint_v_index("arm_left_1_joint") - 6
    assert scene.effort_limit[knee] == 50.0 and math.isinf(scene.effort_limit[arm])
    others = np.ones(urdf.size, dtype=bool)
    others[[knee, arm]] = False
    np.testing.assert_array_equal(scene.effort_limit[others], urdf[others])
    np.testing.assert_array_equal(InverseDynamicsScene(robot, effort_limits=True).effort_limit, urdf)
    assert InverseDynamicsScene(robot).effort_limit is None


def test_point_contact_wrench_task_takes_three_entries(talos) -> None:
    robot, q = talos
    model = robot.model
    scene = InverseDynamicsScene(robot)
    scene.set_contacts(
        [SurfaceContact("left_sole_link", TALOS_SOLE, 0.8), PointContact("right_sole_link", 0.8)]
    )
    scene.configure(
        [{"name": "com", "type": "com"}, {"name": "rf", "type": "wrench", "frame": "right_sole_link"}]
    )
    assert scene.get_task("rf").n == 3
    scene.set_reference("rf", WrenchReference([0.0, 0.0, 100.0]))
    robot.update(q, np.zeros(model.nv))
    scene.set_reference("com", ComReference(np.zeros(3)))
    scene.solve(scene.update())
    w = scene.get_contact_wrenches()
    assert w["right_sole_link"].shape == (3,) and w["right_sole_link"][2] == pytest.approx(100.0, rel=1e-8)
