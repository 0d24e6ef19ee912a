"""MultiRefMinJerkCtrl: state machine (INTARGET, watchdog, DEADLOCK) and bad inputs (spec minjerk.md §4).

Oracles: the in-target rule and watchdog rule replayed on the recorded trajectory; raw Pinocchio FK for
the error; twin controllers that never saw the failed calls (a failed call must leave no trace).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from _ik_helpers import RawKinematics, serial_chain

from wbcpy import load_robot
from wbcpy.errors import ConfigError, InvalidValueError, UnknownNameError, WbcpyError
from wbcpy.ik import CtrlState, MultiRefMinJerkCtrl

TS = 0.01


@pytest.fixture(scope="module")
def planar():
    robot = load_robot("planar3r")
    return robot, robot.chain("base_link", "tip")


# -------------------------------------------------------------------------------- 9. state machine
def test_in_target_uses_error_tolerance_one_step_late(planar):
    robot, chain = planar
    raw = RawKinematics(robot, "tip", chain.joint_names)
    q0, qd = np.deg2rad([20.0, 60.0, 40.0]), np.deg2rad([-30.0, 90.0, -20.0])
    target = raw.pose(qd)
    c = MultiRefMinJerkCtrl(chain, "full", TS, q0=q0)
    c.set_in_target_tol(2e-3)
    states, dists = [], []
    for _ in range(300):
        q_before = c.get_q()
        c.iterate(target, qd)
        M = raw.pose(q_before)
        e = np.concatenate((target.translation - M.translation, pin.log3(target.rotation @ M.rotation.T)))
        dists.append(np.linalg.norm(e))
        states.append(c.get_state())
        assert c.isInTarget() == (states[-1] == CtrlState.INTARGET)
    dists = np.array(dists)
    expected = [CtrlState.INTARGET if d < 2e-3 else CtrlState.RUNNING for d in dists]
    assert states == expected
    k = states.index(CtrlState.INTARGET)
    assert 50 < k < 300
    # the error at the q *after* step k-1 was already below tol: the state shows it one step late
    assert np.linalg.norm(raw.pose(c.get_q()).translation - target.translation) < 2e-3
    # a new far target drops back to RUNNING at once
    c.iterate(raw.pose(q0), q0)
    assert c.get_state() == CtrlState.RUNNING


def _stall_at_limit(chain, max_iter: int | None = None, watchdog: bool = True):
    c = MultiRefMinJerkCtrl(chain, "full", TS, q0=[0.0])
    if watchdog:
        c.switchWatchDog(True)
    if max_iter is not None:
        c.setWatchDogMaxIter(max_iter)
    return c


def test_watchdog_off_by_default_never_deadlocks():
    _, chain = serial_chain(1, -1.0, 1.0)
    c = _stall_at_limit(chain, watchdog=False)
    beyond = np.array([1.5])
    for _ in range(600):
        c.iterate(chain.pose7(beyond), beyond)
        assert c.get_state() == CtrlState.RUNNING
    assert c.get_q()[0] == 1.0


def test_watchdog_deadlock_freezes_and_restart_clears():
    _, chain = serial_chain(1, -1.0, 1.0)
    max_iter = 25
    c = _stall_at_limit(chain, max_iter)
    c.setWatchDogTol(1e-4)
    beyond = np.array([1.5])
    xd = chain.pose7(beyond)
    qs = [c.get_q()[0]]
    states = []
    for _ in range(400):
        qs.append(c.iterate(xd, beyond)[0])
        states.append(c.get_state())
        if states[-1] == CtrlState.DEADLOCK:
            break
    assert states[-1] == CtrlState.DEADLOCK
    # oracle: DEADLOCK at the first step that ends max_iter consecutive steps with |Δq| < tol
    stalled = np.abs(np.diff(qs)) < 1e-4
    run, first = 0, None
    for k, s in enumerate(stalled):
        run = run + 1 if s else 0
        if run >= max_iter:
            first = k
            break
    assert first == len(states) - 1
    assert all(s == CtrlState.RUNNING for s in states[:-1])
    # DEADLOCK freezes q, x, e and the iteration counter
    frozen = (c.get_q(), c.get_x(), c.get_e(), c.get_iter())
    for _ in range(5):
        c.iterate(chain.pose7(np.array([0.0])), [0.0])
        assert c.get_state() == CtrlState.DEADLOCK
    np.testing.assert_array_equal(c.get_q(), frozen[0])
    np.testing.assert_array_equal(c.get_x(), frozen[1])
    np.testing.assert_array_equal(c.get_e(), frozen[2])
    assert c.get_iter() == frozen[3]
    c.restart([0.3])
    assert c.get_state() == CtrlState.RUNNING and c.get_iter() == 0 and c.get_q()[0] == 0.3
    q = c.iterate(chain.pose7(np.array([0.0])), [0.0])
    assert q[0] < 0.3 and c.get_state() == CtrlState.RUNNING


def test_set_q_leaves_deadlock():
    _, chain = serial_chain(1, -1.0, 1.0)
    c = _stall_at_limit(chain, 10)
    beyond = np.array([1.5])
    for _ in range(400):
        c.iterate(chain.pose7(beyond), beyond)
        if c.get_state() == CtrlState.DEADLOCK:
            break
    assert c.get_state() == CtrlState.DEADLOCK
    c.switch_watchdog(False)  # a deadlock stays watched (spec: DEADLOCK -> watchdog) even when switched off
    assert not c.is_watchdog_on()
    c.set_q([c.get_q()[0] - 1e-6])  # a move below the watchdog tolerance keeps the deadlock
    c.iterate(chain.pose7(np.array([0.0])), [0.0])
    assert c.get_state() == CtrlState.DEADLOCK
    c.set_q([0.5])
    c.iterate(chain.pose7(np.array([0.0])), [0.0])  # the watchdog sees |q − q_old| >= tol
    assert c.get_state() == CtrlState.RUNNING
    q_before = c.get_q()[0]
    c.iterate(chain.pose7(np.array([0.0])), [0.0])
    assert c.get_q()[0] != q_before  # moving again (the filters kept their state: first still upwards)
    for _ in range(100):
        c.iterate(chain.pose7(np.array([0.0])), [0.0])
    assert abs(c.get_q()[0]) < 0.1


def test_watchdog_settings_validated():
    _, chain = serial_chain(1)
    c = MultiRefMinJerkCtrl(chain, "full", TS)
    for bad in (0, -3, 2.5, True):
        with pytest.raises(InvalidValueError):
            c.set_watchdog_max_iter(bad)
    for setter in (c.set_watchdog_tol, c.set_in_target_tol, c.set_gamma):
        with pytest.raises(InvalidValueError):
            setter(float("nan"))
        with pytest.raises(InvalidValueError):
            setter(-1.0)
    with pytest.raises(InvalidValueError):
        c.set_in_target_tol(0.0)
    with pytest.raises(InvalidValueError):
        c.set_guard_ratio(float("inf"))
    assert c.get_watchdog_max_iter() == 200 and c.get_watchdog_tol() == 1e-4
    assert c.get_in_target_tol() == 5e-3 and c.get_gamma() == 0.05 and c.get_guard_ratio() == 0.1


# ------------------------------------------------------------------------------------ 11. bad input
def _snapshot(c: MultiRefMinJerkCtrl) -> tuple:
    return (
        c.get_q(), c.get_x(), c.get_e(), c.get_qdot(), c.get_xdot(), c.get_J(), c.get_q_set(),
        c.get_x_set(), c.get_iter(), c.get_state(), c.get_exec_time(), c.get_gamma(),
    )  # fmt: skip


def _assert_same(a: tuple, b: tuple) -> None:
    for u, v in zip(a, b, strict=True):
        if isinstance(u, np.ndarray):
            np.testing.assert_array_equal(u, v)
        else:
            assert u == v


def test_bad_inputs_raise_and_leave_controller_unchanged(planar):
    _, chain = planar
    q0, qd = np.deg2rad([20.0, 60.0, 40.0]), np.deg2rad([-30.0, 90.0, -20.0])
    xd = chain.pose7(qd)
    c = MultiRefMinJerkCtrl(chain, "full", TS, q0=q0)
    twin = MultiRefMinJerkCtrl(chain, "full", TS, q0=q0)
    for _ in range(7):
        c.iterate(xd, qd)
        twin.iterate(xd, qd)
    c.add_compensation([0.01, 0.0, 0.0])
    twin.add_compensation([0.01, 0.0, 0.0])
    nan7 = xd.copy()
    nan7[2] = np.nan
    bad_calls = [
        lambda: c.iterate(xd[:6], qd),
        lambda: c.iterate(nan7, qd),
        lambda: c.iterate(np.array([0.1, 0.2, 0.0, 0.0, 0.0, 0.0, 0.5]), qd),  # zero axis, angle 0.5
        lambda: c.iterate("pose", qd),
        lambda: c.iterate(xd, qd[:2]),
        lambda: c.iterate(xd, [np.inf, 0.0, 0.0]),
        lambda: c.iterate(xd, qd, [0.0] * 6),
        lambda: c.iterate(xd, qd, [np.nan] * 7),
        lambda: c.iterate(xd, None, [np.nan] * 7),
        lambda: c.set_q([0.0, 0.0]),
        lambda: c.set_q([0.0, np.nan, 0.0]),
        lambda: c.restart([1.0]),
        lambda: c.add_compensation([1.0, 2.0]),
        lambda: c.set_exec_time(float("nan")),
        lambda: c.set_exec_time("fast"),
        lambda: c.set_gamma(-0.1),
        lambda: c.set_plant_parameters({"dimension_0": {"Tz": -0.1}}),
        lambda: c.set_plant_parameters({"dimension_7": {"Kp": 2.0}}),
        lambda: c.set_ctrl_pose("diagonal"),
    ]
    before = _snapshot(c)
    for call in bad_calls:
        with pytest.raises(WbcpyError):
            call()
        _assert_same(_snapshot(c), before)
    assert not c.non_ideal_plant
    for _ in range(20):  # the failed calls left no trace: same future as the twin
        np.testing.assert_array_equal(c.iterate(xd, qd), twin.iterate(xd, qd))


def test_bad_error_types(planar):
    _, chain = planar
    with pytest.raises(InvalidValueError):
        MultiRefMinJerkCtrl(chain, "full", TS).iterate(np.zeros(6), np.zeros(3))
    with pytest.raises(UnknownNameError) as info:
        MultiRefMinJerkCtrl(chain, "fulll", TS)
    assert isinstance(info.value, KeyError) and "full" in str(info.value)
    for bad in (3, -1, 1.5, None, True):
        with pytest.raises(InvalidValueError):
            MultiRefMinJerkCtrl(chain, bad, TS)
    for ts in (0.0, -0.01, float("nan"), float("inf"), "x"):
        with pytest.raises(InvalidValueError):
            MultiRefMinJerkCtrl(chain, "full", ts)
    for q0 in ([0.0, 0.0], [0.0, 0.0, np.nan], [[0.0, 0.0, 0.0]]):
        with pytest.raises(InvalidValueError):
            MultiRefMinJerkCtrl(chain, "full", TS, q0=q0)
    with pytest.raises(ConfigError):
        MultiRefMinJerkCtrl(chain, "full", TS).set_plant_parameters([{"Kp": 0.0}] * 3)


def test_ctrl_pose_switch_keeps_state(planar):
    _, chain = planar
    q0, qd = np.deg2rad([20.0, 60.0, 40.0]), np.deg2rad([-30.0, 90.0, -20.0])
    c = MultiRefMinJerkCtrl(chain, "full", TS, q0=q0)
    for _ in range(5):
        c.iterate(chain.pose7(qd), qd)
    c.set_ctrlPose("xyz")
    c.iterate(chain.pose7(qd), qd)
    np.testing.assert_array_equal(c.get_e()[3:], np.zeros(3))
    assert c.get_ctrlPose() == 1 and c.get_iter() == 6
