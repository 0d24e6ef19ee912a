"""Task status: what each task asked for, what the solution gives and what was measured.

For every task (all types, active or not) :class:`TaskStatus` holds

* ``y_ref`` — the reference acceleration as given (reference axes), or None without a reference;
* ``y_solution`` — ``A q̈_sol + bias``: the task acceleration the solution produces (comparable with y_ref);
* ``y`` — ``A q̈_meas + bias`` from the measured acceleration given to ``robot.update(q, v, a)``, or None;
* ``error`` — ``y_ref − y_solution`` per row;

plus the weights, activation, priority, the timed-out flag and ``state`` (``"active"``, ``"inactive"``
for activation 0, ``"no_reference"``, ``"timed_out"``, or ``"contact_inactive"`` for a wrench task whose
contact is lifted). :class:`TasksStatus` collects them (in
configuration order) with the solver's per-level statuses, and prints one table row per task.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ..errors import UnknownNameError

if TYPE_CHECKING:
    from ..qp import LevelStatus


@dataclass
class TaskStatus:
    """Status of one task after a solve (see the module docstring for the fields)."""

    name: str
    type: str
    priority: int
    state: str
    activation: float
    weights: NDArray[np.float64]
    timed_out: bool
    y_ref: NDArray[np.float64] | None
    y_solution: NDArray[np.float64] | None
    y: NDArray[np.float64] | None
    error: NDArray[np.float64] | None

    @property
    def active(self) -> bool:
        """True when the task contributed to the last problem."""
        return self.state == "active"

    @property
    def error_norm(self) -> float | None:
        """‖y_ref − y_solution‖₂, or None when either is missing."""
        return None if self.error is None else float(np.linalg.norm(self.error))

    @property
    def measured_error_norm(self) -> float | None:
        """‖y_ref − y‖₂ (measured), or None when either is missing."""
        if self.y_ref is None or self.y is None:
            return None
        return float(np.linalg.norm(self.y_ref - self.y))


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:.3g}"


@dataclass
class TasksStatus:
    """The status of every task of a scene, in configuration order.

    Attributes:
        tasks: one :class:`TaskStatus` per task.
        levels: the solver's per-level statuses of the last solve (``wbcpy.qp.LevelStatus``).
    """

    tasks: list[TaskStatus]
    levels: Sequence[LevelStatus] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.tasks)

    def __iter__(self) -> Iterator[TaskStatus]:
        return iter(self.tasks)

    def __getitem__(self, key: int | str) -> TaskStatus:
        """Status by index or by task name (unknown name → :class:`UnknownNameError`)."""
        if isinstance(key, str):
            for status in self.tasks:
                if status.name == key:
                    return status
            raise UnknownNameError("task", key, [s.name for s in self.tasks])
        return self.tasks[key]

    def names(self) -> list[str]:
        """Task names in order."""
        return [s.name for s in self.tasks]

    def table(self) -> str:
        """Plain-text table, one row per task (norms are Euclidean over the task rows)."""
        header = ["task", "type", "prio", "state", "act", "|y_ref|", "|y_ref-y_sol|", "|y_ref-y|"]
        rows = [
            [
                s.name,
                s.type,
                str(s.priority),
                s.state,
                f"{s.activation:.3g}",
                _num(None if s.y_ref is None else float(np.linalg.norm(s.y_ref))),
                _num(s.error_norm),
                _num(s.measured_error_norm),
            ]
            for s in self.tasks
        ]
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        lines = [
            "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in [header, *rows]
        ]
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(lines)

    def solver_summary(self) -> str:
        """One line per priority level: solver, status, iterations and solve time."""
        out = []
        for lvl in self.levels:
            its = getattr(lvl, "iterations", None)
            t = getattr(lvl, "solve_time", float("nan"))
            out.append(
                f"level {getattr(lvl, 'level', '?')}: {getattr(lvl, 'solver', '?')} "
                f"{getattr(lvl, 'status', '?')}, iterations {its if its is not None else '-'}, "
                f"{1e6 * t:.1f} µs, {getattr(lvl, 'n_eq', 0)} equalities"
            )
        return "\n".join(out)

    def __str__(self) -> str:
        return self.table()
