"""Reference bindings: a task's reference kept up to date in place by a control law (the hot loop API).

``binding = scene.bind("ee", CartesianPD(kp=100, kd=20), target)`` validates the law, the task and the
target once. Every control period, after ``robot.update(q, v)``, ``binding.update()`` evaluates the law
at the robot's current state — from the robot's per-state caches (frame placement and Jacobian, COM),
without copying poses or looking frames up — and writes the result straight into the task's reference
(stamped with the scene clock). It replaces ``scene.set_reference(name, law.reference(task, target))``
and gives the same reference values::

    ee = scene.bind("ee", CartesianPD(kp=100.0, kd=20.0), target)
    posture = scene.bind("posture", JointPD(kp=10.0, kd=6.3), q0[7:])
    for ...:
        robot.update(q, v)
        ee.update()
        posture.update()
        cmd = scene.solve(scene.update())

Laws: the PD laws (:class:`~wbcpy.controllers.CartesianPD`, ``JointPD``, ``ComPD``) in an
AccelerationScene (acceleration references, a = K_ff a_d + K_d (v_d − v) + K_p e), the velocity laws
(``CartesianVelocityLaw``, ``JointVelocityLaw``, ``ComVelocityLaw``) in a VelocityScene (ẋ = K_ff ẋ_d +
K_p e); errors as in those laws (e = (p_d − p, log₃(R_d Rᵀ)) for poses, x_d − x otherwise). Change the
target with :meth:`ReferenceBinding.set_target` (validated). The part K_d v_d + K_ff a_d that does not
depend on the state is computed when the target is set. A momentum task in a VelocityScene takes
``MomentumVelocityLaw``, whose target is the momentum h_d itself: the reference is K_ff h_d.

A Cartesian task whose root does not move and whose root and reference axes are the world's (the common
case: a frame relative to a fixed base) is evaluated from the robot's cached world placement and
Jacobian; other Cartesian tasks, and joint tasks with continuous joints, go through the task's checked
``pose()``/``twist()``/``positions()`` (same values, more work).
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
import pinocchio as pin

from .._kernels import joint_law as _joint_law
from .._kernels import pose_law as _pose_law
from .._kernels import vector_law as _vector_law
from .._support.validation import as_vector, optional_vector, se3_homogeneous
from ..controllers import laws_taken
from ..errors import ConfigError
from ..tasks import CartesianTask, ComTask, JointTask, task_type
from ..tasks.references import tracked_field

__all__ = ["ReferenceBinding"]

_EYE6 = np.eye(6)
_EYE6.setflags(write=False)


def _gain(gain: np.ndarray, n: int, name: str) -> np.ndarray:
    if gain.ndim == 1 and gain.shape[0] != n:
        raise ConfigError(name, f"expected a scalar or {n} values, got {gain.shape[0]}")
    return np.broadcast_to(gain, (n,)).astype(np.float64)


class BoundScene(Protocol):
    """What a binding reads of its scene (a :class:`~wbcpy.scenes.scene.Scene`; typed structurally so that
    this module does not import the scene module, which creates bindings)."""

    @property
    def task_level(self) -> str: ...
    @property
    def needs_dynamics(self) -> bool: ...

    def get_task(self, name: str, /) -> Any: ...
    def set_reference(self, task_name: str, reference: Any, /) -> None: ...
    def clock(self) -> float: ...


class ReferenceBinding:
    """A control law bound to one task of a scene (see the module docstring).

    Args:
        scene: the scene (its clock stamps the references).
        name: the task name.
        law: a PD law (AccelerationScene) or a velocity law (VelocityScene) of the task's type.
        target: pose (``pin.SE3``, tip in root coordinates), joint positions or COM position.
        target_velocity, target_acceleration: optional feed-forward (acceleration only with PD laws).

    Raises:
        UnknownNameError: unknown task. ConfigError: a law of the wrong kind for the task or the scene,
            per-axis gains of the wrong size. InvalidValueError: a malformed target.
    """

    def __init__(self, scene: BoundScene, name: str, law: Any, target: Any, target_velocity: Any = None,
                 target_acceleration: Any = None) -> None:  # fmt: skip
        task: Any = scene.get_task(name)
        velocity_level = scene.task_level == "velocity"
        expected = [cls.__name__ for cls in laws_taken(task.type, scene.task_level)]
        if type(law).__name__ not in expected:
            takes = " or ".join(expected) if expected else "no control law"
            raise ConfigError(
                "law", f"task {name!r} ({task.type}) in this scene takes {takes}, got {type(law).__name__}"
            )
        n = task.n
        self.scene, self.task, self.law = scene, task, law
        self._velocity_level = velocity_level
        self._kp = _gain(law.kp, n, "kp")
        self._kd = np.zeros(n) if velocity_level else _gain(law.kd, n, "kd")
        self._kff = _gain(law.kff, n, "kff")
        limit = getattr(law, "max_velocity" if velocity_level else "max_acceleration")
        self._limit = None if limit is None else _gain(limit, n, "limit")
        self._e = np.zeros(n)
        self._const = np.zeros(n)
        self._const_zero = True
        self._view: np.ndarray | None = None  # the task reference's target array (_ensure_reference)
        # the rate term (−K_d ẋ) of the acceleration laws; velocity laws have none
        self._kd_rate = None if velocity_level else self._kd
        # a law whose target is the reference itself (MomentumVelocityLaw: h* = K_ff h_d)
        self._direct = bool(getattr(law, "target_is_reference", False))
        self._setup_task(task)
        self.set_target(target, target_velocity, target_acceleration)

    def _setup_task(self, task: Any) -> None:
        """Pick the evaluator of the law's error and rate for this task (decided once)."""
        robot = task.robot
        self._pose = task_type(task.type).target == "pose"
        self._fast = False
        self._to_ref = False
        self._eval = self._com_error if isinstance(task, ComTask) else self._task_error
        # the scene's update computes the dynamics at this state anyway: computed first, they give the
        # COM terms too (Workspace.com_terms), instead of a kinematics pass of their own
        self._dynamics_first = bool(self.scene.needs_dynamics)
        if isinstance(task, CartesianTask):
            self._eval = self._checked_cartesian
            self._to_ref = task.ref_id != task.root_id
            if task.root_fixed:
                root = robot.model.frames[task.root_id].placement
                ref = robot.model.frames[task.ref_id].placement if self._to_ref else root
                fast = not self._to_ref or bool(np.array_equal(ref.rotation, root.rotation))
                self._fast = fast and bool(np.array_equal(root.rotation, np.eye(3)))
                self._root_translation = root.translation.copy()
                self._root_offset = bool(np.any(self._root_translation))
            if self._fast:
                self._eval = self._world_cartesian
                self._to_ref = False
                self._tip = task.tip_id
                self._placement, self._jacobian = robot.frame_placement_view, robot.frame_jacobian_view
        elif isinstance(task, JointTask):
            self._fast = not bool(np.any(task.continuous_mask))
            self._eval = self._joint_error if self._fast else self._checked_joint
            self._q_idx = np.ascontiguousarray(task.q_indices, dtype=np.intp)
            self._v_idx = np.ascontiguousarray(task.v_indices, dtype=np.intp)
        self._Md = np.eye(4)  # the target pose (fast Cartesian path: in world coordinates)

    # ------------------------------------------------------------------ target
    def set_target(self, target: Any, velocity: Any = None, acceleration: Any = None) -> None:
        """Validate and set a new target (and feed-forward), then :meth:`update` the reference.

        Raises:
            InvalidValueError: a malformed target (a non-rotation, NaN, a wrong size); nothing changes.
            ConfigError: an acceleration feed-forward for a velocity law; nothing changes.
        """
        n = self.task.n
        pose: np.ndarray | None = None
        world: Any = None
        if self._pose:
            pose = se3_homogeneous(target, "target")  # (a new 4×4 array)
        else:
            world = as_vector(target, n, "target")
        if self._direct:  # the target is the reference (K_p = 0): K_ff x_d as the constant term
            if velocity is not None:
                raise ConfigError("target_velocity", f"{type(self.law).__name__} takes only a target")
            velocity, world = world, np.zeros(n)
        const = self._feed_forward(velocity, acceleration)
        # every input is valid: now change the binding
        if pose is not None:
            if not self._fast:
                world = pin.SE3(pose)
            elif self._root_offset:  # (the world-axes path reads the target's homogeneous matrix only)
                pose[:3, 3] += self._root_translation
            self._Md = pose
        self.target = target
        self._target_world: Any = world  # (an array; a pin.SE3 for a Cartesian task off the fast path)
        if const is not None:
            np.copyto(self._const, const)
            self._const_zero = False
        elif not self._const_zero:
            self._const.fill(0.0)
            self._const_zero = True
        if self._view is None:
            self._ensure_reference()
        self.update()

    def _feed_forward(self, velocity: Any, acceleration: Any) -> np.ndarray | None:
        """The validated constant term of the law from the target's velocity (and acceleration):
        K_ff ẋ_d for a velocity law, K_d ẋ_d + K_ff ẍ_d for an acceleration law; None when both are None.

        Raises:
            InvalidValueError: a malformed feed-forward.
            ConfigError: an acceleration feed-forward for a velocity law.
        """
        n = self.task.n
        vd = optional_vector(velocity, n, "target_velocity")
        if self._velocity_level:
            if acceleration is not None:
                raise ConfigError("target_acceleration", "velocity laws take no acceleration feed-forward")
            return None if vd is None else self._kff * vd
        ad = optional_vector(acceleration, n, "target_acceleration")
        const = None if vd is None else self._kd * vd
        if ad is not None:
            const = self._kff * ad if const is None else const + self._kff * ad
        return const

    def _ensure_reference(self) -> None:
        """Give the task a reference of its own (through the checked API) once; updates write into it."""
        task = self.task
        if task.reference is None or self._view is None:
            field = tracked_field(task.type, self.scene.task_level)
            ref: Any = task_type(task.type).reference_class
            self.scene.set_reference(task.name, ref(**{field: np.zeros(task.n)}))
            self._view = task.target_view()

    # ------------------------------------------------------------------ hot path
    def update(self) -> None:
        """Evaluate the law at the robot's current state and write it into the task's reference."""
        out: Any = self._view  # (set by set_target, which the constructor calls)
        self._eval(out)  # K_p e (− K_d ẋ) + K_d v_d + K_ff a_d, into the reference (compiled kernels)
        if self._limit is not None:
            ratio = float(np.max(np.abs(out) / self._limit))
            if ratio > 1.0:
                out /= ratio
        task: Any = self.task
        if self._to_ref:
            out[:] = task.to_ref_axes(out)  # the law acts in root axes, references are in ref axes
        task.reference_time = self.scene.clock()  # (Task.stamp, inlined on this hot path)

    def _world_cartesian(self, out: np.ndarray) -> None:
        """Pose error from the robot's cached world placement; twist J v (world axes at the tip)."""
        M = self._placement(self._tip).homogeneous
        if self._kd_rate is None:
            _pose_law(out, self._e, self._Md, None, M, None, None, None, self._kp, None, self._const)
            return
        robot: Any = self.task.robot
        J, v = self._jacobian(self._tip), robot.v_view
        _pose_law(out, self._e, self._Md, None, M, None, J, v, self._kp, self._kd_rate, self._const)

    def _checked_cartesian(self, out: np.ndarray) -> None:
        """Error and twist in root coordinates through the task's pose()/twist() (the law's axes)."""
        task: Any = self.task
        pose = task.pose()
        target = self._target_world
        twist = None if self._kd_rate is None else task.twist()
        # (the pose law with an identity Jacobian applied to the relative twist)
        _pose_law(out, self._e, target.rotation, target.translation, pose.rotation, pose.translation,
                  None if twist is None else _EYE6, twist, self._kp, self._kd_rate, self._const)  # fmt: skip

    def _joint_error(self, out: np.ndarray) -> None:
        robot: Any = self.task.robot
        rate = self._kd_rate is not None
        _joint_law(out, self._target_world, robot.q_view, self._q_idx, robot.v_view if rate else None,
                   self._v_idx if rate else None, self._kp, self._kd_rate, self._const)  # fmt: skip

    def _checked_joint(self, out: np.ndarray) -> None:
        task: Any = self.task
        rate = None if self._kd_rate is None else task.velocities()
        _vector_law(out, self._target_world, task.positions(), rate, self._kp, self._kd_rate, self._const)

    def _com_error(self, out: np.ndarray) -> None:
        robot: Any = self.task.robot
        if self._dynamics_first:
            robot.precompute("dynamics")
        rate = None if self._kd_rate is None else robot.com_velocity()
        _vector_law(out, self._target_world, robot.com_position_view(), rate, self._kp, self._kd_rate,
                    self._const)  # fmt: skip

    def _task_error(self, out: np.ndarray) -> None:
        """Any vector task (a registered type): x and ẋ from the task's ``position()``/``velocity()``."""
        task: Any = self.task
        rate = None if self._kd_rate is None else np.asarray(task.velocity(), dtype=np.float64)
        x = np.asarray(task.position(), dtype=np.float64)
        _vector_law(out, self._target_world, x, rate, self._kp, self._kd_rate, self._const)

    def __repr__(self) -> str:
        return f"ReferenceBinding({self.task.name!r}, {type(self.law).__name__})"
