"""Robot registry (public path): names that resolve to URDF files. Defined in :mod:`wbcpy.model.registry`."""

from __future__ import annotations

from .model.registry import (
    ALIASES,
    RobotEntry,
    aliases,
    available,
    default_end_effector,
    example_robot_data_dir,
    load_robot,
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
    "available",
    "default_end_effector",
    "example_robot_data_dir",
    "load_robot",
    "refresh",
    "registry",
    "robot_entry",
    "robot_path",
    "shipped_robots_dir",
]
