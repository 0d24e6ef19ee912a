"""Kinetic-energy task (``type: kinetic_energy``): the robot's kinetic energy as a cost, nv rows.

With M(q) = L Lᵀ (the Cholesky factor of the joint-space inertia matrix, L lower triangular) the rows
are

.. math::

    A = \\tfrac{1}{\\sqrt 2}\\, L^T, \\qquad \\text{bias} = 0, \\qquad y = 0,

so that ‖A q̇‖² = ½ q̇ᵀ M q̇ — the kinetic energy (J) — in a velocity scene, and ‖A q̈‖² = ½ q̈ᵀ M q̈
(kg·m²/s⁴ in joint units) in an acceleration or inverse-dynamics scene. It is a regulariser: it needs no
reference (the target is zero; a reference may still set one, nv entries) and takes no control law.
Below a task that fixes J q̇ = ẋ it selects the dynamically consistent inverse:

.. math::

    \\dot q = M^{-1} J^T (J M^{-1} J^T)^{-1} \\dot x

(the minimiser of ½ q̇ᵀ M q̇ subject to J q̇ = ẋ; up to the scene's regularisation λ). The rows have one
entry per DOF of the robot (``TaskType.rows = "nv"``): its ``weights``, if given, have nv entries (rows
of Lᵀ, not joints: give one weight to all to scale the energy).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ConfigError
from .config import TaskConfig
from .references import VectorReference
from .registry import ROWS_PER_DOF, TaskType, register_task_type
from .task import Task

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel

_HALF = float(np.sqrt(0.5))


@dataclass
class KineticEnergyReference(VectorReference):
    """Reference of a ``kinetic_energy`` task (optional: the target is zero without one; nv entries).

    Attributes:
        acceleration: the target of the rows A q̈ (acceleration-level scenes).
        position: unused.
        velocity: the target of the rows A q̇ (velocity scenes).
        time: time stamp on the scene clock (s); ``None`` = when set.
    """


class KineticEnergyTask(Task):
    """Minimise ½ q̇ᵀ M q̇ (velocity level) or ½ q̈ᵀ M q̈ (acceleration level); see the module docstring."""

    type = "kinetic_energy"
    needs_reference = False

    def __init__(
        self, robot: RobotModel, config: TaskConfig, prefix: str = "", level: str = "acceleration"
    ) -> None:
        """Raises ConfigError: weights whose count is not the robot's nv (field ``weights``)."""
        if config.weights is not None and len(config.weights) != robot.nv:
            got = len(config.weights)
            raise ConfigError(f"{prefix}weights", f"expected {robot.nv} weights (one per DOF row), got {got}")
        super().__init__(robot, config, level)

    def compute(self) -> None:
        """A = Lᵀ/√2 for the current state's M = L Lᵀ; the bias stays zero."""
        self._src = None
        L = np.linalg.cholesky(self.robot.mass_matrix_view())
        np.multiply(L.T, _HALF, out=self._A)

    def position(self) -> np.ndarray:
        """The kinetic energy ½ q̇ᵀ M q̇ of the current state (1, J)."""
        v = self.robot.v_view
        return np.array([0.5 * float(v @ self.robot.mass_matrix_view() @ v)])


register_task_type(
    TaskType("kinetic_energy", KineticEnergyTask, KineticEnergyReference, rows=ROWS_PER_DOF, target="none",
             unit="J")
)  # fmt: skip
