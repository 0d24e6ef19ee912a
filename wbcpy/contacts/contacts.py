"""Contacts of an inverse-dynamics scene.

* :class:`SurfaceContact` — a rectangle ``[−X, X] × [−Y, Y]`` in a robot frame's xy-plane (a sole):
  6-D wrench, contact wrench cone (:func:`~wbcpy.contacts.wrench_cone.surface_wrench_cone`).
* :class:`PointContact` — a point (the frame origin): 3-D force, friction pyramid
  (:func:`~wbcpy.contacts.wrench_cone.point_friction_pyramid`).
* :func:`contact_from_dict` / :func:`as_contacts` — contacts from mappings (``type: surface | point``)
  and the validation of a whole list against a robot (unknown frames, duplicates).
* The reference of a ``wrench`` task, :class:`~wbcpy.tasks.WrenchReference`, is a task reference
  (:mod:`wbcpy.tasks.references`); :mod:`wbcpy.contacts` re-exports it.

Conventions (``specs/contact-scene.md``): a contact is a frame of the robot; its z axis is the contact
normal, pointing from the environment into the robot. A contact wrench is what the environment exerts on
the robot, in the contact frame's axes, about its origin: force over torque (6 entries) for a surface
contact, the force (3 entries) for a point contact. ``fz_min ≤ f_z ≤ fz_max`` bounds the normal force.
A contact holds its frame still, ``J_c q̈ + a_c = 0`` (classical acceleration, contact axes), or, with a
velocity gain ``kd`` = K_d > 0, damps the frame's velocity ẋ_c = J_c v: ``J_c q̈ + a_c = −K_d J_c v`` — a
foot that lands moving on a soft floor is brought to rest (its velocity decays as e^{−K_d t}); on a rigid
plant, which keeps ẋ_c = 0, the term vanishes.

Contacts are plain mutable dataclasses (like :class:`~wbcpy.tasks.TaskConfig`): construction validates
every field that does not need a robot and raises :class:`~wbcpy.errors.ConfigError` naming the field;
:func:`as_contacts` re-validates (fields may have been edited) and checks the frames against a robot.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import MISSING, dataclass, fields
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from .._support.config_fields import checked_fields
from ..errors import ConfigError, ConfigKeyError
from .wrench_cone import point_friction_pyramid, surface_wrench_cone

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel

#: index of the normal force f_z in both wrench layouts (force first)
NORMAL_INDEX = 2


def _number(value: Any, field: str) -> float:
    """A real number (not bool) that is not NaN; inf is allowed (the caller checks ranges)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise ConfigError(field, f"must be a number, got {value!r}")
    out = float(value)
    if math.isnan(out):
        raise ConfigError(field, "is NaN")
    return out


class _ContactBase:
    """Fields and checks shared by :class:`SurfaceContact` and :class:`PointContact`."""

    frame: str
    mu: float
    fz_min: float
    fz_max: float
    active: bool
    kd: float
    type: ClassVar[str]
    size: ClassVar[int]
    #: time left of a running unloading transition (s; set on a scene's copies), None otherwise
    unloading: float | None = None
    #: time left of a running loading transition (s; set on a scene's copies), None otherwise
    loading: float | None = None

    def _validate_kd(self, prefix: str) -> float:
        """The checked velocity gain K_d (1/s): a finite number ≥ 0."""
        kd = _number(self.kd, f"{prefix}kd")
        if not math.isfinite(kd) or kd < 0.0:
            raise ConfigError(f"{prefix}kd", f"must be a finite velocity gain ≥ 0 (1/s), got {self.kd!r}")
        return kd

    def _validate_common(self, prefix: str) -> tuple[float, float, float, bool]:
        """Checked (mu, fz_min, fz_max, active); the caller assigns them once every field passed."""
        if not isinstance(self.frame, str) or not self.frame:
            raise ConfigError(f"{prefix}frame", f"must be a frame name, got {self.frame!r}")
        mu = _number(self.mu, f"{prefix}mu")
        if not math.isfinite(mu) or mu <= 0.0:
            raise ConfigError(f"{prefix}mu", f"must be a finite friction coefficient > 0, got {self.mu!r}")
        lo = _number(self.fz_min, f"{prefix}fz_min")
        hi = _number(self.fz_max, f"{prefix}fz_max")
        if not math.isfinite(lo) or lo < 0.0:
            raise ConfigError(f"{prefix}fz_min", f"must be a finite force ≥ 0 (N), got {self.fz_min!r}")
        if hi < lo:
            raise ConfigError(f"{prefix}fz_min", f"fz_min = {lo} is larger than fz_max = {hi}")
        if not isinstance(self.active, (bool, np.bool_)):
            raise ConfigError(f"{prefix}active", f"must be true or false, got {self.active!r}")
        return mu, lo, hi, bool(self.active)

    @property
    def normal_index(self) -> int:
        """Index of the normal force f_z in the wrench (2 for both layouts)."""
        return NORMAL_INDEX

    @classmethod
    def field_names(cls) -> list[str]:
        """The constructor's field names (the keys :func:`contact_from_dict` accepts, besides ``type``)."""
        return [f.name for f in fields(cls)]  # type: ignore[arg-type]

    def to_dict(self) -> dict[str, Any]:
        """The contact as a plain dict with its ``type`` (round-trips through :func:`contact_from_dict`)."""
        out: dict[str, Any] = {"type": self.type}
        for name in self.field_names():
            value = getattr(self, name)
            out[name] = list(value) if isinstance(value, tuple) else value
        return out

    def copy(self) -> Contact:
        """An independent copy."""
        return contact_from_dict(self.to_dict())


@checked_fields
@dataclass
class SurfaceContact(_ContactBase):
    """A rectangular contact (a sole): the rectangle ``[−X, X] × [−Y, Y]`` in ``frame``'s xy-plane.

    Attributes:
        frame: the robot frame at the rectangle's centre; its z axis points from the environment into
            the robot.
        half_size: ``(X, Y)`` half lengths along the frame's x and y axes (m), > 0.
        mu: friction coefficient, > 0.
        fz_min: lower bound of the normal force (N), ≥ 0.
        fz_max: upper bound of the normal force (N), ≥ fz_min (inf: none).
        active: whether the contact holds (a lifted foot is inactive).
        kd: velocity gain K_d (1/s), ≥ 0: the contact rows are J_c q̈ + a_c = −K_d J_c v (module
            docstring; 0: the frame's acceleration is 0).
    """

    frame: str
    half_size: tuple[float, float]
    mu: float
    fz_min: float = 0.0
    fz_max: float = math.inf
    active: bool = True
    kd: float = 0.0

    type: ClassVar[str] = "surface"
    #: number of wrench entries (force over torque)
    size: ClassVar[int] = 6

    def __post_init__(self) -> None:
        self.validate()

    def validate(self, prefix: str = "") -> None:
        """Check every field (see the class docstring); normalises numbers to float.

        Args:
            prefix: prepended to the field name in errors (e.g. ``"contacts[1]."``).

        Raises:
            ConfigError: naming the bad field.
        """
        common = self._validate_common(prefix)
        kd = self._validate_kd(prefix)
        hs = self.half_size
        if isinstance(hs, (str, bytes, Mapping)) or not isinstance(hs, Iterable):
            raise ConfigError(f"{prefix}half_size", f"expected two numbers (X, Y) in m, got {hs!r}")
        values = list(hs)
        if len(values) != 2:
            raise ConfigError(f"{prefix}half_size", f"expected two numbers (X, Y) in m, got {hs!r}")
        size = tuple(_number(v, f"{prefix}half_size") for v in values)
        if not all(math.isfinite(v) and v > 0.0 for v in size):
            raise ConfigError(f"{prefix}half_size", f"half sizes must be finite and > 0 (m), got {hs!r}")
        self.mu, self.fz_min, self.fz_max, self.active = common
        self.half_size, self.kd = (size[0], size[1]), kd

    def cone(self) -> np.ndarray:
        """Contact wrench cone ``U w ≤ 0`` (16 × 6, new array); see
        :func:`~wbcpy.contacts.wrench_cone.surface_wrench_cone`."""
        return surface_wrench_cone(self.half_size, self.mu)

    def corners(self) -> np.ndarray:
        """The rectangle's corners in the contact frame (4 × 3, m): (X, Y), (X, −Y), (−X, Y), (−X, −Y)."""
        X, Y = self.half_size
        return np.array([[X, Y, 0.0], [X, -Y, 0.0], [-X, Y, 0.0], [-X, -Y, 0.0]])


@checked_fields
@dataclass
class PointContact(_ContactBase):
    """A point contact at ``frame``'s origin (a hand on a table, a quadruped's foot).

    Attributes:
        frame: the robot frame at the contact point; its z axis is the contact normal.
        mu: friction coefficient, > 0.
        fz_min: lower bound of the normal force (N), ≥ 0.
        fz_max: upper bound of the normal force (N), ≥ fz_min (inf: none).
        active: whether the contact holds.
        kd: velocity gain K_d (1/s), ≥ 0: the contact rows are J_c q̈ + a_c = −K_d J_c v (module
            docstring; 0: the point's acceleration is 0).
    """

    frame: str
    mu: float
    fz_min: float = 0.0
    fz_max: float = math.inf
    active: bool = True
    kd: float = 0.0

    type: ClassVar[str] = "point"
    #: number of wrench entries (the force)
    size: ClassVar[int] = 3

    def __post_init__(self) -> None:
        self.validate()

    def validate(self, prefix: str = "") -> None:
        """Check every field (see the class docstring); normalises numbers to float.

        Raises:
            ConfigError: naming the bad field.
        """
        common = self._validate_common(prefix)
        self.kd = self._validate_kd(prefix)
        self.mu, self.fz_min, self.fz_max, self.active = common

    def cone(self) -> np.ndarray:
        """Friction pyramid ``U f ≤ 0`` (4 × 3, new array); see
        :func:`~wbcpy.contacts.wrench_cone.point_friction_pyramid`."""
        return point_friction_pyramid(self.mu)


#: a contact of a scene: a surface or a point contact
Contact = SurfaceContact | PointContact

#: contact type name -> class (the ``type`` key of a contact mapping)
CONTACT_TYPES: dict[str, type[SurfaceContact] | type[PointContact]] = {
    "surface": SurfaceContact,
    "point": PointContact,
}


def contact_from_dict(data: Mapping[str, Any], prefix: str = "") -> Contact:
    """Build a contact from a mapping: ``type`` (``surface`` or ``point``) plus the constructor's fields.

    Args:
        data: e.g. ``{"type": "surface", "frame": "left_sole_link", "half_size": [0.1, 0.065],
            "mu": 0.3}``.
        prefix: prepended to field names in errors (e.g. ``"contacts[0]."``).

    Raises:
        ConfigError: not a mapping, a missing ``type`` or required field, or an invalid value.
        ConfigKeyError: an unknown type or an unknown key (also a KeyError).
    """
    if not isinstance(data, Mapping):
        raise ConfigError(prefix.rstrip(".") or "contact", f"must be a mapping, got {type(data).__name__}")
    if "type" not in data:
        raise ConfigError(f"{prefix}type", "missing (required: surface or point)")
    kind = data["type"]
    if not isinstance(kind, str) or kind not in CONTACT_TYPES:
        raise ConfigKeyError(f"{prefix}type", "contact type", kind, CONTACT_TYPES)
    cls = CONTACT_TYPES[kind]
    valid = cls.field_names()
    kwargs = {}
    for key, value in data.items():
        if key == "type":
            continue
        if key not in valid:
            raise ConfigKeyError(f"{prefix}{key}", f"{kind} contact field", key, ["type", *valid])
        kwargs[key] = value
    for f in fields(cls):
        if f.default is MISSING and f.name not in kwargs:
            raise ConfigError(f"{prefix}{f.name}", f"missing (required for a {kind} contact)")
    try:
        return cls(**kwargs)
    except ConfigError as exc:
        if prefix and not exc.field.startswith(prefix):
            raise ConfigError(f"{prefix}{exc.field}", exc.reason) from None
        raise


def as_contacts(robot: RobotModel, items: Any, field: str = "contacts") -> list[Contact]:
    """Validated private copies of a list of contacts (objects or mappings), checked against ``robot``.

    Args:
        robot: the robot whose frames the contacts name.
        items: a list of :class:`SurfaceContact`, :class:`PointContact` or mappings (an empty list is a
            scene without contacts).
        field: name used in error messages (``contacts[i].frame``...).

    Returns:
        New contact objects (changing them does not change ``items``).

    Raises:
        ConfigError: not a list, an invalid field, or two contacts on one frame.
        ConfigKeyError: an unknown frame (lists close frame names), type or key.
    """
    if items is None or isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Iterable):
        raise ConfigError(field, f"expected a list of contacts, got {type(items).__name__}")
    frames = set(robot.frame_names)
    out: list[Contact] = []
    seen: dict[str, int] = {}
    for i, item in enumerate(items):
        prefix = f"{field}[{i}]."
        if isinstance(item, Mapping):
            contact = contact_from_dict(item, prefix)
        elif isinstance(item, (SurfaceContact, PointContact)):
            contact = contact_from_dict(item.to_dict(), prefix)  # re-validated: fields may have been edited
        else:
            raise ConfigError(f"{field}[{i}]", f"expected a contact or a mapping, got {type(item).__name__}")
        if contact.frame not in frames:
            raise ConfigKeyError(  # link frames first: a contact is on a body, not on a joint frame
                f"{prefix}frame", "frame", contact.frame, robot.frame_names, preferred=robot.link_names
            )
        if contact.frame in seen:
            other = f"{field}[{seen[contact.frame]}]"
            raise ConfigError(f"{prefix}frame", f"frame {contact.frame!r} already has a contact ({other})")
        seen[contact.frame] = i
        out.append(contact)
    return out
