"""Dotted paths into a parsed scene file: ``tasks.ee.kp``, ``q0.3``, ``joint_limits``.

A path is a sequence of segments separated by dots. Walking it through the scene document:

* in a mapping, a segment is a key (``tasks``, ``kp``, ``target``, a joint name in a ``q0`` mapping);
* in a list, a segment is an index (``q0.3``, ``tasks.0``) or, for the ``tasks`` list, a task name
  (``tasks.ee`` is the entry whose ``name`` is ``ee``).

Every segment must exist in the scene file, except the last one when its parent is the top level or a
task entry: there it may be any key the scene format accepts at that place (``tasks.posture.activation``
sets a task field the file leaves at its default). Anything else is a :class:`~wbcpy.errors.ConfigError`
naming the sweep key (``grid.tasks.ee.kpp``) that holds the path.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping, Sequence
from typing import Any, NoReturn

from ..errors import ConfigError, ConfigKeyError
from ..scenes.files.scene_file import PD_KEYS, SCENE_FILE_KEYS
from ..tasks import TaskConfig, task_types

#: a canonical path segment: a mapping key or a list index
Key = str | int


def task_entry_keys(entry: Mapping[str, Any]) -> tuple[str, ...]:
    """The keys a task entry of a scene file accepts: the TaskConfig fields of its type (of every
    registered type when its type is not one) and the PD part."""
    type_name = entry.get("type")
    registered = isinstance(type_name, str) and type_name in task_types()
    return (*TaskConfig.field_names(type_name if registered else None), *PD_KEYS)


def split_path(path: Any, field: str) -> tuple[str, ...]:
    """Split a dotted path into its segments.

    Raises:
        ConfigError: ``field`` — not a string, or an empty segment (``tasks..kp``).
    """
    if not isinstance(path, str) or not path:
        raise ConfigError(field, f"a parameter must be a dotted path such as tasks.ee.kp, got {path!r}")
    parts = tuple(path.split("."))
    if any(not p for p in parts):
        raise ConfigError(field, f"empty segment in the dotted path {path!r}")
    return parts


def _list_index(items: Sequence[Any], segment: str, allow_names: bool) -> int | None:
    """Index of ``segment`` in a list: an integer index, or the entry whose ``name`` is ``segment``."""
    if segment.isdigit():
        index = int(segment)
        return index if index < len(items) else None
    if allow_names:
        for i, item in enumerate(items):
            if isinstance(item, Mapping) and item.get("name") == segment:
                return i
    return None


def _child(node: Any, segment: str, in_tasks: bool) -> tuple[Key, Any] | None:
    """(key, child) of ``segment`` in ``node`` (a mapping key or a list index), None when absent."""
    if isinstance(node, Mapping):
        return (segment, node[segment]) if segment in node else None
    if isinstance(node, list):
        index = _list_index(node, segment, allow_names=in_tasks)
        return None if index is None else (index, node[index])
    return None


def _missing(node: Any, segment: str, prefix: tuple[str, ...], field: str) -> NoReturn:
    where = ".".join(prefix[:-1]) or "the top level"
    if isinstance(node, Mapping):
        raise ConfigKeyError(field, f"scene file key under {where!r}", segment, [str(k) for k in node])
    if isinstance(node, list):
        names = [str(i) for i in range(len(node))]
        names += [str(x["name"]) for x in node if isinstance(x, Mapping) and "name" in x]
        raise ConfigKeyError(field, f"entry of the scene file list {where!r}", segment, names)
    raise ConfigError(field, f"{where!r} is a value ({node!r}), it has no entry {segment!r}")


def check_path(doc: Mapping[str, Any], path: Any, field: str) -> tuple[Key, ...]:
    """Check that ``path`` can be set in the scene document ``doc``; return its canonical keys.

    The canonical keys are mapping keys and list indices (a task name becomes the task's index), so
    :func:`set_path` needs no look-up and two spellings of one entry compare equal.

    Args:
        doc: the parsed scene file.
        path: a dotted path.
        field: the sweep key named in errors (e.g. ``"grid.tasks.ee.kp"``).

    Raises:
        ConfigError: an empty or malformed path, a missing intermediate entry, or a last segment that
            does not exist where the scene format accepts no new key (:class:`ConfigKeyError` listing the
            valid names).
    """
    parts = split_path(path, field)
    keys: list[Key] = []
    node: Any = doc
    for depth, segment in enumerate(parts):
        in_tasks = depth == 1 and parts[0] == "tasks"
        found = _child(node, segment, in_tasks)
        if found is not None:
            keys.append(found[0])
            node = found[1]
            continue
        if depth < len(parts) - 1:
            _missing(node, segment, parts[: depth + 1], field)
        # a new last key: only at the top level or in a task entry, and only a key the format knows
        allowed: tuple[str, ...] | None = SCENE_FILE_KEYS if depth == 0 else None
        if depth == 2 and parts[0] == "tasks" and isinstance(node, Mapping):
            allowed = task_entry_keys(node)
        if not isinstance(node, Mapping) or allowed is None:
            _missing(node, segment, parts, field)
        if segment not in allowed:
            raise ConfigKeyError(field, "scene file key", segment, allowed)
        keys.append(segment)
    return tuple(keys)


def set_path(doc: MutableMapping[str, Any], keys: Sequence[Key], value: Any) -> None:
    """Set the entry at canonical ``keys`` (from :func:`check_path`) of ``doc`` to ``value`` in place."""
    node: Any = doc
    for key in keys[:-1]:
        node = node[key]
    node[keys[-1]] = value


def overlapping(paths: Mapping[str, tuple[Key, ...]]) -> tuple[str, str] | None:
    """The first pair of paths that address one entry, or where one contains the other.

    Args:
        paths: dotted path → canonical keys (from :func:`check_path`), so ``tasks.ee.kp`` and
            ``tasks.0.kp`` are recognised as the same entry.
    """
    items = list(paths.items())
    for i, (a, ka) in enumerate(items):
        for b, kb in items[i + 1 :]:
            n = min(len(ka), len(kb))
            if ka[:n] == kb[:n]:
                return a, b
    return None
