"""Bad inputs of the walking API: every argument of Footstep, plan_footsteps, WalkingPattern (and its
queries and set_step) and WalkingController is checked for type (a bool is not a number), finiteness,
sign and range; a WbcpyError naming the field is raised (ConfigError for configuration, the ValueError
subclass InvalidValueError for arrays and query times) and nothing changes."""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin
import pytest
from _bad_values import HUGE_INT, bad_vectors
from hypothesis import given, settings
from hypothesis import strategies as st

from wbcpy.errors import ConfigError, InvalidValueError, ReadOnlyAttributeError, UnknownNameError, WbcpyError
from wbcpy.locomotion import Footstep, WalkingController, WalkingPattern, find_feet, plan_footsteps

#: Talos's soles (the registry's): half sizes (X, Y), m
SOLE_HALF_SIZE = (0.1, 0.065)

NOT_NUMBERS = [None, "0.1", "nan", b"1", True, False, np.bool_(True), 1j, [0.1], {"a": 1}, object()]
NON_FINITE = [math.nan, math.inf, -math.inf, HUGE_INT, -HUGE_INT]


@pytest.fixture(scope="module")
def talos(example_robot):
    robot = example_robot("talos")
    robot.update(robot.reference_configuration("half_sitting"), np.zeros(robot.nv))
    return robot


@pytest.fixture(scope="module")
def pattern(talos):
    return WalkingPattern(talos, plan_footsteps(talos, 3, 0.1))


def _field(exc: BaseException) -> str:
    return str(getattr(exc, "field", None) or getattr(exc, "argument", ""))


def _fingerprint(p: WalkingPattern) -> tuple:
    times = np.linspace(0.0, p.duration, 37)
    return (p.version, [s.row().tolist() for s in p.steps], [p.sample(t)[0].tolist() for t in times])


# ---------------------------------------------------------------------------------------------- Footstep
@pytest.mark.parametrize("side", ["middle", "", None, 0, True, ["left"]])
def test_footstep_side(side):
    with pytest.raises(ConfigError) as info:
        Footstep(side, pin.SE3.Identity())
    assert info.value.field == "side"


def test_footstep_placement():
    bad = pin.SE3.Identity()
    bad.translation = np.array([math.nan, 0.0, 0.0])
    for value in ("x", None, np.eye(4), bad, (0.0, 0.0, 0.0)):
        with pytest.raises(InvalidValueError) as info:
            Footstep("left", value)
        assert info.value.argument == "placement"
    tilted = pin.SE3(pin.rpy.rpyToMatrix(0.3, 0.0, 0.0), np.zeros(3))
    far = pin.SE3(np.eye(3), np.array([1e6, 0.0, 0.0]))
    for value in (tilted, far):
        with pytest.raises(ConfigError) as info:
            Footstep("left", value)
        assert info.value.field == "placement"
    original = pin.SE3(np.eye(3), np.array([0.1, 0.2, 0.0]))
    step = Footstep("left", original)
    original.translation = np.array([5.0, 5.0, 5.0])  # the footstep kept its own copy
    np.testing.assert_allclose(step.xy, [0.1, 0.2])


# ----------------------------------------------------------------------------- plan_footsteps
@settings(max_examples=40, deadline=None)
@given(
    name=st.sampled_from(["length", "lateral", "turn", "width", "n_steps"]),
    value=st.one_of(st.sampled_from(NOT_NUMBERS), st.sampled_from(NON_FINITE)),
)
def test_plan_footsteps_refuses_non_numbers(talos, name, value):
    if name == "width" and value is None:
        return  # (None: keep today's width)
    with pytest.raises(ConfigError) as info:
        plan_footsteps(talos, **{name: value})
    assert info.value.field == name


@settings(max_examples=30, deadline=None)
@given(width=st.floats(1e-9, 2 * SOLE_HALF_SIZE[1], exclude_max=True))
def test_a_width_below_the_sole_width_is_refused(talos, width):
    """Soles 0.13 m wide (Talos) closer than that would overlap: refused, also through walk()."""
    with pytest.raises(ConfigError) as info:
        plan_footsteps(talos, 4, 0.1, width=width)
    assert info.value.field == "width"


def test_the_width_check_uses_the_robots_soles(talos):
    """The soles' width is the robot's (its Feet): narrower soles allow a narrower stance."""
    assert find_feet(talos).half_size == pytest.approx(SOLE_HALF_SIZE)
    narrow, wide = find_feet(talos, sole=(0.2, 0.1)), find_feet(talos, sole=(0.2, 0.22))
    assert len(plan_footsteps(talos, 2, 0.1, width=0.12, feet=narrow)) == 2
    with pytest.raises(ConfigError) as info:
        plan_footsteps(talos, 2, 0.1, width=0.2, feet=wide)
    assert info.value.field == "width"
    with pytest.raises(ConfigError) as info:
        plan_footsteps(talos, 2, 0.1, feet=wide)  # today's feet (0.17 m) are too close too
    assert info.value.field == "width"


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"n_steps": 2, "length": 0.0, "turn": 2 * math.pi}, "turn"),  # 2π per step: no turn at all
        ({"n_steps": 3, "turn": 3.2}, "turn"),  # more than π/2 per step
        ({"n_steps": 10**6}, "n_steps"),
        ({"n_steps": np.int64(0)}, "n_steps"),
        ({"length": 5.0}, "length"),
        ({"lateral": -3.0}, "lateral"),
        ({"width": 50.0}, "width"),
        ({"first": None}, "first"),
    ],
)
def test_plan_footsteps_ranges(talos, kwargs, field):
    with pytest.raises(ConfigError) as info:
        plan_footsteps(talos, **kwargs)
    assert info.value.field == field


def test_plan_footsteps_feet_and_robot(talos):
    with pytest.raises(UnknownNameError):
        plan_footsteps(talos, feet=("left_sole_link", "no_such_sole"))
    for feet in ("left_sole_link", ("left_sole_link",), ("left_sole_link", "left_sole_link"), (1, 2)):
        with pytest.raises(WbcpyError):
            plan_footsteps(talos, feet=feet)
    with pytest.raises(ConfigError) as info:
        plan_footsteps("talos")
    assert info.value.field == "robot"


# ----------------------------------------------------------------------------- WalkingPattern
@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(
        ["step_time", "double_support_time", "com_height", "step_height", "start_time", "end_time"]
    ),
    value=st.one_of(
        st.sampled_from(NOT_NUMBERS),
        st.sampled_from(NON_FINITE),
        st.sampled_from([1e-17, 1e-300, 1e300, -0.1, 0.0, 1e4]),
    ),
)
def test_pattern_refuses_bad_numbers(talos, name, value):
    """Non-numbers, non-finite values and values that make the plan degenerate (a phase of 1e-17 s, a
    COM height of 1e-300 m or 1e300 m) are ConfigErrors naming the field (step_height 0 is valid)."""
    if (name == "step_height" and value in (0.0, 1e-17, 1e-300, None)) or (
        name == "com_height" and value is None
    ):
        return  # (valid: a swing height ≥ 0; None: the robot's scaled height, the COM's own height)
    steps = plan_footsteps(talos, 3, 0.1)
    with pytest.raises(ConfigError) as info:
        WalkingPattern(talos, steps, **{name: value})
    assert info.value.field == name


@settings(max_examples=40, deadline=None)
@given(com=bad_vectors(3).filter(lambda c: c is not None))
def test_pattern_refuses_a_bad_com(talos, com):
    steps = plan_footsteps(talos, 2, 0.1)
    with pytest.raises(InvalidValueError) as info:
        WalkingPattern(talos, steps, com=com)
    assert info.value.argument == "com"


def test_pattern_refuses_bad_steps(talos):
    steps = plan_footsteps(talos, 3, 0.1)
    for bad, field in [
        ("left", "steps"),
        (None, "steps"),
        ([], "steps"),
        ([steps[0], "x"], "steps[1]"),
        ([steps[0], (steps[1].side, steps[1].placement)], "steps[1]"),
        ([steps[0], steps[0]], "steps[1].side"),
    ]:
        with pytest.raises(ConfigError) as info:
            WalkingPattern(talos, bad)
        assert info.value.field == field
    nan_step = Footstep(steps[1].side, steps[1].placement)
    nan_step.placement.translation = np.array([0.1, math.nan, 0.0])  # edited after construction
    with pytest.raises(InvalidValueError) as info:
        WalkingPattern(talos, [steps[0], nan_step])
    assert info.value.argument == "steps[1].placement"
    renamed = Footstep(steps[1].side, steps[1].placement)
    renamed.side = "up"
    with pytest.raises(ConfigError) as info:
        WalkingPattern(talos, [steps[0], renamed])
    assert info.value.field == "steps[1].side"


@settings(max_examples=40, deadline=None)
@given(t=st.one_of(st.sampled_from(NOT_NUMBERS), st.sampled_from([math.nan, math.inf, -math.inf, "1"])))
def test_pattern_queries_refuse_bad_times(pattern, t):
    for query in (pattern.com, pattern.zmp, pattern.dcm, pattern.sample, pattern.lipm, pattern.phase,
                  pattern.planted, pattern.swing):  # fmt: skip
        with pytest.raises(InvalidValueError) as info:
            query(t)
        assert info.value.argument == "t"


def test_pattern_swing_into_checks_its_buffers(pattern):
    t = pattern.phases[1].t0 + 0.1
    for M, vel, acc, name in [
        (np.eye(3), np.zeros(6), np.zeros(6), "M"),
        (np.eye(4), np.zeros(5), np.zeros(6), "vel"),
        (np.eye(4), np.zeros(6), [0.0] * 6, "acc"),
        (np.eye(4, dtype=np.float32), np.zeros(6), np.zeros(6), "M"),
    ]:
        with pytest.raises(InvalidValueError) as info:
            pattern.swing_into(t, M, vel, acc)
        assert info.value.argument == name


@settings(max_examples=40, deadline=None)
@given(
    k=st.one_of(
        st.sampled_from(["a", 1.5, True, False, np.bool_(True), None, -1, 3, 10**30, np.float64(1.0)]),
        st.integers(min_value=3),
        st.integers(max_value=-1),
    )
)
def test_set_step_refuses_bad_indices_and_changes_nothing(talos, k):
    pattern = WalkingPattern(talos, plan_footsteps(talos, 3, 0.1))
    before = _fingerprint(pattern)
    with pytest.raises(ConfigError) as info:
        pattern.set_step(k, pin.SE3(np.eye(3), np.array([0.3, 0.1, 0.0])))
    assert info.value.field == "k"
    assert _fingerprint(pattern) == before


def test_set_step_refuses_bad_placements_and_changes_nothing(talos):
    pattern = WalkingPattern(talos, plan_footsteps(talos, 3, 0.1))
    before = _fingerprint(pattern)
    nan = pattern.footstep(1).placement
    nan.translation = np.array([math.nan, 0.0, 0.0])
    tilted = pin.SE3(pin.rpy.rpyToMatrix(0.0, 0.5, 0.0), np.zeros(3))
    for bad in ("x", None, np.eye(4), nan, tilted):
        with pytest.raises((InvalidValueError, ConfigError)) as info:
            pattern.set_step(1, bad)
        assert _field(info.value) == "placement"
        assert _fingerprint(pattern) == before


def test_pattern_attributes_are_read_only(talos):
    """A value assigned after construction would not re-plan: refused; edited copies change nothing."""
    pattern = WalkingPattern(talos, plan_footsteps(talos, 3, 0.1))
    before = _fingerprint(pattern)
    for name in ("step_time", "omega", "com_height", "duration", "steps", "phases", "ground", "version",
                 "feet", "new_attribute"):  # fmt: skip
        with pytest.raises(ReadOnlyAttributeError) as info:
            setattr(pattern, name, 1.0)
        assert info.value.field == name and isinstance(info.value, AttributeError)
    pattern.steps[0].placement.translation = np.array([9.0, 9.0, 0.0])
    pattern.com0[:] = 5.0
    pattern.start["left"].translation = np.zeros(3)
    with pytest.raises(Exception):  # noqa: B017 (a frozen dataclass: FrozenInstanceError)
        pattern.phases[0].t1 = 5.0
    assert _fingerprint(pattern) == before


# ----------------------------------------------------------------------------- WalkingController
@pytest.fixture(scope="module")
def controller(talos, pattern):
    return WalkingController(talos, pattern)


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(["dt", "mu", "cop_margin", "friction_use", "max_normal"]),
    value=st.one_of(
        st.sampled_from(NOT_NUMBERS),
        st.sampled_from(NON_FINITE),
        st.sampled_from([-0.1, 1e-9, 1e3, 1e300]),
    ),
)
def test_controller_refuses_bad_numbers(talos, pattern, name, value):
    if (value == 1e-9 and name != "dt") or (value is None and name in ("mu", "cop_margin")):
        return  # (valid: only dt has a lower bound above 0; None: the soles' μ, the default margin)
    with pytest.raises(ConfigError) as info:
        WalkingController(talos, pattern, **{name: value})
    assert info.value.field == name


def test_controller_refuses_bad_objects(talos, pattern):
    for kwargs, field in [
        ({"half_size": (0.1,)}, "half_size"),
        ({"half_size": (0.1, -0.05)}, "half_size[1]"),
        ({"half_size": (0.1, 0.065), "cop_margin": 0.07}, "cop_margin"),
        ({"push_recovery": "yes"}, "push_recovery"),
        ({"push_recovery": 1}, "push_recovery"),
    ]:
        with pytest.raises(ConfigError) as info:
            WalkingController(talos, pattern, **kwargs)
        assert info.value.field == field
    with pytest.raises(ConfigError) as info:
        WalkingController(talos, "pattern")
    assert info.value.field == "pattern"
    with pytest.raises(ConfigError) as info:
        WalkingController(pattern, pattern)
    assert info.value.field == "robot"
    for posture in (np.zeros(5), np.full(talos.nq, np.nan), "q"):
        with pytest.raises(InvalidValueError) as info:
            WalkingController(talos, pattern, posture=posture)
        assert info.value.argument == "posture"


def test_controller_settings_and_read_only_attributes(controller):
    for name, bad in [("dcm_gain", "3"), ("dcm_gain", -1.0), ("dcm_gain", True),
                      ("adapt_threshold", math.nan),
                      ("push_recovery", "no")]:  # fmt: skip
        before = getattr(controller, name)
        with pytest.raises(ConfigError) as info:
            setattr(controller, name, bad)
        assert info.value.field == name and getattr(controller, name) == before
    controller.dcm_gain = 2.5
    assert controller.dcm_gain == 2.5
    controller.dcm_gain = 3.0
    for name in ("dt", "mu", "half_size", "robot", "pattern", "scene", "feet", "posture", "cop_margin"):
        with pytest.raises(ReadOnlyAttributeError) as info:
            setattr(controller, name, 0.001)
        assert info.value.field == name


@pytest.mark.parametrize("t", [math.nan, math.inf, "1", None, True, 1j])
def test_controller_step_refuses_bad_times(controller, t):
    for call in (controller.step, controller.schedule):
        with pytest.raises(InvalidValueError) as info:
            call(t)
        assert info.value.argument == "t"


def test_no_raw_exception_from_any_bad_argument(talos):
    """Every class of bad argument gives a WbcpyError, never a raw TypeError/OverflowError/ZeroDivision."""
    steps = plan_footsteps(talos, 2, 0.1)
    calls = [
        lambda: WalkingPattern(talos, steps, com_height=1e-300),
        lambda: WalkingPattern(talos, steps, com_height=1e300),
        lambda: WalkingPattern(talos, steps, com="abc"),
        lambda: WalkingPattern(talos, steps, com=[0.0, 0.0]),
        lambda: WalkingPattern(talos, steps, step_time=1e-17, double_support_time=1e-18),
        lambda: WalkingPattern(talos, [1, 2]),
        lambda: WalkingPattern(talos, steps, feet=5),
        lambda: plan_footsteps(talos, "3"),
        lambda: plan_footsteps(talos, 3, turn=None),
    ]
    for call in calls:
        with pytest.raises(WbcpyError):
            call()
