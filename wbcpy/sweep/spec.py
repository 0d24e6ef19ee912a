"""A loaded sweep: the scene, the parameter grid, the random samples and the metrics to record.

Runs are the Cartesian product of the grid (keys in file order, values in list order, the last key
varying fastest) crossed with ``random.n`` samples: run ``run_id = combination · n + sample``. The ids are
stable: the same sweep file always numbers its runs the same way, which is what ``--resume`` relies on.

Random sample ``s`` draws its perturbation from ``numpy.random.default_rng([seed, s])`` (the push
direction from ``[seed, s, 1]``): every grid combination sees the same ``n`` perturbed initial states and
push directions (common random numbers), so two gains or two push sizes are compared on identical
disturbances, and a run's noise depends only on the sweep seed and its id.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .metrics import Series, deterministic_columns, metric_columns
from .paths import Key
from .perturbation import RandomSpec
from .walks import WALK_METRICS

#: columns every result file has besides parameters and metrics
FIRST_COLUMNS = ("run_id",)
LAST_COLUMNS = ("status", "worker", "wall_time")


@dataclass(frozen=True)
class Run:
    """One closed-loop run of a sweep.

    Attributes:
        run_id: stable id (``combination · n_samples + sample``).
        combination: index of the grid combination.
        sample: random sample index, None when the sweep has no ``random`` section.
        params: dotted path → value of every grid parameter.
    """

    run_id: int
    combination: int
    sample: int | None
    params: dict[str, Any]


@dataclass
class SweepSpec:
    """A sweep file, checked and resolved (what :func:`~wbcpy.sweep.load_sweep` returns).

    The object is plain data: it pickles and is shipped once to every Dask worker.

    Attributes:
        source: the sweep file.
        scene_source: the scene file it names.
        scene_doc: the parsed scene file; a URDF path is replaced by the URDF text, so workers on other
            machines need no copy of the file.
        steps: override of the scene's number of steps (None: the scene's).
        grid: dotted path → values (in file order).
        grid_keys: dotted path → canonical keys into ``scene_doc`` (scene paths only; a path that starts
            with ``random.`` sweeps an option of ``random``).
        fixed: canonical keys → value set in every run (the ``set`` section).
        random: random perturbations, or None.
        metrics: metric names, in column order.
        series: the scene's target-error series.
        tolerances: series name → tolerance used by ``success``.
        walk: a walk sweep's checked ``walk`` section with the ``set`` values applied (the arguments of
            :func:`wbcpy.locomotion.walk`, :mod:`wbcpy.sweep.walks`), None for a scene sweep. A walk sweep
            has no scene (``scene_source`` names the sweep file, ``scene_doc`` is empty); its
            ``grid_keys`` are keys into this section (``("length",)``, ``("push", "impulse")``).
    """

    source: str
    scene_source: str
    scene_doc: dict[str, Any]
    steps: int | None
    grid: dict[str, tuple[Any, ...]]
    grid_keys: dict[str, tuple[Key, ...]]
    fixed: list[tuple[tuple[Key, ...], Any]]
    random: RandomSpec | None
    metrics: tuple[str, ...]
    series: tuple[Series, ...]
    tolerances: dict[str, float] = field(default_factory=dict)
    walk: dict[str, Any] | None = None

    @property
    def n_samples(self) -> int:
        """Random samples per grid combination (1 without a ``random`` section)."""
        return 1 if self.random is None else self.random.n

    @property
    def n_combinations(self) -> int:
        """Number of grid combinations (1 without a grid)."""
        return int(np.prod([len(v) for v in self.grid.values()], dtype=np.int64))

    @property
    def n_runs(self) -> int:
        """Number of runs: combinations × samples."""
        return self.n_combinations * self.n_samples

    def runs(self) -> Iterator[Run]:
        """Every run, in run-id order (lazily: a sweep may hold millions)."""
        paths = list(self.grid)
        n = self.n_samples
        for combination, values in enumerate(itertools.product(*self.grid.values())):
            params = dict(zip(paths, values, strict=True))
            for sample in range(n):
                yield Run(
                    combination * n + sample, combination, None if self.random is None else sample, params
                )

    def random_of(self, run: Run) -> RandomSpec | None:
        """The perturbations of ``run``: ``random`` with the run's grid values of its options."""
        random = self.random
        for path, value in run.params.items():
            if random is not None and path.startswith("random."):
                random = random.with_value(path.removeprefix("random."), value, f"grid.{path}")
        return random

    def run(self, run_id: int) -> Run:
        """The run with id ``run_id``.

        Raises:
            IndexError: no such run.
        """
        if not 0 <= run_id < self.n_runs:
            raise IndexError(f"run id {run_id} outside 0..{self.n_runs - 1}")
        combination, sample = divmod(run_id, self.n_samples)
        values, rest = [], combination
        for path in reversed(list(self.grid)):
            rest, i = divmod(rest, len(self.grid[path]))
            values.append((path, self.grid[path][i]))
        return Run(run_id, combination, None if self.random is None else sample, dict(reversed(values)))

    @property
    def param_columns(self) -> list[str]:
        """``sample`` (with a ``random`` section) and the grid's dotted paths."""
        return (["sample"] if self.random is not None else []) + list(self.grid)

    @property
    def metric_columns(self) -> list[str]:
        """The metric columns, in order."""
        return metric_columns(self.metrics, self.series)

    @property
    def columns(self) -> list[str]:
        """Every CSV column: run_id, parameters, metrics, status, worker, wall_time."""
        return [*FIRST_COLUMNS, *self.param_columns, *self.metric_columns, *LAST_COLUMNS]

    @property
    def deterministic_columns(self) -> list[str]:
        """The columns that are bit-identical for a run on any worker (no wall clock, no worker name)."""
        if self.walk is not None:
            metrics = [m for m in self.metrics if WALK_METRICS[m].deterministic]
        else:
            metrics = deterministic_columns(self.metrics, self.series)
        return [*FIRST_COLUMNS, *self.param_columns, *metrics, "status"]

    def describe(self) -> str:
        """One line: runs, grid sizes, samples, steps."""
        grid = " × ".join(f"{p} ({len(v)})" for p, v in self.grid.items()) or "no grid"
        plural = "s" if self.n_samples > 1 else ""
        samples = f", {self.n_samples} random sample{plural} each" if self.random is not None else ""
        steps = f", {self.steps} steps per run" if self.steps is not None else ""
        kind = "walks" if self.walk is not None else "runs"
        return f"{self.n_runs} {kind}: {grid}{samples}{steps}"


def row_params(spec: SweepSpec, run: Run) -> dict[str, Any]:
    """The identifying columns of a run's row: run_id, sample (with ``random``), grid values."""
    row: dict[str, Any] = {"run_id": run.run_id}
    if spec.random is not None:
        row["sample"] = run.sample
    row.update(run.params)
    return row
