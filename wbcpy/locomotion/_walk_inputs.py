"""Checks of :func:`~wbcpy.locomotion.walk`'s inputs made before the walk starts: the push, the log file,
the number of control steps; and the control step a push lands on.
"""

from __future__ import annotations

import math
import os
import tempfile
from pathlib import Path
from typing import Any

from ..errors import ConfigError, safe_repr
from . import _checks

#: the most control steps a walk takes (duration / dt): its log holds ~(nq + nv + 50) floats per step
MAX_CONTROL_STEPS = 200_000
#: the largest base velocity jump an impulse may give (m/s): |P| ≤ m · this
MAX_PUSH_SPEED = 10.0
#: the largest force push, in robot weights: |F| ≤ this · m g
MAX_PUSH_WEIGHTS = 10.0
#: the longest force push (s)
MAX_PUSH_DURATION = 3600.0


def check_log_path(path: Any, field: str = "log") -> Path:
    """The ``.npz`` file a log is written to (``.npz`` appended when the name lacks it), checked before
    any work: not a folder, in an existing folder where a file can be created.

    Raises:
        ConfigError: (``field``) anything else.
    """
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise ConfigError(field, f"expected a file path, got {safe_repr(path)}")
    target = Path(path).expanduser()
    if target.suffix != ".npz":
        target = target.with_name(target.name + ".npz")
    if target.is_dir() or Path(path).expanduser().is_dir():
        raise ConfigError(field, f"{str(path)!r} is a folder; give a file name such as walk.npz")
    folder = target.parent
    if not folder.is_dir():
        raise ConfigError(field, f"folder {str(folder)!r} does not exist")
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise ConfigError(field, f"cannot write to {str(folder)!r} ({exc.strerror or exc})") from None
    return target


def check_push(push: Any) -> tuple[float, ...]:
    """A push ``(P, t)``: a lateral impulse P (N·s, finite) at time t (s, finite, ≥ 0); or ``(F, t,
    duration)``: a lateral force F (N, finite) from t for ``duration`` s (in (0, 3600]).

    Raises:
        ConfigError: (field ``push``) anything else (a string such as ``"30@3"``: see
            :func:`~wbcpy.locomotion.walk.parse_push`).
    """
    if isinstance(push, (str, bytes)) or not isinstance(push, (tuple, list)) or len(push) not in (2, 3):
        why = f"expected (impulse N·s, time s) or (force N, time s, duration s), got {safe_repr(push)}"
        raise ConfigError("push", why)
    size = _checks.number(push[0], "push", unit=" (the impulse N·s or force N)")
    at = _checks.number(push[1], "push", 0.0, unit=" (the time, s)")
    if len(push) == 2:
        return size, at
    duration = _checks.number(push[2], "push", 0.0, MAX_PUSH_DURATION, lo_open=True, unit=" (duration, s)")
    return size, at, duration


def push_step(at: float, dt: float) -> int:
    """The control step k of a push at time ``at`` (s): the first with k·dt ≥ at, to 1e-6 of a step (so
    that rounding in k·dt never moves an on-grid push by a step)."""
    return max(0, math.ceil(at / dt - 1e-6))


def control_steps(duration: float, dt: float) -> int:
    """The number of control steps K = round(duration / dt) of a walk, at most :data:`MAX_CONTROL_STEPS`.

    Raises:
        ConfigError: (field ``dt``) a walk that would take more steps (its log would need that many rows).
    """
    K = round(duration / dt)
    if K > MAX_CONTROL_STEPS:
        raise ConfigError(
            "dt", f"the walk ({duration:.3g} s) would take {K} control steps of {dt:g} s, more than "
            f"{MAX_CONTROL_STEPS}: use a larger dt, fewer steps or a shorter step_time"
        )  # fmt: skip
    return max(K, 1)


def push_schedule(push: tuple[float, ...] | None, K: int, dt: float, mass: float) -> int | None:
    """The control step a checked push (:func:`check_push`) starts at (:func:`push_step`), None without
    one.

    Raises:
        ConfigError: (field ``push``) a push after the last control step (K − 1)·dt, an impulse beyond
            m · :data:`MAX_PUSH_SPEED`, a force beyond :data:`MAX_PUSH_WEIGHTS` · m g.
    """
    if push is None:
        return None
    size, at = push[0], push[1]
    limit = mass * MAX_PUSH_SPEED if len(push) == 2 else MAX_PUSH_WEIGHTS * mass * 9.81
    if abs(size) > limit:
        what = "impulse" if len(push) == 2 else "force"
        unit = "N·s" if len(push) == 2 else "N"
        raise ConfigError("push", f"|{what}| must be ≤ {limit:.0f} {unit} for this robot, got {size:g}")
    if at / dt - 1e-6 > K - 1:  # (as floats: a push at 1e305 s is no step number)
        why = f"at t = {at:g} s, after the walk's last control step at {(K - 1) * dt:.3f} s"
        raise ConfigError("push", why)
    return push_step(at, dt)
