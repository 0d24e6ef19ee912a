"""MultiRefMinJerkCtrl without ``qd`` and a moving target (issue 26): the warm-started, bounded IK.

Oracles: raw Pinocchio FK of the robot's own model (``_ik_helpers.RawKinematics``, not the chain), the
joint limits read from the Pinocchio model, and :func:`wbcpy.ik.dls_ik` (the NumPy definition of the
search) for the searches the controller runs from scratch.
"""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin
import pytest
from _ik_helpers import RawKinematics, pose_errors

from wbcpy import load_robot
from wbcpy.ik import MultiRefMinJerkCtrl, dls_ik
from wbcpy.ik._warm_ik import WarmIK
from wbcpy.ik.pose_error import CtrlPose, parse_target

Q_START = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785])


@pytest.fixture(scope="module")
def panda(example_robot):
    robot = example_robot("panda")
    chain = robot.chain("panda_link0", "panda_hand")
    return chain, RawKinematics(robot, "panda_hand", chain.joint_names)


def _ik_error(raw: RawKinematics, target: pin.SE3, q: np.ndarray) -> float:
    dp, dr = pose_errors(target, raw.pose(q))
    return math.hypot(dp, dr)


def test_moving_target_costs_one_iteration_per_step_and_converges_when_it_stops(panda) -> None:
    """A target moving up to 1 mm per 1 ms step: every step's joint target solves that step's pose to
    1e-5 (raw FK) with one IK iteration; when the target stops, the IK converges (< 1e-8) on the next call
    and the controller reaches the target; q stays inside the limits throughout."""
    chain, raw = panda
    c = MultiRefMinJerkCtrl(chain, "full", 1e-3, q0=Q_START)
    start = raw.pose(Q_START)
    offset = np.array([0.10, -0.15, 0.10])
    iterations, jumps = [], []
    q_set_before = None
    for k in range(600):
        target = pin.SE3(start.rotation, start.translation + offset * (0.5 - 0.5 * math.cos(0.01 * k)))
        q = c.iterate(target)
        assert np.all(q >= raw.lower) and np.all(q <= raw.upper)
        q_set = c.get_q_set()
        if k >= 2:
            assert _ik_error(raw, target, q_set) < 1e-5, k
            iterations.append(c.last_ik.iterations)
            jumps.append(np.abs(q_set - q_set_before).max())
        q_set_before = q_set
    assert max(iterations) == 1  # the bounded, warm-started IK: one Pinocchio pass per step
    assert max(jumps) < 0.01  # warm starts follow one branch of the redundant arm: no flips
    for _ in range(2):
        c.iterate(pin.SE3(target))  # the target stops
    assert c.last_ik.success and c.last_ik.error < 1e-8
    dp, dr = pose_errors(target, raw.pose(c.get_q_set()))
    assert dp < 1e-9 and dr < 1e-7  # (acos resolves angles to ~1.5e-8)
    for _ in range(3000):  # 3 s at T = 1 s
        q = c.iterate(pin.SE3(target))
        assert np.all(q >= raw.lower) and np.all(q <= raw.upper)
    dp, dr = pose_errors(target, raw.pose(c.get_q()))
    assert dp < 1e-4 and dr < 1e-3


@pytest.mark.parametrize("mode", list(CtrlPose))
def test_a_search_from_scratch_is_dls_ik(panda, mode: CtrlPose) -> None:
    """WarmIK's first search (cold, one unbounded call, pausing off) is dls_ik's: both solve every target
    (reachable by construction; WarmIK's answer checked on raw Pinocchio FK), from dls_ik's start
    sequence with its cap of 50 iterations per start. Their counts agree to what rounding can move: a
    start that ends stuck near a limit or a singularity spends its last iterations on steps that
    rounding decides (OpenBLAS picks its kernels per CPU), so its length, and whether it or the next
    start converges, may differ — by at most one start and one start's cap of iterations.
    (tests/kernels/test_kernel_dls.py checks the compiled iterations against the NumPy loop one by one.)"""
    chain, raw = panda
    rng = np.random.default_rng(17)
    for _ in range(5):
        xd = chain.pose7(rng.uniform(chain.lower, chain.upper))
        q0 = rng.uniform(chain.lower, chain.upper)
        ref = dls_ik(chain, xd, q0=q0, ctrl_pose=mode, max_iter=50, restarts=16)
        p_d, R_d, _ = parse_target(xd)
        ik = WarmIK(chain, tol_pause=0.0)
        ik.new_target(p_d, R_d, mode, q0)
        used = ik.run(17 * 50)
        assert ref.success and ik.finished and ik.best_err < 1e-8
        assert abs(ik.starts - ref.starts) <= 1 and abs(used - ref.iterations) <= 50
        dp, dr = pose_errors(pin.SE3(R_d, p_d), raw.pose(ik.best_q))
        assert (mode == CtrlPose.ANG or dp < 1e-8) and (mode == CtrlPose.XYZ or dr < 1e-7)


def test_set_q_makes_the_next_search_start_from_q(panda) -> None:
    """After set_q the next new target is solved from the new q (as dls_ik from that q), not from the
    last IK answer; before it, from the last answer (a warm start needs no new start)."""
    chain, raw = panda
    c = MultiRefMinJerkCtrl(chain, "full", 1e-2, q0=Q_START)
    rng = np.random.default_rng(2)
    goal = rng.uniform(chain.lower, chain.upper)
    xd = chain.pose7(goal)
    for _ in range(3):
        c.iterate(xd)
    assert c.last_ik.success and c.last_ik.starts == 1
    q_new = rng.uniform(chain.lower, chain.upper)
    c.set_q(q_new)
    target = raw.pose(np.clip(goal + 0.05, chain.lower, chain.upper))
    for _ in range(10):
        c.iterate(target)
        if c.last_ik.success:
            break
    ref = dls_ik(chain, target, q0=q_new, max_iter=50, restarts=16)
    assert ref.success and c.last_ik.success
    np.testing.assert_allclose(c.last_ik.q, ref.q, atol=1e-6)
    assert _ik_error(raw, target, c.last_ik.q) < 1e-7


def test_an_unreachable_moving_target_costs_at_most_the_budget_and_stays_in_the_limits() -> None:
    chain = load_robot("lwr4").chain("lwr_base_link", "lwr_ee")
    c = MultiRefMinJerkCtrl(
        chain, "full", 1e-2, q0=np.array([0.1, -0.5, 0.2, 1.2, 0.1, -0.6, 0.3]), ik_max_iter=7
    )
    for k in range(40):
        xd = np.array([2.0 + 0.002 * k, 0.5, 0.2, 0.0, 0.0, 1.0, 0.3])  # 2 m away: out of reach
        q = c.iterate(xd)
        assert not c.last_ik.success and 1 <= c.last_ik.iterations <= 7
        assert np.all(q >= chain.lower) and np.all(q <= chain.upper)
        assert np.all(c.get_q_set() >= chain.lower) and np.all(c.get_q_set() <= chain.upper)
