"""VelocityLimitBounds: position limits over one step and velocity limits as q̇ bounds."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wbcpy import RobotModel, load_robot
from wbcpy.errors import ConfigError, InvalidValueError
from wbcpy.limits.velocity_limits import VelocityLimitBounds

# a revolute joint with limits, a continuous joint, a prismatic joint limited on both sides, a revolute
# joint without velocity limit (0 in the URDF means none)
_I = '<inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>'
MIXED_URDF = """<robot name="mixed">
  <link name="base"/>
  <joint name="rev" type="revolute"><parent link="base"/><child link="a"/><axis xyz="0 0 1"/>
    <limit lower="-1.0" upper="2.0" effort="1" velocity="3.0"/></joint>
  <link name="a">{I}</link>
  <joint name="cont" type="continuous"><parent link="a"/><child link="b"/><axis xyz="0 1 0"/>
    <limit effort="1" velocity="4.0"/></joint>
  <link name="b">{I}</link>
  <joint name="slide" type="prismatic"><parent link="b"/><child link="c"/><axis xyz="1 0 0"/>
    <limit lower="0.0" upper="0.5" effort="1" velocity="0.2"/></joint>
  <link name="c">{I}</link>
  <joint name="free_speed" type="revolute"><parent link="c"/><child link="d"/><axis xyz="1 0 0"/>
    <limit lower="-0.5" upper="0.5" effort="1" velocity="0"/></joint>
  <link name="d">{I}</link>
</robot>""".replace("{I}", _I)
QMIN = {"rev": -1.0, "slide": 0.0, "free_speed": -0.5}
QMAX = {"rev": 2.0, "slide": 0.5, "free_speed": 0.5}
VMAX = {"rev": 3.0, "cont": 4.0, "slide": 0.2, "free_speed": np.inf}


def _expected(name: str, x: float | None, dt: float, gain: float) -> tuple[float, float]:
    """The spec's bounds of one DOF at position x, written out."""
    lo, hi = -VMAX[name], VMAX[name]
    if name in QMIN:
        lo = max(lo, min(0.0, gain * (QMIN[name] - x) / dt))
        hi = min(hi, max(0.0, gain * (QMAX[name] - x) / dt))
    return lo, hi


@pytest.fixture(scope="module")
def mixed() -> RobotModel:
    return RobotModel.from_urdf(MIXED_URDF)


@settings(max_examples=40, deadline=None)
@given(
    rev=st.floats(-2.0, 3.0),
    angle=st.floats(-np.pi, np.pi),
    slide=st.floats(-0.3, 0.8),
    free=st.floats(-1.0, 1.0),
    dt=st.sampled_from([0.001, 0.01, 0.05]),
    gain=st.floats(0.05, 1.0),
)
def test_bounds_follow_the_formulas(mixed, rev, angle, slide, free, dt, gain) -> None:
    q = np.array([rev, np.cos(angle), np.sin(angle), slide, free])
    lb, ub = VelocityLimitBounds(mixed, dt, limit_gain=gain).compute(q)
    for i, (name, x) in enumerate([("rev", rev), ("cont", None), ("slide", slide), ("free_speed", free)]):
        lo, hi = _expected(name, x, dt, gain)
        assert lb[i] == pytest.approx(lo, rel=1e-12, abs=1e-12), name
        assert ub[i] == pytest.approx(hi, rel=1e-12, abs=1e-12), name
    assert (lb <= 0.0).all() and (ub >= 0.0).all()


def test_outside_the_range_only_back(mixed) -> None:
    dt, gain = 0.01, 0.5
    q = np.array([2.5, 1.0, 0.0, -0.1, 0.0])  # rev above its range, slide below
    lb, ub = VelocityLimitBounds(mixed, dt, limit_gain=gain).compute(q)
    assert ub[0] == 0.0 and lb[0] == pytest.approx(max(-3.0, gain * (-1.0 - 2.5) / dt))
    assert lb[2] == 0.0 and ub[2] == pytest.approx(min(0.2, gain * (0.5 + 0.1) / dt))


def test_switches(mixed) -> None:
    q = np.array([1.99, 1.0, 0.0, 0.25, 0.0])
    lb, ub = VelocityLimitBounds(mixed, 0.01, joint_limits=False).compute(q)
    np.testing.assert_array_equal(ub, [3.0, 4.0, 0.2, np.inf])
    np.testing.assert_array_equal(lb, -ub)
    lb, ub = VelocityLimitBounds(mixed, 0.01, velocity_limits=False, limit_gain=1.0).compute(q)
    np.testing.assert_allclose(ub, [0.01 / 0.01, np.inf, 0.25 / 0.01, 0.5 / 0.01])
    np.testing.assert_allclose(lb, [-2.99 / 0.01, -np.inf, -0.25 / 0.01, -0.5 / 0.01])


def test_free_flyer_is_unbounded(example_robot) -> None:
    robot = example_robot("talos")
    bounds = VelocityLimitBounds(robot, 0.01)
    lb, ub = bounds.compute(robot.neutral())
    assert np.isinf(lb[:6]).all() and np.isinf(ub[:6]).all()
    assert np.isfinite(ub[6:]).all() and (ub[6:] >= 0).all()


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), gain=st.floats(0.1, 1.0))
def test_closed_loop_pushing_past_the_limits_never_leaves_them(seed: int, gain: float) -> None:
    robot = load_robot("lwr4")
    rng = np.random.default_rng(seed)
    lo, hi = robot.lower_position_limit, robot.upper_position_limit
    bounds = VelocityLimitBounds(robot, 0.01, limit_gain=gain)
    q = rng.uniform(lo, hi)
    push = np.sign(rng.normal(size=robot.nv)) * 100.0  # far beyond every limit
    for _ in range(1000):  # (velocity-limited first: up to 6 rad at ≥ 1.9 rad/s, then geometric)
        lb, ub = bounds.compute(q)
        q = pin.integrate(robot.model, q, np.clip(push, lb, ub) * 0.01)
        assert (q >= lo - 1e-12).all() and (q <= hi + 1e-12).all()
    # and the joints got close to the limits they were pushed to
    target = np.where(push > 0, hi, lo)
    assert np.abs(q - target).max() < 1e-3


def test_active_bounds(mixed) -> None:
    bounds = VelocityLimitBounds(mixed, 0.01)
    lb, ub = bounds.compute(np.array([0.0, 1.0, 0.0, 0.25, 0.0]))
    qd = np.array([ub[0], 0.0, lb[2], 1.0])
    assert bounds.active(qd, lb, ub) == {"rev": "upper", "slide": "lower"}


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"dt": 0.0}, "dt"),
        ({"dt": float("inf")}, "dt"),
        ({"dt": True}, "dt"),
        ({"limit_gain": 0.0}, "limit_gain"),
        ({"limit_gain": 1.01}, "limit_gain"),
        ({"limit_gain": "0.5"}, "limit_gain"),
        ({"joint_limits": 1}, "joint_limits"),
        ({"velocity_limits": None}, "velocity_limits"),
    ],
)
def test_bad_options(mixed, kwargs: dict, field: str) -> None:
    options = {"dt": 0.01, **kwargs}
    with pytest.raises(ConfigError) as info:
        VelocityLimitBounds(mixed, **options)
    assert info.value.field == field


def test_bad_configuration_vector(mixed) -> None:
    bounds = VelocityLimitBounds(mixed, 0.01)
    with pytest.raises(InvalidValueError):
        bounds.compute(np.zeros(4))
    with pytest.raises(InvalidValueError):
        bounds.compute(np.array([0.0, 1.0, 0.0, np.nan, 0.0]))


def test_every_dof_limited_matches_the_formulas() -> None:
    robot = load_robot("lwr4")  # every DOF a limited revolute joint (the sliced path)
    lo, hi = robot.lower_position_limit, robot.upper_position_limit
    vmax = robot.velocity_limit
    rng = np.random.default_rng(3)
    dt = 0.02
    for gain in (0.2, 1.0):
        bounds = VelocityLimitBounds(robot, dt, limit_gain=gain)
        for _ in range(20):
            q = rng.uniform(lo - 0.3, hi + 0.3)  # inside and outside the range
            lb, ub = bounds.compute(q)
            for j in range(robot.nv):
                assert lb[j] == pytest.approx(max(-vmax[j], min(0.0, gain * (lo[j] - q[j]) / dt)), abs=1e-12)
                assert ub[j] == pytest.approx(min(vmax[j], max(0.0, gain * (hi[j] - q[j]) / dt)), abs=1e-12)
