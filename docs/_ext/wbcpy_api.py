"""Sphinx extension of the wbcpy docs: the API reference, generated from ``__all__``, and strict references.

**Pages.** At ``builder-inited`` every public module of the package (``wbcpy_api_package``; a module is
public when no part of its dotted name starts with ``_``) is imported and each name of its ``__all__`` gets
one *home*, where it is documented once:

* the module that defines it, when that module is public and lists it in its ``__all__``;
* else the shortest public module that lists it (names defined in private modules and re-exported by a
  package, e.g. ``wbcpy.ik.CtrlState``, are documented under the package).

Each top-level sub-package or module gets one page in ``wbcpy_api_dir`` (its sub-modules are sections of
it): the module docstring, the objects whose home it is (classes with all their public members, inherited
ones included; functions; data), and links to the names it re-exports. A new module or name needs no edit
here: it appears on the next build. The pages are rewritten only when their text changes.

**Strictness** (warnings, which ``sphinx-build -W`` turns into a failed build):

* a public name without a docstring (classes, functions and their public members: ``__doc__``, inherited
  docstrings count; data: a ``#:`` comment or a string literal after the assignment);
* a cross-reference to a ``wbcpy`` name that does not exist.

**Aliases.** A class's members under a second name (the seed libraries' camelCase names) are not
documented as members of their own: the class's docstring ends with the list of its aliases.

A reference Sphinx cannot resolve directly is resolved here, by object identity: ``wbcpy.RobotModel`` (a
re-export) links to where ``RobotModel`` is documented; a short name (``RobotModel`` in an annotation) links
to the one documented object of that name; references to private helpers that exist (``wbcpy.model._cache``)
and to other libraries (numpy, Pinocchio, the standard library: no inventories are fetched, the build is
offline) are shown as code without a link.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import enum
import functools
import importlib
import inspect
import pkgutil
import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.ext import napoleon
from sphinx.pycode import ModuleAnalyzer
from sphinx.util import logging

logger = logging.getLogger(__name__)


# ----------------------------------------------------------------------------------------- public names
def is_public(dotted: str) -> bool:
    """True when no part of the dotted module name starts with an underscore."""
    return not any(part.startswith("_") for part in dotted.split("."))


def public_modules(package: str) -> list[str]:
    """The package and every public module below it, sorted."""
    root = importlib.import_module(package)
    names = [package]
    for info in pkgutil.walk_packages(root.__path__, f"{package}."):
        if is_public(info.name):
            names.append(info.name)
    return sorted(names)


def _is_function(obj: Any) -> bool:
    """Functions, also wrapped ones (``functools.cache``), but not classes or other callable objects."""
    return inspect.isfunction(inspect.unwrap(obj)) or inspect.isbuiltin(obj)


def _defining_module(obj: Any) -> str | None:
    """The module that defines a class or function (None for data)."""
    if inspect.isclass(obj) or _is_function(obj):
        return getattr(obj, "__module__", None)
    return None


@functools.cache
def _module_tree(module_name: str) -> ast.Module | None:
    """The parsed source of a module (None without source); parsed once per build process."""
    try:
        return ast.parse(inspect.getsource(importlib.import_module(module_name)))
    except (OSError, TypeError):
        return None


@functools.cache
def _top_level_names(module_name: str) -> frozenset[str]:
    """Names a module's source assigns at top level (also inside ``if``/``try`` blocks)."""
    tree = _module_tree(module_name)
    if tree is None:
        return frozenset()
    names: set[str] = set()
    stack: list[ast.stmt] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, (ast.If, ast.Try)):
            stack.extend([*node.body, *node.orelse, *getattr(node, "finalbody", [])])
            for handler in getattr(node, "handlers", []):
                stack.extend(handler.body)
    return frozenset(names)


def _assigns(module: ModuleType, name: str) -> bool:
    """True when the module's source assigns ``name`` at top level (data defined there)."""
    return name in _top_level_names(module.__name__)


def data_source(module: str, name: str) -> tuple[str, str] | None:
    """(module, name) of the assignment of the data ``name`` that ``module`` exports (imports followed)."""
    mod = importlib.import_module(module)
    if _assigns(mod, name):
        return module, name
    tree = _module_tree(module)
    if tree is None:
        return None
    package = module if hasattr(mod, "__path__") else module.rpartition(".")[0]
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and any((a.asname or a.name) == name for a in node.names):
            original = next(a.name for a in node.names if (a.asname or a.name) == name)
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            source = f"{base}.{node.module}" if node.level and node.module else (node.module or base)
            return data_source(source, original)
    return None


@dataclasses.dataclass
class PublicName:
    """One name of one public module's ``__all__``, and where its object is documented."""

    module: str
    name: str
    obj: Any
    home_module: str = ""
    home_name: str = ""

    @property
    def path(self) -> str:
        """``module.name``."""
        return f"{self.module}.{self.name}"

    @property
    def home(self) -> str:
        """The documented path of the object."""
        return f"{self.home_module}.{self.home_name}"

    @property
    def is_home(self) -> bool:
        """True for the entry under which the object is documented."""
        return self.home_module == self.module and self.home_name == self.name


def public_names(package: str) -> list[PublicName]:
    """Every ``__all__`` entry of every public module, each with its home (see the module docstring)."""
    modules = {name: importlib.import_module(name) for name in public_modules(package)}
    entries = [
        PublicName(mod_name, name, getattr(module, name))
        for mod_name, module in modules.items()
        for name in getattr(module, "__all__", ())
    ]
    exporters: dict[Any, list[PublicName]] = {}
    for entry in entries:  # data are told apart by their assignment (equal small ints share an id)
        is_data = _defining_module(entry.obj) is None and not inspect.ismodule(entry.obj)
        key = (data_source(entry.module, entry.name) or entry.path) if is_data else id(entry.obj)
        exporters.setdefault(key, []).append(entry)
    for key, group in exporters.items():
        first = group[0]
        owner = _defining_module(first.obj) or (key[0] if isinstance(key, tuple) else None)
        own = [e for e in group if e.module == owner and is_public(e.module)]
        # a class's own name before its aliases
        own.sort(key=_alias_name)
        home = own[0] if own else min(group, key=_home_order)
        for entry in group:
            entry.home_module, entry.home_name = home.module, home.name
    return entries


def _alias_name(entry: PublicName) -> bool:
    """True when the entry names a class or function by a name not its own (``AccelerationSceneTSID``)."""
    return entry.name != getattr(entry.obj, "__name__", entry.name)


def _home_order(entry: PublicName) -> tuple[bool, int, str, str]:
    """Of the modules that list an object defined in a private or unlisting one: its own name first, then
    the shortest module path."""
    return _alias_name(entry), entry.module.count("."), entry.module, entry.name


# ---------------------------------------------------------------------------------------- docstrings
def _has_own_class_doc(cls: type) -> bool:
    doc = cls.__dict__.get("__doc__")
    if not doc or not doc.strip():
        return False
    if dataclasses.is_dataclass(cls) and doc.startswith(f"{cls.__name__}("):
        return False  # the signature dataclasses write when the class has no docstring
    return not (issubclass(cls, enum.Enum) and doc == "An enumeration.")


def _public_members(cls: type) -> Iterator[tuple[str, Any]]:
    for name, value in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(value, (staticmethod, classmethod)):
            yield name, value.__func__
        elif isinstance(value, property) or inspect.isfunction(value):
            yield name, value


def _data_documented(entry: PublicName) -> bool:
    source = data_source(entry.module, entry.name)
    if source is None:
        return False
    docs = ModuleAnalyzer.for_module(source[0]).find_attr_docs()
    return bool("".join(docs.get(("", source[1]), [])).strip())


def missing_docstrings(entries: list[PublicName]) -> list[str]:
    """Public names (and public members of public classes) without a docstring."""
    missing: list[str] = []
    for entry in entries:
        if not entry.is_home:
            continue
        obj = entry.obj
        if inspect.isclass(obj):
            if not _has_own_class_doc(obj):
                missing.append(entry.path)
            for member, value in _public_members(obj):
                target = getattr(obj, member, value)
                if not (inspect.getdoc(target) or "").strip():
                    missing.append(f"{entry.path}.{member}")
        elif _is_function(obj):
            if not (obj.__doc__ or "").strip():
                missing.append(entry.path)
        elif not inspect.ismodule(obj) and not _data_documented(entry):
            missing.append(entry.path)
    return missing


# -------------------------------------------------------------------------------------------- aliases
def class_aliases(cls: type) -> dict[str, str]:
    """``{alias: name}``: public attributes of a class that are another of its public attributes under a
    second name (the seed libraries' camelCase names, class-body assignments or
    :class:`wbcpy._support.aliases.alias` mixins). Of the names of one object, a snake_case one is the
    member (the function's own name first); the others are its aliases."""
    groups: dict[int, list[str]] = {}
    for name in dir(cls):
        if name.startswith("_"):
            continue
        try:
            value = getattr(cls, name)
        except Exception:  # (an alias whose method a class lacks, a property raising on the class)
            continue
        if inspect.isfunction(inspect.unwrap(value)) or isinstance(value, property):
            groups.setdefault(id(value), []).append(name)
    aliases: dict[str, str] = {}
    for names in groups.values():
        if len(names) > 1:
            own = getattr(getattr(cls, names[0]), "__name__", None)
            member = min(names, key=lambda n: (n != n.lower(), n != own, n))
            aliases.update({n: member for n in names if n != member})
    return aliases


#: (alias name, id of its object) of every documented class: members that autodoc skips
_ALIASES: set[tuple[str, int]] = set()


def _collect_aliases(entries: list[PublicName]) -> None:
    for entry in entries:
        if entry.is_home and inspect.isclass(entry.obj):
            for name in class_aliases(entry.obj):
                _ALIASES.add((name, id(getattr(entry.obj, name))))


def _skip_alias(app: Sphinx, what: str, name: str, obj: Any, skip: bool, options: Any) -> bool | None:
    """An alias is no member of its own: the class docstring lists the aliases (see _process_docstring)."""
    return True if what == "class" and (name, id(obj)) in _ALIASES else None


def _alias_lines(name: str, cls: type) -> list[str]:
    aliases = class_aliases(cls)
    if not aliases:
        return []
    listed = ", ".join(f"``{a}`` (:py:obj:`~{name}.{m}`)" for a, m in sorted(aliases.items()))
    return ["", f"**Aliases** (the seed library's names of these members): {listed}."]


# ---------------------------------------------------------------------------------------------- pages
def _directive(entry: PublicName) -> list[str]:
    obj, target = entry.obj, entry.home
    if inspect.isclass(obj):
        external = sorted({base.__name__ for base in obj.__mro__[1:] if not _is_own(base)} | {"object"})
        return [
            f".. autoclass:: {target}",
            "   :members:",
            "   :show-inheritance:",
            f"   :inherited-members: {', '.join(external)}",
            "",
        ]
    if _is_function(obj):
        return [f".. autofunction:: {target}", ""]
    if inspect.ismodule(obj):
        return []
    source = data_source(entry.module, entry.name)
    if source is None or source[0] == entry.module:
        return [f".. autodata:: {target}", "   :no-value:", ""]
    # data a package lists but an implementation module assigns: its ``#:`` comment is there
    doc = list(ModuleAnalyzer.for_module(source[0]).find_attr_docs().get(("", source[1]), []))
    _escape_bars(doc)
    head = [f".. py:data:: {entry.home_name}", f"   :module: {entry.home_module}", ""]
    return [*head, *(f"   {line}".rstrip() for line in doc), ""]


def _is_own(cls: type) -> bool:
    module = getattr(cls, "__module__", "") or ""
    return module.split(".")[0] == _PACKAGE[0]


_PACKAGE = ["wbcpy"]


def _title(text: str, char: str) -> list[str]:
    return [text, char * len(text), ""]


def module_section(module: str, entries: list[PublicName], level: str) -> list[str]:
    """The reST of one module: docstring, its home objects, its re-exports as links."""
    lines = _title(module, level)
    parent, _, leaf = module.rpartition(".")
    shadowed = bool(parent) and not inspect.ismodule(getattr(importlib.import_module(parent), leaf, None))
    # (a module its package shadows with a name of the same path, e.g. the function locomotion.walk:
    # the name is the link target, the module's section is not)
    lines += [f".. automodule:: {module}", "   :no-members:", *(["   :no-index:"] if shadowed else []), ""]
    here = [e for e in entries if e.module == module and e.is_home]
    elsewhere = [e for e in entries if e.module == module and not e.is_home]
    for entry in sorted(here, key=lambda e: e.name.lower()):
        lines += _directive(entry)
    if elsewhere:
        links = ", ".join(
            f":py:obj:`{e.name} <{e.home}>`" if not inspect.ismodule(e.obj) else f"``{e.name}``"
            for e in sorted(elsewhere, key=lambda e: e.name.lower())
        )
        lines += [f"Also available here (documented where they are defined): {links}", ""]
    return lines


def api_pages(package: str, entries: list[PublicName] | None = None) -> dict[str, str]:
    """Page name -> reST text, one page per top-level sub-package or module."""
    entries = public_names(package) if entries is None else entries
    modules = public_modules(package)
    groups: dict[str, list[str]] = {}
    for module in modules:
        parts = module.split(".")
        groups.setdefault(".".join(parts[:2]), []).append(module)
    pages: dict[str, str] = {}
    for top, members in groups.items():
        lines: list[str] = []
        for module in members:
            lines += module_section(module, entries, "=" if module == top else "-")
        pages[top] = "\n".join(lines).rstrip() + "\n"
    return pages


def write_pages(pages: dict[str, str], out: Path) -> None:
    """Write the pages (only those whose text changed) and delete pages of modules that are gone."""
    out.mkdir(parents=True, exist_ok=True)
    for stale in set(out.glob("*.rst")) - {out / f"{name}.rst" for name in pages}:
        stale.unlink()
    for name, text in pages.items():
        path = out / f"{name}.rst"
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")


def _generate(app: Sphinx) -> None:
    package = app.config.wbcpy_api_package
    _PACKAGE[0] = package
    entries = public_names(package)
    _collect_aliases(entries)
    write_pages(api_pages(package, entries), Path(app.srcdir) / app.config.wbcpy_api_dir)
    for name in missing_docstrings(entries):
        logger.warning("public name without a docstring: %s", name, type="wbcpy", subtype="docstring")


# ----------------------------------------------------------------------------------------- references
_MISSING = object()


def _import(target: str) -> Any:
    """The object at a dotted path (module, then attributes), or ``_MISSING``."""
    parts = target.split(".")
    for k in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:k]))
        except ImportError:
            continue
        for attr in parts[k:]:
            obj = getattr(obj, attr, _MISSING)
            if obj is _MISSING:
                return _MISSING
        return obj
    return _MISSING


@functools.cache
def _instance_attribute(target: str) -> bool:
    """True for ``pkg.Class.name`` where ``name`` is an instance attribute (which import cannot see): an
    annotated field, an ``Attributes:`` entry of a class docstring, or set as ``self.name`` in the source."""
    parent, _, name = target.rpartition(".")
    cls = _import(parent) if parent else _MISSING
    if not inspect.isclass(cls):
        return False
    entry = re.compile(rf"^\s+(\w+, )*{re.escape(name)}(, \w+)*( \(.*\))?:", re.M)
    for klass in cls.__mro__:
        if name in getattr(klass, "__annotations__", {}) or entry.search(klass.__doc__ or ""):
            return True
        try:
            source = inspect.getsource(klass)
        except (OSError, TypeError):
            continue
        if re.search(rf"self\.{re.escape(name)}\b\s*[:=]", source):
            return True
    return False


def _documented(env: Any) -> dict[int, str]:
    """id(object) -> documented name, for documented modules, classes, functions and data."""
    cache = getattr(env, "_wbcpy_documented", None)
    if cache is None:
        cache = {}
        for name, entry in env.get_domain("py").objects.items():
            if entry.objtype in ("module", "class", "exception", "function", "data"):
                obj = _import(name)
                if obj is not _MISSING:
                    cache.setdefault(id(obj), name)
        env._wbcpy_documented = cache
    return cache


def _link(app: Sphinx, env: Any, node: Any, contnode: Any, target: str) -> Any:
    """A link to ``target`` (a re-exported path is mapped to where its object is documented), or None."""
    documented = _documented(env)
    parts = target.split(".")
    for k in range(len(parts), 0, -1):
        owner = documented.get(id(_import(".".join(parts[:k]))))
        if owner is not None:
            new = ".".join([owner, *parts[k:]])
            py = env.get_domain("py")
            found = py.resolve_xref(env, node["refdoc"], app.builder, node["reftype"], new, node, contnode)
            if found is not None:
                return found
    return None


def _candidates(node: Any, target: str) -> list[str]:
    """Full paths a reference may mean: relative to the current class and module, then as written."""
    module, cls = node.get("py:module"), node.get("py:class")
    paths = [f"{module}.{cls}.{target}"] if module and cls else []
    paths += [f"{module}.{target}"] if module else []
    return [*paths, target]


def _resolve(app: Sphinx, env: Any, node: Any, contnode: Any) -> Any:
    """A link, the text as code (a name that exists but has no page of its own), or None (broken)."""
    target: str = node["reftarget"]
    package = app.config.wbcpy_api_package
    if "." not in target and (hasattr(builtins, target) or target in _TYPING_NAMES):
        return contnode
    if "[" in target or target in app.config.wbcpy_api_pending:
        return contnode  # a generic's parameters ("dict[str"), or a name that lands with another branch
    for path in _candidates(node, target):
        if path.split(".")[0] != package:
            continue
        if _import(path) is not _MISSING:
            return _link(app, env, node, contnode, path) or contnode
        if _instance_attribute(path):
            return contnode
    if "." not in target:  # a short name in an annotation: the one documented object of that name
        matches = [
            name
            for name, entry in env.get_domain("py").objects.items()
            if name.rsplit(".", 1)[-1] == target
            and entry.objtype in ("class", "exception", "function")
            and not entry.aliased  # (the defining module's path of an object documented elsewhere)
        ]
        if len(matches) == 1:
            return _link(app, env, node, contnode, matches[0])
        if target in _module_names(package):
            return contnode  # a name of an implementation module (documented in its package): code
    elif target.split(".")[0] != package:
        return contnode  # another library (numpy, pinocchio, the standard library): code, no link
    return None


#: short names of typing helpers shown as code (numpy's ``ArrayLike``/``NDArray`` reach a module through an
#: inherited dataclass field: a subclass's module need not import them)
_TYPING_NAMES = {
    "Any",
    "Callable",
    "Self",
    "Iterable",
    "Iterator",
    "Sequence",
    "Mapping",
    "ArrayLike",
    "NDArray",
}


@functools.cache
def _module_names(package: str) -> frozenset[str]:
    """Every name of every module of the package: a short name a docstring of an implementation module
    uses (its neighbours, its imports) exists there, though the page shows the docstring elsewhere."""
    modules = [importlib.import_module(module) for module in public_modules(package)]
    return frozenset(name for module in modules for name in vars(module))


def _missing_reference(app: Sphinx, env: Any, node: Any, contnode: Any) -> Any:
    if node.get("refdomain") != "py":
        return None
    result = _resolve(app, env, node, contnode)
    if result is contnode and not isinstance(contnode, nodes.literal):
        return nodes.literal("", contnode.astext())
    return result


# ------------------------------------------------------------------------------------------ docstrings
def _escape_bars(lines: list[str]) -> None:
    """``|x|`` (absolute values, norms) is text in wbcpy docstrings, not a reST substitution."""
    for i, line in enumerate(lines):
        row = line.strip()
        if "|" in line and not (row.startswith(("|", "+")) and row.endswith(("|", "+"))):  # not a table
            lines[i] = line.replace("|", "\\|")


def _process_docstring(app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    """Napoleon for the Google sections of modules, classes and functions; never for the one-line
    docstrings of properties and data, whose ``text: more text`` is prose, not napoleon's inline
    ``type: description``."""
    _escape_bars(lines)
    if what not in ("attribute", "property", "data"):
        napoleon._process_docstring(app, what, name, obj, options, lines)
    if what in ("class", "exception") and inspect.isclass(obj):
        lines += _alias_lines(name, obj)


@functools.cache
def _type_checking_imports(module_name: str) -> dict[str, str]:
    """Local name -> full path of the names a module imports under ``if TYPE_CHECKING:`` (autodoc cannot
    evaluate those annotations, so they arrive as bare names)."""
    module = importlib.import_module(module_name)
    tree = _module_tree(module_name)
    if tree is None:
        return {}
    package = module_name if hasattr(module, "__path__") else module_name.rpartition(".")[0]
    names: dict[str, str] = {}
    for node in tree.body:
        if not (isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)):
            continue
        for imp in node.body:
            if not isinstance(imp, ast.ImportFrom):
                continue
            base = package
            for _ in range(imp.level - 1):
                base = base.rpartition(".")[0]
            source = (f"{base}.{imp.module}" if imp.module else base) if imp.level else imp.module
            for alias in imp.names:
                names[alias.asname or alias.name] = f"{source}.{alias.name}"
    return names


def _qualify_signature(
    app: Sphinx, what: str, name: str, obj: Any, options: Any, signature: str | None, annotation: str | None
) -> tuple[str | None, str | None] | None:
    """Write annotations that name ``TYPE_CHECKING`` imports with their full path (so they link)."""
    module = name if what == "module" else getattr(obj, "__module__", None) or name.rpartition(".")[0]
    try:
        local = _type_checking_imports(module)
    except (ImportError, ValueError):
        return None
    if not local:
        return None
    pattern = re.compile(rf"(?<![\w.])({'|'.join(map(re.escape, local))})(?![\w])")

    def qualify(text: str | None) -> str | None:
        return pattern.sub(lambda m: local[m.group(1)], text) if text else text

    return qualify(signature), qualify(annotation)


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the configuration values and event handlers (and napoleon, see _process_docstring)."""
    app.add_config_value("wbcpy_api_package", "wbcpy", "env")
    app.add_config_value("wbcpy_api_dir", "api/generated", "env")
    app.add_config_value("wbcpy_api_pending", [], "env")
    app.setup_extension("sphinx.ext.autodoc")
    app.setup_extension("sphinx.ext.napoleon")
    for listener in list(app.events.listeners["autodoc-process-docstring"]):
        if listener.handler is napoleon._process_docstring:
            app.disconnect(listener.id)
    app.connect("autodoc-process-docstring", _process_docstring)
    app.connect("autodoc-process-signature", _qualify_signature)
    app.connect("autodoc-skip-member", _skip_alias)
    app.connect("builder-inited", _generate)
    app.connect("missing-reference", _missing_reference)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
