"""Joint torque (effort) limits of an inverse-dynamics scene: the ``effort_limits`` option.

``effort_limits`` is

* ``False`` (default): τ is unbounded;
* ``True``: |τ_j| ≤ the URDF effort limit of every actuated DOF (DOFs without one, or with a non-positive
  or non-finite one, are unbounded);
* a mapping ``{joint_name: limit}`` (N·m or N, > 0, inf allowed): those limits for the joints named, the
  URDF limit for the others. Keys are joint names or DOF names (``robot.dof_names``); a multi-DOF joint's
  name sets all its DOFs. A free-flyer has no actuator and cannot be named.

:func:`effort_limit_vector` turns the option into one limit per actuated DOF (inf = none) or None.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError, ConfigKeyError

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel


def _limit(value: Any, field: str) -> float:
    ok = not isinstance(value, bool) and isinstance(value, (int, float, np.floating, np.integer))
    if not ok or math.isnan(value) or value <= 0.0:
        raise ConfigError(field, f"must be a torque limit > 0 (N·m or N; inf: none), got {value!r}")
    return float(value)


def effort_limit_vector(robot: RobotModel, option: Any, actuated: np.ndarray) -> np.ndarray | None:
    """The |τ| limit of every actuated DOF (in ``actuated`` order), or None for ``effort_limits=False``.

    Args:
        robot: the robot (URDF limits: ``robot.effort_limit``, inf where there is none).
        option: ``False``, ``True`` or ``{joint_or_dof_name: limit}`` (see the module docstring).
        actuated: indices (in v) of the actuated DOFs.

    Returns:
        A new array of len(actuated) limits (inf = unbounded), or None when no limit applies.

    Raises:
        ConfigError: an option that is not a bool or a mapping, or a limit that is not a number > 0
            (field ``effort_limits[name]``).
        ConfigKeyError: a name that is not an actuated joint or DOF of the robot.
    """
    if isinstance(option, (bool, np.bool_)):
        return robot.effort_limit[actuated] if option else None
    if not isinstance(option, Mapping):
        raise ConfigError(
            "effort_limits", f"expected true, false or a mapping {{joint: limit}}, got {option!r:.80}"
        )
    limits: NDArray[np.float64] = robot.effort_limit[actuated]
    where = {int(v): k for k, v in enumerate(actuated)}
    index: dict[str, list[int]] = {}
    model = robot.model
    for jid in range(1, model.njoints):
        joint = model.joints[jid]
        dofs = [where[i] for i in range(joint.idx_v, joint.idx_v + joint.nv) if i in where]
        if dofs:
            index[model.names[jid]] = dofs
    for k, i in enumerate(actuated):
        index.setdefault(robot.dof_names[int(i)], [k])
    for name, value in option.items():
        if not isinstance(name, str) or name not in index:
            raise ConfigKeyError("effort_limits", "actuated joint", name, index)
        limits[index[name]] = _limit(value, f"effort_limits[{name}]")
    return limits
