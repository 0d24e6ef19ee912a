"""Feet kept apart: the gap between two sole footprints, and the widths and footstep regions that keep it.

A sole's footprint is its rectangle ``[−X, X] × [−Y, Y]`` in the sole frame's ground plane. On a plant
whose feet collide (MuJoCo's boxes, a real robot) two soles must never overlap, and should keep a
clearance (:data:`SOLE_CLEARANCE`, scaled by the robot's size): a foot that lands beside the other may miss
its footstep by a few millimetres.

* :func:`footprint_gap` — the gap between two footprints (m; negative: they overlap), by separating axes:
  the largest, over the four edge normals of the two rectangles, of the distance between the footprints'
  projections. It is the true distance when the closest features are an edge and a corner (side by side,
  one ahead of the other) and never more than the true distance otherwise: a conservative gap.
* :func:`lateral_extent` — the half extent of a footprint turned by ψ, across another's axes.
"""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin

#: the clearance between two soles (m, Talos's size; scaled by the robot's)
SOLE_CLEARANCE = 0.02


def _corners(M: pin.SE3, half_size: tuple[float, float]) -> np.ndarray:
    X, Y = half_size
    local = np.array([[X, Y], [X, -Y], [-X, -Y], [-X, Y]])
    R = M.rotation[:2, :2]
    out: np.ndarray = local @ R.T + M.translation[:2]
    return out


def footprint_gap(a: pin.SE3, b: pin.SE3, half_size: tuple[float, float]) -> float:
    """The gap (m) between the footprints of two soles placed at ``a`` and ``b`` (flat placements; the
    ground-plane rectangles of half sizes ``half_size``): the largest separation of their projections on
    the rectangles' edge normals (negative when they overlap: minus the smallest overlap)."""
    ca, cb = _corners(a, half_size), _corners(b, half_size)
    gap = -math.inf
    for R in (a.rotation, b.rotation):
        for axis in (R[:2, 0], R[:2, 1]):
            pa, pb = ca @ axis, cb @ axis
            gap = max(gap, float(max(pb.min() - pa.max(), pa.min() - pb.max())))
    return gap


def lateral_extent(half_size: tuple[float, float], yaw: float) -> float:
    """The half extent (m) across a sole's y axis of a footprint turned by ``yaw`` (rad) relative to it:
    X |sin ψ| + Y |cos ψ|."""
    X, Y = half_size
    return X * abs(math.sin(yaw)) + Y * abs(math.cos(yaw))


def min_width(half_size: tuple[float, float], lateral: float, clearance: float) -> float:
    """The smallest feet distance (m) of a plan whose walking frame steps ``lateral`` m sideways per
    footstep: the trailing foot lands width − |lateral| from the leading one, which must be at least the
    sole width plus the clearance."""
    return 2.0 * half_size[1] + clearance + abs(lateral)
