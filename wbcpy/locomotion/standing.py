"""The posture a walk starts from: :func:`start_posture`, and :func:`standing_posture` computed for robots
whose SRDF has none.

:func:`standing_posture` solves, by damped least squares on Pinocchio's kinematics (Levenberg–Marquardt,
joint limits by clamping), for a configuration q with

* both soles flat on the ground plane z = 0, level, heading ψ (the soles' mean heading at the initial
  guess), side by side at the robot's *natural width* w (their distance at the neutral configuration,
  legs straight: under the hips), their midpoint m where it was;
* the COM over m at the height ``crouch`` · z_s, z_s the COM's height above the soles at the neutral
  configuration (straight legs): the knees bend until the COM has dropped that much;
* the base upright (roll = pitch = 0);
* the other joints close to the initial guess (in the targets' null space).

Residuals r(q) = (log₆(T_i⁻¹ M_i(q)) for both soles, c(q) − c*, the roll and pitch of the base), Jacobians
from Pinocchio (``LOCAL`` for the soles, ``jacobianCenterOfMass``), steps δ = −Jᵀ(JJᵀ + μI)⁻¹ r plus a
null-space pull towards the guess, integrated on the configuration manifold, μ adapted
(Levenberg–Marquardt: a step that does not lower ‖r‖ is refused and μ grows tenfold). A straight knee is
a singular point of the leg (its length does not change to first order), so the initial guess bends each
knee — the middle one of its leg's pitch joints — by 0.3 rad to the side its limits allow most.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
import pinocchio as pin

from ..errors import ConfigError, UnknownNameError, WalkingWarning
from .feet import Feet
from .sole_finder import reference_posture

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel

#: the COM height of the computed posture, as a fraction of the straight-leg height (Talos's and Romeo's
#: SRDF ``half_sitting``: 0.945 and 0.941)
CROUCH = 0.93
#: the name of the computed posture in ``posture=`` / ``--posture``
COMPUTED = "computed"
#: the largest sole tilt of a posture to walk from (rad)
FLAT_TILT = 0.01
#: the largest height difference between the soles of a posture to walk from (m)
LEVEL = 2e-3
#: the gain of the joints' step back towards the initial guess, in the targets' null space (per step)
REGULARISATION = 0.1
_LOCAL = pin.ReferenceFrame.LOCAL
_LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED


def flatness(robot: RobotModel, feet: Feet, q: np.ndarray) -> tuple[float, float]:
    """(largest tilt of a sole (rad), height difference of the soles (m)) at q."""
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, q)
    M = [data.oMf[robot.frame_id(f)] for f in feet.frames]
    tilt = max(math.acos(min(1.0, float(m.rotation[2, 2]))) for m in M)
    return tilt, abs(float(M[0].translation[2] - M[1].translation[2]))


def _rz(yaw: float) -> np.ndarray:
    c, s = math.cos(yaw), math.sin(yaw)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _bend_knees(robot: RobotModel, feet: Feet, q: np.ndarray, bend: float = 0.3) -> np.ndarray:
    """q with each leg's knee (the middle of the leg's pitch joints, by height) bent by ``bend`` rad
    towards the side where its limits leave it more room."""
    model = robot.model
    data = model.createData()
    pin.computeJointJacobians(model, data, q)
    out = q.copy()
    for frame in feet.frames:
        j, pitch = model.frames[robot.frame_id(frame)].parentJoint, []
        while j > 0:
            joint = model.joints[j]
            if joint.nq == 1 and joint.nv == 1:
                axis = pin.getJointJacobian(model, data, j, _LWA)[3:, joint.idx_v]
                if abs(axis[1]) > 0.9:
                    pitch.append((float(data.oMi[j].translation[2]), j))
            j = model.parents[j]
        if len(pitch) < 3:
            continue
        knee = model.joints[sorted(pitch)[len(pitch) // 2][1]]
        lo, hi = model.lowerPositionLimit[knee.idx_q], model.upperPositionLimit[knee.idx_q]
        sign = 1.0 if (hi if math.isfinite(hi) else 1e9) >= -(lo if math.isfinite(lo) else -1e9) else -1.0
        out[knee.idx_q] = float(np.clip(out[knee.idx_q] + sign * bend, lo, hi))
    return out


def _sole_targets(robot: RobotModel, feet: Feet, q0: np.ndarray, width: float) -> tuple[pin.SE3, pin.SE3]:
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, q0)
    M = [data.oMf[robot.frame_id(f)] for f in feet.frames]
    yaws = [math.atan2(m.rotation[1, 0], m.rotation[0, 0]) for m in M]
    psi = math.atan2(sum(map(math.sin, yaws)), sum(map(math.cos, yaws)))
    mid = 0.5 * (M[0].translation[:2] + M[1].translation[:2])
    R = _rz(psi)
    lateral = R[:, 1] * 0.5 * width
    out = []
    for sign in (1.0, -1.0):
        p = np.array([mid[0], mid[1], 0.0]) + sign * lateral
        out.append(pin.SE3(R, p))
    return out[0], out[1]


def _straight(robot: RobotModel, feet: Feet) -> tuple[float, float]:
    """(natural width, straight-leg COM height above the soles) at the neutral configuration."""
    model = robot.model
    data = model.createData()
    q = robot.neutral()
    pin.framesForwardKinematics(model, data, q)
    com = pin.centerOfMass(model, data, q)
    L, R = (data.oMf[robot.frame_id(f)] for f in feet.frames)
    width = float(np.linalg.norm(L.translation[:2] - R.translation[:2]))
    return width, float(com[2] - 0.5 * (L.translation[2] + R.translation[2]))


def _residual(
    robot: RobotModel, data: pin.Data, q: np.ndarray, goal: dict[str, Any]
) -> tuple[np.ndarray, np.ndarray]:
    """The targets' residual (17: two soles' log₆ errors, the COM error, the base's roll and pitch) and
    its Jacobian (17 × nv) at q."""
    model = robot.model
    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)
    rows, jac = [], []
    for fid, target in zip(goal["fids"], goal["soles"], strict=True):
        err = target.actInv(data.oMf[fid])
        rows.append(pin.log6(err).vector)
        jac.append(pin.Jlog6(err) @ pin.getFrameJacobian(model, data, fid, _LOCAL))
    com = pin.centerOfMass(model, data, q)
    rows.append(com - goal["com"])
    jac.append(pin.jacobianCenterOfMass(model, data, q))
    base = data.oMi[1].rotation  # (the free-flyer's body: its tilt only)
    tilt = _rz(math.atan2(base[1, 0], base[0, 0])).T @ base
    rows.append(pin.log3(tilt)[:2])
    jac.append((pin.Jlog3(tilt) @ pin.getJointJacobian(model, data, 1, _LOCAL)[3:])[:2])
    return np.concatenate(rows), np.vstack(jac)


def _step(
    J: np.ndarray, r: np.ndarray, q: np.ndarray, q_ref: np.ndarray, mu: float, pull: bool
) -> np.ndarray:
    """δ = −Jᵀ(JJᵀ + μI)⁻¹ r (+ N δ₂ with ``pull``): the damped least-squares step on the targets, and in
    their null space N = I − J⁺J a step δ₂ = −k (q_j − q_j,ref) of the joints back towards the reference."""
    n = J.shape[1]
    primary = -J.T @ np.linalg.solve(J @ J.T + mu * np.eye(J.shape[0]), r)
    if not pull:
        return primary
    back = np.zeros(n)
    back[6:] = -(q[7:] - q_ref[7:])
    null = back - np.linalg.pinv(J, rcond=1e-10) @ (J @ back)
    out: np.ndarray = primary + REGULARISATION * null
    return out


def standing_posture(
    robot: RobotModel, feet: Feet, crouch: float = CROUCH, guess: Any = None, iterations: int = 200
) -> np.ndarray:
    """A standing posture (module docstring): soles flat at the natural width, the COM over their midpoint
    at ``crouch`` times its straight-leg height, the base upright.

    Args:
        robot: a floating-base robot with the soles' frames (:meth:`Feet.attach`).
        feet: its soles.
        crouch: the COM height as a fraction of the straight-leg height, in (0.5, 1).
        guess: the initial configuration (nq), default the robot's reference posture (SRDF or neutral).
        iterations: the most Levenberg–Marquardt steps (the first half with the pull towards the guess).

    Returns:
        q (nq), a new array.

    Raises:
        ConfigError: a fixed-base robot, a crouch outside (0.5, 1), or no posture found (the soles or the
            COM more than 1 mm from their targets: out of reach within the joint limits).
    """
    if not robot.floating_base:
        raise ConfigError("robot", "a standing posture needs a floating-base robot")
    if isinstance(crouch, bool) or not isinstance(crouch, (int, float)) or not 0.5 < crouch < 1.0:
        raise ConfigError("crouch", f"must be a fraction in (0.5, 1), got {crouch!r}")
    model = robot.model
    q = np.array(reference_posture(robot) if guess is None else guess, dtype=float)
    width, z_straight = _straight(robot, feet)
    soles = _sole_targets(robot, feet, q, width)
    mid = 0.5 * (soles[0].translation + soles[1].translation)
    goal: dict[str, Any] = {
        "fids": [robot.frame_id(f) for f in feet.frames],
        "soles": soles,
        "com": np.array([mid[0], mid[1], crouch * z_straight]),
        "q_ref": q.copy(),
    }
    q = _bend_knees(robot, feet, q)
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    q[2] -= float(np.mean([data.oMf[i].translation[2] for i in goal["fids"]]))  # (the soles near z = 0)
    lower, upper = model.lowerPositionLimit[7:], model.upperPositionLimit[7:]
    mu = 1e-6
    r, J = _residual(robot, data, q, goal)
    for k in range(iterations):
        pull = k < iterations // 2  # (the second half: the targets alone, to full precision)
        if k == iterations // 2:
            mu = 1e-6
        if not pull and float(np.abs(r).max()) < 1e-10:
            break
        trial = pin.integrate(model, q, _step(J, r, q, goal["q_ref"], mu, pull))
        trial[7:] = np.clip(trial[7:], lower, upper)
        r_trial, J_trial = _residual(robot, data, trial, goal)
        if float(r_trial @ r_trial) < max(float(r @ r), 1e-8 if pull else 0.0):
            q, r, J, mu = trial, r_trial, J_trial, max(mu / 10.0, 1e-12)
        else:
            mu = min(mu * 10.0, 1e3)
    if float(np.abs(r).max()) > 1e-6:
        raise ConfigError(
            "posture", f"no standing posture of {robot.name!r} found (soles/COM {1e3 * np.abs(r).max():.1f} "
            "mm or mrad from their targets); give one (posture=...; --posture NAME)",
        )  # fmt: skip
    out: np.ndarray = pin.normalize(model, q)
    return out


def _checked(robot: RobotModel, feet: Feet, q: np.ndarray, what: str) -> np.ndarray:
    tilt, level = flatness(robot, feet, q)
    if tilt > FLAT_TILT or level > LEVEL:
        raise ConfigError(
            "posture", f"{what} does not stand flat: its soles are tilted by {tilt:.3f} rad and "
            f"{1e3 * level:.1f} mm apart in height (walking needs ≤ {FLAT_TILT} rad, ≤ {1e3 * LEVEL:.0f} mm)",
        )  # fmt: skip
    return q


def start_posture(robot: RobotModel, feet: Feet, posture: Any = None) -> np.ndarray:
    """The posture a walk starts from.

    Args:
        robot: a floating-base robot with the soles' frames.
        feet: its soles.
        posture: None: the SRDF's ``half_sitting`` when it has one whose soles are flat and level (tilt ≤
            :data:`FLAT_TILT`, heights within :data:`LEVEL`), else :func:`standing_posture` (with a
            :class:`~wbcpy.errors.WalkingWarning` when the SRDF posture is rejected); ``"computed"``:
            :func:`standing_posture`; another name: that SRDF posture; or a configuration (nq).

    Returns:
        q (nq), a new array.

    Raises:
        ConfigError: a named or given posture whose soles are not flat and level, a bad configuration.
        UnknownNameError: an unknown SRDF posture (the known ones listed).
    """
    names = robot.reference_configuration_names()
    if posture is None:
        if "half_sitting" not in names:
            return standing_posture(robot, feet)
        q = robot.reference_configuration("half_sitting")
        tilt, level = flatness(robot, feet, q)
        if tilt <= FLAT_TILT and level <= LEVEL:
            return q
        warnings.warn(
            WalkingWarning(
                f"robot {robot.name!r}: the SRDF posture half_sitting has its soles tilted by {tilt:.3f} rad "
                f"and {1e3 * level:.1f} mm apart in height; walking starts from a computed standing posture"
            ),
            stacklevel=2,
        )
        return standing_posture(robot, feet)
    if isinstance(posture, str):
        if posture == COMPUTED:
            return standing_posture(robot, feet)
        if posture not in names:
            raise UnknownNameError("posture", posture, [*names, COMPUTED])
        return _checked(robot, feet, robot.reference_configuration(posture), f"SRDF posture {posture!r}")
    try:
        q = np.array(posture, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ConfigError(
            "posture", f"expected a posture name or {robot.nq} numbers, got {posture!r:.60}"
        ) from None
    if q.size != robot.nq or not np.all(np.isfinite(q)):
        raise ConfigError("posture", f"expected {robot.nq} finite numbers, got shape {q.shape}")
    return _checked(robot, feet, pin.normalize(robot.model, q), "the posture given")
