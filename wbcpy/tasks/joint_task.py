"""Joint task (``type: jnt``): the accelerations of named 1-DOF joints.

Rows are selection rows in the order of ``joint_names``: ``A = S`` (S_kj = 1 when v-index j belongs to
joint k), bias 0, so the task acceleration is ``q̈[idx]`` and ``y = a_ref``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from .._kernels import weighted_rows as _weighted_rows
from ..errors import ConfigError, ConfigKeyError
from .config import TaskConfig
from .fields import joint_names_field
from .references import JointReference
from .registry import TaskType, register_task_type
from .task import Task

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel


class JointTask(Task):
    """Track accelerations of a subset of 1-DOF joints, listed in any order.

    Attributes:
        joint_names: the task joints, in row order.
        v_indices: their indices in v / q̈ (n,).
        q_indices: their first index in q (n,).
        continuous_mask: which of them are continuous joints (cos/sin in q, an angle per DOF) (n,).
    """

    type = "jnt"
    config_fields = (
        joint_names_field(doc="the 1-DOF joints of the task, in the order of its rows and references"),
    )
    constant_rows = True

    def __init__(
        self, robot: RobotModel, config: TaskConfig, prefix: str = "", level: str = "acceleration"
    ) -> None:
        """Build the selection rows (the same at the acceleration and velocity levels).

        Raises:
            ConfigKeyError: an unknown joint name (field ``joint_names``).
            ConfigError: a joint that is not 1-DOF (free-flyer, spherical, planar, fixed).
        """
        valid = robot.joint_names
        v_idx: list[int] = []
        q_idx: list[int] = []
        q_len: list[int] = []
        for name in config.joint_names:
            if name not in valid:
                raise ConfigKeyError(f"{prefix}joint_names", "joint", name, valid)
            joint = robot.model.joints[robot.joint_id(name)]
            if joint.nv != 1:
                raise ConfigError(
                    f"{prefix}joint_names",
                    f"joint {name!r} has {joint.nv} DOF; jnt tasks take 1-DOF joints only",
                )
            v_idx.append(joint.idx_v)
            q_idx.append(joint.idx_q)
            q_len.append(joint.nq)
        super().__init__(robot, config, level)
        self.joint_names = list(config.joint_names)
        self.v_indices = np.array(v_idx, dtype=np.intp)
        self.q_indices = self._q_idx = np.array(q_idx, dtype=np.intp)
        self.continuous_mask = self._continuous = np.array(q_len, dtype=np.intp) == 2
        self._any_continuous = bool(self._continuous.any())
        self.A[np.arange(self.n), self.v_indices] = 1.0
        self._rescale()

    def _rescale(self) -> None:
        super()._rescale()
        if hasattr(self, "v_indices"):  # the weighted selection rows are constant: build them once
            rows = self._rows
            self._WA = self.A[rows] * self._sw_col

    def compute(self) -> None:
        """Selection rows are constant and the bias is zero: nothing to do."""

    def selected_dofs(self) -> NDArray[np.intp]:
        """The DOFs of the joints whose row has a positive weight."""
        out: NDArray[np.intp] = self.v_indices[self.weights > 0.0]
        return out

    def defer_compute(self) -> None:
        """Constant rows: nothing to compute, now or later."""

    def write_rows(self, A_out: NDArray[np.float64], y_out: NDArray[np.float64]) -> None:
        """Copy the precomputed weighted selection rows; y = √(a·w)·a_ref (bias is zero)."""
        np.copyto(A_out, self._WA)
        self.write_targets(y_out)

    def fill_rows(self, A_out: NDArray[np.float64], y_out: NDArray[np.float64]) -> None:
        """Same as :meth:`write_rows` (the rows do not depend on the state)."""
        self.write_rows(A_out, y_out)

    def write_targets(self, y_out: NDArray[np.float64]) -> None:
        """Write y = √(a·w)·a_ref only (the scene keeps the constant rows in its buffers)."""
        # (the weighted-rows kernel without rows: one compiled pass, cheaper than a ufunc call)
        target = self._ref_acc if self._all_rows else self._ref_acc[self._rows]
        _weighted_rows(None, y_out, None, target, None, self._sw)

    def task_acceleration(self, qdd: NDArray[np.float64]) -> NDArray[np.float64]:
        """The task joints' accelerations ``q̈[idx]`` (n)."""
        return np.asarray(qdd, dtype=float)[self.v_indices]

    def positions(self) -> NDArray[np.float64]:
        """Current angles/positions of the task joints (n); continuous joints as atan2(sin, cos)."""
        q = self.robot.q_view
        out = q[self._q_idx]  # (a new array)
        if self._any_continuous:
            iq = self._q_idx[self._continuous]
            out[self._continuous] = np.arctan2(q[iq + 1], q[iq])
        return out

    def velocities(self) -> NDArray[np.float64]:
        """Current velocities of the task joints (n)."""
        return self.robot.v[self.v_indices]


register_task_type(
    TaskType(
        "jnt",
        JointTask,
        JointReference,
        rows=None,
        target="joints",
        unit="rad|m",
    )
)
