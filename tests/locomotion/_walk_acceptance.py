"""The acceptance checks of specs/walking.md, computed from a walk's log file alone with raw Pinocchio
(the robot's example-robot-data URDF loaded here, its sole frames added from the log's
``contact_parents``/``contact_placements`` when the URDF lacks them, the joints the log lists as locked
locked where it says, ``pin.constraintDynamics`` for the contact wrenches): nothing of wbcpy is used, so
the checks are independent of wbcpy's own.

The CoP margin required is min(10 mm, 20 % of the sole's smaller half size) (10 mm on Talos's soles). A
URDF effort limit that is not > 0 and finite is no limit (URDF writers put 0 where they know none)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pinocchio as pin

G0 = 9.81
#: tolerance of the cone checks (units of m·g): the plant's Baumgarte velocity term (logged gain) moves the
#: wrench of a foot at the end of its unloading ramp (f_z → 0) by up to ~2e-5·mg
CONE_TOL = 1e-4
_LOCAL = pin.ReferenceFrame.LOCAL
_LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED


#: the example-robot-data URDF of each robot walked in the tests
URDFS = {
    "talos": "talos_data/robots/talos_reduced.urdf",
    "g1": "g1_description/urdf/g1_29dof_rev_1_0.urdf",
    "icub": "icub_description/robots/icub.urdf",
    "romeo": "romeo_description/urdf/romeo.urdf",
}


def robot_model(robot: str = "talos", log: dict | None = None) -> pin.Model:
    """The robot's URDF with a free-flyer (raw Pinocchio), with the log's contact frames it lacks added."""
    import importlib.metadata

    dist = importlib.metadata.distribution("example-robot-data")
    root = dist.locate_file("cmeel.prefix/share/example-robot-data/robots")
    model = pin.buildModelFromUrdf(f"{root}/{URDFS[robot]}", pin.JointModelFreeFlyer())
    locked = [] if log is None else [str(n) for n in log.get("locked_joints", [])]
    if locked:  # (joints the walk locked, where it locked them: they move no inertia)
        q = pin.neutral(model)
        for name, angle in zip(locked, log["locked_positions"], strict=True):
            joint = model.joints[model.getJointId(name)]
            if joint.nq == 2:
                q[joint.idx_q : joint.idx_q + 2] = np.cos(angle), np.sin(angle)
            else:
                q[joint.idx_q] = angle
        model = pin.buildReducedModel(model, sorted(model.getJointId(n) for n in locked), q)
    if log is not None and "contact_parents" in log:
        frames = zip(log["contact_frames"], log["contact_parents"], log["contact_placements"], strict=True)
        for name, parent, M in frames:
            if not model.existFrame(str(name)):
                pf = model.frames[model.getFrameId(str(parent))]
                local = pf.placement * pin.SE3(M[:3, :3], M[:3, 3])
                fid = model.getFrameId(str(parent))
                model.addFrame(pin.Frame(str(name), pf.parentJoint, fid, local, pin.FrameType.OP_FRAME))
    return model


@dataclass
class Acceptance:
    """Measured figures and the failed checks (empty: every check holds)."""

    figures: dict[str, float] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)

    def check(self, name: str, ok: bool, detail: str = "") -> None:
        if not ok:
            self.failures.append(f"{name}: {detail}")


def _yaw(R: np.ndarray) -> float:
    return math.atan2(R[1, 0], R[0, 0])


def _base_R(q: np.ndarray) -> np.ndarray:
    return pin.Quaternion(q[6], q[3], q[4], q[5]).toRotationMatrix()


def _constraint_wrenches(model, data, q, v, tau, frames, active, kd=0.0):
    """(q̈, {i: wrench}) from Pinocchio's rigid-contact dynamics with one 6-D contact per active sole."""
    cms = pin.StdVec_RigidConstraintModel()
    idx = []
    pin.framesForwardKinematics(model, data, q)
    for i, f in enumerate(frames):
        if active[i]:
            fr = model.frames[model.getFrameId(str(f))]
            anchor = data.oMf[model.getFrameId(str(f))]
            kind = pin.ContactType.CONTACT_6D
            cm = pin.RigidConstraintModel(kind, model, fr.parentJoint, fr.placement, 0, anchor, _LOCAL)
            if hasattr(cm, "corrector"):  # the plant's Baumgarte velocity gain (logged); Pinocchio 3
                cm.corrector.Kd[:] = kd
            else:  # Pinocchio 4
                cm.setBaumgarteCorrectorParameters(pin.BaumgarteCorrectorParameters(0.0, kd))
            cms.append(cm)
            idx.append(i)
    cds = pin.StdVec_RigidConstraintData()
    for cm in cms:
        cds.append(cm.createData())
    pin.initConstraintDynamics(model, data, cms, cds)
    gen = np.concatenate((np.zeros(6), tau))
    qdd = pin.constraintDynamics(model, data, q, v, gen, cms, cds, pin.ProximalSettings(1e-12, 0.0, 1))
    lam = np.asarray(data.lambda_c).copy()
    return np.array(qdd), {i: lam[6 * j : 6 * j + 6] for j, i in enumerate(idx)}


def _wrench_ok(w, mu, X, Y, tol):
    fz = w[2]
    return (
        fz >= -tol
        and abs(w[0]) <= mu * fz + tol
        and abs(w[1]) <= mu * fz + tol
        and (abs(w[4]) <= X * fz + tol and abs(w[3]) <= Y * fz + tol)
    )


def accept(
    log: dict, n_steps: int, length: float, lateral: float = 0.0, turn: float = 0.0, pushed: bool = False,
    push_time: float | None = None, robot: str = "talos",
) -> Acceptance:  # fmt: skip
    """Every acceptance check of the spec on a log (a mapping of the ``.npz`` keys)."""
    model = robot_model(robot, log)
    data = model.createData()
    out = Acceptance()
    t, q, v, tau = log["t"], log["q"], log["v"], log["tau"]
    frames, active, W = [str(f) for f in log["contact_frames"]], log["active"], log["wrenches"]
    mu, (X, Y), dt = float(log["mu"]), log["half_size"], float(log["dt"])
    kd = float(log.get("contact_damping", 0.0))
    mg = pin.computeTotalMass(model) * G0
    K = t.size
    fids = [model.getFrameId(f) for f in frames]
    # ---- progress and heading
    pin.framesForwardKinematics(model, data, q[0])
    ground = float(np.mean([data.oMf[i].translation[2] for i in fids]))
    yaws0 = [_yaw(data.oMf[i].rotation) for i in fids]
    h0 = math.atan2(sum(map(math.sin, yaws0)), sum(map(math.cos, yaws0)))
    d = q[-1, :2] - q[0, :2]
    fwd = math.cos(h0) * d[0] + math.sin(h0) * d[1]
    side = -math.sin(h0) * d[0] + math.cos(h0) * d[1]
    dyaw = (_yaw(_base_R(q[-1])) - _yaw(_base_R(q[0])) + math.pi) % (2 * math.pi) - math.pi
    # the spec's walking frame: n - 1 advances (length, lateral), the k-th turned by k * turn / (n - 1)
    dth = turn / (n_steps - 1) if n_steps > 1 else 0.0
    planned = sum(
        np.array([[math.cos(k * dth), -math.sin(k * dth)], [math.sin(k * dth), math.cos(k * dth)]])
        @ [length, lateral]
        for k in range(1, n_steps)
    )
    prog = float(np.dot((fwd, side), planned) / np.dot(planned, planned))
    out.figures.update(progress=prog, forward=fwd, sideways=side, heading_error=abs(dyaw - turn))
    need = 0.8 if pushed else 0.9
    out.check("progress", prog >= need, f"{prog:.3f} < {need}")
    out.check("heading", abs(dyaw - turn) <= (0.2 if pushed else 0.1), f"{dyaw:.3f} vs {turn:.3f}")
    # ---- fall
    zmin = float((q[:, 2].min() - ground) / (q[0, 2] - ground))  # (heights above the ground)
    out.figures["base_height_min_ratio"] = zmin
    out.check("fall", zmin >= 0.85, f"base at {zmin:.3f} of its start height")
    corners = np.array([[X, Y, 0], [X, -Y, 0], [-X, Y, 0], [-X, -Y, 0]])
    lowest, slip_lin, slip_rot, td_dev, td_tilt, td_speed = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    cop_margin, fric_use, last_load, fz_max, wr_err, motion_err = math.inf, 0.0, 0.0, 0.0, 0.0, 0.0
    tau_lim = np.array(model.effortLimit[6:], dtype=float)
    tau_lim[~(tau_lim > 0.0) | (tau_lim > 1e300)] = np.inf
    tau_excess = float(np.max(np.abs(tau) - tau_lim))
    need_margin = min(0.01, 0.2 * min(X, Y))
    for k in range(K):
        pin.forwardKinematics(model, data, q[k], v[k])
        pin.updateFramePlacements(model, data)
        for i, fid in enumerate(fids):
            M = data.oMf[fid]
            z = (corners @ M.rotation.T + M.translation)[:, 2]
            lowest = min(lowest, float(z.min()) - ground)
            vel = pin.getFrameVelocity(model, data, fid, _LWA)
            if active[k, i]:
                slip_lin = max(slip_lin, float(np.linalg.norm(vel.linear)))
                slip_rot = max(slip_rot, float(np.linalg.norm(vel.angular)))
            if k > 0 and active[k, i] and not active[k - 1, i]:  # touch-down at step k
                td_dev = max(td_dev, abs(float(M.translation[2]) - ground))
                td_tilt = max(td_tilt, math.acos(min(1.0, float(M.rotation[2, 2]))))
                pin.forwardKinematics(model, data, q[k - 1], v[k - 1])
                td_speed = max(
                    td_speed, float(np.linalg.norm(pin.getFrameVelocity(model, data, fid, _LWA).linear))
                )
                pin.forwardKinematics(model, data, q[k], v[k])
                pin.updateFramePlacements(model, data)
            if active[k, i] and (k == K - 1 or not active[k + 1, i]) and k < K - 1:
                last_load = max(last_load, float(W[k, i, 2]))
        for i in range(len(frames)):
            w = W[k, i]
            if not active[k, i]:
                continue
            out.check(
                "logged wrench in cone", _wrench_ok(w, mu, X, Y, CONE_TOL * mg), f"step {k}, {frames[i]}"
            )
            fz_max = max(fz_max, float(w[2]))
            if w[2] >= 0.2 * mg:
                cop_margin = min(cop_margin, X - abs(w[4] / w[2]), Y - abs(w[3] / w[2]))
                fric_use = max(fric_use, max(abs(w[0]), abs(w[1])) / (mu * w[2]))
        qdd, raw = _constraint_wrenches(model, data, q[k], v[k], tau[k], frames, active[k], kd)
        for i, w in raw.items():
            wr_err = max(wr_err, float(np.abs(w - W[k, i])[:3].max()))
            out.check("raw wrench in cone", _wrench_ok(w, mu, X, Y, CONE_TOL * mg), f"step {k}, {frames[i]}")
        if k < K - 1:
            landing = bool((active[k + 1] & ~active[k]).any())
            # (the push lands at the first control step at or after its time)
            pushed_now = push_time is not None and k + 1 == max(0, math.ceil(push_time / dt - 1e-6))
            if not landing and not pushed_now:
                motion_err = max(motion_err, float(np.abs(v[k + 1] - v[k] - dt * qdd).max()))
                dq = pin.difference(model, q[k], q[k + 1]) - dt * v[k + 1]
                motion_err = max(motion_err, float(np.abs(dq).max()) / dt)
    out.figures.update(
        lowest_corner=lowest, slip_lin=slip_lin, slip_rot=slip_rot, touchdown_height=td_dev,
        touchdown_tilt=td_tilt, touchdown_speed=td_speed, cop_margin=cop_margin, friction_use=fric_use,
        last_active_load=last_load / mg, max_normal=fz_max / mg, raw_wrench_error=wr_err / mg,
        motion_error=motion_err, tau_excess=tau_excess,
    )  # fmt: skip
    out.check("ground", lowest >= -2e-3, f"a sole corner {1e3 * lowest:.2f} mm below the ground")
    out.check("touch-down height", td_dev <= 2e-3, f"{1e3 * td_dev:.2f} mm")
    out.check("touch-down tilt", td_tilt <= 0.02, f"{td_tilt:.4f} rad")
    out.check("touch-down speed", td_speed <= 0.3, f"{td_speed:.3f} m/s")
    out.check("slip", slip_lin <= 5e-3 and slip_rot <= 0.05, f"{slip_lin:.2e} m/s, {slip_rot:.2e} rad/s")
    out.check("CoP margin", cop_margin >= need_margin, f"{1e3 * cop_margin:.2f} mm < {1e3 * need_margin:.1f}")
    out.check("friction use", fric_use <= 0.9, f"{fric_use:.3f}")
    out.check("last active step", last_load <= 0.05 * mg, f"{last_load / mg:.3f} mg")
    out.check("normal force", fz_max <= 1.6 * mg, f"{fz_max / mg:.3f} mg")
    out.check("raw wrenches agree", wr_err <= 0.02 * mg, f"{wr_err / mg:.2e} mg")
    out.check("motion from torques", motion_err <= 1e-6, f"{motion_err:.2e}")
    out.check("effort", tau_excess <= 1e-6, f"{tau_excess:.2e} N·m above a limit")
    return out
