"""URDF facts read with xml.etree only: the independent oracle of the chain and arl tests.

Nothing here imports wbcpy or Pinocchio: joint paths, types and limits come straight from the XML.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest

from wbcpy.model.registry import available, example_robot_data_dir, load_robot, robot_path


@dataclass
class UrdfJoint:
    name: str
    type: str
    parent: str
    child: str
    lower: float
    upper: float
    velocity: float
    effort: float


def parse_joints(path: str | Path) -> dict[str, UrdfJoint]:
    """Every <joint> of a URDF by name (limits: ∓inf for continuous joints, +inf when absent)."""
    root = ET.parse(str(path)).getroot()
    out: dict[str, UrdfJoint] = {}
    for el in root.findall("joint"):
        lim = el.find("limit")
        kind = el.get("type")

        def attr(name: str, default: float, lim: ET.Element | None = lim) -> float:
            if lim is None or lim.get(name) is None:
                return default
            return float(lim.get(name))

        lower, upper = attr("lower", -math.inf), attr("upper", math.inf)
        if kind == "continuous":
            lower, upper = -math.inf, math.inf
        out[el.get("name")] = UrdfJoint(
            name=el.get("name"),
            type=kind,
            parent=el.find("parent").get("link"),
            child=el.find("child").get("link"),
            lower=lower,
            upper=upper,
            velocity=attr("velocity", math.inf),
            effort=attr("effort", math.inf),
        )
    return out


def path_joints(path: str | Path, base_link: str, tip_link: str) -> list[str]:
    """Moving joints from link ``base_link`` down to link ``tip_link`` (base → tip), from the XML tree."""
    joints = parse_joints(path)
    by_child = {j.child: j for j in joints.values()}
    out: list[str] = []
    link = tip_link
    while link != base_link:
        joint = by_child[link]  # KeyError: tip not below base
        if joint.type != "fixed":
            out.append(joint.name)
        link = joint.parent
    return out[::-1]


def need_example_robot(name: str):
    """Load an example-robot-data robot, or skip the test with the reason when it is absent.

    Same behaviour as conftest's ``example_robot`` fixture, usable from module-scoped fixtures too.
    """
    if example_robot_data_dir() is None:
        pytest.skip("example-robot-data is not installed (pip install example-robot-data)")
    if name not in available():
        pytest.skip(f"this example-robot-data installation has no {name!r}")
    return load_robot(name)


def urdf_file(name: str) -> Path:
    """URDF path of a registry robot name (shipped or example-robot-data)."""
    return robot_path(name)
