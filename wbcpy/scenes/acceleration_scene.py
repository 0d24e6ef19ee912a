"""AccelerationScene: joint accelerations from prioritised tasks (ARC-OPT ``wbc::AccelerationScene``).

Decision variable q̈ ∈ R^nv (a floating base's 6 DOFs included). Each priority level p minimises

.. math::

    \\sum_{i \\in p} a_i \\sum_k w_{ik} (A_i \\ddot q - y_i)_k^2 + λ \\sum_j \\ddot q_j^2 / ω_j

(activation a_i, task weights w_ik acting linearly on the squared residual, joint weights ω_j ∈ (0, 1],
λ = ``regularization``). Levels are strict: level p is solved subject to A_h q̈ = A_h q̈*_h for every
higher level h (the QP layer forms these equalities from the rows of the higher levels, reduced to an
independent set). A joint weight ω_j = 0 is a bound q̈_j = 0. Optional hard bounds come from joint
limits (:mod:`wbcpy.limits.joint_limits`). Optional collision avoidance
(:meth:`AccelerationScene.set_collision_avoidance`) adds, for every pair closer than its influence
distance, the discrete-time velocity-damper row

.. math::

    J_d \\ddot q \\ge -γ \\frac{d - d_s}{dt^2} - \\frac{J_d \\dot q}{dt} - \\tfrac12 \\dot J_d \\dot q

as an inequality of the highest level (so it holds at every level):
:class:`~wbcpy.collision.AccelerationCollisionConstraint` derives it for q̈ applied for one step dt
and integrated semi-implicitly (v ← v + q̈ dt, q ← q ⊕ v dt).

Per control step::

    robot.update(q, v)           # measured state (optionally the measured acceleration a)
    scene.set_reference(...)     # new references (e.g. from wbcpy.controllers PD laws)
    hqp = scene.update()         # one QPLevel per non-empty priority level
    cmd = scene.solve(hqp)       # JointCommand of the actuated joints; raises QPSolveError

Tasks with activation 0, without a reference or with a timed-out reference contribute no rows, exactly
as if they were not configured; a priority level without rows is skipped. When no level has rows the
problem keeps one empty level (q̈ = the bounded minimum of the regularization).

Hot path: the stacking decisions are made once per configuration (:mod:`wbcpy.scenes._plan`), the
rows are written into preallocated buffers straight from the robot's per-state caches by compiled kernels
(:mod:`wbcpy._kernels`: weighted rows, joint-limit bounds), and :meth:`Scene.solve` hands the scene's own
problem to the solver without re-validating its structure (``QPSolver.solve_hierarchy_unchecked``): one
update + solve stays a small multiple of the raw Pinocchio calls (``benchmarks/bench_scene.py`` prints it).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._support.read_only import read_only
from ..errors import ConfigError, ConfigKeyError
from ..limits.collision.acceleration import AccelerationCollisionConstraint
from ..limits.collision.avoidance import CollisionAvoidance, as_avoidance
from ..limits.joint_limits import JointLimitBounds
from ..model.robot_model import RobotModel
from ..qp import HierarchicalQP, QPLevel
from .scene import HierarchySolver, Scene
from .scene_constraints import append_rows
from .values import positive


def _flag(value: Any, field: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(field, f"must be true or false, got {value!r:.80}")
    return value


#: keyword options of :class:`AccelerationScene` (an unknown one raises ConfigKeyError)
SCENE_OPTIONS = (
    "solver",
    "dt",
    "regularization",
    "joint_limits",
    "acceleration_limit",
    "braking",
    "clock",
)


class AccelerationScene(Scene):
    """Prioritised least-squares tasks on joint accelerations, solved by a swappable QP backend.

    A settable attribute is checked, and what depends on it recomputed: the scene then answers as one
    built with the new value; the others raise ReadOnlyAttributeError.

    Attributes:
        dt: control step (s), used by the joint-limit bounds and the collision rows (settable).
        regularization: λ > 0, the curvature of the cost in directions no task covers (settable).
        joint_limits: whether position/velocity/acceleration limits bound q̈ (settable).
        limits: the :class:`~wbcpy.limits.joint_limits.JointLimitBounds` in use (read-only: rebuilt when
            dt changes).
    """

    limits: JointLimitBounds = read_only("limits", "The joint-limit bounds in use (read-only).")

    def __init__(
        self,
        robot: RobotModel,
        solver: str | HierarchySolver | None = None,
        dt: float = 0.001,
        regularization: float = 1e-8,
        joint_limits: bool = False,
        clock: Callable[[], float] = time.monotonic,
        acceleration_limit: ArrayLike | None = None,
        braking: bool = True,
        **options: object,
    ) -> None:
        """Create an empty scene; call :meth:`configure` next.

        Args:
            robot: the robot model (its state is read at every :meth:`update`).
            solver: a qpsolvers backend name (see ``wbcpy solvers``), a ``wbcpy.qp.QPSolver``, or None
                for the default backend.
            dt: control step in seconds (> 0), used to turn position/velocity limits into q̈ bounds.
            regularization: λ > 0 (default 1e-8).
            joint_limits: bound q̈ by the joint limits over one step dt.
            clock: a callable returning seconds; reference time stamps and timeouts use it.
            acceleration_limit: a_max (scalar or per DOF, rad/s² or m/s², inf allowed). Default: 10 × the
                URDF velocity limit (URDFs carry no acceleration limits). Only used with joint_limits.
            braking: with joint_limits, also bound the velocity so that the joint can stop inside its
                position limits with a_max (viability stage; see :mod:`wbcpy.limits.joint_limits`).

        Raises:
            ConfigKeyError: an unknown option (field named) or an unknown solver name.
            ConfigError: an invalid option value.
        """
        for key in options:
            raise ConfigKeyError(key, "scene option", key, SCENE_OPTIONS)
        if not isinstance(robot, RobotModel):
            raise ConfigError("robot", f"expected a RobotModel, got {type(robot).__name__}")
        self._dt = positive(dt, "dt", "a finite number")
        self._regularization = positive(regularization, "regularization", "a finite number")
        self._joint_limits = _flag(joint_limits, "joint_limits")
        self._limits = JointLimitBounds(robot, self._dt, acceleration_limit, _flag(braking, "braking"))
        self._collision: AccelerationCollisionConstraint | None = None
        super().__init__(robot, solver, clock)

    @property
    def dt(self) -> float:
        """The control step (s) of the joint-limit bounds and the collision rows (settable: the bounds
        are rebuilt for it)."""
        return self._dt

    @dt.setter
    def dt(self, value: float) -> None:
        dt = positive(value, "dt", "a finite number")
        limits = self._limits
        self._limits = JointLimitBounds(self._robot, dt, limits.acceleration_limit, limits.braking)
        self._dt = dt

    @property
    def joint_limits(self) -> bool:
        """Whether the joint limits bound q̈ (settable: True or False)."""
        return self._joint_limits

    @joint_limits.setter
    def joint_limits(self, value: bool) -> None:
        self._joint_limits = _flag(value, "joint_limits")

    def _joint_weights_changed(self) -> None:
        super()._joint_weights_changed()
        lock_lb: NDArray[np.float64] | None = None
        lock_ub: NDArray[np.float64] | None = None
        if self._locked.size:
            lock_lb = np.full(self._reg.shape, -np.inf)
            lock_lb[self._locked] = 0.0
            lock_ub = -lock_lb
        self._lock_lb, self._lock_ub = lock_lb, lock_ub

    # ------------------------------------------------------------------ collision avoidance
    def set_collision_avoidance(self, avoidance: CollisionAvoidance | Mapping[str, Any] | None) -> None:
        """Keep the pairs of ``avoidance`` apart from the next :meth:`update` on (None: no avoidance).

        The configuration, pairs, obstacles and scene-file section (``collision``) are those of
        :meth:`wbcpy.VelocityScene.set_collision_avoidance`; the rows act on q̈ (module docstring,
        :class:`~wbcpy.collision.AccelerationCollisionConstraint`) with the scene's ``dt``.

        Args:
            avoidance: a :class:`~wbcpy.collision.CollisionAvoidance`, a mapping accepted by
                :meth:`CollisionAvoidance.from_dict`, or None.

        Raises:
            ConfigError: naming the field — invalid distances or gain, unknown link, geometry or obstacle
                names (ConfigKeyError), a robot without ``<collision>`` elements, an unreadable SRDF. The
                scene is unchanged then.
        """
        config = as_avoidance(avoidance)
        self._collision = None if config is None else AccelerationCollisionConstraint(self.robot, config)

    @property
    def collision_avoidance(self) -> CollisionAvoidance | None:
        """The collision-avoidance configuration in use, or None."""
        return None if self._collision is None else self._collision.avoidance

    @property
    def collision(self) -> AccelerationCollisionConstraint | None:
        """The :class:`~wbcpy.collision.AccelerationCollisionConstraint` in use (geometry, pairs,
        the distances and pairs of the last :meth:`update`), or None."""
        return self._collision

    def _add_collision_rows(
        self, level: QPLevel, lb: np.ndarray | None, ub: np.ndarray | None, n: int
    ) -> None:
        """Append the collision rows C q̈ ≥ lower (zero columns beyond nv up to ``n``) to the inequality
        rows of ``level`` (new arrays; nothing without avoidance or without a pair in range)."""
        if self._collision is None:
            return
        nv = self.robot.nv
        qlb = None if lb is None else lb[:nv]
        qub = None if ub is None else ub[:nv]
        Cq, lower = self._collision.compute(self._dt, qlb, qub)
        k = Cq.shape[0]
        if not k:
            return
        C = Cq if n == nv else np.concatenate((Cq, np.zeros((k, n - nv))), axis=1)
        append_rows(level, C=C, lower=lower)

    # ------------------------------------------------------------------ problem
    def _bounds(
        self, q: np.ndarray | None = None, v: np.ndarray | None = None
    ) -> tuple[np.ndarray | None, np.ndarray | None]:
        """Joint-limit bounds on q̈ at the state (q, v) (default: the robot's), locked joints at 0 (new
        arrays or None)."""
        if self._joint_limits:
            if q is None or v is None:
                q, v, _ = self.robot.state_view("scene update")
            lb, ub = self._limits.compute(q, v)
            if self._locked.size:
                lb[self._locked] = 0.0
                ub[self._locked] = 0.0
            return lb, ub
        if self._lock_lb is None or self._lock_ub is None:  # (both or neither)
            return None, None
        return self._lock_lb.copy(), self._lock_ub.copy()

    def update(self) -> HierarchicalQP:
        """Build the hierarchical QP from the robot's current state and the current references.

        Every task's rows and bias are recomputed (status is reported for all tasks); the rows of the
        active tasks are weighted and stacked per priority level into new arrays.

        Returns:
            A :class:`~wbcpy.qp.HierarchicalQP`: one :class:`~wbcpy.qp.QPLevel` per priority level with
            active rows (highest first; the collision rows as inequality rows of the first level), the
            regularization λ/ω, and bounds (joint limits, locked joints).

        Raises:
            StateNotSetError: the robot has no state yet.
            ConfigError: the scene has no tasks (configure() was never called).
        """
        robot = self._robot
        q, v, measured = robot.state_view("scene update")  # (StateNotSetError before a state)
        levels, priorities, now = self._task_levels()
        lb, ub = self._bounds(q, v)
        if self._collision is not None:
            self._add_collision_rows(levels[0], lb, ub, robot.nv)
        if self._com_polygon is not None or self._loops:
            self._add_constraint_rows(levels[0], robot.nv)
        return self._keep_problem(HierarchicalQP(levels, self._dof_names, lb, ub), priorities, now, measured)
