"""PNG plots of simulations and reaches (optional: needs matplotlib, the ``wbcpy[plot]`` extra).

Every function writes one PNG with matplotlib's object-oriented API (no global pyplot state, no display
needed) and returns True, or returns False without writing anything when matplotlib is not installed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "have_matplotlib",
    "plot_joint_trajectories",
    "plot_reach",
    "plot_task_errors",
    "plot_tip_path",
]


def have_matplotlib() -> bool:
    """True when matplotlib can be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _figure(size: tuple[float, float]) -> Any:
    from matplotlib.figure import Figure

    return Figure(figsize=size, layout="constrained")


def plot_task_errors(
    path: str | Path, time: np.ndarray, errors: Mapping[str, np.ndarray], title: str
) -> bool:
    """Target error norms over time (log scale), one line per task error series."""
    if not have_matplotlib():
        return False
    fig = _figure((8, 4.5))
    ax = fig.add_subplot(1, 1, 1)
    for label, series in errors.items():
        ax.semilogy(time, np.maximum(np.asarray(series), 1e-12), label=label)
    ax.set_xlabel("time [s]")
    ax.set_ylabel("target error [m, rad]")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")
    fig.savefig(path, dpi=100)
    return True


def plot_joint_trajectories(
    path: str | Path,
    time: np.ndarray,
    q: np.ndarray,
    names: Sequence[str],
    lower: np.ndarray,
    upper: np.ndarray,
    title: str,
) -> bool:
    """Joint positions over time (one colour per joint) with their position limits as dashed lines.

    Args:
        time: (T,) sample times in s. q: (T, n) joint positions (rad or m).
        names: n joint names. lower, upper: (n,) limits (non-finite limits are not drawn).
    """
    if not have_matplotlib():
        return False
    fig = _figure((9, 5))
    _joint_axes(fig.add_subplot(1, 1, 1), time, q, names, lower, upper, title)
    fig.savefig(path, dpi=100)
    return True


def _joint_axes(
    ax: Any,
    time: np.ndarray,
    q: np.ndarray,
    names: Sequence[str],
    lower: np.ndarray,
    upper: np.ndarray,
    title: str,
) -> None:
    for i, name in enumerate(names):
        (line,) = ax.plot(time, q[:, i], label=name)
        for limit in (lower[i], upper[i]):
            if np.isfinite(limit):
                ax.axhline(limit, color=line.get_color(), ls="--", lw=0.8)
    ax.set_xlabel("time [s]")
    ax.set_ylabel("q [rad or m]")
    ax.set_title(f"{title} (dashed: limits)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small", loc="best", ncol=2)


def plot_tip_path(path: str | Path, tips: np.ndarray, target: np.ndarray, title: str) -> bool:
    """3-D tip path (tips: (T, 3), m) from start (green) to target (red cross), with the straight segment."""
    if not have_matplotlib():
        return False
    fig = _figure((7, 6))
    _tip_path_axes(fig.add_subplot(1, 1, 1, projection="3d"), tips, target, title)
    fig.savefig(path, dpi=100)
    return True


def _tip_path_axes(ax: Any, tips: np.ndarray, target: np.ndarray, title: str) -> None:
    ax.plot(tips[:, 0], tips[:, 1], tips[:, 2], lw=1.5, label="tip path")
    seg = np.vstack([tips[0], target])
    ax.plot(seg[:, 0], seg[:, 1], seg[:, 2], ls=":", color="grey", label="straight segment")
    ax.scatter(*tips[0], marker="o", color="tab:green", label="start")
    ax.scatter(*target, marker="x", s=60, color="tab:red", label="target")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_zlabel("z [m]")
    ax.set_title(title)
    ax.legend(loc="upper left", fontsize="small")


def plot_reach(path: str | Path, result: Any, chain: Any) -> bool:
    """A reach (:class:`~wbcpy.ik.reaching.ReachResult` on a :class:`~wbcpy.chain.Chain`) in one PNG:
    the tip path in 3-D beside the joint trajectories with their limits."""
    if not have_matplotlib():
        return False
    fig = _figure((13, 5))
    _tip_path_axes(
        fig.add_subplot(1, 2, 1, projection="3d"),
        result.tips,
        result.target.translation,
        f"tip path in {chain.base}",
    )
    _joint_axes(
        fig.add_subplot(1, 2, 2),
        result.time,
        result.q,
        chain.joint_names,
        chain.lower,
        chain.upper,
        "joint trajectories",
    )
    fig.savefig(path, dpi=100)
    return True
