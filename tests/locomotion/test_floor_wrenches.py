"""The walk summary judges a plant's sole wrenches in the floor's axes: a soft plant's sole that grazes the
floor tilted by θ, its force on the floor's friction cone, is inside the cone (Coulomb's law is the
contact surface's), though in the sole's own axes its tangential force gains f_n sin θ; on a flat sole
the logged wrench is judged as it is. The oracle: the force built in world axes on the floor's cone."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pinocchio as pin
import pytest

from wbcpy.locomotion.walk_summary import _floor_wrenches, _violation

MU = 0.3


def _log(robot, roll: float, f_floor: np.ndarray):
    """One logged step: the base rolled by ``roll`` (rad), the left sole active with the force ``f_floor``
    (given in floor axes: the sole's heading, the world's vertical) expressed in its own axes (no moment
    about its origin)."""
    q = robot.reference_configuration("half_sitting").copy()
    data = robot.model.createData()
    frame = robot.model.getFrameId("left_sole_link")
    pin.framesForwardKinematics(robot.model, data, q)
    base = pin.Quaternion(q[3:7]).toRotationMatrix()
    # the base turned so that the sole is at heading 0.3 rad, rolled by `roll` about its own x axis
    target = pin.rpy.rpyToMatrix(0.0, 0.0, 0.3) @ pin.rpy.rpyToMatrix(roll, 0.0, 0.0)
    q[3:7] = pin.Quaternion(target @ data.oMf[frame].rotation.T @ base).coeffs()
    pin.framesForwardKinematics(robot.model, data, q)
    R = data.oMf[frame].rotation
    np.testing.assert_allclose(R, target, atol=1e-12)
    yaw = pin.rpy.rpyToMatrix(0.0, 0.0, 0.3)
    wrenches = np.zeros((1, 2, 6))
    wrenches[0, 0, :3] = R.T @ yaw @ f_floor
    log = SimpleNamespace(
        q=q[None], wrenches=wrenches, active=np.array([[True, False]]),
        contact_frames=np.array(["left_sole_link", "right_sole_link"]), half_size=np.array([0.1, 0.065]),
        mu=MU, tau=np.zeros((1, robot.nv - 6)), t=np.zeros(1),
    )  # fmt: skip
    return log


def test_a_tilted_grazing_sole_on_the_floor_cone_is_inside(example_robot):
    robot = example_robot("talos")
    fn = 20.0
    f_floor = np.array([0.0, -0.999 * MU * fn, fn])  # (inside the floor's cone by 0.1 %)
    log = _log(robot, math.radians(-0.4), f_floor)
    sole_axes = log.wrenches[0, 0]
    assert abs(sole_axes[1]) > MU * sole_axes[2]  # (in the sole's own axes it looks outside)
    floor = _floor_wrenches(robot, log)
    assert floor.shape == (1, 6)
    np.testing.assert_allclose(floor[0], [*f_floor, 0.0, 0.0, 0.0], atol=1e-9)
    assert _violation(robot, log, None)["friction cone"] == 0.0


def test_a_flat_sole_is_judged_as_logged(example_robot):
    robot = example_robot("talos")
    log = _log(robot, 0.0, np.array([0.0, -1.02 * MU * 20.0, 20.0]))
    np.testing.assert_allclose(_floor_wrenches(robot, log)[0], log.wrenches[0, 0], atol=1e-12)
    excess = _violation(robot, log, None)["friction cone"]
    assert excess == pytest.approx((1.02 - 1.0) * MU * 20.0 / math.hypot(1.0, MU), rel=1e-6)
