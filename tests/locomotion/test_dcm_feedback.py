"""The walking controller's COM reference (:mod:`wbcpy.locomotion._dcm_feedback`) against its closed form:
the commanded ZMP p* = x − ẍ*/ω² is p_ref + (1 + k_ξ/ω)(ξ − ξ_ref) unclamped; clamped, it is the point of
the stance sole's inner rectangle nearest that p* in the sole's own axes (checked with Pinocchio's SE3: an
error of sign or of axes moves it by centimetres); the height row is the PD of the pattern's COM height."""

from __future__ import annotations

import numpy as np
import pytest

from wbcpy.locomotion import WalkingController, WalkingPattern, plan_footsteps
from wbcpy.locomotion._dcm_feedback import DcmFeedback
from wbcpy.locomotion.footsteps import yaw_of


@pytest.fixture(scope="module")
def controller(example_robot):
    robot = example_robot("talos")
    robot.update(robot.reference_configuration("half_sitting"), np.zeros(robot.nv))
    pattern = WalkingPattern(robot, plan_footsteps(robot, 4, 0.1, turn=0.9))  # (turned soles: R₂ ≠ I)
    return WalkingController(robot, pattern, dt=0.002)


def _single_support(pattern: WalkingPattern) -> float:
    """A time in the single support of a footstep whose stance sole has turned (> 0.1 rad)."""
    for t in np.arange(0.0, pattern.duration, 0.01):
        ph = pattern.phase(t)
        if ph.kind == "single" and abs(yaw_of(pattern.foot_before(ph.step, ph.stance).rotation)) > 0.1:
            return float(t)
    raise AssertionError("no turned stance sole")


@pytest.mark.parametrize("offset", [(0.0, 0.0), (0.3, 0.0), (-0.2, 0.25), (0.05, -0.4)])
@pytest.mark.parametrize("clamp", [False, True])
def test_commanded_zmp(controller, offset, clamp):
    ctrl = controller
    pattern = ctrl.pattern
    t = _single_support(pattern)
    ph, plan = pattern.phase(t), pattern.lipm(t)
    task = ctrl.scene.get_task("com")
    dcm = DcmFeedback(pattern, task, ctrl.scene, (0.05, 0.03), (60.0, 15.0), 2.5)
    (x0, x1), (xi0, xi1), (p0, p1) = plan
    x = [x0 + offset[0], x1 + offset[1], pattern.ground + pattern.com_height + 0.01]
    v = [0.1, -0.2, 0.05]
    dcm.write(plan, ph, x, v, clamp)
    acc = np.array(task.target_view(), dtype=float)
    w = pattern.omega
    p = np.array(x[:2]) - acc[:2] / w**2
    k = 1.0 + 2.5 / w
    free = np.array([p0 + k * (x[0] + v[0] / w - xi0), p1 + k * (x[1] + v[1] / w - xi1)])
    assert acc[2] == pytest.approx(60.0 * (-0.01) + 15.0 * (-0.05), abs=1e-12)
    if not clamp:
        np.testing.assert_allclose(p, free, atol=1e-12)
        return
    sole = pattern.foot_before(ph.step, ph.stance)
    local = sole.actInv(np.array([*p, sole.translation[2]]))
    wanted = sole.actInv(np.array([*free, sole.translation[2]]))
    nearest = np.clip(wanted[:2], [-0.05, -0.03], [0.05, 0.03])
    # (1e-6 m: the law clamps in the ground block of the sole's rotation, the oracle in its full axes; the
    # soles of half_sitting are level to ~1e-6 rad)
    np.testing.assert_allclose(local[:2], nearest, atol=1e-6)
