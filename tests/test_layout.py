"""The folder tree shows the architecture (issue 25): few root modules, no import circle, tests mirror the
package.

The import graph is built from the source with :mod:`ast` (not by importing), counting every import
statement: module level, inside functions (lazy imports) and under ``if TYPE_CHECKING:``. An edge goes
from a module to the module it names: ``from .pkg import name`` is an edge to ``pkg.name`` when that is a
module, else to the package ``pkg`` (its ``__init__``). Parent packages that Python imports on the way are
not edges (every package's ``__init__`` would otherwise be in a circle with its children).
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "wbcpy"
#: root modules besides __init__ and __main__ (issue 25: at most 6)
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


_BASE = {"model", "description", "qp"}
LAYERS = {
    # DESIGN.md's layers, bottom up: a package may import from the packages listed (and from itself,
    # errors, _support and _kernels)
    "_support": set(),
    "description": set(),
    "model": {"description"},
    "qp": set(),
    "tasks": _BASE,
    "controllers": _BASE | {"tasks"},
    "limits": _BASE | {"tasks", "controllers"},
    "contacts": _BASE | {"tasks", "controllers", "limits"},
}


@pytest.mark.parametrize("package", sorted(LAYERS))
def test_lower_layers_import_only_downwards(package: str) -> None:
    graph = import_graph(PACKAGE)
    allowed = {package, "errors", "_support", "_kernels", *LAYERS[package]}
    bad = {
        (src, dst)
        for src, dsts in graph.items()
        if src.startswith(f"wbcpy.{package}")
        for dst in dsts
        if dst.startswith("wbcpy.") and dst.split(".")[1] not in allowed
    }
    assert not bad, f"{package} imports upwards: {sorted(bad)}"


def test_tests_mirror_the_package_folders() -> None:
    tests = ROOT / "tests"
    folders = {p.name for p in tests.iterdir() if p.is_dir() and p.name not in ("data", "__pycache__")}
    packages = {p.name.lstrip("_") for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert folders <= packages | {"kernels"}, folders - packages
    for folder in folders:
        assert any((tests / folder).glob("test_*.py")), folder
