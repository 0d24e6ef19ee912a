"""``scene.set_com_polygon``: the COM's ground projection at the end of the step stays in a convex polygon.

Oracles: a COM reference outside the polygon ends on its boundary at the closed-form Euclidean projection
of the reference (the nearest point of the nearest edge, computed here by hand for a rectangle), after
integrating one step with raw Pinocchio (``pin.integrate``, ``pin.centerOfMass``); the scenes' first-order
prediction meets it to rounding, the integrated state to the step's curvature (≤ 1e-4 m here).
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pinocchio as pin
import pytest
from _contact_oracle import TALOS_SOLE, OracleContact, talos_half_sitting
from _id_helpers import SOLES, actuated_joints, check_physics

from wbcpy import load_robot
from wbcpy.errors import ConfigError
from wbcpy.limits.com_polygon import ComPolygon
from wbcpy.scenes import AccelerationScene, InverseDynamicsScene, SurfaceContact, VelocityScene
from wbcpy.tasks import ComReference, JointReference


def _raw_com(robot, q) -> np.ndarray:
    return np.asarray(pin.centerOfMass(robot.model, robot.model.createData(), q), dtype=float)


def _rectangle(c: np.ndarray, dx: tuple[float, float], dy: tuple[float, float]) -> list[list[float]]:
    x0, x1 = c[0] + dx[0], c[0] + dx[1]
    y0, y1 = c[1] + dy[0], c[1] + dy[1]
    return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]


def _clamp(p: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The closed-form projection onto the rectangle [lo, hi] (componentwise clamp)."""
    return np.minimum(np.maximum(p, lo), hi)


# ---------------------------------------------------------------------------------------- the polygon
@pytest.mark.parametrize(
    ("vertices", "margin", "field"),
    [
        ([[0, 0], [1, 0]], 0.0, "vertices"),
        ([[0, 0], [1, 0], [1, np.nan]], 0.0, "vertices"),
        ([[0, 0], [1, 0], [1, np.inf]], 0.0, "vertices"),
        ([0, 1, 2, 3], 0.0, "vertices"),
        ("square", 0.0, "vertices"),
        ([[0, 0], [2, 0], [1, 0.2], [2, 2], [0, 2]], 0.0, "vertices"),  # a reflex vertex
        ([[0, 0], [1, 0], [2, 0], [1, 1]], 0.0, "vertices"),  # three collinear
        ([[0, 0], [1, 0], [1, 0], [0, 1]], 0.0, "vertices"),  # a repeated vertex
        ([[np.cos(a), np.sin(a)] for a in np.arange(5) * 4 * np.pi / 5], 0.0, "vertices"),  # a pentagram
        ([[0, 0], [1, 0], [1, 1], [0, 1]], -0.1, "margin"),
        ([[0, 0], [1, 0], [1, 1], [0, 1]], 0.5, "margin"),  # = the inradius: nothing left
        ([[0, 0], [1, 0], [1, 1], [0, 1]], np.nan, "margin"),
        ([[0, 0], [1, 0], [1, 1], [0, 1]], True, "margin"),
    ],
)
def test_bad_polygons_are_refused_and_change_nothing(vertices, margin, field) -> None:
    robot = load_robot("lwr4")
    scene = VelocityScene(robot)
    scene.set_com_polygon([[0, 0], [1, 0], [1, 1], [0, 1]], 0.1)
    kept = scene.com_polygon
    with pytest.raises(ConfigError) as info:
        scene.set_com_polygon(vertices, margin)
    assert info.value.field == field
    assert scene.com_polygon is kept


def test_either_orientation_and_the_closed_form_projection() -> None:
    ccw = ComPolygon([[0, 0], [2, 0], [2, 1], [0, 1]], 0.1)
    cw = ComPolygon([[0, 1], [2, 1], [2, 0], [0, 0]], 0.1)
    assert ccw.inradius == pytest.approx(0.5)
    for p in ([3.0, 0.5], [-1.0, 2.0], [1.0, 0.5], [1.0, -4.0]):
        want = _clamp(np.array(p), np.array([0.1, 0.1]), np.array([1.9, 0.9]))
        np.testing.assert_allclose(ccw.project(p), want, atol=1e-12)
        np.testing.assert_allclose(cw.project(p), want, atol=1e-12)
    triangle = ComPolygon([[0, 0], [1, 0], [0, 1]])
    np.testing.assert_allclose(triangle.project([1.0, 1.0]), [0.5, 0.5], atol=1e-12)  # onto the hypotenuse


# ---------------------------------------------------------------------------------------- the scenes
def test_velocity_scene_stops_the_com_on_the_edge() -> None:
    robot = load_robot("lwr4", floating_base=True)
    q = robot.neutral()
    robot.update(q)
    c = _raw_com(robot, q)
    dt = 0.01
    scene = VelocityScene(robot, dt=dt, joint_limits=False, velocity_limits=False)
    scene.configure([{"name": "com", "type": "com"}])
    scene.set_com_polygon(_rectangle(c, (-0.1, 0.004), (-0.1, 0.1)), margin=0.001)
    target = c + np.array([0.01, 0.002, -0.003])  # 7 mm beyond the shrunk edge in x
    scene.set_reference("com", ComReference(velocity=(target - c) / dt))
    scene.solve(scene.update())
    qd = scene.get_solver_output_raw()
    edge = _clamp(target[:2], c[:2] - 0.099, c[:2] + np.array([0.003, 0.099]))
    J = pin.jacobianCenterOfMass(robot.model, robot.model.createData(), q)
    np.testing.assert_allclose(c[:2] + dt * J[:2] @ qd, edge, atol=1e-9)  # the rows' first-order model
    after = _raw_com(robot, pin.integrate(robot.model, q, qd * dt))
    np.testing.assert_allclose(after[:2], edge, atol=1e-4)
    assert after[2] == pytest.approx(target[2], abs=1e-4)  # (the height is free)


def test_acceleration_scene_stops_the_com_on_the_edge() -> None:
    robot = load_robot("lwr4", floating_base=True)
    q, v = robot.neutral(), np.zeros(robot.nv)
    v[0] = 0.05  # moving towards the edge already
    robot.update(q, v)
    c = _raw_com(robot, q)
    dt = 0.01
    scene = AccelerationScene(robot, dt=dt)
    scene.configure([{"name": "com", "type": "com"}])
    scene.set_com_polygon(_rectangle(c, (-0.1, 0.002), (-0.1, 0.1)))
    target = c + np.array([0.006, -0.003, 0.0])
    data = robot.model.createData()
    J = pin.jacobianCenterOfMass(robot.model, data, q)
    cdot = J @ v
    scene.set_reference("com", ComReference((target - c - dt * cdot) / dt**2))
    scene.solve(scene.update())
    qdd = scene.get_solver_output_raw()
    edge = _clamp(target[:2], c[:2] - 0.1, c[:2] + np.array([0.002, 0.1]))
    np.testing.assert_allclose(c[:2] + dt * J[:2] @ (v + dt * qdd), edge, atol=1e-9)
    v_next = v + dt * qdd  # semi-implicit Euler
    after = _raw_com(robot, pin.integrate(robot.model, q, v_next * dt))
    np.testing.assert_allclose(after[:2], edge, atol=1e-4)


def test_inverse_dynamics_scene_stops_the_com_on_the_edge() -> None:
    robot, q = talos_half_sitting()
    v = np.zeros(robot.nv)
    robot.update(q, v)
    c = _raw_com(robot, q)
    dt = 0.02
    scene = InverseDynamicsScene(robot, dt=dt)
    scene.set_contacts([SurfaceContact(f, half_size=TALOS_SOLE, mu=0.3) for f in SOLES])
    joints = actuated_joints(robot)
    weak = [1e-3] * len(joints)
    scene.configure([
        {"name": "com", "type": "com"},
        {"name": "posture", "type": "jnt", "joint_names": joints, "priority": 1, "weights": weak},
    ])  # fmt: skip
    scene.set_com_polygon(_rectangle(c, (-0.05, 0.0005), (-0.05, 0.05)))
    target = c + np.array([0.0008, 0.0, 0.0])  # 0.3 mm beyond the edge: 2 m/s², within the friction
    scene.set_reference("com", ComReference((target - c) / dt**2))
    scene.set_reference("posture", JointReference(np.zeros(len(joints))))
    scene.solve(scene.update())
    qdd = scene.get_solver_output_raw()
    check_physics(robot, scene, q, v, [OracleContact(f, 0.3, TALOS_SOLE) for f in SOLES])
    J = pin.jacobianCenterOfMass(robot.model, robot.model.createData(), q)
    np.testing.assert_allclose(c[:2] + dt * dt * J[:2] @ qdd, c[:2] + np.array([0.0005, 0.0]), atol=1e-9)


def test_copies_pickles_and_clear() -> None:
    robot = load_robot("lwr4", floating_base=True)
    q = robot.neutral()
    robot.update(q)
    c = _raw_com(robot, q)
    scene = VelocityScene(robot, dt=0.01, joint_limits=False, velocity_limits=False)
    scene.configure([{"name": "com", "type": "com"}])
    scene.set_com_polygon(_rectangle(c, (-0.1, 0.001), (-0.1, 0.1)))
    scene.set_reference("com", ComReference(velocity=[1.0, 0.0, 0.0]))
    scene.solve(scene.update())
    answer = scene.get_solver_output_raw()
    for other in (copy.deepcopy(scene), pickle.loads(pickle.dumps(scene))):
        other.robot.update(q)
        other.solve(other.update())
        np.testing.assert_allclose(other.get_solver_output_raw(), answer, atol=1e-9)
        other.clear_com_polygon()
        assert scene.com_polygon is not None
    scene.clear_com_polygon()
    scene.solve(scene.update())
    free = scene.get_solver_output_raw()
    J = pin.jacobianCenterOfMass(robot.model, robot.model.createData(), q)
    np.testing.assert_allclose(J @ free, [1.0, 0.0, 0.0], atol=1e-7)
