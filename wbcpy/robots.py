"""Robot registry (public path): names that resolve to URDF files. Defined in :mod:`wbcpy.model.registry`.

Loading a robot by name is :func:`wbcpy.load_robot`; the names are :func:`wbcpy.available_robots`.
"""

from __future__ import annotations

from .model.registry import (
    ALIASES,
    RobotEntry,
    aliases,
    default_end_effector,
    example_robot_data_dir,
    refresh,
    registry,
    robot_entry,
    robot_path,
    shipped_robots_dir,
)

__all__ = [
    "ALIASES",
    "RobotEntry",
    "aliases",
    "default_end_effector",
    "example_robot_data_dir",
    "refresh",
    "registry",
    "robot_entry",
    "robot_path",
    "shipped_robots_dir",
]
