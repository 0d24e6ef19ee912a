"""Robot descriptions: reading URDF files, checking them, SRDF postures and where the files are.

* :mod:`~wbcpy.description._urdf_loading` — read a URDF, check it and parse it into a ``pin.Model``;
* :mod:`~wbcpy.description.urdf_checks` — XML, tree structure, numbers and size, before Pinocchio parses;
* :mod:`~wbcpy.description.urdf_physics` — physical plausibility of masses, inertias, axes and limits;
* :mod:`~wbcpy.description.srdf` — reference postures (``half_sitting``...) from SRDF files;
* :mod:`~wbcpy.description.robot_files` — a robot's URDF, mesh package folders, SRDF and geometry.

Layer: knows Pinocchio and files, no robot state; the robot model (:mod:`wbcpy.model`) sits above.
"""

from __future__ import annotations

from .robot_files import find_srdf, mesh_package_dirs, urdf_file
from .srdf import load_reference_configurations, reference_configuration, reference_configuration_names
from .urdf_checks import check_urdf
from .urdf_physics import PhysicsMode, physics_violations

__all__ = [
    "PhysicsMode",
    "check_urdf",
    "find_srdf",
    "load_reference_configurations",
    "mesh_package_dirs",
    "physics_violations",
    "reference_configuration",
    "reference_configuration_names",
    "urdf_file",
]
