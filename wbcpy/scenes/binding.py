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
depend on the state is computed when the target is set.

A Cartesian task whose root does not move and whose root and reference axes are the world's (the common
case: a frame relative to a fixed base) is evaluated from the robot's cached world placement and
Jacobian; other Cartesian tasks, and joint tasks with continuous joints, go through the task's checked
``pose()``/``twist()``/``positions()`` (same values, more work).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pinocchio as pin

from .._validation import as_se3, as_vector
from ..errors import ConfigError
from ..tasks import CartesianReference, CartesianTask, ComReference, JointReference, JointTask

if TYPE_CHECKING:
    from .scene import Scene

__all__ = ["ReferenceBinding"]

_REFS = {"cart": CartesianReference, "jnt": JointReference, "com": ComReference}
_ACC_LAWS = {"cart": "CartesianPD", "jnt": "JointPD", "com": "ComPD"}
_VEL_LAWS = {"cart": "CartesianVelocityLaw", "jnt": "JointVelocityLaw", "com": "ComVelocityLaw"}


def _gain(gain: np.ndarray, n: int, name: str) -> np.ndarray:
    if gain.ndim == 1 and gain.shape[0] != n:
        raise ConfigError(name, f"expected a scalar or {n} values, got {gain.shape[0]}")
    return np.broadcast_to(gain, (n,)).astype(np.float64)


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

    def __init__(self, scene: Scene, name: str, law: Any, target: Any, target_velocity: Any = None,
                 target_acceleration: Any = None) -> None:  # fmt: skip
        task: Any = scene.get_task(name)
        velocity_level = scene.task_level == "velocity"
        expected = (_VEL_LAWS if velocity_level else _ACC_LAWS).get(task.type)
        if expected is None or type(law).__name__ != expected:
            raise ConfigError(
                "law",
                f"task {name!r} ({task.type}) in this scene takes a {expected}, got {type(law).__name__}",
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
        self._tmp = np.zeros(n)
        self._const = np.zeros(n)
        self._setup_task(task)
        self.set_target(target, target_velocity, target_acceleration)

    def _setup_task(self, task: Any) -> None:
        robot = task.robot
        self._kind = task.type
        self._fast = False
        if isinstance(task, CartesianTask) and task.root_fixed:
            root = robot.model.frames[task.root_id].placement
            ref = robot.model.frames[task.ref_id].placement if task.ref_id != task.root_id else root
            self._fast = task.ref_id == task.root_id or bool(np.array_equal(ref.rotation, root.rotation))
            self._fast = self._fast and bool(np.array_equal(root.rotation, np.eye(3)))
            self._root_translation = root.translation.copy()
            self._tip = task.tip_id
        elif isinstance(task, JointTask):
            self._fast = not bool(np.any(task.continuous_mask))
            self._q_idx, self._v_idx = task.q_indices, task.v_indices

    # ------------------------------------------------------------------ target
    def set_target(self, target: Any, velocity: Any = None, acceleration: Any = None) -> None:
        """Validate and set a new target (and feed-forward), then :meth:`update` the reference.

        Raises:
            InvalidValueError: a malformed target (a non-rotation, NaN, a wrong size); nothing changes.
        """
        n = self.task.n
        if self._kind == "cart":
            pose = as_se3(target, "target")
            world = pin.SE3(pose.rotation, pose.translation + (self._root_translation if self._fast else 0.0))
        else:
            world = as_vector(target, n, "target")
        vd = np.zeros(n) if velocity is None else as_vector(velocity, n, "target_velocity")
        if self._velocity_level:
            if acceleration is not None:
                raise ConfigError("target_acceleration", "velocity laws take no acceleration feed-forward")
            const = self._kff * vd
        else:
            ad = np.zeros(n) if acceleration is None else as_vector(acceleration, n, "target_acceleration")
            const = self._kd * vd + self._kff * ad
        self.target, self._target_world, self._vd = target, world, vd
        np.copyto(self._const, const)
        if self._kind == "cart":
            self._Rd = np.array(world.rotation)
            self._pd = np.array(world.translation)
        self._ensure_reference()
        self.update()

    def _ensure_reference(self) -> None:
        """Give the task a reference of its own (through the checked API) once; updates write into it."""
        task = self.task
        if task.reference is None or getattr(self, "_view", None) is None:
            field = "velocity" if self._velocity_level else "acceleration"
            if self._kind == "cart":
                field = "twist" if self._velocity_level else "acceleration"
            ref: Any = _REFS[self._kind]
            self.scene.set_reference(task.name, ref(**{field: np.zeros(task.n)}))
            self._view: np.ndarray = task.target_view()

    # ------------------------------------------------------------------ hot path
    def update(self) -> None:
        """Evaluate the law at the robot's current state and write it into the task's reference."""
        e, rate = self._error_and_rate()
        out: np.ndarray = self._view
        np.multiply(self._kp, e, out=out)
        if rate is not None:
            np.multiply(self._kd, rate, out=self._tmp)
            out -= self._tmp
        out += self._const
        if self._limit is not None:
            ratio = float(np.max(np.abs(out) / self._limit))
            if ratio > 1.0:
                out /= ratio
        task: Any = self.task
        if self._kind == "cart" and not self._fast and task.ref_id != task.root_id:
            out[:] = task.to_ref_axes(out)  # the law acts in root axes, references are in ref axes
        self.task.stamp(self.scene.clock())

    def _error_and_rate(self) -> tuple[np.ndarray, np.ndarray | None]:
        """(error, current rate or None at velocity level) of the task at the robot's state."""
        task: Any = self.task
        robot, e = task.robot, self._e
        need_rate = not self._velocity_level
        if self._kind == "cart":
            if not self._fast:
                return self._checked_cartesian(task, need_rate)
            M = robot.frame_placement_view(self._tip)
            np.subtract(self._pd, M.translation, out=e[:3])
            e[3:] = pin.log3(self._Rd @ M.rotation.T)
            rate = robot.frame_jacobian_view(self._tip) @ robot.v_view if need_rate else None
            return e, rate
        if self._kind == "jnt":
            if not self._fast:
                np.subtract(self._target_world, task.positions(), out=e)
                return e, task.velocities() if need_rate else None
            np.subtract(self._target_world, robot.q_view.take(self._q_idx), out=e)
            return e, robot.v_view.take(self._v_idx) if need_rate else None
        np.subtract(self._target_world, robot.com_position_view(), out=e)
        return e, robot.com_velocity() if need_rate else None

    def _checked_cartesian(
        self, task: CartesianTask, need_rate: bool
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Error and twist in root coordinates through the task's pose()/twist() (the law's axes)."""
        pose = task.pose()
        target = self._target_world
        e = self._e
        e[:3] = target.translation - pose.translation
        e[3:] = pin.log3(target.rotation @ pose.rotation.T)
        return e, task.twist() if need_rate else None

    def __repr__(self) -> str:
        return f"ReferenceBinding({self.task.name!r}, {type(self.law).__name__})"
