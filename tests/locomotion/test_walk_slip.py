"""The walk summary's ``max_slip`` counts standing soles: active ones on the rigid plant, loaded ones on
another plant (a swing foot grazing MuJoCo's floor carries a little force without standing on it). Oracle:
the sole's velocity from raw Pinocchio."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

from wbcpy.locomotion.walk_log import WalkLog
from wbcpy.locomotion.walk_summary import _slip

SOLES = ("left_sole_link", "right_sole_link")


def _log(robot, plant: str, right_fz: float) -> tuple[WalkLog, float]:
    """One logged state: both soles active, the left carrying the robot, the right ``right_fz`` (N) and
    moving (its knee turning); returns the log and the right sole's speed from raw Pinocchio."""
    model = robot.model
    q = pin.neutral(model)
    v = np.zeros(model.nv)
    v[robot.model.joints[robot.joint_id("leg_right_4_joint")].idx_v] = 1.5  # rad/s
    data = model.createData()
    pin.forwardKinematics(model, data, q, v)
    pin.updateFramePlacements(model, data)
    fid = model.getFrameId("right_sole_link")
    speed = float(np.linalg.norm(pin.getFrameVelocity(model, data, fid, pin.LOCAL).linear))
    mg = robot.total_mass * 9.81
    wrenches = np.zeros((1, 2, 6))
    wrenches[0, :, 2] = mg - right_fz, right_fz
    log = WalkLog(
        t=np.zeros(1), q=q[None], v=v[None], tau=np.zeros((1, model.nv - 6)),
        active=np.ones((1, 2), dtype=bool), wrenches=wrenches, com=np.zeros((1, 3)),
        contact_frames=np.array(SOLES), footsteps=np.zeros((0, 4)), plant=plant,
    )  # fmt: skip
    return log, speed


@pytest.mark.parametrize("plant", ["pinocchio", "mujoco"])
def test_a_loaded_moving_sole_counts_on_every_plant(example_robot, plant):
    robot = example_robot("talos")
    log, speed = _log(robot, plant, right_fz=0.4 * robot.total_mass * 9.81)
    assert speed > 0.1
    assert _slip(robot, log)[0] == pytest.approx(speed, rel=1e-9)


def test_a_grazing_sole_counts_only_on_the_rigid_plant(example_robot):
    """On the rigid plant an active sole stands whatever its force; elsewhere a sole under 20 % of m·g
    is a swing foot touching the floor."""
    robot = example_robot("talos")
    rigid, speed = _log(robot, "pinocchio", right_fz=5.0)
    soft, _ = _log(robot, "mujoco", right_fz=5.0)
    assert _slip(robot, rigid)[0] == pytest.approx(speed, rel=1e-9)
    assert _slip(robot, soft) == (0.0, 0.0)
