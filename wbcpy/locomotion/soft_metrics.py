"""The figures of a walk on soft contacts (``specs/mujoco.md``'s acceptance table), from a walk's log.

* loaded soles — the plant's normal force above 20 % of m·g: the largest *drift* per stance (the ground
  distance of the sole frame's origin from where it was when the stance's load began, m) and *slide*
  (the ground speed of the sole frame's origin, m/s);
* the controller's planned wrenches (``planned_wrenches`` of the log): the largest *friction use* in the
  Euclidean norm, ‖f_t‖ / (μ f_z) over the planned wrenches with f_z above 0.1 % of m·g, and the largest
  *change of f_z per control step* (m·g; a sole outside the controller's contact set plans 0).

The table's limits (:data:`SOFT_LIMITS`): drift ≤ 2 mm, slide ≤ 20 mm/s, friction use ≤ 0.9, f_z change
≤ 0.10 m·g per step; a pushed walk: 10 mm, 100 mm/s, 0.9, 0.25 m·g.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel


class WalkRecord(Protocol):
    """What the figures read of a walk's log (:class:`~wbcpy.locomotion.walk_log.WalkLog` has it): the
    arrays of the log's keys of the same names."""

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    wrenches: np.ndarray
    planned_wrenches: np.ndarray
    contact_frames: np.ndarray
    mu: float


G0 = 9.81
#: the loaded soles' share of m·g
LOADED = 0.2


@dataclass(frozen=True)
class SoftFigures:
    """The table's figures of one walk (see the module docstring); NaN where the log has no data."""

    drift: float = math.nan
    slide: float = math.nan
    friction_use: float = math.nan
    fz_step: float = math.nan

    def within(self, pushed: bool) -> bool:
        """Every figure within the table's limits (the pushed walk's when ``pushed``)."""
        drift, slide, use, step = SOFT_LIMITS[pushed]
        values = (self.drift, self.slide, self.friction_use, self.fz_step)
        return all(not v > lim for v, lim in zip(values, (drift, slide, use, step), strict=True))


#: (drift m, slide m/s, friction use, f_z change m·g) limits, by "pushed"
SOFT_LIMITS = {False: (0.002, 0.02, 0.9, 0.10), True: (0.010, 0.10, 0.9, 0.25)}


def soft_figures(model: RobotModel, log: WalkRecord) -> SoftFigures:
    """The figures of the module docstring from ``log`` (``model``: the robot that walked; its state is
    set to each logged one)."""
    K = log.t.size
    if K == 0:
        return SoftFigures()
    mg = model.total_mass * G0
    frames = [str(f) for f in log.contact_frames]
    start: list[np.ndarray | None] = [None] * len(frames)
    drift = slide = 0.0
    loaded = log.wrenches[:, :, 2] > LOADED * mg
    for k in range(K):
        if not loaded[k].any():
            start = [None] * len(frames)
            continue
        model.update(log.q[k], log.v[k])
        for i, frame in enumerate(frames):
            if not loaded[k, i]:
                start[i] = None
                continue
            xy = model.frame_placement(frame).translation[:2]
            begun = start[i]
            if begun is None:
                start[i] = begun = xy.copy()
            drift = max(drift, float(np.hypot(*(xy - begun))))
            slide = max(slide, float(np.hypot(*model.frame_velocity(frame)[:2])))
    planned = log.planned_wrenches
    fz = planned[:, :, 2]
    ft = np.hypot(planned[:, :, 0], planned[:, :, 1])
    pushing = fz > 1e-3 * mg
    use = float(np.max(ft[pushing] / (log.mu * fz[pushing]))) if pushing.any() else 0.0
    step = float(np.max(np.abs(np.diff(fz, axis=0)))) / mg if K > 1 else 0.0
    return SoftFigures(drift, slide, use, step)
