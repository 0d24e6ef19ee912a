"""Command-line interface: ``wbcpy <command> [options]``.

Each command lives in its own module of this package and exposes ``register(subparsers)``, which adds
its sub-parser and sets ``func`` (a callable ``(args) -> int``) as default. Command modules import only
``argparse`` at module level and the rest inside ``run``, so ``wbcpy info`` does not load the QP and
scene layers. Errors raised on purpose by wbcpy (:class:`~wbcpy.errors.WbcpyError`) and bad arguments
become a one-line message on stderr and exit code 2, never a traceback; warnings are one line each. The
physics warnings of third-party registry models (:class:`~wbcpy.errors.URDFWarning`, e.g. example-robot-data's
go1) are printed by ``wbcpy info ROBOT`` only, not by every command that loads the robot.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import importlib.util
import sys
import warnings
from collections.abc import Sequence
from typing import Any, NoReturn

from ..errors import URDFWarning, WbcpyError

__all__ = ["COMMANDS", "build_parser", "main", "version_text"]

#: command modules, in the order ``wbcpy --help`` lists them
COMMANDS = (
    "robots",
    "info",
    "frames",
    "dynamics",
    "solvers",
    "scene",
    "reach",
    "demo",
    "walk",
    "view",
    "sweep",
    "bench",
)


class CLIError(Exception):
    """A bad command-line argument found after parsing (exit code 2)."""


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose errors are one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def version_text() -> str:
    """``wbcpy X (pinocchio Y)`` from the installed packages' metadata (no import of either)."""

    def _v(dist: str) -> str:
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            return "unknown"

    return f"wbcpy {_v('wbcpy')} (pinocchio {_v('pin')}, Python {sys.version.split()[0]})"


def _one_line_warning(message: Any, category: type[Warning], *args: Any, **kwargs: Any) -> None:
    print(f"wbcpy: warning: {message}", file=sys.stderr)


def build_parser() -> argparse.ArgumentParser:
    """The ``wbcpy`` parser with every installed command module registered."""
    parser = _Parser(prog="wbcpy", description="Whole-body control on Pinocchio: models, scenes, IK.")
    parser.add_argument("--version", action="version", version=version_text(), help="print the version")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in COMMANDS:
        module_name = f"{__name__}.{name}"
        if importlib.util.find_spec(module_name) is None:
            continue
        importlib.import_module(module_name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``wbcpy`` console script; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _one_line_warning
            if args.command != "info":  # a registry model's implausible physics: `wbcpy info ROBOT` says it
                warnings.filterwarnings("ignore", category=URDFWarning)
            return int(args.func(args) or 0)
    except (WbcpyError, CLIError) as exc:
        print(f"wbcpy {args.command}: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into `head` and friends
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("wbcpy: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
