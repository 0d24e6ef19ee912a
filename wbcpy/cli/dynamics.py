"""``wbcpy dynamics ROBOT --q Q... [--qd QD...] [--floating-base]``: M, g and b at one state.

The sizes follow :meth:`RobotModel.update`: ``--q`` is a configuration, nq values (with a free-flyer base
x, y, z and the quaternion qx, qy, qz, qw first; a continuous joint takes cos, sin), or a posture name of
the robot's SRDF (``--q half_sitting``), or ``neutral``; ``--qd`` is a velocity, nv values (one per DOF).
Values may be separated by spaces or commas (``--q=0.1,-1e-3,0.2`` for numbers argparse would take for
options). The table prints the state per DOF (as :mod:`wbcpy.jspace` does: an angle per revolute or
continuous joint, a length per prismatic one; a floating base as x, y, z and a rotation vector).

Printed: the joint-space inertia matrix M (τ = M q̈ + b + g), the gravity torques g = ∂V/∂q and the
Coriolis/centrifugal torques b = C(q, q̇) q̇, one row per DOF (N·m for revolute DOF, N for prismatic).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from ..reporting import format_table
from .common import (
    add_robot_argument,
    check_finite_output,
    load_robot_arg,
    parse_configuration_arg,
    parse_vector,
)


def split_values(values: Sequence[str] | None) -> list[str] | None:
    """Flatten command-line values that may also be comma-separated (``["0.1,0.2", "0.3"]``)."""
    if values is None:
        return None
    return [v for item in values for v in item.split(",") if v.strip()]


def run(args: argparse.Namespace) -> int:
    """Load the robot, set the state and print M, g and b (exit 2 when a result is not finite)."""
    from ..jspace import Model, State

    robot = load_robot_arg(args)
    names = robot.dof_names
    config = parse_configuration_arg(robot, split_values(args.q), "--q")
    qd = parse_vector(split_values(args.qd), robot.nv, "--qd", f"a velocity: nv = {robot.nv}, one per DOF")
    q = robot.dof_from_q(config)
    model = Model(robot)
    model.update(State(q, qd))
    mass, gravity, coriolis = model.get_mass_inertia(), model.get_gravity(), model.get_coriolis_centrifugal()
    check_finite_output("dynamics", mass, gravity, coriolis)
    print(f"robot {robot.name!r}: {robot.nv} DOF; τ = M q̈ + b + g (SI units, per DOF)")
    print(
        format_table(
            ["dof", "name", "q", "qd", "g", "b"],
            [[i, n, q[i], qd[i], gravity[i], coriolis[i]] for i, n in enumerate(names)],
        )
    )
    print("\nM:")
    print(format_table(["dof", *map(str, range(robot.nv))], [[i, *row] for i, row in enumerate(mass)]))
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``dynamics`` command."""
    parser = subparsers.add_parser(
        "dynamics",
        help="inertia matrix M, gravity g and Coriolis b at a state",
        description=(
            "Print M, g and b of a robot at one state: --q takes nq values (as RobotModel.update), an SRDF "
            "posture name or neutral; --qd takes nv values (one per DOF)."
        ),
    )
    add_robot_argument(parser)
    parser.add_argument(
        "--q",
        nargs="+",
        required=True,
        metavar="Q",
        help="configuration: nq values (rad or m; free-flyer x y z qx qy qz qw first), a posture such as "
        "half_sitting, or neutral",
    )
    parser.add_argument("--qd", nargs="+", metavar="QD", help="velocity: nv values, one per DOF (default: 0)")
    parser.set_defaults(func=run)
