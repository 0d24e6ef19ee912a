"""Obstacle shapes and world obstacles for collision avoidance.

Shapes are plain, validated, immutable dataclasses; :meth:`Shape.to_coal` builds the coal geometry that
Pinocchio's distance functions use. Dimensions are in metres and follow coal's conventions:

* :class:`Sphere` ``(radius)``, centred on the placement's origin;
* :class:`Box` ``(size)``: full side lengths along the placement's x, y, z axes (as URDF ``<box size>``);
* :class:`Capsule` ``(radius, length)``: the segment of the given length along the placement's z axis,
  centred on its origin, swept by a sphere of the given radius (total extent ``length + 2 radius``).

An :class:`Obstacle` is a named shape fixed in the world at ``placement`` (``pin.SE3``, world frame).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import coal
import numpy as np
import pinocchio as pin
from numpy.typing import NDArray

from ..._support.config_fields import checked_fields
from ..._support.validation import check_config_mapping
from ...errors import ConfigError, ConfigKeyError


def _length(value: object, field_name: str) -> float:
    """A finite length > 0 (m), else ConfigError naming the field."""
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float, np.integer, np.floating))
        or not math.isfinite(value)
        or value <= 0.0
    ):
        raise ConfigError(field_name, f"must be a finite length > 0 (m), got {value!r}")
    return float(value)


class Shape:
    """Base class of obstacle shapes."""

    #: the name of the shape in configuration files
    kind: ClassVar[str] = ""

    def to_coal(self) -> coal.CollisionGeometry:
        """A new coal geometry of this shape."""
        raise NotImplementedError

    def validate(self, prefix: str = "") -> None:
        """Check the dimensions (subclasses); ``prefix`` is prepended to field names in errors."""
        raise NotImplementedError


@checked_fields
@dataclass(frozen=True)
class Sphere(Shape):
    """A sphere of ``radius`` (m) centred on the obstacle's origin."""

    radius: float
    kind: ClassVar[str] = "sphere"

    def __post_init__(self) -> None:
        self.validate()

    def validate(self, prefix: str = "") -> None:
        object.__setattr__(self, "radius", _length(self.radius, f"{prefix}radius"))

    def to_coal(self) -> coal.CollisionGeometry:
        return coal.Sphere(self.radius)


@checked_fields
@dataclass(frozen=True)
class Box(Shape):
    """A box of full side lengths ``size = (x, y, z)`` (m) centred on the obstacle's origin."""

    size: tuple[float, float, float]
    kind: ClassVar[str] = "box"

    def __post_init__(self) -> None:
        self.validate()

    def validate(self, prefix: str = "") -> None:
        size = self.size
        if isinstance(size, (str, bytes)) or not hasattr(size, "__len__") or len(size) != 3:
            raise ConfigError(f"{prefix}size", f"expected 3 side lengths (x, y, z) in m, got {size!r}")
        lengths = tuple(_length(s, f"{prefix}size") for s in size)
        object.__setattr__(self, "size", lengths)

    def to_coal(self) -> coal.CollisionGeometry:
        return coal.Box(*self.size)


@checked_fields
@dataclass(frozen=True)
class Capsule(Shape):
    """A capsule: a segment of ``length`` (m) along z, centred on the origin, swept by ``radius`` (m)."""

    radius: float
    length: float
    kind: ClassVar[str] = "capsule"

    def __post_init__(self) -> None:
        self.validate()

    def validate(self, prefix: str = "") -> None:
        object.__setattr__(self, "radius", _length(self.radius, f"{prefix}radius"))
        object.__setattr__(self, "length", _length(self.length, f"{prefix}length"))

    def to_coal(self) -> coal.CollisionGeometry:
        return coal.Capsule(self.radius, self.length)


_SHAPES: dict[str, type[Shape]] = {cls.kind: cls for cls in (Sphere, Box, Capsule)}
_SHAPE_FIELDS = {"sphere": ("radius",), "box": ("size",), "capsule": ("radius", "length")}


def shape_from_dict(data: Mapping[str, Any], prefix: str = "") -> Shape:
    """A shape from ``{"type": "sphere" | "box" | "capsule", <dimensions>}``.

    Raises:
        ConfigError: not a mapping, a missing or bad dimension; ConfigKeyError: an unknown type or key.
    """
    check_config_mapping(data, ("type", "radius", "size", "length"), ("type",), prefix, "shape")
    kind = data["type"]
    if kind not in _SHAPES:
        raise ConfigKeyError(f"{prefix}type", "shape type", kind, _SHAPES)
    names = _SHAPE_FIELDS[kind]
    check_config_mapping(data, ("type", *names), names, prefix, kind)
    try:
        return _SHAPES[kind](**{n: data[n] for n in names})
    except ConfigError as exc:
        raise ConfigError(f"{prefix}{exc.field}", exc.reason) from None


def _placement(value: object, field_name: str) -> pin.SE3:
    """A private copy of a finite, proper rigid transform."""
    if not isinstance(value, pin.SE3):
        raise ConfigError(field_name, f"expected a pin.SE3, got {type(value).__name__}")
    H = np.array(value.homogeneous)
    if not np.isfinite(H).all():
        raise ConfigError(field_name, "contains NaN or inf")
    R = H[:3, :3]
    if not np.allclose(R.T @ R, np.eye(3), atol=1e-9) or np.linalg.det(R) < 0.0:
        raise ConfigError(field_name, "the rotation is not a proper rotation matrix")
    return pin.SE3(value)


@checked_fields
@dataclass(frozen=True, eq=False)
class Obstacle:
    """A named shape fixed in the world.

    Attributes:
        name: unique name (must differ from every robot link and collision geometry name).
        shape: a :class:`Sphere`, :class:`Box` or :class:`Capsule`.
        placement: pose of the shape in the world frame (``pin.SE3``; a private copy is kept).
    """

    name: str
    shape: Shape
    placement: pin.SE3 = field(default_factory=pin.SE3.Identity)

    def __post_init__(self) -> None:
        self.validate()

    def validate(self, prefix: str = "") -> None:
        """Check the fields; ``prefix`` (e.g. ``"obstacles[0]."``) is prepended to field names."""
        if not isinstance(self.name, str) or not self.name.strip():
            raise ConfigError(f"{prefix}name", f"must be a non-empty string, got {self.name!r}")
        if not isinstance(self.shape, Shape):
            raise ConfigError(f"{prefix}shape", f"expected a Sphere, Box or Capsule, got {self.shape!r}")
        self.shape.validate(f"{prefix}shape.")
        object.__setattr__(self, "placement", _placement(self.placement, f"{prefix}placement"))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Obstacle):
            return NotImplemented
        return (
            self.name == other.name
            and self.shape == other.shape
            and np.array_equal(self.placement.homogeneous, other.placement.homogeneous)
        )

    __hash__ = None  # type: ignore[assignment]  # (holds a mutable pin.SE3 copy)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], prefix: str = "") -> Obstacle:
        """An obstacle from ``{"name", "shape": {...}, "position": [x, y, z], "rpy": [r, p, y]}``.

        ``position`` (m, default 0) and ``rpy`` (roll, pitch, yaw in rad about fixed x, y, z axes,
        R = R_z(y) R_y(p) R_x(r), default 0) give the placement in the world frame.

        Raises:
            ConfigError: not a mapping, a missing name or shape, a bad value; ConfigKeyError: unknown key.
        """
        valid = ("name", "shape", "position", "rpy")
        check_config_mapping(data, valid, ("name", "shape"), prefix, "obstacle")
        shape = shape_from_dict(data["shape"], f"{prefix}shape.")
        position = _triple(data.get("position", (0.0, 0.0, 0.0)), f"{prefix}position")
        rpy = _triple(data.get("rpy", (0.0, 0.0, 0.0)), f"{prefix}rpy")
        placement = pin.SE3(pin.rpy.rpyToMatrix(rpy), position)
        try:
            return cls(data["name"], shape, placement)
        except ConfigError as exc:
            raise ConfigError(f"{prefix}{exc.field}", exc.reason) from None

    def to_dict(self) -> dict[str, Any]:
        """The obstacle as a plain dict accepted by :meth:`from_dict`."""
        shape: dict[str, Any] = {"type": self.shape.kind}
        for key in _SHAPE_FIELDS[self.shape.kind]:
            value = getattr(self.shape, key)
            shape[key] = list(value) if isinstance(value, tuple) else value
        return {
            "name": self.name,
            "shape": shape,
            "position": self.placement.translation.tolist(),
            "rpy": pin.rpy.matrixToRpy(self.placement.rotation).tolist(),
        }


def _triple(value: object, field_name: str) -> NDArray[np.float64]:
    try:
        arr = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise ConfigError(field_name, f"expected 3 numbers, got {value!r}") from None
    if arr.shape != (3,) or not np.isfinite(arr).all():
        raise ConfigError(field_name, f"expected 3 finite numbers, got {value!r}")
    return arr
