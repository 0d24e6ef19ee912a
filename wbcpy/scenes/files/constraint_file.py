"""The ``com_polygon`` and ``loop_closures`` sections of YAML scene files, for every scene kind (used by
:mod:`wbcpy.scenes.files.scene_file`)::

    com_polygon:               # the COM's ground projection stays inside (hard rows, every step)
      vertices: [[-0.1, -0.15], [0.15, -0.15], [0.15, 0.15], [-0.1, 0.15]]   # x, y world (m), convex
      margin: 0.02             # m, default 0
    loop_closures:             # frames held at their relative placement of the initial state
      - {frame_a: left_ee, frame_b: right_ee}                 # kind: 6d (default), a weld
      - {frame_a: tool, frame_b: universe, kind: 3d, name: pin, time_constant: 0.05}

The rows are those of :meth:`~wbcpy.scenes.Scene.set_com_polygon` and
:meth:`~wbcpy.scenes.Scene.add_loop_closure`; the loops are closed at the file's initial state (``q0``).
An inverse-dynamics scene's plant simulates its loops as rigid constraints too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from ...errors import ConfigError, ConfigKeyError
from .collision_file import prefixed

#: top-level scene-file keys of the scene constraints (every scene kind)
CONSTRAINT_FILE_KEYS = ("com_polygon", "loop_closures")
#: keys of the ``com_polygon`` section
POLYGON_KEYS = ("vertices", "margin")
#: keys of a ``loop_closures`` entry
LOOP_KEYS = ("frame_a", "frame_b", "kind", "name", "time_constant")


class ConstrainedScene(Protocol):
    """A scene with a COM polygon and loop closures (every scene)."""

    def set_com_polygon(self, vertices: Any, margin: float = 0.0) -> None: ...
    def add_loop_closure(self, frame_a: str, frame_b: str, kind: str = "6d", *, name: str | None = None,
                         time_constant: float | None = None) -> str: ...  # fmt: skip


def _mapping(value: Any, keys: tuple[str, ...], field: str, required: tuple[str, ...]) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigError(field, f"expected a mapping with {', '.join(keys)}")
    for key in value:
        if key not in keys:
            raise ConfigKeyError(f"{field}.{key}", f"{field.split('[')[0]} key", key, keys)
    for key in required:
        if key not in value:
            raise ConfigError(f"{field}.{key}", "missing (required)")
    return value


def apply_constraint_sections(scene: ConstrainedScene, doc: Mapping[str, Any]) -> None:
    """Give ``scene`` the file's COM polygon and loop closures (the robot at its initial state).

    Raises:
        ConfigError: a malformed section or an invalid value, named as ``com_polygon.<key>`` or
            ``loop_closures[i].<key>`` (ConfigKeyError for an unknown key, frame or kind).
    """
    polygon = doc.get("com_polygon")
    if polygon is not None:
        section = _mapping(polygon, POLYGON_KEYS, "com_polygon", ("vertices",))
        try:
            scene.set_com_polygon(section["vertices"], section.get("margin", 0.0))
        except ConfigError as exc:
            raise prefixed(exc, "com_polygon.") from None
    loops = doc.get("loop_closures")
    if loops is None:
        return
    if not isinstance(loops, list):
        raise ConfigError("loop_closures", f"expected a list of mappings with {', '.join(LOOP_KEYS)}")
    for i, entry in enumerate(loops):
        field = f"loop_closures[{i}]"
        item = _mapping(entry, LOOP_KEYS, field, ("frame_a", "frame_b"))
        try:
            options = {"name": item.get("name"), "time_constant": item.get("time_constant")}
            scene.add_loop_closure(item["frame_a"], item["frame_b"], item.get("kind", "6d"), **options)
        except ConfigError as exc:
            raise prefixed(exc, f"{field}.") from None
