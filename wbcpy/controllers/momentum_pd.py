"""The laws of a ``momentum`` task: :class:`MomentumPD` (acceleration and inverse-dynamics scenes),
ḣ* = K_ff ḣ_d + K_d (h_d − h), and :class:`MomentumVelocityLaw` (velocity scenes), h* = K_ff h_d.

With h_d = 0 it damps the centroidal momentum (ḣ* = −K_d h: e.g. the angular momentum of a walking or
pushed humanoid, weights ``[0, 0, 0, 1, 1, 1]``); with a reference momentum h_d it tracks it. The law is the
PD law of :class:`~wbcpy.controllers.ComPD` with the momentum h as the fed-back velocity; a ``kp`` acts like
``kd`` (both multiply h_d − h; default 0). In a scene file give ``kp: 0``, ``kd`` and ``target`` (h_d, six
numbers; omitted, the momentum at the start is the target).

In a velocity scene the task's rows are A_G q̇ = h*: the scene commands the momentum itself, not its
rate, so there is no error to integrate and nothing for a proportional gain to act on — the generic
vector law K_p (x_d − x) would treat the momentum as a position and ask for a momentum equal to K_p times
the momentum error (kg·m/s²: the units of a rate). :class:`MomentumVelocityLaw` asks for the target
momentum, h* = K_ff h_d (e.g. h_d = 0: no net momentum, the angular rows hold the body's spin at zero), and
is the only law a velocity scene's momentum task takes (scene files: ``kff``, ``max_velocity``, ``target``;
a ``kp`` is refused).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._support.validation import as_vector
from ..tasks import register_law
from ..tasks.momentum_task import MomentumReference, MomentumTask
from ._base import VectorPD
from .velocity_laws import VelocityLaw


class MomentumPD(VectorPD[MomentumTask, MomentumReference]):
    """ḣ* = K_ff ḣ_d + (K_d + K_p)(h_d − h) (6 rows, linear over angular, world axes, about the COM).

    :meth:`reference` builds a :class:`~wbcpy.tasks.momentum_task.MomentumReference` (``rate`` = ḣ*,
    ``momentum`` = h_d) from the robot's current momentum.

    Attributes:
        kd: damping gain (1/s), scalar or 6 values. kp: added to kd (default 0). kff: feed-forward gain.
        max_acceleration: optional saturation of ḣ*, scalar or 6 values.
    """

    _axes = 6

    def __init__(
        self, kd: ArrayLike = 10.0, kp: ArrayLike = 0.0, kff: ArrayLike = 1.0, max_acceleration: Any = None
    ) -> None:
        """Gains as in the class docstring."""
        super().__init__(kp=kp, kd=kd, kff=kff, max_acceleration=max_acceleration)

    def reference(  # type: ignore[override]
        self,
        task: MomentumTask,
        target_momentum: ArrayLike | None = None,
        target_rate: ArrayLike | None = None,
        time: float | None = None,
    ) -> MomentumReference:
        """The reference for ``task`` at the robot's current state: h_d (default zero) and ḣ_d."""
        h = task.position()
        hd = np.zeros(6) if target_momentum is None else np.asarray(target_momentum, dtype=float)
        rate = self.compute(h, h, hd, hd, target_rate)
        return MomentumReference(rate=rate, momentum=hd, time=time)


class MomentumVelocityLaw(VelocityLaw):
    """h* = K_ff h_d (6 rows, linear over angular, world axes, about the COM, kg·m/s over kg·m²/s): the
    momentum a velocity scene's ``momentum`` task asks for (see the module docstring for why there is no
    proportional term). The optional ``max_velocity`` scales h* so that |h*_i| ≤ max_i (direction kept).

    Attributes:
        kff: gain on the target momentum (default 1), scalar or 6 values. kp: 0 (no feedback term).
        max_velocity: optional saturation of h* (kg·m/s, kg·m²/s), scalar or 6 values.
    """

    _axes = 6
    #: the gains a scene file may give (no ``kp``: :func:`~wbcpy.scenes.files.velocity_file.velocity_law`)
    gains = ("kff", "max_velocity")
    #: the generic :class:`~wbcpy.controllers.TaskVelocityLaw` is refused for momentum tasks
    exclusive = True
    #: a binding's target is the reference itself (h* = K_ff h_d), not a position to feed back
    target_is_reference = True

    def __init__(self, kff: ArrayLike = 1.0, max_velocity: ArrayLike | None = None) -> None:
        """Gains as in the class docstring.

        Raises:
            ConfigError: negative or non-finite gains, a non-positive saturation, or not 1 or 6 values.
        """
        super().__init__(kp=0.0, kff=kff, max_velocity=max_velocity)

    def compute(self, target_momentum: ArrayLike) -> NDArray[np.float64]:
        """h* = K_ff h_d, saturated (6, a new array).

        Raises:
            InvalidValueError: not 6 finite values.
        """
        hd = as_vector(target_momentum, 6, "target_momentum")
        return self._apply(np.zeros(6), hd)

    def reference(
        self, task: MomentumTask, target_momentum: ArrayLike | None = None, time: float | None = None
    ) -> MomentumReference:
        """The reference for ``task``: ``momentum`` = h* = K_ff h_d (h_d default zero); it does not depend on
        the robot's state.

        Raises:
            InvalidValueError: a target that is not 6 finite values.
        """
        hd = np.zeros(6) if target_momentum is None else target_momentum
        return MomentumReference(momentum=self.compute(hd), time=time)


register_law("momentum", "acceleration", MomentumPD)
register_law("momentum", "velocity", MomentumVelocityLaw)
