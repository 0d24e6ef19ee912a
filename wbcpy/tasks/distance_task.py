"""Distance task (``type: distance``): the distance between two frames' origins, 1 row.

With d = p_tip − p_root (world axes), the task variable is x = ‖d‖ (m). Where d ≠ 0, with u = d/‖d‖
and ḋ = (J_tip − J_root)_lin q̇ (the linear rows of the frames' ``LOCAL_WORLD_ALIGNED`` Jacobians, whose
classical biases are b = J̇ q̇),

.. math::

    A = u^T (J_{tip} - J_{root})_{lin}, \\qquad
    \\text{bias} = u^T (b_{tip} - b_{root})_{lin} + \\frac{\\|\\dot d\\|^2 - (u^T \\dot d)^2}{\\|d\\|},

so ``A q̈ + bias`` = ẍ; at the velocity level ``A q̇ ≈ ẋ*``.

**The zero distance.** ‖d‖ has no gradient at d = 0 (the direction u is undefined and the curvature
term grows as 1/‖d‖). Below :data:`MIN_DISTANCE` the task keeps the direction u of the last state at
which the distance was larger (the world z axis before any such state) and drops the curvature term:
its rows are then those of the signed distance uᵀd along that direction — continuous as d passes
through zero along u, and never a division by zero. A distance target should stay away from 0 (a
contact or coincidence is better asked with a Cartesian task).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError
from .config import TaskConfig
from .fields import frame_field
from .references import VectorReference
from .registry import TaskType, register_task_type
from .task import Task, frame_index

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel

#: below this distance (m) the direction of the last larger distance is kept (module docstring)
MIN_DISTANCE = 1e-9


@dataclass
class DistanceReference(VectorReference):
    """Reference of a ``distance`` task (1 entry each).

    Attributes:
        acceleration: ẍ* (m/s²), required by acceleration scenes.
        position: x*, the desired distance (m), informative.
        velocity: ẋ* (m/s), required by velocity scenes.
        time: time stamp on the scene clock (s); ``None`` = when set.
    """


class DistanceTask(Task):
    """Track the distance between the origins of ``tip`` and ``root`` (see the module docstring).

    Attributes:
        tip, root: the frame names. tip_id, root_id: their Pinocchio indices.
    """

    type = "distance"
    config_fields = (
        frame_field("tip", required=True, doc="one frame"),
        frame_field("root", required=True, doc="the other frame (``universe``: the world origin)"),
    )

    def __init__(
        self, robot: RobotModel, config: TaskConfig, prefix: str = "", level: str = "acceleration"
    ) -> None:
        """Raises ConfigKeyError: an unknown frame; ConfigError: tip and root are the same frame."""
        tip_id = frame_index(robot, config.tip, f"{prefix}tip")
        root_id = frame_index(robot, config.root, f"{prefix}root")
        if tip_id == root_id:
            raise ConfigError(f"{prefix}tip", f"tip and root are the same frame ({config.root!r})")
        super().__init__(robot, config, level)
        self.tip, self.root = str(config.tip), str(config.root)
        self.tip_id, self.root_id = tip_id, root_id
        self._u = np.array([0.0, 0.0, 1.0])  # the direction of the last distance above MIN_DISTANCE

    def _offset(self) -> NDArray[np.float64]:
        robot = self.robot
        d: NDArray[np.float64] = (
            robot.frame_placement_view(self.tip_id).translation
            - robot.frame_placement_view(self.root_id).translation
        )
        return d

    def position(self) -> NDArray[np.float64]:
        """The current distance ‖p_tip − p_root‖ (1, m)."""
        return np.array([np.linalg.norm(self._offset())])

    def velocity(self) -> NDArray[np.float64]:
        """ẋ = uᵀḋ (1, m/s; u as the rows use it)."""
        robot = self.robot
        v = robot.v_view
        ddot = (robot.frame_jacobian_view(self.tip_id)[:3] - robot.frame_jacobian_view(self.root_id)[:3]) @ v
        return np.array([self._direction(self._offset())[0] @ ddot])

    def _direction(self, d: NDArray[np.float64]) -> tuple[NDArray[np.float64], float]:
        """(u, ‖d‖), u the kept direction below :data:`MIN_DISTANCE` (then the returned norm is 0)."""
        norm = float(np.linalg.norm(d))
        if norm < MIN_DISTANCE:
            return self._u, 0.0
        self._u = d / norm
        return self._u, norm

    def compute(self) -> None:
        """A = uᵀ(J_tip − J_root)_lin and the bias of the module docstring."""
        self._src = None
        robot = self.robot
        u, norm = self._direction(self._offset())
        if self._velocity:
            Jt, Jr = robot.frame_jacobian_view(self.tip_id), robot.frame_jacobian_view(self.root_id)
            np.matmul(u, Jt[:3] - Jr[:3], out=self._A[0])
            return
        Jt, bt = robot.frame_jacobian_bias_view(self.tip_id)
        Jr, br = robot.frame_jacobian_bias_view(self.root_id)
        Jd = Jt[:3] - Jr[:3]
        np.matmul(u, Jd, out=self._A[0])
        bias = float(u @ (bt[:3] - br[:3]))
        if norm > 0.0:
            ddot = Jd @ robot.v_view
            along = float(u @ ddot)
            bias += (float(ddot @ ddot) - along * along) / norm
        self._bias[0] = bias


register_task_type(TaskType("distance", DistanceTask, DistanceReference, rows=1, unit="m", tolerance=1e-3))
