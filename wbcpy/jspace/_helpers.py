"""Helpers of :class:`~wbcpy.jspace.Model`: State vectors validated off the hot path, consistent reads.

* :func:`state_vectors` validates a State's position and velocity when they are not the float64 arrays of
  the hot path (lists, other dtypes, an empty velocity meaning zero);
* :func:`one_state` repeats several robot reads until no other thread published a state during them;
* :func:`point` reads a 3-vector given as one vector or as three floats.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from .._support.validation import as_vector, check_state
from ..errors import InvalidValueError
from ..model.robot_model import RobotModel

_T = TypeVar("_T")


def check_state_pair(position: np.ndarray, velocity: np.ndarray) -> None:
    check_state(position, "state.position")
    check_state(velocity, "state.velocity")


def state_vectors(pos: Any, vel: Any, n: int) -> tuple[np.ndarray, np.ndarray]:
    """New validated (position, velocity) from anything else than float64 arrays of size n."""
    position = as_vector(pos, n, "state.position")
    empty = (isinstance(vel, np.ndarray) and vel.size == 0) or (isinstance(vel, (list, tuple)) and not vel)
    velocity = np.zeros(n) if empty else as_vector(vel, n, "state.velocity")
    check_state_pair(position, velocity)
    return position, velocity


def one_state(robot: RobotModel, read: Callable[[], _T]) -> _T:
    """``read()`` (several robot reads) repeated until no other thread published a state during it.

    A state is published once with a unique id, so an unchanged :attr:`RobotModel.state_id` around the
    reads means every read saw the same state.
    """
    while True:
        sid = robot.state_id
        out = read()
        if robot.state_id == sid:
            return out


def point(x: Any, y: float | None, z: float | None, name: str) -> np.ndarray:
    """A 3-vector from ``x`` alone (a vector) or from three floats ``x, y, z``."""
    if y is None and z is None:
        return as_vector(x, 3, name)
    if y is None or z is None or x is None:
        raise InvalidValueError(name, (3,), None, reason="give a 3-vector or three floats x, y, z")
    return as_vector((x, y, z), 3, name)
