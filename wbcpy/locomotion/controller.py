"""WalkingController: a :class:`WalkingPattern` tracked by an InverseDynamicsScene that outputs torques.

One weighted task level (the scene's hard constraints sit above it: equations of motion, rigid contacts,
contact wrench cones, URDF effort limits):

* ``com`` (weight 10): on the ground plane the DCM law of :meth:`WalkingController._write_com`, its
  height by PD along the pattern's COM;
* ``left_foot`` / ``right_foot`` (weight 10, active while that foot swings): the swing trajectory, PD in
  world axes;
* ``base`` (weight 1, orientation rows only): the base upright, heading between the feet's headings;
* ``posture`` (weight 1e-3): PD towards the starting posture.

Contacts follow the pattern's schedule: the foot about to swing is unloaded over the double support
before its lift-off (``set_contact_active(frame, False, transition=...)``: its normal force falls linearly
to 0, so nothing jumps at lift-off), the landing foot is activated when its swing ends (the plant's
inelastic impact lands it).

Balance strategies: the ankle (the CoP in the stance sole: the DCM law's ZMP is clamped into it), the
hip (while a pushed swing adapts its footstep the ZMP is not clamped: the COM task then asks for more than
the sole can give, and the QP turns the trunk and limbs — centroidal angular momentum — to give it; the
COM task weighs as much as the swing foot's, so the swing leg's own momentum does not push the COM off),
and the step (:meth:`WalkingController._adapt`).

Robustness margins by construction: the scene's soles are the real ones shrunk by ``cop_margin`` per edge
and its friction pyramid is the one inscribed in the Coulomb cone of ``friction_use`` · μ (μ_s =
``friction_use`` · μ / √2 on each sole axis, so that ‖f_t‖ ≤ ``friction_use`` · μ f_z in the Euclidean
norm), so every wrench the scene allows — and with it the rigid plant's, which equals it (same τ, same
active contacts, both exact) — keeps its CoP that far inside the real sole and its tangential force
below ``friction_use`` · μ f_z on any floor, isotropic (MuJoCo's elliptic cones) or not. (An inscribed
pyramid rather than more facets: no more cone rows than the square pyramid, and the corner forces of the
scene's contact wrench cone stay inside the Coulomb cone too; it gives up 1 − cos(π/8) ≈ 8 % of the
tangential force along the axes against an inscribed octagon, 29 % against the square pyramid.)

A landing foot's normal force ramps up (the scene's loading ramp over ``landing_time``) and the contact
rows damp the soles' velocity (``contact_kd``): on a soft floor a foot is loaded gradually and a foot
that moves is brought to rest; on the rigid plant, which holds the soles still, the damping term is 0.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pinocchio as pin

from ..contacts import SurfaceContact
from ..controllers import CartesianPD, ComPD, JointPD
from ..errors import ConfigError, EffortLimitWarning, QPSolveError
from ..scenes.inverse_dynamics_scene import InverseDynamicsScene
from ..scenes.joint_command import JointCommand
from ..tasks import CartesianTask, ComTask, JointTask
from .fallback import Fallback
from .footsteps import SIDES, yaw_of
from .pattern import Phase, WalkingPattern, quintic
from .scaling import walking_scale
from .sole_gap import SOLE_CLEARANCE, lateral_extent
from .swing_speed import SWING_SPEED, speed_limited
from .touchdown import Touchdown

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel

#: :meth:`WalkingPattern.lipm`'s answer: the COM, DCM and ZMP of the plan as (x, y) float pairs
Lipm = tuple[tuple[float, float], tuple[float, float], tuple[float, float]]


#: the last part of a swing (s) that keeps its footstep: a re-plan later than this asks the swing leg for
#: accelerations it cannot follow, and the foot lands moving
ADAPT_STOP = 0.1
#: the time (s, Talos's; scaled by the robot's time scale) over which a landing foot's normal-force bound
#: rises from 0 to the largest normal force (the scene's loading ramp): 1.5 m·g in 25 steps of 2 ms, at
#: most 0.06 m·g per step
LANDING_TIME = 0.05
#: the contacts' velocity gain K_d (1/s, Talos's; scaled by the robot's time scale): a sole that moves on a
#: soft floor is brought to rest, ẍ_c = −K_d ẋ_c (:mod:`wbcpy.contacts.contacts`)
CONTACT_KD = 10.0


def default_cop_margin(half_size: tuple[float, float]) -> float:
    """How far inside the real sole's edges the controller keeps the CoP (m): 15 mm, at most a quarter of
    the sole's smaller half size (Talos's 0.065 m sole: 15 mm; a 0.03 m one: 7.5 mm)."""
    return min(0.015, 0.25 * min(half_size))


class WalkingController:
    """Tracks a :class:`WalkingPattern` with an :class:`~wbcpy.InverseDynamicsScene` (see the
    module docstring). Per control step, at the measured state::

        ctrl.schedule(t)          # contact switches of the pattern (before the plant lands a foot)
        robot.update(q, v)
        cmd = ctrl.step(t)        # JointCommand: q̈ and τ of the actuated joints

    Attributes:
        robot, pattern, scene, dt: as given / built. feet: {side: sole frame}.
        half_size, mu: the real soles and friction (the scene uses the shrunk ones).
        scale: the robot's :class:`~wbcpy.locomotion.scaling.WalkingScale` (gains, reach).
        reach: the footstep adaptation's reach box (m, stance-sole axes): (forward min, max), (sideways
            min, max).
    """

    def __init__(
        self,
        robot: RobotModel,
        pattern: WalkingPattern,
        dt: float = 0.002,
        solver: str | None = None,
        half_size: tuple[float, float] | None = None,
        mu: float | None = None,
        cop_margin: float | None = None,
        friction_use: float = 0.85,
        posture: Any = None,
        push_recovery: bool = True,
        max_normal: float = 1.5,
    ) -> None:
        """Build the scene (contacts, tasks) from the robot's current state.

        Args:
            robot: the robot (state set: the start of the pattern).
            pattern: the walk.
            dt: control step (s).
            solver: QP backend (None: the default).
            half_size, mu: the real soles' half sizes (m) and friction coefficient; None: the pattern's
                :class:`~wbcpy.locomotion.feet.Feet`'s.
            cop_margin: how far inside the real sole's edges the CoP stays (m); None:
                :func:`default_cop_margin`.
            friction_use: the largest ‖f_t‖ / (μ f_z) the scene allows (Euclidean norm: module docstring).
            posture: the posture target (nq), default the robot's current configuration.
            push_recovery: adapt the footsteps to the measured DCM (:meth:`_adapt`).
            max_normal: the largest normal force of a sole, in units of m·g.

        The gains, the reach of the footstep adaptation and its threshold are Talos's scaled to the robot
        (:class:`~wbcpy.locomotion.scaling.WalkingScale`). Actuated joints without a URDF effort limit are
        named in an :class:`~wbcpy.errors.EffortLimitWarning` (their torques are unbounded).

        Raises:
            ConfigError: the robot lacks a sole frame of the pattern's feet (add them:
                ``pattern.feet.attach(robot)``).
        """
        feet = pattern.feet
        missing = feet.missing(robot)
        if missing:
            raise ConfigError(
                "feet", f"the robot lacks the sole frame(s) {', '.join(s.frame for s in missing)}: walk the "
                "robot of pattern.feet.attach(robot)",
            )  # fmt: skip
        self.robot, self.pattern, self.dt = robot, pattern, float(dt)
        half_size = feet.half_size if half_size is None else half_size
        self.half_size, self.mu = half_size, feet.mu if mu is None else mu
        cop_margin = default_cop_margin(half_size) if cop_margin is None else cop_margin
        self.feet = dict(zip(SIDES, feet.frames, strict=True))
        scale = self.scale = walking_scale(robot, feet)
        inner = self._inner = (half_size[0] - cop_margin, half_size[1] - cop_margin)
        scene = self.scene = InverseDynamicsScene(robot, solver=solver, dt=dt, effort_limits=True)
        self._warn_effort_limits()
        fz_max = max_normal * robot.total_mass * 9.81
        kd = CONTACT_KD / scale.time
        self.landing_time = LANDING_TIME * scale.time
        mu_axis = friction_use * self.mu / math.sqrt(2.0)  # (the inscribed pyramid: module docstring)
        scene.set_contacts([SurfaceContact(f, inner, mu_axis, fz_max=fz_max, kd=kd) for f in feet.frames])
        joints = [n for n in robot.joint_names if robot.model.joints[robot.joint_id(n)].nv == 1]
        configs: list[dict[str, Any]] = [
            {"name": "com", "type": "com", "weights": [10.0] * 3},
            {
                "name": "base",
                "type": "cart",
                "tip": robot.root_link,
                "root": "universe",
                "weights": [0, 0, 0, 1, 1, 1],
            },
            {"name": "posture", "type": "jnt", "joint_names": joints, "weights": [1e-3] * len(joints)},
        ]
        for side, frame in self.feet.items():
            foot = {"name": f"{side}_foot", "type": "cart", "tip": frame, "root": "universe"}
            configs.append({**foot, "weights": [10.0] * 6, "activation": 0.0})
        scene.configure(configs)
        q = robot.state_view("walking controller")[0] if posture is None else posture
        self.posture = np.array(q, dtype=float)[7:]
        # the height by PD; the ground plane by the DCM law of _write_com (no PD terms there)
        kp, kd = scale.gains(60.0)
        self.com_pd = ComPD(kp=[0.0, 0.0, kp], kd=[0.0, 0.0, kd])
        self.foot_pd = CartesianPD(*scale.gains(400.0, 40.0))
        self.base_pd = CartesianPD(*scale.gains(100.0, 20.0))
        self.posture_pd = JointPD(*scale.gains(10.0))
        self._com = cast(ComTask, scene.get_task("com"))
        self._base = cast(CartesianTask, scene.get_task("base"))
        self._posture = cast(JointTask, scene.get_task("posture"))
        self._foot = {side: cast(CartesianTask, scene.get_task(f"{side}_foot")) for side in SIDES}
        self._bind_references()
        self._swinging: str | None = None
        self._swing_phase = Phase("start", 0.0, 0.0)  # the swing's phase while a foot swings
        self._landed = -1  # the footstep whose foot landed last
        self.touchdown = Touchdown(self.feet, scale.weight, scale.size, 0.5 * pattern.double_support_time)
        self._scheduled = math.nan  # the time of the last schedule() (s)
        self.fallback = Fallback(robot.dof_names[6:])
        #: push recovery: the plan at lift-off, whether this swing adapts, the re-planned swing path
        self.push_recovery, self.dcm_gain = push_recovery, 3.0 / scale.time
        self.adapt_threshold, self.reach = scale.adapt_threshold, scale.reach
        self.swing_speed = SWING_SPEED * scale.size / scale.time
        self.clearance = SOLE_CLEARANCE * scale.size
        self._nominal: WalkingPattern | None = None
        self._nominal_version = -1  # the pattern's version when _nominal was copied from it
        self._adapting = False
        self._unloaded = -1  # the footstep whose swing foot is being unloaded
        self._swing_override: tuple[float, Callable[[float], tuple[np.ndarray, ...]]] | None = None
        #: the swing foot's reference of the step (:meth:`_swing_reference`): placement, twist, acceleration
        self._swing_M, self._swing_v, self._swing_a = np.eye(4), np.zeros(6), np.zeros(6)
        self._swing_blocks = (self._swing_M[:3, :3], self._swing_M[:3, 3])  # (views: rotation, translation)
        self._swing_pose = pin.SE3.Identity()  # the foot law's target (set_target copies it)
        #: the stance sole of :meth:`_clamp_zmp` (cx, cy and its rotation's ground block) and its key
        self._stance_key: tuple[float, int] | None = None
        self._stance = (0.0, 0.0, 1.0, 0.0, 0.0, 1.0)

    def _warn_effort_limits(self) -> None:
        """An :class:`EffortLimitWarning` naming the actuated joints without a URDF effort limit."""
        limit = self.scene.effort_limit
        if limit is None or np.all(np.isfinite(limit)):
            return
        dofs = [self.robot.dof_names[i] for i in range(6, self.robot.nv)]
        unbounded = [d for d, x in zip(dofs, limit, strict=True) if not np.isfinite(x)]
        warnings.warn(EffortLimitWarning(self.robot.name, unbounded), stacklevel=3)

    def _bind_references(self) -> None:
        """The hot loop's references, validated once: the posture, base and swing-foot laws bound to
        their tasks (:meth:`~wbcpy.scenes.scene.Scene.bind`; per step only ``update()``, and
        ``set_target`` when a target moves), and the COM task's acceleration written in place by
        :meth:`_write_com` (the task's ``target_view``/``stamp`` protocol; its values come from the
        pattern and the measured state, finite by construction)."""
        robot, scene = self.robot, self.scene
        self._posture_law = scene.bind("posture", self.posture_pd, self.posture)
        self._yaw = math.nan  # the base binding's target heading (rad)
        soles = [yaw_of(robot.frame_placement(f).rotation) for f in self.feet.values()]
        heading = math.atan2(sum(map(math.sin, soles)), sum(map(math.cos, soles)))
        offset = yaw_of(robot.frame_placement(robot.root_link).rotation) - heading
        #: the base's heading relative to the soles' mean heading at the start (rad, in [−π, π))
        self._base_offset = (offset + math.pi) % (2 * math.pi) - math.pi
        self._planted_key: tuple[float, str, int] | None = None
        self._planted_sum = (0.0, 0.0)  # Σ sin, Σ cos of the planted soles' headings
        self._base_law = scene.bind("base", self.base_pd, pin.SE3.Identity())
        self._foot_law = {
            side: scene.bind(f"{side}_foot", self.foot_pd, robot.frame_placement(frame))
            for side, frame in self.feet.items()
        }
        kp, kd = (np.broadcast_to(np.asarray(g, dtype=float), (3,)) for g in (self.com_pd.kp, self.com_pd.kd))
        self._com_gains = (float(kp[2]), float(kd[2]))  # (the ground plane: the DCM law, no PD terms)
        scene.set_reference("com", self.com_pd.reference(self._com, robot.com()))
        self._com_view = self._com.target_view()

    # ------------------------------------------------------------------ contacts
    def set_measured_wrenches(self, wrenches: Any) -> None:
        """The soles' measured wrenches for the next :meth:`step` (and the ones after, until the next call):
        ``{sole frame: wrench}`` for both soles, 6-vectors — force over torque, in the sole frame's axes,
        about its origin, what the ground exerts on the robot (N, N·m). A swing foot then lands when it
        feels the ground (early or late: :mod:`~wbcpy.locomotion.touchdown`); ``None`` returns to the
        pattern's clock (the default).

        Raises:
            ConfigError: not a mapping or None, or a sole missing. UnknownNameError: a key that is not a
                sole frame. InvalidValueError: a wrench that is not 6 finite numbers. Nothing changes on
                error.
        """
        self.touchdown.set(wrenches)

    def _landed_now(self, t: float) -> bool:
        """Whether the swinging foot lands at time t (:meth:`Touchdown.landed`; its ground speed from the
        robot's state, only asked with measurements)."""
        sp, side, touchdown = self._swing_phase, str(self._swinging), self.touchdown
        speed = 0.0
        if touchdown.measuring and sp.t0 + 0.5 * (sp.t1 - sp.t0) <= t < sp.t1 + touchdown.max_delay:
            speed = float(np.hypot(*self.robot.frame_velocity(self.feet[side])[:2]))
        return touchdown.landed(side, t, sp.t0, sp.t1, speed)

    def schedule(self, t: float) -> None:
        """Apply the pattern's contact events at time t: unload the next swing foot over the double
        support before its lift-off, land the swing foot when its swing ends (idempotent: a second call
        at the same t changes nothing, and returns at once)."""
        if t == self._scheduled:
            return
        self._scheduled = t
        scene, pattern = self.scene, self.pattern
        ph = pattern.phase(t)
        active = scene.active_contact_frames
        sp = self._swing_phase
        if self._swinging is not None and self._landed_now(t):
            scene.set_contact_active(self.feet[self._swinging], True, transition=self.landing_time)
            scene.set_task_activation(f"{self._swinging}_foot", 0.0)
            self._swinging, self._landed = None, sp.step
        nxt = pattern.phase(ph.t1 + 0.5 * self.dt) if ph.kind in ("start", "double") else None
        if nxt is not None and nxt.kind == "single" and nxt.swing is not None and self._swinging is None:
            left = nxt.t0 - t
            frame = self.feet[nxt.swing]
            if left <= pattern.double_support_time + 1e-9 and frame in active and self._unloaded != nxt.step:
                scene.set_contact_active(frame, False, transition=left)
                self._unloaded = nxt.step
        lifts = self._swinging is None and self._landed != ph.step
        if lifts and ph.kind == "single" and ph.swing is not None:
            self._swing_phase = ph
            self._swinging = ph.swing
            self._nominal, self._adapting, self._swing_override = pattern.copy(), False, None
            self._nominal_version = pattern.version
            scene.set_contact_active(self.feet[ph.swing], False)  # (the ramp has ended: a no-op then)
            scene.set_task_activation(f"{ph.swing}_foot", 1.0)

    # ------------------------------------------------------------------ references
    def _base_yaw(self, t: float, ph: Phase, swing: str | None) -> float:
        """The base's heading (rad): the mean of the planted soles' and the swing sole's headings (the
        planted soles' part is cached per phase and plan version; the swing sole's from
        :attr:`_swing_M`)."""
        pattern = self.pattern
        key = (ph.t0, ph.kind, pattern.version)
        if self._planted_key != key:
            yaws = [yaw_of(M.rotation) for M in pattern.planted(t).values()]
            self._planted_sum = (sum(math.sin(y) for y in yaws), sum(math.cos(y) for y in yaws))
            self._planted_key = key
        s, c = self._planted_sum
        if swing is not None:
            y = yaw_of(self._swing_M)
            s, c = s + math.sin(y), c + math.cos(y)
        return math.atan2(s, c)

    def _base_target(self, yaw: float) -> pin.SE3:
        """The base upright with heading ``yaw`` (rad) plus its heading relative to the soles' at the start
        (:attr:`_base_offset`: 0 when the base's x axis points forward, π for iCub's, whose points back)."""
        yaw = yaw + self._base_offset
        c, s = math.cos(yaw), math.sin(yaw)
        return pin.SE3(np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]), np.zeros(3))

    # ------------------------------------------------------------------ push recovery
    def _write_com(self, plan: Lipm, ph: Phase, x: list[float], v: list[float]) -> None:
        """The COM task's acceleration reference, written in place: ẍ*_{x,y} = ω²(x − p*) with the DCM
        feedback p* = p_ref + (1 + k_ξ/ω)(ξ − ξ_ref), ξ = x + ẋ/ω the measured DCM (clamped into the stance
        sole in single support: :meth:`_clamp_zmp`), ẍ*_z = ẍ_ref,z + k_p (z_ref − z) + k_d (ż_ref − ż) —
        the same values as the COM law ``com_pd`` gives with its ground-plane gains 0 and K_ff = 1.

        Args:
            plan: the pattern's :meth:`~WalkingPattern.lipm` at the time. ph: its phase. x, v: the measured
                COM position and velocity (world, m and m/s, as float lists).
        """
        pattern = self.pattern
        w = pattern.omega
        _, (xi0, xi1), (p0, p1) = plan
        k = 1.0 + self.dcm_gain / w
        px, py = self._clamp_zmp(ph, p0 + k * (x[0] + v[0] / w - xi0), p1 + k * (x[1] + v[1] / w - xi1))
        kp, kd = self._com_gains
        out = self._com_view
        out[0] = w * w * (x[0] - px)
        out[1] = w * w * (x[1] - py)
        # (the plan's COM height is constant: z_ref = ground + z_c, ż_ref = z̈_ref = 0)
        out[2] = kp * (pattern.ground + pattern.com_height - x[2]) + kd * (0.0 - v[2])
        self._com.stamp(self.scene.clock())

    def _clamp_zmp(self, ph: Phase, px: float, py: float) -> tuple[float, float]:
        """In single support, (px, py) clamped into the stance sole as the scene sees it (a ZMP the
        contact can realise: the COM task then asks for what the feet can give): in the sole's axes
        (R₂ its rotation's ground block, c its centre) ℓ = clip(R₂ᵀ(p − c), ±half size), p = c + R₂ℓ.
        The sole is cached per phase and plan version. Not clamped while the swing adapts its footstep
        (a push: the hip strategy of the module docstring)."""
        if ph.kind != "single" or ph.stance is None or self._adapting:
            return px, py
        key = (ph.t0, self.pattern.version)
        if self._stance_key != key:
            sole = self.pattern.foot_before(ph.step, ph.stance)
            (r00, r01, _), (r10, r11, _), _ = sole.rotation.tolist()
            cx, cy, _ = sole.translation.tolist()
            self._stance = (cx, cy, r00, r01, r10, r11)
            self._stance_key = key
        cx, cy, r00, r01, r10, r11 = self._stance
        X, Y = self._inner
        dx, dy = px - cx, py - cy
        lx = min(max(r00 * dx + r10 * dy, -X), X)
        ly = min(max(r01 * dx + r11 * dy, -Y), Y)
        return cx + (r00 * lx + r01 * ly), cy + (r10 * lx + r11 * ly)

    def _adapt(self, t: float, ph: Phase, plan: Lipm, x: list[float], v: list[float]) -> bool:
        """Capture-point footstep adaptation in single support (Englsberger 2015, sec. on step
        adjustment): with the stance ZMP fixed, a DCM error e = ξ − ξ_nom grows as e^{ω(t_td − t)} e
        until touch-down, so the swing foot lands that much beside its nominal footstep (clamped to the
        reach and away from the stance foot); the pattern is re-planned over the moved footstep and the
        swing re-planned from the foot's measured state (a quintic to the new footstep).

        Args:
            t: time (s). ph: the pattern's phase at t. plan: its :meth:`~WalkingPattern.lipm` at t. x, v:
                the measured COM position and velocity (world, m and m/s, as float lists).

        Returns:
            True when the footstep (and with it the plan) moved.
        """
        pattern, robot = self.pattern, self.robot
        if ph.kind != "single" or ph.swing is None or self._nominal is None or self._swinging != ph.swing:
            return False
        w, left = pattern.omega, ph.t1 - t
        # (the plan at lift-off: the pattern itself while no footstep moved since, the same numbers)
        n0, n1 = (plan if pattern.version == self._nominal_version else self._nominal.lipm(t))[1]
        grow = math.exp(w * left)
        shift = (grow * ((x[0] + v[0] / w) - n0), grow * ((x[1] + v[1] / w) - n1))
        if not self._adapting and math.hypot(*shift) < self.adapt_threshold:
            return False
        self._adapting = True
        nominal = self._nominal.steps[ph.step].placement
        target = self._reachable(ph, nominal.translation[:2] + np.array(shift), yaw_of(nominal.rotation))
        current = pattern.steps[ph.step].placement.translation[:2]
        if float(np.linalg.norm(target - current)) < 2e-3 or left < ADAPT_STOP:
            return False
        frame = self.feet[ph.swing]
        ref = pattern.swing(t)
        acc = ref[3][:3] if ref is not None else np.zeros(3)
        pos, vel = robot.frame_placement(frame).translation, robot.frame_velocity(frame)[:3]
        if self.touchdown.measuring:  # (a real floor: a foot that lands moving slides — swing_speed)
            target = speed_limited(pos[:2], vel[:2], acc[:2], current, target, left, self.swing_speed)
            if float(np.linalg.norm(target - current)) < 2e-3:
                return False
        pattern.set_step(ph.step, pin.SE3(nominal.rotation, np.array([*target, nominal.translation[2]])))
        goal = pattern.steps[ph.step].placement.translation
        self._swing_override = (t, quintic(pos.copy(), vel, acc, goal.copy(), left))
        return True

    def _reachable(self, ph: Any, xy: np.ndarray, yaw: float) -> np.ndarray:
        """``xy`` clamped, in the stance sole's axes, to the reach box (:attr:`reach`; Talos: forward
        [−0.3, 0.5] m, sideways [0.16, 0.45] m away from the stance foot on the swing foot's side: no
        crossing), its near side at least the two footprints' half extents across the stance sole plus
        the clearance (:mod:`~wbcpy.locomotion.sole_gap`: the swing sole, at heading ``yaw`` (rad), keeps
        off the stance sole's footprint wherever it lands ahead or behind)."""
        stance = self.pattern.foot_before(ph.step, str(ph.stance))
        R = stance.rotation[:2, :2]
        local = R.T @ (xy - stance.translation[:2])
        sign = 1.0 if ph.swing == "left" else -1.0
        (back, ahead), (near, far) = self.reach
        turned = lateral_extent(self.half_size, yaw - yaw_of(stance.rotation))
        near = max(near, self.half_size[1] + turned + self.clearance)
        local[0] = min(max(local[0], back), ahead)
        local[1] = sign * min(max(sign * local[1], near), far)
        out: np.ndarray = stance.translation[:2] + R @ local
        return out

    def _swing_reference(self, t: float, ph: Phase) -> str | None:
        """The swing foot's reference at time t written into :attr:`_swing_M` (placement), ``_swing_v``
        and ``_swing_a`` (6-vectors, world axes): the pattern's, with the ground-plane path of a re-planned
        swing (:meth:`_adapt`; the height keeps the pattern's profile); a late foot's is its footstep
        lowered by :meth:`Touchdown.depth` at the descent speed (:mod:`~wbcpy.locomotion.touchdown`), an
        early one's its footstep. Returns the side of the swing phase, or None when both feet are planted
        by the plan."""
        M, vel, acc = self._swing_M, self._swing_v, self._swing_a
        swinging = self._swinging is not None
        if not swinging and not (ph.kind == "single" and self._landed == ph.step):
            return self.pattern.swing_into(t, M, vel, acc)
        t1 = self._swing_phase.t1
        late = t >= t1
        side = self.pattern.swing_into(t if swinging and not late else Touchdown.before(t1), M, vel, acc)
        if side is None:
            return None
        if self._swing_override is not None:
            t0, path = self._swing_override
            pos, pv, pa = path(t - t0)
            M[0, 3], M[1, 3] = pos[0], pos[1]
            vel[0], vel[1] = pv[0], pv[1]
            acc[0], acc[1] = pa[0], pa[1]
        if late or not swinging:
            vel[:], acc[:] = 0.0, 0.0
            M[2, 3] -= self.touchdown.depth(t, t1)
            vel[2] = -self.touchdown.descent if late else 0.0
        return side

    def step(self, t: float) -> JointCommand:
        """References at the robot's current state and time t, then the scene's update and solve.

        Returns:
            The scene's :class:`JointCommand` (``effort``: τ of the actuated joints, N·m).

        When the scene's problem has no answer the controller degrades instead of raising
        (:mod:`~wbcpy.locomotion.fallback`: its contacts relaxed, else the last torques held) and counts
        it in :attr:`fallback`.
        """
        self.schedule(t)
        scene, robot = self.scene, self.robot
        robot.precompute("dynamics")  # (the scene's update needs them: they give the COM terms too)
        x, v = robot.com_position_view().tolist(), robot.com_velocity().tolist()  # (measured COM, m, m/s)
        pattern = self.pattern
        ph, plan = pattern.phase(t), pattern.lipm(t)
        if self.push_recovery and self._adapt(t, ph, plan, x, v):
            plan = pattern.lipm(t)  # (re-planned over the moved footstep)
        self._write_com(plan, ph if self._swinging is None else self._swing_phase, x, v)
        swing = self._swing_reference(t, ph)
        yaw = self._base_yaw(t, ph, swing)
        if yaw != self._yaw:  # (a new target only when the heading moves: turning, or a swing that turns)
            self._base_law.set_target(self._base_target(yaw))
            self._yaw = yaw
        else:
            self._base_law.update()
        self._posture_law.update()
        if swing is not None and self._swinging == swing:
            pose = self._swing_pose  # (the swing placement's blocks copied into one reused pin.SE3)
            pose.rotation, pose.translation = self._swing_blocks
            self._foot_law[swing].set_target(pose, self._swing_v, self._swing_a)
        hqp = scene.update()
        try:
            cmd = scene.solve(hqp)
        except QPSolveError as exc:
            return self.fallback.answer(scene, hqp, exc, t)
        self.fallback.last = cmd
        return cmd
