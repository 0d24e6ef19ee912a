"""YAML scene files (``wbcpy scene``): the robot, its initial state, scene options and tasks with PD
targets (:mod:`~wbcpy.scenes.files.scene_file`), with the contact part
(:mod:`~wbcpy.scenes.files.contact_file`) and the velocity part (:mod:`~wbcpy.scenes.files.velocity_file`).
"""

from __future__ import annotations

from .scene_file import SceneSetup, TaskTarget, load_scene_file

__all__ = ["SceneSetup", "TaskTarget", "load_scene_file"]
