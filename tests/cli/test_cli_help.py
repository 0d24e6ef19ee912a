"""Every command documents every option in --help and answers bad arguments with one line and exit 2."""

from __future__ import annotations

import subprocess
import sys

import pytest

from wbcpy.cli import COMMANDS, build_parser

PARSER = build_parser()
SUBPARSERS = next(a for a in PARSER._actions if a.dest == "command").choices
INSTALLED = [c for c in COMMANDS if c in SUBPARSERS]


def _wbcpy(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "wbcpy", *args], capture_output=True, text=True, timeout=120)


def test_every_planned_user_command_is_installed() -> None:
    assert {"info", "dynamics", "solvers", "scene", "reach", "demo"} <= set(INSTALLED)


def test_top_level_help_lists_every_command() -> None:
    proc = _wbcpy("--help")
    assert proc.returncode == 0
    for name in INSTALLED:
        assert name in proc.stdout


@pytest.mark.parametrize("command", INSTALLED)
def test_command_help_documents_every_option(command: str) -> None:
    sub = SUBPARSERS[command]
    help_text = sub.format_help()
    for action in sub._actions:
        for flag in action.option_strings:
            assert flag in help_text, (command, flag)
        if action.option_strings and action.dest != "help":
            assert action.help, (command, action.dest)


@pytest.mark.parametrize("command", INSTALLED)
def test_unknown_option_is_one_line_and_exit_2(command: str) -> None:
    proc = _wbcpy(command, "--no-such-option")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert "Traceback" not in proc.stderr


def test_unknown_command_is_one_line_and_exit_2() -> None:
    proc = _wbcpy("no-such-command")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1, proc.stderr
