"""The AccelerationScene's per-configuration plan: what ``update()`` writes where, decided once.

Which tasks are active, how their rows stack per priority level and which rows never change (joint
tasks: weighted selection rows) only depend on the configuration, the weights, the activations, whether
a reference was set and — for tasks with a timeout — on the clock. A :class:`ScenePlan` records these
decisions together with preallocated row buffers and their row views; ``update()`` then only

* lets each state-dependent task write its weighted rows into its views (``Task.fill_rows``),
* rewrites the joint tasks' targets (√w·a_ref; the selection rows stay in the buffer),
* copies each buffer into the new :class:`~wbcpy.qp.QPLevel` it returns (problems handed out are never
  changed by a later update).

Buffers have ``n_columns`` ≥ nv columns (an inverse-dynamics scene adds contact wrenches after q̈):
a task writes its rows into the first nv columns, unless it names other columns (a ``columns`` slice,
e.g. a wrench task); such tasks have constant rows, like joint tasks.

The plan is rebuilt when a task's version changes (weights, activation, first reference), when the
timed-out state of a task with a timeout changes, or when the scene drops it (configure, joint
weights).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ..tasks import Task

__all__ = ["LevelPlan", "ScenePlan"]


class LevelPlan:
    """Row buffers of one priority level and who writes which rows.

    Attributes:
        priority: the task priority of the level.
        A, y: persistent (m, nv) / (m,) buffers (constant rows written once).
        dynamic: (task, A rows, y rows) of the tasks whose rows depend on the state.
        joint: (task, y rows) of the tasks with constant rows (joint tasks, tasks with ``columns``:
            targets rewritten every update).
    """

    __slots__ = ("A", "dynamic", "joint", "priority", "y")

    def __init__(self, priority: int, tasks: list[Task], nv: int, n_columns: int | None = None) -> None:
        m = sum(t.n_rows for t in tasks)
        self.priority = priority
        self.A = np.zeros((m, n_columns or nv))
        self.y = np.zeros(m)
        self.dynamic: list[tuple[Task, np.ndarray, np.ndarray]] = []
        self.joint: list[tuple[Task, np.ndarray]] = []
        k = 0
        for t in tasks:
            r = t.n_rows
            cols = getattr(t, "columns", None)
            rows = self.A[k : k + r, :nv] if cols is None else self.A[k : k + r, cols]
            target = self.y[k : k + r]
            if t.type == "jnt" or cols is not None:
                t.write_rows(rows, target)
                self.joint.append((t, target))
            else:
                self.dynamic.append((t, rows, target))
            k += r


class ScenePlan:
    """Active tasks per level, the tasks only computed for their status, and the validity keys.

    Args:
        groups: the scene's tasks grouped by priority, highest first.
        now: the scene clock at the update that builds the plan (timeouts).
        nv: number of q̈ variables.
        n_columns: columns of the row buffers (default nv).
    """

    __slots__ = ("inactive", "levels", "priorities", "timed", "versions")

    def __init__(self, groups: list[list[Task]], now: float, nv: int, n_columns: int | None = None) -> None:
        self.levels: list[LevelPlan] = []
        self.priorities: list[int] = []
        self.inactive: list[Task] = []
        self.versions: list[tuple[Task, int]] = []
        self.timed: list[tuple[Task, bool]] = []
        for group in groups:
            active = []
            for t in group:
                self.versions.append((t, t.version))
                if t.config.timeout > 0.0 and t.reference is not None:
                    self.timed.append((t, t.timed_out(now)))
                if t.n_rows and t.state(now) == "active":
                    active.append(t)
                else:
                    self.inactive.append(t)
            if active:
                self.levels.append(LevelPlan(group[0].priority, active, nv, n_columns))
                self.priorities.append(group[0].priority)

    def valid(self, now: float) -> bool:
        """True while no task changed its version and no timed task changed its timed-out state."""
        for t, version in self.versions:
            if t.version != version:
                return False
        if self.timed:
            return all(t.timed_out(now) == timed_out for t, timed_out in self.timed)
        return True

    def fill(self) -> None:
        """Write the active tasks' rows and targets for the robot's current state into the buffers, and
        compute the inactive tasks' rows (their status reports A q̈ + bias)."""
        for lp in self.levels:
            for task, rows, target in lp.dynamic:
                task.fill_rows(rows, target)
            for task, target in lp.joint:
                task.write_targets(target)
        for task in self.inactive:
            task.compute()
