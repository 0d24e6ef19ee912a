"""Sphinx configuration of the wbcpy documentation (build: ``python -m sphinx -W -n -b html docs DIR``)."""

from __future__ import annotations

import importlib.metadata
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

project = "wbcpy"
author = "wbcpy developers"
copyright = "2026, wbcpy developers"
release = importlib.metadata.version("wbcpy")
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
    "myst_parser",
    "sphinxarg.ext",
    "wbcpy_api",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "_ext"]
myst_enable_extensions = ["dollarmath"]
myst_heading_anchors = 3

# strict: every cross-reference must resolve (wbcpy_api resolves re-exports and shows other libraries'
# names as code); `-W` makes each warning an error
nitpicky = True

autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_class_signature = "separated"
# napoleon (loaded by wbcpy_api): Google sections; "Args:" and "Attributes:" entries are rendered as
# field lists, so entries that name several fields at once ("kp, kd: gains") read as written
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_param = False
napoleon_use_rtype = False
napoleon_custom_sections = [("Attributes", "params_style")]

html_theme = "furo"
html_title = f"wbcpy {release}"
html_static_path: list[str] = []

# wbcpy_api: the API reference is generated from __all__ into api/generated (git-ignored)
wbcpy_api_package = "wbcpy"
wbcpy_api_dir = "api/generated"
# TODO(docs): names that docstrings already cite and that land with branches in flight (contact, velocity
# scenes); shown as code until they exist. Delete each entry once its module is on main.
wbcpy_api_pending: list[str] = []
python_use_unqualified_type_names = True
