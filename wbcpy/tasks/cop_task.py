"""Centre-of-pressure task (``type: cop``): a surface contact's CoP tracks a :class:`CopReference`.

The CoP of a surface contact's wrench w = (f, τ) (contact-frame axes, about its origin, exerted on the
robot; ``specs/contact-scene.md``) is the point of the sole plane where the torque's tangential part
vanishes:

.. math::

    c = \\left(-\\frac{τ_y}{f_z},\\; \\frac{τ_x}{f_z}\\right) \\quad \\text{(m, contact axes)}.

Asking c = c* is non-linear in w, but equivalent for f_z > 0 to two rows linear in w:

.. math::

    τ_y + c^*_x f_z = 0, \\qquad τ_x - c^*_y f_z = 0,

which the task adds over its contact's wrench columns of an :class:`~wbcpy.scenes.InverseDynamicsScene`
(target 0; the rows change with the reference, not with the state). The residuals are torques (N·m):
the cost a · Σ_k w_k r_k² weighs a CoP error δc as (f_z δc)², so a heavily loaded foot's CoP counts more.
A CoP outside the sole cannot be met (the contact wrench cone keeps it inside): the least-squares answer
then lies on the sole's edge.

Status: ``y_ref`` is c*, ``y_solution`` the CoP of the solved wrench (None when its f_z ≤ 0), ``y`` None.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError
from .config import TaskConfig
from .contact_task import ContactTask, TaskContact
from .fields import frame_field
from .references import TargetReference, check_reference_class
from .registry import TaskType, register_task_type

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel

#: entries of a surface contact's wrench (force over torque)
_FZ, _TX, _TY = 2, 3, 4


@dataclass
class CopReference(TargetReference):
    """Reference of a ``cop`` task.

    Attributes:
        target: c* = (c_x, c_y), the CoP in the contact frame's x and y axes (m, from its origin).
        time: time stamp on the scene clock (s); ``None`` = when set.
    """


def center_of_pressure(wrench: NDArray[np.float64]) -> NDArray[np.float64] | None:
    """The CoP (−τ_y/f_z, τ_x/f_z) of a surface contact's wrench (m, contact axes), None for f_z ≤ 0."""
    fz = float(wrench[_FZ])
    if not fz > 0.0:
        return None
    return np.array((-wrench[_TY] / fz, wrench[_TX] / fz))


class CopTask(ContactTask):
    """Track the CoP of a surface contact (see the module docstring).

    Attributes:
        frame: the contact frame (the config's ``contact``).
        contact, columns, solution: as :class:`~wbcpy.tasks.contact_task.ContactTask`.
    """

    type = "cop"
    contact_field = "contact"
    config_fields = (frame_field("contact", required=True, doc="the frame of a surface contact"),)

    def __init__(self, robot: RobotModel, config: TaskConfig, contact: TaskContact, prefix: str = "") -> None:
        """Raises ConfigError: a point contact (field ``contact``)."""
        reason = self.contact_mismatch(config, contact)
        if reason is not None:
            raise ConfigError(f"{prefix}{self.contact_field}", reason)
        super().__init__(robot, config, contact)
        self._A = np.zeros((2, contact.size))  # rows over the contact's wrench: (fx fy fz tx ty tz)
        self._A[0, _TY] = 1.0
        self._A[1, _TX] = 1.0

    @classmethod
    def contact_mismatch(cls, config: TaskConfig, contact: TaskContact) -> str | None:
        """A point contact (it has no torques, hence no CoP)."""
        if contact.type != "surface":
            return f"a CoP needs a surface contact; {contact.frame!r} has a {contact.type} contact"
        return None

    # ------------------------------------------------------------------ references
    def validate_reference(self, ref: Any) -> CopReference:  # type: ignore[override]
        """A validated copy of a :class:`CopReference` (2 finite numbers).

        Raises:
            ReferenceTypeError: not a CopReference (also a TypeError).
            InvalidValueError: a wrong size, NaN/inf or an invalid time stamp.
        """
        check_reference_class(ref, CopReference, self.name, self.type)
        return cast(CopReference, ref.validated(2, self.name))  # (validated keeps the class)

    # ------------------------------------------------------------------ rows
    def compute(self) -> None:
        """The rows (τ_y + c*_x f_z, τ_x − c*_y f_z) for the current reference; bias 0."""
        c = self._ref_acc
        self._A[0, _FZ] = c[0]
        self._A[1, _FZ] = -c[1]

    def defer_compute(self) -> None:
        """The rows depend on the reference only: computed when read."""
        self.compute()

    def write_rows(self, A_out: NDArray[np.float64], y_out: NDArray[np.float64]) -> None:
        """The weighted rows √(a·w)·A over the contact's wrench columns; targets 0."""
        rows = self._rows
        np.multiply(self._A[rows], self._sw_col, A_out)
        y_out[:] = 0.0

    def solved_value(self) -> NDArray[np.float64] | None:
        """The CoP of the solved wrench (None when there is none or its f_z ≤ 0)."""
        return None if self.solution is None else center_of_pressure(self.solution)


register_task_type(
    TaskType(
        "cop",
        CopTask,
        CopReference,
        rows=2,
        target="value",
        acceleration_field="target",
        unit="m",
        needs_contacts=True,
    )
)
