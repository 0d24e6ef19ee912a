"""The folder tree shows the architecture: few root modules, no import circle, every import down the layer
table of docs/architecture.md, tests mirror the package.

The import graph is built from the source with :mod:`ast` (not by importing), counting every import
statement: module level, inside functions (lazy imports) and under ``if TYPE_CHECKING:``. An edge goes
from a module to the module it names: ``from .pkg import name`` is an edge to ``pkg.name`` when that is a
module, else to the package ``pkg`` (its ``__init__``). Parent packages that Python imports on the way are
not edges (every package's ``__init__`` would otherwise be in a circle with its children).
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "wbcpy"
#: root modules besides __init__ and __main__ (at most 6: the root holds re-exports, not code)
MAX_ROOT_MODULES = 6
#: the compiled module (no source: a leaf of the graph)
EXTENSIONS = ("wbcpy._kernels",)


def modules(package: Path) -> dict[str, tuple[Path | None, bool]]:
    """Dotted module name -> (file, is a package) of every module under ``package``."""
    out: dict[str, tuple[Path | None, bool]] = {name: (None, False) for name in EXTENSIONS}
    for path in package.rglob("*.py"):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        out[".".join(parts)] = (path, is_package)
    return out


def _targets(module: str, is_package: bool, node: ast.Import | ast.ImportFrom, known: set[str]) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = module.split(".") if is_package else module.split(".")[:-1]
    if node.level:
        base = base[: len(base) - (node.level - 1)]
        prefix = ".".join(base + ([node.module] if node.module else []))
    else:
        prefix = node.module or ""
    return [f"{prefix}.{a.name}" if f"{prefix}.{a.name}" in known else prefix for a in node.names]


@functools.cache
def import_graph(package: Path) -> dict[str, set[str]]:
    """Module -> the wbcpy modules it imports (see the module docstring)."""
    mods = modules(package)
    known = set(mods)
    graph: dict[str, set[str]] = {name: set() for name in mods}
    for name, (path, is_package) in mods.items():
        if path is None:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for target in _targets(name, is_package, node, known):
                while target and target not in known:  # ``import wbcpy.x.Y``-style names: the module
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_wbcpy_has_no_import_circle() -> None:
    graph = import_graph(PACKAGE)
    assert len(graph) > 100  # (the whole package was read)
    assert not cycles(graph), f"import circles: {cycles(graph)}"


def test_the_check_finds_circles_through_lazy_and_type_checking_imports(tmp_path: Path) -> None:
    pkg = tmp_path / "wbcpy"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from .a import A\n")
    (pkg / "sub" / "a.py").write_text("def f():\n    from ..b import B\n")
    (pkg / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .sub import a\n")
    (pkg / "c.py").write_text("from . import b\n")
    assert cycles(import_graph(pkg)) == [["wbcpy.b", "wbcpy.sub.a"]]


def test_few_modules_at_the_root() -> None:
    root = sorted(p.name for p in PACKAGE.glob("*.py") if p.name not in ("__init__.py", "__main__.py"))
    assert len(root) <= MAX_ROOT_MODULES, root


# ------------------------------------------------------------------------------------------ layers
ARCHITECTURE = ROOT / "docs" / "architecture.md"


@dataclass(frozen=True)
class Layer:
    """A row of the layer table: the rank of a package or root module and the units of its own rank it
    may import."""

    rank: int
    sideways: frozenset[str]


def unit_name(cell: str) -> str:
    """The unit a table cell names: ```cli/``` → ``cli``, ```errors.py``` → ``errors``, ```_kernels```."""
    name = cell.strip().strip("`")
    return name.removesuffix("/").removesuffix(".py")


def read_layer_table(text: str) -> dict[str, Layer]:
    """The table under the ``## Layers`` heading of a Markdown page: unit name -> :class:`Layer`.

    Columns are found by their header: ``rank``, ``package or module`` and ``may also import (same
    rank)`` (code spans; ``—`` for none). A unit named twice is an error.
    """
    section = text.split("\n## Layers\n", 1)[1]
    rows: list[list[str]] = []
    for line in section.splitlines():
        if line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        elif rows:
            break  # the end of the first table
    header = rows[0]
    rank_col = header.index("rank")
    name_col = header.index("package or module")
    side_col = header.index("may also import (same rank)")
    table: dict[str, Layer] = {}
    for row in rows[2:]:  # after the header and its separator
        name = unit_name(row[name_col])
        if name in table:
            raise ValueError(f"{name} is named twice in the layer table")
        sideways = frozenset(unit_name(s) for s in re.findall(r"`[^`]+`", row[side_col]))
        table[name] = Layer(int(row[rank_col]), sideways)
    return table


def package_units(package: Path) -> set[str]:
    """Every sub-package and root module of ``package`` (and the compiled extensions)."""
    units = {path.name for path in package.iterdir() if (path / "__init__.py").is_file()}
    units |= {path.stem for path in package.glob("*.py")}
    return units | {name.rpartition(".")[2] for name in EXTENSIONS}


def unit_of(module: str) -> str:
    """The unit of a dotted module name: ``wbcpy.qp.kkt`` → ``qp``; the package itself → ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def table_errors(table: dict[str, Layer]) -> list[str]:
    """Sideways entries that are not units of the same rank in the table."""
    return [
        f"{name} lists {other} as its own rank"
        for name, layer in table.items()
        for other in sorted(layer.sideways)
        if other not in table or table[other].rank != layer.rank
    ]


def layer_violations(graph: dict[str, set[str]], table: dict[str, Layer]) -> list[tuple[str, str]]:
    """Imports that point up the table, or to its own rank without being listed there, or from or to a
    unit the table does not name."""
    bad = []
    for src, dsts in graph.items():
        a = unit_of(src)
        for dst in dsts:
            b = unit_of(dst)
            if a == b:
                continue
            if a not in table or b not in table:
                bad.append((src, dst))
                continue
            down = table[b].rank < table[a].rank
            listed = table[b].rank == table[a].rank and b in table[a].sideways
            if not (down or listed):
                bad.append((src, dst))
    return sorted(bad)


def test_the_layer_table_names_every_package_and_root_module() -> None:
    table = read_layer_table(ARCHITECTURE.read_text(encoding="utf-8"))
    units = package_units(PACKAGE)
    assert len(units) >= 18 + 3  # (the whole package was read: packages, root modules, _kernels)
    missing, stale = sorted(units - set(table)), sorted(set(table) - units)
    assert not missing, f"missing from the table of docs/architecture.md: {missing}"
    assert not stale, f"the table of docs/architecture.md names what wbcpy/ does not have: {stale}"
    assert not table_errors(table), table_errors(table)


def test_every_import_points_down_the_layer_table() -> None:
    table = read_layer_table(ARCHITECTURE.read_text(encoding="utf-8"))
    graph = import_graph(PACKAGE)
    bad = layer_violations(graph, table)
    assert not bad, f"imports against the layers of docs/architecture.md: {bad}"


SYNTHETIC_TABLE = """
## Layers

| rank | layer | package or module | owns | may also import (same rank) |
|---|---|---|---|---|
| 2 | top | `high/` | an application | — |
| 1 | middle | `left/` | one side | `right/` |
| 1 | middle | `right/` | the other side | — |
| 0 | base | `errors.py` | exceptions | — |
| 0 | base | `__init__.py` | the package | — |

Text after the table.
"""


def test_the_layer_check_finds_upward_and_unlisted_imports(tmp_path: Path) -> None:
    pkg = tmp_path / "wbcpy"
    for sub in ("high", "left", "right", "extra"):
        (pkg / sub).mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "high" / "__init__.py").write_text("from ..left import a\nfrom ..errors import E\n")  # down: fine
    (pkg / "left" / "__init__.py").write_text("from .a import A\n")
    (pkg / "left" / "a.py").write_text("from ..right import b\n")  # sideways, listed: fine
    (pkg / "right" / "__init__.py").write_text("")
    (pkg / "right" / "b.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from ..left import a\n"  # sideways, not listed
        "def f():\n    from ..high import x\n"  # up, lazily
    )
    (pkg / "extra" / "__init__.py").write_text("")
    (pkg / "errors.py").write_text("import wbcpy.right.b\n")  # up from the base
    table = read_layer_table(SYNTHETIC_TABLE)
    assert table["left"] == Layer(1, frozenset({"right"})) and table["errors"].rank == 0
    assert package_units(pkg) - set(table) == {"extra", "_kernels"}  # a package missing from the table
    assert layer_violations(import_graph(pkg), table) == [
        ("wbcpy.errors", "wbcpy.right.b"),
        ("wbcpy.right.b", "wbcpy.high"),
        ("wbcpy.right.b", "wbcpy.left.a"),
    ]
    wrong_rank = {**table, "high": Layer(2, frozenset({"left"}))}
    assert table_errors(wrong_rank) == ["high lists left as its own rank"]
    with pytest.raises(ValueError, match="named twice"):
        read_layer_table(SYNTHETIC_TABLE.replace("| `right/` | the", "| `left/` | the"))


def test_tests_mirror_the_package_folders() -> None:
    tests = ROOT / "tests"
    folders = {p.name for p in tests.iterdir() if p.is_dir() and p.name not in ("data", "__pycache__")}
    packages = {p.name.lstrip("_") for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert folders <= packages | {"kernels"}, folders - packages
    for folder in folders:
        assert any((tests / folder).glob("test_*.py")), folder
