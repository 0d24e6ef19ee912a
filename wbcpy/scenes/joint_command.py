"""JointCommand: the solver output of a scene as named joint accelerations (and torques)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import UnknownNameError, WbcpyError

__all__ = ["JointCommand", "NoSolutionError"]


class NoSolutionError(WbcpyError, RuntimeError):
    """The scene has no solver output yet (call ``update()`` and ``solve()`` first)."""

    def __init__(self, what: str = "solver output") -> None:
        self.what = what
        super().__init__(f"no {what} yet: call update() and solve() first")


@dataclass(slots=True)
class JointCommand:
    """Accelerations (and torques) of the actuated joints (floating-base DOFs excluded), in model order.

    Attributes:
        names: one name per actuated DOF.
        acceleration: q̈ of those DOFs (rad/s² or m/s²).
        effort: τ of those DOFs (N·m or N) from an ``InverseDynamicsScene``; None from scenes that do not
            compute torques (``AccelerationScene``).
    """

    names: list[str]
    acceleration: np.ndarray
    effort: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.names)

    def __getitem__(self, name: str) -> float:
        """Acceleration of the DOF ``name`` (unknown name → :class:`UnknownNameError`)."""
        try:
            return float(self.acceleration[self.names.index(name)])
        except ValueError:
            raise UnknownNameError("joint", name, self.names) from None

    def as_dict(self) -> dict[str, float]:
        """``{name: acceleration}``."""
        return dict(zip(self.names, self.acceleration.tolist(), strict=True))
