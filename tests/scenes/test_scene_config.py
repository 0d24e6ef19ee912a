"""AccelerationScene configuration, references, inactive tasks, status and the ARC-OPT API surface."""

from __future__ import annotations

import io
from contextlib import redirect_stdout

import numpy as np
import pinocchio as pin
import pytest
from _scene_helpers import BACKENDS, LWA, com_acceleration_fd, example_robot, lwr4, random_state

from wbcpy import AccelerationScene
from wbcpy.errors import (
    ConfigError,
    ConfigKeyError,
    InvalidValueError,
    QPSolveError,
    StateNotSetError,
    UnknownNameError,
)
from wbcpy.scenes import NoSolutionError, Scene
from wbcpy.tasks import (
    CartesianReference,
    ComReference,
    JointReference,
    ReferenceTypeError,
    TaskConfig,
)


@pytest.fixture
def arm():
    robot = lwr4()
    q, v = random_state(robot, np.random.default_rng(30))
    robot.update(q, v)
    return robot


def _configured(robot, **options):
    scene = AccelerationScene(robot, **options)
    scene.configure(
        [
            TaskConfig("ee", "cart", tip="lwr_ee"),
            TaskConfig("posture", "jnt", joint_names=robot.joint_names, priority=1),
        ]
    )
    scene.set_reference("ee", CartesianReference(np.arange(6.0) / 10))
    scene.set_reference("posture", JointReference(np.ones(7)))
    scene.solve(scene.update())
    return scene


def _snapshot(scene):
    hqp = scene.update()
    return (
        scene.task_names,
        [c.to_dict() for c in scene.get_wbc_config()],
        [(lv.A.copy(), lv.y.copy()) for lv in hqp.levels],
        scene.get_solver_output_raw(),
        scene.get_joint_weights(),
    )


def _assert_same(a, b):
    assert a[0] == b[0] and a[1] == b[1] and a[4] == b[4]
    assert len(a[2]) == len(b[2])
    for (A1, y1), (A2, y2) in zip(a[2], b[2], strict=True):
        assert np.array_equal(A1, A2) and np.array_equal(y1, y2)
    assert np.array_equal(a[3], b[3])


BAD_CONFIGS = [
    ([], "tasks"),
    ([{"name": "j", "type": "jnt", "joint_names": []}], "tasks[0].joint_names"),
    ([{"name": "x", "type": "joint_space", "joint_names": ["lwr_joint_1"]}], "tasks[0].type"),
    ([{"name": "e", "type": "cart", "tip": "lwr_ee", "priority": -1}], "tasks[0].priority"),
    ([{"name": "e", "type": "cart", "tip": "lwr_ee", "activation": 1.5}], "tasks[0].activation"),
    ([{"name": "e", "type": "cart", "tip": "lwr_ee", "weights": [1, 1, 1]}], "tasks[0].weights"),
    ([{"name": "c", "type": "com", "weights": [1, -1, 1]}], "tasks[0].weights"),
    ([{"name": "e", "type": "cart", "tip": "lwr_eee"}], "tasks[0].tip"),
    ([{"name": "e", "type": "cart", "tip": "lwr_ee", "root": "nowhere"}], "tasks[0].root"),
    ([{"name": "e", "type": "cart", "tip": "lwr_ee", "ref_frame": "nowhere"}], "tasks[0].ref_frame"),
    ([{"name": "j", "type": "jnt", "joint_names": ["lwr_joint_9"]}], "tasks[0].joint_names"),
    ([{"name": "c", "type": "com"}, {"name": "c", "type": "com"}], "tasks[1].name"),
    ([{"name": "c", "type": "com", "colour": "red"}], "tasks[0].colour"),
    ([{"name": "e", "type": "cart"}], "tasks[0].tip"),
]


@pytest.mark.parametrize(("configs", "field"), BAD_CONFIGS)
def test_configuration_errors_name_the_field_and_change_nothing(arm, configs, field):
    scene = _configured(arm)
    before = _snapshot(scene)
    with pytest.raises(ConfigError) as info:
        scene.configure(configs)
    assert info.value.field == field
    assert field.split(".")[-1] in str(info.value)
    _assert_same(before, _snapshot(scene))


@pytest.mark.parametrize("field", ["joint_names", "tip", "type"])
def test_unknown_names_are_also_key_errors(arm, field):
    cfg = {
        "joint_names": {"name": "j", "type": "jnt", "joint_names": ["lwr_joint_8"]},
        "tip": {"name": "e", "type": "cart", "tip": "lwr_e"},
        "type": {"name": "e", "type": "carte", "tip": "lwr_ee"},
    }[field]
    with pytest.raises(KeyError) as info:
        AccelerationScene(arm).configure([cfg])
    assert isinstance(info.value, ConfigKeyError)
    assert info.value.suggestions  # close matches are listed


def test_edited_task_config_is_revalidated(arm):
    scene = _configured(arm)
    before = _snapshot(scene)
    cfg = TaskConfig("ee2", "cart", tip="lwr_ee")
    cfg.priority = -3  # dataclasses can be edited after construction
    with pytest.raises(ConfigError) as info:
        scene.configure([TaskConfig("c", "com"), cfg])
    assert info.value.field == "tasks[1].priority"
    _assert_same(before, _snapshot(scene))


def test_scene_options_are_checked(arm):
    with pytest.raises(ConfigKeyError) as info:
        AccelerationScene(arm, joint_limit=True)
    assert info.value.field == "joint_limit"
    assert "joint_limits" in info.value.suggestions
    for kwargs, field in [
        ({"dt": 0.0}, "dt"),
        ({"regularization": -1.0}, "regularization"),
        ({"joint_limits": "yes"}, "joint_limits"),
        ({"acceleration_limit": -1.0}, "acceleration_limit"),
        ({"solver": "no-such-solver"}, "solver"),
    ]:
        with pytest.raises(ConfigError) as info:
            AccelerationScene(arm, **kwargs)
        assert info.value.field == field


def test_bad_references_raise_and_change_nothing(arm):
    scene = _configured(arm)
    before = _snapshot(scene)
    old = scene.get_task("ee").reference
    bad = [
        ("ee", JointReference(np.zeros(6)), ReferenceTypeError),
        ("ee", CartesianReference(np.zeros(5)), InvalidValueError),
        ("ee", CartesianReference([0, 0, np.nan, 0, 0, 0]), InvalidValueError),
        ("ee", CartesianReference(np.zeros(6), twist=[np.inf] * 6), InvalidValueError),
        ("ee", CartesianReference(np.zeros(6), time=float("nan")), InvalidValueError),
        ("posture", JointReference(np.zeros(3)), InvalidValueError),
        ("posture", ComReference(np.zeros(3)), ReferenceTypeError),
        ("nope", JointReference(np.zeros(7)), UnknownNameError),
    ]
    for name, ref, exc in bad:
        with pytest.raises(exc):
            scene.set_reference(name, ref)
    assert issubclass(ReferenceTypeError, TypeError) and issubclass(ReferenceTypeError, ValueError)
    with pytest.raises(KeyError):
        scene.set_reference("nope", JointReference(np.zeros(7)))
    for call, args in [
        (scene.set_task_weights, ("ee", [1, 1])),
        (scene.set_task_weights, ("ee", [1, 1, 1, 1, 1, -1])),
        (scene.set_task_weights, ("ee", [1, 1, 1, 1, 1, np.nan])),
        (scene.set_task_activation, ("ee", 1.5)),
        (scene.set_task_activation, ("ee", float("nan"))),
        (scene.set_joint_weights, ({"lwr_joint_1": 2.0},)),
        (scene.set_joint_weights, ({"lwr_joint_1": 0.5, "elbow": 1.0},)),
    ]:
        with pytest.raises(ConfigError):
            call(*args)
    with pytest.raises(UnknownNameError):
        scene.set_task_activation("nope", 1.0)
    assert scene.get_task("ee").reference is old
    _assert_same(before, _snapshot(scene))


def test_reference_copy_is_private(arm):
    scene = _configured(arm)
    acc = np.zeros(6)
    scene.set_reference("ee", CartesianReference(acc))
    acc[:] = 5.0
    assert np.array_equal(scene.get_task("ee").reference.acceleration, np.zeros(6))


@pytest.mark.parametrize("solver", BACKENDS)
def test_inactive_timed_out_and_unreferenced_tasks_change_nothing(arm, solver):
    now = [0.0]
    base_cfg = [
        TaskConfig("ee", "cart", tip="lwr_ee", weights=[1, 1, 1, 0, 0, 0]),
        TaskConfig("posture", "jnt", joint_names=arm.joint_names, priority=1),
    ]
    refs = {
        "ee": CartesianReference(np.array([0.5, -0.3, 0.2, 0, 0, 0])),
        "posture": JointReference(np.zeros(7)),
    }

    def build(extra):
        scene = AccelerationScene(arm, solver=solver, clock=lambda: now[0])
        scene.configure(base_cfg + extra)
        for name, ref in refs.items():
            scene.set_reference(name, ref)
        return scene

    now[0] = 0.0
    plain = build([])
    plain.solve(plain.update())
    expected = plain.get_solver_output_raw()
    cases = {
        "inactive": (TaskConfig("aux", "com", activation=0.0), ComReference(np.ones(3) * 5)),
        "timed_out": (TaskConfig("aux", "com", timeout=0.5), ComReference(np.ones(3) * 5)),
        "timed_out_stamp": (
            TaskConfig("aux", "com", timeout=0.5, priority=1),
            ComReference(np.ones(3) * 5, time=0.2),
        ),
        "no_reference": (TaskConfig("aux", "jnt", joint_names=["lwr_joint_2"]), None),
    }
    for case, (cfg, ref) in cases.items():
        now[0] = 0.0
        scene = build([cfg])
        if ref is not None:
            scene.set_reference("aux", ref)
        # the task contributes while its reference is fresh (except the inactive/unreferenced ones)
        if case.startswith("timed_out"):
            now[0] = 0.1 if case == "timed_out" else 0.6
            scene.solve(scene.update())
            assert scene.update_tasks_status()["aux"].state == "active"
            assert not np.allclose(scene.get_solver_output_raw(), expected, atol=1e-6)
        now[0] = 1.0
        hqp = scene.update()
        assert [lv.A.shape[0] for lv in hqp.levels] == [3, 7]
        scene.solve(hqp)
        np.testing.assert_allclose(scene.get_solver_output_raw(), expected, atol=1e-10, err_msg=case)
        status = scene.update_tasks_status()["aux"]
        assert status.state == case.replace("_stamp", "")
        assert status.timed_out == case.startswith("timed_out")
        assert not status.active


def test_status_holds_reference_solution_and_measured_values():
    robot = lwr4()
    rng = np.random.default_rng(31)
    q, v = random_state(robot, rng)
    a_meas = rng.normal(size=7)
    robot.update(q, v, a_meas)
    scene = AccelerationScene(robot)
    names = ["lwr_joint_6", "lwr_joint_1"]
    scene.configure(
        [
            TaskConfig("ee", "cart", tip="lwr_ee", weights=[1, 1, 1, 0, 0, 0]),
            TaskConfig("com", "com", priority=1, weights=[1, 1, 0]),
            TaskConfig("joints", "jnt", joint_names=names, priority=2),
        ]
    )
    refs = {"ee": rng.normal(size=6), "com": rng.normal(size=3), "joints": rng.normal(size=2)}
    scene.set_reference("ee", CartesianReference(refs["ee"]))
    scene.set_reference("com", ComReference(refs["com"]))
    scene.set_reference("joints", JointReference(refs["joints"]))
    scene.solve(scene.update())
    qdd = scene.get_solver_output_raw()
    status = scene.update_tasks_status()
    assert scene.get_tasks_status() is status
    model, data = robot.model, robot.model.createData()
    tip = model.getFrameId("lwr_ee")
    pin.computeJointJacobians(model, data, q)
    pin.forwardKinematics(model, data, q, v, np.zeros(7))
    J = pin.getFrameJacobian(model, data, tip, LWA)
    b = pin.getFrameClassicalAcceleration(model, data, tip, LWA).vector.copy()
    Jc = pin.jacobianCenterOfMass(model, model.createData(), q)
    bc = com_acceleration_fd(model, q, v, np.zeros(7))
    idx = [robot.joint_v_index(n) for n in names]
    oracles = {
        "ee": (J @ qdd + b, J @ a_meas + b),
        "com": (Jc @ qdd + bc, Jc @ a_meas + bc),
        "joints": (qdd[idx], a_meas[idx]),
    }
    for name, (y_sol, y_meas) in oracles.items():
        s = status[name]
        assert s.state == "active" and s.priority == ["ee", "com", "joints"].index(name)
        np.testing.assert_array_equal(s.y_ref, refs[name])
        np.testing.assert_allclose(s.y_solution, y_sol, atol=1e-7)
        np.testing.assert_allclose(s.y, y_meas, atol=1e-7)
        np.testing.assert_allclose(s.error, s.y_ref - s.y_solution, atol=1e-15)
    np.testing.assert_allclose(status["ee"].y_solution[:3], refs["ee"][:3], atol=1e-5)  # tracked rows
    buf = io.StringIO()
    with redirect_stdout(buf):
        text = scene.dump_status()
    printed = buf.getvalue().splitlines()
    assert text.splitlines() == printed and len(printed) == 2 + 3  # header, rule, one row per task
    assert [row.split()[0] for row in printed[2:]] == ["ee", "com", "joints"]
    verbose = io.StringIO()
    scene.dump_status(file=verbose, levels=True)
    assert "level 0" in verbose.getvalue() and "level 2" in verbose.getvalue()
    assert len(status.levels) == 3


def test_status_without_measured_acceleration_or_solution(arm):
    scene = AccelerationScene(arm)
    scene.configure([TaskConfig("c", "com")])
    status = scene.update_tasks_status()["c"]
    assert (
        status.state == "no_reference"
        and status.y_ref is None
        and status.y_solution is None
        and status.y is None
    )
    with pytest.raises(NoSolutionError):
        scene.get_solver_output_raw()
    with pytest.raises(NoSolutionError):
        scene.get_solver_output()
    with pytest.raises(NoSolutionError):
        scene.solve()
    scene.solve(scene.update())  # no active task: q̈ = 0
    assert np.array_equal(scene.get_solver_output_raw(), np.zeros(7))


def test_update_needs_configuration_and_state():
    robot = lwr4()
    scene = AccelerationScene(robot)
    scene.configure([TaskConfig("c", "com")])
    with pytest.raises(StateNotSetError):
        scene.update()
    robot.update(robot.neutral())
    with pytest.raises(ConfigError):
        AccelerationScene(robot).update()


class _FailingSolver:
    name = "failing"
    statuses = ()

    def solve_hierarchy(self, hqp):
        raise QPSolveError("failing", "infeasible (test)", hqp, level=0)


def test_solver_failure_keeps_last_good_output(arm):
    scene = _configured(arm)
    good = scene.get_solver_output_raw()
    scene.solver = _FailingSolver()
    scene.set_reference("ee", CartesianReference(np.ones(6)))
    with pytest.raises(QPSolveError) as info:
        scene.solve(scene.update())
    assert info.value.solver == "failing" and info.value.problem is not None
    assert np.array_equal(scene.get_solver_output_raw(), good)


def test_api_aliases_and_static_helpers(arm):
    scene = _configured(arm)
    pairs = {
        "setReference": "set_reference",
        "setTaskWeights": "set_task_weights",
        "setTaskActivation": "set_task_activation",
        "getTask": "get_task",
        "hasTask": "has_task",
        "getWbcConfig": "get_wbc_config",
        "setJointWeights": "set_joint_weights",
        "getJointWeights": "get_joint_weights",
        "getActuatedJointWeights": "get_actuated_joint_weights",
        "getSolverOutput": "get_solver_output",
        "getSolverOutputRaw": "get_solver_output_raw",
        "updateTasksStatus": "update_tasks_status",
        "getTasksStatus": "get_tasks_status",
        "sortTaskConfig": "sort_task_config",
        "getNTaskVariables": "get_n_task_variables",
        "getNTaskVariablesPerPrio": "get_n_task_variables_per_prio",
    }
    import wbcpy

    assert wbcpy.AccelerationScene is AccelerationScene  # lazy top-level export
    for camel, snake in pairs.items():
        assert getattr(AccelerationScene, camel) is getattr(AccelerationScene, snake)
    assert scene.has_task("ee") and not scene.has_task("nope") and not scene.has_task(3)
    assert scene.getTask("posture").n == 7
    cfgs = scene.get_wbc_config()
    cfgs[0].priority = 5
    assert scene.get_wbc_config()[0].priority == 0  # copies
    configs = [
        TaskConfig("a", "cart", tip="lwr_ee", priority=2),
        TaskConfig("b", "com"),
        TaskConfig("c", "jnt", joint_names=["lwr_joint_1", "lwr_joint_2"], priority=2),
        {"name": "d", "type": "com", "priority": 7},
    ]
    groups = AccelerationScene.sort_task_config(configs)
    assert [[c.name for c in g] for g in groups] == [["b"], ["a", "c"], ["d"]]
    assert AccelerationScene.get_n_task_variables(configs) == 6 + 3 + 2 + 3
    assert Scene.getNTaskVariablesPerPrio(configs) == [3, 8, 3]
    w = scene.get_joint_weights()
    assert list(w) == arm.joint_names and set(w.values()) == {1.0}
    scene.set_joint_weights({"lwr_joint_4": 0.25})
    assert scene.get_actuated_joint_weights()["lwr_joint_4"] == 0.25
    assert scene.get_joint_weights()["lwr_joint_1"] == 1.0


def test_floating_base_command_and_weights():
    talos = example_robot("talos")
    q, v = random_state(talos, np.random.default_rng(32), margin=0.05)
    talos.update(q, v)
    scene = AccelerationScene(talos)
    scene.configure(
        [TaskConfig("com", "com"), TaskConfig("foot", "cart", root="universe", tip="left_sole_link")]
    )
    scene.set_reference("com", ComReference(np.zeros(3)))
    scene.set_reference("foot", CartesianReference(np.zeros(6)))
    cmd = scene.solve(scene.update())
    assert len(cmd.names) == talos.nv - 6 and not any(n.startswith("root_joint") for n in cmd.names)
    np.testing.assert_array_equal(cmd.acceleration, scene.get_solver_output_raw()[6:])
    assert len(scene.get_joint_weights()) == talos.nv
    assert "root_joint:x" not in scene.get_actuated_joint_weights()
    with pytest.raises(ConfigError) as info:  # jnt tasks take 1-DOF joints only
        scene.configure([TaskConfig("base", "jnt", joint_names=["root_joint"])])
    assert info.value.field == "tasks[0].joint_names" and scene.task_names == ["com", "foot"]
    scene.set_joint_weights({"root_joint": 0.0})  # a multi-DOF joint name sets all its DOFs
    scene.solve(scene.update())
    assert np.array_equal(scene.get_solver_output_raw()[:6], np.zeros(6))
