"""``wbcpy robots``: every robot name on this installation, with its source, base and file.

Sources: ``wbcpy`` (shipped), ``example-robot-data`` and ``icub-models`` when installed (see
:mod:`wbcpy.model.registry`). Aliases follow as ``alias -> name``. ``--names`` prints the names only (the
same list
as ``wbcpy info --list``); ``--markdown`` prints a compact Markdown table (the robot list of docs/robots.md
is made so: ``wbcpy robots --markdown --source wbcpy,example-robot-data``).
"""

from __future__ import annotations

import argparse

from ..reporting import format_table


def robot_rows() -> list[list[str]]:
    """One row per registry entry (name, source, base, SRDF, default end effector, file), then aliases."""
    from ..model.registry import aliases, registry

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


def markdown_table(sources: list[str] | None = None) -> str:
    """A compact Markdown table: one row per (source, base) with the names, then the aliases.

    Args:
        sources: keep only these sources (default: all).
    """
    from ..model.registry import aliases, registry

    groups: dict[tuple[str, str], list[str]] = {}
    for name, entry in registry().items():
        if sources is None or entry.source in sources:
            base = "floating" if entry.floating_base else "fixed"
            groups.setdefault((entry.source, base), []).append(f"`{name}`")
    lines = ["| source | base | names |", "|---|---|---|"]
    lines += [f"| {src} | {base} | {', '.join(names)} |" for (src, base), names in groups.items()]
    names = registry()
    shown = [
        f"`{a}` → `{t}`"
        for a, t in sorted(aliases().items())
        if sources is None or names[t].source in sources
    ]
    if shown:
        lines.append(f"| aliases | | {', '.join(shown)} |")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Print the robot table."""
    from ..model.registry import available, example_robot_data_dir

    if args.names:
        print("\n".join(available()))
        return 0
    sources = args.source.split(",") if args.source else None
    if args.markdown:
        print(markdown_table(sources))
        return 0
    rows = [r for r in robot_rows() if sources is None or r[1] in sources or r[1].startswith("alias")]
    print(format_table(HEADER, rows))
    if example_robot_data_dir() is None:
        print("more robots (panda, ur5, talos, icub, go1...): pip install example-robot-data")
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``robots`` command."""
    parser = subparsers.add_parser(
        "robots",
        help="list the robot names of this installation with their source",
        description="List every robot name load_robot resolves: shipped, example-robot-data, icub-models.",
    )
    parser.add_argument("--names", action="store_true", help="print only the names, one per line")
    parser.add_argument(
        "--markdown", action="store_true", help="print a compact Markdown table (names per source and base)"
    )
    parser.add_argument(
        "--source", metavar="S1,S2", help="only these sources (wbcpy, example-robot-data, icub-models)"
    )
    parser.set_defaults(func=run)
