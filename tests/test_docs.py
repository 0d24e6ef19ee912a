"""The documentation site: strict build, every public name documented, specs (the pages' code blocks run in
tests/test_code_blocks.py).

The build needs the ``docs`` extra (Sphinx, furo, myst-parser, sphinx-argparse), which ``.ci/run``
installs; without it these tests skip, except under CI (``CI`` set), where a missing tool is a failure.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import os
import pkgutil
import posixpath
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import wbcpy

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
DOCS_TOOLS = ("sphinx", "furo", "myst_parser", "sphinxarg")


def _require_docs_tools() -> None:
    for name in DOCS_TOOLS:
        if os.environ.get("CI"):
            importlib.import_module(name)  # CI installs the docs extra: missing is a failure
        else:
            pytest.importorskip(name, reason='the docs extra is not installed (pip install ".[docs]")')


def _sphinx(src: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "sphinx", "-q", "-W", "--keep-going", "-n", "-j", "auto", "-b", "html"]
    return subprocess.run(
        [*cmd, *extra, str(src), str(out)], capture_output=True, text=True, timeout=600, cwd=src
    )


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built in strict mode (warnings are errors, every reference checked)."""
    _require_docs_tools()
    out = tmp_path_factory.mktemp("site")
    proc = _sphinx(DOCS, out, "-d", str(out / ".doctrees"))
    assert proc.returncode == 0, f"strict docs build failed:\n{proc.stderr[-6000:]}"
    return out


# ------------------------------------------------------------------------------------- public names
def _public_modules() -> list[str]:
    names = ["wbcpy"]
    for info in pkgutil.walk_packages(wbcpy.__path__, "wbcpy."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            names.append(info.name)
    return names


def _public_names() -> list[tuple[str, str, Any]]:
    out = []
    for module_name in _public_modules():
        module = importlib.import_module(module_name)  # (an implementation module lists nothing)
        out += [(module_name, name, getattr(module, name)) for name in getattr(module, "__all__", ())]
    return out


def _resolve(dotted: str) -> Any:
    parts = dotted.split(".")
    for k in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:k]))
        except ImportError:
            continue
        for attr in parts[k:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


def _inventory(site: Path) -> dict[str, dict[str, Any]]:
    from sphinx.util.inventory import InventoryFile

    with open(site / "objects.inv", "rb") as f:
        inv = InventoryFile.load(f, "", posixpath.join)
    return {kind: dict(entries) for kind, entries in inv.items()} if isinstance(inv, dict) else inv.data


def _assignment_has_doc(module_name: str, name: str) -> bool:
    """A data name is documented by a string literal after its assignment or a ``#:`` comment above it
    (looked up in the module that assigns it, following ``from x import name``)."""
    module = importlib.import_module(module_name)
    source = inspect.getsource(module)
    tree = ast.parse(source)
    lines = source.splitlines()
    body = tree.body
    for i, node in enumerate(body):
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and any(
            isinstance(t, ast.Name) and t.id == name for t in targets
        ):
            after = body[i + 1] if i + 1 < len(body) else None
            if isinstance(after, ast.Expr) and isinstance(getattr(after, "value", None), ast.Constant):
                return True
            return lines[node.lineno - 2].strip().startswith("#:")
        if isinstance(node, ast.Try):
            for inner in node.body:
                if isinstance(inner, ast.Assign) and any(getattr(t, "id", "") == name for t in inner.targets):
                    return lines[inner.lineno - 2].strip().startswith("#:")
        if isinstance(node, ast.ImportFrom) and any((a.asname or a.name) == name for a in node.names):
            base = module_name if hasattr(module, "__path__") else module_name.rpartition(".")[0]
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            source_module = f"{base}.{node.module}" if node.level else str(node.module)
            original = next(a.name for a in node.names if (a.asname or a.name) == name)
            return _assignment_has_doc(source_module, original)
    return False


def _has_docstring(module_name: str, name: str, obj: Any) -> bool:
    if inspect.isclass(obj):
        doc = obj.__dict__.get("__doc__") or ""
        return bool(doc.strip()) and not doc.startswith(f"{obj.__name__}(")  # not a dataclass signature
    if inspect.ismodule(obj):
        return bool((obj.__doc__ or "").strip())
    if _is_function(obj):
        return bool((obj.__doc__ or "").strip())
    return _assignment_has_doc(module_name, name)  # data, type aliases included


def _is_function(obj: Any) -> bool:
    return inspect.isfunction(inspect.unwrap(obj)) or inspect.isbuiltin(obj)


def test_docs_build_in_strict_mode(site: Path) -> None:
    pages = "index getting-started cli qp-backends errors guarantees benchmarks sweeps viz lineage"
    for page in [*pages.split(), "architecture", "contributing", "changelog"]:
        assert (site / f"{page}.html").is_file(), page
    cli = " ".join(re.sub(r"<[^>]+>", "", (site / "cli.html").read_text(encoding="utf-8")).split())
    for command in ("robots", "info", "frames", "dynamics", "solvers", "scene", "reach", "demo", "view"):
        assert f"wbcpy {command} [-h]" in cli, f"the CLI reference lacks the usage of {command}"


def test_the_index_table_links_every_model(site: Path) -> None:
    """Issue 29, point 8: every model of the index table is a link into the API reference."""
    page = (site / "index.html").read_text(encoding="utf-8")
    table = page[page.index("<table") : page.index("</table>")]
    for name in ("AccelerationScene", "InverseDynamicsScene", "VelocityScene", "MultiRefMinJerkCtrl"):
        assert re.search(rf'<a class="reference internal" href="[^"]+"[^>]*>.*?{name}', table, re.S), name


def test_code_blocks_fit_the_page() -> None:
    """Code wraps at 88 characters (furo's text column; longer lines overflowed the contact-scene page's
    API block): every block of the model pages, and the Python examples of every page but the specs."""
    for page in sorted(DOCS.rglob("*.md")):
        if "specs" in page.parts or "_build" in page.parts:
            continue
        blocks = re.findall(r"^```([^\n]*)\n(.*?)^```", page.read_text("utf-8"), re.S | re.M)
        for info, block in blocks:
            if info != "python" and "models" not in page.parts:
                continue
            long = [line for line in block.splitlines() if len(line) > 88 and not line.startswith(":")]
            assert not long, f"{page.relative_to(DOCS)}: {long[0]!r}"


def test_every_public_name_has_a_docstring_and_is_in_the_api_reference(site: Path) -> None:
    inventory = _inventory(site)
    documented_ids: set[int] = set()
    documented_data: dict[str, list[str]] = {}
    for kind in ("py:module", "py:class", "py:exception", "py:function", "py:data"):
        for name in inventory.get(kind, {}):
            if kind == "py:data":
                documented_data.setdefault(name.rsplit(".", 1)[-1], []).append(name)
            else:
                # (an object, not a module its package shadows: the function wbcpy.locomotion.walk)
                parent, _, attr = name.rpartition(".")
                obj = _resolve(name) if kind == "py:module" else getattr(_resolve(parent), attr)
                documented_ids.add(id(obj))
    missing_doc, missing_ref = [], []
    for module_name, name, obj in _public_names():
        if not _has_docstring(module_name, name, obj):
            missing_doc.append(f"{module_name}.{name}")
        if inspect.isclass(obj) or inspect.ismodule(obj) or _is_function(obj):
            found = id(obj) in documented_ids
        else:  # data: a documented entry of that name holding this very value
            found = any(_resolve(path) is obj for path in documented_data.get(name, []))
        if not found:
            missing_ref.append(f"{module_name}.{name}")
    assert not missing_doc, f"public names without a docstring: {missing_doc}"
    assert not missing_ref, f"public names missing from the API reference: {missing_ref}"
    # the reference is complete in the other direction too: methods of the classes are there
    methods = inventory.get("py:method", {})
    assert "wbcpy.RobotModel.frame_jacobian" in methods
    assert "wbcpy.RobotModel.frame_jacobian_view" in methods  # inherited from a private base


def test_aliases_are_listed_apart_from_the_members(site: Path) -> None:
    """The seed libraries' camelCase names are no members of their own: one line of the class lists them."""
    methods = _inventory(site).get("py:method", {})
    assert "wbcpy.InverseDynamicsScene.set_reference" in methods
    assert "wbcpy.InverseDynamicsScene.get_joint_torques" in methods
    for alias in ("wbcpy.InverseDynamicsScene.setReference", "wbcpy.InverseDynamicsScene.getJointTorques",
                  "wbcpy.jspace.Model.getMassInertia"):  # fmt: skip
        assert alias not in methods, alias
    html = (site / "api" / "generated" / "wbcpy.html").read_text("utf-8")
    page = " ".join(re.sub(r"<[^>]+>", "", html).split())
    assert "Aliases (the seed library’s names of these members): getActuatedJointWeights" in page


def test_strict_build_fails_on_a_missing_docstring_and_a_broken_reference(tmp_path: Path) -> None:
    _require_docs_tools()
    pkg = tmp_path / "toypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        textwrap.dedent('''\
            """A toy package: see :func:`toypkg.exists` and :func:`toypkg.does_not_exist`."""

            __all__ = ["exists", "undocumented"]


            def exists() -> int:
                """Documented."""
                return 1


            def undocumented() -> int:
                return 2
            '''),
        encoding="utf-8",
    )
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(
        textwrap.dedent(f"""\
            import sys
            sys.path[:0] = [{str(tmp_path)!r}, {str(DOCS / "_ext")!r}]
            extensions = ["wbcpy_api"]
            nitpicky = True
            wbcpy_api_package = "toypkg"
            wbcpy_api_dir = "api"
            """),
        encoding="utf-8",
    )
    (src / "index.rst").write_text("Toy\n===\n\n.. toctree::\n   :glob:\n\n   api/*\n", encoding="utf-8")
    proc = _sphinx(src, tmp_path / "out")
    assert proc.returncode != 0
    assert "public name without a docstring: toypkg.undocumented" in proc.stderr
    assert "reference target not found: toypkg.does_not_exist" in proc.stderr
    assert "toypkg.exists" not in proc.stderr  # the valid reference resolved
    # the same package with the docstring and the reference fixed builds
    text = (pkg / "__init__.py").read_text(encoding="utf-8")
    text = text.replace(" and :func:`toypkg.does_not_exist`", "").replace(
        "def undocumented() -> int:\n", 'def undocumented() -> int:\n    """Now documented."""\n'
    )
    (pkg / "__init__.py").write_text(text, encoding="utf-8")
    proc = _sphinx(src, tmp_path / "out2")
    assert proc.returncode == 0, proc.stderr


# ---------------------------------------------------------------------------------- README commands
def test_getting_started_has_the_readme_commands() -> None:
    readme = re.findall(r"```bash\n(.*?)```", (ROOT / "README.md").read_text("utf-8"), re.S)
    page = re.findall(r"```bash\n(.*?)```", (DOCS / "getting-started.md").read_text("utf-8"), re.S)
    assert page[:2] == readme[:2]


# -------------------------------------------------------------------------------------------- specs
def test_specs_cited_by_docstrings_are_published() -> None:
    cited = set()
    for path in (ROOT / "wbcpy").rglob("*.py"):
        cited |= set(re.findall(r"specs/([a-z0-9-]+\.md)", path.read_text("utf-8")))
    published = {p.name for p in (DOCS / "specs").glob("*.md")}
    assert cited and cited <= published, cited - published
    index = (DOCS / "specs" / "index.md").read_text("utf-8")
    assert all(name.removesuffix(".md") in index for name in published - {"index.md"})
