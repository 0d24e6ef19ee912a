"""Scene attributes assigned after construction: every public attribute of AccelerationScene, VelocityScene
and InverseDynamicsScene (``dir()`` minus methods, enumerated here so that a new attribute must be
classified) either takes the value — a scene changed after construction answers as a fresh scene built
with it, and the value matters (the default scene answers differently) — or raises
ReadOnlyAttributeError and keeps its value. Bad values are ConfigErrors that change nothing."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

from wbcpy import AccelerationScene, InverseDynamicsScene, VelocityScene, load_robot
from wbcpy.errors import ConfigError, ReadOnlyAttributeError, WbcpyError
from wbcpy.tasks import CartesianReference, TaskConfig

SCENES = (AccelerationScene, VelocityScene, InverseDynamicsScene)
#: per scene: attribute -> (constructor keyword arguments of both scenes, the new value)
SETTABLE = {
    AccelerationScene: {
        "regularization": ({}, 1.0),
        "dt": ({"joint_limits": True}, 0.05),
        "joint_limits": ({}, True),
    },
    VelocityScene: {
        "regularization": ({"joint_limits": False, "velocity_limits": False}, 1.0),
        "dt": ({}, 0.001),
        "joint_limits": ({}, False),
        "velocity_limits": ({"joint_limits": False}, False),
        "limit_gain": ({}, 0.05),
    },
    InverseDynamicsScene: {
        "regularization": ({}, 1.0),
        "dt": ({"joint_limits": True}, 0.05),
        "joint_limits": ({}, True),
        "effort_limits": ({}, {"lwr_joint_1": 5.0, "lwr_joint_2": 5.0}),
    },
}
#: settable attributes that make no difference on this file's contact-free arm: tested where they do
SETTABLE_ELSEWHERE = {
    InverseDynamicsScene: ("wrench_regularization",),  # tests/scenes/test_wrench_regularization.py
}
#: the solver is settable too (its answers agree with the default's: checked by its statuses)
SOLVER = "solver"
#: scale of the acceleration reference
PUSH = 1.0


def _public_attributes(scene) -> list[str]:
    kind = type(scene)
    return [n for n in dir(scene) if not n.startswith("_") and not inspect.isroutine(getattr(kind, n, None))]


def _state(robot):
    """Joint 1 near its upper limit moving towards it (the limits bind), joint 2 moving fast."""
    q = np.array([0.3, 0.5, 0.2, -1.2, 0.1, 0.6, 0.0])
    q[0] = robot.upper_position_limit[0] - 0.02
    v = np.zeros(robot.nv)
    v[0], v[1] = 1.5, 1.8
    return q, v


def _scene(kind, robot, **options):
    scene = kind(robot, **options)
    scene.configure([TaskConfig(name="ee", type="cart", tip="lwr_ee", weights=[1, 1, 1, 0, 0, 0])])
    push = np.array([5.0, -3.0, 4.0, 0.0, 0.0, 0.0])
    if kind is VelocityScene:  # (joint 1 runs into its position bound: γ (q_max − q)/dt)
        scene.set_reference("ee", CartesianReference(twist=np.array([0.0, 2.5, 0.0, 0.0, 0.0, 0.0])))
    else:
        scene.set_reference("ee", CartesianReference(PUSH * push))
    return scene


def _answer(scene) -> np.ndarray:
    scene.update()
    out = [scene.solve().acceleration if scene.task_level == "acceleration" else scene.solve().velocity]
    if isinstance(scene, InverseDynamicsScene):
        out.append(scene.get_joint_torques())
    return np.concatenate(out)


@pytest.fixture(scope="module")
def robot():
    robot = load_robot("lwr4")
    robot.update(*_state(robot))
    return robot


@pytest.mark.parametrize("kind", SCENES)
def test_every_public_attribute_is_settable_or_read_only(robot, kind):
    scene = _scene(kind, robot)
    for name in _public_attributes(scene):
        if name in SETTABLE[kind] or name in SETTABLE_ELSEWHERE.get(kind, ()) or name == SOLVER:
            continue
        before = getattr(scene, name)
        for action, args in ((setattr, (scene, name, before)), (delattr, (scene, name))):
            with pytest.raises(ReadOnlyAttributeError) as info:
                action(*args)
            assert info.value.field == name and isinstance(info.value, AttributeError)
        after = getattr(scene, name)
        assert type(after) is type(before)
        if isinstance(before, (str, bool, int, float)):
            assert after == before


@pytest.mark.parametrize(("kind", "name"), [(k, n) for k in SCENES for n in SETTABLE[k]])
def test_a_value_set_after_construction_gives_the_fresh_scenes_answer(robot, kind, name):
    options, value = SETTABLE[kind][name]
    default = _answer(_scene(kind, robot, **options))
    fresh = _answer(_scene(kind, robot, **{**options, name: value}))
    scale = max(1.0, float(np.abs(fresh).max()))
    assert np.abs(fresh - default).max() > 1e-6 * scale, f"{name} makes no difference here: a useless test"
    changed = _scene(kind, robot, **options)
    _answer(changed)  # (solved once with the old value: caches, plans and bounds exist)
    setattr(changed, name, value)
    assert getattr(changed, name) == value
    np.testing.assert_allclose(_answer(changed), fresh, rtol=1e-8, atol=1e-8 * scale)


@pytest.mark.parametrize("kind", SCENES)
def test_the_solver_can_be_replaced(robot, kind):
    scene = _scene(kind, robot)
    want = _answer(scene)
    scene.solver = "quadprog"
    got = _answer(scene)
    assert {s.solver for s in scene.solver_statuses} == {"quadprog"}
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6 * max(1.0, float(np.abs(want).max())))
    for bad in (5, "no_such_solver", object()):
        with pytest.raises(WbcpyError):
            scene.solver = bad
    assert {s.solver for s in scene.solver_statuses} == {"quadprog"}


BAD = {
    "regularization": [0.0, -1.0, math.nan, math.inf, "1", True, None],
    "dt": [0.0, -0.01, math.nan, math.inf, "0.01", True, None, 10**400],
    "joint_limits": ["yes", 1, None, 0.0],
    "velocity_limits": ["no", 0, None],
    "limit_gain": [0.0, 1.5, math.nan, "0.5", True],
    "effort_limits": ["yes", 5, {"no_such_joint": 1.0}, {"lwr_joint_1": -1.0}, {"lwr_joint_1": math.nan}],
}


@pytest.mark.parametrize(("kind", "name"), [(k, n) for k in SCENES for n in SETTABLE[k]])
def test_bad_values_are_refused_and_change_nothing(robot, kind, name):
    scene = _scene(kind, robot)
    before, answer = getattr(scene, name), _answer(scene)
    for bad in BAD[name]:
        with pytest.raises(ConfigError) as info:
            setattr(scene, name, bad)
        assert info.value.field == name or info.value.field.startswith(name), info.value.field
        assert getattr(scene, name) == before
    np.testing.assert_allclose(_answer(scene), answer, atol=1e-12)


@pytest.mark.parametrize("kind", SCENES)
def test_the_limits_objects_are_read_only_too(robot, kind):
    """``scene.limits`` precomputes its bounds: its attributes cannot be changed behind the scene's back
    (set the scene's own attribute instead, which rebuilds them)."""
    scene = _scene(kind, robot)
    limits = scene.limits
    for name in [n for n in vars(limits) if not n.startswith("_")]:
        with pytest.raises(ReadOnlyAttributeError):
            setattr(limits, name, getattr(limits, name))
    with pytest.raises(ValueError):  # (a read-only array)
        limits.velocity_limit[0] = 0.0
