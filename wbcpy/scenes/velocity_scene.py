"""VelocityScene: differential IK as a prioritised QP (ARC-OPT ``VelocitySceneQP``, pink, mink).

Decision variable q̇ ∈ R^nv (a floating base's 6 DOFs included). The tasks, their configuration, weights,
activations, priorities and status are those of :class:`~wbcpy.AccelerationScene`, at the
velocity level: each task adds the rows A q̇ ≈ y with the same Jacobian A and no bias, y = the reference
velocity (``jnt``, ``com``) or twist (``cart``). Each priority level p minimises

.. math::

    \\sum_{i \\in p} a_i \\sum_k w_{ik} (A_i \\dot q - y_i)_k^2 + λ \\sum_j \\dot q_j^2 / ω_j

and the levels are strict (level p keeps the optimum of every higher level). Hard constraints hold above
every level:

* joint position limits over one step and velocity limits, as bounds on q̇
  (:class:`~wbcpy.limits.velocity_limits.VelocityLimitBounds`; never an empty interval);
* joint weight ω_j = 0: q̇_j = 0;
* collision avoidance (:meth:`VelocityScene.set_collision_avoidance`): for every pair closer than its
  influence distance the velocity-damper row n·(J_b(p_b) − J_a(p_a)) q̇ ≥ −γ (d − d_s)/dt
  (:class:`~wbcpy.collision.CollisionConstraint`), as inequality rows of the highest level.

Per control step::

    robot.update(q)                            # measured configuration (v optional: the status' y)
    scene.set_reference("ee", CartesianReference(twist=...))   # e.g. from wbcpy.controllers velocity laws
    hqp = scene.update()
    cmd = scene.solve(hqp)                     # cmd.velocity: actuated joints; raises QPSolveError
    q = pin.integrate(robot.model, q, scene.get_solver_output_raw() * dt)

The plan of rows per configuration, the preallocated row buffers and the recognition of the scene's own
problem in :meth:`VelocityScene.solve` are shared with the AccelerationScene (:mod:`wbcpy.scenes._plan`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .._support.read_only import ClassConstant, read_only
from ..errors import ConfigError, ConfigKeyError
from ..limits.collision.avoidance import CollisionAvoidance, as_avoidance
from ..limits.collision.constraint import CollisionConstraint
from ..limits.velocity_limits import VelocityLimitBounds
from ..model.robot_model import RobotModel
from ..qp import HierarchicalQP, QPLevel
from ..tasks import TasksStatus
from .joint_command import JointCommand
from .scene import Scene
from .values import positive
from .velocity_status import VelocitySceneStatus

#: keyword options of :class:`VelocityScene` (an unknown one raises ConfigKeyError)
VELOCITY_SCENE_OPTIONS = (
    "solver",
    "dt",
    "regularization",
    "joint_limits",
    "velocity_limits",
    "limit_gain",
    "clock",
)


class VelocityScene(Scene):
    """Prioritised least-squares tasks on joint velocities, with limits and collision avoidance.

    A settable attribute is checked and the bounds rebuilt: the scene then answers as one built with the
    new value; the others raise ReadOnlyAttributeError.

    Attributes:
        dt: control step (s): position limits and collision dampers act over one step (settable).
        regularization: λ > 0, the curvature of the cost in directions no task covers (settable).
        joint_limits: whether position limits bound q̇ (over one step, with ``limit_gain``) (settable).
        velocity_limits: whether the URDF velocity limits bound q̇ (settable).
        limit_gain: γ ∈ (0, 1], the fraction of the distance to a position limit allowed per step
            (settable).
        limits: the :class:`~wbcpy.limits.velocity_limits.VelocityLimitBounds` in use (read-only: rebuilt
            when one of the above changes).
    """

    task_level = ClassConstant("velocity")
    limits: VelocityLimitBounds = read_only("limits", "The velocity-limit bounds in use (read-only).")

    def __init__(
        self,
        robot: RobotModel,
        solver: Any = None,
        dt: float = 0.01,
        regularization: float = 1e-8,
        joint_limits: bool = True,
        velocity_limits: bool = True,
        limit_gain: float = 0.5,
        clock: Callable[[], float] = time.monotonic,
        **options: Any,
    ) -> None:
        """Create an empty scene; call :meth:`configure` next.

        Args:
            robot: the robot model (its configuration is read at every :meth:`update`).
            solver: a qpsolvers backend name (see ``wbcpy solvers``), a ``wbcpy.qp.QPSolver``, or None
                for the default backend.
            dt: control step in seconds (> 0).
            regularization: λ > 0 (default 1e-8).
            joint_limits: bound q̇ by the position limits over one step:
                γ(q_min − q)/dt ≤ q̇ ≤ γ(q_max − q)/dt (0 on the far side of a joint outside its range).
            velocity_limits: bound |q̇| by the URDF velocity limits.
            limit_gain: γ ∈ (0, 1] of the position bounds.
            clock: a callable returning seconds; reference time stamps and timeouts use it.

        Raises:
            ConfigKeyError: an unknown option (field named) or an unknown solver name.
            ConfigError: an invalid option value (dt ≤ 0, limit_gain outside (0, 1], ...).
        """
        for key in options:
            raise ConfigKeyError(key, "scene option", key, VELOCITY_SCENE_OPTIONS)
        if not isinstance(robot, RobotModel):
            raise ConfigError("robot", f"expected a RobotModel, got {type(robot).__name__}")
        self._regularization = positive(regularization, "regularization", "a finite number")
        self._limits = VelocityLimitBounds(robot, positive(dt, "dt", "a finite number"), joint_limits,
                                           velocity_limits, limit_gain)  # fmt: skip
        self._collision: CollisionConstraint | None = None
        self._inf = np.full(0, np.inf)
        super().__init__(robot, solver, clock)

    # ------------------------------------------------------------------ settable options
    def _rebuild_limits(self, **changes: Any) -> None:
        """The bounds with ``changes`` (dt, joint_limits, velocity_limits, limit_gain), checked first."""
        lim = self._limits
        options = {"dt": lim.dt, "joint_limits": lim.joint_limits, "velocity_limits": lim.velocity_limits,
                   "limit_gain": lim.limit_gain, **changes}  # fmt: skip
        if "dt" in changes:
            options["dt"] = positive(changes["dt"], "dt", "a finite number")
        self._limits = VelocityLimitBounds(self._robot, **options)

    @property
    def dt(self) -> float:
        """The control step (s) of the position bounds and the collision dampers (settable)."""
        return float(self._limits.dt)

    @dt.setter
    def dt(self, value: float) -> None:
        self._rebuild_limits(dt=value)

    @property
    def joint_limits(self) -> bool:
        """Whether position limits bound q̇ (settable: True or False)."""
        return bool(self._limits.joint_limits)

    @joint_limits.setter
    def joint_limits(self, value: bool) -> None:
        self._rebuild_limits(joint_limits=value)

    @property
    def velocity_limits(self) -> bool:
        """Whether the URDF velocity limits bound q̇ (settable: True or False)."""
        return bool(self._limits.velocity_limits)

    @velocity_limits.setter
    def velocity_limits(self, value: bool) -> None:
        self._rebuild_limits(velocity_limits=value)

    @property
    def limit_gain(self) -> float:
        """γ ∈ (0, 1] of the position bounds (settable)."""
        return float(self._limits.limit_gain)

    @limit_gain.setter
    def limit_gain(self, value: float) -> None:
        self._rebuild_limits(limit_gain=value)

    # ------------------------------------------------------------------ configuration
    def _reset_output(self) -> None:
        super()._reset_output()
        self._bounds_used: tuple[np.ndarray | None, np.ndarray | None] = (None, None)

    def set_collision_avoidance(self, avoidance: CollisionAvoidance | Mapping[str, Any] | None) -> None:
        """Keep the pairs of ``avoidance`` apart from the next :meth:`update` on (None: no avoidance).

        Args:
            avoidance: a :class:`~wbcpy.collision.CollisionAvoidance`, a mapping accepted by
                :meth:`CollisionAvoidance.from_dict` (a scene file's ``collision`` section), or None.

        Raises:
            ConfigError: naming the field — invalid distances or gain, unknown link, geometry or obstacle
                names (ConfigKeyError), a robot without ``<collision>`` elements, an unreadable SRDF. The
                scene is unchanged then.
        """
        config = as_avoidance(avoidance)
        if config is None:
            self._collision = None
            return
        self._collision = CollisionConstraint(self.robot, config)
        self._inf = np.full(self._collision.n_pairs, np.inf)
        self._inf.setflags(write=False)  # shared by the problems handed out: nobody may edit it

    @property
    def collision_avoidance(self) -> CollisionAvoidance | None:
        """The collision-avoidance configuration in use, or None."""
        return None if self._collision is None else self._collision.avoidance

    @property
    def collision(self) -> CollisionConstraint | None:
        """The :class:`~wbcpy.collision.CollisionConstraint` in use (geometry, pairs, last
        distances)."""
        return self._collision

    # ------------------------------------------------------------------ problem
    def _bounds(self, q: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        """Position/velocity bounds on q̇ for configuration q, locked joints at 0 (new arrays or None)."""
        limits = self._limits
        if limits.joint_limits or limits.velocity_limits:
            lb, ub = limits.compute_unchecked(q)  # (q: the robot's validated state)
        elif self._locked.size:
            lb, ub = np.full(self.robot.nv, -np.inf), np.full(self.robot.nv, np.inf)
        else:
            return None, None
        if self._locked.size:
            lb[self._locked] = 0.0
            ub[self._locked] = 0.0
        return lb, ub

    def update(self) -> HierarchicalQP:
        """Build the hierarchical QP from the robot's current configuration and the current references.

        Returns:
            A :class:`~wbcpy.qp.HierarchicalQP` over q̇: one :class:`~wbcpy.qp.QPLevel` per priority level
            with active rows (highest first; the collision rows as inequality rows of the first level),
            the regularisation λ/ω and the bounds.

        Raises:
            StateNotSetError: the robot has no state yet.
            ConfigError: the scene has no tasks (configure() was never called).
        """
        q, v, _ = self.robot.state_view("scene update")  # (raises StateNotSetError before a state)
        levels, priorities, now = self._task_levels()
        lb, ub = self._bounds(q)
        if self._collision is not None:
            C, lower = self._collision.compute(self._limits.dt, lb, ub)
            k = C.shape[0]
            if k:
                first = levels[0]
                levels[0] = QPLevel(
                    first.A, first.y, first.regularization, C=C.copy(), lbC=lower.copy(), ubC=self._inf[:k]
                )
        if self._com_polygon is not None or self._loops:
            self._add_constraint_rows(levels[0], self.robot.nv)
        self._bounds_used = (lb, ub)
        return self._keep_problem(HierarchicalQP(levels, self._dof_names, lb, ub), priorities, now, v)

    def _command(self) -> JointCommand:
        return JointCommand(
            list(self._actuated_names), velocity=self._solution()[self._actuated_index].copy()
        )

    # ------------------------------------------------------------------ status
    def update_tasks_status(self) -> VelocitySceneStatus:
        """The status of every task (y: velocities and twists; ``y`` from the velocity given to
        ``robot.update``), the bounds the last solution sits on and the collision pairs inside their
        influence distance at the last :meth:`update` (closest first, penetrations flagged)."""
        base: TasksStatus = super().update_tasks_status()
        lb, ub = self._bounds_used
        limits: dict[str, str] = {}
        if self._qdd is not None and lb is not None and ub is not None:
            limits = self._limits.active(self._qdd, lb, ub)
        pairs = [] if self._collision is None or self._hqp is None else self._collision.status()
        status = VelocitySceneStatus(base.tasks, base.levels, limits, pairs)
        self._status = status
        return status

    def get_tasks_status(self) -> VelocitySceneStatus:
        """The status computed by the last :meth:`update_tasks_status` (computed now if never)."""
        status = self._status
        return status if isinstance(status, VelocitySceneStatus) else self.update_tasks_status()
