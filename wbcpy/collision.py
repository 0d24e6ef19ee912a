"""Collision avoidance (public path): configuration, geometry, pairs and rows. Defined in
:mod:`wbcpy.limits.collision`."""

from __future__ import annotations

from .limits.collision.acceleration import AccelerationCollisionConstraint
from .limits.collision.avoidance import SELF, CollisionAvoidance
from .limits.collision.constraint import CollisionConstraint, CollisionPairStatus
from .limits.collision.geometry import load_collision_geometry
from .limits.collision.shapes import Box, Capsule, Obstacle, Shape, Sphere

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
