"""Loop closures: two frames of the robot held at the relative placement (or position) they had when the
closure was added — a closed kinematic chain, a weld, two hands on one tool.

With frames a and b, the closure keeps a's placement equal to that of a frame c fixed on b's body at the
placement ``b_M_c = b_M_a`` of the moment the closure was added (Pinocchio's ``RigidConstraintModel``
between (a) and (b, ``b_M_c``), ``LOCAL``). Its constraint, in a's axes:

* ``"6d"`` (a weld): the relative twist v_rel = v_a − Ad(a_M_c) v_c (6 rows, linear over angular;
  v_a, v_c the frames' spatial velocities in their own axes), Jacobian
  J = J_a − Ad(a_M_c) J_c (``LOCAL`` frame Jacobians); the error e = −log₆(a_M_c) (m over rad);
* ``"3d"`` (a ball joint): the relative velocity of the two origins, R_aᵀ(ṗ_a − ṗ_c) (3 rows),
  J = R_aᵀ(J_a − J_c)_lin (``LOCAL_WORLD_ALIGNED`` rows); e = R_aᵀ(p_a − p_c) (m).

The scenes hold it hard (equalities of the first level):

* velocity level: J q̇ = −e / T — the relative twist is zero, plus a first-order correction of the
  drift that integration leaves;
* acceleration level: J q̈ + a₀ = −K_p e − K_d J q̇ (Baumgarte's stabilisation), critically damped:
  K_p = 1/T², K_d = 2/T, with a₀ the constrained acceleration at q̈ = 0 (:meth:`LoopClosure.drift`:
  J̇q̇ for ``"6d"``; for ``"3d"`` the origins' relative classical acceleration in a's axes, as
  Pinocchio's ``CONTACT_3D``);
* an inverse-dynamics scene also gives the loop a wrench λ (the variables after the contact wrenches),
  which enters the equations of motion M q̈ + h = Sᵀτ + Σ J_cᵀ w_c + Jᵀλ: λ is the wrench the loop
  exerts on frame a, in a's axes about its origin (force over torque; the force for ``"3d"``); frame b
  receives the opposite. It is Pinocchio's ``constraintDynamics`` multiplier of the same constraint.

T is the closure's ``time_constant`` (s; default 10 control steps): drift decays within a few T.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import pinocchio as pin
from numpy.typing import NDArray

from ..errors import ConfigError, ConfigKeyError, UnknownNameError, safe_repr

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel

#: the kinds of closure: the whole relative placement, or the relative position of the origins
LOOP_KINDS = ("6d", "3d")
#: the default time constant of the drift correction, in control steps
STEPS_PER_TIME_CONSTANT = 10.0

_LOCAL, _LWA = pin.ReferenceFrame.LOCAL, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED


def _frame(robot: RobotModel, name: Any, field: str) -> int:
    if not isinstance(name, str) or not name:
        raise ConfigError(field, f"must be a frame name, got {safe_repr(name)}")
    try:
        return robot.frame_id(name)
    except UnknownNameError:
        raise ConfigKeyError(field, "frame", name, robot.frame_names, preferred=robot.link_names) from None


class LoopClosure:
    """One loop closure (see the module docstring), built at the robot's current state.

    Args:
        robot: the robot; its current state fixes the relative placement the loop keeps.
        frame_a, frame_b: two frames on different bodies.
        kind: ``"6d"`` or ``"3d"``.
        time_constant: T (s, > 0) of the drift correction.
        name: the closure's name (default ``"<frame_a>|<frame_b>"``).

    Attributes:
        name, frame_a, frame_b, kind, time_constant: as given. size: 6 or 3 rows.
        b_M_c: the placement of the virtual frame c in frame b (``b_M_a`` when added).

    Raises:
        ConfigKeyError: an unknown frame or kind. ConfigError: the same body, a bad time constant or name.
        StateNotSetError: the robot has no state yet.
    """

    def __init__(self, robot: RobotModel, frame_a: str, frame_b: str, kind: str = "6d",
                 time_constant: float = 0.01, name: str | None = None) -> None:  # fmt: skip
        fa, fb = _frame(robot, frame_a, "frame_a"), _frame(robot, frame_b, "frame_b")
        if kind not in LOOP_KINDS:
            raise ConfigKeyError("kind", "loop-closure kind", kind, LOOP_KINDS)
        frames = robot.model.frames
        if frames[fa].parentJoint == frames[fb].parentJoint:
            raise ConfigError(
                "frame_b", f"{frame_a!r} and {frame_b!r} move together: a loop needs two bodies"
            )
        ok = not isinstance(time_constant, bool) and isinstance(time_constant, (int, float, np.floating))
        if not ok or not math.isfinite(time_constant) or time_constant <= 0.0:
            raise ConfigError("time_constant", f"must be a time > 0 (s), got {safe_repr(time_constant)}")
        label = f"{frame_a}|{frame_b}" if name is None else name
        if not isinstance(label, str) or not label:
            raise ConfigError("name", f"must be a non-empty string, got {safe_repr(name)}")
        robot.require_state("loop closure")
        self.name, self.frame_a, self.frame_b, self.kind = label, frame_a, frame_b, kind
        self.time_constant = float(time_constant)
        self.size = 6 if kind == "6d" else 3
        self._ids = (fa, fb)
        self.b_M_c: pin.SE3 = robot.frame_placement(fb).actInv(robot.frame_placement(fa))

    # ------------------------------------------------------------------ the constraint
    def _virtual(self, robot: RobotModel) -> tuple[pin.SE3, pin.SE3, pin.SE3]:
        """(o_M_a, o_M_b, o_M_c) at the robot's current state."""
        fa, fb = self._ids
        oMa, oMb = robot.frame_placement_view(fa), robot.frame_placement_view(fb)
        return oMa, oMb, oMb * self.b_M_c

    def error(self, robot: RobotModel) -> NDArray[np.float64]:
        """e at the robot's current state (6: −log₆(a_M_c), m over rad; 3: R_aᵀ(p_a − p_c), m)."""
        oMa, _, oMc = self._virtual(robot)
        if self.size == 6:
            return np.asarray(-pin.log6(oMa.actInv(oMc)).vector, dtype=float)
        out: NDArray[np.float64] = oMa.rotation.T @ (oMa.translation - oMc.translation)
        return out

    def jacobian(self, robot: RobotModel) -> NDArray[np.float64]:
        """J (size × nv) at the robot's current state (see the module docstring)."""
        fa, fb = self._ids
        oMa, oMb, oMc = self._virtual(robot)
        Ja, Jb = robot.frame_jacobian_view(fa), robot.frame_jacobian_view(fb)  # (world-aligned axes)
        Jc = _shift(Jb, oMc.translation - oMb.translation)  # c's world-aligned Jacobian (same body)
        Ra = oMa.rotation
        if self.size == 3:
            out3: NDArray[np.float64] = Ra.T @ (Ja[:3] - Jc[:3])
            return out3
        # J_a − Ad(a_M_c) J_c in a's axes, from the world-aligned rows: rotate the difference of the
        # twists taken at a's origin
        Jc_at_a = _shift(Jc, oMa.translation - oMc.translation)
        diff = Ja - Jc_at_a
        return np.vstack((Ra.T @ diff[:3], Ra.T @ diff[3:]))

    def drift(self, robot: RobotModel) -> NDArray[np.float64]:
        """The constrained relative acceleration at q̈ = 0 (size): 6d, d/dt (J q̇) (the relative spatial
        acceleration in a's axes); 3d, R_aᵀ(p̈_a − p̈_c), the origins' relative classical acceleration in
        a's axes (Pinocchio's ``CONTACT_3D``: d/dt (J q̇) + ω_a × J q̇ in a's axes, equal to it whenever
        the origins move together)."""
        fa, fb = self._ids
        oMa, oMb, oMc = self._virtual(robot)
        v = robot.v_view
        (Ja, ba), (Jb, bb) = robot.frame_jacobian_bias_view(fa), robot.frame_jacobian_bias_view(fb)
        ta, tb = Ja @ v, Jb @ v  # world-aligned twists (origin velocity over ω)
        wa, wb = ta[3:], tb[3:]
        r = oMc.translation - oMb.translation
        vc = tb[:3] + np.cross(wb, r)  # the classical velocity and acceleration of c's origin
        acc_c = bb[:3] + np.cross(bb[3:], r) + np.cross(wb, np.cross(wb, r))
        Ra = oMa.rotation
        dv = ta[:3] - vc  # ṗ_a − ṗ_c (world)
        if self.size == 3:  # the origins' relative classical acceleration, in a's axes
            out3: NDArray[np.float64] = Ra.T @ (ba[:3] - acc_c)
            return out3
        # 6D: the relative twist in a's axes at a's origin: u = Rᵀ(ṗ_a − ṗ_c − ω_c × (p_a − p_c)),
        # ω_rel = Rᵀ(ω_a − ω_c); ω_c = ω_b, α_c = α_b
        d = oMa.translation - oMc.translation
        lin = dv - np.cross(wb, d)
        ang = wa - wb
        dlin = ba[:3] - acc_c - np.cross(bb[3:], d) - np.cross(wb, dv)
        dang = ba[3:] - bb[3:]
        # d/dt (Rᵀ y) = Rᵀ(ẏ − ω_a × y)
        return np.concatenate((Ra.T @ (dlin - np.cross(wa, lin)), Ra.T @ (dang - np.cross(wa, ang))))

    def velocity_rows(self, robot: RobotModel) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """(J, −e/T): the rows J q̇ = −e/T of the velocity level."""
        return self.jacobian(robot), -self.error(robot) / self.time_constant

    def acceleration_rows(self, robot: RobotModel) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """(J, a₀ + K_p e + K_d J q̇): the rows J q̈ = −(a₀ + K_p e + K_d J q̇) of the acceleration level
        (a₀ = :meth:`drift`; the second array is what an inverse-dynamics scene's contact rows call a_c)."""
        J = self.jacobian(robot)
        T = self.time_constant
        acc = self.drift(robot) + self.error(robot) / (T * T) + (2.0 / T) * (J @ robot.v_view)
        return J, acc

    def __repr__(self) -> str:
        return f"LoopClosure({self.name!r}, {self.frame_a!r}, {self.frame_b!r}, kind={self.kind!r})"


def _shift(J: NDArray[np.float64], r: NDArray[np.float64]) -> NDArray[np.float64]:
    """World-aligned rows of the point at offset r from J's origin on the same body: v + ω × r."""
    out = J.copy()
    out[:3] -= pin.skew(r) @ J[3:]  # ω × r = −[r]× ω
    return out
