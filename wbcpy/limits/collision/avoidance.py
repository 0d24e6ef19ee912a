"""CollisionAvoidance: the robot-independent configuration of collision avoidance.

It says which pairs to keep apart, which obstacles exist, and how: the safety distance d_s, the
influence distance d_i and the damper gain γ of the velocity-damper row (see
:class:`~wbcpy.collision.CollisionConstraint`)

.. math::

    n^T \\big(J_b(p_b) - J_a(p_a)\\big)\\, \\dot q \\;\\ge\\; -γ\\, (d - d_s) / dt
    \\qquad \\text{for every pair with } d < d_i .

Names in ``pairs`` are resolved against a robot later (links, geometry objects ``<link>_<k>``, obstacle
names); everything that does not need a robot is checked here, and every failure raises
:class:`~wbcpy.errors.ConfigError` naming the field.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from ..._support.config_fields import checked_fields
from ..._support.validation import check_config_mapping
from ...errors import ConfigError
from .shapes import Obstacle

#: the ``pairs`` value that selects every self-collision pair of the robot
SELF = "self"


def _number(value: object, field_name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ConfigError(field_name, f"must be a finite number, got {value!r}")
    return float(value)


def _pairs(value: object) -> str | tuple[tuple[str, str], ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        if value != SELF:
            raise ConfigError("pairs", f"expected 'self' or a list of (name, name) pairs, got {value!r}")
        return SELF
    if isinstance(value, (bytes, Mapping)) or not isinstance(value, Sequence):
        raise ConfigError("pairs", f"expected 'self' or a list of (name, name) pairs, got {value!r}")
    out: list[tuple[str, str]] = []
    for i, pair in enumerate(value):
        ok = isinstance(pair, Sequence) and not isinstance(pair, (str, bytes)) and len(pair) == 2
        if not ok or not all(isinstance(n, str) and n for n in pair):
            raise ConfigError(f"pairs[{i}]", f"expected two names (link, geometry or obstacle), got {pair!r}")
        if pair[0] == pair[1]:
            raise ConfigError(f"pairs[{i}]", f"a pair needs two different names, got {pair[0]!r} twice")
        out.append((pair[0], pair[1]))
    return tuple(out)


@checked_fields
@dataclass(frozen=True)
class CollisionAvoidance:
    """Which pairs to keep apart and how (immutable; the robot is given to ``CollisionConstraint``).

    Attributes:
        pairs: ``"self"`` (every pair of robot links that are not adjacent through a joint, not on the
            same Pinocchio joint and not disabled in the SRDF) or a list of ``(name_a, name_b)``, each
            name a robot link (all its collision geometries), a geometry object (``<link>_<k>``) or an
            obstacle. Empty (the default): robot–obstacle pairs only.
        obstacles: shapes fixed in the world. An obstacle named in no pair is paired with every robot
            link that has collision geometry and can move.
        safety_distance: d_s ≥ 0 (m), the distance the damper keeps.
        influence_distance: d_i > d_s (m): pairs farther apart add no row.
        gain: γ ∈ (0, 1]: the distance margin d − d_s may shrink by at most this fraction per step.
        srdf: an SRDF file path or its XML text whose ``disable_collisions`` are excluded from "self";
            None (default): the robot's SRDF (``robot.srdf_path``, else the one beside its URDF, see
            :func:`wbcpy.description.robot_files.srdf_file`), if any.
        convex_hull: replace mesh geometries by their convex hulls (default True, as MuJoCo and mink do):
            distances are then smooth almost everywhere, computed by GJK/EPA, penetrations get a depth
            and a normal, and distances are about 100× cheaper than between triangle meshes.
    """

    pairs: str | Sequence[tuple[str, str]] = ()
    obstacles: Sequence[Obstacle] = field(default_factory=tuple)
    safety_distance: float = 0.01
    influence_distance: float = 0.1
    gain: float = 0.5
    srdf: str | Path | None = None
    convex_hull: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "pairs", _pairs(self.pairs))
        obstacles: object = self.obstacles  # a caller's value, checked here
        if obstacles is None:
            obstacles = ()
        if isinstance(obstacles, (str, bytes, Mapping, Obstacle)) or not isinstance(obstacles, Sequence):
            raise ConfigError("obstacles", f"expected a list of Obstacle, got {type(obstacles).__name__}")
        seen: set[str] = set()
        for i, obs in enumerate(obstacles):
            if not isinstance(obs, Obstacle):
                raise ConfigError(f"obstacles[{i}]", f"expected an Obstacle, got {type(obs).__name__}")
            obs.validate(f"obstacles[{i}].")
            if obs.name in seen:
                raise ConfigError(f"obstacles[{i}].name", f"duplicate obstacle name {obs.name!r}")
            seen.add(obs.name)
        object.__setattr__(self, "obstacles", tuple(obstacles))
        ds = _number(self.safety_distance, "safety_distance")
        di = _number(self.influence_distance, "influence_distance")
        if ds < 0.0:
            raise ConfigError("safety_distance", f"must be ≥ 0 (m), got {ds!r}")
        if ds >= di:
            raise ConfigError(
                "safety_distance", f"must be smaller than influence_distance ({di!r} m), got {ds!r}"
            )
        gain = _number(self.gain, "gain")
        if not 0.0 < gain <= 1.0:
            raise ConfigError("gain", f"must be in (0, 1], got {gain!r}")
        if self.srdf is not None and not isinstance(self.srdf, (str, Path)):
            raise ConfigError("srdf", f"expected a path or SRDF XML text, got {type(self.srdf).__name__}")
        if not isinstance(self.convex_hull, bool):
            raise ConfigError("convex_hull", f"must be True or False, got {self.convex_hull!r}")
        object.__setattr__(self, "safety_distance", ds)
        object.__setattr__(self, "influence_distance", di)
        object.__setattr__(self, "gain", gain)

    @property
    def self_collision(self) -> bool:
        """True when ``pairs == "self"``."""
        return self.pairs == SELF

    @property
    def named_pairs(self) -> tuple[tuple[str, str], ...]:
        """The ``(name_a, name_b)`` pairs listed in ``pairs``; empty when ``pairs == "self"``."""
        return () if isinstance(self.pairs, str) else tuple(self.pairs)

    @classmethod
    def field_names(cls) -> list[str]:
        """The accepted keys of :meth:`from_dict`."""
        return [f.name for f in fields(cls)]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], prefix: str = "") -> CollisionAvoidance:
        """Build from a mapping (a scene file's ``collision`` section); obstacles as in
        :meth:`Obstacle.from_dict`.

        Raises:
            ConfigError: naming the field (``prefix`` prepended); ConfigKeyError for unknown keys.
        """
        check_config_mapping(data, cls.field_names(), (), prefix, "collision")
        kwargs = dict(data)
        raw = kwargs.get("obstacles") or []
        if isinstance(raw, (str, bytes, Mapping)) or not isinstance(raw, Sequence):
            raise ConfigError(f"{prefix}obstacles", "expected a list of obstacle mappings")
        kwargs["obstacles"] = [Obstacle.from_dict(o, f"{prefix}obstacles[{i}].") for i, o in enumerate(raw)]
        try:
            return cls(**kwargs)
        except ConfigError as exc:
            raise ConfigError(f"{prefix}{exc.field}", exc.reason) from None

    def to_dict(self) -> dict[str, Any]:
        """A plain dict accepted by :meth:`from_dict`."""
        return {
            "pairs": self.pairs if self.pairs == SELF else [list(p) for p in self.pairs],
            "obstacles": [o.to_dict() for o in self.obstacles],
            "safety_distance": self.safety_distance,
            "influence_distance": self.influence_distance,
            "gain": self.gain,
            "srdf": None if self.srdf is None else str(self.srdf),
            "convex_hull": self.convex_hull,
        }


def as_avoidance(value: Any) -> CollisionAvoidance | None:
    """The argument of a scene's ``set_collision_avoidance``: None (no avoidance), a
    :class:`CollisionAvoidance`, or a mapping read by :meth:`CollisionAvoidance.from_dict` (a scene
    file's ``collision`` section). Anything else is handed on, for the constraint to reject it.

    Raises:
        ConfigError: an invalid mapping (the field named).
    """
    if value is None or isinstance(value, CollisionAvoidance):
        return value
    if isinstance(value, Mapping):
        return CollisionAvoidance.from_dict(value)
    out: CollisionAvoidance = value
    return out
