"""Helpers shared by CLI commands: parsing vectors, loading robots, printing tables."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..robot import RobotModel
from ..robots import load_robot
from . import CLIError

__all__ = ["CLIError", "add_robot_argument", "format_table", "load_robot_arg", "parse_vector"]


def add_robot_argument(parser: argparse.ArgumentParser) -> None:
    """Add the positional ROBOT argument (registry name, URDF path) and ``--floating-base``."""
    parser.add_argument("robot", metavar="ROBOT", help="robot name (see `wbcpy info --list`) or URDF path")
    parser.add_argument(
        "--floating-base", action="store_true", default=None, help="add a free-flyer base joint"
    )


def load_robot_arg(args: argparse.Namespace) -> RobotModel:
    """Load ``args.robot`` honouring ``--floating-base`` when given."""
    kwargs: dict[str, Any] = {}
    if getattr(args, "floating_base", None):
        kwargs["floating_base"] = True
    return load_robot(args.robot, **kwargs)


def parse_vector(values: Sequence[str] | None, n: int, name: str) -> np.ndarray:
    """Parse ``n`` floats given on the command line (``None`` → zeros)."""
    if values is None:
        return np.zeros(n)
    try:
        vec = np.array([float(v) for v in values])
    except ValueError as exc:
        raise CLIError(f"{name}: {exc}") from None
    if vec.shape != (n,):
        raise CLIError(f"{name}: expected {n} values, got {vec.size}")
    if not np.isfinite(vec).all():
        raise CLIError(f"{name}: values must be finite")
    return vec


def format_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Render a plain-text table with left-aligned columns."""
    cells = [[str(h) for h in header]] + [[_fmt(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _fmt(value: Any) -> str:
    if isinstance(value, float | np.floating):
        return f"{value:.6g}"
    return str(value)
