"""Reading YAML configuration files safely: encoding, syntax errors with line and column, bombs, depth.

Used by scene files (:mod:`wbcpy.scenes.files.scene_file`) and task lists
(:meth:`wbcpy.tasks.TaskConfig.from_yaml`).
Every failure is a :class:`~wbcpy.errors.ConfigError` naming the file:

* not UTF-8 text (binary, UTF-16 with its byte-order mark) — PyYAML would raise ``UnicodeDecodeError``;
* invalid YAML — with PyYAML's line and column (1-based) and its description of the problem;
* nesting deeper than :data:`MAX_DEPTH` (PyYAML recurses: a deep document ends in ``RecursionError``);
* more than :data:`MAX_NODES` values once aliases are expanded ("billion laughs": a few lines of aliases
  describe 10⁹ values; printing one in an error message would take minutes and gigabytes).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from ..errors import ConfigError

#: deepest nesting of lists and mappings accepted
MAX_DEPTH = 50
#: most values (scalars, lists, mappings, counted with aliases expanded) accepted in one document
MAX_NODES = 200_000


def _decode(data: bytes, label: str) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ConfigError(label, "the file is UTF-16 text; save it as UTF-8")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            label, f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}): a binary file?"
        ) from None
    if "\x00" in text:
        raise ConfigError(label, "not a text file (it contains NUL bytes)")
    return text.removeprefix("\ufeff")


def _check_size(doc: Any, label: str) -> None:
    """Walk the document iteratively (aliases expanded) and stop at the depth or size limit."""
    stack: list[tuple[Any, int]] = [(doc, 0)]
    count = 0
    while stack:
        node, depth = stack.pop()
        count += 1
        if count > MAX_NODES:
            raise ConfigError(label, f"more than {MAX_NODES} values once aliases are expanded (a YAML bomb?)")
        if depth > MAX_DEPTH:
            raise ConfigError(label, f"nested more than {MAX_DEPTH} levels deep")
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for kv in node.items() for v in kv)
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node)


def load_yaml_text(text: str, label: str) -> Any:
    """Parse YAML text (``label`` names it in errors).

    Raises:
        ConfigError: invalid YAML (with line and column), too deep, or too many values.
    """
    try:
        doc = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        what = " ".join(str(p) for p in (exc.context, exc.problem) if p)
        raise ConfigError(label, f"invalid YAML at {where}{what}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(label, f"invalid YAML ({str(exc).splitlines()[0]})") from None
    except RecursionError:
        raise ConfigError(label, f"nested more than {MAX_DEPTH} levels deep") from None
    _check_size(doc, label)
    return doc


def load_yaml_file(path: str | Path) -> Any:
    """Read and parse a UTF-8 YAML file.

    Raises:
        ConfigError: unreadable file, not UTF-8 text, or any error of :func:`load_yaml_text`.
    """
    path = Path(path).expanduser()
    label = str(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(label, f"cannot read ({exc.strerror or exc})") from None
    return load_yaml_text(_decode(data, label), label)
