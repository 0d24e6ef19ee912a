"""Build of the compiled kernels (``wbcpy._kernels``, C sources in ``csrc/kernels``) and the package layout.

The project's metadata is in ``pyproject.toml``. Here: the packages, the shipped robot files (the top-level
``robots/`` folder, installed as ``wbcpy/_robots``) and the C extension, built against NumPy's C API. BLAS
and LAPACK are not linked: the kernels take SciPy's (``scipy.linalg.cython_blas`` / ``cython_lapack``)
at import time, so no library or header beyond Python's and NumPy's is needed to build.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from setuptools import Extension, find_packages, setup

SOURCES = sorted(str(p) for p in Path("csrc/kernels").glob("*.c"))

setup(
    packages=[*find_packages(include=["wbcpy", "wbcpy.*"]), "wbcpy._robots"],
    package_dir={"wbcpy._robots": "robots"},
    package_data={"wbcpy": ["py.typed", "_kernels.pyi"], "wbcpy._robots": ["*.urdf", "*.yaml", "*.md"]},
    ext_modules=[
        Extension(
            "wbcpy._kernels",
            sources=SOURCES,
            include_dirs=[np.get_include(), "csrc/kernels"],
            define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_23_API_VERSION")],
        )
    ],
)
