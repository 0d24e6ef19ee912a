"""Where the camera of a 3-D view looks from: frame every point of interest from the front right, above.

meshcat's viewer is y-up (three.js) inside a z-up world: the camera hangs under ``/Cameras/default/rotated``,
whose axes are (x, z, −y) of the world, so a world point (x, y, z) is (x, z, −y) there. The camera's orbit
controls always look at a point given in those coordinates too, the origin unless the page moves it; only a
page of our own can move it (:mod:`wbcpy.viz.page` does), a live meshcat page looks at the world origin.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

#: vertical field of view of meshcat's default camera (degrees)
FOV_DEG = 75.0
#: viewing direction, from the target towards the camera (world axes; robots usually face +x)
_DIRECTION = np.array([1.0, 0.7, 0.45]) / np.linalg.norm([1.0, 0.7, 0.45])


def camera_view(
    points: np.ndarray, about_origin: bool = False, margin: float = 0.1
) -> tuple[np.ndarray, np.ndarray]:
    """Camera target and position (world, m) that keep a sphere around ``points`` (K×3) in view.

    The target is the centre of the points' bounding box (the origin with ``about_origin``); the sphere
    is centred there and holds every point with ``margin`` (m) to spare, for the bodies around the points.
    The camera is on :data:`_DIRECTION` at the distance where the sphere fills 70 % of the vertical field
    of view: d = r / sin(0.7 · FOV / 2).
    """
    p = np.asarray(points, dtype=float).reshape(-1, 3)
    target = np.zeros(3) if about_origin else 0.5 * (p.min(axis=0) + p.max(axis=0))
    radius = float(np.linalg.norm(p - target, axis=1).max()) + margin
    distance = radius / math.sin(math.radians(0.7 * FOV_DEG / 2.0))
    return target, target + distance * _DIRECTION


def three_coordinates(point: Iterable[float]) -> list[float]:
    """A world point (z up) in the viewer's y-up coordinates: (x, z, −y)."""
    x, y, z = (float(v) for v in point)
    return [x, z, -y]


def set_camera(viewer: Any, position: np.ndarray) -> None:
    """Put meshcat's default camera of ``viewer`` (a ``meshcat.Visualizer``) at a world ``position``."""
    viewer["/Cameras/default/rotated/<object>"].set_property("position", three_coordinates(position))


def lowest_point(data: Any, visual: Any, visual_data: Any) -> float:
    """The lowest height (world z, m) of a posed robot: the lowest corner of every visual geometry's
    bounding box (its local axis-aligned box moved by the geometry's placement ``visual_data.oMg``), or
    the lowest frame origin (``data.oMf``) when the robot has no visual geometry whose box can be computed.

    Call it after the placements were updated (``MeshcatVisualizer.display(q)``).
    """
    lows: list[float] = []
    corners = np.array([[i, j, k] for i in (0, 1) for j in (0, 1) for k in (0, 1)], dtype=float)
    for g, obj in enumerate(visual.geometryObjects):
        shape: Any = getattr(obj, "geometry", None)
        try:
            shape.computeLocalAABB()
            box = shape.aabb_local
            lo, hi = np.asarray(box.min_, dtype=float), np.asarray(box.max_, dtype=float)
        except (AttributeError, RuntimeError, TypeError):
            continue
        if not (np.isfinite(lo).all() and np.isfinite(hi).all()):
            continue
        placement = visual_data.oMg[g]
        points = lo + corners * (hi - lo)
        lows.append(float((points @ placement.rotation.T + placement.translation)[:, 2].min()))
    if not lows:
        lows = [float(M.translation[2]) for M in data.oMf]
    return min(lows) if lows else 0.0


def place_ground(viewer: Any, height: float) -> None:
    """Move meshcat's ground grid (``/Grid``, drawn at z = 0) to world height ``height`` (m)."""
    transform = np.eye(4)
    transform[2, 3] = height
    viewer["/Grid"].set_transform(transform)
