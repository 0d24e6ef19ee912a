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
from numpy.typing import ArrayLike, NDArray

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
        self._setup(robot, amax)

    def _setup(self, robot: RobotModel, amax: np.ndarray) -> None:
        """Precompute every constant of :meth:`compute` on full-width (2, nv) arrays.

        Row 0 of each stage holds the upper bound of q̈, row 1 the upper bound of −q̈ (= −lb). DOFs
        without a position limit get ±inf limits, so their distance D is +inf and their position stage
        +inf (no inf − inf can appear: v and q are finite). Braking rows whose limit is infinite, or whose
        a_max is infinite or too large to square, get X = D + inf = +inf: their stage is inactive.
        """
        model = robot.model
        nv = robot.nv
        dt = self.dt
        idt = 1.0 / dt
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
        limited = q_of_v >= 0
        # position of every DOF in q: a slice of q when the limited DOFs sit at a constant offset
        # (fixed base: q ≡ v; free-flyer first: offset 1), else a gather
        offsets = np.unique(q_of_v[limited] - np.flatnonzero(limited))
        self._p_slice: slice | None = None
        if offsets.size <= 1:
            off = int(offsets[0]) if offsets.size else 0
            if off >= 0 and off + nv <= model.nq:
                self._p_slice = slice(off, off + nv)
        self._p_index: NDArray[np.intp] = np.where(limited, q_of_v, 0)  # the gather, when no slice fits
        self._P = np.empty(nv)
        self._p_is_q = self._p_slice == slice(0, nv) and model.nq == nv  # p is q itself
        self._qmax, self._qmin = qmax, qmin
        # velocity stage: S = V·(1/dt) − T, T = [v; −v]/dt, clipped into ±a_max
        self._VI = np.vstack((self.velocity_limit, self.velocity_limit)) * idt
        self._A2 = np.vstack((amax, amax))
        self._negA2 = -self._A2
        self._idt = np.full(nv, idt)
        self._dt2 = np.full((2, nv), dt * dt)
        self._k = np.full((2, nv), 2.0 / (dt * dt))
        # braking stage: B = sqrt(max(2 a D/dt² + a², 0)) − a − T
        a = np.vstack((amax, amax))
        lim_finite = np.vstack((np.isfinite(qmax), np.isfinite(qmin)))
        with np.errstate(over="ignore", invalid="ignore"):
            asq = a * a
            finite = np.isfinite(a) & np.isfinite(asq) & np.isfinite(2.0 * a * idt * idt)
            via = self.braking & lim_finite & finite
        self._has_via = bool(via.any())
        self._C = np.where(via, 2.0 * np.where(via, a, 0.0) * idt * idt, 1.0)  # 1·D + inf = inf
        self._ASQ = np.where(via, np.where(via, asq, 0.0), np.inf)
        self._AV = np.where(via, a, 0.0)
        self._zero = np.zeros((2, nv))
        # work arrays and the fixed views on them
        T, S, D, P, B, N = (np.empty((2, nv)) for _ in range(6))
        out = B if self._has_via else P
        self._work = (T, T[0], T[1], S, S[::-1], D, D[0], D[1], P, P[::-1], N, B, out[0], out[1])
        self._consts = (
            self._VI, self._negA2, self._A2, self._idt, self._dt2, self._k, self._C, self._ASQ, self._AV,
            self._zero,
        )  # fmt: skip

    def compute(self, q: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Return new arrays (lb, ub) of q̈ bounds for the state (q, v); lb ≤ ub always holds.

        Both sides are computed at once on 2-row arrays: row 0 is the upper bound of q̈, row 1 the upper
        bound of −q̈ (so lb = −row 1); clipping "into the previous interval [l, u]" becomes
        row ∈ [−other row of the previous stage, same row of the previous stage]. About twenty
        vectorised operations on preallocated arrays, whatever the number of joints.
        """
        # (positional ``out`` arguments and one tuple of constants and buffers: measurably cheaper than
        # keywords and attribute look-ups on these tiny arrays)
        T, T0, T1, S, S_sw, D, D0, D1, P, P_sw, N, B, out0, out1 = self._work
        VI, negA2, A2, idt, dt2, k, C, ASQ, AV, zero = self._consts
        np.multiply(v, idt, T0)
        np.negative(T0, T1)
        # acceleration ∩ velocity: (v_max ∓ v)/dt clipped into [−a_max, a_max]
        np.subtract(VI, T, S)
        _clip(S, negA2, A2, S)
        # distances to the limits, both rows oriented "towards the limit"
        if self._p_is_q:
            p = q
        else:
            p = q[self._p_slice] if self._p_slice is not None else np.take(q, self._p_index, out=self._P)
        np.subtract(self._qmax, p, D0)
        np.subtract(p, self._qmin, D1)
        # position: 2 (D − v dt)/dt², clipped into the previous interval
        np.multiply(T, dt2, P)
        np.subtract(D, P, P)
        np.multiply(P, k, P)
        np.negative(S_sw, N)
        _clip(P, N, S, P)
        if self._has_via:
            # viability: next velocity ≤ −a dt + sqrt(a² dt² + 2 a D), clipped into the position interval
            np.multiply(D, C, B)
            np.add(B, ASQ, B)
            np.maximum(B, zero, out=B)
            np.sqrt(B, B)
            np.subtract(B, AV, B)
            np.subtract(B, T, B)
            np.negative(P_sw, N)
            _clip(B, N, P, B)
        lb = np.negative(out1)
        return lb, np.maximum(out0, lb)


def _clip_min_max(x: np.ndarray, lo: np.ndarray, hi: np.ndarray, out: np.ndarray, /) -> None:
    np.minimum(x, hi, out=out)
    np.maximum(out, lo, out=out)


_clip = _clip_min_max  # (two public ufunc calls; np.clip's Python wrapper costs more on these tiny arrays)
