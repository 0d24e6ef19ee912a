"""The scenes' per-configuration plan: what ``update()`` writes where, decided once.

Which tasks are active, how their rows stack per priority level and which rows never change (joint
tasks: weighted selection rows) only depend on the configuration, the weights, the activations, whether
a reference was set and — for tasks with a timeout — on the clock. A :class:`ScenePlan` records these
decisions together with preallocated row buffers and their row views; ``update()`` then only

* lets each state-dependent task write its weighted rows into its views (``Task.fill_rows``),
* rewrites the joint tasks' targets (√w·a_ref; the selection rows stay in the buffer),
* copies each buffer into the new :class:`~wbcpy.qp.QPLevel` it returns (problems handed out are never
  changed by a later update): :meth:`ScenePlan.build_levels`.

The same plan serves the AccelerationScene (rows on q̈) and the VelocityScene (rows on q̇): the tasks
write the rows of their level. :class:`OwnProblem` remembers the arrays of the problem a scene built, so
that ``solve()`` recognises it (and skips the structural validation), and :func:`joint_regularization`
turns joint weights into the regularisation λ/ω and the locked DOFs.

Buffers have ``n_columns`` ≥ nv columns (an inverse-dynamics scene adds contact wrenches after q̈):
a task writes its rows into the first nv columns, unless it names other columns (``Task.columns``: a
wrench task's contact wrench, a torque task's every variable). Tasks whose rows never change
(``Task.constant_rows``: joint and wrench tasks) are written once per plan; then only their targets.

The plan is rebuilt when a task's version changes (weights, activation, first reference), when the
timed-out state of a task with a timeout changes, or when the scene drops it (configure, joint
weights).
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import TYPE_CHECKING

import numpy as np

from .._kernels import level_copy
from ..qp import HierarchicalQP, QPLevel

if TYPE_CHECKING:
    from ..tasks import Task


#: a task's version counter (``Task.version``)
TASK_VERSION = attrgetter("version")


def joint_regularization(weights: np.ndarray, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """The per-DOF regularisation λ/ω_j (λ where ω_j = 0) as a read-only array, and the locked DOFs
    (ω_j = 0, indices), for joint weights ω ∈ [0, 1]."""
    locked = weights <= 0.0
    reg = np.full(weights.shape, lam)
    np.divide(lam, weights, out=reg, where=~locked)
    reg.setflags(write=False)  # shared by the levels handed out: nobody may edit it
    return reg, np.flatnonzero(locked)


class LevelPlan:
    """Row buffers of one priority level and who writes which rows.

    Attributes:
        priority: the task priority of the level.
        A, y: persistent (m, nv) / (m,) buffers (constant rows written once).
        dynamic: (``task.fill_rows``, A rows, y rows) of the tasks whose rows depend on the state.
        joint: (``task.write_targets``, y rows) of the tasks with constant rows (``Task.constant_rows``:
            targets rewritten every update).
    """

    __slots__ = ("A", "dynamic", "joint", "n_columns", "nv", "priority", "tail", "tasks", "y")

    def __init__(self, priority: int, tasks: list[Task], nv: int, n_columns: int | None = None) -> None:
        self.priority, self.tasks, self.nv, self.n_columns = priority, tasks, nv, n_columns
        self.tail: np.ndarray | None = None
        self._buffers(np.zeros((0, n_columns or nv)), np.zeros(0))

    def set_tail(self, A_tail: np.ndarray, y_tail: np.ndarray) -> None:
        """Constant rows after the tasks' rows, in the same buffers (an inverse-dynamics scene's λ rows:
        each update then copies one buffer instead of joining two)."""
        self._buffers(A_tail, y_tail)
        self.tail = A_tail

    def _buffers(self, A_tail: np.ndarray, y_tail: np.ndarray) -> None:
        """New buffers: the tasks' rows (constant ones written here), then ``A_tail``, ``y_tail``."""
        tasks, nv, n_columns = self.tasks, self.nv, self.n_columns
        m = sum(t.n_rows for t in tasks)
        self.A = np.zeros((m + A_tail.shape[0], n_columns or nv))
        self.y = np.zeros(m + A_tail.shape[0])
        self.A[m:], self.y[m:] = A_tail, y_tail
        # (the tasks' bound methods, taken once per plan: ``fill_rows`` of the tasks whose rows depend on
        # the state, ``write_targets`` of those with constant rows)
        self.dynamic: list[tuple[Callable[[np.ndarray, np.ndarray], None], np.ndarray, np.ndarray]] = []
        self.joint: list[tuple[Callable[[np.ndarray], None], np.ndarray]] = []
        k = 0
        for t in tasks:
            r = t.n_rows
            cols = t.columns
            rows = self.A[k : k + r, :nv] if cols is None else self.A[k : k + r, cols]
            target = self.y[k : k + r]
            if t.constant_rows:
                t.write_rows(rows, target)
                self.joint.append((t.write_targets, target))
            else:
                self.dynamic.append((t.fill_rows, rows, target))
            k += r

    def write(self) -> None:
        """Write the level's rows for the robot's current state into its buffers."""
        for fill, rows, target in self.dynamic:
            fill(rows, target)
        for write_targets, target in self.joint:
            write_targets(target)


class ScenePlan:
    """Active tasks per level, the tasks only computed for their status, and the validity keys.

    Args:
        groups: the scene's tasks grouped by priority, highest first.
        now: the scene clock at the update that builds the plan (timeouts).
        nv: number of q̈ variables.
        n_columns: columns of the row buffers (default nv).
    """

    __slots__ = ("inactive", "levels", "n_columns", "priorities", "single", "tasks", "timed", "versions")

    def __init__(self, groups: list[list[Task]], now: float, nv: int, n_columns: int | None = None) -> None:
        self.n_columns = n_columns or nv
        self.levels: list[LevelPlan] = []
        self.priorities: list[int] = []
        self.inactive: list[Task] = []
        self.tasks: tuple[Task, ...] = tuple(t for group in groups for t in group)
        #: the tasks' versions when the plan was made (compared in one C-level pass: :meth:`valid`)
        self.versions: tuple[int, ...] = tuple(map(TASK_VERSION, self.tasks))
        self.timed: list[tuple[Task, bool]] = []
        for group in groups:
            active = []
            for t in group:
                if t.config.timeout > 0.0 and t.reference is not None:
                    self.timed.append((t, t.timed_out(now)))
                if t.n_rows and t.state(now) == "active":
                    active.append(t)
                else:
                    self.inactive.append(t)
            if active:
                self.levels.append(LevelPlan(group[0].priority, active, nv, n_columns))
                self.priorities.append(group[0].priority)
        #: the one level of a plan that has exactly one (the common case: :meth:`build_levels` in a few steps)
        self.single = self.levels[0] if len(self.levels) == 1 else None

    def build_levels(self, reg: np.ndarray, nv: int,
                     last: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
                     ) -> tuple[list[QPLevel], list[int]]:  # fmt: skip
        """Write every active task's rows for the robot's current state; one new level per plan level.

        Each level gets copies of the buffers (``A``, ``y``) and the shared read-only ``reg``. With
        ``last`` = (rows, targets, regularisation), the last level gets those rows after its own (kept in
        its buffers from the first update that passes them: :meth:`LevelPlan.set_tail`) and that
        regularisation instead (an inverse-dynamics scene's λ rows). The tasks that
        contribute no rows compute their rows for their status, when it reads them
        (``Task.defer_compute``: those of this state). Without any active level the result is one empty
        level (priority -1), so the problem still has the regularisation and the bounds.

        Returns:
            (levels, their task priorities).
        """
        single = self.single
        if single is not None and last is None:  # (one level without λ rows: the loop below, unrolled)
            for fill, rows, target in single.dynamic:
                fill(rows, target)
            for write_targets, target in single.joint:
                write_targets(target)
            for task in self.inactive:
                task.defer_compute()
            return [QPLevel(*level_copy(single.A, single.y), reg)], self.priorities
        levels: list[QPLevel] = []
        final = len(self.levels) - 1
        for k, lp in enumerate(self.levels):
            tail = last if k == final else None
            if tail is not None and lp.tail is not tail[0]:  # (the λ rows, cached per plan: written once)
                lp.set_tail(tail[0], tail[1])
            lp.write()
            levels.append(QPLevel(*level_copy(lp.A, lp.y), reg if tail is None else tail[2]))
        for task in self.inactive:  # no rows, but their status reports A x + bias: computed when read
            task.defer_compute()
        if not levels:
            if last is not None:
                return [QPLevel(last[0].copy(), last[1].copy(), last[2])], [-1]
            return [QPLevel(np.zeros((0, self.n_columns)), np.zeros(0), reg)], [-1]
        return levels, self.priorities

    def valid(self, now: float) -> bool:
        """True while no task changed its version and no timed task changed its timed-out state."""
        if tuple(map(TASK_VERSION, self.tasks)) != self.versions:
            return False
        if self.timed:
            return all(t.timed_out(now) == timed_out for t, timed_out in self.timed)
        return True


class OwnProblem:
    """The identity of every array of a problem a scene built, to recognise it unchanged in structure.

    Values may have been edited in place by the caller: the solver certifies the answer in any case.
    """

    __slots__ = ("arrays", "hqp", "lb", "levels", "names", "ub")

    def __init__(self, hqp: HierarchicalQP) -> None:
        self.keep(hqp)

    def keep(self, hqp: HierarchicalQP) -> None:
        """Remember ``hqp`` instead (a scene keeps one such record and refreshes it at every update)."""
        self.hqp = hqp
        self.levels = hqp.levels
        self.names = hqp.variable_names
        self.lb, self.ub = hqp.lb, hqp.ub
        self.arrays = list(map(_kept, self.levels))

    def matches(self, hqp: HierarchicalQP) -> bool:
        """True when ``hqp`` is that problem with the same level objects and arrays."""
        levels = self.levels
        if hqp is not self.hqp or hqp.levels is not levels or len(levels) != len(self.arrays):
            return False
        if hqp.lb is not self.lb or hqp.ub is not self.ub or hqp.variable_names is not self.names:
            return False
        if len(levels) == 1:  # (a scene's common problem: no iterator)
            return _same_arrays(levels[0], self.arrays[0])
        return all(map(_same_arrays, levels, self.arrays))  # (lengths equal: no zip(strict=True) needed)


def _kept(lv: QPLevel) -> tuple[object, ...]:
    """What :class:`OwnProblem` keeps of one level: the level and its arrays."""
    return (lv, lv.A, lv.y, lv.regularization, lv.E, lv.f, lv.C, lv.lbC, lv.ubC)


def _same_arrays(level: QPLevel, kept: tuple[object, ...]) -> bool:
    """True when ``level`` is the level recorded in ``kept`` (:func:`_kept`) with the same arrays."""
    lv, A, y, r, E, f, C, lo, hi = kept
    return (
        level is lv and level.A is A and level.y is y and level.regularization is r and level.E is E
        and level.f is f and level.C is C and level.lbC is lo and level.ubC is hi
    )  # fmt: skip
