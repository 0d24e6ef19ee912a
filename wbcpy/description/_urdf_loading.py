"""URDF loading for :meth:`~wbcpy.model.robot_model.RobotModel.from_urdf`: read, check and parse into a
``pin.Model``.

A URDF is accepted as a file path or as the XML itself. Mimic joints (``<mimic joint multiplier
offset>``) are built as Pinocchio mimic joints: q_mimic = multiplier · q_leader + offset, no DOF of their
own (:attr:`wbcpy.model._names.RobotNames.mimic_joints`). Before Pinocchio parses it, the XML is checked
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
from math import inf
from pathlib import Path

import pinocchio as pin

from .._support.validation import as_vector
from ..errors import URDFError, URDFNotFoundError, URDFWarning, close_matches
from .urdf_checks import UrdfTree, check_urdf
from .urdf_physics import PhysicsMode, apply_physics_checks

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
    mimic: bool = True,
) -> tuple[pin.Model, UrdfSource]:
    """Parse a URDF (path or XML) into a ``pin.Model`` with the given gravity (m/s², world frame).

    Args:
        check_physics: see :func:`wbcpy.description.urdf_physics.apply_physics_checks`.
        mimic: couple mimic joints to their leaders (default); False loads them as independent joints.

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
    # mimic joints: Pinocchio (≥ 3.4) couples them to their leader, one DOF for both; when it cannot, the
    # URDF loads as before (independent joints) with a warning that says why
    why = "; ".join(tree.mimic_problems)
    wanted, mimic = bool(tree.mimic) and mimic, bool(tree.mimic) and mimic and not why
    model, error, said = _build(src.text, floating_base, mimic)
    if model is None and mimic:
        why, mimic = str(error), False
        model, error, said = _build(src.text, floating_base, False)
    if model is None:
        raise URDFError(src.label, f"{error} ({said})" if said else str(error))
    if said:
        warnings.warn(f"URDF {src.label!r}: urdfdom reported: {said}", URDFWarning, stacklevel=3)
    if wanted and not mimic:
        warnings.warn(
            f"URDF {src.label!r}: mimic joints not coupled, loaded as independent joints: {why}",
            URDFWarning,
            stacklevel=3,
        )
    model.gravity.linear = grav
    if mimic:
        _couple_limits(model, tree, src.label)
    return model, src


def _build(text: str, floating_base: bool, mimic: bool) -> tuple[pin.Model | None, str | None, str]:
    """Pinocchio's model of the URDF XML (or None), its error, and what urdfdom printed meanwhile."""
    options = {"mimic": True} if mimic else {}
    with captured_stderr() as log:
        try:
            if floating_base:
                model = pin.buildModelFromXML(text, pin.JointModelFreeFlyer(), **options)
            else:
                model = pin.buildModelFromXML(text, **options)
            error = None
        except TypeError:  # a Pinocchio without mimic joints (< 3.4)
            model, error = None, f"mimic joints need Pinocchio ≥ 3.4 (installed: {pin.__version__})"
        except (RuntimeError, ValueError) as exc:
            model, error = None, str(exc).strip().splitlines()[0] if str(exc).strip() else "invalid"
    return model, error, _urdfdom_lines("".join(log))


def _limit(tree: UrdfTree, joint: str, attribute: str, default: float) -> float:
    node = tree.joints[joint].find("limit")
    value = None if node is None else node.attrib.get(attribute)
    return default if value is None else float(value)


def _couple_limits(model: pin.Model, tree: UrdfTree, label: str) -> None:
    """Narrow each leader's position and velocity limits by its mimic joints' (Pinocchio keeps only the
    leader's): q_f = m q_l + o ∈ [lo_f, hi_f] gives q_l ∈ [(lo_f − o)/m, (hi_f − o)/m] (swapped for
    m < 0), and |q̇_f| = |m q̇_l| ≤ v_f gives |q̇_l| ≤ v_f/|m|.

    A leader whose narrowed range would be empty keeps its own limits (with a URDFWarning).
    """
    lower, upper = model.lowerPositionLimit.copy(), model.upperPositionLimit.copy()
    velocity = model.velocityLimit.copy()
    for follower, leader, m, offset in tree.mimic:
        if m == 0.0:
            continue
        joint = model.joints[model.getJointId(leader)]
        iq, iv = joint.idx_q, joint.idx_v
        ends = sorted(
            ((_limit(tree, follower, k, d) - offset) / m) for k, d in (("lower", -inf), ("upper", inf))
        )
        lo, hi = max(lower[iq], ends[0]), min(upper[iq], ends[1])
        if lo > hi:
            warnings.warn(
                f"URDF {label!r}: mimic joint {follower!r}: no position of {leader!r} keeps both joints "
                "inside their limits; the leader keeps its own",
                URDFWarning,
                stacklevel=4,
            )
        else:
            lower[iq], upper[iq] = lo, hi
        v_follower = _limit(tree, follower, "velocity", 0.0)
        if v_follower > 0.0:
            velocity[iv] = (
                min(velocity[iv], v_follower / abs(m)) if velocity[iv] > 0.0 else v_follower / abs(m)
            )
    model.lowerPositionLimit, model.upperPositionLimit = lower, upper
    model.velocityLimit = velocity
