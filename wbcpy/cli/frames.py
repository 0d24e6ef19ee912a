"""``wbcpy frames ROBOT``: every frame of a robot with its type, parent joint and placement.

Frames are what chains, tasks and ``wbcpy reach --tip`` name: links (``BODY``), joints (``JOINT``),
fixed joints (``FIXED_JOINT``), operational frames such as ``panda_hand_tcp`` and sensors. The placement is
the frame's pose in its parent joint's frame (x y z in m, roll pitch yaw in rad), as in the URDF.
``--type`` keeps one kind; ``--grep TEXT`` keeps the names that contain TEXT.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..reporting import format_table
from .common import add_robot_argument, load_robot_arg

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel

#: --type values -> Pinocchio frame type names
FRAME_TYPES = {"body": "BODY", "joint": "JOINT", "fixed": "FIXED_JOINT", "op": "OP_FRAME", "sensor": "SENSOR"}


def frame_rows(robot: RobotModel, kind: str | None = None, grep: str | None = None) -> list[list[object]]:
    """Rows (id, name, type, parent joint, x, y, z, roll, pitch, yaw) of the robot's frames."""
    import pinocchio as pin

    model = robot.model
    rows: list[list[object]] = []
    for fid in range(len(model.frames)):
        frame = model.frames[fid]
        ftype = str(frame.type).rsplit(".", 1)[-1]
        if kind is not None and ftype != FRAME_TYPES[kind]:
            continue
        if grep is not None and grep not in frame.name:
            continue
        placement = frame.placement
        rpy = pin.rpy.matrixToRpy(placement.rotation)
        rows.append([fid, frame.name, ftype, model.names[frame.parentJoint], *placement.translation, *rpy])
    return rows


def run(args: argparse.Namespace) -> int:
    """Print the frame table."""
    robot = load_robot_arg(args)
    rows = frame_rows(robot, args.type, args.grep)
    print(f"robot {robot.name!r}: {len(robot.model.frames)} frames, {len(rows)} shown")
    header = ["id", "frame", "type", "parent joint", "x", "y", "z", "roll", "pitch", "yaw"]
    print(format_table(header, rows))
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``frames`` command."""
    parser = subparsers.add_parser(
        "frames",
        help="frames of a robot (links, joints, tool frames) with type, parent joint and placement",
        description="List a robot's frames: the names chains, tasks and `wbcpy reach --tip` take.",
    )
    add_robot_argument(parser)
    parser.add_argument("--type", choices=sorted(FRAME_TYPES), help="only frames of this type")
    parser.add_argument("--grep", metavar="TEXT", help="only frames whose name contains TEXT")
    parser.set_defaults(func=run)
