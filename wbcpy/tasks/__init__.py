"""Tasks of a scene: configuration, references, task rows and status (acceleration or velocity level).

* :class:`TaskConfig` — name, type, priority, weights, activation, timeout, and the fields of the type
  (:class:`TaskField` declarations, :mod:`~wbcpy.tasks.fields`).
* The task-type registry (:mod:`~wbcpy.tasks.registry`): :class:`TaskType`, :func:`register_task_type`,
  :func:`register_law` — a task type is one file plus one registration.
* The types: ``jnt``, ``cart``, ``com``, ``momentum``, ``axis``, ``distance``, ``kinetic_energy`` (every
  scene); ``wrench``, ``cop`` and ``torque`` (built by ``wbcpy.scenes.InverseDynamicsScene``).
* :class:`JointReference`, :class:`CartesianReference`, :class:`ComReference` — acceleration references
  with optional position/velocity and a time stamp.
* :class:`JointTask`, :class:`CartesianTask`, :class:`ComTask`, :class:`WrenchTask`, :class:`MomentumTask`,
  :class:`AxisTask`, :class:`DistanceTask`, :class:`KineticEnergyTask`, :class:`TorqueTask`,
  :class:`CopTask` — the rows of each type, one file per type with its reference class.
* :class:`TaskStatus`, :class:`TasksStatus` — y_ref, y_solution, y and errors for every task.
"""

from __future__ import annotations

from .axis_task import AxisReference, AxisTask
from .cartesian_task import CartesianTask
from .com_task import ComTask
from .config import TASK_TYPES, TaskConfig
from .cop_task import CopReference, CopTask
from .distance_task import DistanceReference, DistanceTask
from .fields import TaskField
from .joint_task import JointTask
from .kinetic_energy_task import KineticEnergyReference, KineticEnergyTask
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
from .torque_task import TorqueReference, TorqueTask
from .wrench_task import WrenchTask

__all__ = [
    "TASK_LEVELS",
    "TASK_TYPES",
    "AxisReference",
    "AxisTask",
    "CartesianReference",
    "CartesianTask",
    "ComReference",
    "ComTask",
    "CopReference",
    "CopTask",
    "DistanceReference",
    "DistanceTask",
    "JointReference",
    "JointTask",
    "KineticEnergyReference",
    "KineticEnergyTask",
    "MomentumReference",
    "MomentumTask",
    "Reference",
    "ReferenceTypeError",
    "Task",
    "TaskConfig",
    "TaskField",
    "TaskStatus",
    "TaskType",
    "TasksStatus",
    "TorqueReference",
    "TorqueTask",
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
