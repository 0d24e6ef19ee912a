"""Build of the compiled kernels (``wbcpy._kernels``, C sources in ``csrc/kernels``) and the package layout.

The project's metadata is in ``pyproject.toml``. Here: the packages, the C extension (built against NumPy's
C API) and the shipped robot files: the top-level ``robots/`` folder is copied into the built package as
``wbcpy/_robots`` (an editable install finds it in the checkout instead: ``wbcpy.model.registry.shipped_robots_dir``).
BLAS and LAPACK are not linked: the kernels take SciPy's (``scipy.linalg.cython_blas`` / ``cython_lapack``)
when they first need them, so no library or header beyond Python's and NumPy's is needed to build.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from setuptools import Extension, find_packages, setup
from setuptools.command.build_py import build_py

ROBOT_FILES = ("*.urdf", "*.yaml", "*.md")


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
    cmdclass={"build_py": BuildWithRobots},
    ext_modules=[
        Extension(
            "wbcpy._kernels",
            sources=sorted(str(p) for p in Path("csrc/kernels").glob("*.c")),
            include_dirs=[np.get_include(), "csrc/kernels"],
            define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_23_API_VERSION")],
        )
    ],
)
