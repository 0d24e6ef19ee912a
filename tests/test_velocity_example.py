"""examples/velocity_obstacle.py: the Panda's hand reaches its goal around a ball on its straight path.

The distance between the ball and every collision mesh of the Panda is computed independently of coal
and of the scene: the convex hull of the mesh's vertices (scipy's Qhull) and the exact point–polytope
distance by a QP solved with quadprog, along the whole recorded path.
"""

from __future__ import annotations

import runpy
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "velocity_obstacle.py"


def _hulls(robot) -> list[tuple[int, pin.SE3, np.ndarray, np.ndarray]]:
    """(parent joint, placement in the joint, facet normals A, offsets b with A x + b ≤ 0 inside, vertices)
    of every collision mesh (or box) of a moving link, in the geometry's frame."""
    from scipy.spatial import ConvexHull

    dirs = [str(p) for p in robot.package_dirs]
    geom = pin.buildGeomFromUrdf(
        robot.model, str(robot.urdf_path), pin.GeometryType.COLLISION, package_dirs=dirs
    )
    out = []
    for obj in geom.geometryObjects:
        if obj.parentJoint == 0:
            continue
        shape = obj.geometry
        if hasattr(shape, "halfSide"):  # the fingers' boxes: their 8 corners
            corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)
            vertices = corners * np.asarray(shape.halfSide)
        else:
            vertices = np.asarray(shape.vertices()) * obj.meshScale
        hull = ConvexHull(vertices)
        out.append((obj.parentJoint, obj.placement, hull.equations[:, :3], hull.equations[:, 3], vertices))
    return out


def _distance_to_hull(A: np.ndarray, b: np.ndarray, vertices: np.ndarray, point: np.ndarray) -> float:
    """Euclidean distance from ``point`` to the polytope {x: A x + b ≤ 0} (0 inside), by quadprog."""
    import quadprog

    if np.all(A @ point + b <= 0.0):
        return 0.0
    # min ½|x|² − pᵀx  s.t.  −A x ≥ b
    x = quadprog.solve_qp(np.eye(3), point.copy(), -A.T.copy(), b.copy())[0]
    assert np.all(A @ x + b <= 1e-9)
    return float(np.linalg.norm(x - point))


def test_hand_goes_around_the_ball_and_reaches_its_goal(example_robot) -> None:
    robot = example_robot("panda")
    result = runpy.run_path(str(EXAMPLE))["main"](steps=400, verbose=False)
    assert result["position_error"] < 1e-3 and result["rotation_error"] < 1e-3
    ball = result["ball"]
    centre, radius = ball.placement.translation, ball.shape.radius
    start, goal = result["start"].translation, result["goal"].translation
    # the ball is on the hand's straight start–goal path
    t = np.clip((centre - start) @ (goal - start) / ((goal - start) @ (goal - start)), 0.0, 1.0)
    assert np.linalg.norm(start + t * (goal - start) - centre) < radius
    model, data = robot.model, robot.model.createData()
    hulls = _hulls(robot)
    closest = np.inf
    for q in result["q_path"]:
        pin.forwardKinematics(model, data, q)
        for joint, placement, A, b, vertices in hulls:
            M = data.oMi[joint] * placement
            local = M.actInv(centre)
            bound = (
                np.linalg.norm(local - vertices.mean(axis=0))
                - np.linalg.norm(vertices - vertices.mean(axis=0), axis=1).max()
            )  # triangle inequality: a lower bound of the distance to the hull
            if bound - radius > 0.03:
                closest = min(closest, bound - radius)
                continue
            closest = min(closest, _distance_to_hull(A, b, vertices, local) - radius)
    assert closest >= 0.02 - 1e-3  # the example's safety distance, minus 1 mm
    assert closest < 0.03  # and the hand did pass close to the ball
    assert result["closest_distance"] == pytest.approx(closest, abs=2e-3)
