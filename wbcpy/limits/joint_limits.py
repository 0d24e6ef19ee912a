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

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from .._kernels import joint_limits as _joint_limits
from .._support.read_only import SealedAfterInit
from ..errors import ConfigError

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel

#: default acceleration limit = this factor × the velocity limit (1/s); inf where v_max is inf
DEFAULT_ACCELERATION_FACTOR = 10.0


class JointLimitBounds(SealedAfterInit):
    """Bounds on q̈ (nv) from joint limits, for a fixed step ``dt``.

    The attributes are read-only (the bounds are precomputed from them; build new bounds for other
    values).

    Attributes:
        dt: control step (s).
        acceleration_limit: a_max per DOF (nv); inf where unbounded.
        velocity_limit: v_max per DOF (nv); inf where unbounded.
        braking: whether the viability stage is applied.
    """

    def __init__(
        self, robot: RobotModel, dt: float, acceleration_limit: ArrayLike | None = None, braking: bool = True
    ):
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
        self.velocity_limit = np.array(robot.velocity_limit, dtype=float)
        self.velocity_limit.setflags(write=False)
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
        amax.setflags(write=False)
        self.acceleration_limit = amax
        self.braking = bool(braking)
        self._setup(robot, amax)
        self._seal()

    def _setup(self, robot: RobotModel, amax: np.ndarray) -> None:
        """Precompute the per-DOF constants of :meth:`compute` (one compiled pass per call).

        DOFs without a position limit get ±inf limits (q index −1), so their distance to a limit is +inf
        and their position stage is inactive (no inf − inf can appear: v and q are finite). The braking
        stage of a side is off (deceleration 0 in the table) where its limit is infinite, or where a_max
        is infinite or too large to square.
        """
        model = robot.model
        nv = robot.nv
        idt = 1.0 / self.dt
        qmax = np.full(nv, np.inf)
        qmin = np.full(nv, -np.inf)
        q_of_v = np.full(nv, -1, dtype=np.intp)  # q index of each limited DOF (−1: none)
        lower = robot.lower_position_limit
        upper = robot.upper_position_limit
        for jid in range(1, model.njoints):
            joint = model.joints[jid]
            if joint.nq == 1 and joint.nv == 1:
                iq, iv = joint.idx_q, joint.idx_v
                if np.isfinite(lower[iq]) or np.isfinite(upper[iq]):
                    q_of_v[iv] = iq
                    if np.isfinite(upper[iq]):
                        qmax[iv] = upper[iq]
                    if np.isfinite(lower[iq]):
                        qmin[iv] = lower[iq]
        with np.errstate(over="ignore", invalid="ignore"):
            usable = np.isfinite(amax) & np.isfinite(amax * amax) & np.isfinite(2.0 * amax * idt * idt)
        brake = usable & self.braking
        brake_upper = np.where(brake & np.isfinite(qmax), amax, 0.0)
        brake_lower = np.where(brake & np.isfinite(qmin), amax, 0.0)
        self._q_index = q_of_v
        #: rows qmin, qmax, v_max, a_max, braking deceleration towards qmax and towards qmin (0: off)
        self._params = np.ascontiguousarray(
            np.vstack((qmin, qmax, self.velocity_limit, amax, brake_upper, brake_lower))
        )
        self._params.setflags(write=False)

    def compute(self, q: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Return new arrays (lb, ub) of q̈ bounds for the state (q, v); lb ≤ ub always holds.

        Per DOF (one compiled loop, :func:`wbcpy._kernels.joint_limits`), with u the upper bound of q̈
        and w the upper bound of −q̈: clipping "into the previous interval [l, u]" keeps each stage's
        bounds inside the interval of the stages before it (full braking where they would cross).
        """
        return _joint_limits(q, v, self._q_index, self._params, self.dt)
