"""WalkingController: a :class:`WalkingPattern` tracked by an InverseDynamicsScene that outputs torques.

One weighted task level (the scene's hard constraints sit above it: equations of motion, rigid contacts,
contact wrench cones, URDF effort limits):

* ``com`` (weight 10): on the ground plane the DCM law of :mod:`~wbcpy.locomotion._dcm_feedback`, its
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
and the step, where and when (:mod:`~wbcpy.locomotion.push_recovery`; after an adapted swing the double
support is retimed to the measured DCM at touch-down: :meth:`WalkingController._retime_double_support`).

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
from typing import Any, cast

import numpy as np
import pinocchio as pin

from .._support.exclusive import exclusive, exclusive_copy, exclusive_deepcopy, exclusive_getstate
from .._support.read_only import read_only, seal_properties
from .._support.validation import as_vector
from ..contacts import SurfaceContact
from ..controllers import CartesianPD, ComPD, JointPD
from ..errors import ConfigError, EffortLimitWarning, QPSolveError
from ..model.robot_model import RobotModel
from ..scenes.inverse_dynamics_scene import InverseDynamicsScene
from ..scenes.joint_command import JointCommand
from ..tasks import CartesianTask, ComTask, JointTask
from . import _checks
from ._base_heading import BaseHeading
from ._dcm_feedback import DcmFeedback
from .fallback import Fallback
from .feet import Feet
from .footsteps import SIDES
from .pattern import Phase, WalkingPattern
from .push_recovery import FootstepAdaptation, Reach
from .scaling import WalkingScale, walking_scale
from .sole_gap import SOLE_CLEARANCE
from .step_timing import TIMING_TOLERANCE, double_support_time, transfer_progress
from .swing_speed import SWING_ACCEL, SWING_SPEED
from .touchdown import Touchdown

#: the shortest control step dt (s): 10 kHz
MIN_DT = 1e-4
#: the longest control step dt (s): 20 Hz
MAX_DT = 0.05
#: the time (s, Talos's; scaled by the robot's time scale) over which a landing foot's normal-force bound
#: rises from 0 to the largest normal force (the scene's loading ramp): 1.5 m·g in 25 steps of 2 ms, at
#: most 0.06 m·g per step
LANDING_TIME = 0.05
#: the shortest and the longest double support after a push, in units of the planned one
MIN_DOUBLE_SUPPORT, MAX_DOUBLE_SUPPORT = 0.5, 3.0
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

    The attributes are read-only, except the push-recovery settings.

    Attributes:
        robot, pattern, scene, dt: as given / built (the pattern is the live plan: push recovery moves
            its footsteps). feet: {side: sole frame} (a copy).
        half_size, mu: the real soles and friction (the scene uses the shrunk ones). cop_margin,
            friction_use, max_normal, posture: as used (the posture a copy).
        scale: the robot's :class:`~wbcpy.locomotion.scaling.WalkingScale` (gains, reach).
        reach: the footstep adaptation's reach box (m, stance-sole axes): (forward min, max), (sideways
            min, max).
        touchdown: when a swing foot lands (:mod:`~wbcpy.locomotion.touchdown`; measured wrenches through
            :meth:`set_measured_wrenches`). fallback: the degraded answers
            (:mod:`~wbcpy.locomotion.fallback`).
        landing_time: a landing foot's loading ramp (s). swing_speed: a re-planned swing's largest ground
            speed (m/s). clearance: the least gap the footstep adaptation keeps between
            the soles (m).
        push_recovery, dcm_gain, adapt_threshold: settable (validated): whether footsteps adapt, the DCM
            feedback gain k_ξ (1/s) and the capture-point shift (m) from which a swing adapts.

    **Copies, pickles, threads.** ``copy.copy``, ``copy.deepcopy`` and pickles are independent controllers
    with their own robot, scene and pattern (copied as they are, mid-walk included: a copy steps on
    exactly as the original would; update the copy's ``robot`` with its state). One thread at a time:
    :meth:`step`, :meth:`schedule` or a copy entered while another thread is inside raises
    :class:`~wbcpy.errors.ConcurrentUseError` and changes nothing.
    """

    robot: RobotModel = read_only("robot", "The robot (read-only).")
    pattern: WalkingPattern = read_only("pattern", "The live plan (read-only; push recovery moves steps).")
    scene: InverseDynamicsScene = read_only("scene", "The controller's InverseDynamicsScene (read-only).")
    dt: float = read_only("dt", "The control step (s; read-only: the scene's bounds are built for it).")
    half_size: tuple[float, float] = read_only("half_size", "The real soles' half sizes (m; read-only).")
    mu: float = read_only("mu", "The real friction coefficient (read-only).")
    cop_margin: float = read_only("cop_margin", "The CoP margin of the scene's soles (m; read-only).")
    friction_use: float = read_only("friction_use", "The largest ‖f_t‖ / (μ f_z) allowed (read-only).")
    max_normal: float = read_only("max_normal", "The largest normal force of a sole, in m·g (read-only).")
    scale: WalkingScale = read_only("scale", "The robot's walking scale (read-only).")
    reach: Reach = read_only("reach", "The footstep adaptation's reach box (m; read-only).")
    touchdown: Touchdown = read_only("touchdown", "When a swing foot lands: clock or measured (read-only).")
    fallback: Fallback = read_only("fallback", "The degraded answers so far (read-only).")
    landing_time: float = read_only("landing_time", "A landing foot's loading ramp (s; read-only).")
    swing_speed: float = read_only("swing_speed", "A re-planned swing's top ground speed (m/s; read-only).")
    clearance: float = read_only("clearance", "The least gap kept between the soles (m; read-only).")
    com_pd: ComPD = read_only("com_pd", "The COM law (read-only: bound to its task).")
    foot_pd: CartesianPD = read_only("foot_pd", "The swing-foot law (read-only: bound to its tasks).")
    base_pd: CartesianPD = read_only("base_pd", "The base law (read-only: bound to its task).")
    posture_pd: JointPD = read_only("posture_pd", "The posture law (read-only: bound to its task).")

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
            dt: control step (s), in [:data:`MIN_DT`, :data:`MAX_DT`].
            solver: QP backend (None: the default).
            half_size, mu: the real soles' half sizes (m, each in (0, 1]) and friction coefficient (in
                (0, 10]); None: the pattern's :class:`~wbcpy.locomotion.feet.Feet`'s.
            cop_margin: how far inside the real sole's edges the CoP stays (m, ≥ 0 and less than each half
                size); None: :func:`default_cop_margin`.
            friction_use: the largest ‖f_t‖ / (μ f_z) the scene allows, in (0, 1] (Euclidean norm: module
                docstring).
            posture: the posture target (nq), default the robot's current configuration.
            push_recovery: adapt the footsteps to the measured DCM (:mod:`~wbcpy.locomotion.push_recovery`).
            max_normal: the largest normal force of a sole, in units of m·g, in (0, 100].

        The gains, the reach of the footstep adaptation and its threshold are Talos's scaled to the robot
        (:class:`~wbcpy.locomotion.scaling.WalkingScale`). Actuated joints without a URDF effort limit are
        named in an :class:`~wbcpy.errors.EffortLimitWarning` (their torques are unbounded).

        Raises:
            ConfigError: a bad argument (field named); the robot lacks a sole frame of the pattern's feet
                (add them: ``pattern.feet.attach(robot)``). InvalidValueError: a ``posture`` that is not
                nq finite numbers.
        """
        if not isinstance(robot, RobotModel):
            raise ConfigError("robot", f"expected a RobotModel, got {type(robot).__name__}")
        if not isinstance(pattern, WalkingPattern):
            raise ConfigError("pattern", f"expected a WalkingPattern, got {type(pattern).__name__}")
        feet = pattern.feet
        missing = feet.missing(robot)
        if missing:
            raise ConfigError(
                "feet", f"the robot lacks the sole frame(s) {', '.join(s.frame for s in missing)}: walk the "
                "robot of pattern.feet.attach(robot)",
            )  # fmt: skip
        self._options(feet, dt, half_size, mu, cop_margin, friction_use, max_normal)
        half_size, cop_margin = self._half_size, self._cop_margin
        if posture is None:
            q = robot.state_view("walking controller")[0]
        else:
            q = as_vector(posture, robot.nq, "posture")
        self._posture_target = np.array(q, dtype=float)[7:]
        self._robot, self._pattern = robot, pattern
        self._feet = dict(zip(SIDES, feet.frames, strict=True))
        scale = self._scale = walking_scale(robot, feet)
        inner = self._inner = (half_size[0] - cop_margin, half_size[1] - cop_margin)
        scene = self._scene = InverseDynamicsScene(robot, solver=solver, dt=self._dt, effort_limits=True)
        self._warn_effort_limits()
        fz_max = self._max_normal * robot.total_mass * 9.81
        kd = CONTACT_KD / scale.time
        self._landing_time = LANDING_TIME * scale.time
        mu_axis = self._friction_use * self._mu / math.sqrt(2.0)  # (the inscribed pyramid: module docstring)
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
        for side, frame in self._feet.items():
            foot = {"name": f"{side}_foot", "type": "cart", "tip": frame, "root": "universe"}
            configs.append({**foot, "weights": [10.0] * 6, "activation": 0.0})
        scene.configure(configs)
        # the height by PD; the ground plane by the DCM law of DcmFeedback (no PD terms there)
        kp, kd = scale.gains(60.0)
        self._com_pd = ComPD(kp=[0.0, 0.0, kp], kd=[0.0, 0.0, kd])
        self._foot_pd = CartesianPD(*scale.gains(400.0, 40.0))
        self._base_pd = CartesianPD(*scale.gains(100.0, 20.0))
        self._posture_pd = JointPD(*scale.gains(10.0))
        self._com = cast(ComTask, scene.get_task("com"))
        self._base = cast(CartesianTask, scene.get_task("base"))
        self._posture = cast(JointTask, scene.get_task("posture"))
        self._foot = {side: cast(CartesianTask, scene.get_task(f"{side}_foot")) for side in SIDES}
        self._bind_references()
        self._swinging: str | None = None
        self._swing_phase = Phase("start", 0.0, 0.0)  # the swing's phase while a foot swings
        self._landed = -1  # the footstep whose foot landed last
        self._touchdown = Touchdown(self._feet, scale.weight, scale.size, 0.5 * pattern.double_support_time)
        self._scheduled = math.nan  # the time of the last schedule() (s)
        self._fallback = Fallback(robot.dof_names[6:])
        #: push recovery: whether it is on, the DCM gain, the adaptation of the swings (its state)
        self._push_recovery = _checks.flag(push_recovery, "push_recovery")
        self._reach = scale.reach
        self._swing_speed = SWING_SPEED * scale.size / scale.time
        self._clearance = SOLE_CLEARANCE * scale.size
        apart = (half_size, self._clearance)
        self._adaptation = FootstepAdaptation(scale.adapt_threshold, scale.reach, apart, self._swing_speed,
                                              SWING_ACCEL, TIMING_TOLERANCE * scale.size)  # fmt: skip
        self._unloaded = -1  # the footstep whose swing foot is being unloaded
        #: the swing foot's reference of the step (:meth:`_swing_reference`): placement, twist, acceleration
        self._swing_M, self._swing_v, self._swing_a = np.eye(4), np.zeros(6), np.zeros(6)
        self._swing_pose = pin.SE3.Identity()  # the foot law's target (set_target copies it)
        self._idle: list[None] = [None]  # (one thread at a time: wbcpy._support.exclusive)

    def _options(self, feet: Feet, dt: Any, half_size: Any, mu: Any, cop_margin: Any, friction_use: Any,
                 max_normal: Any) -> None:  # fmt: skip
        """The numeric options, checked (a ConfigError naming the field); the soles' half sizes and
        friction default to ``feet``'s, the CoP margin to :func:`default_cop_margin`."""
        self._dt = _checks.number(dt, "dt", MIN_DT, MAX_DT, unit=" s")
        half = feet.half_size if half_size is None else _checks.half_size(half_size, "half_size")
        self._half_size = half
        self._mu = feet.mu if mu is None else _checks.number(mu, "mu", 0.0, 10.0, lo_open=True)
        margin = default_cop_margin(half)
        if cop_margin is not None:
            margin = _checks.number(cop_margin, "cop_margin", 0.0, unit=" m")
        if margin >= min(half):
            raise ConfigError("cop_margin", f"must be less than the sole's half sizes {half}, got {margin}")
        self._cop_margin = margin
        self._friction_use = _checks.number(friction_use, "friction_use", 0.0, 1.0, lo_open=True)
        self._max_normal = _checks.number(max_normal, "max_normal", 0.0, 100.0, lo_open=True)

    # ------------------------------------------------------------------ settings, copies
    @property
    def feet(self) -> dict[str, str]:
        """{side: sole frame} (a copy)."""
        return dict(self._feet)

    @property
    def posture(self) -> np.ndarray:
        """The posture target of the actuated joints (a copy)."""
        return self._posture_target.copy()

    @property
    def push_recovery(self) -> bool:
        """Whether the footsteps adapt to the measured DCM (settable: True or False)."""
        return self._push_recovery

    @push_recovery.setter
    def push_recovery(self, value: bool) -> None:
        self._push_recovery = _checks.flag(value, "push_recovery")

    @property
    def dcm_gain(self) -> float:
        """k_ξ (1/s) of the DCM feedback p* = p_ref + (1 + k_ξ/ω)(ξ − ξ_ref) (settable: in [0, 100])."""
        return self._dcm.gain

    @dcm_gain.setter
    def dcm_gain(self, value: float) -> None:
        self._dcm.gain = _checks.number(value, "dcm_gain", 0.0, 100.0, unit=" 1/s")

    @property
    def adapt_threshold(self) -> float:
        """The capture-point shift (m) from which a swing adapts its footstep (settable: in [0, 10])."""
        return self._adaptation.threshold

    @adapt_threshold.setter
    def adapt_threshold(self, value: float) -> None:
        self._adaptation.threshold = _checks.number(value, "adapt_threshold", 0.0, 10.0, unit=" m")

    __copy__ = exclusive_copy
    __deepcopy__ = exclusive_deepcopy
    __getstate__ = exclusive_getstate

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.__dict__["_idle"] = [None]

    def _warn_effort_limits(self) -> None:
        """An :class:`EffortLimitWarning` naming the actuated joints without a URDF effort limit."""
        limit = self._scene.effort_limit
        if limit is None or np.all(np.isfinite(limit)):
            return
        dofs = [self._robot.dof_names[i] for i in range(6, self._robot.nv)]
        unbounded = [d for d, x in zip(dofs, limit, strict=True) if not np.isfinite(x)]
        warnings.warn(EffortLimitWarning(self._robot.name, unbounded), stacklevel=3)

    def _bind_references(self) -> None:
        """The hot loop's references, validated once: the posture, base and swing-foot laws bound to
        their tasks (:meth:`~wbcpy.scenes.scene.Scene.bind`; per step only ``update()``, and
        ``set_target`` when a target moves), and the COM task's acceleration written in place by the DCM
        feedback (:class:`~wbcpy.locomotion._dcm_feedback.DcmFeedback`)."""
        robot, scene = self._robot, self._scene
        self._posture_law = scene.bind("posture", self._posture_pd, self._posture_target)
        self._yaw = math.nan  # the base binding's target heading (rad)
        self._heading = BaseHeading(robot, list(self._feet.values()))
        self._base_law = scene.bind("base", self._base_pd, pin.SE3.Identity())
        self._foot_law = {
            side: scene.bind(f"{side}_foot", self._foot_pd, robot.frame_placement(frame))
            for side, frame in self._feet.items()
        }
        gains = (self._com_pd.kp, self._com_pd.kd)
        kp, kd = (np.broadcast_to(np.asarray(g, dtype=float), (3,)) for g in gains)
        scene.set_reference("com", self._com_pd.reference(self._com, robot.com()))
        height = (float(kp[2]), float(kd[2]))  # (the ground plane: the DCM law, no PD terms)
        self._dcm = DcmFeedback(self._pattern, self._com, scene, self._inner, height, 3.0 / self._scale.time)

    # ------------------------------------------------------------------ contacts
    @exclusive
    def set_measured_wrenches(self, wrenches: Any) -> None:
        """The soles' measured wrenches for the next :meth:`step` (and the ones after, until the next call):
        ``{sole frame: wrench}`` for both soles, 6-vectors — force over torque, in the sole frame's axes,
        about its origin, what the ground exerts on the robot (N, N·m). A swing foot then lands when it
        feels the ground (early or late: :mod:`~wbcpy.locomotion.touchdown`); ``None`` returns to the
        pattern's clock (the default).

        Raises:
            ConfigError: not a mapping or None, or a sole missing. UnknownNameError: a key that is not a
                sole frame. InvalidValueError: a wrench that is not 6 finite numbers. Nothing changes on
                error. ConcurrentUseError: another thread is inside this controller.
        """
        self._touchdown.set(wrenches)

    def _landed_now(self, t: float) -> bool:
        """Whether the swinging foot lands at time t (:meth:`Touchdown.landed`; its ground speed from the
        robot's state, only asked with measurements)."""
        sp, side, touchdown = self._swing_phase, str(self._swinging), self._touchdown
        speed = 0.0
        if touchdown.measuring and sp.t0 + 0.5 * (sp.t1 - sp.t0) <= t < sp.t1 + touchdown.max_delay:
            speed = float(np.hypot(*self._robot.frame_velocity(self._feet[side])[:2]))
        return touchdown.landed(side, t, sp.t0, sp.t1, speed)

    @exclusive
    def schedule(self, t: float) -> None:
        """Apply the pattern's contact events at time t (s): unload the next swing foot over the double
        support before its lift-off, land the swing foot when its swing ends (idempotent: a second call
        at the same t changes nothing, and returns at once).

        Raises:
            InvalidValueError: t is not a finite real number.
            ConcurrentUseError: another thread is inside this controller.
        """
        self._schedule(_checks.query_time(t))

    def _schedule(self, t: float) -> None:
        """:meth:`schedule` of a checked time (the one path of :meth:`step` too)."""
        if t == self._scheduled:
            return
        self._scheduled = t
        scene, pattern = self._scene, self._pattern
        ph = pattern.phase(t)
        active = scene.active_contact_frames
        sp = self._swing_phase
        if self._swinging is not None and self._landed_now(t):
            scene.set_contact_active(self._feet[self._swinging], True, transition=self._landing_time)
            scene.set_task_activation(f"{self._swinging}_foot", 0.0)
            self._swinging, self._landed = None, sp.step
            if self._retime_double_support(t, sp.step):
                ph = pattern.phase(t)
        if ph.kind in ("start", "double") and self._swinging is None:
            self._unload_next(t, ph, active)
        lifts = self._swinging is None and self._landed != ph.step
        if lifts and ph.kind == "single" and ph.swing is not None:
            self._swing_phase = ph
            self._swinging = ph.swing
            self._adaptation.lift_off(pattern)
            scene.set_contact_active(self._feet[ph.swing], False)  # (the ramp has ended: a no-op then)
            scene.set_task_activation(f"{ph.swing}_foot", 1.0)

    def _retime_double_support(self, t: float, k: int) -> bool:
        """At footstep k's touch-down (time t), after an adapted swing: the double support lengthened or
        shortened (:func:`~wbcpy.locomotion.step_timing.double_support_time`, within
        [:data:`MIN_DOUBLE_SUPPORT`, :data:`MAX_DOUBLE_SUPPORT`] times its planned length, the later
        phases shifted with it) when the measured DCM lags or leads the plan's transfer from the old
        stance foot a to the new one b by more than the adaptation threshold (along (b − a)/‖b − a‖).
        The next foot's unloading then takes the end of the double support (:meth:`_unload_next`).
        Returns whether the pattern was retimed."""
        pattern = self._pattern
        if not (self._push_recovery and self._adaptation.adapting) or k + 1 >= len(pattern.steps):
            return False
        ph = pattern.phase(t)
        if ph.kind != "double" or ph.step != k:
            return False
        w = pattern.omega
        robot = self._robot
        x, v = robot.com(), robot.com_velocity()
        xi = x[:2] + v[:2] / w
        a = pattern.foot_before(k, pattern.footstep(k + 1).side).translation[:2]
        b = pattern.footstep(k).placement.translation[:2]
        if float(np.linalg.norm(b - a)) < 1e-6:
            return False
        xi_end = np.array(pattern.lipm(ph.t1)[1])
        T_nom = ph.t1 - t
        planned = transfer_progress(w, a, b, xi_end, T_nom)
        d = (b - a) / float(np.linalg.norm(b - a))
        if abs(planned - float(d @ (xi - a))) < self._adaptation.threshold:
            return False
        T = double_support_time(w, xi, a, b, xi_end, MIN_DOUBLE_SUPPORT * T_nom, MAX_DOUBLE_SUPPORT * T_nom)
        if abs(T - T_nom) <= 1e-9:
            return False
        pattern.retime(k, t + T, "double")
        return True

    def _unload_next(self, t: float, ph: Phase, active: list[str]) -> None:
        """In a double support (or the start) at time t, the next swing foot's unloading over the time left
        before its lift-off, once the double support's length (``active``: the scene's active contacts
        before this schedule's landing)."""
        pattern = self._pattern
        nxt = pattern.phase(ph.t1 + 0.5 * self._dt)
        if nxt.kind != "single" or nxt.swing is None:
            return
        left = nxt.t0 - t
        frame = self._feet[nxt.swing]
        if left <= pattern.double_support_time + 1e-9 and frame in active and self._unloaded != nxt.step:
            self._scene.set_contact_active(frame, False, transition=left)
            self._unloaded = nxt.step

    # ------------------------------------------------------------------ references
    def _swing_reference(self, t: float, ph: Phase) -> str | None:
        """The swing foot's reference at time t written into :attr:`_swing_M` (placement), ``_swing_v``
        and ``_swing_a`` (6-vectors, world axes): the pattern's, with the ground-plane path of a re-planned
        swing (:mod:`~wbcpy.locomotion.push_recovery`; the height keeps the pattern's profile); a late
        foot's is its footstep lowered by :meth:`Touchdown.depth` at the descent speed
        (:mod:`~wbcpy.locomotion.touchdown`), an early one's its footstep. Returns the side of the swing
        phase, or None when both feet are planted by the plan."""
        M, vel, acc = self._swing_M, self._swing_v, self._swing_a
        swinging = self._swinging is not None
        if not swinging and not (ph.kind == "single" and self._landed == ph.step):
            return self._pattern.swing_into(t, M, vel, acc)
        t1 = self._swing_phase.t1
        late = t >= t1
        side = self._pattern.swing_into(t if swinging and not late else Touchdown.before(t1), M, vel, acc)
        if side is None:
            return None
        self._adaptation.override(t, M, vel, acc)
        if late or not swinging:
            vel[:], acc[:] = 0.0, 0.0
            M[2, 3] -= self._touchdown.depth(t, t1)
            vel[2] = -self._touchdown.descent if late else 0.0
        return side

    @exclusive
    def step(self, t: float) -> JointCommand:
        """References at the robot's current state and time t (s), then the scene's update and solve.

        Returns:
            The scene's :class:`JointCommand` (``effort``: τ of the actuated joints, N·m).

        When the scene's problem has no answer the controller degrades instead of raising
        (:mod:`~wbcpy.locomotion.fallback`: its contacts relaxed, else the last torques held) and counts
        it in :attr:`fallback`.

        Raises:
            InvalidValueError: t is not a finite real number.
            ConcurrentUseError: another thread is inside this controller.
        """
        t = _checks.query_time(t)
        self._schedule(t)
        scene, robot = self._scene, self._robot
        robot.precompute("dynamics")  # (the scene's update needs them: they give the COM terms too)
        x, v = robot.com_position_view().tolist(), robot.com_velocity().tolist()  # (measured COM, m, m/s)
        pattern = self._pattern
        ph, plan = pattern.phase(t), pattern.lipm(t)
        adapted = (
            self._push_recovery
            and ph.swing is not None
            and self._swinging == ph.swing
            and self._adaptation.adapt(pattern, robot, self._feet[ph.swing], t, ph, plan, x, v)
        )
        if adapted:
            plan = pattern.lipm(t)  # (re-planned over the moved footstep)
            ph = pattern.phase(t)  # (and perhaps retimed: the swing lands earlier)
            if ph.kind == "single" and ph.step == self._swing_phase.step:
                self._swing_phase = ph
        self._dcm.write(plan, ph if self._swinging is None else self._swing_phase, x, v,
                        clamp=not self._adaptation.adapting)  # fmt: skip
        swing = self._swing_reference(t, ph)
        yaw = self._heading.yaw(pattern, t, ph, None if swing is None else self._swing_M)
        if yaw != self._yaw:  # (a new target only when the heading moves: turning, or a swing that turns)
            self._base_law.set_target(self._heading.target(yaw))
            self._yaw = yaw
        else:
            self._base_law.update()
        self._posture_law.update()
        if swing is not None and self._swinging == swing:
            pose, M = self._swing_pose, self._swing_M  # (the swing placement copied into a reused pin.SE3)
            pose.rotation, pose.translation = M[:3, :3], M[:3, 3]
            self._foot_law[swing].set_target(pose, self._swing_v, self._swing_a)
        hqp = scene.update()
        try:
            cmd = scene.solve(hqp)
        except QPSolveError as exc:
            return self._fallback.answer(scene, hqp, exc, t)
        self._fallback.last = cmd
        return cmd


seal_properties(WalkingController)
