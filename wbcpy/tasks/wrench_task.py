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

from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ..errors import ConfigError
from .config import TaskConfig
from .references import ReferenceTypeError, WrenchReference
from .registry import TaskType, register_task_type
from .status import TaskStatus
from .task import Task

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel


class TaskContact(Protocol):
    """What a wrench task reads of its contact (a :class:`~wbcpy.contacts.SurfaceContact` or
    :class:`~wbcpy.contacts.PointContact`; typed structurally: the contacts sit above the tasks)."""

    @property
    def frame(self) -> str:
        """The contact frame."""
        ...

    @property
    def type(self) -> str:
        """``"surface"`` or ``"point"``."""
        ...

    @property
    def size(self) -> int:
        """Entries of its wrench: 6 (surface) or 3 (point)."""
        ...

    @property
    def active(self) -> bool:
        """Whether the contact is in use."""
        ...


class WrenchTask(Task):
    """Track a contact wrench (N over N·m, contact-frame axes).

    Attributes:
        frame: the contact frame.
        contact: the scene's contact object on that frame (its ``active`` flag is read).
        columns: the wrench's columns in the scene's variables, None while the contact is inactive.
        solution: the wrench of the last solve (None while inactive or before a solve).
    """

    type = "wrench"

    def __init__(self, robot: RobotModel, config: TaskConfig, contact: TaskContact, prefix: str = "") -> None:
        """Raises ConfigError: weights whose count is not the contact's wrench size."""
        size = contact.size
        if config.weights is not None and len(config.weights) != size:
            raise ConfigError(
                f"{prefix}weights",
                f"expected {size} weights for the {contact.type} contact on {contact.frame!r}, "
                f"got {len(config.weights)}",
            )
        data = config.to_dict()
        data["weights"] = [1.0] * size if config.weights is None else list(config.weights)
        super().__init__(robot, TaskConfig.from_dict(data))
        self._tracked = "wrench"  # the reference field the rows track (Task.set_reference)
        self.frame = contact.frame
        self.contact = contact
        self.columns: slice | None = None
        self.solution: np.ndarray | None = None

    def _rescale(self) -> None:
        super()._rescale()
        self._WA = np.eye(self.n)[self._rows] * self._sw_col

    def bind(self, contact: TaskContact, columns: slice | None) -> None:
        """Follow the scene's contacts: the contact object and its wrench columns (None: inactive)."""
        self.contact = contact
        if columns != self.columns:
            self._version += 1
        self.columns = columns

    # ------------------------------------------------------------------ references
    def validate_reference(self, ref: Any) -> WrenchReference:  # type: ignore[override]
        """A validated copy of a :class:`WrenchReference` with ``n`` entries.

        Raises:
            ReferenceTypeError: not a WrenchReference (also a TypeError).
            InvalidValueError: a wrong size, NaN/inf or an invalid time stamp.
        """
        if not isinstance(ref, WrenchReference):
            raise ReferenceTypeError(
                f"reference of task {self.name!r}",
                "WrenchReference",
                type(ref).__name__,
                reason=f"a wrench task takes a WrenchReference, got {type(ref).__name__}",
            )
        return ref.validated(self.n, self.name)

    def state(self, now: float) -> str:
        """As :meth:`Task.state`, and ``"contact_inactive"`` while the contact is lifted."""
        if self.activation > 0.0 and not self.contact.active:
            return "contact_inactive"
        return super().state(now)

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

    def status(self, qdd: np.ndarray | None, measured: np.ndarray | None, now: float) -> TaskStatus:
        """Status from the solved wrench (:attr:`solution`), not from q̈."""
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
        "wrench",
        WrenchTask,
        WrenchReference,
        rows=6,
        fields=("frame",),
        required=("frame",),
        target="wrench",
        unit="N|N·m",
        needs_contacts=True,
    )
)
