"""Build ``wbcpy._kernels`` (``csrc/kernels/*.c``) into a chosen folder, with extra compiler flags.

Used by ``tools/sanitize.sh`` (an AddressSanitizer + UBSan build in a scratch folder). It reads only the
sources and NumPy's headers, not ``pyproject.toml``, so it runs with any setuptools::

    python tools/build_kernels.py OUT_DIR [--flags "-fsanitize=address,undefined -O1"]

builds ``OUT_DIR/wbcpy/_kernels*.so``; ``OUT_DIR`` = the checkout builds it in place.
"""

from __future__ import annotations

import argparse
import shlex
import tempfile
from pathlib import Path

import numpy as np
from setuptools import Distribution, Extension
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parents[1]


def build(out: Path, flags: list[str]) -> None:
    """Compile the kernels into ``out/wbcpy`` with ``flags`` added to the compile and link commands."""
    sources = sorted(str(p) for p in (ROOT / "csrc" / "kernels").glob("*.c"))
    ext = Extension(
        "wbcpy._kernels",
        sources=sources,
        include_dirs=[np.get_include(), str(ROOT / "csrc" / "kernels")],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_23_API_VERSION")],
        extra_compile_args=flags,
        extra_link_args=flags,
    )
    with tempfile.TemporaryDirectory() as temp:
        cmd = build_ext(Distribution({"name": "wbcpy-kernels", "ext_modules": [ext]}))
        cmd.build_lib = str(out)
        cmd.build_temp = temp
        cmd.force = True
        cmd.ensure_finalized()
        cmd.run()


def main() -> None:
    """Parse the command line and build."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--flags", default="")
    args = parser.parse_args()
    build(args.out.resolve(), shlex.split(args.flags))


if __name__ == "__main__":
    main()
