"""The start posture: the computed standing posture judged by raw Pinocchio (soles flat and level at the
natural width, the COM over their midpoint at the stated fraction of its straight-leg height, the base
upright, joints within limits), and which posture each humanoid starts from."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pinocchio as pin
import pytest
from _walk_acceptance import robot_model

from wbcpy.errors import ConfigError, UnknownNameError, WalkingWarning
from wbcpy.locomotion.sole_finder import find_feet
from wbcpy.locomotion.standing import CROUCH, standing_posture, start_posture
from wbcpy.locomotion.walking_robot import walking_robot


def _robot(example_robot, name):
    robot = example_robot(name)
    feet = find_feet(robot)
    return feet.attach(robot), feet


def _placements(model, q, frames):
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    return [data.oMf[model.getFrameId(f)] for f in frames], pin.centerOfMass(model, data, q), data


@pytest.mark.parametrize("name", ["g1", "icub", "talos"])
def test_computed_posture_stands_flat_with_the_com_over_the_feet(example_robot, name):
    robot, feet = _robot(example_robot, name)
    q = standing_posture(robot, feet)
    model = robot_model(name, feet.log_arrays())  # (raw Pinocchio, the sole frames added from the placements)
    (left, right), com, data = _placements(model, q, feet.frames)
    for sole in (left, right):
        assert sole.rotation[2, 2] == pytest.approx(1.0, abs=1e-12)  # flat
        assert sole.translation[2] == pytest.approx(0.0, abs=1e-9)  # on the ground plane z = 0
    yaw = [math.atan2(s.rotation[1, 0], s.rotation[0, 0]) for s in (left, right)]
    assert yaw[0] == pytest.approx(yaw[1], abs=1e-9)  # side by side, same heading
    d = left.actInv(right).translation
    assert d[0] == pytest.approx(0.0, abs=1e-9) and d[2] == pytest.approx(0.0, abs=1e-9)
    mid = 0.5 * (left.translation + right.translation)
    np.testing.assert_allclose(com[:2], mid[:2], atol=1e-8)  # COM over the feet's midpoint
    # the natural width and the straight-leg COM height, at the neutral configuration
    (l0, r0), com0, _ = _placements(model, pin.neutral(model), feet.frames)
    assert abs(d[1]) == pytest.approx(
        float(np.linalg.norm(l0.translation[:2] - r0.translation[:2])), abs=1e-8
    )
    straight = com0[2] - 0.5 * (l0.translation[2] + r0.translation[2])
    assert com[2] - mid[2] == pytest.approx(CROUCH * straight, abs=1e-8)
    base = data.oMi[1].rotation
    assert base[2, 2] == pytest.approx(1.0, abs=1e-9)  # upright
    lower, upper = model.lowerPositionLimit[7:], model.upperPositionLimit[7:]
    assert np.all(q[7:] >= lower - 1e-12) and np.all(q[7:] <= upper + 1e-12)


def test_crouch_sets_the_com_height(example_robot):
    robot, feet = _robot(example_robot, "g1")
    heights = []
    for crouch in (0.9, 0.96):
        q = standing_posture(robot, feet, crouch=crouch)
        (left, _), com, _ = _placements(robot.model, q, feet.frames)
        heights.append(com[2] - left.translation[2])
    assert heights[1] / heights[0] == pytest.approx(0.96 / 0.9, abs=1e-8)


def test_start_postures_of_the_four_humanoids(example_robot):
    talos, feet = _robot(example_robot, "talos")
    np.testing.assert_array_equal(start_posture(talos, feet), talos.reference_configuration("half_sitting"))
    romeo, feet = _robot(example_robot, "romeo")
    np.testing.assert_array_equal(start_posture(romeo, feet), romeo.reference_configuration("half_sitting"))
    g1, feet = _robot(example_robot, "g1")
    np.testing.assert_allclose(start_posture(g1, feet), standing_posture(g1, feet), atol=1e-12)
    # iCub's SRDF half_sitting stands on soles tilted by 3.6°: rejected with a warning
    icub, feet = _robot(example_robot, "icub")
    (left, _), _, _ = _placements(icub.model, icub.reference_configuration("half_sitting"), feet.frames)
    assert math.acos(left.rotation[2, 2]) > 0.05
    with pytest.warns(WalkingWarning, match="tilted"):
        q = start_posture(icub, feet)
    np.testing.assert_allclose(q, standing_posture(icub, feet), atol=1e-12)
    with pytest.raises(ConfigError, match="does not stand flat") as info:
        start_posture(icub, feet, "half_sitting")
    assert info.value.field == "posture"


def test_posture_arguments(example_robot):
    robot, feet = _robot(example_robot, "talos")
    np.testing.assert_allclose(start_posture(robot, feet, "computed"), standing_posture(robot, feet))
    q = robot.reference_configuration("half_sitting")
    np.testing.assert_allclose(start_posture(robot, feet, list(q)), q, atol=1e-15)
    with pytest.raises(UnknownNameError, match="half_sitting"):
        start_posture(robot, feet, "half_sittin")
    for bad in (q[:-1], np.full(robot.nq, np.nan), "x" * 3 + "\0", object()):
        with pytest.raises((ConfigError, UnknownNameError)):
            start_posture(robot, feet, bad)
    with pytest.raises(ConfigError, match="crouch"):
        standing_posture(robot, feet, crouch=0.4)
    with pytest.raises(ConfigError, match="crouch"):
        standing_posture(robot, feet, crouch=True)


def _mass_matrix(model, q):
    M = pin.crba(model, model.createData(), q)
    return np.triu(M) + np.triu(M, 1).T


def test_joints_without_inertia_are_locked(example_robot):
    """Romeo's 24 finger joints carry no mass (raw Pinocchio: their subtrees weigh 0); iCub's head is a
    point mass, so M has a null direction, mostly its neck yaw. Walking locks exactly those (where the
    start posture has them); what remains has a well-conditioned M."""
    example_robot("romeo")
    with pytest.warns(WalkingWarning, match="no inertia"):
        robot, _, q0, locked = walking_robot("romeo")
    full = pin.buildModelFromUrdf(str(robot.urdf_path), pin.JointModelFreeFlyer())
    weightless = {
        full.names[j] for j in range(2, full.njoints)
        if sum(full.inertias[k].mass for k in full.subtrees[j]) == 0.0
    }  # fmt: skip
    assert set(locked) == weightless and len(weightless) == 24
    assert robot.nv == full.nv - 24 and q0.shape == (robot.nq,)
    w = np.linalg.eigvalsh(_mass_matrix(robot.model, q0))
    assert w[0] > 1e-8 * w[-1]
    example_robot("icub")
    with pytest.warns(WalkingWarning, match="no inertia"):
        robot, _, q0, locked = walking_robot("icub")
    assert list(locked) == ["neck_yaw"]
    full = pin.buildModelFromUrdf(str(robot.urdf_path), pin.JointModelFreeFlyer())
    q = pin.neutral(full)  # (the start posture, with the neck yaw where it was locked)
    keep = [i for i in range(full.nq) if i != full.joints[full.getJointId("neck_yaw")].idx_q]
    q[keep], q[full.joints[full.getJointId("neck_yaw")].idx_q] = q0, locked["neck_yaw"]
    w, V = np.linalg.eigh(_mass_matrix(full, q))
    assert w[0] < 1e-12 * w[-1]  # (singular with the neck free)
    assert int(np.argmax(np.abs(V[:, 0]))) == full.joints[full.getJointId("neck_yaw")].idx_v
    w = np.linalg.eigvalsh(_mass_matrix(robot.model, q0))
    assert w[0] > 1e-8 * w[-1]
    with warnings.catch_warnings():
        warnings.simplefilter("error", WalkingWarning)
        walking_robot("talos")  # (nothing to lock, nothing to say)
