"""Base classes of the PD controllers: validated gains and the law a = K_ff a_d + K_d (v_d − v) + K_p e.

:class:`PDLaw` holds the gains and applies the law to an error e (n values) that its subclass computes;
:class:`VectorPD` is the whole controller for a task whose state is a plain vector (joint positions,
COM position), where e = x_d − x.
"""

from __future__ import annotations

from typing import ClassVar, Generic, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._support.validation import as_vector, optional_vector
from ..tasks import Task, VectorReference
from ._gains import as_gain, broadcast_gain, saturate
from .evaluation import EvaluatedLaw, LawEvaluator

_Task = TypeVar("_Task", bound=Task)
#: the references a vector PD law builds (their fields: acceleration, position, velocity, time)
_Ref = TypeVar("_Ref", bound=VectorReference)
_TARGET_NAMES = ("target_position", "target_velocity", "target_acceleration")


class PDLaw(EvaluatedLaw):
    """Gains and the feedback law a = K_ff a_d + K_d (v_d − v) + K_p e, with optional saturation.

    Attributes:
        kp, kd, kff: gains, scalars (0-d arrays) or one value per axis.
        max_acceleration: optional direction-keeping saturation, scalar or one value per axis.
    """

    #: number of axes when it is fixed (per-axis gains are then checked at construction); None when it
    #: is only known at each call (per-axis gains are then checked against it there)
    _axes: ClassVar[int | None] = None

    def __init__(
        self, kp: ArrayLike, kd: ArrayLike, kff: ArrayLike = 1.0, max_acceleration: ArrayLike | None = None
    ) -> None:
        """Raises ConfigError for negative or non-finite gains (or a non-positive saturation)."""
        self.kp = as_gain(kp, "kp")
        self.kd = as_gain(kd, "kd")
        self.kff = as_gain(kff, "kff")
        self.max_acceleration = as_gain(max_acceleration, "max_acceleration", allow_none=True)
        if self._axes is not None:
            for name in ("kp", "kd", "kff", "max_acceleration"):
                gain = getattr(self, name)
                if gain is not None:
                    broadcast_gain(gain, self._axes, name)
        self._evaluators: dict[Task, LawEvaluator] = {}

    def _law(
        self,
        error: NDArray[np.float64],
        v: NDArray[np.float64],
        vd: NDArray[np.float64] | None,
        ad: NDArray[np.float64] | None,
    ) -> NDArray[np.float64]:
        """K_ff a_d + K_d (v_d − v) + K_p e as a new array of n = len(e) values, saturated (an omitted
        v_d or a_d is zero).

        Raises:
            ConfigError: per-axis gains that do not have n entries.
        """
        n = error.shape[0]
        kp, kd, kff, limit = self.kp, self.kd, self.kff, self.max_acceleration
        if self._axes is None:
            kff = broadcast_gain(kff, n, "kff")
            kd = broadcast_gain(kd, n, "kd")
            kp = broadcast_gain(kp, n, "kp")
            if limit is not None:
                limit = broadcast_gain(limit, n, "max_acceleration")
        rate = -v if vd is None else vd - v
        a = kp * error + kd * rate
        if ad is not None:
            a += kff * ad
        return saturate(a, limit)


class VectorPD(PDLaw, Generic[_Task, _Ref]):
    """PD law on a vector state x (n = :attr:`_axes`, or any size when that is None): e = x_d − x.

    :meth:`reference` evaluates the law for a task through its :class:`~wbcpy.controllers.LawEvaluator`
    and builds the task type's reference class (:mod:`wbcpy.tasks.registry`).
    """

    def compute(
        self,
        position: ArrayLike,
        velocity: ArrayLike,
        target_position: ArrayLike,
        target_velocity: ArrayLike | None = None,
        target_acceleration: ArrayLike | None = None,
    ) -> NDArray[np.float64]:
        """The acceleration reference (n) for the current and target states, in their units and axes.

        Omitted target velocity and acceleration are zero.

        Raises:
            InvalidValueError: mismatched sizes or NaN/inf; ConfigError: per-axis gains of the wrong size.
        """
        x = as_vector(position, self._axes, "position")
        n = x.shape[0]
        v = as_vector(velocity, n, "velocity")
        xd = as_vector(target_position, n, "target_position")
        vd = optional_vector(target_velocity, n, "target_velocity")
        ad = optional_vector(target_acceleration, n, "target_acceleration")
        return self._law(xd - x, v, vd, ad)

    update = compute  # alias (ARC-OPT controllers call it update)

    def reference(
        self,
        task: _Task,
        target_position: ArrayLike,
        target_velocity: ArrayLike | None = None,
        target_acceleration: ArrayLike | None = None,
        time: float | None = None,
    ) -> _Ref:
        """A reference for ``task`` from the robot's current state (it also stores a validated copy of the
        target position, the target velocity and the time).

        The law is evaluated as a scene binding evaluates it (:mod:`~wbcpy.controllers.evaluation`: the
        same compiled kernel on the robot's cached state), every input validated at every call.

        Raises:
            InvalidValueError: a malformed target or feed-forward (named ``target_position``,
                ``target_velocity``, ``target_acceleration``).
            ConfigError: a law that does not fit the task (its kind or number of axes), per-axis gains
                of the wrong size.
        """
        acc, target, ev = self._evaluated(task, None, target_position, target_velocity, target_acceleration,
                                          _TARGET_NAMES)  # fmt: skip
        # (validated above: a copy, so that the reference never shares the caller's array)
        velocity = None if target_velocity is None else np.array(target_velocity, dtype=np.float64)
        # (acceleration, position, velocity, time: the fields of every vector reference, in this order)
        ref: _Ref = ev.reference_class(acc, target, velocity, time)  # (the type's class)
        return ref
