"""Typing and packaging: mypy, py.typed, licence, version, lazily loaded names visible to editors.

mypy and jedi come with the ``typing`` extra, which ``.ci/run`` installs; without them those tests skip,
except under CI (``CI`` set), where a missing tool is a failure.
"""

from __future__ import annotations

import ast
import importlib
import importlib.metadata
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import wbcpy

ROOT = Path(__file__).resolve().parent.parent


def _require(module: str) -> None:
    if os.environ.get("CI"):
        importlib.import_module(module)  # CI installs the typing extra: missing is a failure
    else:
        pytest.importorskip(module, reason='the typing extra is not installed (pip install ".[typing]")')


def _mypy(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mypy", *args], capture_output=True, text=True, timeout=900, cwd=cwd
    )


def test_mypy_passes_with_the_project_configuration(tmp_path: Path) -> None:
    """``mypy`` as configured in pyproject.toml: --strict on the public API modules (see its TODO list)."""
    _require("mypy")
    proc = _mypy("--cache-dir", str(tmp_path / "cache"), cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    assert "Success" in proc.stdout


def test_strictly_typed_user_code_sees_wbcpy_types(tmp_path: Path) -> None:
    """A user's ``mypy --strict`` reads wbcpy's annotations (py.typed) and its lazily loaded names."""
    _require("mypy")
    user = tmp_path / "user.py"
    user.write_text(
        textwrap.dedent("""\
            import numpy as np
            import wbcpy
            from wbcpy import jspace

            robot = wbcpy.load_robot("lwr4")
            scene = wbcpy.AccelerationScene(robot)
            reveal_type(scene)
            reveal_type(wbcpy.Chain)
            reveal_type(robot.frame_jacobian("lwr_ee"))
            reveal_type(robot.nv)
            reveal_type(jspace.Model)
            reveal_type(wbcpy.ik.MultiRefMinJerkCtrl)
            reveal_type(wbcpy.controllers.JointPD(kp=100.0, kd=20.0).kp)
            reveal_type(scene.solver)
            """),
        encoding="utf-8",
    )
    proc = _mypy("--strict", "--cache-dir", str(tmp_path / "cache"), str(user), cwd=tmp_path)
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr
    assert 'Revealed type is "wbcpy.scenes.acceleration_scene.AccelerationScene"' in out
    assert 'Revealed type is "def (robot: wbcpy.model.robot_model.RobotModel' in out  # the class wbcpy.Chain
    assert 'Revealed type is "numpy.ndarray' in out
    assert 'Revealed type is "int"' in out  # robot.nv
    # a gain is a float64 array (never None), a scene's solver what the scene calls (not Any)
    assert 'Revealed type is "numpy.ndarray[tuple[Any, ...], numpy.dtype[numpy.float64]]"' in out
    assert 'Revealed type is "wbcpy.scenes.scene.HierarchySolver"' in out
    assert "missing library stubs or py.typed" not in out


def test_lazy_names_are_listed_by_dir_and_resolve() -> None:
    names = dir(wbcpy)
    for name in (*wbcpy._SUBMODULES, *wbcpy._LAZY):
        assert name in names, name
        assert getattr(wbcpy, name) is not None
    defining = importlib.import_module("wbcpy.scenes.acceleration_scene")
    assert wbcpy.AccelerationScene is defining.AccelerationScene
    with pytest.raises(AttributeError, match="no attribute 'NoSuchThing'"):
        _ = wbcpy.NoSuchThing


def test_lazy_names_are_declared_for_type_checkers_and_exported() -> None:
    """Every lazily loaded name has an explicit re-export under ``if TYPE_CHECKING:`` (what editors read),
    and the classes are in ``__all__``."""
    tree = ast.parse((ROOT / "wbcpy" / "__init__.py").read_text(encoding="utf-8"))
    declared = set()
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom)
                for alias in imp.names:
                    assert alias.asname == alias.name, f"{alias.name}: re-export as 'import X as X'"
                    declared.add(alias.name)
    assert set(wbcpy._SUBMODULES) | set(wbcpy._LAZY) <= declared
    assert set(wbcpy._LAZY) <= set(wbcpy.__all__)


def test_editor_completion_offers_lazy_names() -> None:
    """Jedi (IPython's and many editors' completion engine) completes and infers the lazy names."""
    _require("jedi")
    import jedi

    script = jedi.Script("import wbcpy\nwbcpy.Acc", path=str(ROOT / "completion_check.py"))
    assert "AccelerationScene" in [c.name for c in script.complete(2, len("wbcpy.Acc"))]
    script = jedi.Script("import wbcpy\nwbcpy.AccelerationScene", path=str(ROOT / "completion_check.py"))
    assert [d.full_name for d in script.infer(2, 10)] == ["wbcpy.scenes.acceleration_scene.AccelerationScene"]
    script = jedi.Script("import wbcpy\nwbcpy.Chain(None, '', '').", path=str(ROOT / "completion_check.py"))
    assert "fk_jacobian" in [c.name for c in script.complete(2, len("wbcpy.Chain(None, '', '')."))]


def test_package_ships_py_typed_licence_and_metadata_version() -> None:
    package = Path(wbcpy.__file__).parent
    assert (package / "py.typed").is_file()
    assert wbcpy.__version__ == importlib.metadata.version("wbcpy")
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(rf'^version = "{re.escape(wbcpy.__version__)}"$', pyproject, re.M)
    assert re.search(r'^license = "BSD-3-Clause"$', pyproject, re.M)
    licence = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("BSD 3-Clause License") and "wbcpy developers" in licence
    metadata = importlib.metadata.metadata("wbcpy")
    assert metadata.get("License-Expression") == "BSD-3-Clause"
    assert "LICENSE" in (metadata.get_all("License-File") or [])
