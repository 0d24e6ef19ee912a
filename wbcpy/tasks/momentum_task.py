"""Centroidal momentum task (``type: momentum``): 6 rows, linear over angular, world axes, about the COM.

The centroidal momentum h = (m ċ, k_G) = A_G(q) q̇ (Orin and Goswami's centroidal momentum matrix;
Pinocchio ``computeCentroidalMap``) changes at the rate

    ḣ = A_G q̈ + Ȧ_G q̇                   (``computeCentroidalMapTimeVariation``),

so the task rows are ``A = A_G`` and ``bias = Ȧ_G q̇`` in acceleration and inverse-dynamics scenes (a
reference rate ḣ*), and ``A_G q̇ ≈ h*`` in a velocity scene (the momentum itself). Per-row ``weights``
select parts: ``[0, 0, 0, 1, 1, 1]`` is the angular momentum only. In an inverse-dynamics scene the linear
rate is the net external force, ḣ_lin = m g + Σ f_c (the equations of motion), so a linear momentum task
asks the contacts for forces.

:class:`MomentumReference` holds ḣ* (``rate``, the same array as ``acceleration``) and h* (``momentum``,
the same as ``velocity``, tracked by velocity scenes); :class:`~wbcpy.controllers.MomentumPD` turns a
momentum target into ḣ* = ḣ_d + K_d (h_d − h) (damping when h_d = 0).

The task evaluates A_G and Ȧ_G q̇ on its own ``pin.Data`` (these algorithms overwrite joint placements
and velocities, which the robot's per-state caches must not see): like its scene, it is for one thread.

Robots with mimic joints: Pinocchio's ``computeCentroidalMapTimeVariation`` refuses their mimic joints,
but its ``computeCentroidalMap`` and ``computeCentroidalMomentumTimeVariation`` take them (the momentum
of every body, a mimic-driven one moving with its leader): A_G is the map in q̇ directly, and the bias is
the momentum rate at q̈ = 0, ḣ(q, q̇, 0) = Ȧ_G q̇.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pinocchio as pin
from numpy.typing import ArrayLike, NDArray

from .config import TaskConfig
from .references import VectorReference
from .registry import TaskType, register_task_type
from .task import Task

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel


@dataclass
class MomentumReference(VectorReference):
    """Reference of a ``momentum`` task (6 entries each, linear over angular, world axes, about the COM).

    Attributes:
        acceleration: ḣ* (kg·m/s² over kg·m²/s²), required by acceleration and inverse-dynamics scenes;
            ``rate`` is the same value.
        position: unused (kept for the vector-reference layout).
        velocity: h* (kg·m/s over kg·m²/s), required by velocity scenes; ``momentum`` is the same value.
        time: time stamp on the scene clock (s); ``None`` = when set.
        rate: ḣ*, a synonym of ``acceleration`` (give either).
        momentum: h*, a synonym of ``velocity`` (give either).
    """

    rate: ArrayLike | None = None
    momentum: ArrayLike | None = None

    def __post_init__(self) -> None:
        if self.acceleration is None:
            self.acceleration = self.rate
        if self.velocity is None:
            self.velocity = self.momentum
        self.rate, self.momentum = self.acceleration, self.velocity


class MomentumTask(Task):
    """Track the centroidal momentum rate ḣ* (acceleration level) or the momentum h* (velocity level)."""

    type = "momentum"

    def __init__(
        self, robot: RobotModel, config: TaskConfig, prefix: str = "", level: str = "acceleration"
    ) -> None:
        super().__init__(robot, config, level)
        self._data: Any = None

    def _map(self, bias: bool = True) -> tuple[NDArray[np.float64], NDArray[np.float64] | None]:
        """(A_G, Ȧ_G q̇) at the robot's state, on the task's own data (the bias None unless asked for)."""
        model = self.robot.model
        if self._data is None:
            self._data = model.createData()
        data = self._data
        q, v, _ = self.robot.state_view("momentum task")
        if self.robot.names.mimic_coupling is not None:  # (see the module docstring)
            rate = None
            if bias:
                rate = pin.computeCentroidalMomentumTimeVariation(model, data, q, v, np.zeros(model.nv))
                rate = np.array(rate.vector, dtype=float)
            return np.asarray(pin.computeCentroidalMap(model, data, q)).reshape(6, model.nv), rate
        dAg = pin.computeCentroidalMapTimeVariation(model, data, q, v)  # (nv = 1: 6-vectors, reshaped)
        Ag = np.asarray(data.Ag).reshape(6, model.nv)
        return Ag, (np.asarray(dAg).reshape(6, model.nv) @ v if bias else None)

    def compute(self) -> None:
        """Write A_G into :attr:`A` and Ȧ_G q̇ into :attr:`bias` (zero at the velocity level)."""
        self._src = None
        Ag, rate = self._map(bias=not self._velocity)
        np.copyto(self._A, Ag)
        if rate is not None:
            np.copyto(self._bias, rate)

    def position(self) -> NDArray[np.float64]:
        """The centroidal momentum h = A_G q̇ (6; the state a momentum law feeds back)."""
        Ag, _ = self._map(bias=False)
        out: NDArray[np.float64] = Ag @ self.robot.state_view("momentum task")[1]
        return out

    def velocity(self) -> NDArray[np.float64]:
        """The centroidal momentum h (6), as :meth:`position` (a momentum law damps it)."""
        return self.position()

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_data"] = None  # (rebuilt on first use)
        return state


register_task_type(TaskType("momentum", MomentumTask, MomentumReference, rows=6, unit="kg·m/s"))
