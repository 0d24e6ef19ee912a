"""Tests of wbcpy.ik.dls_ik (damped least-squares IK) and its use by MultiRefMinJerkCtrl when qd is omitted.

Oracles: raw Pinocchio FK of the robot's model (tests/_ik_helpers.py), closed-form reach of the planar
3R arm, limits read from the Pinocchio model.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from _ik_helpers import RawKinematics, pose_errors, serial_chain

from wbcpy import load_robot
from wbcpy.errors import InvalidValueError, UnknownNameError
from wbcpy.ik import CtrlPose, DLSResult, MultiRefMinJerkCtrl, dls_ik


@pytest.fixture(scope="module")
def lwr4():
    robot = load_robot("lwr4")
    chain = robot.chain("lwr_base_link", "lwr_ee")
    return chain, RawKinematics(robot, "lwr_ee", chain.joint_names)


@pytest.fixture(scope="module")
def planar():
    robot = load_robot("planar3r")
    chain = robot.chain("base_link", "tip")
    return chain, RawKinematics(robot, "tip", chain.joint_names)


def _random_targets(raw: RawKinematics, count: int, seed: int) -> list[tuple[np.ndarray, pin.SE3]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        q = rng.uniform(raw.lower, raw.upper)
        out.append((q, raw.pose(q)))
    return out


@pytest.mark.parametrize("robot_name", ["lwr4", "planar3r", "panda"])
def test_reaches_random_full_poses(robot_name, lwr4, planar, example_robot):
    if robot_name == "panda":
        robot = example_robot("panda")
        chain = robot.chain("panda_link0", "panda_link8")
        raw = RawKinematics(robot, "panda_link8", chain.joint_names)
    else:
        chain, raw = lwr4 if robot_name == "lwr4" else planar
    rng = np.random.default_rng(11)
    for _, target in _random_targets(raw, 15, seed=5):
        q0 = rng.uniform(raw.lower, raw.upper)
        res = dls_ik(chain, target, q0=q0)
        assert isinstance(res, DLSResult) and res.success, res
        assert res.error < 1e-8 and res.starts >= 1 and res.iterations >= 1
        assert np.all(res.q >= raw.lower) and np.all(res.q <= raw.upper)
        dp, dr = pose_errors(target, raw.pose(res.q))
        assert dp < 1e-8 and dr < 1e-7


def test_pose7_target_and_default_start(lwr4):
    chain, raw = lwr4
    q = np.array([0.3, 0.4, -0.2, -1.1, 0.5, 0.6, -0.3])
    M = raw.pose(q)
    w = pin.log3(M.rotation)
    x7 = np.concatenate((M.translation, w / np.linalg.norm(w), [np.linalg.norm(w)]))
    res = dls_ik(chain, x7)
    assert res.success
    dp, dr = pose_errors(M, raw.pose(res.q))
    assert dp < 1e-8 and dr < 1e-7


def test_xyz_and_ang_modes(lwr4):
    chain, raw = lwr4
    q = np.array([0.3, 0.4, -0.2, -1.1, 0.5, 0.6, -0.3])
    M = raw.pose(q)
    wrong_rot = pin.SE3(pin.rpy.rpyToMatrix(1.0, -0.5, 2.0), M.translation)
    res = dls_ik(chain, wrong_rot, q0=np.zeros(7) + 0.1, ctrl_pose="xyz")
    assert res.success
    assert np.linalg.norm(raw.pose(res.q).translation - M.translation) < 1e-8
    wrong_pos = pin.SE3(M.rotation, np.array([5.0, 5.0, 5.0]))  # unreachable position, ignored
    res = dls_ik(chain, wrong_pos, q0=np.zeros(7) + 0.1, ctrl_pose=CtrlPose.ANG)
    assert res.success
    assert pose_errors(M, raw.pose(res.q))[1] < 1e-7


def test_unreachable_target_gives_closest_point(planar):
    chain, raw = planar
    target = pin.SE3(np.eye(3), np.array([0.6, 0.8, 0.0]))  # 1 m away, reach is 0.7 m
    res = dls_ik(chain, target, q0=np.array([0.2, 0.3, -0.1]), ctrl_pose="xyz", restarts=2)
    assert not res.success and res.starts == 3
    p = raw.pose(res.q).translation
    assert np.linalg.norm(p) == pytest.approx(0.7, abs=1e-4)  # stretched towards the target
    assert res.error == pytest.approx(0.3, abs=1e-4)
    assert np.all(res.q >= raw.lower) and np.all(res.q <= raw.upper)


def test_limits_respected_when_target_needs_more():
    robot, chain = serial_chain(2, -0.5, 0.5)
    raw = RawKinematics(robot, "tip", chain.joint_names)
    target = raw.pose(np.array([0.5, 0.5]))
    outside = pin.SE3(
        pin.rpy.rpyToMatrix(0.0, 0.0, 1.6), target.translation * 0.0 + np.array([0.0, 1.0, 0.0])
    )
    res = dls_ik(chain, outside, q0=np.zeros(2), restarts=1)
    assert not res.success
    assert np.all(res.q >= -0.5) and np.all(res.q <= 0.5)
    res = dls_ik(chain, target, q0=np.zeros(2))  # a target on the limits is reached exactly
    assert res.success and np.allclose(res.q, [0.5, 0.5], atol=1e-6)


def test_singular_start(planar):
    chain, raw = planar
    target = raw.pose(np.array([0.4, 1.2, 0.9]))
    res = dls_ik(chain, target, q0=np.zeros(3))  # stretched arm: radial direction singular
    assert res.success
    assert pose_errors(target, raw.pose(res.q))[0] < 1e-8


def test_deterministic(lwr4):
    chain, raw = lwr4
    target = raw.pose(np.array([1.0, -1.2, 2.0, 1.5, -2.0, 1.0, 0.5]))
    a = dls_ik(chain, target, q0=np.full(7, -0.3))
    b = dls_ik(chain, target, q0=np.full(7, -0.3))
    np.testing.assert_array_equal(a.q, b.q)
    assert (a.iterations, a.error, a.starts, a.success) == (b.iterations, b.error, b.starts, b.success)


def test_bad_inputs(planar):
    chain, raw = planar
    target = raw.pose(np.array([0.1, 0.2, 0.3]))
    with pytest.raises(InvalidValueError):
        dls_ik(chain, np.zeros(6))
    with pytest.raises(InvalidValueError):
        dls_ik(chain, target, q0=np.zeros(2))
    with pytest.raises(InvalidValueError):
        dls_ik(chain, target, q0=[0.0, np.nan, 0.0])
    for kwargs in ({"tol": 0.0}, {"damping": -1.0}, {"max_step": np.inf}, {"max_iter": 0}, {"restarts": -1},
                   {"max_iter": 2.5}, {"damping_min": np.nan}):  # fmt: skip
        with pytest.raises(InvalidValueError):
            dls_ik(chain, target, **kwargs)
    with pytest.raises(UnknownNameError):
        dls_ik(chain, target, ctrl_pose="pose")


# ------------------------------------------------------------------------ controller without qd
def test_controller_without_qd_reaches_and_caches(lwr4):
    """The first call pauses the IK once ‖e‖ < √tol = 1e-4, the second finishes it (‖e‖ < 1e-8, checked
    on raw Pinocchio FK), then the answer is cached: equal targets cost no IK."""
    chain, raw = lwr4
    c = MultiRefMinJerkCtrl(chain, "full", 0.01, q0=np.array([0.0, 0.5, 0.0, -1.0, 0.0, 0.5, 0.0]))
    target = raw.pose(np.array([0.8, -0.4, 0.3, -1.5, 0.2, 0.9, -0.6]))
    c.iterate(target)
    paused = c.last_ik
    assert paused is not None and not paused.success and paused.error < 1e-4
    np.testing.assert_array_equal(c.get_q_set(), paused.q)
    c.iterate(pin.SE3(target))  # equal values, new object: the same search goes on
    first = c.last_ik
    assert first is not paused and first.success and first.iterations >= 1
    dp, dr = pose_errors(target, raw.pose(first.q))
    assert dp < 1e-8 and dr < 1e-7  # (acos resolves angles to ~1.5e-8)
    np.testing.assert_array_equal(c.get_q_set(), first.q)
    for _ in range(298):
        c.iterate(pin.SE3(target))  # equal values, new object: no new IK
    assert c.last_ik is first
    dp, dr = pose_errors(target, raw.pose(c.get_q()))
    assert dp < 1e-3 and dr < 1e-2
    moved = pin.SE3(target.rotation, target.translation + np.array([0.0, 0.0, 0.05]))
    c.iterate(moved)
    c.iterate(moved)
    assert c.last_ik is not first and c.last_ik.success
    c.set_ctrl_pose("xyz")  # the mode is part of the cache key
    second = c.last_ik
    c.iterate(moved)
    assert c.last_ik is not second
