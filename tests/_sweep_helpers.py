"""Scene and sweep files for the sweep tests (small, fast runs on the shipped lwr4 arm)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

Q0 = [0.3, 0.6, -0.2, -1.2, 0.3, 0.8, 0.1]
JOINTS = [f"lwr_joint_{i}" for i in range(1, 8)]


def reach_scene(joint_limits: bool = True) -> dict[str, Any]:
    """The arm reach of examples/scene_reach.yaml: a Cartesian task over a posture task."""
    return {
        "robot": "lwr4",
        "q0": list(Q0),
        "dt": 0.001,
        "steps": 40,
        "joint_limits": joint_limits,
        "tasks": [
            {
                "name": "ee",
                "type": "cart",
                "tip": "lwr_ee",
                "priority": 0,
                "target": {"offset": [0.1, -0.15, 0.1]},
                "kp": 100,
                "kd": 20,
            },
            {"name": "posture", "type": "jnt", "priority": 1, "joint_names": JOINTS, "kp": 10, "kd": 6.3},
        ],
    }


def write_yaml(path: Path, doc: Any) -> Path:
    """Write ``doc`` as YAML to ``path`` and return the path."""
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def write_sweep(
    folder: Path, sweep: dict[str, Any], scene: dict[str, Any] | None = None, name: str = "sweep"
) -> Path:
    """Write ``scene`` (default: :func:`reach_scene`) as ``scene.yaml`` and the sweep file next to it."""
    write_yaml(folder / "scene.yaml", reach_scene() if scene is None else scene)
    return write_yaml(folder / f"{name}.yaml", {"scene": "scene.yaml", **sweep})
