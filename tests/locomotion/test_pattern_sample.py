"""WalkingPattern.sample: the LIPM identities between its five arrays at every phase (ẍ = ω²(x − p),
ẋ = ω(ξ − x), constant height, zero vertical rates), and five independent arrays."""

from __future__ import annotations

import numpy as np
import pytest

from wbcpy import load_robot
from wbcpy.locomotion import WalkingPattern, plan_footsteps


@pytest.fixture(scope="module")
def pattern() -> WalkingPattern:
    robot = load_robot("talos")
    robot.update(robot.reference_configuration("half_sitting"), np.zeros(robot.nv))
    return WalkingPattern(robot, plan_footsteps(robot, 3, 0.15))


def test_lipm_identities_hold_at_every_phase(pattern: WalkingPattern) -> None:
    w = pattern.omega
    for t in np.linspace(0.0, pattern.duration, 97):
        pos, vel, acc, zmp, dcm = pattern.sample(float(t))
        assert [a.shape for a in (pos, vel, acc, zmp, dcm)] == [(3,), (3,), (3,), (2,), (2,)]
        np.testing.assert_allclose(acc[:2], w * w * (pos[:2] - zmp), rtol=0.0, atol=1e-12)
        np.testing.assert_allclose(vel[:2], w * (dcm - pos[:2]), rtol=0.0, atol=1e-12)
        assert pos[2] == pytest.approx(pattern.ground + pattern.com_height) and vel[2] == acc[2] == 0.0
        np.testing.assert_allclose(zmp, pattern.zmp(float(t)), rtol=0.0, atol=1e-15)
        np.testing.assert_allclose(dcm, pattern.dcm(float(t)), rtol=0.0, atol=1e-15)


def test_the_arrays_are_independent(pattern: WalkingPattern) -> None:
    arrays = pattern.sample(1.3)
    before = [a.copy() for a in arrays]
    arrays[0][:] = 7.0  # (writing one array changes no other, nor a later sample)
    for a, b in zip(arrays[1:], before[1:], strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(pattern.sample(1.3)[0], before[0])
