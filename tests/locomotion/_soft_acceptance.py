"""The acceptance table of ``specs/mujoco.md``: a walking controller driven in a MuJoCo model by hand (the
loop a user writes), and the table's figures computed from the record with raw Pinocchio.

:func:`drive` closes the loop around any plant with ``state()``, ``apply(tau)`` (returning or recording
the soles' wrenches) and a force push; :func:`judge` measures, from the recorded q, v, the plant's sole
wrenches and the controller's planned ones:

* progress: the base's displacement projected on the planned one, over the planned one's length; the
  heading change against the planned turn;
* loaded soles (the plant's normal force above 20 % of m·g): their drift per stance (the largest ground
  distance of the sole's origin from where it was when the stance's load began) and their sliding speed
  (the ground speed of the sole's origin);
* the planned wrenches: friction use in norm ‖f_t‖ / (μ f_z) and the largest change of f_z per control step
  (m·g), zero while a sole is not in the controller's contact set;
* no fall: the base above 0.6 m over the ground, no body but the feet below 0.2 m over it (Talos's heights:
  :class:`Body` gives another robot's soles and heights); the soles never touch each other (their boxes,
  from raw Pinocchio's placements: separating-axis test).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pinocchio as pin

from wbcpy.errors import QPSolveError

SOLES = ("left_sole_link", "right_sole_link")
HALF_SIZE = (0.1, 0.065)
MU = 0.3
_LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED

#: the table's walks: name -> (plan_footsteps arguments, push (force N along +y, start s, duration s))
WALKS = {
    "forward": ({"n_steps": 10, "length": 0.20}, None),
    "turning": ({"n_steps": 8, "length": 0.10, "turn": math.pi / 2}, None),
    "sideways": ({"n_steps": 6, "length": 0.0, "lateral": 0.08}, None),
    "pushed": ({"n_steps": 10, "length": 0.15}, (300.0, 3.0, 0.1)),
}
#: the table's limits per walk: progress, drift (m), slide (m/s), friction use, f_z change (m·g)
LIMITS = {
    "forward": (0.95, 2e-3, 0.02, 0.9, 0.10),
    "turning": (None, 2e-3, 0.02, 0.9, 0.10),
    "sideways": (0.90, 2e-3, 0.02, 0.9, 0.10),
    "pushed": (0.85, 10e-3, 0.1, 0.9, 0.25),
}


@dataclass
class Record:
    t: list = field(default_factory=list)
    q: list = field(default_factory=list)
    v: list = field(default_factory=list)
    measured: list = field(default_factory=list)  # the plant's sole wrenches over the period (2, 6)
    planned: list = field(default_factory=list)  # the controller's (2, 6), zero when not a contact
    error: str = ""
    soles_touched: bool = False

    def arrays(self) -> dict[str, np.ndarray]:
        return {k: np.array(getattr(self, k)) for k in ("t", "q", "v", "measured", "planned")}


def drive(ctrl, robot, plant, duration: float, push=None, measured: bool = True, settle: float = 0.0
          ) -> Record:  # fmt: skip
    """The closed loop a user writes: per control step the plant's state into the robot, the last
    period's sole wrenches into the controller (``measured``), its torques into the plant. ``settle``
    seconds first (not recorded): the controller at t = 0, the robot put down on the floor."""
    dt = ctrl.dt
    rec = Record()
    wrenches = np.zeros((2, 6))
    for _ in range(round(settle / dt)):
        q, v = plant.state()
        robot.update(q, v)
        if measured:
            ctrl.set_measured_wrenches(dict(zip(SOLES, wrenches, strict=True)))
        wrenches = plant.apply(ctrl.step(0.0).effort)
    for k in range(round(duration / dt)):
        t = k * dt
        if push is not None and abs(t - push[1]) < 0.5 * dt:
            plant.push(np.array([0.0, push[0], 0.0]), push[2])
        q, v = plant.state()
        robot.update(q, v)
        if measured:
            ctrl.set_measured_wrenches(dict(zip(SOLES, wrenches, strict=True)))
        try:
            cmd = ctrl.step(t)
        except QPSolveError as exc:
            rec.error = f"no answer at t = {t:.3f} s: {exc}"
            break
        planned = ctrl.scene.get_contact_wrenches()
        rec.planned.append([planned.get(f, np.zeros(6)) for f in SOLES])
        wrenches = plant.apply(cmd.effort)
        rec.t.append(t)
        rec.q.append(q)
        rec.v.append(v)
        rec.measured.append(wrenches)
    rec.soles_touched = bool(getattr(plant, "soles_touched", False))
    return rec


def _yaw(R: np.ndarray) -> float:
    return math.atan2(R[1, 0], R[0, 0])


def _boxes_overlap(A: pin.SE3, B: pin.SE3, half: np.ndarray) -> bool:
    """Separating-axis test of two equal boxes (half sizes ``half``; centres and axes A, B)."""
    Ra, Rb, d = A.rotation, B.rotation, B.translation - A.translation
    axes = [Ra[:, i] for i in range(3)] + [Rb[:, i] for i in range(3)]
    axes += [np.cross(Ra[:, i], Rb[:, j]) for i in range(3) for j in range(3)]
    for n in axes:
        if n @ n < 1e-12:
            continue
        ra = sum(half[i] * abs(Ra[:, i] @ n) for i in range(3))
        rb = sum(half[i] * abs(Rb[:, i] @ n) for i in range(3))
        if abs(d @ n) > ra + rb:
            return False
    return True


@dataclass(frozen=True)
class Body:
    """What the figures need of the robot: its sole frames (left, right), the soles' half sizes (m) and
    friction coefficient, and the fall heights over the ground (m): the base below ``base_min`` or a body
    but the feet below ``body_min``. The defaults are Talos's."""

    soles: tuple[str, str] = SOLES
    half_size: tuple[float, float] = HALF_SIZE
    mu: float = MU
    base_min: float = 0.6
    body_min: float = 0.2


TALOS = Body()


def judge(rec: Record, model: pin.Model, plan: dict, box_half_thickness: float = 0.005, body: Body = TALOS
          ) -> dict[str, float]:  # fmt: skip
    """The table's figures of a recorded walk (see the module docstring)."""
    a = rec.arrays()
    data = model.createData()
    mg = pin.computeTotalMass(model) * 9.81
    fids = [model.getFrameId(f) for f in body.soles]
    q, v, W, P = a["q"], a["v"], a["measured"], a["planned"]
    K = len(q)
    pin.framesForwardKinematics(model, data, q[0])
    ground = float(np.mean([data.oMf[i].translation[2] for i in fids]))
    yaws = [_yaw(data.oMf[i].rotation) for i in fids]
    h0 = math.atan2(sum(map(math.sin, yaws)), sum(map(math.cos, yaws)))
    n, length = plan["n_steps"], plan.get("length", 0.0)
    lateral, turn = plan.get("lateral", 0.0), plan.get("turn", 0.0)
    dth = turn / (n - 1) if n > 1 else 0.0
    planned = sum(np.array([math.cos(h0 + k * dth) * length - math.sin(h0 + k * dth) * lateral,
                            math.sin(h0 + k * dth) * length + math.cos(h0 + k * dth) * lateral])
                  for k in range(1, n))  # fmt: skip
    d = q[-1, :2] - q[0, :2]
    progress = float(d @ planned / (planned @ planned))
    R0 = pin.Quaternion(q[0, 6], q[0, 3], q[0, 4], q[0, 5]).toRotationMatrix()
    R1 = pin.Quaternion(q[-1, 6], q[-1, 3], q[-1, 4], q[-1, 5]).toRotationMatrix()
    dyaw = (_yaw(R1) - _yaw(R0) + math.pi) % (2 * math.pi) - math.pi
    half = np.array([*body.half_size, box_half_thickness])
    box = pin.SE3(np.eye(3), np.array([0.0, 0.0, box_half_thickness]))
    foot_joints = {model.frames[i].parentJoint for i in fids}
    foot_joints |= {model.parents[j] for j in foot_joints}  # (the ankle's two joints)
    drift = slide = 0.0
    start: list[np.ndarray | None] = [None, None]
    base_low, body_low, touch = math.inf, math.inf, rec.soles_touched
    for k in range(K):
        pin.forwardKinematics(model, data, q[k], v[k])
        pin.updateFramePlacements(model, data)
        base_low = min(base_low, float(q[k, 2]) - ground)
        body_low = min(body_low, min(float(data.oMi[j].translation[2]) - ground
                                     for j in range(1, model.njoints) if j not in foot_joints))  # fmt: skip
        Ms = [data.oMf[i] for i in fids]
        touch = touch or _boxes_overlap(Ms[0] * box, Ms[1] * box, half)
        for s, fid in enumerate(fids):
            if W[k, s, 2] > 0.2 * mg:
                xy = Ms[s].translation[:2].copy()
                if start[s] is None:
                    start[s] = xy
                drift = max(drift, float(np.linalg.norm(xy - start[s])))
                vel = pin.getFrameVelocity(model, data, fid, _LWA).linear
                slide = max(slide, float(np.hypot(vel[0], vel[1])))
            else:
                start[s] = None
    fz = P[:, :, 2]
    ft = np.hypot(P[:, :, 0], P[:, :, 1])
    use = float(np.max(np.where(fz > 1e-3 * mg, ft / (body.mu * np.maximum(fz, 1e-9)), 0.0)))
    jump = float(np.max(np.abs(np.diff(fz, axis=0)))) / mg if K > 1 else 0.0
    return {
        "progress": progress, "heading_error": abs(dyaw - turn), "drift": drift, "slide": slide,
        "friction_use": use, "fz_jump": jump, "base_low": base_low, "body_low": body_low,
        "fell": float(base_low < body.base_min or body_low < body.body_min), "answered": float(not rec.error),
        "soles_touched": float(touch), "duration": K * 0.002,
    }  # fmt: skip


def failures(name: str, fig: dict[str, float]) -> list[str]:
    """The table's checks that a walk's figures fail."""
    progress, drift, slide, use, jump = LIMITS[name]
    out = []
    if progress is not None and fig["progress"] < progress:
        out.append(f"progress {fig['progress']:.3f} < {progress}")
    if name == "turning" and fig["heading_error"] > 0.1:
        out.append(f"heading error {fig['heading_error']:.3f} rad")
    checks = [("drift", drift), ("slide", slide), ("friction_use", use), ("fz_jump", jump)]
    out += [f"{k} {fig[k]:.4g} > {lim}" for k, lim in checks if fig[k] > lim]
    out += [k for k in ("fell", "soles_touched") if fig[k]]
    if not fig["answered"]:
        out.append("no answer")
    return out
