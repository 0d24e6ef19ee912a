"""The base of tasks on a contact's wrench in an :class:`~wbcpy.scenes.InverseDynamicsScene`.

Such a task (``wrench``, ``cop``; its type is registered with ``needs_contacts=True``) acts on the wrench
variables of one contact, not on q̈. The scene builds it with the contact its config names (the field
:attr:`ContactTask.contact_field`), tells it where that contact's wrench sits among its variables at
every change of the active contacts (:meth:`ContactTask.bind`) and hands it every solution
(:meth:`ContactTask.set_solution`). A task whose contact is inactive contributes nothing (state
``"contact_inactive"``).

Wrench convention (``specs/contact-scene.md``): what the environment exerts on the robot, in the contact
frame's axes, about its origin; force over torque (6 entries) for a surface contact, the force (3) for a
point contact.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Protocol

import numpy as np
from numpy.typing import NDArray

from .status import TaskStatus
from .task import Task

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel
    from .config import TaskConfig


class TaskContact(Protocol):
    """What a contact task reads of its contact (a :class:`~wbcpy.contacts.SurfaceContact` or
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


class ContactTask(Task):
    """A task on one contact's wrench (see the module docstring).

    Attributes:
        frame: the contact frame.
        contact: the scene's contact object on that frame (its ``active`` flag is read).
        columns: the wrench's columns in the scene's variables, None while the contact is inactive.
        solution: the contact's wrench of the last solve (None while inactive or before a solve).
    """

    #: the config field that names the contact's frame
    contact_field: ClassVar[str] = "frame"

    def __init__(self, robot: RobotModel, config: TaskConfig, contact: TaskContact) -> None:
        super().__init__(robot, config)
        self.frame = contact.frame
        self.contact = contact
        self.columns: slice | None = None
        self.solution: NDArray[np.float64] | None = None

    @classmethod
    def contact_mismatch(cls, config: TaskConfig, contact: TaskContact) -> str | None:
        """Why ``contact`` cannot carry a task of this config (None: it can): a wrong wrench size, a
        point contact for a task that needs torques. Checked when the task is built and when the scene's
        contacts change."""
        return None

    def bind(self, contact: TaskContact, columns: slice | None) -> None:
        """Follow the scene's contacts: the contact object and its wrench columns (None: inactive)."""
        self.contact = contact
        if columns != self.columns:
            self._version += 1
        self.columns = columns

    def set_solution(self, x: NDArray[np.float64]) -> None:
        """Keep the contact's wrench from the scene's solved variables x = (q̈, wrenches)."""
        cols = self.columns
        self.solution = None if cols is None else x[cols].copy()

    def state(self, now: float) -> str:
        """As :meth:`Task.state`, and ``"contact_inactive"`` while the contact is lifted."""
        if self.activation > 0.0 and not self.contact.active:
            return "contact_inactive"
        return super().state(now)

    def solved_value(self) -> NDArray[np.float64] | None:
        """The task variable of the last solve (comparable with the reference), or None."""
        return None if self.solution is None else self.solution.copy()

    def status(self, qdd: np.ndarray | None, measured: np.ndarray | None, now: float) -> TaskStatus:
        """Status from the solved wrench (:attr:`solution`), not from q̈; ``y`` is None (a wrench is not
        measured)."""
        state = self.state(now)
        y_ref = None if self.reference is None else self._ref_acc.copy()
        y_sol = self.solved_value()
        error = None if y_ref is None or y_sol is None else y_ref - y_sol
        return TaskStatus(name=self.name, type=self.type, priority=self.priority, state=state,
                          activation=self.activation, weights=self.weights.copy(),
                          timed_out=state == "timed_out", y_ref=y_ref, y_solution=y_sol, y=None,
                          error=error)  # fmt: skip
