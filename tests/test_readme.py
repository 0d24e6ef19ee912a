"""README.md stays true: it starts with the two commands, and CI runs exactly its test command (its Python
blocks run in tests/test_code_blocks.py)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", README, flags=re.S)


def test_readme_starts_with_the_two_commands() -> None:
    bash = _blocks("bash")
    assert len(bash) >= 2
    assert "wbcpy demo" in bash[0]
    assert "pytest" in bash[1]
    first_heading = README.find("\n## ")
    assert first_heading == -1 or README.index(bash[1]) < first_heading


def test_ci_runs_exactly_the_readme_test_command() -> None:
    test_command = _blocks("bash")[1].strip()
    ci_lines = [ln.strip() for ln in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert test_command in ci_lines
    installs = [ln for ln in ci_lines if "pip install" in ln and "--upgrade pip" not in ln]
    assert installs == [test_command]  # CI installs nothing README's command does not


def test_the_readme_test_command_installs_what_every_test_needs() -> None:
    """The tests that skip without an extra (the docs build, mypy and jedi) run under README's command."""
    match = re.search(r'pip install -e "\.\[([a-z,]+)\]"', _blocks("bash")[1])
    assert match, _blocks("bash")[1]
    assert {"test", "docs", "typing"} <= set(match.group(1).split(","))


def test_ci_lints_the_repository() -> None:
    ci_lines = [ln.strip() for ln in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert "ruff check ." in ci_lines
