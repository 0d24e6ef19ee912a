"""A control law evaluated for one task at the robot's current state: the one implementation behind both
reference APIs.

``law.reference(task, target)`` (the checked API, every input validated at every call) and
``scene.bind(name, law, target)`` (:mod:`wbcpy.scenes.binding`, targets validated when set) both evaluate
the law through a :class:`LawEvaluator`: the gains broadcast to the task's n axes once, the target
validated when it is set, then at each state

.. math::

    r = K_p\\, e - K_d\\, \\dot x + c, \\qquad c = K_d \\dot x_d + K_{ff} \\ddot x_d

for an acceleration law (a PD law: :class:`~wbcpy.controllers.CartesianPD`, ``JointPD``, ``ComPD``...),
or r = K_p e + c with c = K_ff ẋ_d for a velocity law (:class:`~wbcpy.controllers.VelocityLaw`),
saturated with the law's limit (direction kept) and, for a Cartesian task, rotated from root into
``ref_frame`` axes. The errors are those of the laws: e = (p_d − p, log₃(R_d Rᵀ)) for poses, e = x_d − x
otherwise. Each evaluation is one compiled kernel
(:mod:`wbcpy._kernels`: ``pose_law``, ``joint_law``, ``vector_law``) reading the robot's per-state caches
(frame placement and Jacobian, joint state, COM) without copying them.

A Cartesian task whose root does not move and whose root and reference axes are the world's (a frame
relative to a fixed base) is evaluated from the robot's cached world placement and Jacobian; other
Cartesian tasks, and joint tasks with continuous joints, through the task's ``pose()``/``twist()``/
``positions()`` (same values, more work).

Nothing is trusted that was not validated: :meth:`LawEvaluator.validated` checks a target and its
feed-forward completely (a ``pin.SE3`` with a proper, finite rotation; finite vectors of the task's size)
and changes nothing; the robot's state was validated by ``RobotModel.update``. A law's ``reference``
validates into locals and evaluates with them, so the evaluator it keeps per task is only read there
(threads may share a law); a binding keeps its target in its evaluator (:meth:`LawEvaluator.set_target`),
like the rest of a control loop's state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pinocchio as pin
from numpy.typing import NDArray

from .._kernels import joint_law as _joint_law
from .._kernels import pose_law as _pose_law
from .._kernels import state_copy as _state_copy
from .._kernels import transform_error as _transform_error
from .._kernels import vector_law as _vector_law
from .._support.validation import (
    ROTATION_TOL,
    as_vector,
    check_homogeneous,
    optional_vector,
    se3_homogeneous,
)
from ..errors import ConfigError, InvalidValueError
from ..tasks import CartesianTask, ComTask, JointTask, Task, task_type
from ._gains import as_gain

#: the largest finite float (a vector within ±_FINITE is finite)
_FINITE = float(np.finfo(np.float64).max)
_EYE6 = np.eye(6)
_EYE6.setflags(write=False)
#: the names of a target and its feed-forward in error messages (a binding's; the laws name their own)
TARGET_NAMES = ("target", "target_velocity", "target_acceleration")


def _gain(gain: Any, n: int, name: str) -> NDArray[np.float64]:
    """A law's gain (validated again: a law's attributes may have been reassigned) as n values."""
    arr = as_gain(gain, name)
    if arr.ndim == 1 and arr.shape[0] != n:
        raise ConfigError(name, f"expected a scalar or {n} values, got {arr.shape[0]}")
    return np.broadcast_to(arr, (n,)).astype(np.float64)


def law_gains(law: Any) -> tuple[Any, ...]:
    """The gains of ``law`` (kp, kd, kff, limit; kd is None for a velocity law): an evaluator reads them
    once (gains are read-only arrays, they change only by assignment)."""
    velocity = not hasattr(law, "kd")
    limit = law.max_velocity if velocity else law.max_acceleration
    return (law.kp, None if velocity else law.kd, law.kff, limit)


def _pose_matrix(target: Any, name: str, matrix: bool = False) -> np.ndarray:
    """The homogeneous matrix (a new 4×4 array) of a valid pose target: :func:`se3_homogeneous` with its
    compiled check first; with ``matrix``, a 4×4 homogeneous matrix is taken too
    (:func:`homogeneous_copy`).

    Raises:
        InvalidValueError: not a ``pin.SE3`` (or a matrix where one is taken), non-finite, or not a proper
            rotation.
    """
    if type(target) is pin.SE3:
        pose: np.ndarray = target.homogeneous
        err, det = _transform_error(pose)
        if err <= ROTATION_TOL and det > 0.0:
            return pose
    elif matrix and isinstance(target, np.ndarray):
        return homogeneous_copy(target, name)
    return se3_homogeneous(target, name)  # (a subclass of pin.SE3, or raises saying what is wrong)


def homogeneous_copy(target: np.ndarray, name: str) -> np.ndarray:
    """A copy of a valid 4×4 homogeneous matrix [[R, p], [0, 0, 0, 1]]: float64, finite, R a proper
    rotation (max |RᵀR − I| ≤ :data:`~wbcpy._support.validation.ROTATION_TOL`, det R > 0), last row exactly
    (0, 0, 0, 1) — the checks of a ``pin.SE3`` target on its ``homogeneous`` matrix.

    Raises:
        InvalidValueError: another shape or dtype, a non-finite entry, not a rotation, another last row.
    """
    if target.shape != (4, 4) or target.dtype != np.float64:
        why = f"expected a pin.SE3 or a 4×4 float64 homogeneous matrix, got {target.dtype} {target.shape}"
        raise InvalidValueError(name, (4, 4), target.shape, reason=why)
    pose = np.array(target)  # (a plain-array copy: the caller may reuse its array, the binding keeps this)
    err, det = _transform_error(pose)
    if not (err <= ROTATION_TOL and det > 0.0):
        check_homogeneous(pose, name)  # raises naming what is wrong (non-finite, not a rotation)
    last = pose[3].tolist()
    if last != [0.0, 0.0, 0.0, 1.0]:
        why = f"a homogeneous matrix has the last row (0, 0, 0, 1), got {last}"
        raise InvalidValueError(name, "last row (0, 0, 0, 1)", last, reason=why)
    return pose


#: evaluators a law keeps for the tasks it was last applied to (:func:`evaluator_for`)
CACHE_SIZE = 8


#: the attributes of a law that hold its gains (a law drops its evaluators when one is assigned)
GAIN_NAMES = frozenset(("kp", "kd", "kff", "max_acceleration", "max_velocity"))


def evaluator_for(law: Any, cache: dict[Task, LawEvaluator], task: Task) -> LawEvaluator:
    """The evaluator of ``law`` for ``task`` from ``cache`` (the law's own, which it clears when a gain is
    assigned: gains are read-only arrays), built on first use (at most :data:`CACHE_SIZE` tasks are kept).

    Raises:
        InvalidValueError: ``task`` is not a task.
        ConfigError: a law that does not fit the task (see :class:`LawEvaluator`).
    """
    ev = cache.get(task)
    if ev is not None:
        return ev
    if not isinstance(task, Task):
        raise InvalidValueError("task", "a scene task", type(task).__name__, reason="expected a task")
    ev = LawEvaluator(law, task)
    if len(cache) >= CACHE_SIZE:
        cache.clear()
    cache[task] = ev
    return ev


class EvaluatedLaw:
    """What the PD and velocity laws share: one :class:`LawEvaluator` per task, built on first use
    (:func:`evaluator_for`) and dropped when a gain is assigned; copies and pickles leave them behind.
    Subclasses set ``self._evaluators = {}`` in their constructor."""

    _evaluators: dict[Task, LawEvaluator]

    def _evaluator(self, task: Task) -> LawEvaluator:
        """The law's evaluator for ``task`` (the implementation the laws' ``reference`` shares with scene
        bindings), kept between calls.

        Raises:
            ConfigError: a law that does not fit the task.
        """
        return evaluator_for(self, self._evaluators, task)

    def _evaluated(self, task: Task, n: int | None, target: Any, velocity: Any, acceleration: Any,
                   names: tuple[str, str, str]) -> tuple[NDArray[np.float64], Any, LawEvaluator]:  # fmt: skip
        """What a law's ``reference`` computes: the validated target and the law's n values (None: the
        task's n) for ``task`` at the robot's current state (a new array), with the task's evaluator.

        Raises:
            InvalidValueError, ConfigError: as :meth:`LawEvaluator.validated` and :meth:`_evaluator`.
        """
        ev = self._evaluators.get(task)
        if ev is None:
            ev = self._evaluator(task)
        # (validated into locals: the evaluator is only read, so threads may share the law)
        valid, const = ev.validated(target, velocity, acceleration, names)
        out = np.empty(ev.task.n if n is None else n)
        if ev.plain:
            ev._eval(out, valid, const)  # (evaluate without its saturation and change of axes)
        else:
            ev.evaluate(out, valid, const)
        return out, valid, ev

    def __setattr__(self, name: str, value: Any) -> None:
        """Set an attribute; assigning a gain drops the evaluators built from the old one."""
        object.__setattr__(self, name, value)
        if name in GAIN_NAMES and "_evaluators" in self.__dict__:
            self._evaluators.clear()

    def __getstate__(self) -> dict[str, Any]:
        """The gains (copies and pickles leave the per-task evaluators behind)."""
        state = self.__dict__.copy()
        state.pop("_evaluators", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._evaluators = {}


class LawEvaluator:
    """A PD or velocity law evaluated for one task at the robot's current state (see the module docstring).

    Args:
        law: a PD law (acceleration reference: ``CartesianPD``, ``JointPD``, ``ComPD``...) or a
            :class:`~wbcpy.controllers.VelocityLaw` (velocity reference).
        task: the task (its robot's state is read at every :meth:`evaluate`).
        dynamics_first: compute the robot's dynamics before reading the COM (an inverse-dynamics scene
            computes them at this state anyway: the COM terms then come with them).

    Attributes:
        law, task: as given. gains: the gains read (:func:`law_gains`) when it was built.
        velocity_level: True for a velocity law (no rate term, no acceleration feed-forward).
        target: the target of the last :meth:`set_target`, as given (None before the first).
        reference_class: the task type's reference class (:mod:`wbcpy.tasks.registry`).
        fast: True when the Cartesian or joint task is evaluated straight from the robot's caches.

    Raises:
        ConfigError: a law whose kind (pose or vector) or number of axes does not fit the task, gains of
            the wrong size.
    """

    def __init__(self, law: Any, task: Task, dynamics_first: bool = False) -> None:
        n = task.n
        pose_law = bool(getattr(law, "pose_law", False))
        is_pose = task_type(task.type).target == "pose"
        axes = getattr(law, "_axes", None)
        if (
            pose_law != is_pose
            or (axes is not None and axes != n)
            or getattr(law, "joint_law", False) != (isinstance(task, JointTask))
        ):
            raise ConfigError(
                "law", f"{type(law).__name__} does not apply to task {task.name!r} ({task.type}, {n} rows)"
            )
        self.law, self.task = law, task
        self.gains = law_gains(law)
        kp, kd, kff, limit = self.gains
        velocity_level = kd is None
        self.velocity_level = velocity_level
        self._kp = _gain(kp, n, "kp")
        self._kd = np.zeros(n) if velocity_level else _gain(kd, n, "kd")
        self._kff = _gain(kff, n, "kff")
        self._kff_one = bool(np.all(self._kff == 1.0))  # (K_ff = 1, the default: K_ff ẋ_d is ẋ_d exactly)
        self._limit = None if limit is None else _gain(limit, n, "limit")
        self._e = np.zeros(n)  # (scratch of the pose kernel, written and read within one call)
        self._zero = np.zeros(n)  # the constant term without feed-forward, shared and read-only
        self._zero.setflags(write=False)
        # the rate term (−K_d ẋ) of the acceleration laws; velocity laws have none
        self._kd_rate = None if velocity_level else self._kd
        # a law whose target is the reference itself (MomentumVelocityLaw: h* = K_ff h_d)
        self._direct = bool(getattr(law, "target_is_reference", False))
        self._dynamics_first = dynamics_first
        self._setup_task(task)
        #: the law's values are the kernel's as they are (no saturation, no change of axes)
        self.plain = self._limit is None and not self._to_ref
        self.target: Any = None
        self._target: Any = None  # the last set_target's target and constant term (see validated)
        self._c: Any = self._zero
        self.reference_class: Any = task_type(task.type).reference_class

    def _setup_task(self, task: Any) -> None:
        """Pick the evaluator of the law's error and rate for this task (decided once)."""
        robot = task.robot
        self._state = robot.state_view  # (q, v, a) of the current state, StateNotSetError before one
        self._pose = task_type(task.type).target == "pose"
        self.fast = False
        self._to_ref = False
        self._eval: Callable[[np.ndarray, Any, np.ndarray], None] = (
            self._com_error if isinstance(task, ComTask) else self._task_error
        )
        if isinstance(task, CartesianTask):
            self._eval = self._checked_cartesian
            self._to_ref = task.ref_id != task.root_id
            if task.root_fixed:
                frames = robot.model.frames
                root = frames[task.root_id].placement
                ref_fixed = frames[task.ref_id].parentJoint == 0  # (else its placement is not the world's)
                ref = frames[task.ref_id].placement if self._to_ref else root
                fast = not self._to_ref or (ref_fixed and bool(np.array_equal(ref.rotation, root.rotation)))
                self.fast = fast and bool(np.array_equal(root.rotation, np.eye(3)))
                self._root_translation = root.translation.copy()
                self._root_offset = bool(np.any(self._root_translation))
            if self.fast:
                self._eval = self._world_cartesian
                self._to_ref = False
                self._tip = task.tip_id
                self._tip_pose, self._tip_motion = robot.frame_pose_view, robot.frame_motion_view
        elif isinstance(task, JointTask):
            self.fast = not bool(np.any(task.continuous_mask))
            self._eval = self._joint_error if self.fast else self._checked_joint
            self._q_idx = np.ascontiguousarray(task.q_indices, dtype=np.intp)
            self._v_idx = np.ascontiguousarray(task.v_indices, dtype=np.intp)

    # ------------------------------------------------------------------ target
    def validated(self, target: Any, velocity: Any = None, acceleration: Any = None,
                  names: tuple[str, str, str] = TARGET_NAMES,
                  matrix: bool = False) -> tuple[Any, NDArray[np.float64]]:  # fmt: skip
        """A target and its feed-forward validated, as :meth:`evaluate` takes them; changes nothing.

        Args:
            target: a ``pin.SE3`` (Cartesian task: tip in root coordinates) or n values.
            velocity, acceleration: optional feed-forward (n values; acceleration only with a PD law).
            names: the arguments' names in error messages (target, velocity, acceleration).
            matrix: a Cartesian target may also be a 4×4 homogeneous matrix (:func:`homogeneous_copy`).

        Returns:
            (the target as the evaluation reads it — a new array of n values for a vector target, the
            4×4 world pose on the world-axes Cartesian path, a ``pin.SE3`` otherwise —, the constant
            term c of the law: a new array, or a shared read-only zero without feed-forward).

        Raises:
            InvalidValueError: a malformed target (a non-rotation, NaN, a wrong size) or feed-forward.
            ConfigError: an acceleration feed-forward for a velocity law.
        """
        if self._pose:
            pose = None
            if type(target) is pin.SE3:  # (_pose_matrix's compiled check, inlined: the checked API's path)
                pose = target.homogeneous  # (a new 4×4 array)
                err, det = _transform_error(pose)
            if pose is None or not (err <= ROTATION_TOL and det > 0.0):
                pose = _pose_matrix(target, names[0], matrix)  # (a new 4×4 array, or raises)
            const = (self._zero if velocity is None and acceleration is None
                     else self._const_term(velocity, acceleration, names))  # fmt: skip
            if not self.fast:
                return pin.SE3(pose), const
            if self._root_offset:  # (the world-axes path reads the target's homogeneous matrix only)
                pose[:3, 3] += self._root_translation
            return pose, const
        n = self.task.n
        world = _state_copy(target, n, _FINITE)  # (as_vector's compiled pass, inlined)
        if world is None:
            world = as_vector(target, n, names[0])  # another layout, or raises naming the target
        if self._direct:  # the target is the reference (K_p = 0): K_ff x_d as the constant term
            if velocity is not None:
                raise ConfigError(names[1], f"{type(self.law).__name__} takes only a target")
            return np.zeros(n), self._const_term(world, acceleration, names)
        if velocity is None and acceleration is None:
            return world, self._zero
        return world, self._const_term(velocity, acceleration, names)

    def set_target(self, target: Any, velocity: Any = None, acceleration: Any = None) -> None:
        """Validate and keep a new target and feed-forward (:meth:`validated`; a Cartesian target may be a
        ``pin.SE3`` or a 4×4 homogeneous matrix): :meth:`evaluate` without a target reads these.

        Raises:
            InvalidValueError, ConfigError: as :meth:`validated`; nothing changes.
        """
        self._target, self._c = self.validated(target, velocity, acceleration, TARGET_NAMES, True)
        # (a matrix is kept as a copy of its own: the caller may write the next target into its array)
        self.target = np.array(target) if self._pose and isinstance(target, np.ndarray) else target

    def _const_term(
        self, velocity: Any, acceleration: Any, names: tuple[str, str, str]
    ) -> NDArray[np.float64]:
        """:meth:`_feed_forward`, or the shared zero without feed-forward."""
        if velocity is None and acceleration is None:
            return self._zero
        const = self._feed_forward(velocity, acceleration, names)
        return self._zero if const is None else const

    def _feed_forward(
        self, velocity: Any, acceleration: Any, names: tuple[str, str, str]
    ) -> np.ndarray | None:
        """The validated constant term of the law from the target's velocity (and acceleration):
        K_ff ẋ_d for a velocity law, K_d ẋ_d + K_ff ẍ_d for an acceleration law (one of them is given).

        Raises:
            InvalidValueError: a malformed feed-forward.
            ConfigError: an acceleration feed-forward for a velocity law.
        """
        n = self.task.n
        vd = None if velocity is None else _state_copy(velocity, n, _FINITE)  # (as_vector's compiled pass)
        if vd is None:
            vd = optional_vector(velocity, n, names[1])  # another layout, or raises naming the argument
        if self.velocity_level:
            if acceleration is not None:
                raise ConfigError(names[2], "velocity laws take no acceleration feed-forward")
            if vd is None:
                return None
            if not self._kff_one:
                vd *= self._kff  # (vd is a new array)
            return vd
        ad = optional_vector(acceleration, n, names[2])
        const = None if vd is None else self._kd * vd
        if ad is not None:
            const = self._kff * ad if const is None else const + self._kff * ad
        return const

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, out: NDArray[np.float64], target: Any = None, const: Any = None) -> None:
        """Write the law's reference for the robot's current state into ``out`` (n): in the task's
        reference axes, saturated.

        Args:
            out: the destination (n).
            target, const: a target and constant term from :meth:`validated` (both or neither); without
                them, those of the last :meth:`set_target`. The evaluator's own state is only read: a
                law's ``reference`` may evaluate the same task from several threads.

        Raises:
            StateNotSetError: the robot has no state.
        """
        if target is None:
            target, const = self._target, self._c
        self._eval(out, target, const)  # K_p e (− K_d ẋ) + K_d v_d + K_ff a_d (compiled kernels)
        if self._limit is not None:
            ratio = float(np.max(np.abs(out) / self._limit))
            if ratio > 1.0:
                out /= ratio
        if self._to_ref:
            task: Any = self.task
            out[:] = task.to_ref_axes(out)  # the law acts in root axes, references are in ref axes

    def _world_cartesian(self, out: np.ndarray, Md: np.ndarray, const: np.ndarray) -> None:
        """Pose error from the robot's cached world placement; twist J v (world axes at the tip)."""
        if self._kd_rate is None:
            M = self._tip_pose(self._tip)  # (4×4, the robot's cached world placement)
            _pose_law(out, self._e, Md, None, M, None, None, None, self._kp, None, const)
            return
        M, J, v = self._tip_motion(self._tip)  # (pose, Jacobian and velocity of one state)
        _pose_law(out, self._e, Md, None, M, None, J, v, self._kp, self._kd_rate, const)

    def _checked_cartesian(self, out: np.ndarray, target: pin.SE3, const: np.ndarray) -> None:
        """Error and twist in root coordinates through the task's pose()/twist() (the law's axes)."""
        task: Any = self.task
        pose = task.pose()
        twist = None if self._kd_rate is None else task.twist()
        # (the pose law with an identity Jacobian applied to the relative twist)
        _pose_law(out, self._e, target.rotation, target.translation, pose.rotation, pose.translation,
                  None if twist is None else _EYE6, twist, self._kp, self._kd_rate, const)  # fmt: skip

    def _joint_error(self, out: np.ndarray, target: np.ndarray, const: np.ndarray) -> None:
        q, v, _ = self._state("joint error")  # (one consistent snapshot of q and v)
        rate = self._kd_rate is not None
        _joint_law(out, target, q, self._q_idx, v if rate else None, self._v_idx if rate else None, self._kp,
                   self._kd_rate, const)  # fmt: skip

    def _checked_joint(self, out: np.ndarray, target: np.ndarray, const: np.ndarray) -> None:
        task: Any = self.task
        rate = None if self._kd_rate is None else task.velocities()
        _vector_law(out, target, task.positions(), rate, self._kp, self._kd_rate, const)

    def _com_error(self, out: np.ndarray, target: np.ndarray, const: np.ndarray) -> None:
        robot: Any = self.task.robot
        if self._dynamics_first:
            robot.precompute("dynamics")
        rate = None if self._kd_rate is None else robot.com_velocity()
        _vector_law(out, target, robot.com_position_view(), rate, self._kp, self._kd_rate, const)

    def _task_error(self, out: np.ndarray, target: np.ndarray, const: np.ndarray) -> None:
        """Any vector task (a registered type): x and ẋ from the task's ``position()``/``velocity()``."""
        task: Any = self.task
        rate = None if self._kd_rate is None else np.asarray(task.velocity(), dtype=np.float64)
        x = np.asarray(task.position(), dtype=np.float64)
        _vector_law(out, target, x, rate, self._kp, self._kd_rate, const)

    def __repr__(self) -> str:
        return f"LawEvaluator({type(self.law).__name__}, task {self.task.name!r})"
