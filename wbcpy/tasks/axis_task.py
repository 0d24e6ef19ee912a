"""Axis task (``type: axis``): a unit axis fixed in a frame, as a direction in world axes, 3 rows.

The task variable is the world direction of the axis a (the config's ``axis``, tip-frame axes,
normalised) carried by the tip frame:

.. math::

    x = R_{tip}(q)\\, a \\qquad (\\|x\\| = 1,\\ \\text{world axes}).

With ω = J_ω q̇ the tip's angular velocity (world axes; J_ω the angular rows of its
``LOCAL_WORLD_ALIGNED`` Jacobian) and ẋ = ω × x,

.. math::

    A = -[x]_×\\, J_ω, \\qquad \\text{bias} = -[x]_×\\, (\\dot J_ω \\dot q) + ω × (ω × x),

so ``A q̈ + bias`` = ẍ (the angular part of the frame's classical bias is its J̇_ω q̇). A has rank 2: a
direction cannot move along itself, and a rotation about x leaves it unchanged — the task constrains two
DOFs (pointing, look-at), not the roll about the axis. The target is a world direction (3, unit-less;
the reference's ``position``), tracked as a vector (``TaskPD``: e = x* − x), so its acceleration and
velocity references are per-component (1/s², 1/s). At the velocity level the rows are ``A q̇ ≈ ẋ*``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pinocchio as pin
from numpy.typing import NDArray

from .config import TaskConfig
from .fields import frame_field, vector_field
from .references import VectorReference
from .registry import TaskType, register_task_type
from .task import Task, frame_index

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel


@dataclass
class AxisReference(VectorReference):
    """Reference of an ``axis`` task (3 entries each, world axes).

    Attributes:
        acceleration: ẍ* (1/s²), required by acceleration scenes.
        position: x*, the desired world direction (unit vector), informative.
        velocity: ẋ* (1/s), required by velocity scenes.
        time: time stamp on the scene clock (s); ``None`` = when set.
    """


class AxisTask(Task):
    """Point an axis of the tip frame along a world direction (see the module docstring).

    Attributes:
        tip: the frame name. tip_id: its Pinocchio index.
        axis: the unit axis in tip-frame axes (3).
    """

    type = "axis"
    config_fields = (
        frame_field("tip", required=True, doc="the frame that carries the axis"),
        vector_field("axis", 3, default=[0.0, 0.0, 1.0], nonzero=True,
                     doc="the axis in the tip frame's axes (normalised); default its z axis"),
    )  # fmt: skip

    def __init__(
        self, robot: RobotModel, config: TaskConfig, prefix: str = "", level: str = "acceleration"
    ) -> None:
        """Raises ConfigKeyError: an unknown tip frame (field ``tip``)."""
        tip_id = frame_index(robot, config.tip, f"{prefix}tip")
        super().__init__(robot, config, level)
        self.tip, self.tip_id = str(config.tip), tip_id
        axis = np.array(config.axis, dtype=float)
        self.axis = axis / np.linalg.norm(axis)

    def position(self) -> NDArray[np.float64]:
        """The axis's current world direction x = R_tip a (3)."""
        out: NDArray[np.float64] = self.robot.frame_placement_view(self.tip_id).rotation @ self.axis
        return out

    def velocity(self) -> NDArray[np.float64]:
        """ẋ = ω × x (3, 1/s)."""
        omega = self.robot.frame_jacobian_view(self.tip_id)[3:] @ self.robot.v_view
        out: NDArray[np.float64] = np.cross(omega, self.position())
        return out

    def compute(self) -> None:
        """A = −[x]× J_ω and, at the acceleration level, bias = −[x]× J̇_ω q̇ + ω × (ω × x)."""
        self._src = None
        robot = self.robot
        x = self.position()
        skew = pin.skew(x)
        if self._velocity:
            J = robot.frame_jacobian_view(self.tip_id)
            np.matmul(-skew, J[3:], out=self._A)
            return
        J, b = robot.frame_jacobian_bias_view(self.tip_id)
        np.matmul(-skew, J[3:], out=self._A)
        omega = J[3:] @ robot.v_view
        self._bias[:] = -skew @ b[3:] + np.cross(omega, np.cross(omega, x))


register_task_type(TaskType("axis", AxisTask, AxisReference, rows=3, unit="1", tolerance=1e-3))
