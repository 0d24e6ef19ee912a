"""Plain-text reports shared by the command line and the demo: tables, a progress bar, chain tables.

A library module (no argument parsing): ``wbcpy.demo.models`` and ``wbcpy.cli`` both use it, so neither
imports
the other.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np

if TYPE_CHECKING:
    from .arl import Model

__all__ = ["STATUS_UNITS", "ProgressBar", "format_table", "model_chain_table"]

#: units of the task status table's norms (an AccelerationScene's references are accelerations)
STATUS_UNITS = (
    "units of |y_ref|, |y_ref-y_sol|, |y_ref-y|: accelerations; cart rows m/s² (linear) and rad/s² "
    "(angular), jnt rad/s² (m/s² for prismatic joints), com m/s²"
)


def format_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Render a plain-text table with left-aligned columns."""
    cells = [[str(h) for h in header]] + [[_fmt(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _fmt(value: Any) -> str:
    if isinstance(value, float | np.floating):
        return f"{value:.6g}" if math.isfinite(value) else str(value)
    return str(value)


class ProgressBar:
    """A plain-text progress bar (``[#####-----]  50%  1500/3000 steps``) redrawn in place on a stream."""

    def __init__(self, total: int, stream: TextIO | None = None, width: int = 30) -> None:
        self.total = max(1, int(total))
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        is_tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._every = max(1, self.total // (100 if is_tty else 10))  # fewer redraws into logs and pipes

    def __call__(self, done: int, total: int | None = None) -> None:
        """Redraw after ``done`` steps (every 1 % on a terminal, 10 % otherwise, and at the end)."""
        if done % self._every and done != self.total:
            return
        filled = int(self.width * done / self.total)
        bar = "#" * filled + "-" * (self.width - filled)
        end = "\n" if done >= self.total else ""
        self.stream.write(f"\r[{bar}] {100 * done / self.total:5.1f}%  {done}/{self.total} steps{end}")
        self.stream.flush()


def _limits(lower: np.ndarray, upper: np.ndarray) -> str:
    return " ".join(f"[{lo:.4g},{hi:.4g}]" for lo, hi in zip(lower, upper, strict=True))


def model_chain_table(model: Model) -> str:
    """The chain table of an :class:`wbcpy.arl.Model` (the columns of ``wbcpy info --chains``)."""
    rows = []
    for i, chain in enumerate(model.chain):
        rows.append(
            (
                chain.name,
                "yes" if i < model.get_nr_of_main_chains() else "no",
                f"{chain.base} -> {chain.tip}",
                chain.n,
                ",".join(chain.joint_names),
                ",".join(str(g) for g in model.get_global_indices(i)),
                _limits(chain.lower, chain.upper),
            )
        )
    header = ("chain", "main", "base -> tip", "n", "joints", "global", "limits")
    title = (
        f"chains of {model.name}: {model.get_nr_of_chains()} chains, {model.get_nr_of_main_chains()} main, "
        f"{model.get_nr_of_joints()} joints"
    )
    return f"{title}\n{format_table(header, rows)}"
