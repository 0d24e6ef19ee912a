"""The robot model: one Pinocchio model and data, a validated state and per-state caches.

* :class:`RobotModel` (:mod:`~wbcpy.model.robot_model`) — load a URDF, set ``(q, v)``, read frames,
  Jacobians, M, M⁻¹, g, b, COM; its views, caches, name tables and Pinocchio binding probes live in the
  modules beside it (:mod:`~wbcpy.model._views`, :mod:`~wbcpy.model._cache`, :mod:`~wbcpy.model._names`,
  :mod:`~wbcpy.model._pin_bindings`, :mod:`~wbcpy.model._dof_map`, :mod:`~wbcpy.model._poses`).
* :class:`MimicJoint` — a URDF ``<mimic>`` joint that follows another (``RobotModel.mimic_joints``).
* :class:`Chain` (:mod:`~wbcpy.model.chain`) — a serial base → tip view on chain-local joint vectors.
* The robot registry (:mod:`~wbcpy.model.registry`, public as :mod:`wbcpy.robots`) — names that resolve
  to URDF files: :func:`load_robot`, :func:`available`.

Layer: above :mod:`wbcpy.description` (files) and :mod:`wbcpy._support`; below tasks, limits, contacts,
scenes and the facades.
"""

from __future__ import annotations

from ._names import MimicJoint
from .chain import Chain
from .registry import available, load_robot
from .robot_model import RobotModel

__all__ = ["Chain", "MimicJoint", "RobotModel", "available", "load_robot"]
