"""The plant protocol: what a closed loop (:func:`wbcpy.locomotion.walk`) needs of the simulated robot.

Two plants satisfy it: :class:`~wbcpy.sim.contact_plant.ContactPlant` (Pinocchio's rigid contacts,
``name == "pinocchio"``) and :class:`~wbcpy.sim.mujoco.MujocoPlant` (MuJoCo's soft contacts,
``name == "mujoco"``). A user's own plant satisfies it when it has these members (``isinstance(obj,
Plant)`` checks their presence, not their behaviour). One control period::

    q, v = plant.state()                  # measured state (Pinocchio's conventions)
    tau = controller(q, v)                # torques of the actuated DOFs
    plant.apply(tau)                      # integrates one control period (substeps inside)
    plant.contact_wrenches()              # {contact frame: wrench} of that period
    plant.active_contacts()               # the contact frames that carried load in it

Conventions (``specs/mujoco.md``): q, v as Pinocchio's (a free-flyer's x, y, z, qx, qy, qz, qw and its
velocity in the body's axes); τ of every DOF but the free-flyer's, in v order; a contact wrench is what
the environment exerts on the robot, in the contact frame's axes, about its origin, force over torque
(6 entries; 3, the force, for a point contact); a push vector is in world axes.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._support.validation import as_vector
from ..errors import ConfigError, UnknownNameError

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel


@runtime_checkable
class Plant(Protocol):
    """A simulated robot driven by joint torques, one control period at a time (module docstring).

    Attributes:
        name: which engine (``"pinocchio"``, ``"mujoco"``, ...): recorded in walk logs.
        dt: the control period (s): :meth:`apply` advances the time by it.
        contact_frames: the frames whose contact wrenches the plant reports, in a fixed order.
    """

    name: str
    dt: float
    contact_frames: tuple[str, ...]

    @property
    def time(self) -> float:
        """Simulated time (s)."""

    @property
    def contact_options(self) -> dict[str, Any]:
        """How the plant models contacts (plain numbers, strings, lists: recorded in walk logs)."""

    def state(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """The measured state (q, v) now, new arrays in Pinocchio's conventions."""

    def apply(self, tau: ArrayLike) -> None:
        """Hold the torques τ of the actuated DOFs (v order, free-flyer excluded) for one control period
        and integrate it (the plant's own time steps inside).

        Raises:
            InvalidValueError: a wrongly sized or non-finite τ (nothing integrated).
        """

    def contact_wrenches(self) -> dict[str, NDArray[np.float64]]:
        """``{frame: wrench}`` over the last period for every contact frame (zeros when it carried none)."""

    def active_contacts(self) -> list[str]:
        """The contact frames that carried a contact force in the last period, in ``contact_frames`` order."""

    def push(self, vector: ArrayLike, frame: str | None = None, duration: float = 0.0) -> None:
        """Push the robot at the origin of ``frame`` (None: the floating base) along ``vector`` (world axes):
        an impulse (N·s) now when ``duration`` is 0, else a force (N) held for ``duration`` seconds from now.

        Raises:
            InvalidValueError: not 3 finite numbers; ConfigError: a negative or non-finite duration;
            UnknownNameError: an unknown frame.
        """


def push_arguments(
    robot: RobotModel, vector: Any, frame: Any, duration: Any
) -> tuple[NDArray[np.float64], str, float]:
    """The checked arguments of :meth:`Plant.push`: the vector (3, a new array), the frame (for None, the
    floating base's joint frame, named as the free-flyer joint) and the duration (s).

    Raises:
        InvalidValueError: not 3 finite numbers. ConfigError: a negative or non-finite duration, or
            ``frame=None`` on a robot without a floating base. UnknownNameError: an unknown frame.
    """
    p = as_vector(vector, 3, "vector")
    ok = not isinstance(duration, bool) and isinstance(duration, (int, float)) and math.isfinite(duration)
    if not ok or duration < 0:
        raise ConfigError("duration", f"must be a finite number ≥ 0 (s), got {duration!r}")
    model = robot.model
    if frame is None:
        if not robot.floating_base:
            raise ConfigError("frame", "the robot has no floating base: name the frame to push")
        frame = model.names[1]
    elif not isinstance(frame, str) or not model.existFrame(frame):
        raise UnknownNameError("frame", frame, [f.name for f in model.frames])
    return p.copy(), str(frame), float(duration)
