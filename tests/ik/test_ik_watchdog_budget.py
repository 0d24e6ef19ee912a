"""MultiRefMinJerkCtrl: iKin's watchdog exactly (issue 14, class 10) and bounded IK work (class 9).

Watchdog oracle: iKin's ``iKinCtrl::update_state`` / ``watchDog`` (icub-main, iKinInv.cpp) transcribed
here and replayed on the recorded ‖e‖ and ‖q − q_old‖ of every step; plus the explicit count: after an
in-target phase the counter starts again from zero, so DEADLOCK comes exactly ``max_iter`` stalled steps
after the controller leaves the target (the old code kept counting across the in-target phase).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
from _ik_helpers import serial_chain

from wbcpy import load_robot
from wbcpy.ik import CtrlState, MultiRefMinJerkCtrl

TS = 0.01
RUN, IN, DEAD = CtrlState.RUNNING, CtrlState.INTARGET, CtrlState.DEADLOCK


def _ikin_update_state(
    state: CtrlState, cnt: int, dist: float, step: float, tol: float, wtol: float, wmax: int, on: bool
):
    """iKinCtrl::update_state + watchDog, as written in iKin (C++ → Python, line by line)."""

    def watchdog(state: CtrlState, cnt: int) -> tuple[CtrlState, int]:
        if step < wtol:
            cnt += 1
        else:
            state, cnt = RUN, 0
        if cnt >= wmax:
            state, cnt = DEAD, 0
        return state, cnt

    in_target = dist < tol
    if state == RUN:
        if in_target:
            state, cnt = IN, 0
        elif on:
            state, cnt = watchdog(state, cnt)
    elif state == IN:
        if not in_target:
            state = RUN
        cnt = 0
    elif in_target:  # DEADLOCK
        state, cnt = IN, 0
    else:
        state, cnt = watchdog(state, cnt)
    return state, cnt


def test_watchdog_counter_restarts_after_an_in_target_phase() -> None:
    _, chain = serial_chain(1, -1.0, 1.0)
    max_iter, tol = 40, 5e-3
    c = MultiRefMinJerkCtrl(chain, "full", TS, q0=[1.0])  # at the upper limit
    c.switch_watchdog(True)
    c.set_watchdog_max_iter(max_iter)
    beyond, here = np.array([1.5]), np.array([1.0])
    plan = [(beyond, 25), (here, 10), (beyond, 60)]  # stall 25 < 40, in target, stall again
    dists, steps, states = [], [], []
    for qd, count in plan:
        xd = chain.pose7(qd)
        for _ in range(count):
            q_before = c.get_q()
            c.iterate(xd, qd)
            M = chain.fk(q_before)
            R_d = pin.exp3(xd[3:6] * xd[6])
            e = np.concatenate((xd[:3] - M.translation, pin.log3(R_d @ M.rotation.T)))
            dists.append(float(np.linalg.norm(e)))
            steps.append(float(np.linalg.norm(c.get_q() - q_before)))
            states.append(c.get_state())
    # the replay of iKin's rules on the recorded sequence gives the same states, step by step
    state, cnt, expected = RUN, 0, []
    for d, s in zip(dists, steps, strict=True):
        state, cnt = _ikin_update_state(state, cnt, d, s, tol, 1e-4, max_iter, True)
        expected.append(state)
    assert states == expected
    assert IN in states[25:35] and DEAD in states
    # and explicitly: the second stall deadlocks max_iter steps after leaving the target, not earlier
    left = 35 + next(k for k, s in enumerate(states[35:]) if s == RUN)
    first_dead = states.index(DEAD)
    assert first_dead == left + max_iter, (left, first_dead)  # the leaving step resets, then 40 stalls


def test_in_target_resets_the_counter_every_step() -> None:
    _, chain = serial_chain(1, -1.0, 1.0)
    c = MultiRefMinJerkCtrl(chain, "full", TS, q0=[1.0])
    c.switch_watchdog(True)
    c.set_watchdog_max_iter(5)
    here = np.array([1.0])
    for _ in range(30):  # in target at the limit: q never moves, yet no deadlock (counter reset each step)
        c.iterate(chain.pose7(here), here)
        assert c.get_state() != DEAD
    assert c.get_state() == IN


def test_ik_work_per_call_is_bounded_for_unreachable_moving_targets() -> None:
    chain = load_robot("lwr4").chain("lwr_base_link", "lwr_ee")
    q0 = np.array([0.1, -0.5, 0.2, 1.2, 0.1, -0.6, 0.3])
    for budget in (100, 20):
        c = MultiRefMinJerkCtrl(chain, "full", TS, q0=q0, ik_max_iter=budget)
        for k in range(8):  # 3 m away and moving: no IK can reach it; before, 17 starts × 100 iterations
            xd = np.array([3.0 + 0.01 * k, 0.5, 0.2, 0.0, 0.0, 1.0, 0.3])
            q = c.iterate(xd)
            assert c.last_ik is not None and not c.last_ik.success
            assert 1 <= c.last_ik.iterations <= budget
            assert np.all(q >= chain.lower) and np.all(q <= chain.upper)


def test_resumed_search_finds_what_one_unbounded_search_finds() -> None:
    """A reachable target missed by the first starts is found over the next calls (same start sequence):
    every target, as the unbounded search finds it, from the same start or the next one (a start that
    ends near a limit or a singularity may end converged in one code and stuck in the other: rounding,
    which OpenBLAS's per-CPU kernels move, decides there)."""
    from wbcpy.ik import dls_ik

    robot = load_robot("panda")
    chain = robot.chain("panda_link0", "panda_link8")
    rng = np.random.default_rng(7)
    lo, hi = chain.lower, chain.upper
    resumed = 0
    for _ in range(6):
        q_goal = rng.uniform(lo + 0.05 * (hi - lo), hi - 0.05 * (hi - lo))
        xd = chain.pose7(q_goal)
        q_start = rng.uniform(lo, hi)
        full = dls_ik(chain, xd, q0=q_start, max_iter=50)
        c = MultiRefMinJerkCtrl(chain, "full", TS, q0=q_start, ik_max_iter=50)
        for _ in range(20):
            c.iterate(xd)
            assert c.last_ik.iterations <= 50
            if c.last_ik.success:
                break
        assert full.success and c.last_ik.success and abs(c.last_ik.starts - full.starts) <= 1
        np.testing.assert_allclose(chain.pose7(c.last_ik.q)[:3], xd[:3], atol=1e-6)
        resumed += c.last_ik.starts > 1
    assert resumed >= 2  # (targets the first start missed were among them)
