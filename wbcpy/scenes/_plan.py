"""The AccelerationScene's per-configuration plan: what ``update()`` writes where, decided once.

Which tasks are active, how their rows stack per priority level and which rows never change (joint
tasks: weighted selection rows) only depend on the configuration, the weights, the activations, whether
a reference was set and — for tasks with a timeout — on the clock. A :class:`ScenePlan` records these
decisions together with preallocated row buffers and their row views; ``update()`` then only

* lets each state-dependent task write its weighted rows into its views (``Task.fill_rows``),
* rewrites the joint tasks' targets (√w·a_ref; the selection rows stay in the buffer),
* copies each buffer into the new :class:`~wbcpy.qp.QPLevel` it returns (problems handed out are never
  changed by a later update).

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
        joint: (task, y rows) of the joint tasks (constant rows, targets rewritten every update).
    """

    __slots__ = ("A", "dynamic", "joint", "priority", "y")

    def __init__(self, priority: int, tasks: list[Task], nv: int) -> None:
        m = sum(t.n_rows for t in tasks)
        self.priority = priority
        self.A = np.zeros((m, nv))
        self.y = np.zeros(m)
        self.dynamic: list[tuple[Task, np.ndarray, np.ndarray]] = []
        self.joint: list[tuple[Task, np.ndarray]] = []
        k = 0
        for t in tasks:
            r = t.n_rows
            rows, target = self.A[k : k + r], self.y[k : k + r]
            if t.type == "jnt":
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
    """

    __slots__ = ("inactive", "levels", "priorities", "timed", "versions")

    def __init__(self, groups: list[list[Task]], now: float, nv: int) -> None:
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
                self.levels.append(LevelPlan(group[0].priority, active, nv))
                self.priorities.append(group[0].priority)

    def valid(self, now: float) -> bool:
        """True while no task changed its version and no timed task changed its timed-out state."""
        for t, version in self.versions:
            if t.version != version:
                return False
        if self.timed:
            return all(t.timed_out(now) == timed_out for t, timed_out in self.timed)
        return True
