"""Build of the compiled kernels (``wbcpy._kernels``, C sources in ``csrc/kernels``) and the package layout.

The project's metadata is in ``pyproject.toml``. Here: the packages, the C extension (built against NumPy's
C API) and the shipped robot files: the top-level ``robots/`` folder is copied into the built package as
``wbcpy/_robots`` (an editable install finds it in the checkout instead:
``wbcpy.model.registry.shipped_robots_dir``).
BLAS and LAPACK are not linked: the kernels take SciPy's (``scipy.linalg.cython_blas`` / ``cython_lapack``)
when they first need them, so no library or header beyond Python's and NumPy's is needed to build.
"""

from __future__ import annotations

import sys
import sysconfig
import tempfile
from pathlib import Path

import numpy as np
from setuptools import Extension, find_packages, setup
from setuptools.command.build import build
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROBOT_FILES = ("*.urdf", "*.yaml", "*.md")

NO_COMPILER = """
wbcpy: no working C compiler with Python's headers was found ({reason}).
wbcpy compiles its control-step kernels (csrc/kernels) when it installs. Install a compiler, then retry:
  Debian/Ubuntu:   sudo apt-get install gcc python3-dev
  Fedora/RHEL:     sudo dnf install gcc python3-devel
  macOS:           xcode-select --install        (Xcode command-line tools)
  Windows:         "Microsoft C++ Build Tools" (Visual Studio Build Tools, "Desktop development with C++")
"""


def check_c_compiler(compiler_name: str | None = None) -> None:
    """Compile a file that includes ``Python.h`` with the compiler setuptools would use (``CC``, the
    platform's default); exit with :data:`NO_COMPILER` (a short message naming what to install) if that
    fails, instead of setuptools' long log that ends in the compiler's ``No such file or directory``."""
    from distutils.ccompiler import new_compiler
    from distutils.errors import CCompilerError, DistutilsExecError, DistutilsPlatformError
    from distutils.sysconfig import customize_compiler

    with tempfile.TemporaryDirectory(prefix="wbcpy-cc-check-") as tmp:
        source = Path(tmp) / "check.c"
        source.write_text("#include <Python.h>\nint wbcpy_check(void) { return Py_IsInitialized(); }\n")
        try:
            cc = new_compiler(compiler=compiler_name)
            customize_compiler(cc)
            cc.compile([str(source)], output_dir=tmp, include_dirs=[sysconfig.get_paths()["include"]])
        except (CCompilerError, DistutilsExecError, DistutilsPlatformError, OSError) as exc:
            reason = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
            sys.exit(NO_COMPILER.format(reason=reason[:200]))


class BuildCheckingCompiler(build):
    """``build`` that checks for a C compiler before it copies or compiles anything (``pip install .``)."""

    def run(self) -> None:
        check_c_compiler()
        super().run()


class BuildExtCheckingCompiler(build_ext):
    """``build_ext`` that checks for a C compiler first (``pip install -e .``, ``setup.py build_ext``)."""

    def run(self) -> None:
        check_c_compiler(self.compiler if isinstance(self.compiler, str) else None)
        super().run()


class BuildWithRobots(build_py):
    """``build_py`` that also copies ``robots/`` into the built package as ``wbcpy/_robots``."""

    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "wbcpy" / "_robots"
        self.mkpath(str(target))
        for pattern in ROBOT_FILES:
            for path in sorted(Path("robots").glob(pattern)):
                self.copy_file(str(path), str(target / path.name))


setup(
    packages=find_packages(include=["wbcpy", "wbcpy.*"]),
    # the packages sit at the top of the checkout; stated as a root so that an editable install is a plain
    # path entry (.pth) that type checkers and IDEs follow, not an import hook
    package_dir={"": "."},
    package_data={"wbcpy": ["py.typed", "_kernels.pyi"]},
    cmdclass={
        "build": BuildCheckingCompiler,
        "build_ext": BuildExtCheckingCompiler,
        "build_py": BuildWithRobots,
    },
    ext_modules=[
        Extension(
            "wbcpy._kernels",
            sources=sorted(str(p) for p in Path("csrc/kernels").glob("*.c")),
            include_dirs=[np.get_include(), "csrc/kernels"],
            define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_23_API_VERSION")],
        )
    ],
)
