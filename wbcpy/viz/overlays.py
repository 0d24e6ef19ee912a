"""What a 3-D view draws besides the robot: paths as tubes, point markers and world obstacles.

Paths are drawn as thin tubes (WebGL ignores line widths, a 1-pixel line is hard to see). Obstacles are
Pinocchio geometry objects fixed to the universe, drawn by Pinocchio's ``MeshcatVisualizer`` like robot
geometry; accepted forms:

* a ``pin.GeometryObject`` (its ``placement`` is the pose in the world);
* any object with ``name``, ``placement`` (``pin.SE3``, world) and ``shape`` whose ``to_coal()`` gives a coal
  geometry (the obstacles of :mod:`wbcpy`'s collision avoidance have this form);
* a ``(name, coal_geometry, placement)`` tuple.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pinocchio as pin

from ..errors import InvalidValueError

#: colour of obstacles (translucent red)
OBSTACLE_RGBA = (0.85, 0.2, 0.2, 0.45)
_SIDES = 8


def tube_object(points: np.ndarray, radius: float, color: int) -> Any:
    """A meshcat mesh of a tube of ``radius`` (m) along the polyline ``points`` (M×3, world, m).

    One open prism of :data:`_SIDES` sides per segment; segments shorter than 1e-9 m are dropped.
    """
    import meshcat.geometry as mg

    p = np.asarray(points, dtype=float)
    d = np.diff(p, axis=0)
    length = np.linalg.norm(d, axis=1)
    keep = length > 1e-9
    start, d, length = p[:-1][keep], d[keep], length[keep]
    if start.shape[0] == 0:  # a single point: a sphere-sized stub so it still shows
        start, d, length = p[:1], np.array([[0.0, 0.0, radius]]), np.array([radius])
    axis = d / length[:, None]
    helper = np.where(np.abs(axis[:, 2:3]) < 0.9, [[0.0, 0.0, 1.0]], [[1.0, 0.0, 0.0]])
    u = np.cross(axis, helper)
    u /= np.linalg.norm(u, axis=1)[:, None]
    v = np.cross(axis, u)
    angle = 2.0 * np.pi * np.arange(_SIDES) / _SIDES
    cos, sin = np.cos(angle)[None, :, None], np.sin(angle)[None, :, None]
    ring = radius * (cos * u[:, None, :] + sin * v[:, None, :])
    first = start[:, None, :] + ring
    second = (start + d)[:, None, :] + ring
    n = start.shape[0]
    vertices = np.concatenate([first, second], axis=1).reshape(-1, 3)
    base = (2 * _SIDES * np.arange(n))[:, None]
    k = np.arange(_SIDES)[None, :]
    a, b = base + k, base + (k + 1) % _SIDES
    c, e = a + _SIDES, b + _SIDES
    faces = np.concatenate([np.stack([a, b, e], -1), np.stack([a, e, c], -1)], axis=1).reshape(-1, 3)
    material = mg.MeshLambertMaterial(color=color)
    return mg.Mesh(mg.TriangularMeshGeometry(vertices.astype(np.float32), faces.astype(np.uint32)), material)


def sphere_object(radius: float, color: int, opacity: float = 1.0) -> Any:
    """A meshcat sphere of ``radius`` (m)."""
    import meshcat.geometry as mg

    material = mg.MeshLambertMaterial(color=color, opacity=opacity, transparent=opacity < 1.0)
    return mg.Mesh(mg.Sphere(radius), material)


def _geometry_object(item: Any, index: int) -> pin.GeometryObject:
    where = f"obstacles[{index}]"
    if isinstance(item, pin.GeometryObject):
        obj = pin.GeometryObject(item)
    elif isinstance(item, tuple) and len(item) == 3:
        name, geometry, placement = item
        obj = pin.GeometryObject(str(name), 0, pin.SE3(placement), geometry)
    elif all(hasattr(item, a) for a in ("name", "shape", "placement")) and hasattr(item.shape, "to_coal"):
        obj = pin.GeometryObject(str(item.name), 0, pin.SE3(item.placement), item.shape.to_coal())
    else:
        raise InvalidValueError(
            where,
            "an obstacle",
            type(item).__name__,
            reason=f"expected a pin.GeometryObject, an obstacle (name, shape, placement) or a "
            f"(name, coal geometry, pin.SE3) tuple, got {type(item).__name__}",
        )
    if not np.isfinite(obj.placement.homogeneous).all():
        raise InvalidValueError(where, "a finite placement", None, reason="placement contains NaN or inf")
    obj.parentJoint = 0
    obj.meshColor = np.array(OBSTACLE_RGBA)
    return obj


def obstacle_model(obstacles: Iterable[Any]) -> pin.GeometryModel:
    """A geometry model of the obstacles, fixed to the universe (joint 0), in :data:`OBSTACLE_RGBA`.

    Raises:
        InvalidValueError: an item of an unsupported type, a non-finite placement or a repeated name.
    """
    model = pin.GeometryModel()
    seen: set[str] = set()
    for i, item in enumerate(obstacles):
        obj = _geometry_object(item, i)
        if obj.name in seen:
            raise InvalidValueError(f"obstacles[{i}]", "a unique name", obj.name, reason="repeated name")
        seen.add(obj.name)
        model.addGeometryObject(obj)
    return model
