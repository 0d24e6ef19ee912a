"""``wbcpy robots``: every robot name on this installation, with its source, base and file.

Sources: ``wbcpy`` (shipped), ``example-robot-data`` and ``icub-models`` when installed (see
:mod:`wbcpy.robots`). Aliases follow as ``alias -> name``. ``--names`` prints the names only (the same list
as ``wbcpy info --list``); ``--markdown`` prints the table as Markdown (README's robot list is made so).
"""

from __future__ import annotations

import argparse

from .common import format_table

__all__ = ["register", "robot_rows", "run"]


def robot_rows() -> list[list[str]]:
    """One row per registry entry (name, source, base, SRDF, default end effector, file), then aliases."""
    from ..robots import aliases, registry

    rows = []
    for name, entry in registry().items():
        rows.append(
            [
                name,
                entry.source,
                "floating" if entry.floating_base else "fixed",
                entry.srdf.name if entry.srdf else "-",
                entry.end_effector or "-",
                f"{entry.urdf.parent.parent.name}/{entry.urdf.parent.name}/{entry.urdf.name}"
                if entry.source != "wbcpy"
                else f"robots/{entry.urdf.name}",
            ]
        )
    rows += [[alias, f"alias of {target}", "", "", "", ""] for alias, target in sorted(aliases().items())]
    return rows


HEADER = ["name", "source", "base", "SRDF", "end effector", "file"]


def markdown_table(rows: list[list[str]]) -> str:
    """The rows as a Markdown table (names in backquotes)."""
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for row in rows:
        cells = [f"`{row[0]}`", *(c or " " for c in row[1:])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Print the robot table."""
    from ..robots import available, example_robot_data_dir

    if args.names:
        print("\n".join(available()))
        return 0
    rows = robot_rows()
    print(markdown_table(rows) if args.markdown else format_table(HEADER, rows))
    if example_robot_data_dir() is None and not args.markdown:
        print("more robots (panda, ur5, talos, icub, go1...): pip install example-robot-data")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``robots`` command."""
    parser = subparsers.add_parser(
        "robots",
        help="list the robot names of this installation with their source",
        description="List every robot name load_robot resolves: shipped, example-robot-data, icub-models.",
    )
    parser.add_argument("--names", action="store_true", help="print only the names, one per line")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.set_defaults(func=run)
