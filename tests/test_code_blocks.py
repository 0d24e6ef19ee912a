"""The documentation's code runs: every ```python block of README.md and of every page under docs/.

A page's blocks run in order in one namespace (a later block may use what an earlier one defined), in a
scratch directory, with wbcpy's warnings as errors (an example that warns teaches a bad habit). Tracebacks
point at the page's own line numbers.

Two kinds of Python code are not run, and both are counted (at most :data:`MAX_NOT_RUN` in all):

* a ```python block right after a line ``<!-- skip: REASON -->`` (a display, a cluster, a long run);
* a ```{code-block} python directive: an API sketch with placeholders (signatures, ``...``), not an
  example.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest

import wbcpy

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
#: the Python code the tests do not run, over README and the docs: skipped blocks and API sketches
MAX_NOT_RUN = 6
SKIP = re.compile(r"<!--\s*skip:\s*(?P<reason>.*?)\s*-->")
FENCE = re.compile(r"^(?P<ticks>`{3,})(?P<info>.*)$")


@dataclass(frozen=True)
class Block:
    """One fenced code block of a page: its first line of code (1-based), its code, and why it is not run
    (``None``: it runs)."""

    line: int
    code: str
    not_run: str | None


def python_blocks(text: str) -> list[Block]:
    """The Python blocks of a Markdown page: ```python fences and ```{code-block} python directives."""
    lines = text.splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if fence is None:
            i += 1
            continue
        ticks, info = fence["ticks"], fence["info"].strip()
        end = next((k for k in range(i + 1, len(lines)) if lines[k].strip() == ticks), len(lines))
        if info == "python" or re.fullmatch(r"\{code-block\}\s+python", info):
            previous = next((lines[k] for k in range(i - 1, -1, -1) if lines[k].strip()), "")
            skip = SKIP.fullmatch(previous.strip())
            if info != "python":
                not_run: str | None = "an API sketch ({code-block} python)"
            elif skip is not None:
                not_run = skip["reason"]
            else:
                not_run = None
            blocks.append(Block(i + 2, "\n".join(lines[i + 1 : end]) + "\n", not_run))
        i = end + 1
    return blocks


def _pages() -> list[Path]:
    pages = [ROOT / "README.md"]
    pages += sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts and "generated" not in p.parts)
    return pages


PAGES = {str(page.relative_to(ROOT)): python_blocks(page.read_text("utf-8")) for page in _pages()}
RUN = sorted(name for name, blocks in PAGES.items() if any(b.not_run is None for b in blocks))


@pytest.mark.parametrize("page", RUN)
def test_the_python_blocks_of_the_page_run(
    page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "page_" + re.sub(r"\W", "_", page)}
    with warnings.catch_warnings():
        warnings.simplefilter("error", wbcpy.MissingReferenceWarning)
        for block in PAGES[page]:
            if block.not_run is None:
                # padded with empty lines: a traceback names the page's own line
                source = "\n" * (block.line - 1) + block.code
                exec(compile(source, str(ROOT / page), "exec"), namespace)


def test_readme_and_the_docs_have_python_that_runs() -> None:
    assert "README.md" in RUN and len(RUN) >= 10, RUN


def test_little_python_is_left_unrun_and_each_skip_says_why() -> None:
    not_run = [
        (page, b.line, b.not_run) for page, blocks in PAGES.items() for b in blocks if b.not_run is not None
    ]
    assert all(reason for _, _, reason in not_run), not_run
    assert len(not_run) <= MAX_NOT_RUN, not_run


def test_the_block_reader_sees_skips_sketches_and_line_numbers() -> None:
    text = (
        "# A page\n\n```python\nx = 1\n```\n\n<!-- skip: needs a display -->\n\n```python\nshow()\n```\n\n"
        "````{code-block} python\nscene = Scene(robot, ...)\n````\n\n```bash\nls\n```\n"
    )
    assert python_blocks(text) == [
        Block(4, "x = 1\n", None),
        Block(10, "show()\n", "needs a display"),
        Block(14, "scene = Scene(robot, ...)\n", "an API sketch ({code-block} python)"),
    ]
