"""The COM inside a convex support polygon: hard rows that keep the COM's ground projection inside a
convex polygon, shrunk by a margin, at the end of the next control step.

The polygon (world x, y; m) is kept as half-planes nᵢᵀ p ≤ dᵢ (nᵢ the unit outward normal of edge i),
shrunk by the margin m: nᵢᵀ p ≤ dᵢ − m. With c the COM, J its Jacobian (world axes; the x, y rows
J_xy) and dt the step, the COM's ground projection at the end of the step is, to first order in the step,

* velocity level (q ← q ⊕ q̇ dt): c_xy + dt J_xy q̇, so the rows are
  ``dt nᵢᵀ J_xy q̇ ≤ dᵢ − m − nᵢᵀ c_xy``;
* acceleration level, integrated semi-implicitly (v ← v + q̈ dt, q ← q ⊕ v dt):
  c_xy + dt J_xy (v + q̈ dt), so the rows are ``dt² nᵢᵀ J_xy q̈ ≤ dᵢ − m − nᵢᵀ (c_xy + dt J_xy v)``.

The rows are hard (inequalities of the first level, so they hold at every level): when the COM cannot be
brought inside within one step under the scene's other constraints, the solve fails with
:class:`~wbcpy.errors.QPSolveError`. The polygon is validated when it is set: at least 3 finite vertices
(either orientation) forming a strictly convex, simple polygon, and a margin ≥ 0 smaller than the radius
of the largest circle inside it (the shrunk polygon is then not empty).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import linprog

from ..errors import ConfigError, safe_repr

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel


def _vertices(vertices: Any) -> NDArray[np.float64]:
    """k × 2 finite vertices, k ≥ 3."""
    if isinstance(vertices, (str, bytes)):
        raise ConfigError("vertices", f"expected k × 2 numbers (x, y in m), got {safe_repr(vertices)}")
    try:
        v = np.array(vertices, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise ConfigError(
            "vertices", f"expected k × 2 numbers (x, y in m), got {safe_repr(vertices)}"
        ) from None
    if v.ndim != 2 or v.shape[1] != 2 or v.shape[0] < 3:
        raise ConfigError(
            "vertices", f"expected at least 3 vertices of 2 numbers (x, y), got shape {v.shape}"
        )
    if not np.isfinite(v).all():
        raise ConfigError("vertices", "vertices must be finite")
    return v


def _half_planes(v: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Unit outward normals (k × 2) and offsets (k) of a strictly convex simple polygon (either
    orientation).

    Raises:
        ConfigError: a repeated vertex, three collinear consecutive vertices, a turn the other way
            (not convex) or a polygon that winds more than once (not simple).
    """
    edges = np.roll(v, -1, axis=0) - v
    lengths = np.linalg.norm(edges, axis=1)
    scale = float(np.abs(v).max()) + 1.0
    if (lengths <= 1e-12 * scale).any():
        raise ConfigError("vertices", "two consecutive vertices coincide")
    turns = edges[:, 0] * np.roll(edges, -1, axis=0)[:, 1] - edges[:, 1] * np.roll(edges, -1, axis=0)[:, 0]
    sign = 1.0 if turns.sum() > 0.0 else -1.0
    if (sign * turns <= 1e-12 * scale * scale).any():
        raise ConfigError(
            "vertices", "the polygon must be convex, without three collinear consecutive vertices"
        )
    angles = np.arctan2(turns, (edges * np.roll(edges, -1, axis=0)).sum(axis=1))
    if abs(abs(angles.sum()) - 2.0 * math.pi) > 1e-6:
        raise ConfigError(
            "vertices", "the polygon winds more than once (a star): give a simple convex polygon"
        )
    # outward normal of a counter-clockwise edge (ex, ey): (ey, −ex)
    normals = sign * np.column_stack((edges[:, 1], -edges[:, 0])) / lengths[:, None]
    return normals, (normals * v).sum(axis=1)


def _inradius(normals: NDArray[np.float64], offsets: NDArray[np.float64]) -> float:
    """The radius of the largest circle inside {p : nᵢᵀ p ≤ dᵢ} (a linear programme: max r subject to
    nᵢᵀ p + r ≤ dᵢ)."""
    k = normals.shape[0]
    res = linprog([0.0, 0.0, -1.0], A_ub=np.column_stack((normals, np.ones(k))), b_ub=offsets,
                  bounds=[(None, None), (None, None), (0.0, None)], method="highs")  # fmt: skip
    return float(-res.fun) if res.status == 0 else 0.0


def _corners(normals: NDArray[np.float64], offsets: NDArray[np.float64]) -> NDArray[np.float64]:
    """The vertices of the (non-empty) polygon {p : nᵢᵀ p ≤ dᵢ}, counter-clockwise (an edge of a shrunk
    polygon may vanish: the corners are the pairwise intersections that meet every half-plane)."""
    k = normals.shape[0]
    points = []
    for i in range(k):
        for j in range(i + 1, k):
            A = np.array((normals[i], normals[j]))
            if abs(np.linalg.det(A)) < 1e-12:
                continue
            p = np.linalg.solve(A, np.array((offsets[i], offsets[j])))
            if (normals @ p <= offsets + 1e-12 * (1.0 + np.abs(offsets).max())).all():
                points.append(p)
    pts = np.unique(np.round(np.array(points), 12), axis=0)
    centre = pts.mean(axis=0)
    order = np.argsort(np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0]))
    return pts[order]


class ComPolygon:
    """A convex polygon the COM's ground projection must stay in (see the module docstring).

    Args:
        vertices: k × 2 vertices (x, y in world axes, m), in either orientation.
        margin: the distance (m, ≥ 0) the COM keeps from every edge.

    Attributes:
        vertices: the vertices as given (k × 2, a read-only array).
        margin: the margin (m).
        normals, offsets: the shrunk polygon's half-planes nᵢᵀ p ≤ offsetᵢ (unit outward normals).
        shrunk_vertices: the shrunk polygon's vertices, counter-clockwise (m).
        inradius: the radius of the largest circle inside the polygon (m).

    Raises:
        ConfigError: naming ``vertices`` or ``margin`` (see the module docstring).
    """

    def __init__(self, vertices: Any, margin: float = 0.0) -> None:
        v = _vertices(vertices)
        normals, offsets = _half_planes(v)
        ok = not isinstance(margin, bool) and isinstance(margin, (int, float, np.integer, np.floating))
        if not ok or not math.isfinite(margin) or margin < 0.0:
            raise ConfigError("margin", f"must be a finite distance ≥ 0 (m), got {safe_repr(margin)}")
        self.inradius = _inradius(normals, offsets)
        if margin >= self.inradius:
            raise ConfigError(
                "margin",
                f"a margin of {margin} m leaves nothing of a polygon whose inradius is {self.inradius:.4g} m",
            )
        v.setflags(write=False)
        self.vertices = v
        self.margin = float(margin)
        self.normals = normals
        self.offsets = offsets - self.margin
        self.shrunk_vertices = _corners(self.normals, self.offsets)

    def contains(self, point: Any, tol: float = 0.0) -> bool:
        """Whether a ground point (x, y) lies in the shrunk polygon (within ``tol`` m)."""
        p = np.asarray(point, dtype=float)[:2]
        return bool((self.normals @ p <= self.offsets + tol).all())

    def project(self, point: Any) -> NDArray[np.float64]:
        """The point of the shrunk polygon nearest to a ground point (x, y) (Euclidean, closed form: the
        point itself inside, else the nearest point of the nearest edge)."""
        p = np.asarray(point, dtype=float)[:2]
        if self.contains(p):
            return p.copy()
        corners = self.shrunk_vertices
        best, dist = p, math.inf
        for a, b in zip(corners, np.roll(corners, -1, axis=0), strict=True):
            t = float(np.clip((p - a) @ (b - a) / ((b - a) @ (b - a)), 0.0, 1.0))
            cand = a + t * (b - a)
            if (gap := float(np.linalg.norm(cand - p))) < dist:
                best, dist = cand, gap
        return np.asarray(best, dtype=float)

    def rows(self, robot: RobotModel, dt: float, level: str, n_columns: int | None = None
             ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:  # fmt: skip
        """The rows C x ≤ upper at the robot's current state (new arrays; x = q̇ or q̈ then zero
        columns up to ``n_columns``).

        Args:
            robot: the robot (its COM and COM Jacobian are read).
            dt: the control step (s).
            level: ``"velocity"`` or ``"acceleration"`` (see the module docstring).
            n_columns: the scene's number of variables (default nv).
        """
        J = robot.com_jacobian_view()[:2]
        c = robot.com_position_view()[:2].copy()
        nv = robot.nv
        C = np.zeros((self.normals.shape[0], n_columns or nv))
        if level == "velocity":
            C[:, :nv] = dt * (self.normals @ J)
        else:
            c += dt * (J @ robot.v_view)
            C[:, :nv] = dt * dt * (self.normals @ J)
        return C, self.offsets - self.normals @ c
