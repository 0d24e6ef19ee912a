"""Wrench task (``type: wrench``): ask a contact's wrench to equal a :class:`WrenchReference`.

A wrench task acts on the wrench variables of an :class:`~wbcpy.InverseDynamicsScene`, not on
q̈: its rows are the weighted selection rows √(a·w_k) e_k over its contact's wrench columns, and its
target is √(a·w_k) w_ref,k (contact-frame axes, about the contact origin; force over torque for a
surface contact, the force for a point contact). Cost contribution: a · Σ_k w_k (w_c,k − w_ref,k)².
The rows are constant; only the targets change. The task's columns (:attr:`WrenchTask.columns`) follow
the scene's layout of the active contacts; a task whose contact is inactive contributes nothing (state
``"contact_inactive"``).

Status: ``y_ref`` is the reference wrench, ``y_solution`` the solved wrench of the contact (None while
it is inactive or before a solve), ``y`` is None (a wrench is not measured).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ConfigError
from .config import TaskConfig
from .contact_task import ContactTask, TaskContact
from .fields import frame_field
from .references import WrenchReference, check_reference_class
from .registry import TaskType, register_task_type

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel


class WrenchTask(ContactTask):
    """Track a contact wrench (N over N·m, contact-frame axes).

    Attributes:
        frame: the contact frame.
        contact: the scene's contact object on that frame (its ``active`` flag is read).
        columns: the wrench's columns in the scene's variables, None while the contact is inactive.
        solution: the wrench of the last solve (None while inactive or before a solve).
    """

    type = "wrench"
    config_fields = (frame_field("frame", required=True, doc="a contact frame of the scene"),)
    constant_rows = True

    def __init__(self, robot: RobotModel, config: TaskConfig, contact: TaskContact, prefix: str = "") -> None:
        """Raises ConfigError: weights whose count is not the contact's wrench size."""
        reason = self.contact_mismatch(config, contact)
        if reason is not None:
            raise ConfigError(f"{prefix}weights", reason)
        data = config.to_dict()
        data["weights"] = [1.0] * contact.size if config.weights is None else list(config.weights)
        super().__init__(robot, TaskConfig.from_dict(data), contact)

    @classmethod
    def contact_mismatch(cls, config: TaskConfig, contact: TaskContact) -> str | None:
        """Weights whose count is not the contact's wrench size."""
        size = contact.size
        if config.weights is not None and len(config.weights) != size:
            return (f"expected {size} weights for the {contact.type} contact on {contact.frame!r}, "
                    f"got {len(config.weights)}")  # fmt: skip
        return None

    def _rescale(self) -> None:
        super()._rescale()
        self._WA = np.eye(self.n)[self._rows] * self._sw_col

    # ------------------------------------------------------------------ references
    def validate_reference(self, ref: Any) -> WrenchReference:  # type: ignore[override]
        """A validated copy of a :class:`WrenchReference` with ``n`` entries.

        Raises:
            ReferenceTypeError: not a WrenchReference (also a TypeError).
            InvalidValueError: a wrong size, NaN/inf or an invalid time stamp.
        """
        check_reference_class(ref, WrenchReference, self.name, self.type)
        out: WrenchReference = ref.validated(self.n, self.name)
        return out

    # ------------------------------------------------------------------ rows
    def compute(self) -> None:
        """Constant rows, no bias: nothing to compute."""

    def defer_compute(self) -> None:
        """Constant rows: nothing to compute, now or later."""

    def write_rows(self, A_out: np.ndarray, y_out: np.ndarray) -> None:
        """The weighted selection rows over the wrench columns and the weighted targets."""
        np.copyto(A_out, self._WA)
        self.write_targets(y_out)

    def fill_rows(self, A_out: np.ndarray, y_out: np.ndarray) -> None:
        """Same as :meth:`write_rows` (the rows do not depend on the state)."""
        self.write_rows(A_out, y_out)

    def write_targets(self, y_out: np.ndarray) -> None:
        """Write y = √(a·w)·w_ref only (the scene keeps the constant rows in its buffers)."""
        ref = self._ref_acc if self._all_rows else self._ref_acc[self._rows]
        np.multiply(ref, self._sw, y_out)


def _wrench_rows(config: TaskConfig) -> int:
    """6 rows, or 3 when 3 weights are given (a point contact's force)."""
    return 3 if isinstance(config.weights, list) and len(config.weights) == 3 else 6


register_task_type(
    TaskType(
        "wrench",
        WrenchTask,
        WrenchReference,
        rows=6,
        target="value",
        acceleration_field="wrench",
        unit="N|N·m",
        needs_contacts=True,
        count_rows=_wrench_rows,
    )
)
