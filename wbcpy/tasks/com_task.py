"""Centre-of-mass task (``type: com``): 3 rows in world axes.

``A = J_com`` (3×nv) and ``bias = J̇_com q̇``, the true COM acceleration at q̈ = 0 (Pinocchio's
``centerOfMass(q, q̇, 0)``), not the bias of any link. Task acceleration: ``J_com q̈ + J̇_com q̇``.
At the velocity level the rows are ``J_com q̇ ≈ ċ_ref`` (no bias).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from .config import TaskConfig
from .references import ComReference
from .registry import TaskType, register_task_type
from .task import Task

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel


class ComTask(Task):
    """Track a COM acceleration in world axes (m/s²)."""

    type = "com"

    def __init__(
        self, robot: RobotModel, config: TaskConfig, prefix: str = "", level: str = "acceleration"
    ) -> None:
        super().__init__(robot, config, level)

    def compute(self) -> None:
        """Copy J_com and J̇_com q̇ of the current state into :attr:`A` and :attr:`bias`.

        Both come from the kinematics alone (``RobotModel.com_jacobian_view``: forward kinematics at
        acceleration level, joint Jacobians, ``centerOfMass`` and ``jacobianCenterOfMass`` on that
        data), not from ``computeAllTerms``.
        """
        self._src = None
        robot = self.robot
        np.copyto(self._A, robot.com_jacobian_view())
        if not self._velocity:  # (the velocity level has no bias: it stays zero)
            np.copyto(self._bias, robot.com_bias_view())

    def fill_rows(self, A_out: NDArray[np.float64], y_out: NDArray[np.float64]) -> None:
        """Write the weighted rows of the current state (J_com is copied: Pinocchio's buffer changes
        with the next state; the bias array belongs to this state and is kept by reference)."""
        if not self._all_rows:
            self.compute()
            self.write_rows(A_out, y_out)
            return
        robot = self.robot
        J = robot.com_jacobian_view()
        A = self._A
        np.copyto(A, J)
        if self._velocity:
            b = self._bias  # zero
            self._src = None
        else:
            b = robot.com_bias_view()
            self._src = (None, b)
        self._write_rows_from(A, b, A_out, y_out)

    def position(self) -> NDArray[np.float64]:
        """Current COM position (3, m, world)."""
        return self.robot.com()

    def velocity(self) -> NDArray[np.float64]:
        """Current COM velocity (3, m/s, world)."""
        return self.robot.com_velocity()


register_task_type(TaskType("com", ComTask, ComReference, rows=3, unit="m", tolerance=1e-3))
