"""No kernel without a caller: every entry point of ``wbcpy._kernels`` is called by the package.

A compiled kernel is a second implementation of maths the package also states in NumPy (its oracle
test); one that nothing in ``wbcpy/`` calls is C code kept alive by its tests alone. The check reads the
package's source: a kernel counts as called when a module imports it (``from .._kernels import name``)
or calls it through the module (``_kernels.name(``).
"""

from __future__ import annotations

import re
from pathlib import Path

from wbcpy import _kernels as kernels

PACKAGE = Path(__file__).resolve().parents[2] / "wbcpy"


def _package_source() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(PACKAGE.rglob("*.py")))


def test_every_kernel_has_a_caller_in_the_package() -> None:
    source = _package_source()
    entry_points = sorted(n for n in dir(kernels) if not n.startswith("_") and callable(getattr(kernels, n)))
    assert entry_points, "wbcpy._kernels exports no kernel"
    uncalled = [
        name
        for name in entry_points
        if not re.search(rf"_kernels import [^\n]*\b{name}\b|_kernels\.{name}\(", source)
    ]
    assert not uncalled, f"kernels without a caller in wbcpy/: {uncalled}"


def test_the_stub_lists_exactly_the_exported_kernels() -> None:
    stub = (PACKAGE / "_kernels.pyi").read_text(encoding="utf-8")
    stubbed = set(re.findall(r"^def (\w+)\(", stub, re.M))
    exported = {n for n in dir(kernels) if not n.startswith("_") and callable(getattr(kernels, n))}
    assert stubbed == exported
