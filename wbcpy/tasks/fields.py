"""Config fields of task types: what a task type adds to :class:`~wbcpy.tasks.TaskConfig`, and its checks.

Every task config has the common fields (``name``, ``type``, ``priority``, ``weights``, ``activation``,
``timeout``). The rest belong to the task type: a type declares each of its fields once, as a
:class:`TaskField` in its task class's ``config_fields`` (name, kind of value, required or optional,
default, a check, a doc string), and :class:`~wbcpy.tasks.TaskConfig` accepts and validates them through
that declaration — as a constructor keyword, a key of :meth:`~wbcpy.tasks.TaskConfig.from_dict` or a YAML
key. A new type with a new field is one file and one registration; no other module knows the field.

A check takes the given value and the field's label for errors (``"tasks[2].axis"``), and returns the
value as the config keeps it (a list for a sequence, a float for a number) or raises
:class:`~wbcpy.errors.ConfigError` naming that label. Checks need no robot: robot-dependent checks
(unknown frames or joints) happen when a scene builds the task.

The builders below make the fields the built-in types share: :func:`frame_field` (a frame name),
:func:`joint_names_field` (distinct joint names), :func:`vector_field` (n finite numbers).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ConfigError, safe_repr

#: the fields every task config has (a task type's fields take other names)
COMMON_FIELDS = ("name", "type", "priority", "weights", "activation", "timeout")


@dataclass(frozen=True)
class TaskField:
    """One config field of a task type.

    Attributes:
        name: the key (a Python identifier, not one of :data:`COMMON_FIELDS`).
        kind: what the value is, in words (``"frame name"``, ``"3 numbers"``): docs and errors.
        check: ``check(value, label) -> value`` — the value as the config keeps it, or raises
            :class:`~wbcpy.errors.ConfigError` naming ``label``; called for every value given (not None).
        required: a config of the type must give it (None, an empty string or an empty list is missing).
        default: the value of an optional field that is not given (copied for each config).
        doc: one line for the docs (what it means, its unit and axes).
    """

    name: str
    kind: str
    check: Callable[[Any, str], Any]
    required: bool = False
    default: Any = None
    doc: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.isidentifier() or self.name.startswith("_"):
            raise ConfigError("fields", f"a config field name must be a public identifier, got {self.name!r}")
        if self.name in COMMON_FIELDS:
            raise ConfigError("fields", f"{self.name!r} is a field of every task config: choose another name")
        if not callable(self.check):
            raise ConfigError("fields", f"the check of field {self.name!r} must be callable")

    def default_value(self) -> Any:
        """A fresh copy of the default (a list default is never shared between configs)."""
        return copy.deepcopy(self.default)

    def validated(self, value: Any, label: str) -> Any:
        """The value as a config keeps it: the default for None, else :attr:`check`'s result.

        Raises:
            ConfigError: a missing required value or a value the check rejects (``label`` named).
        """
        if is_blank(value):
            if self.required:
                raise ConfigError(label, f"required: {self.kind} ({self.doc or self.name})")
            if value is None:
                return self.default_value()
        return self.check(value, label)


def is_blank(value: object) -> bool:
    """None, an empty string or an empty list/tuple: a field left out."""
    return value is None or value == "" or (isinstance(value, (list, tuple)) and len(value) == 0)


# ---------------------------------------------------------------------------------------------- checks
def check_frame_name(value: Any, label: str) -> str:
    """A non-empty frame name."""
    if not isinstance(value, str) or not value:
        raise ConfigError(label, f"must be a frame name, got {safe_repr(value)}")
    return value


def check_joint_names(value: Any, label: str) -> list[str]:
    """A list of distinct non-empty joint names (a tuple is turned into a list)."""
    if not isinstance(value, (list, tuple)) or not all(isinstance(n, str) and n for n in value):
        raise ConfigError(label, f"must be a list of joint names, got {safe_repr(value)}")
    names = list(value)
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ConfigError(label, f"joint(s) listed twice: {dup}")
    return names


def _finite_numbers(value: Any, size: int, label: str) -> list[float]:
    """``size`` finite real numbers as a list of floats."""
    if isinstance(value, (str, bytes)) or np.iscomplexobj(value):
        raise ConfigError(label, f"expected {size} real numbers, got {safe_repr(value)}")
    try:
        arr = np.array(value, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise ConfigError(label, f"expected {size} numbers, got {safe_repr(value)}") from None
    items = value.tolist() if hasattr(value, "tolist") else value
    flat = items if isinstance(items, (list, tuple)) else [items]
    if arr.shape != (size,) or any(isinstance(v, bool) for v in flat):
        raise ConfigError(label, f"expected {size} numbers, got {safe_repr(value)}")
    if not all(math.isfinite(v) for v in arr.tolist()):
        raise ConfigError(label, f"expected finite numbers, got {safe_repr(value)}")
    return [float(v) for v in arr.tolist()]


# -------------------------------------------------------------------------------------------- builders
def frame_field(name: str, *, required: bool = False, doc: str = "") -> TaskField:
    """A field holding a frame name (default None: the task type picks one)."""
    return TaskField(name, "a frame name", check_frame_name, required=required, doc=doc)


def joint_names_field(name: str = "joint_names", *, required: bool = True, doc: str = "") -> TaskField:
    """A field holding a list of distinct joint names (default: the empty list)."""
    return TaskField(
        name, "a non-empty list of joint names", check_joint_names, required=required, default=[], doc=doc
    )


def vector_field(
    name: str,
    size: int,
    *,
    required: bool = False,
    default: list[float] | None = None,
    nonzero: bool = False,
    doc: str = "",
) -> TaskField:
    """A field holding ``size`` finite numbers, kept as a list of floats.

    Args:
        name, required, default, doc: as :class:`TaskField`.
        size: the number of entries.
        nonzero: reject the zero vector (a direction).
    """

    def check(value: Any, label: str) -> list[float]:
        out = _finite_numbers(value, size, label)
        if nonzero and not any(out):
            raise ConfigError(label, "must not be the zero vector (it gives a direction)")
        return out

    kind = f"{size} finite numbers" + (", not all zero" if nonzero else "")
    return TaskField(name, kind, check, required=required, default=default, doc=doc)


#: the fields of the built-in types by name: :class:`~wbcpy.tasks.TaskType` resolves a field given as a
#: plain name (``fields=("tip",)``) here
STANDARD_FIELDS: dict[str, TaskField] = {
    f.name: f
    for f in (
        joint_names_field(doc="the 1-DOF joints of the task, in the order of its rows and references"),
        frame_field("root", doc="root frame (default: the robot's base link)"),
        frame_field("tip", doc="tip frame"),
        frame_field("ref_frame", doc="frame whose axes references and weights are given in (default: root)"),
        frame_field("frame", doc="a contact frame of the inverse-dynamics scene"),
    )
}
