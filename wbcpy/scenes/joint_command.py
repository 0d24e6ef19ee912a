"""JointCommand: the solver output of a scene as named joint accelerations or velocities (and torques)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import UnknownNameError, WbcpyError


class NoSolutionError(WbcpyError, RuntimeError):
    """The scene has no solver output yet (call ``update()`` and ``solve()`` first)."""

    def __init__(self, what: str = "solver output") -> None:
        self.what = what
        super().__init__(f"no {what} yet: call update() and solve() first")


@dataclass(slots=True)
class JointCommand:
    """Accelerations (AccelerationScene) or velocities (VelocityScene) of the actuated joints
    (floating-base DOFs excluded), in model order.

    Attributes:
        names: one name per actuated DOF.
        acceleration: q̈ of those DOFs (rad/s² or m/s²), or None for a velocity command.
        velocity: q̇ of those DOFs (rad/s or m/s), or None for an acceleration command.
        effort: τ of those DOFs (N·m or N) from an ``InverseDynamicsScene``; None from scenes that do not
            compute torques.
    """

    names: list[str]
    acceleration: np.ndarray | None = None
    velocity: np.ndarray | None = None
    effort: np.ndarray | None = None

    @property
    def values(self) -> np.ndarray:
        """The commanded quantity: :attr:`acceleration` when set, else :attr:`velocity` (not a copy)."""
        values = self.acceleration if self.acceleration is not None else self.velocity
        if values is None:
            raise NoSolutionError("command value")
        return values

    def __len__(self) -> int:
        return len(self.names)

    def __getitem__(self, name: str) -> float:
        """The commanded value (:attr:`values`) of the DOF ``name`` (unknown → :class:`UnknownNameError`)."""
        try:
            return float(self.values[self.names.index(name)])
        except ValueError:
            raise UnknownNameError("joint", name, self.names) from None

    def as_dict(self) -> dict[str, float]:
        """``{name: value}`` of :attr:`values`."""
        return dict(zip(self.names, self.values.tolist(), strict=True))
