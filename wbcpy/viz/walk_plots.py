"""Views of a walk (:func:`wbcpy.locomotion.walk`'s log): plots and the paths of the HTML animation.

* :func:`walk_paths` — the COM, the measured ZMP and the soles' footprints from the log (world, m);
* :func:`plot_walk` — one image: the COM and ZMP seen from above against the support polygons, the
  normal force per foot over time, the joint torques relative to their limits (needs matplotlib);
* :func:`animate_walk` — the walk as an HTML animation: robot, footsteps, COM and ZMP paths.

The measured ZMP is the centre of pressure of the soles' contact wrenches together (flat ground): with
p_i the world CoP of sole i (its frame origin plus (−τ_y, τ_x)/f_z in its axes), p = Σ f_z,i p_i / Σ f_z,i.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from .plotting import have_matplotlib


def walk_paths(robot: Any, log: Any, every: int = 5) -> dict[str, np.ndarray]:
    """``com`` (N, 3), ``zmp`` (N, 3; NaN without load), ``time`` (N,) every ``every``-th step, and
    ``soles`` (S, 4, 3): the footprint corners of every touch-down and of the start (world, m).

    The robot's state is changed (it is set to the logged ones).
    """
    frames = [str(f) for f in log.contact_frames]
    X, Y = log.half_size
    local = np.array([[X, Y, 0.0], [X, -Y, 0.0], [-X, -Y, 0.0], [-X, Y, 0.0]])
    idx = np.arange(0, log.t.size, max(1, int(every)))
    zmp = np.full((idx.size, 3), np.nan)
    soles = []
    for j, k in enumerate(idx):
        robot.update(log.q[k])
        num, fz = np.zeros(3), 0.0
        for i, f in enumerate(frames):
            M = robot.frame_placement(f)
            w = log.wrenches[k, i]
            if log.active[k, i] and w[2] > 1e-6:
                cop = M.act(np.array([-w[4] / w[2], w[3] / w[2], 0.0]))
                num += w[2] * cop
                fz += w[2]
        if fz > 0.0:
            zmp[j] = num / fz
    for k in np.flatnonzero(np.r_[True, (log.active[1:] & ~log.active[:-1]).any(axis=1)]):
        robot.update(log.q[k])
        for i, f in enumerate(frames):
            if log.active[k, i]:
                M = robot.frame_placement(f)
                soles.append(local @ M.rotation.T + M.translation)
    return {"time": log.t[idx], "com": log.com[idx], "zmp": zmp, "soles": np.array(soles)}


def plot_walk(path: str | Path, robot: Any, log: Any, title: str = "walk") -> bool:
    """Write the walk's plots to one image (see the module docstring); False without matplotlib."""
    if not have_matplotlib():
        return False
    paths = walk_paths(robot, log)
    from matplotlib.figure import Figure

    fig = Figure(figsize=(16, 4.8))
    fig.subplots_adjust(left=0.05, right=0.98, bottom=0.13, top=0.86, wspace=0.28)
    fig.suptitle(title)
    top, forces, torques = (fig.add_subplot(1, 3, i) for i in (1, 2, 3))
    for corners in paths["soles"]:
        ring = np.vstack((corners, corners[:1]))
        top.fill(ring[:, 0], ring[:, 1], color="tab:blue", alpha=0.15)
    top.plot(paths["com"][:, 0], paths["com"][:, 1], color="k", lw=1.5, label="COM")
    top.plot(paths["zmp"][:, 0], paths["zmp"][:, 1], color="tab:red", lw=0.8, label="ZMP (measured)")
    top.set_aspect("equal", adjustable="datalim")
    top.set(xlabel="x [m]", ylabel="y [m]")
    top.set_title("COM and ZMP over the footprints (from above)", fontsize="medium")
    top.legend(fontsize="x-small")
    mg = robot.total_mass * 9.81
    for i, f in enumerate(log.contact_frames):
        fz = np.where(log.active[:, i], log.wrenches[:, i, 2], np.nan)
        forces.plot(log.t, fz, lw=1.2, label=f"{f} f_z")
    forces.axhline(mg, ls="--", color="grey", lw=0.9, label="m g")
    forces.set(xlabel="time [s]", ylabel="normal force [N]")
    forces.set_title("normal force per foot", fontsize="medium")
    forces.legend(fontsize="x-small")
    limit = np.asarray(robot.model.effortLimit)[6:]
    ratio = np.abs(log.tau) / np.where(limit > 0, limit, np.inf)
    torques.plot(log.t, ratio, color="tab:grey", lw=0.4, alpha=0.5)
    torques.plot(log.t, ratio.max(axis=1), color="tab:red", lw=1.5, label="largest |τ| / limit")
    torques.axhline(1.0, ls="--", color="k", lw=0.9, label="limit")
    torques.set_ylim(0.0, 1.1)
    torques.set(xlabel="time [s]", ylabel="|τ| / τ_max")
    torques.set_title("joint torques against their limits", fontsize="medium")
    torques.legend(fontsize="x-small", loc="upper right")
    for ax in (top, forces, torques):
        ax.grid(True, alpha=0.3)
    fig.savefig(path, dpi=90)
    return True


def animate_walk(robot: Any, log: Any, out: str | Path, fps: float = 20.0, title: str = "walk") -> Path:
    """The walk as an HTML animation (:func:`wbcpy.viz.write_animation`): the robot, the soles' paths,
    the footsteps (green markers), the COM and the measured ZMP paths."""
    from .animation import write_animation

    every = max(1, round(1.0 / (fps * float(log.dt))))
    paths = walk_paths(robot, log, every)
    zmp = paths["zmp"][np.isfinite(paths["zmp"]).all(axis=1)]
    targets = [c.mean(axis=0) for c in paths["soles"]]
    idx = np.arange(0, log.t.size, every)
    extra = {"COM": paths["com"], "ZMP": zmp} if zmp.shape[0] > 1 else {"COM": paths["com"]}
    return write_animation(
        robot, log.t[idx], log.q[idx], out, trace_frames=[str(f) for f in log.contact_frames], paths=extra,
        targets=targets, title=title, fps=fps,
    )  # fmt: skip
