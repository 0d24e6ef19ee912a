"""Tasks of a scene: configuration, references, task rows and status (acceleration or velocity level).

* :class:`TaskConfig` — name, type (``jnt``/``cart``/``com``/``wrench``), priority, weights, activation,
  timeout, frames (wrench tasks are built by ``wbcpy.scenes.InverseDynamicsScene``).
* :class:`JointReference`, :class:`CartesianReference`, :class:`ComReference` — acceleration references
  with optional position/velocity and a time stamp.
* :class:`JointTask`, :class:`CartesianTask`, :class:`ComTask` — the rows A q̈ ≈ y of each type.
* :class:`TaskStatus`, :class:`TasksStatus` — y_ref, y_solution, y and errors for every task.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..errors import ConfigError
from .cartesian_task import CartesianTask
from .com_task import ComTask
from .config import TASK_TYPES, TaskConfig
from .joint_task import JointTask
from .references import (
    CartesianReference,
    ComReference,
    JointReference,
    Reference,
    ReferenceTypeError,
)
from .status import TasksStatus, TaskStatus
from .task import TASK_LEVELS, Task

__all__ = [
    "TASK_LEVELS",
    "TASK_TYPES",
    "CartesianReference",
    "CartesianTask",
    "ComReference",
    "ComTask",
    "JointReference",
    "JointTask",
    "Reference",
    "ReferenceTypeError",
    "Task",
    "TaskConfig",
    "TaskStatus",
    "TasksStatus",
    "make_task",
]

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel

#: task type -> class; each is called as ``cls(robot, config, prefix, level)``
_TASK_CLASSES: dict[str, Callable[[RobotModel, TaskConfig, str, str], Task]] = {
    "jnt": JointTask,
    "cart": CartesianTask,
    "com": ComTask,
}


def make_task(robot: RobotModel, config: TaskConfig, prefix: str = "", level: str = "acceleration") -> Task:
    """Build the task object of ``config`` for ``robot`` (robot-dependent checks happen here), working at
    ``level`` (``"acceleration"`` or ``"velocity"``, the scene's decision variable).

    Raises:
        ConfigError: a ``wrench`` task (it needs the contacts of an ``InverseDynamicsScene``, which
            builds it) or any robot-dependent check.
    """
    if config.type not in _TASK_CLASSES:
        raise ConfigError(f"{prefix}type", f"{config.type} tasks need an InverseDynamicsScene (contacts)")
    return _TASK_CLASSES[config.type](robot, config, prefix, level)
