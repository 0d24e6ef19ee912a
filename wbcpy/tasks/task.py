"""Task base class: the rows ``A q̈ ≈ y`` one task adds to its priority level.

A task works at one ``level``, the decision variable of its scene: ``"acceleration"`` (q̈, the rows
below) or ``"velocity"`` (q̇: the same Jacobian A, no bias — ``bias`` stays zero — and y = the reference
velocity or twist, see :func:`~wbcpy.tasks.references.tracked_field`).

A task holds, for the robot's current state (after :meth:`Task.compute`),

* ``A`` (n×nv): the task Jacobian in the task's reference axes, unweighted;
* ``bias`` (n): the task acceleration at q̈ = 0 (``J̇ q̇`` for the task variable),

so that the task acceleration is ``A q̈ + bias`` and the target is ``y = a_ref − bias``. Both are
recomputed into the same preallocated arrays at every :meth:`Task.compute` (never accumulated), so repeated
updates with the same state give identical rows.

The scene's hot path calls :meth:`Task.fill_rows` instead, which writes the weighted rows straight into
the level's buffer; tasks that can (a Cartesian task with a fixed root and ref_frame axes equal to the
world's, the COM task) then keep references to the robot's per-state arrays and build :attr:`Task.A`
and :attr:`Task.bias` only when they are read (status, diagnostics).

The cost contribution of a task is activation · Σ_k w_k (A_k q̈ − y_k)² (weights act linearly on the
squared residual); :meth:`Task.write_rows` writes the square-root form √(activation·w_k)·A_k and
√(activation·w_k)·y_k of the rows whose weight is positive.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._kernels import weighted_rows as _weighted_rows
from .._support.read_only import read_only
from ..errors import ConfigError, ConfigKeyError, UnknownNameError
from .config import TaskConfig
from .fields import TaskField
from .references import Reference, ReferenceCheck, tracked_field
from .registry import task_type
from .status import TaskStatus

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel

#: decision variables a task can work at (its scene's): joint accelerations or joint velocities
TASK_LEVELS = ("acceleration", "velocity")


def frame_index(robot: RobotModel, name: str, field: str) -> int:
    """The Pinocchio index of frame ``name`` of ``robot`` (a task's robot-dependent check).

    Raises:
        ConfigKeyError: an unknown frame (``field`` named; link frames suggested first).
    """
    try:
        return robot.frame_id(name)
    except UnknownNameError:
        raise ConfigKeyError(field, "frame", name, robot.frame_names, preferred=robot.link_names) from None


#: :attr:`Task._src` of a task whose compute :meth:`Task.defer_compute` left for later (the state it
#: belongs to is in ``Task._deferred``)
_DEFERRED = ("deferred",)


class Task:
    """Base class of the joint, Cartesian and COM tasks.

    Attributes:
        robot: the robot model the task reads its kinematics from.
        config: a private copy of the task's configuration.
        name: the task name.
        n: number of task rows.
        A: task Jacobian (n×nv) of the last :meth:`compute`, in reference axes, unweighted.
        bias: task acceleration at q̈ = 0 (n) of the last :meth:`compute`.
        weights: current per-row weights (n), ≥ 0.
        activation: current activation in [0, 1].
        reference: the last validated reference, or None.
        reference_time: its time stamp on the scene clock (s), or None.
        level: ``"acceleration"`` or ``"velocity"`` (see the module docstring).
    """

    type: ClassVar[str] = ""
    #: the type's own config fields (:mod:`wbcpy.tasks.fields`): its registration reads them
    config_fields: ClassVar[tuple[TaskField, ...]] = ()
    #: the rows never change with the state (a selection): a scene writes them once per plan and only
    #: rewrites the targets (:meth:`write_targets`)
    constant_rows: ClassVar[bool] = False
    #: the task contributes no rows until it has a reference (False: a regulariser whose target is zero)
    needs_reference: ClassVar[bool] = True
    #: the columns of the scene's variables the rows act on; None: the first nv (q̈ or q̇)
    columns: slice | None = None

    def __init__(self, robot: RobotModel, config: TaskConfig, level: str = "acceleration") -> None:
        if level not in TASK_LEVELS:
            raise ConfigError("level", f"expected one of {TASK_LEVELS}, got {level!r}")
        self.level = level
        self._velocity = level == "velocity"
        self._tracked = tracked_field(config.type, level)
        self.robot = robot
        self.config = config
        self.name = config.name
        self.n = task_type(config.type).row_count(config, robot.nv)
        nv = robot.nv
        self._A = np.zeros((self.n, nv))
        self._bias = np.zeros(self.n)
        # lazy (A, bias): per-state arrays to copy from (fill_rows), or _DEFERRED (defer_compute: the state's
        # id, q and v in _deferred)
        self._src: tuple[Any, ...] | None = None
        self._deferred: tuple[int, NDArray[np.float64], NDArray[np.float64]] | None = None
        self._version = 0  # bumped when the task's rows change shape or activity (weights, activation, …)
        # the current reference: None, the reference object, or the fields of a validated copy not built
        # into an object yet (:meth:`accept_reference`; :attr:`reference` builds it when first read)
        self._ref_state: Any = None
        self.reference_time: float | None = None
        self._ref_acc = np.zeros(self.n)
        self._ref_check = ReferenceCheck(self.type, self.n, self.name, level)
        # the tracked field's place in ReferenceCheck.fields; a type with a validate_reference of its own, or
        # tracking another field, takes its references as objects (accept_reference)
        self._tracked_at = 1 if self._tracked == "acceleration" else 3
        own = type(self).validate_reference is not Task.validate_reference
        self._own_check = own or self._tracked not in ("acceleration", "velocity", "twist")
        w = np.ones(self.n) if config.weights is None else np.array(config.weights, dtype=float)
        w.setflags(write=False)
        self._weights = w
        self._activation = float(config.activation)
        self._rescale()

    # ------------------------------------------------------------------ rows of the last update
    @property
    def A(self) -> NDArray[np.float64]:
        """Task Jacobian (n×nv) of the last :meth:`compute` / :meth:`fill_rows`, in reference axes."""
        if self._src is not None:
            self._materialize()
        return self._A

    @A.setter
    def A(self, value: NDArray[np.float64]) -> None:
        self._materialize()
        self._A = value

    @property
    def bias(self) -> NDArray[np.float64]:
        """Task acceleration at q̈ = 0 (n) of the last :meth:`compute` / :meth:`fill_rows`."""
        if self._src is not None:
            self._materialize()
        return self._bias

    @bias.setter
    def bias(self, value: NDArray[np.float64]) -> None:
        self._materialize()
        self._bias = value

    def _materialize(self) -> None:
        """Copy the per-state arrays kept by :meth:`fill_rows` into :attr:`A` and :attr:`bias`, or run the
        compute :meth:`defer_compute` left for later."""
        src = self._src
        if src is None:
            return
        self._src = None
        if src is _DEFERRED:
            deferred, self._deferred = self._deferred, None
            if deferred is not None:
                self._compute_deferred(*deferred)
            return
        if src[0] is not None:
            np.copyto(self._A, src[0])
        if src[1] is not None:
            np.copyto(self._bias, src[1])

    def defer_compute(self) -> None:
        """:meth:`compute` for the robot's current state, run when :attr:`A` or :attr:`bias` is first
        read (the scenes' call for the tasks that contribute no rows: only their status reads them).

        The state is remembered (its id, q and v: the robot never writes to a published state's arrays);
        read while the robot is still at it, the rows are computed from its per-state caches; read after
        a state change, they are computed for the remembered state on a copy of the robot. Either way
        :attr:`A` and :attr:`bias` are those of the state at this call, as after :meth:`compute`.
        """
        robot = self.robot
        q, v, _ = robot.state_view("task rows")
        self._deferred = (robot.state_id, q, v)
        self._src = _DEFERRED

    def _compute_deferred(self, sid: int, q: NDArray[np.float64], v: NDArray[np.float64]) -> None:
        """:meth:`compute` at the state (id ``sid``, q, v) :meth:`defer_compute` remembered."""
        robot = self.robot
        if robot.state_id == sid:
            self.compute()
            return
        at = robot.copy()  # (shared pin.Model, its own data)
        at.update(q, v)
        self.robot = at
        try:
            self.compute()
        finally:
            self.robot = robot

    # ------------------------------------------------------------------ configuration
    @property
    def priority(self) -> int:
        """Priority level (0 = highest)."""
        return self.config.priority

    @property
    def timeout(self) -> float:
        """Reference timeout in seconds (≤ 0 = never)."""
        return float(self.config.timeout)

    @property
    def n_rows(self) -> int:
        """Number of rows the task contributes when active (rows with a positive weight)."""
        return self._n_rows

    @property
    def weights(self) -> NDArray[np.float64]:
        """Per-row weights (n, ≥ 0), read-only: change them with :meth:`set_weights`."""
        return self._weights

    @property
    def activation(self) -> float:
        """Activation in [0, 1]: change it with :meth:`set_activation`."""
        return self._activation

    version: int = read_only(
        "version",
        "Counter bumped whenever the task's rows change shape or activity (weights, activation, the first "
        "reference): a scene rebuilds its row plan when it changes (read-only).",
    )

    def set_weights(self, weights: ArrayLike) -> None:
        """Set the per-row weights (n finite values ≥ 0; cart tasks: in ref_frame axes).

        Raises:
            ConfigError: wrong count, non-numeric, non-finite or negative weights (field
                ``<task>.weights``); the task is unchanged.
        """
        field = f"{self.name}.weights"
        if isinstance(weights, (str, bytes)) or np.iscomplexobj(weights):
            raise ConfigError(field, f"expected {self.n} real numbers, got {weights!r:.80}")
        try:
            w = np.array(weights, dtype=float)
        except (TypeError, ValueError, OverflowError):
            raise ConfigError(field, f"expected {self.n} numbers, got {weights!r:.80}") from None
        if w.ndim != 1 or w.shape[0] != self.n:
            raise ConfigError(field, f"expected {self.n} weights (one per task row), got shape {w.shape}")
        if not np.isfinite(w).all() or (w < 0).any():
            raise ConfigError(field, "weights must be finite and ≥ 0")
        w.setflags(write=False)
        self._weights = w
        self._rescale()

    def set_activation(self, activation: float) -> None:
        """Set the activation, a number in [0, 1] (0 removes the task from the problem).

        Raises:
            ConfigError: a value outside [0, 1] or not a real number (field ``<task>.activation``).
        """
        ok = not isinstance(activation, bool) and isinstance(
            activation, (int, float, np.integer, np.floating)
        )
        if not ok or not 0.0 <= float(activation) <= 1.0:  # (False for NaN)
            raise ConfigError(
                f"{self.name}.activation", f"must be a number in [0, 1], got {activation!r:.80}"
            )
        self._activation = float(activation)
        self._rescale()

    def _rescale(self) -> None:
        sw = np.sqrt(self._activation * self._weights)
        rows = np.flatnonzero(sw > 0.0)
        self._n_rows = int(rows.size)
        self._all_rows = self._n_rows == self.n
        self._rows = rows
        consecutive = rows.size > 0 and int(rows[-1]) - int(rows[0]) + 1 == rows.size
        #: the active rows as a slice when consecutive (views, no copies), else their indices
        self._row_take: slice | np.ndarray = slice(int(rows[0]), int(rows[-1]) + 1) if consecutive else rows
        self._sw = sw if self._all_rows else sw[rows]
        self._sw_col = self._sw[:, None].copy()
        self._unit = self._all_rows and bool((sw == 1.0).all())  # rows = A, y = a_ref − bias as they are
        self._version += 1

    # ------------------------------------------------------------------ references
    def validate_reference(self, ref: object) -> Reference:
        """Return a validated copy of ``ref`` (see :func:`~wbcpy.tasks.references.validate_reference`)."""
        return self._ref_check.validated(ref)

    def set_reference(self, ref: Reference, stamp: float) -> None:
        """Store a reference already validated by :meth:`validate_reference`, stamped ``stamp``."""
        if self._ref_state is None:
            self._version += 1  # the task may become active
        self._ref_state = ref
        self.reference_time = stamp
        self._ref_acc = getattr(ref, self._tracked)  # the target of the task's level

    def accept_reference(self, ref: object, clock: Callable[[], float]) -> None:
        """Validate ``ref`` and make a copy of it the task's reference (the scene's ``set_reference``),
        stamped with its ``time`` or, when that is None, with ``clock()`` (s).

        Raises:
            ReferenceTypeError, InvalidValueError: as :meth:`validate_reference`; nothing changes.
        """
        if self._own_check:
            valid: Any = self.validate_reference(ref)
            state, target, t = valid, getattr(valid, self._tracked), valid.time
        else:  # a validated copy's class and fields (the object is built when first read)
            state = self._ref_check.fields(ref)
            target, t = state[self._tracked_at], state[4]
        stamp = float(clock()) if t is None else t
        if self._ref_state is None:
            self._version += 1  # the task may become active
        self._ref_state, self.reference_time, self._ref_acc = state, stamp, target

    @property
    def reference(self) -> Reference | None:
        """The last validated reference (a copy of what was given), or None."""
        state = self._ref_state
        if type(state) is tuple:  # (fields kept by accept_reference: the object is built once, here)
            cls, first, second, third, stamp = state
            state = self._ref_state = cls(first, second, third, stamp)
        ref: Reference | None = state
        return ref

    def target_view(self) -> NDArray[np.float64]:
        """The array of the current reference that the task's rows read (acceleration, or velocity / twist
        for a velocity-level task): the hot-loop protocol of reference bindings, which write a new target
        into it in place and then :meth:`stamp` it. Only values validated by the writer may go in.

        Raises:
            ConfigError: the task has no reference yet (set one with the scene's set_reference).
        """
        if self._ref_state is None:
            raise ConfigError(f"{self.name}.reference", "the task has no reference yet")
        return self._ref_acc

    def stamp(self, time: float) -> None:
        """Stamp the current reference with ``time`` (the scene clock, s) after an in-place update."""
        self.reference_time = time

    def timed_out(self, now: float) -> bool:
        """True when the task has a timeout and its reference is older than it."""
        tmo = self.config.timeout
        return bool(tmo > 0.0 and self.reference_time is not None and now - self.reference_time > tmo)

    def state(self, now: float) -> str:
        """``"active"``, ``"inactive"`` (activation 0), ``"no_reference"`` or ``"timed_out"``."""
        if self.activation <= 0.0:
            return "inactive"
        if self._ref_state is None and self.needs_reference:
            return "no_reference"
        if self.timed_out(now):
            return "timed_out"
        return "active"

    # ------------------------------------------------------------------ rows
    def compute(self) -> None:
        """Fill :attr:`A` and :attr:`bias` for the robot's current state (subclasses)."""
        raise NotImplementedError

    def selected_dofs(self) -> NDArray[np.intp]:
        """The DOFs (v indices) whose q̈ the task's active rows select one by one (rows e_jᵀ: a joint
        task); empty for any other task. An inverse-dynamics scene keeps their regulariser diagonal."""
        return np.zeros(0, dtype=np.intp)

    def write_targets(self, y_out: NDArray[np.float64]) -> None:
        """Write the weighted targets only (tasks with :attr:`constant_rows`; subclasses)."""
        raise NotImplementedError

    def fill_rows(self, A_out: NDArray[np.float64], y_out: NDArray[np.float64]) -> None:
        """:meth:`compute` then :meth:`write_rows` (the scene's per-step call; subclasses specialise it
        to write the rows straight from the robot's cached Jacobian and bias)."""
        self.compute()
        self.write_rows(A_out, y_out)

    def write_rows(self, A_out: NDArray[np.float64], y_out: NDArray[np.float64]) -> None:
        """Write the weighted rows √(a·w)·A and √(a·w)·(a_ref − bias) (rows with w > 0 only).

        Args:
            A_out: (n_rows, nv) destination.
            y_out: (n_rows,) destination.
        """
        if self._all_rows:
            _weighted_rows(A_out, y_out, self.A, self._ref_acc, self.bias, self._sw)
        else:
            rows = self._rows
            _weighted_rows(A_out, y_out, self.A[rows], self._ref_acc[rows], self.bias[rows], self._sw)

    def _write_rows_from(
        self,
        A: NDArray[np.float64],
        b: NDArray[np.float64],
        A_out: NDArray[np.float64],
        y_out: NDArray[np.float64],
    ) -> None:
        """:meth:`write_rows` from rows ``A`` and bias ``b`` given directly (the :meth:`fill_rows` fast
        path of subclasses): a plain copy when every row is active with weight 1; the rows with w > 0
        only (a slice when they are consecutive) otherwise."""
        if self._all_rows:
            _weighted_rows(A_out, y_out, A, self._ref_acc, b, None if self._unit else self._sw)
            return
        r = self._row_take
        _weighted_rows(A_out, y_out, A[r], self._ref_acc[r], b[r], self._sw)

    def task_acceleration(self, qdd: NDArray[np.float64]) -> NDArray[np.float64]:
        """Task acceleration ``A q̈ + bias`` (n) for joint accelerations ``qdd`` (nv)."""
        return self.A @ qdd + self.bias

    def status(
        self, qdd: NDArray[np.float64] | None, measured: NDArray[np.float64] | None, now: float
    ) -> TaskStatus:
        """Status of the task for the solution ``qdd`` and the measured acceleration ``measured``."""
        state = self.state(now)
        y_ref = None if self._ref_state is None else self._ref_acc.copy()
        y_sol = None if qdd is None else self.task_acceleration(qdd)
        y_meas = None if measured is None else self.task_acceleration(measured)
        error = None if y_ref is None or y_sol is None else y_ref - y_sol
        return TaskStatus(
            name=self.name,
            type=self.type,
            priority=self.priority,
            state=state,
            activation=self.activation,
            weights=self.weights.copy(),
            timed_out=state == "timed_out",
            y_ref=y_ref,
            y_solution=y_sol,
            y=y_meas,
            error=error,
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, priority={self.priority}, n={self.n})"
