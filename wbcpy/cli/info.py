"""``wbcpy info ROBOT``: joints, types, limits and masses of a robot; ``wbcpy info --list``: robot names.

One row per node (moving link) of the jspace view of the robot: node ID, joint, joint type, DOF index,
position limits (rad or m), velocity and effort limits, link and mass; then the total mass and the SRDF
postures. Frames (with their types and parent joints) are listed by ``wbcpy frames ROBOT``.
"""

from __future__ import annotations

import argparse
import math
from typing import TYPE_CHECKING

from ..reporting import format_table
from . import CLIError
from ._chains import add_chains_argument, chain_table
from .common import add_package_dir_argument, load_robot_arg

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel

_KINDS = {
    "FreeFlyer": "free-flyer",
    "Spherical": "spherical",
    "Planar": "planar",
    "RevoluteUnbounded": "continuous",
    "RUB": "continuous",
    "Revolute": "revolute",
    "JointModelR": "revolute",
    "Prismatic": "prismatic",
    "JointModelP": "prismatic",
}


def joint_kind(shortname: str) -> str:
    """URDF-style joint type of a Pinocchio joint model name (``JointModelRZ`` → ``revolute``)."""
    for key, kind in _KINDS.items():
        if key in shortname:
            return kind
    return shortname.removeprefix("JointModel").lower()


def _limit(value: float) -> str:
    return "—" if not math.isfinite(value) else f"{value:.6g}"


def robot_table(robot: RobotModel) -> str:
    """The node table of ``robot`` followed by its mass summary, as printed by ``wbcpy info``."""
    from ..jspace import Model

    model = Model(robot)
    lower, upper = model.get_joint_limits()
    velocity, effort = robot.velocity_limit, robot.effort_limit
    mimic = {m.name: m for m in robot.mimic_joints}
    rows = []
    for node in model.nodes:
        i = node.dof_index
        single = node.ndof == 1
        follows = mimic.get(node.joint_name)
        dof = str(i) if single else f"{i}-{i + node.ndof - 1}"
        if follows is not None:  # no DOF of its own: q = m q_leader + offset
            dof = f"= {follows.multiplier:.6g}·{follows.mimicked} + {follows.offset:.6g}"
        rows.append(
            [
                node.id,
                node.joint_name,
                joint_kind(node.joint_type),
                dof,
                _limit(lower[i]) if single else "—",
                _limit(upper[i]) if single else "—",
                _limit(velocity[i]) if single else "—",
                _limit(effort[i]) if single else "—",
                node.name,
                node.mass,
            ]
        )
    header = ["node", "joint", "type", "dof", "lower", "upper", "max vel", "max effort", "link", "mass kg"]
    base = "floating" if robot.floating_base else "fixed"
    lines = [
        f"robot {robot.name!r} from {robot.source}: {model.get_n_nodes()} moving links, "
        f"{robot.nv} DOF, {base} base (root link {robot.root_link!r})",
        format_table(header, rows),
        f"total mass (moving links): {sum(n.mass for n in model.nodes):.6g} kg",
    ]
    fixed_mass = float(robot.model.inertias[0].mass)
    if fixed_mass > 0.0:
        lines.append(f"mass fixed to the world (not moved by any joint): {fixed_mass:.6g} kg")
    postures = robot.reference_configuration_names()
    if postures:
        where = f"MJCF keyframes of {robot.mjcf_path}" if robot.mjcf_path else f"SRDF {robot.srdf_path}"
        lines.append(f"reference postures ({where}): {', '.join(postures)}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Print the robot list (``--list``) or the table of one robot."""
    if args.list:
        from ..model.registry import available

        print("\n".join(available()))
        return 0
    if args.robot is None:
        raise CLIError("give a ROBOT name or URDF path, or --list")
    robot = load_robot_arg(args)
    chains = chain_table(args.chains, robot) if args.chains else None  # validate before printing
    print(robot_table(robot))
    if chains is not None:
        print(f"\n{chains}")
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``info`` command."""
    parser = subparsers.add_parser(
        "info",
        help="joints, types, limits and masses of a robot",
        description="Print a robot's joints (types, limits), link masses and total mass.",
    )
    parser.add_argument(
        "robot", nargs="?", metavar="ROBOT", help="robot name (see --list), URDF or MJCF path"
    )
    parser.add_argument("--list", action="store_true", help="print the available robot names and exit")
    parser.add_argument(
        "--floating-base", action="store_true", default=None, help="add a free-flyer base joint"
    )
    add_package_dir_argument(parser)
    add_chains_argument(parser)
    parser.set_defaults(func=run)
