"""A small test arm with primitive collision geometry, and closed-form distances written independently.

The arm (``ARM_URDF``): a fixed base box, then revolute joints z, y, y and a fixed tip::

    base (box 0.2×0.2×0.1 at z=0.05)      -- j1 (z, at z=0.1) -->
    l1   (sphere r=0.05 at (0, 0, 0.1))    -- j2 (y, at z=0.2) -->
    l2   (sphere r=0.04 at (0.15, 0, 0); box 0.1×0.06×0.06 at (0.3, 0, 0)) -- j3 (y, at x=0.4) -->
    l3   (sphere r=0.03 at (0.2, 0, 0))    -- fixed (x=0.25) -->  tip (sphere r=0.02)

Collision geometry names (Pinocchio's ``<link>_<k>``): base_0, l1_0, l2_0, l2_1, l3_0, tip_0.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pinocchio as pin

_INERTIA = '<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/>'
_INERTIAL = f'<inertial><mass value="1"/>{_INERTIA}</inertial>'


def _collision(xyz: str, geometry: str) -> str:
    return f'<collision><origin xyz="{xyz}"/><geometry>{geometry}</geometry></collision>'


def _revolute(name: str, parent: str, child: str, xyz: str, axis: str) -> str:
    return (
        f'<joint name="{name}" type="revolute"><parent link="{parent}"/><child link="{child}"/>'
        f'<origin xyz="{xyz}"/><axis xyz="{axis}"/>'
        '<limit lower="-2.5" upper="2.5" effort="10" velocity="2"/></joint>'
    )


ARM_URDF = f"""<?xml version="1.0"?>
<robot name="arm3">
  <link name="base">{_INERTIAL}{_collision("0 0 0.05", '<box size="0.2 0.2 0.1"/>')}</link>
  {_revolute("j1", "base", "l1", "0 0 0.1", "0 0 1")}
  <link name="l1">{_INERTIAL}{_collision("0 0 0.1", '<sphere radius="0.05"/>')}</link>
  {_revolute("j2", "l1", "l2", "0 0 0.2", "0 1 0")}
  <link name="l2">{_INERTIAL}{_collision("0.15 0 0", '<sphere radius="0.04"/>')}
    {_collision("0.3 0 0", '<box size="0.1 0.06 0.06"/>')}</link>
  {_revolute("j3", "l2", "l3", "0.4 0 0", "0 1 0")}
  <link name="l3">{_INERTIAL}{_collision("0.2 0 0", '<sphere radius="0.03"/>')}</link>
  <joint name="tip_joint" type="fixed"><parent link="l3"/><child link="tip"/><origin xyz="0.25 0 0"/></joint>
  <link name="tip">{_INERTIAL}{_collision("0 0 0", '<sphere radius="0.02"/>')}</link>
</robot>
"""

#: geometry name -> (link, local offset, shape) with shape ("sphere", r) or ("box", size)
ARM_GEOMETRY: dict[str, tuple[str, np.ndarray, tuple]] = {
    "base_0": ("base", np.array([0.0, 0.0, 0.05]), ("box", np.array([0.2, 0.2, 0.1]))),
    "l1_0": ("l1", np.array([0.0, 0.0, 0.1]), ("sphere", 0.05)),
    "l2_0": ("l2", np.array([0.15, 0.0, 0.0]), ("sphere", 0.04)),
    "l2_1": ("l2", np.array([0.3, 0.0, 0.0]), ("box", np.array([0.1, 0.06, 0.06]))),
    "l3_0": ("l3", np.array([0.2, 0.0, 0.0]), ("sphere", 0.03)),
    "tip_0": ("tip", np.zeros(3), ("sphere", 0.02)),
}


def write_arm(folder: Path, with_srdf: str | None = None) -> Path:
    """Write ``arm3.urdf`` (and optionally ``arm3.srdf`` beside it) into ``folder``; return the URDF path."""
    path = folder / "arm3.urdf"
    path.write_text(ARM_URDF, encoding="utf-8")
    if with_srdf is not None:
        (folder / "arm3.srdf").write_text(with_srdf, encoding="utf-8")
    return path


def geometry_pose(model: pin.Model, q: np.ndarray, name: str) -> pin.SE3:
    """World pose of a collision geometry of the arm, from raw Pinocchio forward kinematics."""
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    link, offset, _ = ARM_GEOMETRY[name]
    return data.oMf[model.getFrameId(link)] * pin.SE3(np.eye(3), offset)


def sphere_sphere(c1: np.ndarray, r1: float, c2: np.ndarray, r2: float) -> float:
    """Signed distance between two spheres."""
    return float(np.linalg.norm(c2 - c1) - r1 - r2)


def sphere_box(c: np.ndarray, r: float, box: pin.SE3, size: np.ndarray) -> float:
    """Signed distance between a sphere and a box (full side lengths ``size``) placed at ``box``."""
    local = box.actInv(c)
    half = 0.5 * np.asarray(size)
    outside = np.maximum(np.abs(local) - half, 0.0)
    if outside.any():
        return float(np.linalg.norm(outside) - r)
    return float(-np.min(half - np.abs(local)) - r)


def sphere_capsule(c: np.ndarray, r: float, capsule: pin.SE3, radius: float, length: float) -> float:
    """Signed distance between a sphere and a capsule (segment of ``length`` along the capsule's z)."""
    a = capsule.act(np.array([0.0, 0.0, -0.5 * length]))
    b = capsule.act(np.array([0.0, 0.0, 0.5 * length]))
    t = np.clip((c - a) @ (b - a) / ((b - a) @ (b - a)), 0.0, 1.0)
    return float(np.linalg.norm(c - (a + t * (b - a))) - r - radius)


def random_configuration(model: pin.Model, rng: np.random.Generator) -> np.ndarray:
    """A configuration inside the limits (free-flyer: random pose near the origin)."""
    q = pin.neutral(model)
    lo, hi = model.lowerPositionLimit, model.upperPositionLimit
    for j in range(1, model.njoints):
        jm = model.joints[j]
        if jm.nq == 1:
            q[jm.idx_q] = rng.uniform(max(lo[jm.idx_q], -2.0), min(hi[jm.idx_q], 2.0))
        elif jm.shortname() == "JointModelFreeFlyer":
            q[jm.idx_q : jm.idx_q + 7] = pin.SE3ToXYZQUAT(
                pin.SE3(pin.exp3(rng.normal(size=3)), rng.normal(size=3) * 0.1)
            )
    return q
