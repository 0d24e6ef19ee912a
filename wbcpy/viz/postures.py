"""Configurations to show: ``neutral``, a named SRDF posture (``half_sitting``...) or explicit values.

Named postures come from :meth:`RobotModel.reference_configuration` when the robot has it. Otherwise the
SRDF is looked up beside the URDF (``../srdf/*.srdf`` and the URDF's own folder, the file whose name is the
longest prefix of the URDF's name, or the only one) and read with Pinocchio's
``loadReferenceConfigurations`` into a copy of the model, so the robot itself is not modified.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pinocchio as pin

from .._validation import as_vector
from ..errors import UnknownNameError
from .description import urdf_file

__all__ = ["find_srdf", "parse_configuration", "reference_configuration"]


def find_srdf(urdf_path: Path | None) -> Path | None:
    """The SRDF that belongs to a URDF file, or None.

    Candidates are the ``.srdf`` files of ``<urdf folder>/../srdf`` and of the URDF's folder. The one whose
    stem is the longest prefix of the URDF's stem wins (``talos.srdf`` for ``talos_reduced.urdf``); a single
    candidate is taken as it is.
    """
    if urdf_path is None:
        return None
    folder = Path(urdf_path).resolve().parent
    candidates = sorted({*folder.glob("*.srdf"), *(folder.parent / "srdf").glob("*.srdf")})
    stem = Path(urdf_path).stem
    matching = [c for c in candidates if stem.startswith(c.stem)]
    if matching:
        return max(matching, key=lambda c: len(c.stem))
    return candidates[0] if len(candidates) == 1 else None


def reference_configuration(robot: Any, name: str) -> np.ndarray:
    """The SRDF posture ``name`` of ``robot`` as a configuration (nq).

    Raises:
        UnknownNameError: the robot has no such posture (the message lists those it has).
    """
    if callable(getattr(robot, "reference_configuration", None)):
        return np.array(robot.reference_configuration(name), dtype=float)
    model = pin.Model(robot.model)  # a copy: loading postures must not change the robot
    srdf = find_srdf(urdf_file(robot))
    if srdf is not None:
        try:
            pin.loadReferenceConfigurations(model, str(srdf), False)
        except (RuntimeError, ValueError):  # a broken SRDF: no postures, reported below
            model = pin.Model(robot.model)
    names = sorted(entry.key() for entry in model.referenceConfigurations)
    if name not in names:
        raise UnknownNameError("reference configuration", name, names)
    return np.array(model.referenceConfigurations[name], dtype=float)


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
        return reference_configuration(robot, spec)
    values = list(spec)
    if len(values) == 1 and isinstance(values[0], str):
        try:
            float(values[0])
        except ValueError:
            return parse_configuration(robot, values[0])
    q = as_vector(values, robot.model.nq, "q")
    if robot.model.nq != robot.model.nv:  # normalise quaternions and cos/sin pairs as Pinocchio expects
        q = np.array(pin.normalize(robot.model, q))
    return q
