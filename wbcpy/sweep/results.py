"""Result files: one CSV row per run, written and flushed as runs complete.

The header is the sweep's column list (:attr:`SweepSpec.columns`). Floats are written with Python's
shortest round-trip representation, so reading a value back gives the same float bit for bit. A row is
written in one ``write`` call followed by a flush: a sweep that is killed leaves every finished run in
the file, and at most a truncated last line, which :func:`completed_ids` drops before a resume appends.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from ..errors import ConfigError


def read_results(path: str | Path) -> tuple[list[str], list[dict[str, str]]]:
    """Header and rows (strings) of a result file; a truncated last line is ignored.

    Raises:
        ConfigError: ``out`` — the file cannot be read or has no header.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError("out", f"cannot read {str(path)!r} ({exc.strerror or exc})") from None
    if not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if not header:
        raise ConfigError("out", f"{str(path)!r} has no header line")
    rows = [dict(zip(header, r, strict=True)) for r in reader if len(r) == len(header)]
    return header, rows


def completed_ids(path: str | Path, columns: Sequence[str]) -> set[int]:
    """Run ids already in a result file of the same sweep, after dropping a truncated last line.

    Args:
        path: the result file (a missing or empty file has no completed runs).
        columns: the sweep's columns; the file's header must be the same.

    Raises:
        ConfigError: ``out`` — the file belongs to another sweep (different columns) or is malformed.
    """
    path = Path(path)
    if not path.exists() or path.stat().st_size == 0:
        return set()
    header, rows = read_results(path)
    if header != list(columns):
        raise ConfigError(
            "out", f"{str(path)!r} holds results of another sweep (its columns differ); choose another --out"
        )
    with path.open("rb+") as fh:  # drop a line cut short by a kill, so appended rows start cleanly
        data = fh.read()
        if data and not data.endswith(b"\n"):
            fh.truncate(data.rfind(b"\n") + 1)
    try:
        return {int(r["run_id"]) for r in rows}
    except ValueError:
        raise ConfigError("out", f"{str(path)!r} has a run_id that is not an integer") from None


def _cell(value: Any) -> Any:
    return "" if value is None else value


class ResultWriter:
    """Append rows to a CSV result file, one flushed write per row.

    Args:
        path: the file (None: rows are not written anywhere).
        columns: the header; a row's missing columns are left empty, unknown ones raise ``ValueError``.
        append: keep the file's rows (resume); otherwise the file is replaced.
    """

    def __init__(self, path: str | Path | None, columns: Sequence[str], append: bool = False) -> None:
        self.path = None if path is None else Path(path)
        self.columns = list(columns)
        self._fh: TextIO | None = None
        if self.path is None:
            return
        fresh = not append or not self.path.exists() or self.path.stat().st_size == 0
        self._fh = self.path.open("w" if fresh else "a", encoding="utf-8", newline="")
        if fresh:
            self._emit(self.columns)

    def _emit(self, cells: Sequence[Any]) -> None:
        if self._fh is None:
            return
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerow(cells)
        self._fh.write(buf.getvalue())
        self._fh.flush()

    def write(self, row: Mapping[str, Any]) -> None:
        """Write one row (a mapping column → value) and flush it to the operating system."""
        unknown = set(row) - set(self.columns)
        if unknown:
            raise ValueError(f"row has columns the result file does not: {sorted(unknown)}")
        self._emit([_cell(row.get(c)) for c in self.columns])

    def close(self) -> None:
        """Flush to disk and close the file."""
        if self._fh is not None:
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()
            self._fh = None

    def __enter__(self) -> ResultWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
