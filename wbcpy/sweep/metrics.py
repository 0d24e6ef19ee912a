"""The metrics a sweep can record per run, and how each is computed from one simulated run.

Every metric below is a name of the sweep file's ``metrics`` list; each gives one or more CSV columns.
A *series* is one target-error norm of the scene: ``<task>.position`` [m] and ``<task>.rotation`` [rad]
of a Cartesian task, ``<task>`` [m] of a COM task, ``<task>`` [rad or m] of a joint task (the
Euclidean norm of the task's error, as ``wbcpy scene`` prints it).

* ``final_error`` → ``final_error.<series>`` and ``final_error``: the error at the last step; the
  overall column is the largest series (m and rad side by side, as ``wbcpy scene`` prints them).
* ``rms_error`` → ``rms_error.<series>`` and ``rms_error``: √(mean of e² over the steps + 1 samples);
  overall: the largest series.
* ``max_acceleration``: max over steps and DOF of |q̈| applied to the robot [rad/s², m/s²].
* ``limit_violations`` → ``limit_violation.position``, ``.velocity``, ``.acceleration``: the largest
  excess over the run [rad or m, rad/s, rad/s²]; 0 when every limit held.
* ``success``: 1 when every checked series ends within its tolerance (sweep file ``tolerances``), else 0.
  For a contact scene it means *the robot is still standing*: every checked task ends within its
  tolerance **and** the robot never lost its footing (see below).
* ``qp_failures``: number of steps whose QP raised :class:`~wbcpy.errors.QPSolveError`.
* ``solve_time_median``, ``solve_time_p95``: median and 95th percentile of the wall time of
  ``update() + solve()`` per step [µs].
* ``max_torque_ratio`` (scenes with torques: an :class:`~wbcpy.InverseDynamicsScene`, i.e. a scene
  file with ``contacts`` or ``effort_limits``): max over the steps and actuated joints j of
  |τ_j| / τ_max,j, τ the torques applied to the simulated robot and τ_max the scene's effort limits
  (``effort_limits``), or the URDF's when the scene sets none; joints without a finite positive limit are
  left out (0 when no joint has one). Above 1: a limit was exceeded.
* ``min_normal_force`` (scenes with contacts): min over the steps and the contacts active at each step of
  the normal force f_z [N] the simulated ground exerts (contact frame z; negative: the ground pulled).

The two solve-time metrics are wall-clock quantities: they differ between runs of the same parameters
and are left out of :func:`deterministic_columns`. Every other column is a pure function of the run's
parameters and seed (bit-identical on any worker with the same kind of CPU: OpenBLAS picks its kernels
per CPU).

**Footing (contact scenes).** The simulated contacts are rigid and bilateral
(:class:`~wbcpy.sim.contact_plant.ContactPlant`): they hold whatever the wrench, so the
simulation alone never shows a fall. A real foot slips, tips or lifts once its wrench leaves the friction
cone (centre of pressure outside the sole) or the normal-force bounds; the run treats the first step at
which a simulated wrench is outside by more than :data:`FOOTING_TOLERANCE` × the robot's weight as the
moment the robot lost its footing: the run stops there (what follows would be a fall the model cannot
describe), the error samples from that step on are NaN (so ``final_error`` and ``rms_error`` are NaN)
and ``success`` is 0. A push so strong that the controller cannot keep the robot up shows either this
way or as task errors beyond their tolerances at the end (a COM far from its target).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..scenes import SceneSetup
from ..scenes.inverse_dynamics_scene import InverseDynamicsScene
from ..tasks import task_type


@dataclass(frozen=True)
class Metric:
    """One entry of the metric list.

    Attributes:
        name: the name used in sweep files.
        description: one line for ``--help`` and errors.
        deterministic: False for wall-clock quantities (excluded from identity comparisons).
        needs: what the scene must have: ``""`` (nothing), ``"torques"`` (an InverseDynamicsScene) or
            ``"contacts"`` (an InverseDynamicsScene with contacts); see :func:`scene_capabilities`.
    """

    name: str
    description: str
    deterministic: bool = True
    needs: str = ""


#: every metric a sweep can record, by name (sweep files list them under ``metrics``)
METRICS: dict[str, Metric] = {
    m.name: m
    for m in (
        Metric("final_error", "target error at the end, per task series and overall [m, rad]"),
        Metric("rms_error", "RMS of the target error over the run, per task series and overall [m, rad]"),
        Metric("max_acceleration", "largest |q̈| over steps and DOF [rad/s², m/s²]"),
        Metric("limit_violations", "largest excess over position, velocity, acceleration limits"),
        Metric("success", "1 when every checked task ends within its tolerance (and the robot stands)"),
        Metric("qp_failures", "number of steps whose QP failed (QPSolveError)"),
        Metric("solve_time_median", "median update()+solve() time per step [µs]", deterministic=False),
        Metric("solve_time_p95", "95th percentile of update()+solve() per step [µs]", deterministic=False),
        Metric("max_torque_ratio", "largest |τ_j| / effort limit over the run", needs="torques"),
        Metric("min_normal_force", "smallest contact normal force over the run [N]", needs="contacts"),
    )
}

#: metrics every scene supports (a sweep file without a ``metrics`` list records every metric its scene
#: supports: these, plus the contact metrics for a contact scene)
DEFAULT_METRICS: tuple[str, ...] = tuple(m.name for m in METRICS.values() if not m.needs)

#: a simulated contact wrench further outside its cone or bounds than this × the robot's weight [N] means
#: the robot lost its footing
FOOTING_TOLERANCE = 1e-6


def scene_capabilities(scene: object) -> set[str]:
    """What the scene offers the metrics: ``""`` always, ``"torques"`` for an InverseDynamicsScene,
    ``"contacts"`` when it also has contacts (values of :attr:`Metric.needs`)."""
    have = {""}
    if isinstance(scene, InverseDynamicsScene):
        have.add("torques")
        if scene.contacts:
            have.add("contacts")
    return have


LIMIT_KINDS = ("position", "velocity", "acceleration")
#: default sweep tolerances of a pose target's position (m) and rotation (rad) errors
POSE_TOLERANCE = {"position": 1e-3, "rotation": 1e-2}


@dataclass(frozen=True)
class Series:
    """One target-error series of a scene.

    Attributes:
        name: ``<task>.position``, ``<task>.rotation`` or ``<task>``.
        task: the task's name.
        kind: ``"position"`` or ``"rotation"`` (a pose target, Cartesian task), ``"joint"`` (joint
            targets) or the task type's name (``"com"``, or a registered type).
        unit: ``"rad"`` for rotations and joint tasks (prismatic joints: m), ``"m"`` for positions, the
            type's registered unit otherwise (:mod:`wbcpy.tasks.registry`).
        tolerance: the default tolerance of a sweep's success check (unit as ``unit``), None: not
            checked by default (joint tasks, postures).
    """

    name: str
    task: str
    kind: str
    unit: str = "m"
    tolerance: float | None = None


def series_of(setup: SceneSetup) -> tuple[Series, ...]:
    """The target-error series of a built scene, in the order of its error values (wrench tasks have
    none)."""
    out: list[Series] = []
    for target in setup.targets:
        name, spec = target.name, task_type(target.task.type)
        if spec.target == "pose":
            out += [
                Series(f"{name}.position", name, "position", "m", POSE_TOLERANCE["position"]),
                Series(f"{name}.rotation", name, "rotation", "rad", POSE_TOLERANCE["rotation"]),
            ]
        elif spec.target == "joints":
            out.append(Series(name, name, "joint", "rad"))
        elif target.error_labels():  # a wrench task has no target error (its status has the wrench's)
            out.append(Series(name, name, spec.name, spec.unit, spec.tolerance))
    return tuple(out)


@dataclass
class ContactRecord:
    """Contact-scene quantities over a run.

    Attributes:
        max_torque_ratio: max over steps and actuated joints of |τ_j| / τ_max,j.
        min_normal_force: min over steps and active contacts of the normal force f_z [N] (NaN when no
            contact was ever active).
        footing_lost: the step at which the robot lost its footing, None when it never did.
    """

    max_torque_ratio: float
    min_normal_force: float
    footing_lost: int | None = None


@dataclass
class RunRecord:
    """What one simulated run recorded (input of :func:`compute_metrics`).

    Attributes:
        errors: (steps + 1, n_series) target errors, initial state included.
        step_us: update() + solve() wall time per step [µs]; NaN for steps whose QP failed.
        max_abs_acceleration: max over steps and DOF of |q̈| applied to the robot.
        violation: largest excess per limit kind (``position``, ``velocity``, ``acceleration``).
        qp_failures: number of steps whose QP raised QPSolveError.
        contact: contact quantities, None for a scene without contacts.
    """

    errors: np.ndarray
    step_us: np.ndarray
    max_abs_acceleration: float
    violation: dict[str, float]
    qp_failures: int
    contact: ContactRecord | None = field(default=None)


def metric_columns(metrics: Sequence[str], series: Sequence[Series]) -> list[str]:
    """CSV columns of ``metrics`` (in order) for a scene with the given error series."""
    cols: list[str] = []
    for name in metrics:
        if name in ("final_error", "rms_error"):
            cols += [f"{name}.{s.name}" for s in series] + [name]
        elif name == "limit_violations":
            cols += [f"limit_violation.{kind}" for kind in LIMIT_KINDS]
        else:
            cols.append(name)
    return cols


def deterministic_columns(metrics: Sequence[str], series: Sequence[Series]) -> list[str]:
    """The columns of :func:`metric_columns` that do not depend on the wall clock."""
    return metric_columns([m for m in metrics if METRICS[m].deterministic], series)


def _per_series(name: str, values: np.ndarray, series: Sequence[Series]) -> dict[str, float]:
    out = {f"{name}.{s.name}": float(v) for s, v in zip(series, values, strict=True)}
    out[name] = float(values.max()) if values.size else 0.0
    return out


def _success(final: np.ndarray, series: Sequence[Series], tolerances: dict[str, float]) -> int:
    for s, value in zip(series, final, strict=True):
        tol = tolerances.get(s.name)
        if tol is not None and not value <= tol:  # NaN fails
            return 0
    return 1


def _timed(record: RunRecord) -> np.ndarray:
    """Step times of the steps whose QP succeeded [µs]."""
    timed: np.ndarray = record.step_us[np.isfinite(record.step_us)]
    return timed


def _final_error(record: RunRecord, series: Sequence[Series], tolerances: dict[str, float]) -> dict[str, Any]:
    return _per_series("final_error", record.errors[-1], series)


def _rms_error(record: RunRecord, series: Sequence[Series], tolerances: dict[str, float]) -> dict[str, Any]:
    return _per_series("rms_error", np.sqrt(np.mean(record.errors**2, axis=0)), series)


def _max_acceleration(
    record: RunRecord, series: Sequence[Series], tolerances: dict[str, float]
) -> dict[str, Any]:
    return {"max_acceleration": float(record.max_abs_acceleration)}


def _limit_violations(
    record: RunRecord, series: Sequence[Series], tolerances: dict[str, float]
) -> dict[str, Any]:
    return {f"limit_violation.{k}": float(record.violation.get(k, 0.0)) for k in LIMIT_KINDS}


def _success_column(
    record: RunRecord, series: Sequence[Series], tolerances: dict[str, float]
) -> dict[str, Any]:
    standing = record.contact is None or record.contact.footing_lost is None
    return {"success": _success(record.errors[-1], series, tolerances) if standing else 0}


def _qp_failures(record: RunRecord, series: Sequence[Series], tolerances: dict[str, float]) -> dict[str, Any]:
    return {"qp_failures": int(record.qp_failures)}


def _solve_time_median(
    record: RunRecord, series: Sequence[Series], tolerances: dict[str, float]
) -> dict[str, Any]:
    timed = _timed(record)
    return {"solve_time_median": float(np.median(timed)) if timed.size else float("nan")}


def _solve_time_p95(
    record: RunRecord, series: Sequence[Series], tolerances: dict[str, float]
) -> dict[str, Any]:
    timed = _timed(record)
    return {"solve_time_p95": float(np.percentile(timed, 95)) if timed.size else float("nan")}


#: metric name -> its columns from (record, series, tolerances); the contact metrics (``needs``) are
#: read from :class:`ContactRecord` by name
_COLUMNS: dict[str, Callable[[RunRecord, Sequence[Series], dict[str, float]], dict[str, Any]]] = {
    "final_error": _final_error,
    "rms_error": _rms_error,
    "max_acceleration": _max_acceleration,
    "limit_violations": _limit_violations,
    "success": _success_column,
    "qp_failures": _qp_failures,
    "solve_time_median": _solve_time_median,
    "solve_time_p95": _solve_time_p95,
}


def compute_metrics(
    record: RunRecord, metrics: Sequence[str], series: Sequence[Series], tolerances: dict[str, float]
) -> dict[str, Any]:
    """The CSV values of ``metrics`` for one run.

    Args:
        record: what the run recorded.
        metrics: metric names (keys of :data:`METRICS`).
        series: the scene's error series, in the column order of ``record.errors``.
        tolerances: series name → tolerance for ``success`` (series not listed are not checked).

    Returns:
        column → value (floats, and ints for ``success`` and ``qp_failures``).
    """
    out: dict[str, Any] = {}
    for name in metrics:
        columns = _COLUMNS.get(name)
        if columns is not None:
            out.update(columns(record, series, tolerances))
        elif METRICS[name].needs and record.contact is not None:
            out[name] = float(getattr(record.contact, name))
    return out
