"""Collision avoidance (public path): configuration, geometry, pairs and rows. Defined in
:mod:`wbcpy.limits.collision`."""

from __future__ import annotations

from .limits.collision import (
    SELF,
    Box,
    Capsule,
    CollisionAvoidance,
    CollisionConstraint,
    CollisionPairStatus,
    Obstacle,
    Shape,
    Sphere,
    load_collision_geometry,
)

__all__ = [
    "SELF",
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
