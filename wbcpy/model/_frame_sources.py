"""What the compiled frame kernels read for one frame of a :class:`~wbcpy.model._cache.Workspace`.

A frame f is fixed on the body of its parent joint i. Its world placement, Jacobian and bias J̇q̇ follow
from joint i's results in the workspace's ``pin.Data`` (placement ``oMi[i]``, spatial velocity ``v[i]``
and acceleration ``a[i]``, the joint Jacobians ``J``) and from f's constant placement in the joint:
the compiled ``frame_pose``, ``frame_jacobian`` and ``frame_classical_acceleration`` (csrc/kernels/frames.c)
give Pinocchio's ``updateFramePlacement``, ``getFrameJacobian`` and ``getFrameClassicalAcceleration``
(LOCAL_WORLD_ALIGNED) without Pinocchio's result objects.

The arrays of ``data`` are read through views taken once: the kinematics overwrite them in place (data is
never replaced, nor its joint arrays resized), so the views stay valid and current. Each function returns
an empty tuple when the bindings hand out copies instead of views (two takes at different addresses):
the workspace then takes Pinocchio's call. The frame's own placement is copied (the model's frames are
not edited once the robot is made).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin


def _address(x: np.ndarray) -> int:
    """The address of an array's first byte."""
    address: int = x.__array_interface__["data"][0]
    return address


def _same_addresses(views: tuple[np.ndarray, ...], again: tuple[np.ndarray, ...]) -> bool:
    """True when two takes of the same arrays are the same memory (the bindings hand out views)."""
    return all(_address(x) == _address(y) for x, y in zip(views, again, strict=True))


def frame_views(model: pin.Model, data: pin.Data, fid: int) -> tuple[np.ndarray, ...]:
    """(R, p, Rt, t) of frame ``fid``: views of its parent joint's world rotation R and position p, and
    copies of the frame's rotation Rt and offset t in the joint; empty where the bindings copy."""
    frame = model.frames[fid]
    joint = frame.parentJoint

    def take() -> tuple[np.ndarray, np.ndarray]:
        return data.oMi[joint].rotation, data.oMi[joint].translation

    views = take()
    if not _same_addresses(views, take()):
        return ()
    offset = frame.placement
    rotation = np.array(offset.rotation, dtype=np.float64)
    return (*views, rotation, np.array(offset.translation, dtype=np.float64))


def jacobian_views(model: pin.Model, data: pin.Data, fid: int) -> tuple[np.ndarray, ...]:
    """(J, R, p, t, columns) of frame ``fid``: a view of the joint Jacobians ``data.J`` (6×nv), R, p and t
    of :func:`frame_views` and the DOFs that support the frame's parent joint (the frame Jacobian's
    nonzero columns, intp); empty where the bindings copy. For a model without mimic joints (whose
    ``data.J`` has a column per joint DOF beyond nv) and nv > 1 (1-D arrays otherwise)."""
    views = frame_views(model, data, fid)
    if not views or not _same_addresses((data.J,), (data.J,)):
        return ()
    joints = model.joints
    support = list(model.supports[model.frames[fid].parentJoint])[1:]  # (the universe has no DOF)
    columns = [c for j in support for c in range(joints[j].idx_v, joints[j].idx_v + joints[j].nv)]
    rotation, position, _, offset = views
    return data.J, rotation, position, offset, np.array(columns, dtype=np.intp)


def bias_views(model: pin.Model, data: pin.Data, fid: int) -> tuple[np.ndarray, ...]:
    """(R, t, v, a) of frame ``fid``: views of its parent joint's world rotation R, spatial velocity v and
    acceleration a (joint axes), and a copy of the frame's offset t in the joint; empty where the
    bindings copy. ``frame_classical_acceleration`` of them is R (α + ω̇ × t + ω × (ν + ω × t)) over
    R ω̇, Pinocchio's ``getFrameClassicalAcceleration(model, data, fid, LOCAL_WORLD_ALIGNED)``."""
    frame = model.frames[fid]
    joint = frame.parentJoint

    def take() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return data.oMi[joint].rotation, data.v[joint].vector, data.a[joint].vector

    views = take()
    if not _same_addresses(views, take()):
        return ()
    rotation, velocity, acceleration = views
    offset = np.array(frame.placement.translation, dtype=np.float64)
    return rotation, offset, velocity, acceleration
