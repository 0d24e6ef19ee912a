"""CollisionConstraint: velocity-damper rows that keep collision pairs apart, for a robot's current state.

For every selected pair (a, b) at distance d < d_i (the influence distance), with witness points p_a on a
and p_b on b (world frame) and the unit normal n = (p_b − p_a)/d, the row

.. math::

    n^T \\big(J_b(p_b) - J_a(p_a)\\big)\\, \\dot q \\;\\ge\\; -γ\\,\\frac{d - d_s}{dt}

bounds the rate ḋ = nᵀ(v_b(p_b) − v_a(p_a)) at which the distance may shrink: by at most the fraction γ of
its margin d − d_s per step dt (a velocity damper, Faverjon & Tournassoud 1987; Kanoun et al. 2011).
J_x(p) is the world-aligned linear Jacobian of the body holding x at the point p. With Pinocchio's
world-frame joint Jacobians J = [J_v; J_ω] (``data.J``, velocity of the point at the world origin over
ω), v(p) = J_v q̇ + ω × p, so nᵀ v(p) = [n; p × n]ᵀ J q̇ restricted to the DOFs that support the body:
all the rows are one product of the stacked [±n; p × ±n] (both sides of every active pair) with J.

Penetrating pairs (d ≤ 0) are kept, reported by :meth:`CollisionConstraint.status`, and pushed apart: the
right-hand side γ(d_s − d)/dt is positive. Their normal is coal's (EPA) normal when coal gives one, else
the direction between the two geometries' bounding-box centres (the witness points then become those
centres). Given velocity bounds lb ≤ q̇ ≤ ub with lb ≤ 0 ≤ ub, a positive right-hand side is clipped to the
largest value the row can reach inside them, Σ_j max(C_j lb_j, C_j ub_j), so a row alone never makes the
bounds infeasible (rows with a right-hand side ≤ 0 are satisfied by q̇ = 0 already).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pinocchio as pin
from numpy.typing import NDArray

from ...description.robot_files import srdf_file
from ...errors import ConfigError
from .avoidance import CollisionAvoidance
from .geometry import link_of_geometry, load_collision_geometry
from .pairs import select_pairs

if TYPE_CHECKING:
    from ...model.robot_model import RobotModel

#: GJK tolerance (m): coal's default 1e-6 leaves distance noise that swamps finite differences; 1e-9
#: costs nothing measurable (Panda, 44 convex-hull pairs)
GJK_TOLERANCE = 1e-9
#: below this |d| (m) the normal is not taken from the witness points
_NORMAL_EPS = 1e-9
#: a finite bound larger than any reachable velocity (keeps 0 · bound = 0 where a bound is infinite)
_BIG = 1e300
#: p × n = vec(p nᵀ) @ _CROSS: the Levi-Civita symbol as a 9 × 3 matrix, rows (i, j) of p_i n_j
_CROSS = np.zeros((9, 3))
for _i, _j, _k in ((0, 1, 2), (1, 2, 0), (2, 0, 1)):
    _CROSS[3 * _i + _j, _k] = 1.0
    _CROSS[3 * _j + _i, _k] = -1.0


@dataclass(frozen=True)
class CollisionPairStatus:
    """One pair inside its influence distance at the last :meth:`CollisionConstraint.compute`.

    Attributes:
        geometry_a, geometry_b: geometry object (or obstacle) names.
        link_a, link_b: the links they belong to (the obstacle's name for an obstacle).
        distance: signed distance d (m); ≤ 0 when penetrating.
        penetrating: d ≤ 0.
        point_a, point_b: witness points (3, world frame, m).
        normal: unit normal from a to b (3, world frame).
        lower: right-hand side of the row (m/s), after clipping to the velocity bounds.
    """

    geometry_a: str
    geometry_b: str
    link_a: str
    link_b: str
    distance: float
    penetrating: bool
    point_a: NDArray[np.float64]
    point_b: NDArray[np.float64]
    normal: NDArray[np.float64]
    lower: float


def _check_dt(dt: object) -> None:
    """Raise ConfigError unless ``dt`` is a finite number > 0 (a real number, not a bool)."""
    if isinstance(dt, bool) or not isinstance(dt, (int, float)) or not 0.0 < dt < math.inf:
        raise ConfigError("dt", f"must be a finite number > 0, got {dt!r}")


class CollisionConstraint:
    """Distance rows C q̇ ≥ lower for one robot and one :class:`CollisionAvoidance`.

    Built once (geometry loading, pair selection, buffers); :meth:`compute` is the per-step call.

    Copies and pickles rebuild the geometry from ``(robot, avoidance)`` (independent objects). Not
    thread-safe: one instance per thread, as for the robot it reads.

    Attributes:
        robot: the robot whose current state :meth:`compute` reads.
        avoidance: the configuration.
        geometry_model: robot collision geometries then obstacles (``pin.GeometryModel``); its
            ``collisionPairs`` are the selected pairs, in :attr:`pair_names` order.
        geometry_data: the matching ``pin.GeometryData`` (placements and distance results).
    """

    def __init__(self, robot: RobotModel, avoidance: CollisionAvoidance) -> None:
        """Load the geometry, add the obstacles and select the pairs.

        Raises:
            ConfigError: ``avoidance`` is not a CollisionAvoidance; a robot without ``<collision>``
                elements (field ``pairs`` or ``obstacles``), a robot that keeps no URDF (``robot``); and
                everything :func:`~wbcpy.limits.collision.pairs.select_pairs` rejects.
        """
        if not isinstance(avoidance, CollisionAvoidance):
            raise ConfigError("collision", f"expected a CollisionAvoidance, got {type(avoidance).__name__}")
        try:
            geom = load_collision_geometry(robot, avoidance.convex_hull)
        except ConfigError as exc:
            if exc.field != "collision":
                raise
            raise ConfigError("pairs" if avoidance.pairs else "obstacles", exc.reason) from None
        model = robot.model
        n_robot = geom.ngeoms
        for obstacle in avoidance.obstacles:
            geom.addGeometryObject(
                pin.GeometryObject(obstacle.name, 0, 0, pin.SE3(obstacle.placement), obstacle.shape.to_coal())
            )
        pairs = select_pairs(model, geom, n_robot, avoidance, srdf_file(robot))
        for a, b in pairs:
            geom.addCollisionPair(pin.CollisionPair(a, b))
        for obj in geom.geometryObjects:  # bounding boxes: their centres are the fallback witness points
            obj.geometry.computeLocalAABB()
        self.robot = robot
        self.avoidance = avoidance
        self.geometry_model = geom
        self.geometry_data = pin.GeometryData(geom)
        for request in self.geometry_data.distanceRequests:
            request.gjk_tolerance = GJK_TOLERANCE
        objs = geom.geometryObjects
        self._links = [
            link_of_geometry(model, objs[i]) if i < n_robot else objs[i].name for i in range(geom.ngeoms)
        ]
        self._pairs = np.array(pairs, dtype=np.intp).reshape(-1, 2)
        # proxies of the distance results (they read the live results of geometry_data)
        self._results = list(self.geometry_data.distanceResults)
        self._setup_buffers(model)

    def _setup_buffers(self, model: pin.Model) -> None:
        geom = self.geometry_model
        n, nv = len(self._pairs), model.nv
        # with mimic joints data.J has a column per joint DOF including theirs: rows @ coupling → q̇ rows
        self._coupling = self.robot.names.mimic_coupling
        n_cols = nv if self._coupling is None else self._coupling.shape[0]
        # support mask of each geometry: 1 on the DOFs (columns of data.J) of the joints between the
        # world and its body
        support = np.zeros((geom.ngeoms, n_cols))
        for g in range(geom.ngeoms):
            joint = geom.geometryObjects[g].parentJoint
            for j in model.supports[joint]:
                if j > 0:
                    jm = model.joints[j]
                    start, width = (
                        (jm.idx_v, jm.nv) if self._coupling is None else (jm.idx_vExtended, jm.nvExtended)
                    )
                    support[g, start : start + width] = 1.0
        # rows 0..n−1: side a of every pair, rows n..2n−1: side b
        self._masks = np.concatenate((support[self._pairs[:, 0]], support[self._pairs[:, 1]]))  # (2n, nv)
        self._dist = np.zeros(n)
        self._active: list[int] = []
        self._points = np.zeros((0, 3))  # witness points of the active pairs: (2k, 3), sides a then b
        self._normals = np.zeros((0, 3))  # their unit normals from a to b: (k, 3)
        self._C = np.zeros((n, nv))
        self._lower = np.zeros(n)

    # ------------------------------------------------------------------ description
    @property
    def n_pairs(self) -> int:
        """Number of selected pairs (the largest possible number of rows)."""
        return len(self._pairs)

    @property
    def pair_names(self) -> list[tuple[str, str]]:
        """Geometry (or obstacle) names of every selected pair, as ``(a, b)``."""
        objs = self.geometry_model.geometryObjects
        return [(objs[int(a)].name, objs[int(b)].name) for a, b in self._pairs]

    # ------------------------------------------------------------------ per step
    def compute(
        self, dt: float, lb: NDArray[np.float64] | None = None, ub: NDArray[np.float64] | None = None
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """The rows of the pairs within the influence distance, for the robot's current state.

        Args:
            dt: control step (s), > 0.
            lb, ub: optional velocity bounds (nv, ±inf allowed) with lb ≤ 0 ≤ ub, as
                :class:`~wbcpy.limits.velocity_limits.VelocityLimitBounds` gives: a positive right-hand
                side (a row that q̇ = 0 violates) is clipped to what the row can reach inside them.

        Returns:
            ``(C, lower)``: C (k×nv) and lower (k) with C q̇ ≥ lower, k ≤ :attr:`n_pairs`; views into
            buffers that the next call overwrites (copy them to keep them).

        Raises:
            ConfigError: dt not a finite number > 0.
            StateNotSetError: the robot has no state yet.
        """
        if dt.__class__ is not float or not 0.0 < dt < math.inf:  # (a valid float passes this one test)
            _check_dt(dt)
        robot = self.robot
        J = robot.joint_jacobians_view()  # also brings data.oMi to the current state
        geom, gdata = self.geometry_model, self.geometry_data
        pin.updateGeometryPlacements(robot.model, robot.data, geom, gdata)
        pin.computeDistances(geom, gdata)
        results = self._results
        dist = [res.min_distance for res in results]
        self._dist[:] = dist
        avoid = self.avoidance
        influence = avoid.influence_distance
        active = [i for i, x in enumerate(dist) if x < influence]
        self._active = active
        k = len(active)
        C, lower = self._C[:k], self._lower[:k]
        if not k:
            return C, lower
        d = self._distance_rows(active, results, dist, J, C)
        np.multiply(d, -avoid.gain / dt, out=lower)
        lower += avoid.gain * avoid.safety_distance / dt  # −γ (d − d_s)/dt
        if lb is not None and ub is not None and min(dist) < avoid.safety_distance:  # some row > 0
            reach = np.maximum(C, 0.0) @ np.clip(ub, -_BIG, _BIG)
            reach += np.minimum(C, 0.0) @ np.clip(lb, -_BIG, _BIG)
            np.minimum(lower, reach, out=lower)
        return C, lower

    def _distance_rows(
        self, active: list[int], results: list[Any], dist: list[float], J: NDArray[np.float64],
        C: NDArray[np.float64],
    ) -> NDArray[np.float64]:  # fmt: skip
        """Write the distance Jacobians of the active pairs into C (k×nv) and return their distances d (k);
        keeps their witness points and normals (:attr:`_points`, :attr:`_normals`).

        Side b gives +n, side a −n: C = Σ_sides [±n; p × ±n]ᵀ J, restricted to the DOFs that move each
        body (and mapped through the mimic coupling when the robot has one).
        """
        k = len(active)
        if k == len(dist):  # (few pairs, all near: no gathers)
            masks = self._masks
        else:
            results = [results[i] for i in active]
            dist = [dist[i] for i in active]
            masks = self._masks[active + [i + len(self._dist) for i in active]]
        d, points, normals = self._witnesses(active, results, dist)
        self._points, self._normals = points, normals
        signed = np.concatenate((-normals, normals))
        cross = (points[:, :, None] * signed[:, None, :]).reshape(2 * k, 9) @ _CROSS
        if J.ndim == 1:  # (the bindings give a 6-vector when nv = 1)
            J = J[:, None]
        rows = np.concatenate((signed, cross), axis=1) @ J
        rows *= masks
        if self._coupling is not None:
            rows = rows @ self._coupling
        np.add(rows[:k], rows[k:], out=C)
        return d

    def _witnesses(
        self, active: list[int], results: list[Any], dist: list[float]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """Distances d (k), witness points (2k, 3: the a sides, then the b sides) and unit normals (k, 3)
        from a to b of the active pairs, from their coal results and distances.

        n = (p_b − p_a)/d for separated pairs; for touching or penetrating ones (d ≤ ε) the formula when
        |d| > ε, else coal's normal, checked to be a unit vector, else the direction between the centres
        (the witness points then become the centres).
        """
        d = np.array(dist)
        points = np.array([r.getNearestPoint1() for r in results] + [r.getNearestPoint2() for r in results])
        k = d.shape[0]
        delta = points[k:] - points[:k]
        if d.min() > _NORMAL_EPS:
            return d, points, delta / d[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            normals = delta / d[:, None]
        for i in np.flatnonzero(d <= _NORMAL_EPS).tolist():
            n = normals[i] if abs(d[i]) > _NORMAL_EPS else np.array(self._results[active[i]].normal)
            if abs(float(n @ n) - 1.0) < 1e-6:  # (False for NaN)
                normals[i] = n
            else:  # coal gave no normal (non-convex meshes): between the centres
                self._centre_normal(active[i], i, points, normals)
        return d, points, normals

    def _centre_normal(
        self, pair: int, row: int, points: NDArray[np.float64], normals: NDArray[np.float64]
    ) -> None:
        a, b = self._pairs[pair]
        gdata, objs = self.geometry_data, self.geometry_model.geometryObjects
        centres = [gdata.oMg[int(g)].act(objs[int(g)].geometry.aabb_center) for g in (a, b)]
        k = normals.shape[0]
        points[row], points[k + row] = centres
        delta = centres[1] - centres[0]
        norm = float(np.linalg.norm(delta))
        normals[row] = delta / norm if norm > _NORMAL_EPS else (0.0, 0.0, 1.0)

    # ------------------------------------------------------------------ results of the last compute
    @property
    def active_pairs(self) -> list[int]:
        """Indices (in :attr:`pair_names` order) of the pairs that gave the rows of the last
        :meth:`compute`, in row order (a new list)."""
        return list(self._active)

    def distances(self) -> NDArray[np.float64]:
        """Signed distances (m) of every selected pair at the last :meth:`compute` (a new array)."""
        return self._dist.copy()

    def status(self) -> list[CollisionPairStatus]:
        """The pairs inside their influence distance at the last :meth:`compute`, closest first."""
        objs = self.geometry_model.geometryObjects
        out = []
        for i, p in enumerate(self._active):
            a, b = (int(g) for g in self._pairs[p])
            d = float(self._dist[p])
            out.append(
                CollisionPairStatus(
                    geometry_a=objs[a].name,
                    geometry_b=objs[b].name,
                    link_a=self._links[a],
                    link_b=self._links[b],
                    distance=d,
                    penetrating=d <= 0.0,
                    point_a=self._points[i].copy(),
                    point_b=self._points[len(self._active) + i].copy(),
                    normal=self._normals[i].copy(),
                    lower=float(self._lower[i]),
                )
            )
        return sorted(out, key=lambda s: s.distance)

    @property
    def penetrating(self) -> list[tuple[str, str]]:
        """Geometry names of the pairs with d ≤ 0 at the last :meth:`compute`."""
        objs = self.geometry_model.geometryObjects
        hits = [p for p in self._active if self._dist[p] <= 0.0]
        return [(objs[int(self._pairs[p, 0])].name, objs[int(self._pairs[p, 1])].name) for p in hits]

    def __reduce__(self) -> tuple[Any, ...]:
        return (CollisionConstraint, (self.robot, self.avoidance))

    def __repr__(self) -> str:
        return f"CollisionConstraint(robot={self.robot.name!r}, pairs={self.n_pairs})"
