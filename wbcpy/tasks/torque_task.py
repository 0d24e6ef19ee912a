"""Torque task (``type: torque``): the torques of named joints track a :class:`TorqueReference`.

Only an :class:`~wbcpy.scenes.InverseDynamicsScene` has torques: with its variables x = (q̈, w_1, …) the
actuated torques are τ = T x + h_a, T = [M_a, −J_c,aᵀ] (:mod:`~wbcpy.contacts.constraints`; h_a the
actuated rows of the nonlinear effects, less the known external wrenches' generalised forces). The scene
hands these rows to the task at every update; the task's rows are those of its joints,

.. math::

    A = T_{S}, \\quad \\text{bias} = h_{a,S}, \\quad y = τ^* - h_{a,S}

(S: the task joints among the actuated DOFs), so the cost is a · Σ_k w_k (τ_k − τ*_k)² (N·m, or N for
a prismatic joint). The rows act on every variable (q̈ and the wrenches: :attr:`Task.columns` is all of
them). Alone on a fixed-base arm, at priority 0 over all joints, the scene's q̈ is the forward dynamics
M⁻¹(τ* − h), Pinocchio's ABA.

Status: ``y_ref`` is τ*, ``y_solution`` the task joints' τ of the last solve, ``y`` is None.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError, ConfigKeyError
from .config import TaskConfig
from .fields import joint_names_field
from .references import TargetReference, check_reference_class
from .registry import TaskType, register_task_type
from .status import TaskStatus
from .task import Task

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel


@dataclass
class TorqueReference(TargetReference):
    """Reference of a ``torque`` task.

    Attributes:
        target: τ* of the task joints, in ``joint_names`` order (N·m; N for a prismatic joint).
        time: time stamp on the scene clock (s); ``None`` = when set.
    """


def joint_dofs(robot: RobotModel, names: list[str], field: str, what: str) -> NDArray[np.intp]:
    """The v indices of named 1-DOF joints.

    Raises:
        ConfigKeyError: an unknown joint (``field``). ConfigError: a joint that is not 1-DOF.
    """
    out = []
    for name in names:
        if name not in robot.joint_names:
            raise ConfigKeyError(field, "joint", name, robot.joint_names)
        joint = robot.model.joints[robot.joint_id(name)]
        if joint.nv != 1:
            raise ConfigError(field, f"joint {name!r} has {joint.nv} DOF; {what} tasks take 1-DOF joints")
        out.append(joint.idx_v)
    return np.array(out, dtype=np.intp)


class TorqueTask(Task):
    """Track the torques of named 1-DOF joints (see the module docstring).

    Attributes:
        joint_names: the task joints, in row order.
        v_indices: their DOFs (indices in v).
        solution: their torques of the last solve (None before one).
    """

    type = "torque"
    config_fields = (joint_names_field(doc="the 1-DOF joints whose torques the task sets, in row order"),)
    columns = slice(None)  # (every variable: q̈ and the contact wrenches)

    def __init__(
        self, robot: RobotModel, config: TaskConfig, prefix: str = "", level: str = "acceleration"
    ) -> None:
        """Resolve the joints.

        Raises:
            ConfigKeyError: an unknown joint (field ``joint_names``).
            ConfigError: a joint that is not 1-DOF; a velocity-level scene (no torques there).
        """
        if level != "acceleration":
            raise ConfigError(f"{prefix}type", "torque tasks need an InverseDynamicsScene (joint torques)")
        v_idx = joint_dofs(robot, list(config.joint_names), f"{prefix}joint_names", "torque")
        super().__init__(robot, config, level)
        self.joint_names = list(config.joint_names)
        self.v_indices = v_idx
        self._rows_of: tuple[int, NDArray[np.intp]] | None = None  # (id of the actuated list, its rows)
        self.solution: NDArray[np.float64] | None = None

    # ------------------------------------------------------------------ references
    def validate_reference(self, ref: Any) -> TorqueReference:  # type: ignore[override]
        """A validated copy of a :class:`TorqueReference` with one torque per task joint.

        Raises:
            ReferenceTypeError: not a TorqueReference (also a TypeError).
            InvalidValueError: a wrong size, NaN/inf or an invalid time stamp.
        """
        check_reference_class(ref, TorqueReference, self.name, self.type)
        return cast(TorqueReference, ref.validated(self.n, self.name))  # (validated keeps the class)

    # ------------------------------------------------------------------ rows
    def set_torque_rows(
        self, T: NDArray[np.float64], h_a: NDArray[np.float64], actuated: NDArray[np.intp]
    ) -> None:
        """Take the scene's torque rows τ = T x + h_a of this update (``actuated``: the DOF of each row).

        Raises:
            ConfigError: a task joint that is not actuated (field ``<task>.joint_names``).
        """
        rows_of = self._rows_of
        if rows_of is None or rows_of[0] != id(actuated):
            pos = np.searchsorted(actuated, self.v_indices)
            found = actuated[np.minimum(pos, actuated.size - 1)] if actuated.size else pos
            if (pos >= actuated.size).any() or (found != self.v_indices).any():
                raise ConfigError(f"{self.name}.joint_names", "torque tasks take actuated joints only")
            rows_of = self._rows_of = (id(actuated), pos)
        rows = rows_of[1]
        if self._A.shape[1] != T.shape[1]:
            self._A = np.zeros((self.n, T.shape[1]))
        np.take(T, rows, axis=0, out=self._A)
        np.take(h_a, rows, out=self._bias)
        self._src = None

    def compute(self) -> None:
        """The rows are the last ones the scene handed (:meth:`set_torque_rows`): nothing to compute."""

    def defer_compute(self) -> None:
        """The rows of this update are there already: nothing to compute later."""

    def set_solution(self, x: NDArray[np.float64]) -> None:
        """Keep the task joints' torques τ = A x + bias of the scene's solved variables x."""
        self.solution = self._A @ x + self._bias

    def task_acceleration(self, qdd: NDArray[np.float64]) -> NDArray[np.float64]:
        """Not defined for a torque task (its rows act on the wrenches too): raises ConfigError."""
        raise ConfigError(f"{self.name}.type", "a torque task's value is its solution's torques (status)")

    def status(
        self, qdd: NDArray[np.float64] | None, measured: NDArray[np.float64] | None, now: float
    ) -> TaskStatus:
        """Status from the solved torques (:attr:`solution`); ``y`` is None (torques are not measured)."""
        state = self.state(now)
        y_ref = None if self.reference is None else self._ref_acc.copy()
        y_sol = None if self.solution is None else self.solution.copy()
        error = None if y_ref is None or y_sol is None else y_ref - y_sol
        return TaskStatus(name=self.name, type=self.type, priority=self.priority, state=state,
                          activation=self.activation, weights=self.weights.copy(),
                          timed_out=state == "timed_out", y_ref=y_ref, y_solution=y_sol, y=None,
                          error=error)  # fmt: skip


register_task_type(
    TaskType(
        "torque",
        TorqueTask,
        TorqueReference,
        rows=None,
        target="value",
        acceleration_field="target",
        unit="N·m",
        needs_torques=True,
    )
)
