"""Configurations to show: ``neutral``, a named SRDF posture (``half_sitting``...) or explicit values.

Named postures come from :meth:`RobotModel.reference_configuration` (the robot's SRDF).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pinocchio as pin

from .._support.validation import as_vector
from ..errors import InvalidValueError


def _number(text: Any, k: int) -> Any:
    if not isinstance(text, str):
        return text
    try:
        return float(text)
    except ValueError:
        why = f"entry {k} is not a number: {text[:40]!r}"
        raise InvalidValueError("q", "numbers", None, reason=why) from None


def parse_configuration(robot: Any, spec: str | Sequence[Any] | None) -> np.ndarray:
    """A configuration (nq) from a command-line style specification.

    Args:
        robot: the robot.
        spec: None or ``"neutral"`` (Pinocchio's neutral configuration), a posture name of the robot's SRDF,
            or nq numbers (strings or floats; for a free-flyer x y z qx qy qz qw first).

    Raises:
        UnknownNameError: an unknown posture name.
        InvalidValueError: the wrong number of values, a value that is not a number, NaN or inf.
    """
    if spec is None or (isinstance(spec, str) and spec == "neutral"):
        return np.array(pin.neutral(robot.model))
    if isinstance(spec, str):
        return np.array(robot.reference_configuration(spec), dtype=float)
    values = list(spec)
    if len(values) == 1 and isinstance(values[0], str):
        try:
            float(values[0])
        except ValueError:
            return parse_configuration(robot, values[0])
    q = as_vector([_number(v, k) for k, v in enumerate(values)], robot.model.nq, "q")
    if robot.model.nq != robot.model.nv:  # normalise quaternions and cos/sin pairs as Pinocchio expects
        q = np.array(pin.normalize(robot.model, q))
    return q
