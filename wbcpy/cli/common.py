"""Helpers shared by CLI commands: robots, vectors, output paths, solver names, tables.

Output paths (``--out``, ``--plot``) are checked before any work starts, so a bad path is one line on
stderr and exit code 2, not a traceback after a long run.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..reporting import format_table
from . import CLIError

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel

__all__ = [
    "CLIError",
    "add_robot_argument",
    "check_finite_output",
    "check_output_dir",
    "check_plot_path",
    "check_solver",
    "format_table",
    "load_robot_arg",
    "parse_vector",
]


def add_robot_argument(parser: argparse.ArgumentParser) -> None:
    """Add the positional ROBOT argument (registry name, URDF path) and ``--floating-base``."""
    parser.add_argument("robot", metavar="ROBOT", help="robot name (see `wbcpy robots`) or URDF path")
    parser.add_argument(
        "--floating-base", action="store_true", default=None, help="add a free-flyer base joint"
    )


def load_robot_arg(args: argparse.Namespace) -> RobotModel:
    """Load ``args.robot`` honouring ``--floating-base`` when given."""
    from ..model.registry import load_robot

    kwargs: dict[str, Any] = {}
    if getattr(args, "floating_base", None):
        kwargs["floating_base"] = True
    return load_robot(args.robot, **kwargs)


def parse_vector(values: Sequence[str] | None, n: int, name: str) -> np.ndarray:
    """Parse ``n`` finite floats given on the command line (``None`` → zeros)."""
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


def _probe_folder(folder: Path, option: str) -> None:
    """Create ``folder`` if needed and check a file can be written in it."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise CLIError(f"{option}: cannot write to {str(folder)!r} ({exc.strerror or exc})") from None


def check_output_dir(path: str | Path, option: str = "--out") -> Path:
    """A folder for output files: created when missing; must not be a file and must be writable."""
    folder = Path(path).expanduser()
    if folder.exists() and not folder.is_dir():
        raise CLIError(f"{option}: {str(folder)!r} is a file, not a folder")
    _probe_folder(folder, option)
    return folder


def check_plot_path(path: str | Path, option: str = "--plot") -> Path:
    """A plot file path: a format matplotlib writes (by extension), not a folder, in a writable folder."""
    target = Path(path).expanduser()
    if target.is_dir():
        raise CLIError(f"{option}: {str(target)!r} is a folder; give a file name such as plot.png")
    try:
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError:  # no plot is written without matplotlib: the command says so later
        return target
    formats = FigureCanvasBase.get_supported_filetypes()
    ext = target.suffix.lower().lstrip(".")
    if ext not in formats:
        raise CLIError(
            f"{option}: unknown image format {target.suffix or '(no extension)'!r}; use one of "
            f"{', '.join('.' + f for f in sorted(formats))}"
        )
    if not target.parent.is_dir():
        raise CLIError(f"{option}: folder {str(target.parent)!r} does not exist")
    _probe_folder(target.parent, option)
    return target


def check_solver(name: str | None, option: str = "--solver") -> None:
    """Check a QP backend name; an installable but absent one says how to install it."""
    if name is None:
        return
    from ..qp import available_solvers

    usable = available_solvers()
    if name in usable:
        return
    import qpsolvers.solvers

    known = sorted(n.removesuffix("_solve_qp") for n in dir(qpsolvers.solvers) if n.endswith("_solve_qp"))
    installed = f"usable here: {', '.join(usable)}"
    if name in qpsolvers.available_solvers:
        from ..qp.registry import unavailable_reasons

        why = unavailable_reasons().get(name, "it failed wbcpy's self-test")
        raise CLIError(f"{option}: QP backend {name!r} is installed but not usable ({why}); {installed}")
    if name in known:
        raise CLIError(
            f"{option}: QP backend {name!r} is supported by qpsolvers but not installed: "
            f"`pip install qpsolvers[{name}]` (or the solver's own package); {installed}"
        )
    supported = f"qpsolvers supports {', '.join(known)}"
    raise CLIError(f"{option}: unknown QP backend {name!r}; {installed}; {supported}")


def check_finite_output(name: str, *arrays: Any) -> None:
    """Raise :class:`CLIError` when a result to be printed contains NaN or inf (never print them, exit 0)."""
    for arr in arrays:
        values = np.asarray(arr, dtype=float)
        if not np.isfinite(values).all():
            raise CLIError(f"{name}: the result is not finite (NaN or inf); are the inputs too large?")
