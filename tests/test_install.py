"""The installed package works outside a checkout: console script, shipped URDFs, robot registry."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

SCRIPT = Path(sys.executable).parent / "wbcpy"


@pytest.mark.skipif(
    not SCRIPT.is_file(), reason="wbcpy is not installed in this environment (no console script)"
)
def test_console_script_finds_shipped_robots_from_any_directory(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        [str(SCRIPT), "info", "puma560"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert "shoulder-yaw" in proc.stdout and "total mass" in proc.stdout.lower()
    where = subprocess.run(
        [sys.executable, "-c", "import wbcpy.model.registry as r; print(r.shipped_robots_dir())"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    shipped = Path(where.stdout.strip())
    assert (shipped / "puma560.urdf").is_file()
    assert (shipped / "bimanual_chains.yaml").is_file()


def test_the_wheel_ships_the_kernels_the_robots_and_the_type_information(tmp_path: Path) -> None:
    """What ``pip install .`` installs (a wheel built from this checkout, the C kernels compiled), in a
    folder of its own and imported from elsewhere: not the checkout that the tests run from."""
    root = Path(__file__).resolve().parent.parent
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "dist"), str(root)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob("wbcpy-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
    assert {"wbcpy/py.typed", "wbcpy/_kernels.pyi", "wbcpy/_robots/puma560.urdf"} <= names
    assert "wbcpy/_robots/bimanual_chains.yaml" in names
    assert any(n.startswith("wbcpy/_kernels.") and n.endswith((".so", ".pyd")) for n in names)
    site = tmp_path / "site"
    inst = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--target", str(site), str(wheel)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert inst.returncode == 0, inst.stderr[-2000:]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PYTHONPATH": str(site)}
    code = (
        "import wbcpy, wbcpy._kernels as k, wbcpy.model.registry as r; "
        "print(wbcpy.__file__); print(k.__file__); print(r.shipped_robots_dir()); "
        "print(r.load_robot('puma560').nv)"
    )
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=120)  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    package, kernels, robots, nv = run.stdout.split()
    assert all(Path(p).resolve().is_relative_to(site.resolve()) for p in (package, kernels, robots))
    assert nv == "6"


def test_without_a_c_compiler_the_build_says_what_to_install(tmp_path: Path) -> None:
    """Issue 29, point 1: ``pip install .`` without a working compiler stops at once with wbcpy's short
    message naming what to install per platform, not setuptools' long log of the failed compilation."""
    root = Path(__file__).resolve().parent.parent
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"CC": "/nonexistent"}
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "dist"), str(root)],
        capture_output=True, text=True, timeout=600, env=env,
    )  # fmt: skip
    out = built.stdout + built.stderr
    assert built.returncode != 0
    assert "wbcpy: no working C compiler" in out and "/nonexistent" in out
    for needed in ("gcc python3-dev", "xcode-select --install", "Microsoft C++ Build Tools"):
        assert needed in out
    assert len(out.splitlines()) < 40  # the message, not a 195-line compilation log
    assert not list((tmp_path / "dist").glob("*.whl")) if (tmp_path / "dist").exists() else True
