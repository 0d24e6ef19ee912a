"""Contacts of an inverse-dynamics scene.

* :class:`SurfaceContact`, :class:`PointContact` (both a :class:`Contact`) — the contacts
  (:mod:`~wbcpy.contacts.contacts`); the reference of a wrench task on one is a
  :class:`~wbcpy.tasks.WrenchReference`;
* :class:`ContactConstraints` — the hard rows of the equations of motion, the rigid contacts and the
  friction cones, assembled from the robot's per-state caches (:mod:`~wbcpy.contacts.constraints`);
* :func:`surface_wrench_cone`, :func:`point_friction_pyramid` — friction cones as ``U w ≤ 0``
  (:mod:`~wbcpy.contacts.wrench_cone`).

Layer: reads the robot model and the limits; scenes and the contact simulation use it.
"""

from __future__ import annotations

from .constraints import ContactConstraints, ContactLayout
from .contacts import Contact, PointContact, SurfaceContact
from .wrench_cone import point_friction_pyramid, surface_wrench_cone

__all__ = [
    "Contact",
    "ContactConstraints",
    "ContactLayout",
    "PointContact",
    "SurfaceContact",
    "point_friction_pyramid",
    "surface_wrench_cone",
]
