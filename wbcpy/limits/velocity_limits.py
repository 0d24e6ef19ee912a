"""Joint position and velocity limits as bounds on q̇ over one control step dt (the velocity scene).

Per DOF j with position q_j, limits q_min,j ≤ q_j ≤ q_max,j, velocity limit v_max,j and γ = ``limit_gain``:

.. math::

    \\text{position:}\\quad
    \\min\\!\\big(0,\\ γ\\,(q_{min,j} - q_j)/dt\\big) \\;\\le\\; \\dot q_j \\;\\le\\;
    \\max\\!\\big(0,\\ γ\\,(q_{max,j} - q_j)/dt\\big)

    \\text{velocity:}\\quad -v_{max,j} \\le \\dot q_j \\le v_{max,j}

and the bounds are their intersection. Inside the range the position bound lets the joint cover the
fraction γ of its distance to a limit in one step, so a closed loop q ← q + q̇ dt never crosses it
(γ ≤ 1). Outside the range the bound on the far side is 0: the joint may only move back towards the range
(or stay). Both intervals contain 0, so their intersection is never empty.

DOFs without a position limit (continuous joints, free-flyers, multi-DOF joints) get no position bound;
DOFs without a velocity limit (none in the URDF, free-flyers) get no velocity bound (±inf).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from .._kernels import velocity_limits as _velocity_limits
from .._support.read_only import SealedAfterInit
from ..errors import ConfigError, InvalidValueError

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel


def _check_dt(dt: Any) -> float:
    if isinstance(dt, bool) or not isinstance(dt, (int, float)) or not 0.0 < float(dt) < math.inf:
        raise ConfigError("dt", f"must be a finite number > 0, got {dt!r}")
    return float(dt)


def _check_gain(gain: Any) -> float:
    ok = not isinstance(gain, bool) and isinstance(gain, (int, float))
    if not ok or not 0.0 < float(gain) <= 1.0:
        raise ConfigError("limit_gain", f"must be a number in (0, 1], got {gain!r}")
    return float(gain)


class VelocityLimitBounds(SealedAfterInit):
    """Bounds lb ≤ q̇ ≤ ub (nv) from joint position limits over one step and velocity limits.

    The attributes are read-only (the bounds are precomputed from them; build new bounds for other
    values).

    Attributes:
        dt: control step (s).
        limit_gain: γ ∈ (0, 1], fraction of the distance to a position limit allowed per step.
        joint_limits: whether the position stage is applied.
        velocity_limits: whether the velocity stage is applied.
        velocity_limit: v_max per DOF (nv; inf where unbounded or when ``velocity_limits`` is False).
    """

    def __init__(
        self,
        robot: RobotModel,
        dt: float,
        joint_limits: bool = True,
        velocity_limits: bool = True,
        limit_gain: float = 0.5,
    ) -> None:
        """Precompute the limit arrays and the q index of every position-limited DOF.

        Raises:
            ConfigError: dt not a finite number > 0 (field ``dt``), limit_gain outside (0, 1]
                (``limit_gain``), non-boolean switches.
        """
        self.dt = _check_dt(dt)
        self.limit_gain = _check_gain(limit_gain)
        for name, value in (("joint_limits", joint_limits), ("velocity_limits", velocity_limits)):
            if not isinstance(value, bool):
                raise ConfigError(name, f"must be True or False, got {value!r}")
        self.joint_limits = joint_limits
        self.velocity_limits = velocity_limits
        self._nq, nv = robot.nq, robot.nv
        vmax = np.array(robot.velocity_limit if velocity_limits else np.full(nv, np.inf), dtype=float)
        vmax.setflags(write=False)
        self.velocity_limit = vmax
        # position-limited DOFs: 1-DOF joints (nq = nv = 1) with a finite limit on at least one side
        model = robot.model
        lower, upper = robot.lower_position_limit, robot.upper_position_limit
        iq: list[int] = []
        iv: list[int] = []
        for jid in range(1, model.njoints):
            joint = model.joints[jid]
            limited = np.isfinite(lower[joint.idx_q]) or np.isfinite(upper[joint.idx_q])
            if joint.nq == 1 and joint.nv == 1 and limited:
                iq.append(joint.idx_q)
                iv.append(joint.idx_v)
        if not joint_limits:
            iq, iv = [], []
        k = self.limit_gain / self.dt
        self._k = k
        # per DOF: γ q_min/dt, γ q_max/dt where position-limited (±inf elsewhere), and v_max; the q index
        # of every DOF's limit (−1 for DOFs without one)
        gq = np.array([np.full(nv, -np.inf), np.full(nv, np.inf), vmax])
        gq[0, iv] = k * lower[iq]
        gq[1, iv] = k * upper[iq]
        gq.setflags(write=False)
        self._params = gq
        qidx = np.full(nv, -1, dtype=np.intp)
        qidx[iv] = iq
        self._qidx = qidx
        self._iv = np.array(iv, dtype=np.intp)
        self._dof_names = robot.dof_names
        self._seal()

    def compute(self, q: Any) -> tuple[np.ndarray, np.ndarray]:
        """New arrays ``(lb, ub)`` (nv) for the configuration q (nq); lb ≤ 0 ≤ ub always holds.

        Raises:
            InvalidValueError: q of the wrong size or with NaN/inf.
        """
        if not isinstance(q, np.ndarray) or q.shape != (self._nq,):
            q = np.asarray(q, dtype=float)
            if q.shape != (self._nq,):
                raise InvalidValueError("q", (self._nq,), q.shape)
        if not math.isfinite(float(q @ q)) and not np.isfinite(q).all():
            raise InvalidValueError("q", (self._nq,), q.shape, reason="contains NaN or inf")
        return self.compute_unchecked(q)

    def compute_unchecked(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`compute` for a configuration that is already a finite float64 array of size nq (a
        robot's validated state, as the VelocityScene passes it)."""
        # γ (q_min − q)/dt, γ (q_max − q)/dt, then the lower one clipped into [−v_max, 0] (0 outside the
        # range: may only move back), the upper one into [0, v_max] (one compiled pass)
        nv = self._qidx.shape[0]
        lb, ub = np.empty(nv), np.empty(nv)
        _velocity_limits(q, self._qidx, self._params, self._k, lb, ub)
        return lb, ub

    def active(self, qdot: Any, lb: np.ndarray, ub: np.ndarray, tol: float = 1e-9) -> dict[str, str]:
        """``{dof_name: "lower" | "upper"}`` for the DOFs of q̇ that sit on a bound (within ``tol``)."""
        v = np.asarray(qdot, dtype=float)
        out: dict[str, str] = {}
        for j in np.flatnonzero(np.isfinite(lb) & (v <= lb + tol)).tolist():
            out[self._dof_names[j]] = "lower"
        for j in np.flatnonzero(np.isfinite(ub) & (v >= ub - tol)).tolist():
            out[self._dof_names[j]] = "upper"
        return out
