"""The ``collision`` section of YAML scene files, for every scene kind (used by
:mod:`wbcpy.scenes.files.scene_file`)::

    collision:                 # optional: CollisionAvoidance fields
      pairs: self              # or [[link_or_geometry, link_or_geometry_or_obstacle], ...]
      safety_distance: 0.01    # m
      influence_distance: 0.1  # m
      gain: 0.5                # velocity-damper gain
      obstacles:
        - name: ball
          shape: {type: sphere, radius: 0.05}     # or box {size: [x, y, z]}, capsule {radius, length}
          position: [0.5, 0.0, 0.4]               # world frame (m); rpy: [r, p, y] (rad) optional

A velocity scene turns it into velocity-damper rows on q̇, an acceleration or inverse-dynamics scene into
the discrete-time damper rows on q̈ (:mod:`wbcpy.limits.collision.acceleration`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from ...errors import ConfigError, ConfigKeyError

#: top-level scene-file keys of collision avoidance (every scene kind)
COLLISION_FILE_KEYS = ("collision",)


class CollisionScene(Protocol):
    """A scene with collision avoidance (Velocity-, Acceleration- and InverseDynamicsScene)."""

    def set_collision_avoidance(self, avoidance: Any) -> None:
        """Keep the pairs of ``avoidance`` apart (None: no avoidance)."""
        ...


def prefixed(exc: ConfigError, prefix: str) -> ConfigError:
    """The same error with ``prefix`` prepended to its field (and message)."""
    exc.field = f"{prefix}{exc.field}"
    text = f"{exc.field}: {exc.reason}"
    if isinstance(exc, ConfigKeyError):
        exc.message = text
    exc.args = (text,)
    return exc


def apply_collision_section(scene: CollisionScene, doc: Mapping[str, Any]) -> None:
    """Give ``scene`` the collision avoidance of the file's ``collision`` section (nothing without one).

    Raises:
        ConfigError: a section that is not a mapping (field ``collision``) or an invalid field (named as
            ``collision.…``; ConfigKeyError for unknown names).
    """
    section = doc.get("collision")
    if section is None:
        return
    if not isinstance(section, Mapping):
        raise ConfigError("collision", "expected a mapping of CollisionAvoidance fields")
    try:
        scene.set_collision_avoidance(section)
    except ConfigError as exc:
        raise prefixed(exc, "collision.") from None
