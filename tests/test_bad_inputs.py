"""Random bad inputs on every public method: the documented wbcpy error, and an unchanged object.

Each test keeps an object and an untouched twin built the same way and given the same valid calls. A
random bad input (:mod:`_bad_values`) goes to one method of the object only; the call must raise a
:class:`wbcpy.WbcpyError` of the documented kind (never a raw ``TypeError``, ``OverflowError``, numpy or
Pinocchio error), and afterwards the object's observable state — including hidden filter and cache state,
probed by further identical valid calls on both — must equal the twin's exactly.
"""

from __future__ import annotations

import copy

import numpy as np
import pinocchio as pin
import pytest
from _bad_values import assert_same, bad_names, bad_positive_numbers, bad_vectors
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wbcpy import InvalidValueError, RobotModel, UnknownNameError, WbcpyError, arl, jspace, load_robot
from wbcpy.errors import ConfigError
from wbcpy.ik import (
    Filter,
    Integrator,
    MinJerkTrajectory,
    MinJerkVelCtrlForNonIdealPlant,
    MultiRefMinJerkCtrl,
)

pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
HUGE = 10**400
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))


# ---------------------------------------------------------------------------------------- RobotModel
def _robot_pair() -> tuple[RobotModel, RobotModel]:
    pair = tuple(load_robot("lwr4", floating_base=True) for _ in range(2))
    for r in pair:
        r.update_dof(np.linspace(-0.5, 0.5, r.nv), np.linspace(0.3, -0.3, r.nv), np.ones(r.nv))
    return pair  # type: ignore[return-value]


def _robot_print(r: RobotModel) -> dict:
    return {
        "id": r.state_id,
        "state": (r.q, r.v, r.a),
        "M": r.mass_matrix(),
        "J": r.frame_jacobian("lwr_ee"),
        "bias": r.frame_bias_view("lwr_ee"),
        "com": (r.com(), r.com_jacobian_view().copy()),
    }


ROBOT_PAIR = _robot_pair()
NQ, NV = ROBOT_PAIR[0].nq, ROBOT_PAIR[0].nv
ROBOT_CALLS = {
    "update.q": (lambda r, x: r.update(x), bad_vectors(NQ, huge_is_bad=True), InvalidValueError),
    "update.v": (
        lambda r, x: r.update(r.q, x),
        bad_vectors(NV, huge_is_bad=True).filter(lambda x: x is not None),
        InvalidValueError,
    ),
    "update.a": (
        lambda r, x: r.update(r.q, r.v, x),
        bad_vectors(NV, huge_is_bad=True).filter(lambda x: x is not None),
        InvalidValueError,
    ),
    "update_dof": (lambda r, x: r.update_dof(x), bad_vectors(NV, huge_is_bad=True), InvalidValueError),
    "q_from_dof": (lambda r, x: r.q_from_dof(x), bad_vectors(NV), InvalidValueError),
    "dof_from_q": (lambda r, x: r.dof_from_q(x), bad_vectors(NQ), InvalidValueError),
    "frame_id": (lambda r, x: r.frame_id(x), bad_names(100), UnknownNameError),
    "joint_id": (lambda r, x: r.joint_id(x), bad_names(100), UnknownNameError),
    "joint_v_index": (lambda r, x: r.joint_v_index(x), bad_names(100), UnknownNameError),
    "frame_placement": (lambda r, x: r.frame_placement(x), bad_names(100), UnknownNameError),
    "frame_velocity": (lambda r, x: r.frame_velocity(x), bad_names(100), UnknownNameError),
    "frame_jacobian": (lambda r, x: r.frame_jacobian(x), bad_names(100), UnknownNameError),
    "frame_bias_view": (lambda r, x: r.frame_bias_view(x), bad_names(100), UnknownNameError),
    "frame_jacobian_bias_view": (
        lambda r, x: r.frame_jacobian_bias_view(x),
        bad_names(100),
        UnknownNameError,
    ),
    "frame_placement_view": (lambda r, x: r.frame_placement_view(x), bad_names(100), UnknownNameError),
    "precompute": (lambda r, x: r.precompute("kinematics", x), bad_names(), InvalidValueError),
    "chain": (lambda r, x: r.chain("lwr_base_link", x), bad_names(100), UnknownNameError),
}


@SETTINGS
@given(data=st.data(), name=st.sampled_from(sorted(ROBOT_CALLS)))
def test_robot_model_rejects_and_stays(data: st.DataObject, name: str) -> None:
    robot, twin = ROBOT_PAIR
    call, values, error = ROBOT_CALLS[name]
    bad = data.draw(values)
    with pytest.raises(error):
        call(robot, bad)
    assert_same(_robot_print(robot), _robot_print(twin))


def test_robot_state_is_bounded_and_flags_are_bools() -> None:
    robot, twin = _robot_pair()
    v = robot.v
    v[0] = 1e200  # v = 1e200 gives NaN Coriolis terms in Pinocchio: rejected, by name
    with pytest.raises(InvalidValueError, match="exceed"):
        robot.update(robot.q, v)
    assert_same(_robot_print(robot), _robot_print(twin))
    for flag in ("false", 1, None):
        with pytest.raises(InvalidValueError):
            RobotModel.from_urdf(robot.source, floating_base=flag)


# ---------------------------------------------------------------------------------------- jspace.Model
def _jspace_pair() -> tuple[jspace.Model, jspace.Model]:
    pair = tuple(jspace.Model.load("puma560") for _ in range(2))
    for m in pair:
        m.update(jspace.State(np.linspace(-1, 1, 6), np.linspace(1, -1, 6), [1.0, 2.0], time=3.5))
        m.disable_gravity_compensation(2)
    return pair  # type: ignore[return-value]


def _jspace_print(m: jspace.Model) -> dict:
    s = m.get_state()
    return {
        "state": (s.position, s.velocity, s.force, s.time),
        "dyn": (m.get_mass_inertia(), m.get_gravity(), m.get_coriolis_centrifugal()),
        "J": m.compute_jacobian(5, 0.1, 0.2, 0.3),
        "frame": m.get_global_frame(3).homogeneous,
    }


JSPACE_PAIR = _jspace_pair()


def _set_position(m: jspace.Model, x: object) -> None:
    state = jspace.State.zeros(6)
    state.position = x  # type: ignore[assignment]  # a State is a container: the model validates it
    m.set_state(state)


def _set_velocity(m: jspace.Model, x: object) -> None:
    state = jspace.State.zeros(6)
    state.velocity = x  # type: ignore[assignment]
    m.set_state(state)


def _set_time(m: jspace.Model, x: object) -> None:
    state = jspace.State.zeros(6)
    state.time = x  # type: ignore[assignment]
    m.set_state(state)


JSPACE_CALLS = {
    "set_state.position": (_set_position, bad_vectors(6, huge_is_bad=True), InvalidValueError),
    "set_state.velocity": (
        _set_velocity,
        bad_vectors(6, huge_is_bad=True).filter(
            lambda x: not (isinstance(x, (list, np.ndarray)) and len(x) == 0)
        ),
        InvalidValueError,
    ),
    "set_state.time": (
        _set_time,
        st.one_of(
            st.sampled_from([None, "1", True, 1j, 10**400]), st.floats().filter(lambda t: not np.isfinite(t))
        ),
        InvalidValueError,
    ),
    "State.time": (
        lambda m, x: jspace.State(np.zeros(6), time=x),
        st.sampled_from([float("nan"), float("inf"), "now", 10**400, None]),
        InvalidValueError,
    ),
    "get_node": (lambda m, x: m.get_node(x), bad_names(6), (UnknownNameError, InvalidValueError)),
    "get_node_by_name": (lambda m, x: m.get_node_by_name(x), bad_names(), UnknownNameError),
    "get_node_by_joint_name": (lambda m, x: m.get_node_by_joint_name(x), bad_names(), UnknownNameError),
    "compute_jacobian.node": (
        lambda m, x: m.compute_jacobian(x),
        bad_names(6).filter(lambda x: not isinstance(x, float)),
        (UnknownNameError, InvalidValueError),
    ),
    "compute_jacobian.point": (
        lambda m, x: m.compute_jacobian(2, x),
        bad_vectors(3).filter(lambda x: x is not None),
        InvalidValueError,
    ),
    "compute_global_frame": (
        lambda m, x: m.compute_global_frame(1, x),
        bad_vectors(3).filter(lambda x: x is not None),
        InvalidValueError,
    ),
    "disable_gravity.index": (lambda m, x: m.disable_gravity_compensation(x), bad_names(6), UnknownNameError),
    "disable_gravity.flag": (
        lambda m, x: m.disable_gravity_compensation(1, x),
        st.sampled_from(["no", 0, 1, None, 2.0]),
        InvalidValueError,
    ),
}


@SETTINGS
@given(data=st.data(), name=st.sampled_from(sorted(JSPACE_CALLS)))
def test_jspace_model_rejects_and_stays(data: st.DataObject, name: str) -> None:
    model, twin = JSPACE_PAIR
    call, values, error = JSPACE_CALLS[name]
    with pytest.raises(error):
        call(model, data.draw(values))
    assert_same(_jspace_print(model), _jspace_print(twin))


# ---------------------------------------------------------------------------------------- Chain, arl
def _arl_pair() -> tuple[arl.Model, arl.Model]:
    return tuple(arl.Model.from_config("robots/bimanual_chains.yaml") for _ in range(2))  # type: ignore[return-value]


ARL_PAIR = _arl_pair()
N0 = ARL_PAIR[0].chain[0].n
N_CHAINS, N_GLOBAL = ARL_PAIR[0].get_nr_of_chains(), ARL_PAIR[0].get_nr_of_joints()


def _chain_print(m: arl.Model) -> dict:
    c = m.chain[0]
    return {"rest": c.rest, "offset": c.tip_offset.homogeneous, "fk": c.fk(np.full(c.n, 0.2)).homogeneous}


def _bad_offset(c: object, x: object) -> None:
    c.tip_offset = x


def _bad_rest(c: object, x: object) -> None:
    c.rest = x


BAD_SE3 = st.sampled_from(
    [
        pin.SE3(np.zeros((3, 3)), np.zeros(3)),
        pin.SE3(2.0 * np.eye(3), np.zeros(3)),
        pin.SE3(np.diag([1.0, 1.0, -1.0]), np.zeros(3)),
        np.eye(4),
        "I",
        1.0,
    ]
)
CHAIN_CALLS = {
    "fk": (lambda c, x: c.fk(x), bad_vectors(N0), InvalidValueError),
    "jacobian": (lambda c, x: c.jacobian(x), bad_vectors(N0), InvalidValueError),
    "fk_jacobian": (lambda c, x: c.fk_jacobian(x), bad_vectors(N0), InvalidValueError),
    "full_q": (lambda c, x: c.full_q(x), bad_vectors(N0), InvalidValueError),
    "pose7": (lambda c, x: c.pose7(x), bad_vectors(N0), InvalidValueError),
    "rest": (_bad_rest, bad_vectors(ARL_PAIR[0].robot.nv, huge_is_bad=True), InvalidValueError),
    "tip_offset": (_bad_offset, BAD_SE3, InvalidValueError),
}
ARL_CALLS = {
    "get_chain_name": (lambda m, x: m.get_chain_name(x), bad_names(N_CHAINS), UnknownNameError),
    "get_joint_names": (
        lambda m, x: m.get_joint_names(x),
        bad_names(N_CHAINS).filter(lambda x: x is not None),
        UnknownNameError,
    ),
    "get_joint_name": (
        lambda m, x: m.get_joint_name(0, x),
        bad_names(2).filter(lambda x: x is not None),
        UnknownNameError,
    ),
    "get_global_index": (lambda m, x: m.get_global_index(x, 0), bad_names(N_CHAINS), UnknownNameError),
    "get_joint_limit": (
        lambda m, x: m.get_joint_limit(x),
        bad_names(20).filter(lambda x: x is not None),
        UnknownNameError,
    ),
}


@SETTINGS
@given(data=st.data(), name=st.sampled_from(sorted(CHAIN_CALLS) + sorted(ARL_CALLS)))
def test_chain_and_arl_reject_and_stay(data: st.DataObject, name: str) -> None:
    model, twin = ARL_PAIR
    if name in CHAIN_CALLS:
        call, values, error = CHAIN_CALLS[name]
        target = model.chain[0]
    else:
        call, values, error = ARL_CALLS[name]
        target = model
    with pytest.raises(error):
        call(target, data.draw(values))
    assert_same(_chain_print(model), _chain_print(twin))


# ---------------------------------------------------------------------------------------- ik
LWR = load_robot("lwr4").chain("lwr_base_link", "lwr_ee")
Q0 = np.array([0.1, -0.5, 0.2, 1.2, 0.1, -0.6, 0.3])
TARGET = LWR.pose7(Q0 + 0.2)


def _ctrl() -> MultiRefMinJerkCtrl:
    c = MultiRefMinJerkCtrl(LWR, "full", 0.01, q0=Q0)
    for _ in range(5):
        c.iterate(TARGET, Q0 + 0.2)
    return c


def _ctrl_print(c: MultiRefMinJerkCtrl) -> dict:
    now = {
        "q": c.get_q(),
        "e": c.get_e(),
        "qdot": c.get_qdot(),
        "sets": (c.get_q_set(), c.get_x_set()),
        "misc": (c.get_iter(), c.get_state(), c.get_gamma(), c.get_exec_time(), c.get_guard_ratio()),
        "tols": (c.get_in_target_tol(), c.is_watchdog_on(), c.get_watchdog_tol(), c.get_watchdog_max_iter()),
    }
    probe = copy.deepcopy(c)  # hidden filter/integrator state: three more identical steps
    now["next"] = [probe.iterate(TARGET, Q0 + 0.3) for _ in range(3)]
    return now


CTRL_PAIR = (_ctrl(), _ctrl())
CTRL_CALLS = {
    "iterate.xd": (
        lambda c, x: c.iterate(x, Q0),
        st.one_of(bad_vectors(7), BAD_SE3.filter(lambda x: not isinstance(x, float))),
        InvalidValueError,
    ),
    "iterate.qd": (
        lambda c, x: c.iterate(TARGET, x),
        bad_vectors(7).filter(lambda x: x is not None),
        InvalidValueError,
    ),
    "iterate.xdot_set": (
        lambda c, x: c.iterate(TARGET, Q0, x),
        bad_vectors(7).filter(lambda x: x is not None),
        InvalidValueError,
    ),
    "set_q": (lambda c, x: c.set_q(x), bad_vectors(7), InvalidValueError),
    "restart": (lambda c, x: c.restart(x), bad_vectors(7).filter(lambda x: x is not None), InvalidValueError),
    "add_compensation": (lambda c, x: c.add_compensation(x), bad_vectors(7), InvalidValueError),
    "set_gamma": (
        lambda c, x: c.set_gamma(x),
        bad_positive_numbers().filter(lambda x: x != 0.0 and x != 1e-300),
        InvalidValueError,
    ),
    "set_guard_ratio": (
        lambda c, x: c.set_guard_ratio(x),
        st.sampled_from([None, "0.1", True, 1j, float("nan"), float("inf")]),
        InvalidValueError,
    ),
    "set_exec_time": (
        lambda c, x: c.set_exec_time(x),
        st.sampled_from([None, "1", True, 1j, float("nan"), float("inf"), 10**400]),
        InvalidValueError,
    ),
    "set_exec_time.warn": (
        lambda c, x: c.set_exec_time(1.0, x),
        st.sampled_from(["yes", 1, None]),
        InvalidValueError,
    ),
    "set_ctrl_pose": (
        lambda c, x: c.set_ctrl_pose(x),
        st.sampled_from(["fulll", 3, -1, True, None, 1.0]),
        (UnknownNameError, InvalidValueError),
    ),
    "set_in_target_tol": (
        lambda c, x: c.set_in_target_tol(x),
        bad_positive_numbers().filter(lambda x: x != 1e-300),
        InvalidValueError,
    ),
    "switch_watchdog": (
        lambda c, x: c.switch_watchdog(x),
        st.sampled_from(["on", 1, None]),
        InvalidValueError,
    ),
    "set_watchdog_max_iter": (
        lambda c, x: c.set_watchdog_max_iter(x),
        st.sampled_from([0, -3, 2.5, True, "10", None]),
        InvalidValueError,
    ),
    "set_plant_parameters": (
        lambda c, x: c.set_plant_parameters(x),
        st.sampled_from(
            [
                {"dimension_0": {"Kp": True}},
                {"dimension_0": {"Tz": -1.0}},
                {"dimension_9": {}},
                [{}],
                "x",
                {"dimension_1": {"Kp": 10**400}},
            ]
        ),
        ConfigError,
    ),
}


@SETTINGS
@given(data=st.data(), name=st.sampled_from(sorted(CTRL_CALLS)))
def test_multiref_rejects_and_stays(data: st.DataObject, name: str) -> None:
    ctrl, twin = CTRL_PAIR
    call, values, error = CTRL_CALLS[name]
    with pytest.raises(error):
        call(ctrl, data.draw(values))
    assert_same(_ctrl_print(ctrl), _ctrl_print(twin))


@settings(max_examples=60, deadline=None)
@given(
    ts=bad_positive_numbers(maximum=1e9),
    which=st.sampled_from(["ctrl", "integrator", "minjerk", "trajectory"]),
)
def test_bad_sample_times_raise_invalid_value(ts: object, which: str) -> None:
    """Ts = 1e-300 (ZeroDivisionError and NaN coefficients before), NaN, bools, huge ints: one clear error."""
    make = {
        "ctrl": lambda: MultiRefMinJerkCtrl(LWR, "full", ts),
        "integrator": lambda: Integrator(ts, [0.0]),
        "minjerk": lambda: MinJerkVelCtrlForNonIdealPlant(ts, 2),
        "trajectory": lambda: MinJerkTrajectory(ts, [0.0]),
    }[which]
    with pytest.raises(InvalidValueError):
        make()


def _blocks_pair() -> list[tuple[object, object]]:
    def filt() -> Filter:
        f = Filter([0.2, 0.1], [1.0, -0.5, 0.1], [0.3, 0.4])
        f.filt([1.0, 2.0])
        return f

    def integ() -> Integrator:
        i = Integrator(0.01, [0.0, 0.5], [[-1, 1], [-1, 1]])
        i.integrate([1.0, -1.0])
        return i

    return [(filt(), filt()), (integ(), integ())]


BLOCKS = _blocks_pair()
BLOCK_CALLS = {
    "filt": (0, lambda f, x: f.filt(x), bad_vectors(2)),
    "init": (0, lambda f, x: f.init(x), bad_vectors(2)),
    "set_state": (0, lambda f, x: f.set_state(x), bad_vectors(2)),
    "adjust_coeffs": (
        0,
        lambda f, x: f.adjust_coeffs(x, [1.0, -0.5, 0.1]),
        st.sampled_from(
            [
                [0.1],
                [0.1, 0.2, 0.3],
                [0.1, np.nan],
                [True, 0.1],
                [1j, 0.1],
                "0.1",
                None,
                [[0.1, 0.2], [0.1]],
                np.ones((3, 2)),
                [10**400, 0.0],
            ]
        ),
    ),
    "integrate": (1, lambda i, x: i.integrate(x), bad_vectors(2)),
    "reset": (1, lambda i, x: i.reset(x), bad_vectors(2)),
    "set_lim": (
        1,
        lambda i, x: i.set_lim(x),
        st.sampled_from(
            [
                [[0, 1]],
                [[0, 1]] * 3,
                [0.0, 1.0],
                [[0, np.nan], [0, 1]],
                [[1, 0], [0, 1]],
                [[True, 1], [0, 1]],
                [[1j, 1], [0, 1]],
                "limits",
                [[0, 1], [0]],
                [[HUGE, 1], [0, 1]],
            ]
        ),
    ),
}


@SETTINGS
@given(data=st.data(), name=st.sampled_from(sorted(BLOCK_CALLS)))
def test_filters_and_integrators_reject_and_stay(data: st.DataObject, name: str) -> None:
    index, call, values = BLOCK_CALLS[name]
    obj, twin = BLOCKS[index]
    with pytest.raises(WbcpyError):
        call(obj, data.draw(values))
    if index == 0:
        assert_same(
            (obj.get_state(), obj.get_coeffs(), obj.filt([0.5, 0.5])),
            (twin.get_state(), twin.get_coeffs(), twin.filt([0.5, 0.5])),
        )
    else:
        assert_same(
            (obj.get(), obj.get_lim(), obj.integrate([0.2, 0.2])),
            (twin.get(), twin.get_lim(), twin.integrate([0.2, 0.2])),
        )
