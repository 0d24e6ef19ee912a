"""The summary of a walk (:func:`~wbcpy.locomotion.walk`) and how it is judged from the walk's log.

The figures are read of the log alone (:class:`~wbcpy.locomotion.walk_log.WalkLog`) and the robot: the
base's displacement against the planned footsteps, the soles' slip, CoP margins and friction use, the
wrenches' excess over the real soles' cones (in floor axes) and the torques' over the effort limits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pinocchio as pin

from ..model.robot_model import RobotModel
from .soft_metrics import LOADED, SoftFigures, soft_figures
from .walk_log import WalkLog

#: standard gravity (m/s²): the weight m·g the figures are relative to
G0 = 9.81


@dataclass
class WalkSummary:
    """What :func:`~wbcpy.locomotion.walk` reports.

    Attributes:
        planned: the walking frame's planned displacement (m, along the start heading and across it) and
            heading change (rad): (forward, sideways, turn).
        moved: the base's displacement (m, start-heading axes) and heading change (rad, unwrapped over
            the walk: a full turn is 2π), same layout.
        progress: how much of the plan was walked (1 = the plan): with a planned translation, the base's
            displacement projected on it over its squared length (on a straight walk
            moved / ((n − 1) · length)); with only a turn planned, the fraction of the turn achieved
            (moved turn / planned turn); 1.0 when neither was planned.
        fell: the base dropped below 85 % of its start height or the controller had no answer.
        max_slip: the largest linear / angular velocity of a standing sole (m/s, rad/s): an active one on
            the rigid plant, a loaded one (normal force > 20 % of m·g) on another plant.
        cop_margin: the smallest distance of a loaded sole's CoP (≥ 20 % of mg) inside its edges (m).
        friction_use: the largest |f_t| / (μ f_z) of a loaded sole.
        violation: the logged wrenches' largest excess over the real soles' cones and f_z ≥ 0 (N), and
            |τ|'s over the effort limits (N·m).
        step_us: the controller step's median (µs). realtime: simulated time / wall time (plant included).
        duration: simulated time (s). error: why the walk stopped early ("" if it did not).
        pushed: the push was applied (a walk that stopped before the push's time was not pushed).
        weight: m·g (N).
        log: the controller's log. plant: the plant's name (``"pinocchio"``, ``"mujoco"``, ...).
        robot: the robot that walked (with its sole frames, joints without inertia locked).
        soft: the figures of a walk on soft contacts (:mod:`~wbcpy.locomotion.soft_metrics`: loaded
            soles' drift and slide, planned friction use in norm and f_z change per step).
        degraded: the control steps whose answer was degraded (:mod:`~wbcpy.locomotion.fallback`).

    Plain data: copies and pickles are independent summaries (``copy.copy`` shares the log's arrays).
    """

    planned: np.ndarray
    moved: np.ndarray
    progress: float
    fell: bool
    max_slip: tuple[float, float]
    cop_margin: float
    friction_use: float
    violation: dict[str, float]
    step_us: float
    realtime: float
    duration: float
    log: WalkLog
    error: str = ""
    pushed: bool = False
    weight: float = 1.0
    plant: str = "pinocchio"
    robot: Any = None
    soft: SoftFigures = field(default_factory=SoftFigures)
    degraded: int = 0

    @property
    def heading_error(self) -> float:
        """|moved turn − planned turn| (rad): how far the walk ended from the planned heading."""
        return abs(float(self.moved[2]) - float(self.planned[2]))

    @property
    def ok(self) -> bool:
        """No fall, no slip — on the rigid plant ≤ 5 mm/s, 0.05 rad/s for an active sole; on another
        plant the soft-contact figures within their limits
        (:data:`~wbcpy.locomotion.soft_metrics.SOFT_LIMITS`) —, wrenches in the real soles' cones (to
        1e-4·mg: the rigid plant's Baumgarte term moves a foot's wrench at the end of its unloading ramp by
        ~2e-5·mg), |τ| within limits (1e-6 N·m), progress ≥ 90 % of the plan (80 % when pushed), the
        heading within 0.1 rad of the planned one (0.2 rad when pushed) and no degraded answer."""
        mg = self.weight
        v = self.violation
        slip = (
            self.max_slip[0] <= 5e-3 and self.max_slip[1] <= 0.05
            if self.plant == "pinocchio"
            else self.soft.within(self.pushed)
        )
        return bool(
            not self.fell
            and not self.error
            and not self.degraded
            and slip
            and max(v.get("friction cone", 0.0), v.get("normal force", 0.0)) <= 1e-4 * max(mg, 1.0)
            and v.get("effort", 0.0) <= 1e-6
            and self.progress >= (0.8 if self.pushed else 0.9)
            and self.heading_error <= (0.2 if self.pushed else 0.1)
        )

    def text(self) -> str:
        """The summary as a few lines of text."""
        p, m = self.planned, self.moved
        return "\n".join(
            [
                f"walked {m[0]:.3f} m forward, {m[1]:.3f} m sideways, turned {m[2]:.3f} rad "
                f"(planned {p[0]:.3f}, {p[1]:.3f}, {p[2]:.3f}): progress {100 * self.progress:.1f} %, "
                f"heading error {self.heading_error:.3f} rad{'; pushed' if self.pushed else ''}",
                f"fall: {'YES' if self.fell else 'no'}{'  (' + self.error + ')' if self.error else ''}; "
                f"max slip {1e3 * self.max_slip[0]:.3f} mm/s, {self.max_slip[1]:.4f} rad/s",
                f"CoP margin {1e3 * self.cop_margin:.1f} mm, friction use {self.friction_use:.2f} "
                f"(loaded soles); cone/effort violation "
                + ", ".join(f"{k} {v:.2e}" for k, v in self.violation.items()),
                f"loaded soles: drift {1e3 * self.soft.drift:.2f} mm per stance, slide "
                f"{1e3 * self.soft.slide:.1f} mm/s; planned friction use (norm) "
                f"{self.soft.friction_use:.2f}, f_z change per step {self.soft.fz_step:.3f} mg; degraded "
                f"answers {self.degraded}",
                f"controller step median {self.step_us:.0f} µs; {self.duration:.1f} s simulated at "
                f"{self.realtime:.2f}x real time (plant: {self.plant})",
                "OK" if self.ok else "FAILED",
            ]
        )


def _planned(
    start: tuple[np.ndarray, float, float, float], plan: tuple[int, float, float, float]
) -> np.ndarray:
    """The walking frame's planned displacement in the start-heading axes (m) and turn (rad): the sum
    of the per-step advances (length, lateral) turned by k·turn/(n − 1) (:func:`plan_footsteps`)."""
    n, length, lateral, turn = plan
    dtheta = turn / (n - 1) if n > 1 else 0.0
    d = np.zeros(2)
    for k in range(1, n):
        c, s = math.cos(k * dtheta), math.sin(k * dtheta)
        d += (c * length - s * lateral, s * length + c * lateral)
    return np.array([d[0], d[1], turn])


def _displacement(q: np.ndarray, heading: float) -> np.ndarray:
    """The base's displacement over the log's configurations ``q`` (K × nq) in the start-heading axes (m)
    and its heading change (rad), unwrapped step by step: the yaw of the base's quaternion
    (x, y, z, w) = q[3:7] is atan2(2(wz + xy), 1 − 2(y² + z²)) (the angle of its x axis on the ground)."""
    c, s = math.cos(heading), math.sin(heading)
    d = q[-1, :2] - q[0, :2]
    x, y, z, w = q[:, 3], q[:, 4], q[:, 5], q[:, 6]
    yaw = np.unwrap(np.arctan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z)))
    return np.array([c * d[0] + s * d[1], -s * d[0] + c * d[1], float(yaw[-1] - yaw[0])])


def _progress(planned: np.ndarray, moved: np.ndarray) -> float:
    """:attr:`WalkSummary.progress`: the displacement projected on the planned one over its squared
    length; with only a turn planned, the fraction of the turn achieved; 1.0 when nothing is planned."""
    dist2 = float(planned[:2] @ planned[:2])
    if dist2 > 1e-12:
        return float(moved[:2] @ planned[:2]) / dist2
    if planned[2] != 0.0:
        return float(moved[2] / planned[2])
    return 1.0


def summarise(
    model: RobotModel,
    wl: WalkLog,
    effort_limit: np.ndarray | None,
    start: tuple[np.ndarray, float, float, float],
    plan: tuple[int, float, float, float],
    error: str,
    us: list[float],
    wall: float,
    pushed: bool,
) -> WalkSummary:
    """The :class:`WalkSummary` of a walk's log: the start feet frame ``start`` (position, heading, …,
    ground height), the plan (n_steps, length, lateral, turn), the error that stopped it ("" if none),
    the controller steps' durations ``us`` (s), the wall time (s) and whether it was pushed."""
    planned = _planned(start, plan)
    K = wl.t.size
    moved = _displacement(wl.q, start[1]) if K else np.zeros(3)
    progress = _progress(planned, moved)
    slip, rot = _slip(model, wl)
    margin, use = _margins(model, wl)
    violation = _violation(model, wl, effort_limit)
    ground = start[3]
    fell = bool(error) or (K > 0 and float(wl.q[:, 2].min()) - ground < 0.85 * (float(wl.q[0, 2]) - ground))
    return WalkSummary(
        planned, moved, progress, fell, (slip, rot), margin, use, violation,
        1e6 * float(np.median(us)) if us else math.nan, K * wl.dt / max(wall, 1e-9), K * wl.dt, wl,
        error, pushed, model.total_mass * G0, wl.plant, model, soft_figures(model, wl),
        int(wl.degraded.sum()),
    )  # fmt: skip


def _slip(model: RobotModel, wl: WalkLog) -> tuple[float, float]:
    """Largest linear and angular velocity of a standing sole over the log (m/s, rad/s): an active one on
    the rigid plant; on another plant a loaded one (normal force > ``LOADED`` · m g, as the soft figures
    count them), since there a swing foot grazing the floor carries force without standing."""
    counted = wl.active
    if wl.plant != "pinocchio" and wl.wrenches.size:
        counted = wl.active & (wl.wrenches[:, :, 2] > LOADED * model.total_mass * G0)
    lin = ang = 0.0
    for k in np.flatnonzero(counted.any(axis=1)):
        model.update(wl.q[k], wl.v[k])
        for i in np.flatnonzero(counted[k]):
            vel = model.frame_velocity(str(wl.contact_frames[i]))
            lin, ang = max(lin, float(np.linalg.norm(vel[:3]))), max(ang, float(np.linalg.norm(vel[3:])))
    return lin, ang


def _floor_wrenches(model: RobotModel, wl: WalkLog) -> np.ndarray:
    """The active soles' logged wrenches (n, 6) in floor axes: rotated from the sole's axes by the sole's
    tilt R_ψᵀ R (R the sole's rotation at the logged q, R_ψ its heading's yaw rotation), so that the
    friction rows hold the tangential force to the floor's normal — Coulomb's law is the contact
    surface's, and a soft plant's sole that grazes the floor tilted by θ adds f_n sin θ to the tangential
    force in its own axes. On the rigid plant an active sole is flat: the wrenches as logged."""
    out = []
    data = model.model.createData()
    ids = [model.frame_id(str(f)) for f in wl.contact_frames]
    for k in np.flatnonzero(wl.active.any(axis=1)):
        pin.framesForwardKinematics(model.model, data, wl.q[k])
        for i in np.flatnonzero(wl.active[k]):
            R = data.oMf[ids[i]].rotation
            c, s = R[0, 0], R[1, 0]
            n = math.hypot(c, s)
            tilt = np.array([[c / n, s / n, 0.0], [-s / n, c / n, 0.0], [0.0, 0.0, 1.0]]) @ R
            w = wl.wrenches[k, i]
            out.append(np.concatenate((tilt @ w[:3], tilt @ w[3:])))
    return np.array(out).reshape(-1, 6)


def _violation(model: RobotModel, wl: WalkLog, effort_limit: np.ndarray | None) -> dict[str, float]:
    """Largest excess of the active soles' wrenches (in floor axes: :func:`_floor_wrenches`) over the real
    soles' contact wrench cones (N, the cone's unit rows), of −f_z (N) and of |τ| over the effort limits
    (N·m)."""
    from ..contacts.contacts import SurfaceContact

    U = SurfaceContact("sole", half_size=(float(wl.half_size[0]), float(wl.half_size[1])), mu=wl.mu).cone()
    U = U / np.linalg.norm(U, axis=1, keepdims=True)
    w = _floor_wrenches(model, wl)
    cone = float((w @ U.T).max()) if w.size else 0.0
    normal = float(max(0.0, -w[:, 2].min())) if w.size else 0.0
    effort = float(np.max(np.abs(wl.tau) - effort_limit)) if effort_limit is not None and wl.t.size else 0.0
    return {"friction cone": max(cone, 0.0), "normal force": normal, "effort": max(effort, 0.0)}


def _margins(model: RobotModel, wl: WalkLog) -> tuple[float, float]:
    """Smallest CoP distance inside the sole's edges and largest friction use of loaded soles."""
    mg = model.total_mass * G0
    w = wl.wrenches.reshape(-1, 6)
    loaded = w[:, 2] >= 0.2 * mg
    if not loaded.any():
        return math.nan, math.nan
    w = w[loaded]
    cop = np.stack((-w[:, 4] / w[:, 2], w[:, 3] / w[:, 2]), axis=1)
    X, Y = wl.half_size
    margin = float(np.min(np.minimum(X - np.abs(cop[:, 0]), Y - np.abs(cop[:, 1]))))
    use = float(np.max(np.maximum(np.abs(w[:, 0]), np.abs(w[:, 1])) / (wl.mu * w[:, 2])))
    return margin, use
