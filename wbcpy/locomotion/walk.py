"""``walk``: the walking controller closed around a plant, with the log of the spec.

Per control step k (t = k·dt): the controller applies the pattern's contact events
(:meth:`WalkingController.schedule`), the plant reports the measured state (the rigid plant first takes
the events over: a landing foot is an inelastic impact), the controller solves at that state, and the
plant integrates its torques for dt. The plant (:class:`~wbcpy.sim.plant.Plant` protocol) is Pinocchio's
rigid-contact dynamics (``plant="pinocchio"``, :class:`~wbcpy.sim.contact_plant.ContactPlant`),
MuJoCo (``plant="mujoco"``, :class:`~wbcpy.sim.mujoco.MujocoPlant` with the real soles as boxes, μ of the
controller, the library's contact options) or a plant object. A push (``push=(P, t)``) is an impulse on
the floating base (N·s, +y world) through the plant's :meth:`~wbcpy.sim.plant.Plant.push`, or
``push=(F, t, duration)`` a force (N, +y world) held for ``duration`` seconds; the controller is not told.
It starts exactly once, at the first control step at or after t (k·dt ≥ t, to 1e-6 of a step); a push
at a negative time or after the walk's last control step is refused before the walk starts.

The log file (``log=...``) is :class:`~wbcpy.locomotion.walk_log.WalkLog`; the summary
:class:`~wbcpy.locomotion.walk_summary.WalkSummary`.

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

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigError, QPSolveError, safe_repr
from ..model.robot_model import RobotModel
from ..sim.contact_plant import ContactPlant
from ..sim.plant import Plant
from . import _checks
from ._walk_inputs import check_log_path, check_push, control_steps, push_schedule
from .controller import MAX_DT, MIN_DT, WalkingController
from .footsteps import feet_frame, plan_footsteps
from .pattern import WalkingPattern
from .plants import SETTLE_TIME, check_plant, make_plant, plant_start, push_base, settle
from .scaling import walking_scale
from .walk_log import LogRecorder
from .walk_summary import WalkSummary, summarise
from .walking_robot import walking_robot

#: the plant's Baumgarte velocity gain k_d (1/s) of every contact: an active contact's acceleration is
#: −k_d v_c instead of 0, which removes the contact-velocity drift of the semi-implicit Euler step
#: (O(dt²) per step; ~0.1 mm/s per step after a 30 N·s push, 7 mm/s in all without it). Logged as
#: ``contact_damping``.
CONTACT_DAMPING = 50.0


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
            :class:`~wbcpy.sim.contact_plant.ContactPlant`, which follows its own scene).
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
    rec = LogRecorder(K, model.nq, model.nv, pattern.feet)
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
    damping = CONTACT_DAMPING if isinstance(plant, ContactPlant) else 0.0
    walk_log = rec.log(steps, dt, plant, locked or {}, damping)
    if log is not None:
        walk_log.save(log)
    return summarise(model, walk_log, ctrl.scene.effort_limit, start, plan, error, us, wall, pushed)
