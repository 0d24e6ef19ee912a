"""``run_one``: one closed-loop run of a sweep, as a pure function of the sweep and the run.

A run copies the scene document, applies the ``set`` values and its grid values at their dotted paths,
builds the scene (:func:`~wbcpy.scenes.load_scene_file`), perturbs the initial configuration with the
run's random sample, and simulates ``steps`` steps (:class:`~wbcpy.sim.SceneSimulation`), pushing the
simulated robot once when the sweep has a ``random.push`` (:mod:`wbcpy.sweep.perturbation`). The task
targets are those of the unperturbed scene: noise moves the start, not the goal. A contact scene's run
stops when the robot loses its footing (:mod:`wbcpy.sweep.metrics`).

A walk sweep's run (:mod:`wbcpy.sweep.walks`) is one :func:`wbcpy.locomotion.walk` with the run's
arguments; its metrics come from the walk's summary.

A step whose QP fails (:class:`~wbcpy.errors.QPSolveError`) is counted and the robot receives the
scene's last good q̈ (what a controller does when its solver fails; zero before the first good answer).
Any other exception ends the run: its row records ``ExceptionType: message`` as status and no metrics.

Purity: nothing depends on the worker, the clock or earlier runs — a fresh robot and scene per run, the
perturbation drawn from the sweep seed and the sample index, BLAS pinned to one thread on sweep workers —
so every column but ``solve_time_*``, ``worker`` and ``wall_time`` is bit-identical wherever it runs.
"""

from __future__ import annotations

import copy
import time
from typing import Any

import numpy as np

from ..errors import QPSolveError
from ..scenes import SceneSetup, load_scene_file
from ..sim import SceneSimulation
from .contact_monitor import ContactMonitor
from .metrics import RunRecord, compute_metrics, series_of
from .paths import set_path
from .perturbation import Push
from .spec import Run, SweepSpec, row_params
from .walks import run_walk, walk_arguments


def build_setup(spec: SweepSpec, run: Run) -> SceneSetup:
    """The scene of ``run``: the scene document with the ``set`` and grid values, q0 perturbed.

    Raises:
        WbcpyError: the values do not make a valid scene (a ConfigError naming the scene field).
    """
    doc = copy.deepcopy(spec.scene_doc)
    for keys, value in spec.fixed:
        set_path(doc, keys, value)
    for path, value in run.params.items():
        if path in spec.grid_keys:  # the others sweep the random section
            set_path(doc, spec.grid_keys[path], copy.deepcopy(value))
    setup = load_scene_file(doc, steps=spec.steps)
    random = spec.random_of(run)
    if random is not None and run.sample is not None:
        robot = setup.robot
        dofs = robot.dof_from_q(setup.q0) + random.q0_offset(run.sample, robot.nv)
        setup.q0 = robot.q_from_dof(dofs)
    return setup


def push_of(spec: SweepSpec, run: Run, setup: SceneSetup) -> Push | None:
    """The push of ``run`` (None without one, or of size 0)."""
    random = spec.random_of(run)
    if random is None or run.sample is None:
        return None
    return random.push_event(run.sample, setup.dt)


def simulate(setup: SceneSetup, push: Push | None = None) -> RunRecord:
    """Run ``setup.steps`` steps and record errors, q̈ extremes, limit excess, QP failures and timings;
    for a contact scene also the contact quantities, stopping when the robot loses its footing.

    Args:
        setup: the scene.
        push: an impulse applied to the simulated robot before step ``push.step``.
    """
    sim = SceneSimulation(setup)
    monitor = ContactMonitor(sim) if sim.plant is not None else None
    scene = setup.scene
    steps = setup.steps
    first = list(sim.errors().values())
    errors = np.empty((steps + 1, len(first)))
    errors[0] = first
    step_us = np.full(steps, np.nan)
    last_good = np.zeros(setup.robot.nv)
    max_qdd = 0.0
    failures = 0
    for k in range(steps):
        if push is not None and k == push.step:
            sim.push(push.impulse, push.frame)
        try:
            step_us[k] = sim.step()
            last_good = scene.get_solver_output_raw()
        except QPSolveError:
            failures += 1
            sim.advance(last_good)
        max_qdd = max(max_qdd, float(np.abs(last_good).max(initial=0.0)))
        if monitor is not None and monitor.observe(k):  # the robot lost its footing: a fall
            errors[k + 1 :] = np.nan
            break
        errors[k + 1] = list(sim.errors().values())
    return RunRecord(
        errors=errors,
        step_us=step_us,
        max_abs_acceleration=max_qdd,
        violation={k: max(v, 0.0) for k, v in sim.violation.items()},
        qp_failures=failures,
        contact=None if monitor is None else monitor.record(),
    )


def describe_error(exc: BaseException) -> str:
    """``ExceptionType: message`` on one line (the ``status`` of a failed run)."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _scene_metrics(spec: SweepSpec, run: Run) -> dict[str, Any]:
    """A scene sweep's run: build, simulate, the metric columns."""
    setup = build_setup(spec, run)
    if series_of(setup) != spec.series:
        raise RuntimeError(
            "the run's task errors differ from the nominal scene's (a grid value changed the tasks)"
        )
    record = simulate(setup, push_of(spec, run, setup))
    return compute_metrics(record, spec.metrics, spec.series, spec.tolerances)


def _walk_metrics(walk_doc: dict[str, Any], spec: SweepSpec, run: Run) -> dict[str, Any]:
    """A walk sweep's run: one walk with the run's arguments, the metric columns of its summary."""
    values = [(spec.grid_keys[path], value) for path, value in run.params.items()]
    return run_walk(walk_arguments(walk_doc, values), spec.metrics)


def run_one(spec: SweepSpec, run: Run) -> dict[str, Any]:
    """Simulate one run of a sweep and return its CSV row (without the ``worker`` column).

    Args:
        spec: the sweep (:func:`~wbcpy.sweep.load_sweep`).
        run: one of ``spec.runs()``.

    Returns:
        ``run_id``, ``sample`` (with random samples), one value per grid parameter, one per metric
        column (absent when the run failed), ``status`` (``"ok"`` or the error) and ``wall_time`` (s).
        Every column of ``spec.deterministic_columns`` is a pure function of (spec, run).
    """
    start = time.perf_counter()
    row = row_params(spec, run)
    try:
        walk_doc = spec.walk
        row.update(_scene_metrics(spec, run) if walk_doc is None else _walk_metrics(walk_doc, spec, run))
        row["status"] = "ok"
    except Exception as exc:  # a failed run is a result: record it, the sweep goes on
        row["status"] = describe_error(exc)
    row["wall_time"] = time.perf_counter() - start
    return row
