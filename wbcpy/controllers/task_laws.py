"""Generic laws for any task whose variable is a vector x (target kind ``vector`` of the task-type
registry, :mod:`wbcpy.tasks.registry`): the COM task, and every vector task type registered later.

* :class:`TaskPD` — a = K_ff a_d + K_d (v_d − ẋ) + K_p (x_d − x) (acceleration scenes);
* :class:`~wbcpy.controllers.TaskVelocityLaw` — ẋ_ref = K_ff ẋ_d + K_p (x_d − x) (velocity scenes),

with x = ``task.position()`` and ẋ = ``task.velocity()`` read from the task, the number of axes that of
the task, and the reference built as the task type's registered reference class. A type that registers
laws of its own (:func:`~wbcpy.tasks.register_law`) takes those instead; :func:`law_for` says which.
"""

from __future__ import annotations

from typing import Any

from ..tasks import Task, VectorReference, task_type
from ._base import VectorPD
from .velocity_laws import TaskVelocityLaw


class TaskPD(VectorPD[Task, VectorReference]):
    """PD law on a vector task's own variable x: a = K_ff a_d + K_d (v_d − ẋ) + K_p (x_d − x).

    Gains are scalars or one value per task row; ``max_acceleration`` optionally scales the output so
    that |a_i| ≤ max_i (direction kept). :meth:`reference` builds the task type's reference class.
    """


#: the generic law of a vector task type per scene level
_GENERIC: dict[str, type[Any]] = {"acceleration": TaskPD, "velocity": TaskVelocityLaw}


def law_for(type_name: str, level: str) -> type[Any] | None:
    """The law class that tasks of ``type_name`` take in a scene working at ``level``: the registered one,
    else the generic law of a ``vector`` type, else None (a ``wrench`` task takes no law).

    Raises:
        ConfigKeyError: an unknown task type.
    """
    spec = task_type(type_name)
    law = spec.law(level)
    if law is None and spec.target == "vector":
        law = _GENERIC.get(level)
    return law


def laws_taken(type_name: str, level: str) -> tuple[type[Any], ...]:
    """Every law class a binding accepts for tasks of ``type_name`` at ``level``: the type's own law (if
    registered) and, for a ``vector`` type, the generic one unless the own law is ``exclusive`` (a class
    attribute: :class:`~wbcpy.controllers.MomentumVelocityLaw`); empty for a type that takes no law.

    Raises:
        ConfigKeyError: an unknown task type.
    """
    spec = task_type(type_name)
    own = spec.law(level)
    if own is not None and getattr(own, "exclusive", False):  # (the generic law means nothing there)
        return (own,)
    generic = _GENERIC.get(level) if spec.target == "vector" else None
    return tuple(cls for cls in (own, generic) if cls is not None and (cls is not generic or own is not cls))
