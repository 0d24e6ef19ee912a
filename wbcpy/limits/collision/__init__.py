"""Collision avoidance on Pinocchio geometry (coal distances): configuration, geometry, pairs and rows.

* :class:`CollisionAvoidance` — which pairs to keep apart ("self" or named pairs), world obstacles
  (:class:`Obstacle` with a :class:`Sphere`, :class:`Box` or :class:`Capsule`), safety and influence
  distances, damper gain; robot-independent and validated on construction.
* :class:`CollisionConstraint` — for one robot: the URDF's collision geometry, the selected pairs and, per
  step, the velocity-damper rows C q̇ ≥ lower of the pairs within the influence distance.
* :class:`AccelerationCollisionConstraint` — the same pairs as rows on q̈ for acceleration and
  inverse-dynamics scenes: a velocity damper that holds for the scene's step dt (semi-implicit Euler).
* :func:`load_collision_geometry` — the geometry they use (URDF, meshes and SRDF are found by
  :mod:`wbcpy.description.robot_files`).
"""

from __future__ import annotations

from .acceleration import AccelerationCollisionConstraint
from .avoidance import SELF, CollisionAvoidance
from .constraint import CollisionConstraint, CollisionPairStatus
from .geometry import load_collision_geometry
from .shapes import Box, Capsule, Obstacle, Shape, Sphere

__all__ = [
    "SELF",
    "AccelerationCollisionConstraint",
    "Box",
    "Capsule",
    "CollisionAvoidance",
    "CollisionConstraint",
    "CollisionPairStatus",
    "Obstacle",
    "Shape",
    "Sphere",
    "load_collision_geometry",
]
