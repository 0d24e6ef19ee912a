"""Measured contacts: ``WalkingController.set_measured_wrenches`` makes a swing foot land when it feels the
floor — early in the second half of its swing (at a low ground speed), late after its planned landing
(its reference keeps descending; the contact is not asked for support; the extension is bounded) —, and
without measurements it lands on the pattern's clock, as before. The events are read from the scene's
contact set; the late foot's descent from Pinocchio's rigid-contact plant driven by the controller."""

from __future__ import annotations

import copy
import math
import pickle

import numpy as np
import pytest

from wbcpy.errors import ConfigError, InvalidValueError, ReadOnlyAttributeError, UnknownNameError
from wbcpy.locomotion import WalkingController, WalkingPattern, plan_footsteps
from wbcpy.locomotion.touchdown import DESCENT_SPEED, TOUCHDOWN_FORCE
from wbcpy.sim.contact_plant import ContactPlant

SOLES = ("left_sole_link", "right_sole_link")
DT = 0.002
#: the first swing (the left foot) of a pattern with the default timeline: [1.0, 1.6) s
T0, T1 = 1.0, 1.6


@pytest.fixture
def talos_ctrl(example_robot):
    robot = example_robot("talos")
    q0 = robot.reference_configuration("half_sitting")
    robot.update(q0, np.zeros(robot.nv))
    pattern = WalkingPattern(robot, plan_footsteps(robot, 2, 0.1))
    return robot, WalkingController(robot, pattern, dt=DT)


def _wrenches(robot, left: float, right: float = 0.5) -> dict[str, np.ndarray]:
    """Measured wrenches with normal forces ``left`` and ``right`` (units of m·g)."""
    mg = robot.total_mass * 9.81
    shares = zip(SOLES, (left, right), strict=True)
    return {f: np.array([0.0, 0.0, share * mg, 0.0, 0.0, 0.0]) for f, share in shares}


def _landing_time(ctrl, measured, start: float = T0, end: float = 2.0) -> float:
    """The first control time at which the left sole is in the controller's contact set again, feeding
    ``measured(t)`` (a wrench mapping, or None) before each schedule."""
    for k in range(round(start / DT), round(end / DT)):
        t = k * DT
        wrenches = measured(t)
        if wrenches is not None:
            ctrl.set_measured_wrenches(wrenches)
        ctrl.schedule(t)
        if t > T0 and SOLES[0] in ctrl.scene.active_contact_frames:
            return t
    return math.inf


def test_without_measurements_the_clock_lands_the_foot(talos_ctrl):
    _, ctrl = talos_ctrl
    assert _landing_time(ctrl, lambda t: None) == pytest.approx(T1)
    contact = next(c for c in ctrl.scene.contacts if c.frame == SOLES[0])
    assert contact.loading is not None  # (landed with the loading ramp)


def test_an_early_touchdown_becomes_a_contact(talos_ctrl):
    """A normal force above the threshold in the swing's second half lands the foot at once; in its first
    half (a stub) it does not."""
    robot, ctrl = talos_ctrl
    felt = TOUCHDOWN_FORCE * 1.5

    def measured(t):
        return _wrenches(robot, felt if (1.1 <= t < 1.2 or t >= 1.42) else 0.0)

    assert _landing_time(ctrl, measured) == pytest.approx(1.42)


def test_a_moving_foot_does_not_land_until_it_slows(talos_ctrl):
    robot, ctrl = talos_ctrl
    q0 = robot.state.q.copy()
    v = np.zeros(robot.nv)
    v[0] = 0.3  # (the whole robot moving at 0.3 m/s: the sole too)
    robot.update(q0, v)
    felt = _wrenches(robot, 2 * TOUCHDOWN_FORCE)
    assert _landing_time(ctrl, lambda t: felt, end=1.45) == math.inf
    robot.update(q0, np.zeros(robot.nv))
    assert _landing_time(ctrl, lambda t: felt, start=1.45) == pytest.approx(1.45)


def test_a_late_foot_is_not_asked_for_support_and_the_delay_is_bounded(talos_ctrl):
    robot, ctrl = talos_ctrl
    assert _landing_time(ctrl, lambda t: _wrenches(robot, 0.0 if t < 1.63 else 0.05)) == pytest.approx(1.63)
    robot2, ctrl2 = robot, copy.deepcopy(ctrl)
    ctrl2.set_measured_wrenches(None)
    fresh = WalkingController(robot2, WalkingPattern(robot2, plan_footsteps(robot2, 2, 0.1)), dt=DT)
    never = _landing_time(fresh, lambda t: _wrenches(robot2, 0.0))
    assert never == pytest.approx(T1 + 0.5 * fresh.pattern.double_support_time, abs=1e-9)  # (0.1 s)


def test_a_late_foot_keeps_descending(example_robot):
    """In Pinocchio's rigid-contact plant (no floor) with measured wrenches that never show the floor, the
    swing foot goes on below the planned ground at the descent speed, then lands at the bounded delay."""
    robot = example_robot("talos")
    q0 = robot.reference_configuration("half_sitting")
    robot.update(q0, np.zeros(robot.nv))
    pattern = WalkingPattern(robot, plan_footsteps(robot, 2, 0.1))
    ctrl = WalkingController(robot, pattern, dt=DT)
    plant = ContactPlant(ctrl.scene, q0, np.zeros(robot.nv), DT, kd=50.0)
    ground = pattern.ground
    heights = {}
    for k in range(round(1.75 / DT)):
        t = k * DT
        if t >= T0:
            ctrl.set_measured_wrenches(_wrenches(robot, 0.0, 1.0))
        ctrl.schedule(t)
        q, v = plant.state()
        robot.update(q, v)
        plant.apply(ctrl.step(t).effort)
        heights[round(t, 3)] = robot.frame_placement(SOLES[0]).translation[2] - ground
    # the reference goes down at v_d from the footstep at t1: the foot follows, at that speed, below ground
    speed = (heights[1.65] - heights[1.69]) / 0.04
    assert speed == pytest.approx(DESCENT_SPEED, rel=0.2)
    assert heights[1.69] < -0.5 * DESCENT_SPEED * (1.69 - T1)
    assert SOLES[0] in ctrl.scene.active_contact_frames  # (landed at t1 + 0.1 s, below the plan's ground)
    assert heights[1.74] == pytest.approx(heights[1.7], abs=2e-5)


@pytest.mark.parametrize(
    ("wrenches", "error", "field"),
    [
        ([1, 2], ConfigError, "wrenches"),
        ({SOLES[0]: np.zeros(6)}, ConfigError, "wrenches"),
        ({SOLES[0]: np.zeros(6), SOLES[1]: np.zeros(6), "torso_1_link": np.zeros(6)}, UnknownNameError, None),
        ({SOLES[0]: np.zeros(5), SOLES[1]: np.zeros(6)}, InvalidValueError, None),
        ({SOLES[0]: [0, 0, math.nan, 0, 0, 0], SOLES[1]: np.zeros(6)}, InvalidValueError, None),
        ({SOLES[0]: [True] * 6, SOLES[1]: np.zeros(6)}, InvalidValueError, None),
    ],
)
def test_bad_measurements_change_nothing(talos_ctrl, wrenches, error, field):
    robot, ctrl = talos_ctrl
    ctrl.set_measured_wrenches(_wrenches(robot, 0.3, 0.7))
    before = dict(ctrl.touchdown.normal)
    with pytest.raises(error) as info:
        ctrl.set_measured_wrenches(wrenches)
    if field is not None:
        assert info.value.field == field
    assert ctrl.touchdown.normal == before


def test_copies_and_pickles_keep_their_own_measurements(talos_ctrl):
    robot, ctrl = talos_ctrl
    ctrl.set_measured_wrenches(_wrenches(robot, 0.3, 0.7))
    twin = copy.deepcopy(ctrl)
    ctrl.set_measured_wrenches(None)
    assert twin.touchdown.measuring and not ctrl.touchdown.measuring
    back = pickle.loads(pickle.dumps(twin))
    assert back.touchdown.normal == twin.touchdown.normal and back.touchdown is not twin.touchdown


def test_the_soft_contact_attributes_are_read_only(talos_ctrl):
    """touchdown, fallback, landing_time, swing_speed, clearance: fixed once built (the scene's ramps and
    the adaptation's region are built from them)."""
    _, ctrl = talos_ctrl
    for name in ("touchdown", "fallback", "landing_time", "swing_speed", "clearance"):
        before = getattr(ctrl, name)
        with pytest.raises(ReadOnlyAttributeError) as info:
            setattr(ctrl, name, 0.5)
        assert info.value.field == name and getattr(ctrl, name) is before
