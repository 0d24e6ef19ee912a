"""Closed-form oracles: the three planar test robots and the PUMA 560 reference frames.

Every expected value is written from the robot's geometry by hand (c1 = cos q1, s12 = sin(q1 + q2), ...),
and checked through both wbcpy layers: :class:`wbcpy.RobotModel` (named frames) and the jspace facade
(nodes). Gravity g = ∂V/∂q with V = Σ mᵢ g zᵢ (g = 9.81 m/s²); Coriolis b = Ṁq̇ − ½ ∂(q̇ᵀMq̇)/∂q.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

from wbcpy import RobotModel, jspace

G = 9.81
TOL = 1e-10


def _grid() -> list[tuple[float, float]]:
    """Joint pairs on a grid plus random pairs (the grid includes singular and wrapped configurations)."""
    rng = np.random.default_rng(7)
    grid = [(a, b) for a in np.linspace(-math.pi, math.pi, 5) for b in np.linspace(-2.5, 2.5, 5)]
    grid += [tuple(rng.uniform(-4.0, 4.0, 2)) for _ in range(10)]
    return [(float(a), float(b)) for a, b in grid]


GRID = _grid()


def _rr_unit_mass(q1: float, q2: float, v1: float, v2: float) -> dict[str, np.ndarray]:
    c1, s1, c12, s12, s2 = math.cos(q1), math.sin(q1), math.cos(q1 + q2), math.sin(q1 + q2), math.sin(q2)
    return {
        "tip": np.array([0.0, c1 + c12, s1 + s12]),
        "J": np.array([[0, 0], [-s1 - s12, -s12], [c1 + c12, c12], [1, 1], [0, 0], [0, 0]], dtype=float),
        "M": np.array(
            [
                [1 + (s1 + s12) ** 2 + (c1 + c12) ** 2, s12 * (s1 + s12) + c12 * (c1 + c12)],
                [s12 * (s1 + s12) + c12 * (c1 + c12), 1.0],
            ]
        ),
        "com": np.array([0.0, c1 + 0.5 * c12, s1 + 0.5 * s12]),
        "Jcom": np.array([[0, 0], [-s1 - 0.5 * s12, -0.5 * s12], [c1 + 0.5 * c12, 0.5 * c12]]),
        # V = g (z1 + z2) = g (2 s1 + s12)
        "g": G * np.array([2 * c1 + c12, c12]),
        # M11 = 3 + 2 c2, M12 = 1 + c2
        "b": np.array([-2 * s2 * v1 * v2 - s2 * v2**2, s2 * v1**2]),
    }


def _rr_unit_inertia(q1: float, q2: float, v1: float, v2: float) -> dict[str, np.ndarray]:
    c1, s1, c12, s12, s2 = math.cos(q1), math.sin(q1), math.cos(q1 + q2), math.sin(q1 + q2), math.sin(q2)
    return {
        "tip": np.array([0.0, 2 * c1 + 2 * c12, 2 * s1 + 2 * s12]),
        "J": np.array(
            [[0, 0], [-2 * s1 - 2 * s12, -2 * s12], [2 * c1 + 2 * c12, 2 * c12], [1, 1], [0, 0], [0, 0]],
            dtype=float,
        ),
        "M": np.array(
            [
                [
                    3 + (2 * s1 + s12) ** 2 + (2 * c1 + c12) ** 2,
                    1 + s12 * (2 * s1 + s12) + c12 * (2 * c1 + c12),
                ],
                [1 + s12 * (2 * s1 + s12) + c12 * (2 * c1 + c12), 2.0],
            ]
        ),
        "com": np.array([0.0, 1.5 * c1 + 0.5 * c12, 1.5 * s1 + 0.5 * s12]),
        "Jcom": np.array([[0, 0], [-1.5 * s1 - 0.5 * s12, -0.5 * s12], [1.5 * c1 + 0.5 * c12, 0.5 * c12]]),
        # COMs at z1 = s1 and z2 = 2 s1 + s12: V = g (3 s1 + s12)
        "g": G * np.array([3 * c1 + c12, c12]),
        # M11 = 8 + 4 c2, M12 = 2 + 2 c2
        "b": np.array([-4 * s2 * v1 * v2 - 2 * s2 * v2**2, 2 * s2 * v1**2]),
    }


def _rp_unit_mass(q1: float, q2: float, v1: float, v2: float) -> dict[str, np.ndarray]:
    c1, s1 = math.cos(q1), math.sin(q1)
    return {
        "tip": np.array([0.0, c1 - s1 * q2, s1 + c1 * q2]),
        "J": np.array(
            [[0, 0], [-s1 - c1 * q2, -s1], [c1 - s1 * q2, c1], [1, 0], [0, 0], [0, 0]], dtype=float
        ),
        "M": np.array(
            [
                [1 + (s1 + c1 * q2) ** 2 + (c1 - s1 * q2) ** 2, s1 * (s1 + c1 * q2) + c1 * (c1 - s1 * q2)],
                [s1 * (s1 + c1 * q2) + c1 * (c1 - s1 * q2), 1.0],
            ]
        ),
        "com": np.array([0.0, c1 - 0.5 * s1 * q2, s1 + 0.5 * c1 * q2]),
        "Jcom": np.array([[0, 0], [-s1 - 0.5 * c1 * q2, -0.5 * s1], [c1 - 0.5 * s1 * q2, 0.5 * c1]]),
        # V = g (s1 + s1 + c1 q2)
        "g": G * np.array([2 * c1 - s1 * q2, c1]),
        # M11 = 2 + q2², M12 = 1
        "b": np.array([2 * q2 * v1 * v2, -q2 * v1**2]),
    }


ROBOTS: dict[str, Callable[[float, float, float, float], dict[str, np.ndarray]]] = {
    "rr_unit_mass": _rr_unit_mass,
    "rr_unit_inertia": _rr_unit_inertia,
    "rp_unit_mass": _rp_unit_mass,
}
#: node 1 origin → tip, in node 1's frame
TIP_OFFSET = {
    "rr_unit_mass": (0.0, 1.0, 0.0),
    "rr_unit_inertia": (0.0, 2.0, 0.0),
    "rp_unit_mass": (0.0, 0.0, 0.0),
}


@pytest.fixture(scope="module", params=sorted(ROBOTS))
def planar(request: pytest.FixtureRequest, robots_dir: Path) -> tuple[str, RobotModel, jspace.Model]:
    name = request.param
    robot = RobotModel.from_urdf(robots_dir / f"{name}.urdf")
    return name, robot, jspace.Model(robot)


def test_robot_model_matches_closed_forms(planar: tuple[str, RobotModel, jspace.Model]) -> None:
    name, robot, _ = planar
    for k, (q1, q2) in enumerate(GRID):
        v = (0.3 * k - 2.0, 1.7 - 0.2 * k)
        ref = ROBOTS[name](q1, q2, *v)
        robot.update([q1, q2], v)
        np.testing.assert_allclose(robot.frame_placement("tip").translation, ref["tip"], atol=TOL)
        np.testing.assert_allclose(robot.frame_jacobian("tip"), ref["J"], atol=TOL)
        np.testing.assert_allclose(robot.mass_matrix(), ref["M"], atol=TOL)
        np.testing.assert_allclose(robot.inverse_mass_matrix(), np.linalg.inv(ref["M"]), atol=TOL)
        np.testing.assert_allclose(robot.gravity(), ref["g"], atol=TOL)
        np.testing.assert_allclose(robot.coriolis_centrifugal(), ref["b"], atol=TOL)
        np.testing.assert_allclose(robot.nonlinear_effects(), ref["b"] + ref["g"], atol=TOL)
        np.testing.assert_allclose(robot.com(), ref["com"], atol=TOL)
        np.testing.assert_allclose(robot.com_jacobian(), ref["Jcom"], atol=TOL)


def test_jspace_matches_closed_forms(planar: tuple[str, RobotModel, jspace.Model]) -> None:
    name, _, model = planar
    assert model.getNDOF() == model.getNNodes() == model.getNJoints() == 2
    for k, (q1, q2) in enumerate(GRID):
        v = (1.1 - 0.1 * k, 0.05 * k)
        ref = ROBOTS[name](q1, q2, *v)
        model.update(jspace.State([q1, q2], v))
        tip = model.computeGlobalFrame(1, *TIP_OFFSET[name]).translation
        np.testing.assert_allclose(tip, ref["tip"], atol=TOL)
        np.testing.assert_allclose(model.computeJacobian(1, *tip), ref["J"], atol=TOL)
        np.testing.assert_allclose(model.computeJacobian(model.getNode(1), tip), ref["J"], atol=TOL)
        np.testing.assert_allclose(model.getMassInertia(), ref["M"], atol=TOL)
        np.testing.assert_allclose(model.getInverseMassInertia(), np.linalg.inv(ref["M"]), atol=TOL)
        np.testing.assert_allclose(model.getGravity(), ref["g"], atol=TOL)
        np.testing.assert_allclose(model.getCoriolisCentrifugal(), ref["b"], atol=TOL)
        com, jcom = model.computeCOM(True)
        np.testing.assert_allclose(com, ref["com"], atol=TOL)
        np.testing.assert_allclose(model.computeCOM(), ref["com"], atol=TOL)
        np.testing.assert_allclose(jcom, ref["Jcom"], atol=TOL)


def test_jspace_node_frames_rr_unit_mass(robots_dir: Path) -> None:
    """Node origins and COM frames: node 0 at the origin rotated by q1 about x, node 1 at (0, c1, s1)."""
    model = jspace.Model.from_urdf(robots_dir / "rr_unit_mass.urdf")
    for q1, q2 in GRID[:12]:
        model.update(jspace.State([q1, q2]))
        c1, s1, c12, s12 = math.cos(q1), math.sin(q1), math.cos(q1 + q2), math.sin(q1 + q2)
        f0, f1 = model.getGlobalFrame(0), model.getGlobalFrame(model.getNodeByName("link2"))
        np.testing.assert_allclose(f0.translation, 0.0, atol=TOL)
        np.testing.assert_allclose(f0.rotation, pin.utils.rotate("x", q1), atol=TOL)
        np.testing.assert_allclose(f1.translation, [0.0, c1, s1], atol=TOL)
        np.testing.assert_allclose(f1.rotation, pin.utils.rotate("x", q1 + q2), atol=TOL)
        np.testing.assert_allclose(model.computeGlobalCOMFrame(0).translation, [0.0, c1, s1], atol=TOL)
        com1 = model.computeGlobalCOMFrame(1)
        np.testing.assert_allclose(com1.translation, [0.0, c1 + c12, s1 + s12], atol=TOL)
        np.testing.assert_allclose(com1.rotation, pin.utils.rotate("x", q1 + q2), atol=TOL)
        # the Jacobian at node 1's origin: columns ω × (o1 − axis point), only joint 1 moves it
        np.testing.assert_allclose(model.computeJacobian(1)[:3, 0], [0.0, -s1, c1], atol=TOL)
        np.testing.assert_allclose(model.computeJacobian(1)[:3, 1], 0.0, atol=TOL)


# ---------------------------------------------------------------------------------------------- PUMA 560
#: spec /work/shared/specs/puma560.md: node -> (quaternion x y z w, translation) at q = 0
PUMA_Q0 = {
    0: ((0, 0, 0, 1), (0, 0, 0)),
    1: ((-0.707107, 0, 0, 0.707107), (0, 0.2435, 0)),
    2: ((-0.707107, 0, 0, 0.707107), (0.4318, 0.1501, 0)),
    3: ((0, 0, 0, 1), (0.4115, 0.1501, 0.4331)),
    4: ((-0.707107, 0, 0, 0.707107), (0.4115, 0.1501, 0.4331)),
    5: ((0, 0, 0, 1), (0.4115, 0.1501, 0.4331)),
}
#: spec: q1 = 0.7854 (first joint), translations of nodes 1 and 3..5
PUMA_Q1 = {1: (-0.172181, 0.17218, 0), 3: (0.184837, 0.397112, 0.4331)}
ANGLE_TOL = math.radians(0.15)


def _angle_between(r_a: np.ndarray, r_b: np.ndarray) -> float:
    return float(np.linalg.norm(pin.log3(r_a.T @ r_b)))


@pytest.fixture(scope="module")
def puma(robots_dir: Path) -> jspace.Model:
    return jspace.Model.from_urdf(robots_dir / "puma560.urdf")


def test_puma_reference_frames_at_zero(puma: jspace.Model) -> None:
    puma.update(jspace.State(np.zeros(6)))
    for node, (quat, trans) in PUMA_Q0.items():
        frame = puma.getGlobalFrame(node)
        expected = pin.Quaternion(np.array(quat, dtype=float)).normalized().matrix()
        assert _angle_between(frame.rotation, expected) <= ANGLE_TOL, node
        np.testing.assert_allclose(frame.translation, trans, atol=1e-6, err_msg=f"node {node}")


def test_puma_reference_frames_first_joint_rotated(puma: jspace.Model) -> None:
    puma.update(jspace.State([0.7854, 0, 0, 0, 0, 0]))
    for node, trans in PUMA_Q1.items():
        np.testing.assert_allclose(puma.getGlobalFrame(node).translation, trans, atol=1e-6)
    for node in (4, 5):  # nodes 3..5 share their origin
        np.testing.assert_allclose(puma.getGlobalFrame(node).translation, PUMA_Q1[3], atol=1e-6)
    # the first joint turns about the world z axis through the origin: every q = 0 frame turns with it
    rz = pin.utils.rotate("z", 0.7854)
    for node, (quat, trans) in PUMA_Q0.items():
        frame = puma.getGlobalFrame(node)
        expected = rz @ pin.Quaternion(np.array(quat, dtype=float)).normalized().matrix()
        assert _angle_between(frame.rotation, expected) <= ANGLE_TOL, node
        np.testing.assert_allclose(frame.translation, rz @ np.array(trans), atol=1e-6)


def test_puma_nodes_match_spec_table(puma: jspace.Model) -> None:
    spec = [  # joint, link, mass, (Ixx, Iyy, Izz), com
        ("shoulder-yaw", "base", 34.40, (0, 0, 1.49), (0, 0, 0)),
        ("shoulder-pitch", "upper_arm", 17.40, (0.13, 0.524, 5.249), (0.068, 0.006, -0.016)),
        ("elbow", "lower_arm", 6.04, (0.192, 0.0154, 1.042), (0, -0.143, 0.014)),
        ("wrist-roll1", "wrist-hand", 0.82, (0.0018, 0.0018, 0.2013), (0, 0, -0.019)),
        ("wrist-pitch", "wrist-finger", 0.34, (0.0003, 0.0003, 0.1794), (0, 0, 0)),
        ("wrist-roll2", "end-effector", 0.09, (0.00015, 0.00015, 0.19304), (0, 0, 0.032)),
    ]
    for i, (joint, link, mass, diag, com) in enumerate(spec):
        node = puma.getNode(i)
        assert (node.id, node.joint_name, node.name, node.parent_id) == (i, joint, link, i - 1)
        assert puma.getJointName(i) == joint and puma.getNodeName(i) == link
        assert puma.getNodeByJointName(joint) is node and puma.getNodeByName(link) is node
        assert node.mass == pytest.approx(mass, abs=1e-12)
        np.testing.assert_allclose(node.inertia, np.diag(diag), atol=1e-12)
        np.testing.assert_allclose(node.com, com, atol=1e-12)
