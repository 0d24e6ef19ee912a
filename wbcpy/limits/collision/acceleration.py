"""Collision avoidance at the acceleration (and torque) level: velocity-damper rows on q̈.

The rows keep each selected pair's distance d ≥ d_s in the *discrete-time* closed loop that acceleration
and inverse-dynamics scenes run: q̈ is applied for one step dt and integrated semi-implicitly,

.. math::

    v^+ = v + \\ddot q\\, dt, \\qquad q^+ = q \\oplus v^+ dt .

**Derivation.** Let d(q) be a pair's signed distance, J_d = ∂d/∂q its gradient (the row
nᵀ(J_b(p_b) − J_a(p_a)) of :class:`~wbcpy.collision.CollisionConstraint`: witness points p_a, p_b,
unit normal n from a to b) and J̇_d v = vᵀ∇²d v its drift (the second derivative of d along q ⊕ s v at
s = 0). Along the step, q(s) = q ⊕ s v⁺ for s ∈ [0, dt], so by Taylor's theorem

.. math::

    d^+ = d + dt\\, J_d v^+ + \\tfrac{dt^2}{2}\\, {v^+}^T \\nabla^2 d\\, v^+ + O(dt^3 |v^+|^3).

The discrete velocity damper asks that the margin d − d_s shrink by at most the fraction γ per step,
d⁺ − d_s ≥ (1 − γ)(d − d_s), which by induction keeps d ≥ d_s once it holds (and brings a pair with
d < d_s back geometrically). Replacing v⁺ᵀ∇²d v⁺ by J̇_d v (their difference is O(dt |v| |q̈|), a
third-order term in d⁺) and v⁺ by v + q̈ dt gives one linear row on q̈:

.. math::

    J_d\\, \\ddot q \\;\\ge\\; -γ\\,\\frac{d - d_s}{dt^2} \\;-\\; \\frac{J_d v}{dt} \\;-\\; \\tfrac12 J̇_d v
    \\qquad \\text{for every pair with } d < d_i .

It is the velocity damper of the VelocityScene (J_d v⁺ ≥ −γ(d − d_s)/dt) written for the velocity the
step ends with, plus the curvature of d along the step. Unlike a continuous-time damper
(d̈ ≥ −k_v ḋ − k_p (d − d_s)) it holds for the scene's dt, not only as dt → 0: the closed loop keeps
d ≥ d_s up to the third-order remainder.

**Terms.** d, the witness points and n come from coal through Pinocchio
(:class:`~wbcpy.collision.CollisionConstraint`, which also gives J_d); J̇_d v is the central
second difference of coal's distances along the current velocity,
(d(q ⊕ εv) − 2 d(q) + d(q ⊖ εv)) / ε², with ε = :data:`DRIFT_STEP` / ‖v‖ (zero when v = 0).

With bounds lb ≤ q̈ ≤ ub (joint limits), a lower side beyond what the row can reach inside them,
Σ_j max(C_j lb_j, C_j ub_j), is clipped to that value, so that a row alone never makes the bounds
infeasible (the pair then brakes as hard as the bounds allow).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import pinocchio as pin
from numpy.typing import NDArray

from ..._support.exclusive import exclusive
from ..._support.read_only import SealedAfterInit
from ...errors import ConfigError
from .avoidance import CollisionAvoidance
from .constraint import GJK_TOLERANCE, CollisionConstraint, CollisionPairStatus

if TYPE_CHECKING:
    from ...model.robot_model import RobotModel

#: ε‖v‖ of the second difference of the distances (rad or m of motion along v): the truncation error
#: is O(ε²), the distance noise (GJK tolerance 1e-9 m) adds 4e-9/ε² (m/s² per (rad/s)²)
DRIFT_STEP = 1e-3
#: a finite bound larger than any reachable acceleration (keeps 0 · bound = 0 where a bound is infinite)
_BIG = 1e300


class AccelerationCollisionConstraint(SealedAfterInit):
    """Distance rows C q̈ ≥ lower (see the module docstring) for one robot and one
    :class:`~wbcpy.collision.CollisionAvoidance`.

    Built once (geometry, pairs, buffers); :meth:`compute` is the per-step call and reads the robot's
    current state (q, v).

    **Copies, pickles, threads.** Copies and pickles rebuild the geometry from ``(robot, avoidance)``:
    ``copy.copy`` shares the robot, ``copy.deepcopy`` and pickles copy it; the copy computes the same rows
    at the same state (it has no last :meth:`compute` to report before its own). One thread at a time:
    :meth:`compute`, :meth:`status`, :meth:`distances` or :meth:`drift` entered while another thread is
    inside raises :class:`~wbcpy.errors.ConcurrentUseError` and changes nothing.

    The attributes are read-only (the geometry and the pairs are built from them).

    Attributes:
        robot: the robot whose state :meth:`compute` reads.
        avoidance: the configuration.
        pairs: the :class:`~wbcpy.collision.CollisionConstraint` that gives the geometry, the
            pairs, the distances, the witness points and J_d (its ``status()`` reports the pairs of the
            last :meth:`compute`; its ``lower`` there is the velocity-level damper value −γ(d − d_s)/dt).
    """

    def __init__(self, robot: RobotModel, avoidance: CollisionAvoidance) -> None:
        """Load the geometry and select the pairs (:class:`CollisionConstraint`).

        Raises:
            ConfigError: as :class:`~wbcpy.collision.CollisionConstraint`.
        """
        self.pairs = CollisionConstraint(robot, avoidance)
        self.robot = robot
        self.avoidance = avoidance
        self._data = robot.model.createData()
        self._gdata = pin.GeometryData(self.pairs.geometry_model)
        for request in self._gdata.distanceRequests:
            request.gjk_tolerance = GJK_TOLERANCE
        self._drift = np.zeros(0)
        self._idle: list[None] = [None]  # (one thread at a time: wbcpy._support.exclusive)
        self._seal()

    @property
    def n_pairs(self) -> int:
        """Number of selected pairs (the largest possible number of rows)."""
        return self.pairs.n_pairs

    @exclusive
    def status(self) -> list[CollisionPairStatus]:
        """The pairs inside their influence distance at the last :meth:`compute`, closest first."""
        return self.pairs.status()

    @exclusive
    def distances(self) -> NDArray[np.float64]:
        """Signed distances (m) of every selected pair at the last :meth:`compute` (a new array)."""
        return self.pairs.distances()

    @exclusive
    def drift(self) -> NDArray[np.float64]:
        """J̇_d v (m/s²) of the rows of the last :meth:`compute`, in row order (a new array)."""
        return self._drift.copy()

    @exclusive
    def compute(
        self, dt: float, lb: NDArray[np.float64] | None = None, ub: NDArray[np.float64] | None = None
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """The q̈ rows of the pairs within the influence distance, at the robot's current state.

        Args:
            dt: control step (s), > 0: the step q̈ is applied for.
            lb, ub: optional bounds on q̈ (nv, ±inf allowed): a lower side beyond the row's reach inside
                them is clipped to that reach.

        Returns:
            ``(C, lower)``: C = J_d (k×nv) and lower (k) with C q̈ ≥ lower, k ≤ :attr:`n_pairs`; new
            arrays.

        Raises:
            ConfigError: dt not a finite number > 0.
            StateNotSetError: the robot has no state yet.
            ConcurrentUseError: another thread is inside this object.
        """
        if isinstance(dt, bool) or not isinstance(dt, (int, float)) or not 0.0 < dt < math.inf:
            raise ConfigError("dt", f"must be a finite number > 0, got {dt!r}")
        dt = float(dt)
        q, v, _ = self.robot.state_view("collision rows")
        C, damper = self.pairs.compute(dt)  # damper = −γ (d − d_s)/dt
        k = C.shape[0]
        if not k:
            self._drift = np.zeros(0)
            return C.copy(), damper.copy()
        C = C.copy()
        active = self.pairs.active_pairs
        drift = self._second_difference(q, v, active, self.pairs.distances()[active])
        self._drift = drift
        lower = damper - C @ v
        lower /= dt
        lower -= 0.5 * drift
        if lb is not None and ub is not None:
            reach = np.maximum(C, 0.0) @ np.clip(ub, -_BIG, _BIG)
            reach += np.minimum(C, 0.0) @ np.clip(lb, -_BIG, _BIG)
            np.minimum(lower, reach, out=lower)
        return C, lower

    def _second_difference(
        self, q: NDArray[np.float64], v: NDArray[np.float64], active: list[int], d: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """(d(q ⊕ εv) − 2d + d(q ⊖ εv))/ε² of the active pairs (zero when v = 0)."""
        speed = float(np.linalg.norm(v))
        if speed == 0.0 or not math.isfinite(speed):
            return np.zeros(len(active))
        eps = DRIFT_STEP / speed
        model, data = self.robot.model, self._data
        geom, gdata = self.pairs.geometry_model, self._gdata
        total = -2.0 * d
        for sign in (1.0, -1.0):
            pin.forwardKinematics(model, data, pin.integrate(model, q, (sign * eps) * v))
            pin.updateGeometryPlacements(model, data, geom, gdata)
            total += [pin.computeDistance(geom, gdata, p).min_distance for p in active]
        out: NDArray[np.float64] = total / (eps * eps)
        return out

    def __reduce__(self) -> tuple[Any, ...]:
        return (AccelerationCollisionConstraint, (self.robot, self.avoidance))

    def __repr__(self) -> str:
        return f"AccelerationCollisionConstraint(robot={self.robot.name!r}, pairs={self.n_pairs})"
