"""URDF loading for :meth:`~wbcpy.model.robot_model.RobotModel.from_urdf`: read, check and parse into a
``pin.Model``.

A URDF is accepted as a file path or as the XML itself. Before Pinocchio parses it, the XML is checked
(:mod:`wbcpy.description.urdf_checks`: structure, numbers, size; :mod:`wbcpy.description.urdf_physics`:
masses, inertias, axes,
limits) so that a bad file raises :class:`~wbcpy.errors.URDFError` naming element, attribute, value and
line. What urdfdom prints on the C++ side (stderr) is captured: it becomes part of the error message when
Pinocchio still rejects the file, or a :class:`~wbcpy.errors.URDFWarning` when it loads.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pinocchio as pin

from .._support.validation import as_vector
from ..errors import URDFError, URDFNotFoundError, URDFWarning, close_matches
from .urdf_checks import check_urdf
from .urdf_physics import PhysicsMode, apply_physics_checks

__all__ = ["UrdfSource", "captured_stderr", "load_urdf_model", "read_urdf"]

_STDERR_LOCK = threading.Lock()


@dataclass(frozen=True)
class UrdfSource:
    """Where a URDF came from: a label for messages, the file (or None for inline XML) and the XML."""

    label: str
    path: Path | None
    text: str


def _missing(path: Path) -> URDFNotFoundError:
    folder = path.parent if str(path.parent) else Path(".")
    try:
        names = [p.name for p in folder.iterdir()] if folder.is_dir() else []
    except OSError:
        names = []
    return URDFNotFoundError(str(path), close_matches(path.name, names, n=3))


def read_urdf(source: str | Path) -> UrdfSource:
    """Read a URDF given as a path or as XML (a string containing ``<robot``).

    Raises:
        URDFNotFoundError: the path does not exist (also a ``FileNotFoundError``); the message names
            similar files of the folder.
        URDFError: a folder, or a file that cannot be read as UTF-8 text.
    """
    text = str(source)
    if not isinstance(source, Path) and "<robot" in text:
        return UrdfSource("<xml>", None, text)
    path = Path(text).expanduser()
    if not path.exists():
        raise _missing(path)
    if not path.is_file():
        raise URDFError(str(path), "is a folder, not a URDF file")
    try:
        return UrdfSource(str(path), path.resolve(), path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise URDFError(str(path), f"unreadable ({exc})") from None


@contextlib.contextmanager
def captured_stderr() -> Iterator[list[str]]:
    """Capture what C/C++ code writes to file descriptor 2 while the block runs (text in the list).

    The Python-level ``sys.stderr`` is untouched; when fd 2 cannot be duplicated nothing is captured.
    """
    out: list[str] = []
    with _STDERR_LOCK, tempfile.TemporaryFile() as tmp:
        try:
            saved = os.dup(2)
        except OSError:
            yield out
            return
        try:
            os.dup2(tmp.fileno(), 2)
            yield out
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            out.append(tmp.read().decode("utf-8", "replace"))


def _urdfdom_lines(text: str) -> str:
    """The messages of urdfdom's log, without its 'at line N in file.cpp' locations."""
    lines = [ln.strip() for ln in text.splitlines()]
    keep = [ln.removeprefix("Error:").strip() for ln in lines if ln and not ln.startswith("at line")]
    return "; ".join(keep)


def load_urdf_model(
    source: str | Path,
    floating_base: bool,
    gravity: Sequence[float],
    check_physics: PhysicsMode = True,
) -> tuple[pin.Model, UrdfSource]:
    """Parse a URDF (path or XML) into a ``pin.Model`` with the given gravity (m/s², world frame).

    Args:
        check_physics: see :func:`wbcpy.description.urdf_physics.apply_physics_checks`.

    Returns:
        The model and where it came from.

    Raises:
        InvalidValueError: a non-finite or wrongly sized gravity vector, or a bad ``check_physics``.
        URDFNotFoundError, URDFError: see :func:`read_urdf`,
            :func:`~wbcpy.description.urdf_checks.check_urdf` and
            :func:`~wbcpy.description.urdf_physics.apply_physics_checks`; also a URDF that Pinocchio rejects.
    """
    grav = as_vector(gravity, 3, "gravity")
    src = read_urdf(source)
    tree = check_urdf(src.text, src.label)
    apply_physics_checks(tree, check_physics, src.label)
    with captured_stderr() as log:
        try:
            if floating_base:
                model = pin.buildModelFromXML(src.text, pin.JointModelFreeFlyer())
            else:
                model = pin.buildModelFromXML(src.text)
            error = None
        except (RuntimeError, ValueError) as exc:
            model, error = None, str(exc).strip().splitlines()[0] if str(exc).strip() else "invalid"
    said = _urdfdom_lines("".join(log))
    if model is None:
        raise URDFError(src.label, f"{error} ({said})" if said else str(error))
    if said:
        warnings.warn(f"URDF {src.label!r}: urdfdom reported: {said}", URDFWarning, stacklevel=3)
    model.gravity.linear = grav
    return model, src
