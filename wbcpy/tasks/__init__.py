"""Tasks of a scene: configuration, references, task rows and status (acceleration or velocity level).

* :class:`TaskConfig` — name, type (``jnt``/``cart``/``com``/``wrench`` or a registered type), priority,
  weights, activation, timeout, frames (wrench tasks are built by ``wbcpy.InverseDynamicsScene``).
* The task-type registry (:mod:`~wbcpy.tasks.registry`): :class:`TaskType`, :func:`register_task_type`,
  :func:`register_law` — a task type is one file plus one registration.
* :class:`JointReference`, :class:`CartesianReference`, :class:`ComReference` — acceleration references
  with optional position/velocity and a time stamp.
* :class:`JointTask`, :class:`CartesianTask`, :class:`ComTask`, :class:`WrenchTask`, :class:`MomentumTask`
  — the rows of each type (one file per type: ``joint_task.py``, ``cartesian_task.py``, ``com_task.py``,
  ``wrench_task.py``, ``momentum_task.py``; :class:`MomentumReference` is the momentum task's reference).
* :class:`TaskStatus`, :class:`TasksStatus` — y_ref, y_solution, y and errors for every task.
"""

from __future__ import annotations

from .cartesian_task import CartesianTask
from .com_task import ComTask
from .config import TASK_TYPES, TaskConfig
from .joint_task import JointTask
from .momentum_task import MomentumReference, MomentumTask
from .references import (
    CartesianReference,
    ComReference,
    JointReference,
    Reference,
    ReferenceTypeError,
    VectorReference,
    WrenchReference,
)
from .registry import (
    TaskType,
    make_task,
    register_law,
    register_task_type,
    task_type,
    task_types,
    unregister_task_type,
)
from .status import TasksStatus, TaskStatus
from .task import TASK_LEVELS, Task
from .wrench_task import WrenchTask

__all__ = [
    "TASK_LEVELS",
    "TASK_TYPES",
    "CartesianReference",
    "CartesianTask",
    "ComReference",
    "ComTask",
    "JointReference",
    "JointTask",
    "MomentumReference",
    "MomentumTask",
    "Reference",
    "ReferenceTypeError",
    "Task",
    "TaskConfig",
    "TaskStatus",
    "TaskType",
    "TasksStatus",
    "VectorReference",
    "WrenchReference",
    "WrenchTask",
    "make_task",
    "register_law",
    "register_task_type",
    "task_type",
    "task_types",
    "unregister_task_type",
]
