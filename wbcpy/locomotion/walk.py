"""``walk``: the walking controller closed around a plant, with the log of the spec.

Per control step k (t = k·dt): the controller applies the pattern's contact events
(:meth:`WalkingController.schedule`), the plant reports the measured state (the rigid plant first takes
the events over: a landing foot is an inelastic impact), the controller solves at that state, and the
plant integrates its torques for dt. The plant (:class:`~wbcpy.sim.plant.Plant` protocol) is Pinocchio's
rigid-contact dynamics (``plant="pinocchio"``, :class:`~wbcpy.sim.contact_simulation.ContactPlant`),
MuJoCo (``plant="mujoco"``, :class:`~wbcpy.sim.mujoco.MujocoPlant` with the real soles as boxes, μ of the
controller, the library's contact options) or a plant object. A push (``push=(P, t)``) is an impulse on
the floating base (N·s, +y world) through the plant's :meth:`~wbcpy.sim.plant.Plant.push`, or
``push=(F, t, duration)`` a force (N, +y world) held for ``duration`` seconds; the controller is not told.
It starts exactly once, at the first control step at or after t (k·dt ≥ t, to 1e-6 of a step); a push
at a negative time or after the walk's last control step is refused before the walk starts.

Log file (``log=...``, NumPy ``.npz``; the keys of specs/walking.md): ``t`` (K,), ``q`` (K, nq), ``v``
(K, nv) — the measured state the controller saw at step k —, ``tau`` (K, nv − 6) sent to the plant,
``contact_frames`` (C,), ``contact_parents`` (C,) and ``contact_placements`` (C, 4, 4): each contact
frame's parent frame and its placement there (the frame itself and the identity when the URDF has it; a
sole frame added to the model hangs under its foot frame), ``active`` (K, C) the plant's rigid contacts
during the step, ``wrenches`` (K, C, 6) the plant's contact wrenches during the step (zero when inactive;
contact axes, about the frame origin, force over torque), ``com`` (K, 3), ``mu``, ``half_size`` (2,),
``dt``, ``footsteps`` (S, 4): side (0 left, 1 right), x, y, yaw of every footstep taken;
``contact_damping``, the rigid plant's Baumgarte velocity gain (1/s, :data:`CONTACT_DAMPING`; 0 for
another plant) that a replay with ``pin.constraintDynamics`` needs; ``plant``, the plant's name, and
``contact_options``, its contact options as a JSON text; ``locked_joints`` (L,) and ``locked_positions``
(L,): the URDF joints locked because they move no inertia, and where (:mod:`~wbcpy.locomotion.walking_robot`;
q and v are those of the model without them); ``planned_wrenches`` (K, C, 6): the controller's planned
contact wrenches at step k (zero for a sole outside its contact set); ``degraded`` (K,): the steps whose
answer was degraded (:mod:`~wbcpy.locomotion.fallback`). The rigid plant's ``active`` are the contacts it
held rigid, another plant's the soles that carried a contact force in the step.

Measured contacts: a plant with contacts of its own (MuJoCo, a plant object) gives the controller the
soles' wrenches of each period (:meth:`WalkingController.set_measured_wrenches`): its feet land when
they feel the floor. The rigid plant's contacts are the controller's own (it has no floor: a foot
touches down when the controller puts it down), so its wrenches say nothing about a touch-down and the
controller keeps the pattern's clock there. A MuJoCo plant that ``walk`` builds is first put down: it
stands for :data:`SETTLE_TIME` under the controller's start (its clock at 0) before the walk's clock
and log start, so that the walk starts on the soft floor at rest, not dropped onto it.

The robot: a registry name or a RobotModel; its soles from :func:`~wbcpy.locomotion.sole_finder.find_feet`
(``feet``, ``sole``; frames it lacks added), its start posture from
:func:`~wbcpy.locomotion.standing.start_posture` (``posture``).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pinocchio as pin

from ..errors import ConfigError, QPSolveError, safe_repr
from ..model.robot_model import RobotModel
from ..sim.contact_simulation import ContactPlant
from ..sim.plant import Plant
from . import _checks
from ._walk_inputs import check_log_path, check_push, control_steps, push_schedule
from .controller import MAX_DT, MIN_DT, WalkingController
from .feet import MU, Feet
from .footsteps import feet_frame, plan_footsteps
from .pattern import WalkingPattern
from .plants import SETTLE_TIME, check_plant, make_plant, plant_start, push_base, settle
from .scaling import walking_scale
from .soft_metrics import LOADED, SoftFigures, soft_figures
from .walking_robot import walking_robot

G0 = 9.81
#: the plant's Baumgarte velocity gain k_d (1/s) of every contact: an active contact's acceleration is
#: −k_d v_c instead of 0, which removes the contact-velocity drift of the semi-implicit Euler step
#: (O(dt²) per step; ~0.1 mm/s per step after a 30 N·s push, 7 mm/s in all without it). Logged as
#: ``contact_damping``.
CONTACT_DAMPING = 50.0


@dataclass
class WalkLog:
    """The arrays of the log file (see the module docstring); ``save`` writes them.

    Plain data: ``copy.copy`` shares the arrays, ``copy.deepcopy`` and pickles copy them; threads may
    read a log that no one changes.
    """

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    tau: np.ndarray
    active: np.ndarray
    wrenches: np.ndarray
    com: np.ndarray
    contact_frames: np.ndarray
    footsteps: np.ndarray
    mu: float = MU
    half_size: np.ndarray = field(default_factory=lambda: np.zeros(2))
    dt: float = 0.002
    contact_damping: float = 0.0
    plant: str = "pinocchio"
    contact_options: str = "{}"
    contact_parents: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=str))
    contact_placements: np.ndarray = field(default_factory=lambda: np.zeros((0, 4, 4)))
    locked_joints: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=str))
    locked_positions: np.ndarray = field(default_factory=lambda: np.zeros(0))
    planned_wrenches: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 6)))
    degraded: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))

    def save(self, path: str | Path) -> Path:
        """Write the log as an ``.npz`` file (the keys of the module docstring; ``.npz`` is appended when
        the name lacks it); returns the path written.

        Raises:
            ConfigError: (``path``) a folder, a missing folder, or a file that cannot be written.
        """
        out = check_log_path(path, "path")
        arrays: dict[str, Any] = {k: np.asarray(getattr(self, k)) for k in self.__dataclass_fields__}
        try:
            np.savez_compressed(out, **arrays)
        except OSError as exc:
            raise ConfigError("path", f"cannot write {str(out)!r} ({exc.strerror or exc})") from None
        return out


@dataclass
class WalkSummary:
    """What :func:`walk` reports.

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


def parse_push(text: str) -> tuple[float, ...]:
    """``"IMPULSE@TIME"`` (N·s, s) as (impulse, time), e.g. ``"30@3.0"``; ``"FORCE@TIME:DURATION"`` (N, s,
    s) as (force, time, duration), e.g. ``"300@3.0:0.1"``.

    Raises:
        ConfigError: (field ``push``) anything else, non-finite values, a negative time, a duration ≤ 0.
    """
    head, _, duration = str(text).partition(":")
    try:
        impulse, at = (float(x) for x in head.split("@"))
        rest = (float(duration),) if duration else ()
    except ValueError:
        got = safe_repr(text)
        why = f"expected IMPULSE@TIME (N·s@s, e.g. 30@3.0) or FORCE@TIME:DURATION (N@s:s), got {got}"
        raise ConfigError("push", why) from None
    return check_push((impulse, at, *rest))


class _Recorder:
    def __init__(self, K: int, nq: int, nv: int, feet: Feet) -> None:
        self.t, self.q, self.v = np.zeros(K), np.zeros((K, nq)), np.zeros((K, nv))
        self.tau, self.com = np.zeros((K, nv - 6)), np.zeros((K, 3))
        frames = feet.frames
        self.active = np.zeros((K, len(frames)), dtype=bool)
        self.wrenches = np.zeros((K, len(frames), 6))
        self.planned = np.zeros((K, len(frames), 6))
        self.degraded = np.zeros(K, dtype=bool)
        self.frames, self.feet = frames, feet
        self.k = 0

    def record(self, t: float, q: np.ndarray, v: np.ndarray, com: np.ndarray, tau: np.ndarray, plant: Plant,
               wrenches: dict[str, np.ndarray], ctrl: WalkingController, degraded: bool) -> None:  # fmt: skip
        k = self.k
        self.t[k], self.q[k], self.v[k], self.com[k], self.tau[k] = t, q, v, com, tau
        active = plant.active_contacts()
        planned = ctrl.scene.get_contact_wrenches()
        for i, f in enumerate(self.frames):
            if f in active:
                self.active[k, i] = True
                self.wrenches[k, i] = wrenches[f]
            if f in planned:
                self.planned[k, i] = planned[f]
        self.degraded[k] = degraded
        self.k += 1

    def log(self, steps: np.ndarray, dt: float, plant: Plant, locked: dict[str, float]) -> WalkLog:
        k, feet = self.k, self.feet.log_arrays()
        damping = CONTACT_DAMPING if isinstance(plant, ContactPlant) else 0.0
        options = json.dumps(plant.contact_options, default=str)
        return WalkLog(
            self.t[:k], self.q[:k], self.v[:k], self.tau[:k], self.active[:k], self.wrenches[:k],
            self.com[:k], feet["contact_frames"], steps, self.feet.mu, feet["half_size"], dt, damping,
            str(plant.name), options, feet["contact_parents"], feet["contact_placements"],
            np.array(list(locked), dtype=str), np.array(list(locked.values()), dtype=float),
            self.planned[:k], self.degraded[:k],
        )  # fmt: skip


def walk(
    robot: Any = "talos",
    n_steps: int = 8,
    length: float | None = None,
    width: float | None = None,
    turn: float = 0.0,
    lateral: float = 0.0,
    step_time: float = 0.8,
    double_support_time: float = 0.2,
    push: tuple[float, ...] | None = None,
    dt: float = 0.002,
    log: str | Path | None = None,
    solver: str | None = None,
    progress: Callable[[float, float], None] | None = None,
    push_recovery: bool = True,
    plant: str | Plant = "pinocchio",
    plant_options: Any = None,
    feet: Any = None,
    sole: Any = None,
    posture: Any = None,
) -> WalkSummary:
    """Walk in closed loop (see the module docstring) and summarise.

    Args:
        robot: a registry name (default ``talos``) or a floating-base RobotModel (sole frames it lacks are
            added, and joints without inertia locked, in a copy: ``summary.robot``); it starts at its
            start posture (``posture``), or, with a plant object, at the plant's state.
        n_steps, length, width, turn, lateral: :func:`plan_footsteps` (the first step is to the side of
            ``lateral``, left when 0, or of ``turn`` when no lateral); ``length`` None: 0.15 m scaled to
            the robot (:class:`~wbcpy.locomotion.scaling.WalkingScale`; Talos 0.15 m).
        step_time, double_support_time: :class:`WalkingPattern`.
        push: (P, t): a lateral impulse P (N·s, +y world, |P| ≤ m · 10 m/s) on the base at time t (s);
            (F, t, duration): a lateral force F (N, |F| ≤ 10 m g) from t for ``duration`` s (> 0); or
            None. It starts at the first control step at or after t, which must be one of the walk's
            (t ≥ 0, before its last control step).
        dt: control step (s; also the rigid plant's integration step), in [1e-4, 0.05]; the walk takes at
            most :data:`~wbcpy.locomotion._walk_inputs.MAX_CONTROL_STEPS` steps.
        log: write the log file there (``.npz``; the path is checked before the walk starts).
        solver: the scene's QP backend.
        progress: called as ``progress(t, duration)`` every 0.1 s of simulated time.
        push_recovery: the controller adapts its footsteps to the measured DCM (see
            :class:`WalkingController`).
        plant: ``"pinocchio"`` (rigid contacts), ``"mujoco"`` (needs the ``mujoco`` package), or a plant
            object (:class:`~wbcpy.sim.plant.Plant`, its control period ``dt``, the robot's sizes; not a
            :class:`~wbcpy.sim.contact_simulation.ContactPlant`, which follows its own scene).
        plant_options: with ``plant="mujoco"``, the :class:`~wbcpy.sim.mujoco.ContactOptions` of its model
            (None: the library's).
        feet: the soles: a :class:`~wbcpy.locomotion.feet.Feet`, (left, right) frame names (``"L,R"``), or
            None for the robot's own (:func:`~wbcpy.locomotion.sole_finder.find_feet`).
        sole: the sole rectangle's size (length, width) in m or ``"LxW"``; None: the robot's.
        posture: the start posture: None (SRDF ``half_sitting`` when its soles are flat, else computed),
            ``"computed"``, an SRDF posture's name, or a configuration (nq)
            (:func:`~wbcpy.locomotion.standing.start_posture`).

    Raises:
        ConfigError: bad arguments (field named), all checked before the walk starts; UnknownNameError
            for an unknown robot, frame or posture.
        MissingDependencyError: ``plant="mujoco"`` without the mujoco package.
    """
    dt = _checks.number(dt, "dt", MIN_DT, MAX_DT, unit=" s")
    push = None if push is None else check_push(push)
    log_path = None if log is None else check_log_path(log)
    callback: Any = progress  # (checked: the annotation is what a caller should pass, not what it does)
    if callback is not None and not callable(callback):
        why = f"expected a callable progress(t, duration) or None, got {safe_repr(progress)}"
        raise ConfigError("progress", why)
    _checks.flag(push_recovery, "push_recovery")
    lateral = _checks.number(lateral, "lateral", unit=" m")
    turn = _checks.number(turn, "turn", unit=" rad")
    if not isinstance(robot, (str, RobotModel)):
        raise ConfigError("robot", f"expected a robot name or a RobotModel, got {type(robot).__name__}")
    check_plant(plant, plant_options, dt)
    model, soles, q0, locked = walking_robot(robot, feet, sole, posture)
    v0 = np.zeros(model.nv)
    if isinstance(plant, Plant):
        q0, v0 = plant_start(plant, model)
    if length is None:
        length = walking_scale(model, soles).step_length
    side = lateral if lateral != 0.0 else turn
    first = "right" if side < 0 else "left"
    steps = plan_footsteps(model, n_steps, length, width, turn, lateral, first, feet=soles)
    pattern = WalkingPattern(model, steps, step_time, double_support_time, feet=soles)
    ctrl = WalkingController(model, pattern, dt=dt, solver=solver, push_recovery=push_recovery)
    K = control_steps(pattern.duration, ctrl.dt)
    k_push = push_schedule(push, K, ctrl.dt, model.total_mass)
    the_plant = make_plant(plant, plant_options, model, q0, v0, ctrl, CONTACT_DAMPING)
    if plant == "mujoco":
        q0 = settle(the_plant, ctrl, model, SETTLE_TIME)
    plan = (n_steps, length, lateral, turn)
    return _run(model, q0, ctrl, the_plant, (K, k_push, push), log_path, progress, plan, locked)


def _run(
    model: RobotModel,
    q0: np.ndarray,
    ctrl: WalkingController,
    plant: Plant,
    schedule: tuple[int, int | None, tuple[float, ...] | None],
    log: Path | None,
    progress: Callable[[float, float], None] | None,
    plan: tuple[int, float, float, float],
    locked: dict[str, float] | None = None,
) -> WalkSummary:
    """The closed loop of K control steps, the push starting at step k_push: ``schedule`` = (K, k_push,
    push) (:func:`~wbcpy.locomotion._walk_inputs.push_schedule`)."""
    dt, pattern = ctrl.dt, ctrl.pattern
    K, k_push, push = schedule
    rec = _Recorder(K, model.nq, model.nv, pattern.feet)
    start = feet_frame(model, pattern.feet)
    ground = start[3]  # (the soles' height: the base's height is measured above it)
    z0, error, us = float(q0[2]) - ground, "", []
    pushed = False
    measuring = not isinstance(plant, ContactPlant)  # (module docstring: measured contacts)
    wall = time.perf_counter()
    for k in range(K):
        t = k * dt
        if k == k_push and push is not None:
            push_base(plant, push)
            pushed = True
        ctrl.schedule(t)
        q, v = plant.state()
        model.update(q, v)
        if q[2] - ground < 0.85 * z0:
            error = f"fell at t = {t:.2f} s"
            break
        t0, degraded = time.perf_counter(), ctrl.fallback.count
        try:
            cmd = ctrl.step(t)
        except QPSolveError as exc:  # (the controller degrades instead: only a controller without that)
            error = f"no controller answer at t = {t:.2f} s ({exc.status})"
            break
        us.append(time.perf_counter() - t0)
        com = model.com()
        tau = cmd.effort if cmd.effort is not None else np.zeros(model.nv - 6)
        plant.apply(tau)
        wrenches = plant.contact_wrenches()
        if measuring:
            ctrl.set_measured_wrenches(wrenches)
        rec.record(t, q, v, com, tau, plant, wrenches, ctrl, ctrl.fallback.count > degraded)
        if progress is not None and k % max(1, round(0.1 / dt)) == 0:
            progress(t, pattern.duration)
    wall = time.perf_counter() - wall
    steps = np.array([s.row() for s in ctrl.pattern.steps]) if rec.k else np.zeros((0, 4))
    walk_log = rec.log(steps, dt, plant, locked or {})
    if log is not None:
        walk_log.save(log)
    return _summary(model, walk_log, ctrl.scene.effort_limit, start, plan, error, us, wall, pushed)


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


def _summary(
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
