"""The kinematic walk loop (WalkingPattern tracked by a VelocityScene's bound laws) with the swing pose
passed as swing_into's 4×4 matrix equals the loop that builds a pin.SE3 from it; the pattern's placement
queries are independent copies; swing_into writes into strided buffers as into plain ones."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

from wbcpy import VelocityScene, load_robot
from wbcpy.controllers import CartesianVelocityLaw, ComVelocityLaw, JointVelocityLaw
from wbcpy.locomotion import WalkingPattern, plan_footsteps

DT = 0.005


@pytest.fixture(scope="module")
def talos():
    robot = load_robot("talos")
    q0 = robot.reference_configuration("half_sitting")
    robot.update(q0)
    return robot, q0


def _walk(robot, q0, matrix: bool, steps: int) -> np.ndarray:
    """``steps`` steps of the walk loop; the configurations visited (steps × nq)."""
    robot.update(q0)
    pattern = WalkingPattern(robot, plan_footsteps(robot, 2, 0.15))
    soles = [s.frame for s in pattern.feet.soles]
    scene = VelocityScene(robot, dt=DT)
    scene.configure([
        {"name": "com", "type": "com"},
        {"name": "left", "type": "cart", "tip": soles[0]},
        {"name": "right", "type": "cart", "tip": soles[1]},
        {"name": "torso", "type": "cart", "tip": "torso_2_link", "weights": [0, 0, 0, 1, 1, 1]},
        {"name": "posture", "type": "jnt", "joint_names": robot.joint_names[1:],
         "weights": [1e-3] * (robot.nv - 6)},
    ])  # fmt: skip
    com = scene.bind("com", ComVelocityLaw(kp=10.0), robot.com())
    feet = {side: scene.bind(side, CartesianVelocityLaw(kp=10.0), robot.frame_placement(f))
            for side, f in zip(("left", "right"), soles, strict=True)}  # fmt: skip
    upright = pin.SE3(np.eye(3), robot.frame_placement("torso_2_link").translation)
    others = [scene.bind("torso", CartesianVelocityLaw(kp=10.0), upright),
              scene.bind("posture", JointVelocityLaw(kp=1.0), q0[7:])]  # fmt: skip
    M, twist, acc = np.eye(4), np.zeros(6), np.zeros(6)
    q, out = q0.copy(), []
    for k in range(steps):
        t = k * DT
        robot.update(q)
        pos, vel, _, _, _ = pattern.sample(t)
        com.set_target(pos, vel)
        swing = pattern.swing_into(t, M, twist, acc)
        for side, placement in pattern.planted(t).items():
            feet[side].set_target(placement)
        if swing is not None:
            feet[swing].set_target(M if matrix else pin.SE3(M), twist)
        for law in others:
            law.update()
        scene.solve(scene.update())
        q = pin.integrate(robot.model, q, scene.get_solver_output_raw() * DT)
        out.append(q)
    return np.array(out)


def test_matrix_swing_targets_walk_as_se3_targets(talos):
    robot, q0 = talos
    steps = 320  # (past the start phase into the first swing: 1 s start + 0.6 s single support)
    by_se3, by_matrix = _walk(robot, q0, False, steps), _walk(robot, q0, True, steps)
    np.testing.assert_allclose(by_matrix, by_se3, rtol=0.0, atol=1e-10)
    # the walk moved: the swing sole left the ground (the targets were not ignored)
    assert np.abs(by_se3[-1] - q0).max() > 1e-2


def test_placements_are_independent_copies(talos):
    robot, _ = talos
    pattern = WalkingPattern(robot, plan_footsteps(robot, 2, 0.15))
    for t in (0.5, pattern.phases[1].t0 + 0.1, pattern.phases[2].t0 + 0.05, pattern.duration):
        first = pattern.planted(t)
        kept = {side: M.homogeneous.copy() for side, M in first.items()}
        for M in first.values():
            M.translation = np.array([9.0, 9.0, 9.0])  # editing a returned placement changes nothing
        for side, M in pattern.planted(t).items():
            np.testing.assert_array_equal(M.homogeneous, kept[side])
    start = pattern.start
    start["left"].translation = np.zeros(3)
    assert not np.array_equal(pattern.start["left"].translation, np.zeros(3))
    placement = pattern.foot_before(1, "left")
    placement.translation = np.zeros(3)
    assert not np.array_equal(pattern.foot_before(1, "left").translation, np.zeros(3))


def test_swing_into_strided_buffers(talos):
    """Views with strides (rows of larger arrays) receive what plain arrays receive; the rest of the
    larger arrays and M's last row are left as they are."""
    robot, _ = talos
    pattern = WalkingPattern(robot, plan_footsteps(robot, 2, 0.15))
    t = pattern.phases[1].t0 + 0.23
    M, vel, acc = np.eye(4), np.zeros(6), np.zeros(6)
    side = pattern.swing_into(t, M, vel, acc)
    big = np.full((8, 8), 5.0)
    big[6, 6] = 1.0
    rows, cols = np.full((3, 6), 5.0), np.full((6, 2), 5.0)
    Ms, vs, accs = big[::2, ::2], rows[0], cols[:, 1]  # (M and acc strided, vel a row of a larger array)
    assert pattern.swing_into(t, Ms, vs, accs) == side
    np.testing.assert_array_equal(Ms[:3], M[:3])
    np.testing.assert_array_equal(Ms[3], [5.0, 5.0, 5.0, 1.0])  # (its last row left as it is)
    np.testing.assert_array_equal(vs, vel)
    np.testing.assert_array_equal(accs, acc)
    np.testing.assert_array_equal(rows[1:], 5.0)
    np.testing.assert_array_equal(cols[:, 0], 5.0)
    # the placement written is the swing() pose (a proper rotation about the vertical)
    _, pose, v2, a2 = pattern.swing(t)
    np.testing.assert_array_equal(M[:3], pose.homogeneous[:3])
    np.testing.assert_array_equal(v2, vel)
    np.testing.assert_array_equal(a2, acc)
