"""Plots of simulations and reaches (optional: needs matplotlib, the ``wbcpy[plot]`` extra).

Every function writes one image (the format follows the file extension) with matplotlib's object-oriented
API (no global pyplot state, no display needed) and returns True, or returns False without writing anything
when matplotlib is not installed.

* joint trajectories: one small panel per joint, its limits dashed in the joint's own colour, the unit of
  the joint type on its axis (rad, or m for prismatic joints), no legend over the data;
* 3-D tip paths with equal scales on the three axes (a straight segment looks straight);
* a reach: the tip path, the Cartesian position error and the tip speed over time (the bell-shaped speed
  profile is what minimum-jerk motion looks like), and the joint panels;
* a run with contacts: the COM over the support polygons from above, normal forces, torques over limits.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np


def have_matplotlib() -> bool:
    """True when matplotlib can be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _figure(size: tuple[float, float]) -> Any:
    """A figure without a layout engine (constrained layout costs ~0.3 s per figure; margins are set)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=size)
    fig.subplots_adjust(left=0.08, right=0.92, bottom=0.1, top=0.9, wspace=0.35, hspace=0.5)
    return fig


_UNIT = re.compile(r"\[([^\]]+)\]\s*$")


def error_units(errors: Mapping[str, Any]) -> dict[str, dict[str, np.ndarray]]:
    """Error series grouped by the unit at the end of their label (``"ee position [m]"`` → ``"m"``; ``""``
    for a label without one), in the order of first appearance: one log axis per unit, never two units
    on one axis."""
    groups: dict[str, dict[str, np.ndarray]] = {}
    for label, series in errors.items():
        match = _UNIT.search(str(label))
        groups.setdefault(match.group(1) if match else "", {})[str(label)] = np.asarray(series, dtype=float)
    return groups


def log_values(series: Any) -> np.ndarray:
    """A series for a log axis: entries ≤ 0 (an error that is exactly zero, such as a task that starts on
    its target) and non-finite ones become NaN, so they leave a gap instead of a spike down to an
    arbitrary floor."""
    values = np.array(series, dtype=float)
    values[~(np.isfinite(values) & (values > 0.0))] = np.nan
    return values


def _error_axes(
    fig: Any, spec: Any, time: np.ndarray, errors: Mapping[str, Any], legend_outside: bool
) -> list[Any]:
    """One log axis per unit (stacked, shared time axis), each with its own legend."""
    groups = error_units(errors) or {"": {}}
    cells = spec.subgridspec(len(groups), 1, hspace=0.12)
    axes: list[Any] = []
    colour = 0  # one colour per series across the axes
    for k, (unit, series) in enumerate(groups.items()):
        ax = fig.add_subplot(cells[k, 0], sharex=axes[0] if axes else None)
        positive = any(np.any(np.isfinite(log_values(s))) for s in series.values())
        for label, values in series.items():
            ax.plot(time, log_values(values) if positive else values, label=label, color=f"C{colour % 10}")
            colour += 1
        if positive:
            ax.set_yscale("log")
        ax.set_ylabel(f"error [{unit}]" if unit else "error")
        ax.grid(True, which="both" if positive else "major", alpha=0.3)
        if series and legend_outside:
            ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.01, 0.5))
        elif series:
            ax.legend(fontsize="x-small", loc="best")
        if k < len(groups) - 1:
            ax.tick_params(labelbottom=False)
        axes.append(ax)
    axes[-1].set_xlabel("time [s]")
    fig.align_ylabels(axes)
    return axes


def task_error_figure(time: np.ndarray, errors: Mapping[str, np.ndarray], title: str) -> Any:
    """The figure of :func:`plot_task_errors` (a matplotlib ``Figure``; needs matplotlib)."""
    n_units = max(1, len(error_units(errors)))
    height = 1.2 + 2.2 * n_units  # inches
    fig = _figure((9, height))
    fig.subplots_adjust(left=0.1, right=0.76, top=1.0 - 0.5 / height, bottom=0.5 / height)
    axes = _error_axes(fig, fig.add_gridspec(1, 1)[0, 0], time, errors, legend_outside=True)
    axes[0].set_title(title)
    return fig


def plot_task_errors(
    path: str | Path, time: np.ndarray, errors: Mapping[str, np.ndarray], title: str
) -> bool:
    """Target error norms over time, one log axis per unit (the unit is the label's trailing ``[...]``),
    each series labelled beside its axis; exact zeros are left out (a log axis has no zero)."""
    if not have_matplotlib():
        return False
    task_error_figure(time, errors, title).savefig(path, dpi=100)
    return True


def _joint_panels(
    fig: Any,
    spec: Any,
    time: np.ndarray,
    q: np.ndarray,
    names: Sequence[str],
    lower: np.ndarray,
    upper: np.ndarray,
    units: Sequence[str] | None,
) -> None:
    """One panel per joint in the subplot spec ``spec``: trajectory and its limits in the same colour."""
    n = len(names)
    cols = 2 if n > 3 else 1
    grid = spec.subgridspec(math.ceil(n / cols), cols, hspace=0.8, wspace=0.3)
    colours = [c["color"] for c in _colour_cycle(n)]
    for i, name in enumerate(names):
        ax = fig.add_subplot(grid[i // cols, i % cols])
        ax.plot(time, q[:, i], color=colours[i], lw=1.5)
        for limit in (lower[i], upper[i]):
            if np.isfinite(limit):
                ax.axhline(limit, color=colours[i], ls="--", lw=0.9)
        unit = units[i] if units is not None else "rad"
        ax.set_title(f"{name} [{unit}] (dashed: limits)", fontsize="small")
        ax.tick_params(labelsize="x-small")
        ax.grid(True, alpha=0.3)
        if i // cols == math.ceil(n / cols) - 1:
            ax.set_xlabel("time [s]", fontsize="small")


def _colour_cycle(n: int) -> list[dict[str, Any]]:
    from matplotlib import colormaps

    cmap = colormaps["tab10" if n <= 10 else "tab20"]
    return [{"color": cmap(i % cmap.N)} for i in range(n)]


def joint_figure(
    time: np.ndarray,
    q: np.ndarray,
    names: Sequence[str],
    lower: np.ndarray,
    upper: np.ndarray,
    title: str,
    units: Sequence[str] | None = None,
) -> Any:
    """The figure of :func:`plot_joint_trajectories` (one axes per joint), not saved."""
    n = len(names)
    fig = _figure((10, 1.2 + 1.6 * math.ceil(n / (2 if n > 3 else 1))))
    fig.suptitle(title)
    _joint_panels(fig, fig.add_gridspec(1, 1)[0, 0], time, q, names, lower, upper, units)
    return fig


def plot_joint_trajectories(
    path: str | Path,
    time: np.ndarray,
    q: np.ndarray,
    names: Sequence[str],
    lower: np.ndarray,
    upper: np.ndarray,
    title: str,
    units: Sequence[str] | None = None,
) -> bool:
    """Joint positions over time, one panel per joint with its position limits (dashed, same colour).

    Args:
        time: (T,) sample times in s. q: (T, n) joint positions.
        names: n joint names. lower, upper: (n,) limits (non-finite limits are not drawn).
        units: n units ("rad" or "m"); default rad.
    """
    if not have_matplotlib():
        return False
    joint_figure(time, q, names, lower, upper, title, units).savefig(path, dpi=100)
    return True


def set_equal_3d(ax: Any, points: np.ndarray) -> None:
    """Equal scales on the three axes of a 3-D plot that shows ``points`` ((k, 3), m)."""
    lo, hi = points.min(axis=0), points.max(axis=0)
    centre, half = (lo + hi) / 2.0, max(float((hi - lo).max()) / 2.0, 1e-3)
    ax.set_xlim(centre[0] - half, centre[0] + half)
    ax.set_ylim(centre[1] - half, centre[1] + half)
    ax.set_zlim(centre[2] - half, centre[2] + half)
    ax.set_box_aspect((1.0, 1.0, 1.0))


def _tip_path_axes(ax: Any, tips: np.ndarray, target: np.ndarray, title: str) -> None:
    ax.plot(tips[:, 0], tips[:, 1], tips[:, 2], lw=1.5, label="tip path")
    seg = np.vstack([tips[0], target])
    ax.plot(seg[:, 0], seg[:, 1], seg[:, 2], ls=":", color="grey", label="straight segment")
    ax.scatter(*tips[0], marker="o", color="tab:green", label="start")
    ax.scatter(*target, marker="x", s=60, color="tab:red", label="target")
    set_equal_3d(ax, np.vstack([tips, target]))
    from matplotlib.ticker import MaxNLocator

    for axis, name in ((ax.xaxis, "x"), (ax.yaxis, "y"), (ax.zaxis, "z")):
        axis.set_major_locator(MaxNLocator(4))  # few ticks: their labels never run into each other
        axis.set_label_text(f"{name} [m]", fontsize="small")
    ax.tick_params(labelsize="x-small", pad=1)
    ax.set_title(title)
    ax.legend(loc="upper left", fontsize="x-small")


def plot_tip_path(path: str | Path, tips: np.ndarray, target: np.ndarray, title: str) -> bool:
    """3-D tip path (tips: (T, 3), m) from start (green) to target (red cross), with the straight segment."""
    if not have_matplotlib():
        return False
    fig = _figure((7, 6))
    _tip_path_axes(fig.add_subplot(1, 1, 1, projection="3d"), tips, target, title)
    fig.savefig(path, dpi=100)
    return True


def reach_profiles(result: Any) -> tuple[np.ndarray, np.ndarray]:
    """Position error ‖p* − p(t)‖ (m) and tip speed ‖Δp‖/Δt (m/s, at the interval midpoints) of a reach."""
    tips = np.asarray(result.tips)
    error = np.linalg.norm(result.target.translation - tips, axis=1)
    dt = np.diff(result.time)
    speed = np.linalg.norm(np.diff(tips, axis=0), axis=1) / np.where(dt > 0, dt, np.inf)
    return error, speed


def _profile_axes(ax: Any, result: Any) -> None:
    error, speed = reach_profiles(result)
    time = np.asarray(result.time)
    ax.plot(time, error, color="tab:blue", label="position error [m]")
    ax.set_xlabel("time [s]")
    ax.set_ylabel("position error [m]", color="tab:blue")
    ax.grid(True, alpha=0.3)
    twin = ax.twinx()
    twin.plot((time[1:] + time[:-1]) / 2.0, speed, color="tab:orange", label="tip speed [m/s]")
    twin.set_ylabel("tip speed [m/s]", color="tab:orange")
    ax.set_title("error and speed (min-jerk: bell-shaped speed)")


def plot_reach(
    path: str | Path, result: Any, chain: Any, units: Sequence[str] | None = None, joints: bool = True
) -> bool:
    """A reach (:class:`~wbcpy.ik.reaching.ReachResult` on a :class:`~wbcpy.model.chain.Chain`) in one image:
    tip path (3-D, equal scales), position error and tip speed over time, and (``joints``) one panel per
    joint."""
    if not have_matplotlib():
        return False
    n = len(chain.joint_names)
    if joints:
        fig = _figure((15, max(5.5, 1.2 + 1.6 * math.ceil(n / (2 if n > 3 else 1)))))
        grid = fig.add_gridspec(2, 2, width_ratios=(1.0, 1.3))
        units = units if units is not None else joint_units(chain)
        q, lo, hi = result.q, chain.lower, chain.upper
        _joint_panels(fig, grid[:, 1], result.time, q, chain.joint_names, lo, hi, units)
    else:
        fig = _figure((7.5, 8.5))
        fig.subplots_adjust(left=0.1, right=0.88, bottom=0.07, top=0.96, hspace=0.22)
        grid = fig.add_gridspec(2, 1, height_ratios=(1.5, 1.0))
    path_ax = fig.add_subplot(grid[0, 0], projection="3d")
    _tip_path_axes(path_ax, result.tips, result.target.translation, f"tip path in {chain.base}")
    path_ax.set_box_aspect((1.0, 1.0, 1.0), zoom=1.05)  # 3-D axes keep a wide margin of their own
    _profile_axes(fig.add_subplot(grid[1, 0]), result)
    fig.savefig(path, dpi=100)
    return True


def joint_units(chain_or_robot: Any, names: Sequence[str] | None = None) -> list[str]:
    """ "m" for prismatic joints and "rad" for the others, for a chain's joints (or ``names`` of a robot)."""
    robot = getattr(chain_or_robot, "robot", chain_or_robot)
    joint_names = list(names if names is not None else chain_or_robot.joint_names)
    out = []
    for name in joint_names:
        shortname = robot.model.joints[robot.joint_id(name)].shortname()
        prismatic = "Prismatic" in shortname or (
            shortname.startswith("JointModelP") and "Planar" not in shortname
        )
        out.append("m" if prismatic else "rad")
    return out


def plot_contact_run(path: str | Path, run: Any, title: str = "Talos: weight shift and foot lift") -> bool:
    """An inverse-dynamics run with contacts (:class:`~wbcpy.demo.talos.TalosRun`) in one image.

    Panels: the COM path seen from above over the soles (support polygons, m); the normal force of each
    foot over time (N; gaps while a foot is lifted, the lifted interval shaded); every joint's |τ| over
    its limit (thin lines, the largest one bold; 1 = at the limit).
    """
    if not have_matplotlib():
        return False
    fig = _figure((15, 4.6))
    fig.subplots_adjust(left=0.05, right=0.98, bottom=0.13, top=0.86, wspace=0.28)
    fig.suptitle(title)
    top, forces, torques = (fig.add_subplot(1, 3, i) for i in (1, 2, 3))
    for (name, corners), colour in zip(run.soles.items(), ("tab:blue", "tab:orange"), strict=False):
        ring = np.vstack((corners, corners[:1]))
        top.fill(ring[:, 0], ring[:, 1], color=colour, alpha=0.2, label=f"{name} (start)")
    top.plot(run.com[:, 0], run.com[:, 1], color="k", lw=1.5, label="COM (ground projection)")
    top.plot(run.foot[:, 0], run.foot[:, 1], ls=":", color="tab:orange", label="right sole path")
    top.set_aspect("equal", adjustable="datalim")
    top.set_xlabel("x [m]")
    top.set_ylabel("y [m]")
    top.set_title("COM over the support polygons (from above)", fontsize="medium")
    top.legend(fontsize="x-small", loc="upper right")
    lifted = ~run.active.all(axis=1)
    if lifted.any():
        t_lift = run.time[lifted]
        forces.axvspan(t_lift[0], t_lift[-1], color="grey", alpha=0.15, label="right foot lifted")
    for name, w in run.wrenches.items():
        forces.plot(run.time, w[:, 2], lw=1.5, label=f"{name} f_z")
    forces.axhline(run.mass * 9.81, ls="--", color="grey", lw=0.9, label="m g")
    forces.set_xlabel("time [s]")
    forces.set_ylabel("normal force [N]")
    forces.set_title("normal force per foot (contact frame)", fontsize="medium")
    forces.legend(fontsize="x-small")
    ratio = np.abs(run.tau) / run.effort_limit
    t = run.time[1:]
    torques.plot(t, ratio, color="tab:grey", lw=0.5, alpha=0.6)
    torques.plot(t, ratio.max(axis=1), color="tab:red", lw=1.8, label="largest |τ| / limit")
    torques.axhline(1.0, ls="--", color="k", lw=0.9, label="limit")
    torques.set_ylim(0.0, 1.1)
    torques.set_xlabel("time [s]")
    torques.set_ylabel("|τ| / τ_max")
    torques.set_title("joint torques against their limits", fontsize="medium")
    torques.legend(fontsize="x-small", loc="upper right")
    for ax in (top, forces, torques):
        ax.grid(True, alpha=0.3)
    fig.savefig(path, dpi=90)
    return True


def plot_scene_summary(
    path: str | Path,
    time: np.ndarray,
    errors: Mapping[str, np.ndarray],
    q: np.ndarray,
    names: Sequence[str],
    lower: np.ndarray,
    upper: np.ndarray,
    title: str,
) -> bool:
    """A scene simulation in one light image: target errors over time (log scale, one axis per unit) and
    every joint's position within its limits, (q − lower) / (upper − lower) ∈ [0, 1] (the limits dashed at
    0 and 1).

    Args:
        time: (T,) s. errors: error series by label (unit in the label). q: (T, n) joint positions.
        names: n joint names. lower, upper: (n,) finite position limits.
    """
    if not have_matplotlib():
        return False
    n_units = max(1, len(error_units(errors)))
    fig = _figure((12, max(4.4, 1.0 + 1.9 * n_units)))
    fig.subplots_adjust(left=0.08, right=0.8, bottom=0.12, top=0.88, wspace=0.3)
    fig.suptitle(title)
    grid = fig.add_gridspec(1, 2)
    err_axes = _error_axes(fig, grid[0, 0], time, errors, legend_outside=False)
    err_axes[0].set_title("target errors (one axis per unit)", fontsize="medium")
    joints = fig.add_subplot(grid[0, 1])
    span = np.where(upper > lower, upper - lower, 1.0)
    for i, name in enumerate(names):
        joints.plot(time, (q[:, i] - lower[i]) / span[i], lw=1.2, label=name)
    for limit in (0.0, 1.0):
        joints.axhline(limit, ls="--", color="k", lw=0.9)
    joints.set_ylim(-0.05, 1.05)
    joints.set_xlabel("time [s]")
    joints.set_ylabel("(q − lower) / (upper − lower)")
    joints.set_title("joints within their limits (dashed)", fontsize="medium")
    joints.legend(fontsize="x-small", loc="center left", bbox_to_anchor=(1.02, 0.5))
    joints.grid(True, alpha=0.3)
    fig.savefig(path, dpi=90)
    return True
