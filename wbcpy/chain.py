"""Chain (public path): a serial base → tip view of a robot. Defined in :mod:`wbcpy.model.chain`."""

from __future__ import annotations

from .model.chain import Chain, pose7_from_se3, rotation_from_axis_angle, se3_from_pose7

__all__ = ["Chain", "pose7_from_se3", "rotation_from_axis_angle", "se3_from_pose7"]
