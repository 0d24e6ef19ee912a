"""Joint position, velocity and acceleration limits as bounds on q̈ over one control step dt.

Per DOF, with position q, velocity v, limits q_min/q_max, v_max and a_max, the stages are intersected in
the order acceleration → velocity → position:

.. math::

    [-a_{max},\\ a_{max}]
    \\;∩\\; [(-v_{max} - v)/dt,\\ (v_{max} - v)/dt]
    \\;∩\\; [2(q_{min} - q - v\\,dt)/dt^2,\\ 2(q_{max} - q - v\\,dt)/dt^2]

Each stage's interval is clipped into the interval of the stages before it: a bound that would make the
interval empty is replaced by the nearest value inside the earlier (acceleration-feasible) interval, i.e.
full braking. The bounds are therefore never inconsistent.

The one-step position bound alone cannot stop a joint that reaches its limit at speed when a_max is
finite. With ``braking=True`` (the default) a fourth, viability stage (Del Prete, "Joint position and
velocity bounds in discrete-time acceleration/torque control of robot manipulators", RA-L 2018, adapted
to the semi-implicit Euler step v⁺ = v + q̈ dt, q⁺ = q + v⁺ dt) limits the next velocity so that
braking at a_max still stops before the limit:

.. math::

    v^+\\,dt + \\frac{(v^+)^2}{2 a_{max}} \\le q_{max} - q
    \\iff v^+ \\le -a_{max} dt + \\sqrt{a_{max}^2 dt^2 + 2 a_{max} (q_{max} - q)}

(and symmetrically at q_min). From a state that satisfies it, full braking always satisfies it again,
so position, velocity and acceleration limits all hold at every step of such a simulation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ConfigError

if TYPE_CHECKING:
    from ..robot import RobotModel

__all__ = ["DEFAULT_ACCELERATION_FACTOR", "JointLimitBounds"]

#: default acceleration limit = this factor × the velocity limit (1/s); inf where v_max is inf
DEFAULT_ACCELERATION_FACTOR = 10.0


class JointLimitBounds:
    """Bounds on q̈ (nv) from joint limits, for a fixed step ``dt``.

    Attributes:
        dt: control step (s).
        acceleration_limit: a_max per DOF (nv); inf where unbounded.
        velocity_limit: v_max per DOF (nv); inf where unbounded.
        braking: whether the viability stage is applied.
    """

    def __init__(self, robot: RobotModel, dt: float, acceleration_limit: Any = None, braking: bool = True):
        """Precompute limit arrays and index maps.

        Args:
            robot: the robot (limits are read from its model).
            dt: control step in seconds (> 0).
            acceleration_limit: None (default: 10 × velocity limit), a scalar, or one value per DOF (nv);
                values > 0, inf allowed.
            braking: apply the viability (braking-distance) stage.

        Raises:
            ConfigError: a non-positive dt or a malformed acceleration limit.
        """
        nv = robot.nv
        if isinstance(dt, bool) or not isinstance(dt, (int, float)) or not 0.0 < float(dt) < np.inf:
            raise ConfigError("dt", f"must be a finite number > 0, got {dt!r}")
        self.dt = float(dt)
        self.velocity_limit = robot.velocity_limit
        if acceleration_limit is None:
            amax = DEFAULT_ACCELERATION_FACTOR * self.velocity_limit
        else:
            try:
                amax = np.broadcast_to(np.array(acceleration_limit, dtype=float), (nv,)).copy()
            except (TypeError, ValueError):
                raise ConfigError(
                    "acceleration_limit", f"expected a number or {nv} numbers, got {acceleration_limit!r}"
                ) from None
            if np.isnan(amax).any() or (amax <= 0).any():
                raise ConfigError("acceleration_limit", "every acceleration limit must be > 0 (inf allowed)")
        self.acceleration_limit = amax
        self.braking = bool(braking)
        model = robot.model
        q_idx, v_idx = [], []
        for jid in range(1, model.njoints):
            joint = model.joints[jid]
            if joint.nq == 1 and joint.nv == 1:
                q_idx.append(joint.idx_q)
                v_idx.append(joint.idx_v)
        qi = np.array(q_idx, dtype=np.intp)
        lo = robot.lower_position_limit[qi]
        hi = robot.upper_position_limit[qi]
        limited = np.isfinite(lo) | np.isfinite(hi)
        self._qi = qi[limited]
        self._vi = np.array(v_idx, dtype=np.intp)[limited]
        self._qmin = lo[limited]
        self._qmax = hi[limited]
        self._qi = _as_slice(self._qi)
        self._vi_index = _as_slice(self._vi)
        m = int(np.count_nonzero(limited))
        # stacked "upper-type" rows: row 0 bounds q̈ from above, row 1 bounds −q̈ from above (= −lb)
        self._amax2 = np.vstack((amax, amax))
        self._neg_amax2 = -self._amax2
        amax_p = amax[self._vi]
        self._has_via = self.braking and bool(m) and bool(np.isfinite(amax_p).all())
        if self.braking and m and not self._has_via and np.isfinite(amax_p).any():
            # mixed finite/infinite limits: infinite a_max gives no braking constraint (use a huge one)
            amax_p = np.where(np.isfinite(amax_p), amax_p, 1e300)
            self._has_via = True
        a2 = np.vstack((amax_p, amax_p))
        self._two_a2 = 2.0 * a2
        self._adt2 = a2 * self.dt
        self._adt2sq = self._adt2 * self._adt2
        self._S = np.empty((2, nv))
        self._D, self._V, self._P, self._B, self._N = (np.empty((2, m)) for _ in range(5))
        self._zero2 = np.zeros((2, m))
        self._idt = 1.0 / self.dt
        self._k_pos = 2.0 / (self.dt * self.dt)

    def compute(self, q: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Return new arrays (lb, ub) of q̈ bounds for the state (q, v); lb ≤ ub always holds.

        Both sides are computed at once on 2-row arrays: row 0 is the upper bound of q̈, row 1 the upper
        bound of −q̈ (so lb = −row 1); clipping "into the previous interval [l, u]" becomes
        row ∈ [−other row of the previous stage, same row of the previous stage].
        """
        idt = self._idt
        S = self._S
        # acceleration ∩ velocity: (v_max ∓ v)/dt clipped into [−a_max, a_max]
        np.subtract(self.velocity_limit, v, out=S[0])
        np.add(self.velocity_limit, v, out=S[1])
        S *= idt
        np.minimum(S, self._amax2, out=S)
        np.maximum(S, self._neg_amax2, out=S)
        vi = self._vi_index
        if self._vi.size:
            p = q[self._qi]
            vv = v[vi]
            Sv = S[:, vi]
            D, V, P, B, N = self._D, self._V, self._P, self._B, self._N
            # distances to the limits and velocities, both rows oriented "towards the limit"
            np.subtract(self._qmax, p, out=D[0])
            np.subtract(p, self._qmin, out=D[1])
            V[0] = vv
            np.negative(vv, out=V[1])
            # position: 2 (D − v dt)/dt², clipped into the previous interval
            np.multiply(V, self.dt, out=P)
            np.subtract(D, P, out=P)
            P *= self._k_pos
            np.minimum(P, Sv, out=P)
            np.negative(Sv[::-1], out=N)
            np.maximum(P, N, out=P)
            if self._has_via:
                # viability: next velocity ≤ −a dt + sqrt(a² dt² + 2 a D), clipped into the position interval
                np.multiply(D, self._two_a2, out=B)
                B += self._adt2sq
                np.maximum(B, self._zero2, out=B)
                np.sqrt(B, out=B)
                B -= self._adt2
                B -= V
                B *= idt
                np.minimum(B, P, out=B)
                np.negative(P[::-1], out=N)
                np.maximum(B, N, out=B)
                P = B
            S[:, vi] = P
        ub = S[0].copy()
        lb = np.negative(S[1])
        np.maximum(ub, lb, out=ub)
        return lb, ub


def _as_slice(idx: np.ndarray) -> np.ndarray | slice:
    """A slice when the indices are contiguous and increasing (cheaper than fancy indexing)."""
    if idx.size and np.array_equal(idx, np.arange(idx[0], idx[0] + idx.size)):
        return slice(int(idx[0]), int(idx[0] + idx.size))
    return idx
