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

from . import CLIError

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel


PACKAGE_DIR_HELP = (
    "folder that holds the packages of the URDF's package:// mesh URIs (repeatable; searched first, then "
    "the folders of ROS_PACKAGE_PATH, then the URDF's folder and their ancestors)"
)


def add_package_dir_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--package-dir DIR`` (repeatable): ``package_dirs`` of :meth:`RobotModel.from_urdf`."""
    parser.add_argument(
        "--package-dir", action="append", metavar="DIR", dest="package_dirs", help=PACKAGE_DIR_HELP
    )


def add_robot_argument(parser: argparse.ArgumentParser) -> None:
    """Add the positional ROBOT argument (registry name, URDF path), ``--floating-base`` and
    ``--package-dir``."""
    parser.add_argument("robot", metavar="ROBOT", help="robot name (see `wbcpy robots`), URDF or MJCF path")
    parser.add_argument(
        "--floating-base", action="store_true", default=None, help="add a free-flyer base joint"
    )
    add_package_dir_argument(parser)


def package_dirs_arg(args: argparse.Namespace) -> list[str]:
    """The ``--package-dir`` folders, checked: each must be an existing folder."""
    dirs = list(getattr(args, "package_dirs", None) or [])
    for folder in dirs:
        if not Path(folder).expanduser().is_dir():
            raise CLIError(f"--package-dir: {folder!r} is not a folder")
    return [str(Path(d).expanduser()) for d in dirs]


def load_robot_arg(args: argparse.Namespace) -> RobotModel:
    """Load ``args.robot`` honouring ``--floating-base`` and ``--package-dir`` when given."""
    from ..model.registry import load_robot

    kwargs: dict[str, Any] = {}
    if getattr(args, "floating_base", None):
        kwargs["floating_base"] = True
    dirs = package_dirs_arg(args)
    if dirs:
        kwargs["package_dirs"] = dirs
    return load_robot(args.robot, **kwargs)


def _configuration_help(robot: RobotModel) -> str:
    """What a configuration option takes, for this robot: nq values, a posture name, ``neutral``."""
    postures = robot.reference_configuration_names()
    named = f"a posture of the robot's SRDF ({', '.join(postures)}), " if postures else ""
    base = "; a free-flyer base takes x y z qx qy qz qw first" if robot.nq - robot.nv == 1 else ""
    return f"nq = {robot.nq} values (a configuration, as RobotModel.update takes{base}), {named}or neutral"


def parse_configuration_arg(robot: RobotModel, values: Sequence[str] | None, option: str) -> np.ndarray:
    """A configuration (nq) from a command-line option: ``neutral``, an SRDF posture name or nq numbers.

    Raises:
        CLIError: a wrong number of values (the message says nq, and that nv values were given when so),
            a value that is not a number, NaN or inf, an unknown posture name.
    """
    from ..errors import UnknownNameError, WbcpyError
    from ..viz.postures import parse_configuration

    items = list(values or [])
    numbers = bool(items) and not (len(items) == 1 and not _is_number(items[0]))
    if numbers and len(items) != robot.nq:
        per_dof = f" (that is nv = {robot.nv}, one per DOF)" if len(items) == robot.nv else ""
        raise CLIError(f"{option}: expected {_configuration_help(robot)}; got {len(items)} values{per_dof}")
    try:
        return parse_configuration(robot, items or None)
    except UnknownNameError as exc:
        raise CLIError(f"{option}: {exc.message}; expected {_configuration_help(robot)}") from None
    except WbcpyError as exc:
        raise CLIError(f"{option}: {exc}") from None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def parse_vector(values: Sequence[str] | None, n: int, name: str, what: str | None = None) -> np.ndarray:
    """Parse ``n`` finite floats given on the command line (``None`` → zeros); ``what`` says in the size
    message what the values are (``"nv = 8: one per DOF"``)."""
    if values is None:
        return np.zeros(n)
    try:
        vec = np.array([float(v) for v in values])
    except ValueError as exc:
        raise CLIError(f"{name}: {exc}") from None
    if vec.shape != (n,):
        raise CLIError(f"{name}: expected {n} values{'' if what is None else f' ({what})'}, got {vec.size}")
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


def check_output_file(path: str | Path, option: str) -> Path:
    """An output file path: not a folder, in an existing folder where a file can be created (the folder
    is not created: a mistyped folder is an error, not a new tree)."""
    target = Path(path).expanduser()
    if target.is_dir():
        raise CLIError(f"{option}: {str(target)!r} is a folder; give a file name")
    if not target.parent.is_dir():
        raise CLIError(f"{option}: folder {str(target.parent)!r} does not exist")
    _probe_folder(target.parent, option)
    return target


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
