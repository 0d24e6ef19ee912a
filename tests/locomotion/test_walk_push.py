"""walk()'s push: applied exactly once, at the first control step k with k·dt ≥ t; refused up front when
it is negative, after the walk's last step or malformed; ``summary.pushed`` says whether it was applied.

The plant's ``ContactSimulation.push`` is wrapped by a recorder (the test's own, independent of walk's
schedule): it counts the calls and the simulated time at each."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wbcpy.errors import ConfigError, QPSolveError, WbcpyError
from wbcpy.locomotion import WalkingController, walk
from wbcpy.sim.contact_plant import ContactPlant
from wbcpy.sim.contact_simulation import ContactSimulation

DT = 0.002
SHORT = {"n_steps": 2, "length": 0.05}  # 1 + 2·0.8 + 1 = 3.6 s, 1800 control steps


@pytest.fixture
def no_walk(monkeypatch):
    """Fail the test if a walk starts (its plant is built)."""

    def refuse(self, *args, **kwargs):
        raise AssertionError("the walk started: the input was not checked before")

    monkeypatch.setattr(ContactSimulation, "__init__", refuse)


@pytest.fixture
def pushes(monkeypatch):
    """The simulated times (s) of every push the plant took during the test (ContactPlant.push: an
    impulse or the start of a force)."""
    times: list[float] = []
    original = ContactPlant.push

    def recording(self, vector, frame=None, duration=0.0):
        times.append(self.time)
        return original(self, vector, frame, duration)

    monkeypatch.setattr(ContactPlant, "push", recording)
    return times


@pytest.mark.parametrize("at", [0.003, 2.003, 2.001, 1.0, 0.0, 3.598])
def test_a_push_is_applied_once_at_the_first_step_at_or_after_its_time(example_robot, pushes, at):
    example_robot("talos")
    summary = walk("talos", **SHORT, push=(5.0, at), dt=DT)
    assert len(pushes) == 1, pushes
    k = math.ceil(round(at / DT, 9))  # the first step at or after `at` (exact on the grid)
    assert pushes[0] == pytest.approx(k * DT, abs=1e-9)
    assert summary.pushed


@pytest.mark.parametrize("at", [2.003, 0.0])
def test_a_force_push_starts_once_at_the_first_step_at_or_after_its_time(example_robot, pushes, at):
    example_robot("talos")
    summary = walk("talos", **SHORT, push=(200.0, at, 0.05), dt=DT)
    k = math.ceil(round(at / DT, 9))
    assert pushes == [pytest.approx(k * DT, abs=1e-9)] and summary.pushed


def test_a_push_at_a_grid_time_lands_on_that_step(example_robot, pushes):
    """3.0 / 0.002 is 1500 up to rounding: the push lands at step 1500, not 1501."""
    example_robot("talos")
    walk("talos", n_steps=3, length=0.05, push=(5.0, 3.0), dt=DT)
    assert pushes == [pytest.approx(3.0, abs=1e-9)]


@pytest.mark.parametrize(
    "push",
    [
        (30.0, 1e9),  # after the end of the walk
        (30.0, 3.6),  # 3.6 s = the end: the last control step is at 3.598 s
        (30.0, -0.001),
        (30.0, -1e9),
        (30.0,),
        (30.0, 1.0, 2.0, 3.0),
        (300.0, 1.0, 0.0),  # a force for no time
        (300.0, 1.0, -0.1),
        (300.0, 1.0, math.nan),
        (300.0, 1.0, True),
        (1e6, 1.0, 0.1),  # a force of 100 body weights
        (300.0, 1e9, 0.1),  # a force starting after the walk
        "30@3",
        b"30@3",
        30.0,
        (True, 1.0),
        (30.0, False),
        ("30", 1.0),
        (30.0, None),
        (math.nan, 1.0),
        (30.0, math.inf),
        (1e6, 1.0),  # a base velocity jump of 1e4 m/s
        {"impulse": 30.0, "time": 1.0},
    ],
)
def test_bad_pushes_are_refused_before_the_walk(example_robot, no_walk, push):
    example_robot("talos")
    with pytest.raises(ConfigError) as info:
        walk("talos", **SHORT, push=push, dt=DT)
    assert info.value.field == "push"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(at=st.one_of(st.floats(max_value=-1e-12), st.floats(min_value=3.5981, allow_infinity=False)))
def test_push_times_outside_the_walk_are_refused(example_robot, no_walk, at):
    example_robot("talos")
    with pytest.raises(ConfigError) as info:
        walk("talos", **SHORT, push=(10.0, at), dt=DT)
    assert info.value.field == "push"


def test_a_walk_that_stops_before_the_push_is_not_pushed(example_robot, monkeypatch, pushes):
    """The controller finds no answer at t = 1 s (a QPSolveError injected): the walk stops there, the
    push planned at 2 s is never applied, and the summary says so (not pushed, not ok)."""
    example_robot("talos")
    original = WalkingController.step

    def failing(self, t):
        if t >= 1.0:
            raise QPSolveError("test", "infeasible (injected)")
        return original(self, t)

    monkeypatch.setattr(WalkingController, "step", failing)
    summary = walk("talos", **SHORT, push=(5.0, 2.0), dt=DT)
    assert summary.error and not summary.ok
    assert pushes == [] and not summary.pushed


def test_walk_log_velocity_jumps_once(example_robot, tmp_path):
    """The logged base velocity jumps at one step only, by about P/m (the contacts take part of it)."""
    robot = example_robot("talos")
    path = tmp_path / "w.npz"
    walk("talos", **SHORT, push=(20.0, 2.003), dt=DT, log=path)
    with np.load(path) as f:
        v = f["v"]
    jumps = np.flatnonzero(np.abs(np.diff(v[:, 1])) > 0.3 * 20.0 / robot.total_mass)
    assert jumps.tolist() == [1001]  # v[1002] (t = 2.004 s) is the first pushed state


def test_no_raw_exception_from_walk_arguments(example_robot, no_walk):
    example_robot("talos")
    for kwargs in (
        {"lateral": "0.1"},
        {"turn": None},
        {"length": "0.1"},
        {"progress": 5},
        {"progress": "yes"},
        {"push_recovery": "yes"},
        {"dt": 1e-9},
        {"dt": True},
        {"dt": "0.002"},
        {"robot": 5},
        {"robot": None},
        {"n_steps": 2, "length": 0.0, "turn": 2 * math.pi},
        {"width": 0.05},
        {"step_time": 1e-17},
        {"n_steps": 1000, "dt": 1e-4},  # 800 s at 10 kHz: more control steps than a log may hold
        {"log": 5},
    ):
        with pytest.raises(WbcpyError):
            walk(**{"robot": "talos", **SHORT, **kwargs})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    name=st.sampled_from(
        ["n_steps", "length", "width", "turn", "lateral", "step_time", "double_support_time", "dt"]
    ),
    value=st.one_of(
        st.sampled_from([None, "0.1", b"1", True, False, np.bool_(True), 1j, [0.1], {"a": 1}]),
        st.sampled_from([math.nan, math.inf, -math.inf, 10**400, -(10**400), 1e300, -1e300, 1e-300]),
    ),
)
def test_walk_refuses_bad_numbers_before_walking(example_robot, no_walk, name, value):
    """Every numeric argument: a bool, string, container, complex, non-finite, huge or degenerate value is
    a ConfigError naming the field, raised before the plant is built (width and length None and
    lateral/turn/length 1e-300 are valid: today's width, the robot's scaled length, a vanishing advance)."""
    example_robot("talos")
    if (name in ("width", "length") and value is None) or (
        name in ("length", "turn", "lateral") and value == 1e-300
    ):
        return
    with pytest.raises(ConfigError) as info:
        walk("talos", **{**SHORT, name: value})
    assert info.value.field == name
