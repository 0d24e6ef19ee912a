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
target with :meth:`ReferenceBinding.set_target` (validated). A pose target is a ``pin.SE3`` or its 4×4
homogeneous matrix (checked as strictly, kept as a copy: a loop may write each new pose into one array).
The part K_d v_d + K_ff a_d that does not depend on the state is computed when the target is set. A
momentum task in a VelocityScene takes ``MomentumVelocityLaw``, whose target is the momentum h_d itself:
the reference is K_ff h_d.

The law is evaluated by a :class:`~wbcpy.controllers.LawEvaluator` (:mod:`wbcpy.controllers.evaluation`),
the implementation the laws' own ``reference(task, target)`` uses too: the checked API and the bound one
compute the same values the same way; the checked one validates every input at every call on top. A
Cartesian task whose root does not move and whose root and reference axes are the world's (the common
case: a frame relative to a fixed base) is evaluated from the robot's cached world placement and
Jacobian; other Cartesian tasks, and joint tasks with continuous joints, go through the task's checked
``pose()``/``twist()``/``positions()`` (same values, more work).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from ..controllers import LawEvaluator, laws_taken
from ..errors import ConfigError
from ..tasks import task_type
from ..tasks.references import tracked_field


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


#: clocks that return float seconds: a binding calls them directly (the scene's ``clock()`` converts)
_FLOAT_CLOCKS = (time.monotonic, time.perf_counter, time.time)


def _float_clock(scene: BoundScene) -> Callable[[], float]:
    """The scene clock as a callable returning float seconds: the scene's clock function itself when it is
    one of the standard library's, else ``scene.clock`` (which converts what its function returns)."""
    raw = getattr(scene, "clock_function", None)
    return raw if any(raw is c for c in _FLOAT_CLOCKS) else scene.clock  # type: ignore[return-value]


class ReferenceBinding:
    """A control law bound to one task of a scene (see the module docstring).

    Args:
        scene: the scene (its clock stamps the references).
        name: the task name.
        law: a PD law (AccelerationScene) or a velocity law (VelocityScene) of the task's type.
        target: pose (``pin.SE3`` or its 4×4 homogeneous matrix, tip in root coordinates), joint positions
            or COM position.
        target_velocity, target_acceleration: optional feed-forward (acceleration only with PD laws).

    Attributes:
        scene, task, law: as given. target: the target last set.
        evaluator: the law's :class:`~wbcpy.controllers.LawEvaluator` for the task.

    Raises:
        UnknownNameError: unknown task. ConfigError: a law of the wrong kind for the task or the scene,
            per-axis gains of the wrong size. InvalidValueError: a malformed target.
    """

    def __init__(self, scene: BoundScene, name: str, law: Any, target: Any, target_velocity: Any = None,
                 target_acceleration: Any = None) -> None:  # fmt: skip
        task: Any = scene.get_task(name)
        expected = [cls.__name__ for cls in laws_taken(task.type, scene.task_level)]
        if type(law).__name__ not in expected:
            takes = " or ".join(expected) if expected else "no control law"
            raise ConfigError(
                "law", f"task {name!r} ({task.type}) in this scene takes {takes}, got {type(law).__name__}"
            )
        self.scene, self.task, self.law = scene, task, law
        # the scene's update computes the dynamics at this state anyway: computed first, they give the
        # COM terms too (Workspace.com_terms), instead of a kinematics pass of their own
        self.evaluator = LawEvaluator(law, task, dynamics_first=bool(scene.needs_dynamics))
        self._evaluate, self._clock = self.evaluator.evaluate, _float_clock(scene)  # (bound once: hot path)
        self._view: Any = None  # the task reference's target array (_ensure_reference)
        self.set_target(target, target_velocity, target_acceleration)

    @property
    def target(self) -> Any:
        """The target last set (as given)."""
        return self.evaluator.target

    # ------------------------------------------------------------------ target
    def set_target(self, target: Any, velocity: Any = None, acceleration: Any = None) -> None:
        """Validate and set a new target (and feed-forward), then :meth:`update` the reference.

        A pose target is a ``pin.SE3`` or a 4×4 float64 homogeneous matrix [[R, p], [0, 0, 0, 1]] (R a
        proper rotation; the binding keeps a copy of the matrix).

        Raises:
            InvalidValueError: a malformed target (a non-rotation, NaN, a wrong size, a matrix whose last
                row is not (0, 0, 0, 1)); nothing changes.
            ConfigError: an acceleration feed-forward for a velocity law; nothing changes.
        """
        self.evaluator.set_target(target, velocity, acceleration)
        if self._view is None:
            self._ensure_reference()
        self._evaluate(self._view)  # (update(), inlined: the hot path)
        self.task.reference_time = self._clock()

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
        self._evaluate(self._view)  # (compiled kernels, in the task's reference axes)
        self.task.reference_time = self._clock()  # (Task.stamp, inlined on this hot path)

    def __repr__(self) -> str:
        return f"ReferenceBinding({self.task.name!r}, {type(self.law).__name__})"
