"""Limits a scene enforces as hard constraints.

* :class:`JointLimitBounds` — joint position, velocity and acceleration limits as bounds on q̈ over one
  control step (:mod:`~wbcpy.limits.joint_limits`);
* :class:`VelocityLimitBounds` — joint position and velocity limits as bounds on q̇
  (:mod:`~wbcpy.limits.velocity_limits`);
* :func:`effort_limit_vector` — joint torque limits of an inverse-dynamics scene
  (:mod:`~wbcpy.limits.effort_limits`);
* :mod:`wbcpy.limits.collision` — collision avoidance (public as :mod:`wbcpy.collision`).

Layer: reads the robot model; scenes use it.
"""

from __future__ import annotations

from .effort_limits import effort_limit_vector
from .joint_limits import DEFAULT_ACCELERATION_FACTOR, JointLimitBounds
from .velocity_limits import VelocityLimitBounds

__all__ = ["DEFAULT_ACCELERATION_FACTOR", "JointLimitBounds", "VelocityLimitBounds", "effort_limit_vector"]
