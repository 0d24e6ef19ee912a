"""Feedback laws that turn targets into references for scene tasks: PD laws (acceleration references,
:class:`~wbcpy.AccelerationScene`) and velocity laws (:class:`~wbcpy.VelocityScene`).

* :class:`JointPD` → :class:`~wbcpy.tasks.JointReference`
* :class:`CartesianPD` → :class:`~wbcpy.tasks.CartesianReference` (pose error (Δp, log₃(R_d Rᵀ)))
* :class:`ComPD` → :class:`~wbcpy.tasks.ComReference`
* :class:`MomentumPD` → :class:`~wbcpy.tasks.MomentumReference` (ḣ* = ḣ_d + K_d (h_d − h))

All follow a = K_ff a_d + K_d (v_d − v) + K_p e with scalar or per-axis gains and an optional
direction-keeping saturation. The velocity laws :class:`JointVelocityLaw`, :class:`CartesianVelocityLaw`
and :class:`ComVelocityLaw` (:mod:`~wbcpy.controllers.velocity_laws`) give v = K_ff v_d + K_p e with the
same errors e; :class:`MomentumVelocityLaw` gives a velocity scene's momentum task h* = K_ff h_d.

A task type registered later (:mod:`wbcpy.tasks.registry`) whose target is a vector takes the generic
laws :class:`TaskPD` and :class:`TaskVelocityLaw` (:mod:`~wbcpy.controllers.task_laws`), unless it
registers its own; :func:`law_for` names the law a task type takes at a scene level.

Every law's ``reference(task, target)`` and every scene binding evaluate the law through a
:class:`LawEvaluator` (:mod:`~wbcpy.controllers.evaluation`): one implementation of both reference APIs.
"""

from __future__ import annotations

from .cartesian_pd import CartesianPD, pose_error
from .com_pd import ComPD
from .evaluation import LawEvaluator
from .joint_pd import JointPD
from .momentum_pd import MomentumPD, MomentumVelocityLaw
from .task_laws import TaskPD, law_for, laws_taken
from .velocity_laws import (
    CartesianVelocityLaw,
    ComVelocityLaw,
    JointVelocityLaw,
    TaskVelocityLaw,
    VelocityLaw,
)

__all__ = [
    "CartesianPD",
    "CartesianVelocityLaw",
    "ComPD",
    "ComVelocityLaw",
    "JointPD",
    "JointVelocityLaw",
    "LawEvaluator",
    "MomentumPD",
    "MomentumVelocityLaw",
    "TaskPD",
    "TaskVelocityLaw",
    "VelocityLaw",
    "law_for",
    "laws_taken",
    "pose_error",
]
