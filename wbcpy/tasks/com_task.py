"""Centre-of-mass task (``type: com``): 3 rows in world axes.

``A = J_com`` (3×nv) and ``bias = J̇_com q̇``, the true COM acceleration at q̈ = 0 (Pinocchio's
``centerOfMass(q, q̇, 0)``), not the bias of any link. Task acceleration: ``J_com q̈ + J̇_com q̇``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .config import TaskConfig
from .task import Task

if TYPE_CHECKING:
    from ..robot import RobotModel

__all__ = ["ComTask"]


class ComTask(Task):
    """Track a COM acceleration in world axes (m/s²)."""

    type = "com"

    def __init__(self, robot: RobotModel, config: TaskConfig, prefix: str = "") -> None:
        super().__init__(robot, config)

    def compute(self) -> None:
        """Copy J_com and J̇_com q̇ of the current state into :attr:`A` and :attr:`bias`."""
        robot = self.robot
        robot._ensure_dynamics("COM Jacobian")  # computeAllTerms, cached per state
        np.copyto(self.A, robot.data.Jcom)
        np.copyto(self.bias, robot.com_bias())

    def position(self) -> np.ndarray:
        """Current COM position (3, m, world)."""
        return self.robot.com()

    def velocity(self) -> np.ndarray:
        """Current COM velocity (3, m/s, world)."""
        return self.robot.com_velocity()
