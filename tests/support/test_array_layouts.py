"""Arrays of any layout give the answer of their native, contiguous float64 copy, or a clear error (issue 27).

A big-endian float64 (``q.astype(">f8")``) used to pass validation while the compiled kernels read its bytes
as native numbers: the end effector 0.688 m off, NaN accepted, q̈ = 0 from a Cartesian reference. The oracle
of every case here is the same call on ``np.array(x, dtype=np.float64)`` (native, contiguous): the values
are the same, so the answers must be too.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pinocchio as pin
import pytest

from wbcpy import AccelerationScene, VelocityScene, load_robot
from wbcpy.controllers import CartesianPD, JointPD, JointVelocityLaw
from wbcpy.errors import InvalidValueError
from wbcpy.tasks import CartesianReference, TaskConfig

Q0 = np.array([0.3, 0.6, -0.2, -1.2, 0.3, 0.8, 0.1])
V0 = np.array([0.1, -0.2, 0.3, 0.0, 0.2, -0.1, 0.05])


def _misaligned(x: np.ndarray) -> np.ndarray:
    """A copy of x whose data starts one byte off an 8-byte boundary."""
    buf = np.zeros(x.nbytes + 8, dtype=np.uint8)
    out = np.ndarray(x.shape, dtype=np.float64, buffer=buf, offset=1)
    out[...] = x
    assert not out.flags.aligned
    return out


def _strided(x: np.ndarray) -> np.ndarray:
    out = np.zeros((x.shape[0], 3))
    out[:, 1] = x
    return out[:, 1]


def _reversed(x: np.ndarray) -> np.ndarray:
    return x[::-1].copy()[::-1]


LAYOUTS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "big-endian": lambda x: x.astype(">f8"),
    "little-endian": lambda x: x.astype("<f8"),
    "misaligned": _misaligned,
    "strided": _strided,
    "negative stride": _reversed,
    "float32": lambda x: x.astype(np.float32).astype(np.float64).astype(np.float32),
}


def _native(x: np.ndarray) -> np.ndarray:
    return np.array(x, dtype=np.float64)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_robot_update_reads_values_not_bytes(layout: str) -> None:
    make = LAYOUTS[layout]
    q, v = make(Q0), make(V0)
    robot, twin = load_robot("lwr4"), load_robot("lwr4")
    robot.update(q, v)
    twin.update(_native(q), _native(v))
    np.testing.assert_array_equal(robot.q, twin.q)
    np.testing.assert_array_equal(robot.v, twin.v)
    np.testing.assert_array_equal(
        robot.frame_placement("lwr_ee").homogeneous, twin.frame_placement("lwr_ee").homogeneous
    )


@pytest.mark.parametrize("layout", ["big-endian", "misaligned", "strided"])
@pytest.mark.parametrize("bad", [np.nan, np.inf, 1e12])
def test_robot_update_rejects_bad_values_in_any_layout(layout: str, bad: float) -> None:
    robot = load_robot("lwr4")
    robot.update(Q0, V0)
    q = Q0.copy()
    q[2] = bad
    with pytest.raises(InvalidValueError):
        robot.update(LAYOUTS[layout](q), V0)
    with pytest.raises(InvalidValueError):
        robot.update(Q0, LAYOUTS[layout](np.where(np.arange(7) == 2, bad, V0)))
    np.testing.assert_array_equal(robot.q, Q0)


def _acceleration_scene() -> tuple[AccelerationScene, object]:
    robot = load_robot("lwr4")
    robot.update(Q0, V0)
    scene = AccelerationScene(robot, dt=0.002)
    scene.configure(
        [
            TaskConfig(name="ee", type="cart", tip="lwr_ee", priority=0),
            TaskConfig(name="posture", type="jnt", joint_names=robot.joint_names, priority=1),
        ]
    )
    return scene, robot


@pytest.mark.parametrize("layout", LAYOUTS)
def test_cartesian_reference_in_any_layout(layout: str) -> None:
    acc = np.array([0.4, -0.3, 0.2, 0.1, -0.2, 0.3])
    got, want = _acceleration_scene()[0], _acceleration_scene()[0]
    got.set_reference("ee", CartesianReference(acceleration=LAYOUTS[layout](acc)))
    want.set_reference("ee", CartesianReference(acceleration=_native(LAYOUTS[layout](acc))))
    qdd = got.solve(got.update()).acceleration
    assert np.abs(qdd).max() > 0.1
    np.testing.assert_allclose(qdd, want.solve(want.update()).acceleration, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_bindings_and_set_target_in_any_layout(layout: str) -> None:
    target = Q0 + 0.2
    (got, _), (want, _) = _acceleration_scene(), _acceleration_scene()
    bg = got.bind("posture", JointPD(kp=10.0, kd=6.3), LAYOUTS[layout](target))
    bw = want.bind("posture", JointPD(kp=10.0, kd=6.3), _native(LAYOUTS[layout](target)))
    for scene, binding in ((got, bg), (want, bw)):
        ee = scene.get_task("ee")
        scene.bind("ee", CartesianPD(kp=100.0, kd=20.0), pin.SE3(ee.pose().rotation, ee.pose().translation))
        binding.update()
    np.testing.assert_allclose(
        got.solve(got.update()).acceleration, want.solve(want.update()).acceleration, rtol=1e-12, atol=1e-12
    )
    bg.set_target(LAYOUTS[layout](target - 0.4))
    bw.set_target(_native(LAYOUTS[layout](target - 0.4)))
    bg.update()
    bw.update()
    np.testing.assert_allclose(
        got.solve(got.update()).acceleration, want.solve(want.update()).acceleration, rtol=1e-12, atol=1e-12
    )


@pytest.mark.parametrize("layout", ["big-endian", "misaligned"])
def test_velocity_scene_binding_in_any_layout(layout: str) -> None:
    answers = []
    for make in (LAYOUTS[layout], lambda x: _native(LAYOUTS[layout](x))):
        robot = load_robot("lwr4")
        robot.update(make(Q0), make(V0))
        scene = VelocityScene(robot, dt=0.002, joint_limits=True)
        scene.configure([TaskConfig(name="posture", type="jnt", joint_names=robot.joint_names, priority=0)])
        scene.bind("posture", JointVelocityLaw(kp=1.0), make(Q0 + 0.1)).update()
        answers.append(scene.solve(scene.update()).velocity)
    np.testing.assert_allclose(answers[0], answers[1], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(answers[0], 0.1 * np.ones(7), rtol=1e-7)  # (the damping: 1e-8 relative)
