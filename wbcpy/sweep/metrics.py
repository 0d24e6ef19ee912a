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
* ``qp_failures``: number of steps whose QP raised :class:`~wbcpy.errors.QPSolveError`.
* ``solve_time_median``, ``solve_time_p95``: median and 95th percentile of the wall time of
  ``update() + solve()`` per step [µs].
* ``max_torque_ratio``: max over steps and joints of |τ_j| / τ_max,j (contact scenes).
* ``min_normal_force``: min over steps and active contacts of the normal force f_z [N] (contact scenes).

The two solve-time metrics are wall-clock quantities: they differ between runs of the same parameters
and are left out of :func:`deterministic_columns`. Every other column is a pure function of the run's
parameters and seed (bit-identical on any worker).

The two contact metrics need a contact scene (``InverseDynamicsScene``), which scene files cannot
describe yet: asking for them is a :class:`~wbcpy.errors.ConfigError` for now. Extension point: when
contact scenes reach scene files, :func:`wbcpy.sweep.run.simulate` records max |τ_j|/τ_max,j and the
smallest normal force into :class:`ContactRecord` (``RunRecord.contact``), ``load_sweep`` accepts the two
names for such scenes, and :func:`compute_metrics` already fills their columns from the record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..scenes import SceneSetup
from ..tasks import CartesianTask, ComTask

__all__ = [
    "DEFAULT_METRICS",
    "METRICS",
    "ContactRecord",
    "Metric",
    "RunRecord",
    "Series",
    "compute_metrics",
    "deterministic_columns",
    "metric_columns",
    "series_of",
]


@dataclass(frozen=True)
class Metric:
    """One entry of the metric list.

    Attributes:
        name: the name used in sweep files.
        description: one line for ``--help`` and errors.
        deterministic: False for wall-clock quantities (excluded from identity comparisons).
        needs_contacts: True when the scene must have contacts.
    """

    name: str
    description: str
    deterministic: bool = True
    needs_contacts: bool = False


#: every metric a sweep can record, by name (sweep files list them under ``metrics``)
METRICS: dict[str, Metric] = {
    m.name: m
    for m in (
        Metric("final_error", "target error at the end, per task series and overall [m, rad]"),
        Metric("rms_error", "RMS of the target error over the run, per task series and overall [m, rad]"),
        Metric("max_acceleration", "largest |q̈| over steps and DOF [rad/s², m/s²]"),
        Metric("limit_violations", "largest excess over position, velocity, acceleration limits"),
        Metric("success", "1 when every checked task ends within its tolerance"),
        Metric("qp_failures", "number of steps whose QP failed (QPSolveError)"),
        Metric("solve_time_median", "median update()+solve() time per step [µs]", deterministic=False),
        Metric("solve_time_p95", "95th percentile of update()+solve() per step [µs]", deterministic=False),
        Metric("max_torque_ratio", "largest |τ_j| / effort limit over the run", needs_contacts=True),
        Metric("min_normal_force", "smallest contact normal force over the run [N]", needs_contacts=True),
    )
}

#: metrics recorded when a sweep file has no ``metrics`` list (every metric that needs no contacts)
DEFAULT_METRICS: tuple[str, ...] = tuple(m.name for m in METRICS.values() if not m.needs_contacts)

LIMIT_KINDS = ("position", "velocity", "acceleration")


@dataclass(frozen=True)
class Series:
    """One target-error series of a scene.

    Attributes:
        name: ``<task>.position``, ``<task>.rotation`` or ``<task>``.
        task: the task's name.
        kind: ``"position"`` or ``"rotation"`` (Cartesian task), ``"com"`` or ``"joint"``.
    """

    name: str
    task: str
    kind: str

    @property
    def unit(self) -> str:
        """``"rad"`` for rotations and joint tasks (prismatic joints: m), else ``"m"``."""
        return "rad" if self.kind in ("rotation", "joint") else "m"


def series_of(setup: SceneSetup) -> tuple[Series, ...]:
    """The target-error series of a built scene, in the order of its error values."""
    out: list[Series] = []
    for target in setup.targets:
        name, task = target.name, target.task
        if isinstance(task, CartesianTask):
            out += [
                Series(f"{name}.position", name, "position"),
                Series(f"{name}.rotation", name, "rotation"),
            ]
        else:
            out.append(Series(name, name, "com" if isinstance(task, ComTask) else "joint"))
    return tuple(out)


@dataclass
class ContactRecord:
    """Contact quantities over a run (extension point for contact scenes).

    Attributes:
        max_torque_ratio: max over steps and actuated joints of |τ_j| / τ_max,j.
        min_normal_force: min over steps and active contacts of the normal force f_z [N].
    """

    max_torque_ratio: float
    min_normal_force: float


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
    timed = record.step_us[np.isfinite(record.step_us)]
    for name in metrics:
        if name == "final_error":
            out.update(_per_series(name, record.errors[-1], series))
        elif name == "rms_error":
            out.update(_per_series(name, np.sqrt(np.mean(record.errors**2, axis=0)), series))
        elif name == "max_acceleration":
            out[name] = float(record.max_abs_acceleration)
        elif name == "limit_violations":
            out.update({f"limit_violation.{k}": float(record.violation.get(k, 0.0)) for k in LIMIT_KINDS})
        elif name == "success":
            out[name] = _success(record.errors[-1], series, tolerances)
        elif name == "qp_failures":
            out[name] = int(record.qp_failures)
        elif name == "solve_time_median":
            out[name] = float(np.median(timed)) if timed.size else float("nan")
        elif name == "solve_time_p95":
            out[name] = float(np.percentile(timed, 95)) if timed.size else float("nan")
        elif METRICS[name].needs_contacts and record.contact is not None:
            out[name] = float(getattr(record.contact, name))
    return out
