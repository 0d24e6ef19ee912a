"""Record a meshcat scene in memory, without a server, to write it as one self-contained HTML page.

meshcat's Python API sends each scene command (``set_object``, ``set_transform``, ``set_property``,
``set_animation``, ``delete``) to a "window". :class:`SceneRecorder` is a window that keeps the scene the
way ``meshcat-server`` keeps it (one object, transform and animation per path, properties in order) and hands
the commands back as the msgpack blobs that meshcat's browser viewer executes. So Pinocchio's
``MeshcatVisualizer`` and meshcat's ``Animation`` work unchanged on it, and no port is opened.
"""

from __future__ import annotations

from typing import Any


class _Node(dict[str, Any]):
    """One path of the scene tree: children by name plus the path's last commands."""

    __slots__ = ("animation", "object", "properties", "transform")

    def __init__(self) -> None:
        super().__init__()
        self.object: bytes | None = None
        self.transform: bytes | None = None
        self.animation: bytes | None = None
        self.properties: list[bytes] = []

    def child(self, path: list[str]) -> _Node:
        node = self
        for name in path:
            node = node.setdefault(name, _Node())
        return node

    def walk(self) -> list[_Node]:
        out = [self]
        for child in self.values():
            out.extend(child.walk())
        return out


class SceneRecorder:
    """A meshcat window that records the scene instead of sending it.

    Use :meth:`visualizer` where a ``meshcat.Visualizer`` is expected, then :meth:`commands` for the scene.
    Not thread-safe (one writer at a time, as meshcat's own window).
    """

    def __init__(self) -> None:
        from .extra import require_viz

        require_viz()
        import umsgpack

        self._pack = umsgpack.packb
        self._root = _Node()
        self.sent = 0

    def visualizer(self) -> Any:
        """A ``meshcat.Visualizer`` whose commands land in this recorder."""
        import meshcat

        return meshcat.Visualizer(window=self)

    def send(self, command: Any) -> None:
        """Record one meshcat command (any object with meshcat's ``lower()``)."""
        data = command.lower()
        kind = data["type"]
        path = [p for p in str(data["path"]).split("/") if p]
        packed = self._pack(data)
        self.sent += 1
        if kind == "delete":
            self._delete(path)
            return
        node = self._root.child(path)
        if kind == "set_object":
            node.object, node.properties = packed, []
        elif kind == "set_transform":
            node.transform = packed
        elif kind == "set_property":
            node.properties.append(packed)
        elif kind == "set_animation":
            node.animation = packed
        else:
            raise ValueError(f"meshcat command {kind!r} cannot be recorded in a static page")

    def _delete(self, path: list[str]) -> None:
        if not path:
            self._root = _Node()
            return
        parent = self._root.child(path[:-1])
        parent.pop(path[-1], None)

    def commands(self) -> list[bytes]:
        """The scene as meshcat commands (msgpack): objects, properties and transforms path by path in the
        order ``meshcat-server`` replays them, then the animations (so their targets exist)."""
        out: list[bytes] = []
        animations: list[bytes] = []
        for node in self._root.walk():
            if node.object is not None:
                out.append(node.object)
            out.extend(node.properties)
            if node.transform is not None:
                out.append(node.transform)
            if node.animation is not None:
                animations.append(node.animation)
        return out + animations
