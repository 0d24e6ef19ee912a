"""Scene base class: tasks grouped by priority, references, weights, QP solver and status.

A scene (ARC-OPT ``wbc::Scene``) owns the tasks built from a list of :class:`~wbcpy.tasks.TaskConfig`,
their references, weights and activations, the joint weights, a QP solver and the last solver output.
Subclasses implement :meth:`Scene.update`, which turns the robot's current state into a
:class:`~wbcpy.qp.HierarchicalQP`; :meth:`Scene.solve` hands it to the solver.

Every setter validates its input completely before changing anything: a failed call leaves the scene as
it was. snake_case methods are the API; the ARC-OPT camelCase names are aliases
(:class:`~wbcpy.scenes.aliases.SceneAliases`).
"""

from __future__ import annotations

import copy
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._support.read_only import ClassConstant, read_only, seal_properties
from ..errors import ConfigError, ConfigKeyError, MissingReferenceWarning, QPSolveError, UnknownNameError
from ..qp import LevelStatus, QPSolver, default_solver
from ..tasks import Task, TaskConfig, TasksStatus, make_task
from ._plan import TASK_VERSION, OwnProblem, ScenePlan, joint_regularization
from .aliases import SceneAliases
from .binding import ReferenceBinding
from .joint_command import JointCommand, NoSolutionError
from .scene_constraints import SceneConstraintsApi
from .values import positive

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel
    from ..qp import HierarchicalQP, QPLevel


def _tightened_by_design(name: str | None) -> bool:
    """Whether a scene's levels solved by backend ``name`` (None: the default) skip QPSolver's
    ``tighten`` refinement: DAQP's, whose answers on the scenes' strictly convex levels (λ > 0) are
    certified to kkt_tol and checked exact against independent oracles, and whose refinement in Python
    would cost more than the rest of the contact step; the other backends keep it."""
    return (name if name is not None else default_solver()) == "daqp"


class HierarchySolver(Protocol):
    """What a scene needs of its solver: a :class:`~wbcpy.qp.QPSolver`, or any object with this method (a
    duck-typed backend, which may also have ``statuses``, its per-level statuses, and ``name``, used in
    errors)."""

    def solve_hierarchy(self, hqp: HierarchicalQP) -> ArrayLike:
        """The solution x (``hqp.n``) of the hierarchical QP ``hqp``."""
        ...


def _as_configs(configs: Any) -> list[TaskConfig]:
    """Validated private copies of the configs (TaskConfig, mapping, or a YAML path)."""
    if isinstance(configs, (str, Path)):
        configs = TaskConfig.from_yaml(configs)
    if configs is None or isinstance(configs, (str, bytes, Mapping)) or not isinstance(configs, Sequence):
        raise ConfigError("tasks", f"expected a list of task configs, got {type(configs).__name__}")
    out: list[TaskConfig] = []
    for i, cfg in enumerate(configs):
        prefix = f"tasks[{i}]."
        if isinstance(cfg, Mapping):
            cfg = TaskConfig.from_dict(cfg, prefix=prefix)
        elif isinstance(cfg, TaskConfig):
            cfg.validate(prefix)
            cfg = cfg.copy()
        else:
            raise ConfigError(f"tasks[{i}]", f"expected a TaskConfig or a mapping, got {type(cfg).__name__}")
        out.append(cfg)
    return out


def _check_weight(value: Any, field: str) -> float:
    ok = not isinstance(value, bool) and isinstance(value, (int, float, np.floating, np.integer))
    if not ok or not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise ConfigError(field, f"must be a number in [0, 1], got {value!r}")
    return float(value)


class Scene(SceneConstraintsApi, SceneAliases):
    """Base class of scenes (see :class:`~wbcpy.AccelerationScene`).

    Subclasses set ``_regularization`` (λ > 0) before calling ``Scene.__init__``; their :meth:`update`
    builds the task levels with :meth:`_task_levels` and hands the problem out through
    :meth:`_keep_problem` (so that :meth:`solve` recognises it).

    Every public attribute either takes a new value — checked, and everything that depends on it
    recomputed, so that the scene answers as a scene built with that value — or is read-only
    (:class:`~wbcpy.errors.ReadOnlyAttributeError`, also an ``AttributeError``).

    Attributes:
        robot: the robot model (read-only); set its state with ``robot.update(q, v, a)`` before
            :meth:`update`.
        solver: the QP solver (``wbcpy.qp.QPSolver``); settable: a backend name (or None: the default),
            a QPSolver or a duck-typed backend.
        regularization: λ > 0 of the joint regularisation λ/ω_j (settable).
        task_level: the decision variable the tasks work at, ``"acceleration"`` (q̈) or ``"velocity"``
            (q̇) (a class constant; see :mod:`wbcpy.tasks.task`).
        needs_dynamics: :meth:`update` computes the robot's dynamics (M, b) at every state (a class
            constant): the references bound to the scene then take the COM terms from that pass.
    """

    task_level = ClassConstant("acceleration")
    needs_dynamics = ClassConstant(False)
    robot: RobotModel = read_only("robot", "The robot model (read-only: the tasks are built on it).")
    #: attributes that hold the row plan (buffers and the tasks' views into them): left out of copies
    _PLAN_ATTRIBUTES: ClassVar[tuple[str, ...]] = ("_plan", "_own", "_hqp")
    #: λ > 0 of the joint regularisation λ/ω_j (set by the subclass before ``Scene.__init__``)
    _regularization: float

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A scene class's read-only properties raise ReadOnlyAttributeError when assigned."""
        super().__init_subclass__(**kwargs)
        seal_properties(cls)

    def __init__(
        self,
        robot: RobotModel,
        solver: str | HierarchySolver | None = None,
        clock: Callable[[], float] | None = None,
    ):
        import time

        if clock is None:
            clock = time.monotonic
        if not callable(clock):
            raise ConfigError("clock", f"must be a callable returning seconds, got {clock!r}")
        self._solver: HierarchySolver = self._as_solver(solver)
        self._robot = robot
        self._clock = clock
        model = robot.model
        self._dof_names = robot.dof_names
        actuated = np.ones(robot.nv, dtype=bool)
        for jid in range(1, model.njoints):
            joint = model.joints[jid]
            if "FreeFlyer" in joint.shortname():
                actuated[joint.idx_v : joint.idx_v + joint.nv] = False
        self._actuated = np.flatnonzero(actuated)
        self._actuated_names = [self._dof_names[i] for i in self._actuated]
        act = self._actuated
        contiguous = act.size and act[-1] - act[0] + 1 == act.size
        self._actuated_index: slice | np.ndarray = slice(int(act[0]), int(act[-1]) + 1) if contiguous else act
        self._all_actuated = act.size == robot.nv  # (no floating base: the command is the whole solution)
        self._joint_dofs = {
            name: list(range(model.joints[j].idx_v, model.joints[j].idx_v + model.joints[j].nv))
            for name, j in ((n, robot.joint_id(n)) for n in robot.joint_names)  # (mimic joints: no DOF)
        }
        self._joint_weights = np.ones(robot.nv)
        self._tasks: list[Task] = []
        self._unreferenced_warned: set[str] | None = set()  # None once every task has had a reference
        self._by_name: dict[str, Task] = {}
        self._groups: list[list[Task]] = []
        self._configs: list[TaskConfig] = []
        self._com_polygon = None
        self._loops = {}
        self._reset_output()
        self._joint_weights_changed()

    def __getstate__(self) -> dict[str, Any]:
        """The scene's attributes for ``copy.deepcopy`` and pickles, without its row plan.

        The plan's row buffers and the row views the tasks write into are numpy views of one another; a
        deep copy or a pickle turns them into separate arrays, so that a copied scene's tasks would write
        rows its problem never reads (the copy answered with the original's old answer). The copy, whose
        robot, tasks, bindings and last output are copied as usual, builds its own plan at its first
        :meth:`update`, as a fresh scene does.
        """
        state = self.__dict__.copy()
        for name in self._PLAN_ATTRIBUTES:
            if name in state:
                state[name] = None
        return state

    # ------------------------------------------------------------------ settable options
    @property
    def solver(self) -> HierarchySolver:
        """The QP solver (settable: a backend name, None for the default backend, a ``QPSolver`` or any
        object with ``solve_hierarchy(hqp)``; the next :meth:`solve` uses it)."""
        return self._solver

    @solver.setter
    def solver(self, value: str | HierarchySolver | None) -> None:
        self._solver = self._as_solver(value)

    def _as_solver(self, solver: Any) -> HierarchySolver:
        """A backend name (or None) as a QPSolver, a solver object as it is.

        Raises:
            ConfigError: anything else; ConfigKeyError: an unknown backend name.
        """
        if solver is None or isinstance(solver, str):
            return QPSolver(solver, tighten=not _tightened_by_design(solver))
        if not hasattr(solver, "solve_hierarchy"):
            raise ConfigError("solver", f"expected a backend name or a QPSolver, got {type(solver).__name__}")
        out: HierarchySolver = solver
        return out

    @property
    def regularization(self) -> float:
        """λ > 0 of the joint regularisation λ/ω_j (settable: the regularisation is recomputed)."""
        return self._regularization

    @regularization.setter
    def regularization(self, value: float) -> None:
        self._regularization = positive(value, "regularization", "a finite number")
        self._joint_weights_changed()

    def __copy__(self) -> Scene:
        """``copy.copy`` of a scene is a deep copy: a shallow one would share the task list, the row
        buffers and the solver with the original, so that the two would overwrite each other's rows."""
        return copy.deepcopy(self)

    def _reset_output(self) -> None:
        self._plan: ScenePlan | None = None
        self._own: OwnProblem | None = None
        self._hqp: HierarchicalQP | None = None
        self._qdd: np.ndarray | None = None
        self._level_priorities: list[int] = []
        self._solver_statuses: list[Any] = []
        self._status: TasksStatus | None = None
        self._update_time = 0.0
        self._measured: np.ndarray | None = None

    def _joint_weights_changed(self) -> None:
        """Joint weights were set: the regularisation λ/ω_j and the locked DOFs (ω_j = 0) are recomputed
        and the row plan is dropped (subclasses extend this hook)."""
        self._reg, self._locked = joint_regularization(self._joint_weights, self._regularization)
        self._plan = None

    # ------------------------------------------------------------------ configuration
    def configure(self, configs: Sequence[TaskConfig | Mapping[str, Any]] | str | Path) -> None:
        """Replace the scene's tasks by ``configs`` (TaskConfig objects, mappings or a YAML path).

        Tasks start without a reference; joint weights are kept. Validation is complete before anything
        changes.

        Raises:
            ConfigError: empty list, a duplicate name or any invalid field, named as ``tasks[i].field``
                (unknown frames, joints, types and fields raise :class:`ConfigKeyError`, also a KeyError).
        """
        cfgs = _as_configs(configs)
        if not cfgs:
            raise ConfigError("tasks", "the task list is empty")
        tasks: list[Task] = []
        seen: set[str] = set()
        for i, cfg in enumerate(cfgs):
            if cfg.name in seen:
                raise ConfigError(f"tasks[{i}].name", f"duplicate task name {cfg.name!r}")
            seen.add(cfg.name)
            tasks.append(self._make_task(cfg, prefix=f"tasks[{i}]."))
        self._configs = cfgs
        self._tasks = tasks
        self._unreferenced_warned = set()  # None once every task has had a reference
        self._by_name = {t.name: t for t in tasks}
        self._groups = [[t for t in tasks if t.priority == p] for p in sorted({t.priority for t in tasks})]
        self._reset_output()

    def _make_task(self, cfg: TaskConfig, prefix: str) -> Task:
        """The task of one validated config (subclasses build the task types only they know)."""
        task: Task = make_task(self.robot, cfg, prefix=prefix, level=self.task_level)
        return task

    def get_wbc_config(self) -> list[TaskConfig]:
        """Copies of the task configs as configured (weights/activation as given to :meth:`configure`)."""
        return [c.copy() for c in self._configs]

    @property
    def tasks(self) -> list[Task]:
        """The tasks in configuration order (read-only view; do not modify)."""
        return list(self._tasks)

    @property
    def task_names(self) -> list[str]:
        """Task names in configuration order."""
        return [t.name for t in self._tasks]

    def _task(self, name: str) -> Task:
        try:
            return self._by_name[name]
        except (KeyError, TypeError):
            raise UnknownNameError("task", name, self._by_name) from None

    def get_task(self, name: str) -> Task:
        """The task object named ``name`` (unknown → :class:`UnknownNameError`, a KeyError)."""
        return self._task(name)

    def has_task(self, name: str) -> bool:
        """True when a task named ``name`` is configured."""
        return isinstance(name, str) and name in self._by_name

    # ------------------------------------------------------------------ references, weights, activation
    def set_reference(self, task_name: str, reference: Any) -> None:
        """Set the reference of a task; ``reference.time = None`` stamps it with the scene clock now.

        Raises:
            UnknownNameError: unknown task.
            ReferenceTypeError: wrong reference class for the task type (also a TypeError).
            InvalidValueError: wrong size, NaN/inf, or an invalid time stamp.
        """
        try:
            task = self._by_name[task_name]  # (Scene._task, inlined: the checked API's hot path)
        except (KeyError, TypeError):
            raise UnknownNameError("task", task_name, self._by_name) from None
        task.accept_reference(reference, self._clock)

    def bind(self, task_name: str, law: Any, target: Any, target_velocity: Any = None,
             target_acceleration: Any = None) -> ReferenceBinding:  # fmt: skip
        """Bind a control law to a task: the hot-loop API (:mod:`wbcpy.scenes.binding`).

        ``binding.update()`` after each ``robot.update`` writes the law's reference for the current state
        into the task in place (validation happens here and in ``binding.set_target``, not per step).

        Raises:
            UnknownNameError: unknown task. ConfigError: a law of the wrong kind for the task or scene.
            InvalidValueError: a malformed target.
        """
        return ReferenceBinding(self, task_name, law, target, target_velocity, target_acceleration)

    def clock(self) -> float:
        """The scene clock now (s): reference time stamps and timeouts use it."""
        return float(self._clock())

    @property
    def clock_function(self) -> Callable[[], float]:
        """The callable the scene clock reads (as given to the constructor; default ``time.monotonic``)."""
        return self._clock

    def set_task_weights(self, task_name: str, weights: Any) -> None:
        """Set the per-row weights of a task (n values ≥ 0; cart: in ref_frame axes).

        Raises:
            UnknownNameError: unknown task.
            ConfigError: wrong count, non-finite or negative weights (field ``<task>.weights``).
        """
        self._task(task_name).set_weights(weights)

    def set_task_activation(self, task_name: str, activation: float) -> None:
        """Set a task's activation in [0, 1] (0 removes it from the problem).

        Raises:
            UnknownNameError: unknown task.
            ConfigError: a value outside [0, 1] or not a number (field ``<task>.activation``).
        """
        self._task(task_name).set_activation(activation)

    def set_joint_weights(self, weights: Mapping[str, float]) -> None:
        """Set joint weights ω ∈ [0, 1] for the joints named (others keep theirs).

        ω = 0 locks the DOF (q̈ = 0, a bound); 0 < ω < 1 makes it more expensive where the tasks leave
        redundancy (regularization λ/ω). Keys are DOF names (``robot.dof_names``) or joint names (a
        multi-DOF joint's name sets all its DOFs).

        Raises:
            ConfigKeyError: an unknown name (field ``joint_weights``).
            ConfigError: a weight outside [0, 1] or not a number.
        """
        if not isinstance(weights, Mapping):
            raise ConfigError(
                "joint_weights", f"expected a mapping {{name: weight}}, got {type(weights).__name__}"
            )
        index = {n: [i] for i, n in enumerate(self._dof_names)}
        index.update({k: v for k, v in self._joint_dofs.items() if k not in index})
        new = self._joint_weights.copy()
        for name, value in weights.items():
            if name not in index:
                raise ConfigKeyError("joint_weights", "joint", name, index)
            new[index[name]] = _check_weight(value, f"joint_weights[{name}]")
        self._joint_weights = new
        self._joint_weights_changed()

    def get_joint_weights(self) -> dict[str, float]:
        """``{dof_name: ω}`` for every DOF (floating base included)."""
        return dict(zip(self._dof_names, self._joint_weights.tolist(), strict=True))

    def get_actuated_joint_weights(self) -> dict[str, float]:
        """``{dof_name: ω}`` for the actuated DOFs (floating-base DOFs excluded)."""
        w = self._joint_weights
        return {n: float(w[i]) for n, i in zip(self._actuated_names, self._actuated, strict=True)}

    # ------------------------------------------------------------------ solving
    def update(self) -> HierarchicalQP:
        """Build the hierarchical QP from the robot's current state (subclasses)."""
        raise NotImplementedError

    def solve(self, hqp: HierarchicalQP | None = None) -> JointCommand:
        """Solve ``hqp`` (default: the last :meth:`update`'s) and return the actuated joints' q̈.

        Active tasks that never received a reference are left out of the problem; the first solve that
        leaves a task out for that reason warns once, naming it
        (:class:`~wbcpy.errors.MissingReferenceWarning`; ``warnings.simplefilter("error",
        MissingReferenceWarning)`` turns it into an error).

        Raises:
            NoSolutionError: no problem given and :meth:`update` never called.
            QPSolveError: the backend failed or returned a non-finite or wrongly sized solution; the
                previous output is kept.
        """
        if self._unreferenced_warned is not None:  # until every task has had a reference (then: free)
            self._warn_unreferenced()
        if hqp is None:
            hqp = self._hqp
            if hqp is None:
                raise NoSolutionError("problem")
        solver = self._solver
        if isinstance(solver, QPSolver):
            own = self._own
            if own is not None and own.matches(hqp):  # (_is_own_problem, inlined: the hot path)
                x = solver.solve_hierarchy_unchecked(hqp)  # a new, certified float64 array
            else:
                x = solver.solve_hierarchy(hqp)
            records: Any = solver.status_records
        else:  # any object with solve_hierarchy(hqp) -> x (duck-typed backend)
            x = np.array(solver.solve_hierarchy(hqp), dtype=float)
            records = list(getattr(solver, "statuses", []))
            if x.shape != (hqp.n,) or not np.isfinite(x).all():
                raise QPSolveError(getattr(solver, "name", "?"), "non-finite or wrongly sized solution", hqp)
        self._set_solution(x)
        self._solver_statuses = records
        return self._command()

    def _warn_unreferenced(self) -> None:
        """Warn once per task about active tasks without a reference (:meth:`solve`)."""
        warned = self._unreferenced_warned
        if warned is None:
            return
        missing = [t for t in self._tasks if t.reference is None and t.needs_reference]
        if not missing:
            self._unreferenced_warned = None
            return
        new = [t.name for t in missing if t.activation > 0 and t.name not in warned]
        if new:
            warned.update(new)
            warnings.warn(MissingReferenceWarning(new), stacklevel=3)

    def _set_solution(self, x: np.ndarray) -> None:
        """Keep a new solution (subclasses with more variables than q̈ split it here)."""
        self._qdd = x

    def _command(self) -> JointCommand:
        """The JointCommand of the last solution (subclasses add fields)."""
        x = self._qdd  # (_solution, inlined: the hot path)
        if x is None:
            raise NoSolutionError()
        return JointCommand(self._actuated_names.copy(), x.copy() if self._all_actuated else
                            x[self._actuated_index].copy())  # fmt: skip

    def _solution(self) -> NDArray[np.float64]:
        """The last solution (q̈; q̇ in a velocity scene), not a copy.

        Raises:
            NoSolutionError: before the first successful :meth:`solve`.
        """
        if self._qdd is None:
            raise NoSolutionError()
        return self._qdd

    def _task_levels(self) -> tuple[list[QPLevel], list[int], float]:
        """The levels of the active tasks' rows for the robot's current state (the row plan is rebuilt
        when stale: :mod:`wbcpy.scenes._plan`), their task priorities and the clock's time.

        Raises:
            ConfigError: the scene has no tasks (configure() was never called).
        """
        if not self._tasks:
            raise ConfigError("tasks", "the scene has no tasks: call configure() first")
        now = float(self._clock())
        plan = self._plan
        # (ScenePlan.valid inlined: the hot path; its timed tasks' test only where there are such tasks)
        if (plan is None or tuple(map(TASK_VERSION, plan.tasks)) != plan.versions
                or (plan.timed and not plan.valid(now))):  # fmt: skip
            plan = self._plan = ScenePlan(self._groups, now, self._reg.shape[0])
        levels, priorities = plan.build_levels(self._reg, self._reg.shape[0])
        return levels, priorities, now

    def _keep_problem(
        self, hqp: HierarchicalQP, priorities: list[int], now: float, measured: np.ndarray | None
    ) -> HierarchicalQP:
        """Remember the problem :meth:`update` hands out (its priorities, time and the measured state
        for the status) and return it."""
        self._hqp = hqp
        own = self._own
        if own is None:
            self._own = OwnProblem(hqp)
        else:
            own.keep(hqp)
        self._level_priorities = priorities
        self._update_time = now
        self._measured = measured
        return hqp

    def _is_own_problem(self, hqp: HierarchicalQP) -> bool:
        """True when ``hqp`` is the last problem :meth:`update` built, with its own arrays (values may
        have been edited in place: the solver checks the answer in any case)."""
        own = self._own
        return own is not None and own.matches(hqp)

    @property
    def level_priorities(self) -> list[int]:
        """Task priority of each level of the last :meth:`update` (-1 for the empty fallback level)."""
        return list(self._level_priorities)

    def get_solver_output(self) -> JointCommand:
        """The last solution as a :class:`JointCommand` (actuated joints).

        Raises:
            NoSolutionError: before the first successful :meth:`solve`.
        """
        if self._qdd is None:
            raise NoSolutionError()
        return self._command()

    def get_solver_output_raw(self) -> np.ndarray:
        """The last solution's full q̈ (nv, floating base included), a new array.

        Raises:
            NoSolutionError: before the first successful :meth:`solve`.
        """
        x = self._qdd  # (_solution, inlined: the hot path)
        if x is None:
            raise NoSolutionError()
        return x.copy()

    @property
    def solver_statuses(self) -> list[LevelStatus]:
        """Per-level statuses (``wbcpy.qp.LevelStatus``) of the last successful solve."""
        return [
            r if isinstance(r, LevelStatus) else LevelStatus.from_record(r) for r in self._solver_statuses
        ]

    # ------------------------------------------------------------------ status
    def update_tasks_status(self) -> TasksStatus:
        """Compute the status of every task from the last update and the last solution."""
        now = self._update_time
        status = TasksStatus(
            [t.status(self._qdd, self._measured, now) for t in self._tasks], self.solver_statuses
        )
        self._status = status
        return status

    def get_tasks_status(self) -> TasksStatus:
        """The status computed by the last :meth:`update_tasks_status` (computed now if never)."""
        return self._status if self._status is not None else self.update_tasks_status()

    def dump_status(self, file: Any = None, levels: bool = False) -> str:
        """Print (and return) the status table: a header and one row per task.

        Args:
            file: stream to print to (default stdout).
            levels: also print one line per priority level with the solver's status, iterations and time.
        """
        import sys

        status = self.update_tasks_status()
        text = str(status)
        if levels and status.levels:
            text = f"{text}\n{status.solver_summary()}"
        print(text, file=file or sys.stdout)
        return text

    # ------------------------------------------------------------------ static helpers
    @staticmethod
    def sort_task_config(configs: Sequence[TaskConfig | Mapping[str, Any]]) -> list[list[TaskConfig]]:
        """Group configs by priority, highest priority (0) first; empty priorities are skipped."""
        cfgs = _as_configs(configs)
        return [[c for c in cfgs if c.priority == p] for p in sorted({c.priority for c in cfgs})]

    @staticmethod
    def get_n_task_variables(configs: Sequence[TaskConfig | Mapping[str, Any]]) -> int:
        """Total number of task rows (n joints / 6 / 3 per task)."""
        return sum(c.n_variables for c in _as_configs(configs))

    @staticmethod
    def get_n_task_variables_per_prio(configs: Sequence[TaskConfig | Mapping[str, Any]]) -> list[int]:
        """Number of task rows per priority level (same order as :meth:`sort_task_config`)."""
        return [sum(c.n_variables for c in group) for group in Scene.sort_task_config(configs)]


seal_properties(Scene)
