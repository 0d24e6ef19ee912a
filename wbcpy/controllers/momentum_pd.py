"""MomentumPD: the law of a ``momentum`` task, ḣ* = K_ff ḣ_d + K_d (h_d − h).

With h_d = 0 it damps the centroidal momentum (ḣ* = −K_d h: e.g. the angular momentum of a walking or
pushed humanoid, weights ``[0, 0, 0, 1, 1, 1]``); with a reference momentum h_d it tracks it. The law is the
PD law of :class:`~wbcpy.controllers.ComPD` with the momentum h as the fed-back velocity; a ``kp`` acts like
``kd`` (both multiply h_d − h; default 0). In a scene file give ``kp: 0``, ``kd`` and ``target`` (h_d, six
numbers; omitted, the momentum at the start is the target).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..tasks import register_law
from ..tasks.momentum_task import MomentumReference, MomentumTask
from ._base import VectorPD

__all__ = ["MomentumPD"]


class MomentumPD(VectorPD[MomentumTask, MomentumReference]):
    """ḣ* = K_ff ḣ_d + (K_d + K_p)(h_d − h) (6 rows, linear over angular, world axes, about the COM).

    :meth:`reference` builds a :class:`~wbcpy.tasks.momentum_task.MomentumReference` (``rate`` = ḣ*,
    ``momentum`` = h_d) from the robot's current momentum.

    Attributes:
        kd: damping gain (1/s), scalar or 6 values. kp: added to kd (default 0). kff: feed-forward gain.
        max_acceleration: optional saturation of ḣ*, scalar or 6 values.
    """

    _axes = 6
    _reference_cls = MomentumReference

    def __init__(
        self, kd: ArrayLike = 10.0, kp: ArrayLike = 0.0, kff: ArrayLike = 1.0, max_acceleration: Any = None
    ) -> None:
        """Gains as in the class docstring."""
        super().__init__(kp=kp, kd=kd, kff=kff, max_acceleration=max_acceleration)

    def _task_state(self, task: MomentumTask) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        h = task.position()
        return h, h

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


register_law("momentum", "acceleration", MomentumPD)
