"""Collision avoidance on Pinocchio geometry (coal distances): configuration, geometry, pairs and rows.

The names are public in :mod:`wbcpy.collision`; the modules here define them:

* :mod:`~wbcpy.limits.collision.avoidance` — :class:`~wbcpy.collision.CollisionAvoidance`: which pairs
  to keep apart ("self" or named pairs), world obstacles (:mod:`~wbcpy.limits.collision.shapes`:
  :class:`~wbcpy.collision.Obstacle` with a :class:`~wbcpy.collision.Sphere`,
  :class:`~wbcpy.collision.Box` or :class:`~wbcpy.collision.Capsule`), safety and influence distances,
  damper gain; robot-independent and validated on construction.
* :mod:`~wbcpy.limits.collision.constraint` — :class:`~wbcpy.collision.CollisionConstraint`: for one
  robot, the URDF's collision geometry, the selected pairs (:mod:`~wbcpy.limits.collision.pairs`) and, per
  step, the velocity-damper rows C q̇ ≥ lower of the pairs within the influence distance.
* :mod:`~wbcpy.limits.collision.acceleration` — :class:`~wbcpy.collision.AccelerationCollisionConstraint`:
  the same pairs as rows on q̈ for acceleration and inverse-dynamics scenes, a velocity damper that holds
  for the scene's step dt (semi-implicit Euler).
* :mod:`~wbcpy.limits.collision.geometry` — :func:`~wbcpy.collision.load_collision_geometry`: the
  geometry they use (URDF, meshes and SRDF are found by :mod:`wbcpy.description.robot_files`).
"""
