"""HTML animations of wbcpy runs: a scene simulation (``wbcpy scene``), a min-jerk reach (``wbcpy reach``).

Each function turns a run's result into the inputs of :func:`~wbcpy.viz.animation.write_animation`: the
configurations over time, the path of every task frame, the targets in the world and the obstacles.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pinocchio as pin

from .animation import write_animation


def _world_placement(robot: Any, q: np.ndarray, frame_id: int) -> pin.SE3:
    """Placement of a frame in the world at ``q``, computed in a fresh ``pin.Data`` (robot untouched)."""
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, q)
    return pin.SE3(data.oMf[frame_id])


def animate_scene(setup: Any, result: Any, out: str | Path, obstacles: Iterable[Any] = ()) -> Path:
    """Animate a scene simulation: the robot, the path of every Cartesian task's tip and its target.

    Args:
        setup: the :class:`~wbcpy.scenes.files.scene_file.SceneSetup` that was simulated.
        result: its :class:`~wbcpy.sim.simulation.SimulationResult` (``time``, ``q_path``).
        out: the HTML file to write.
        obstacles: world obstacles to draw (see :mod:`wbcpy.viz.overlays`).

    Returns:
        The file written.
    """
    robot = setup.robot
    tips: list[str] = []
    targets: list[np.ndarray] = []
    for entry in setup.targets:
        task = entry.task
        if getattr(task, "tip", None) is None:
            continue
        tips.append(task.tip)
        if isinstance(entry.target, pin.SE3):  # tip pose in root coordinates
            root = _world_placement(robot, result.q_path[0], task.root_id)
            targets.append((root * entry.target).translation)
    title = f"{robot.name}: {Path(str(setup.source)).name if setup.source != '<dict>' else 'scene'}"
    return write_animation(
        robot,
        result.time,
        result.q_path,
        out,
        trace_frames=list(dict.fromkeys(tips)),
        targets=targets,
        obstacles=obstacles,
        title=title,
    )


def animate_reach(chain: Any, result: Any, out: str | Path) -> Path:
    """Animate a min-jerk reach: the robot, the path of the chain's tip and the target position.

    Args:
        chain: the :class:`~wbcpy.model.chain.Chain` the controller drove (its other joints stay at rest).
        result: the :class:`~wbcpy.ik.reaching.ReachResult` (``time``, chain angles ``q``, ``target`` in
            the chain's base frame).
        out: the HTML file to write.

    Returns:
        The file written.
    """
    robot = chain.robot
    q_path = np.array([chain.full_q(q) for q in result.q])
    base = _world_placement(robot, q_path[0], robot.frame_id(chain.base))
    target = (base * result.target).translation
    title = f"{robot.name}: min-jerk reach {chain.base} -> {chain.tip}"
    return write_animation(
        robot, result.time, q_path, out, trace_frames=[chain.tip], targets=[target], title=title
    )
