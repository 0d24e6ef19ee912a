"""The robot model: one Pinocchio model and data, a validated state and per-state caches.

* :class:`~wbcpy.RobotModel` (:mod:`~wbcpy.model.robot_model`, public as ``wbcpy.RobotModel``) — load a
  URDF, set ``(q, v)``, read frames, Jacobians, M, M⁻¹, g, b, COM; its views, caches, name tables and
  Pinocchio binding probes live in the modules beside it (:mod:`~wbcpy.model._views`,
  :mod:`~wbcpy.model._cache`, :mod:`~wbcpy.model._names`, :mod:`~wbcpy.model._pin_bindings`,
  :mod:`~wbcpy.model._dof_map`, :mod:`~wbcpy.model._poses`); :class:`RobotState` — one state of it.
* :class:`MimicJoint` — a URDF ``<mimic>`` joint that follows another (``RobotModel.mimic_joints``).
* :class:`~wbcpy.Chain` (:mod:`~wbcpy.model.chain`, public as ``wbcpy.Chain``) — a serial base → tip
  view on chain-local joint vectors; :func:`pose7_from_se3`, :func:`se3_from_pose7` and
  :func:`rotation_from_axis_angle` convert its iKin pose vectors ``(x, y, z, axis, angle)``.
* The robot registry (:mod:`~wbcpy.model.registry`, public as :mod:`wbcpy.robots`, with
  ``wbcpy.load_robot`` and ``wbcpy.available_robots``) — names that resolve to URDF files.

Layer: above :mod:`wbcpy.description` (files) and :mod:`wbcpy._support`; below tasks, limits, contacts,
scenes and the facades.
"""

from __future__ import annotations

from ._cache import RobotState
from ._names import MimicJoint
from ._poses import pose7_from_se3, rotation_from_axis_angle, se3_from_pose7

__all__ = ["MimicJoint", "RobotState", "pose7_from_se3", "rotation_from_axis_angle", "se3_from_pose7"]
