"""Functions stay small: none in wbcpy above cyclomatic complexity 15 (radon; issue 9 for the QP layer,
issue 25 for the whole package)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

radon_complexity = pytest.importorskip("radon.complexity")
radon_visitors = pytest.importorskip("radon.visitors")

PACKAGE = Path(__file__).resolve().parents[1] / "wbcpy"
LIMIT = 15


def _blocks(path: Path) -> list[tuple[str, int]]:
    """(qualified name, complexity) of every function, method and closure of one file (radon lists
    methods beside their classes)."""
    out: list[tuple[str, int]] = []

    def visit(block: Any, prefix: str) -> None:
        out.append((f"{prefix}{block.name}", block.complexity))
        for inner in block.closures:
            visit(inner, f"{prefix}{block.name}.")

    for block in radon_complexity.cc_visit(path.read_text(encoding="utf-8")):
        if not isinstance(block, radon_visitors.Class):
            visit(block, f"{block.classname}." if block.is_method else "")
    return out


def test_no_function_above_the_limit() -> None:
    files = sorted(PACKAGE.rglob("*.py"))
    assert len(files) > 100  # (the whole package is there)
    over = [f"{p.relative_to(PACKAGE)}:{name} ({c})" for p in files for name, c in _blocks(p) if c > LIMIT]
    assert not over, f"functions above complexity {LIMIT}: {over}"


def test_the_check_sees_a_complex_function() -> None:
    branches = "".join(f"    if x == {i}:\n        return {i}\n" for i in range(LIMIT + 1))
    source = f"def f(x):\n{branches}    return -1\n"
    (block,) = radon_complexity.cc_visit(source)
    assert block.complexity == LIMIT + 2
