"""Write several output files in a forked process while the caller does other work (both cores).

``wbcpy demo`` writes its HTML animations (meshes, keyframes: seconds of CPU) while it draws the plots.
:class:`FileWriters` forks a child process that calls each writer ``write(folder / name) -> Path`` in turn
and sends the paths back through a pipe; :meth:`FileWriters.result` waits for them. Where ``fork`` does not
exist (or with ``background=False``) the writers run at once, in this process. A writer's exception is
re-raised by :meth:`~FileWriters.result` as a :class:`~wbcpy.errors.WbcpyError` carrying its text.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..errors import WbcpyError


def _write_all(writers: Mapping[str, Callable[[Path], Path]], folder: Path, conn: Any = None) -> list[str]:
    """Call every writer; with ``conn`` (a pipe end) send ("ok", paths) or ("error", text) through it."""
    try:
        paths = [str(write(folder / name)) for name, write in writers.items()]
    except Exception as exc:
        if conn is None:
            raise
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
        return []
    if conn is not None:
        conn.send(("ok", paths))
    return paths


class FileWriters:
    """Writers ``{file name: write(path) -> path}`` run into ``folder``, in a forked process when possible.

    Args:
        writers: file name -> callable that writes that file and returns its path.
        folder: the output folder (must exist).
        background: fork a child process for them (where fork exists); False: write them now.
    """

    def __init__(
        self, writers: Mapping[str, Callable[[Path], Path]], folder: Path, background: bool = True
    ) -> None:
        self._proc: Any = None  # the child process (multiprocessing's fork Process), or None
        self._conn: Any = None
        self._paths: list[Path] | None = None
        if background and "fork" in multiprocessing.get_all_start_methods():
            mp = multiprocessing.get_context("fork")
            self._conn, child = mp.Pipe(duplex=False)
            self._proc = mp.Process(target=_write_all, args=(writers, folder, child), daemon=True)
            self._proc.start()
            child.close()
        else:
            self._paths = [Path(p) for p in _write_all(writers, folder)]

    def result(self) -> list[Path]:
        """The files written, in the writers' order (waits for the child process).

        Raises:
            WbcpyError: a writer raised (its type and message attached) or the child process died.
        """
        if self._paths is None and self._proc is not None:
            try:
                status, value = self._conn.recv()
            except EOFError:
                status, value = (
                    "error",
                    f"the writing process ended without an answer (exit code {self._proc.exitcode})",
                )
            self._proc.join()
            self._conn.close()
            if status != "ok":
                raise WbcpyError(f"writing the files failed: {value}")
            self._paths = [Path(p) for p in value]
        return list(self._paths or ())
