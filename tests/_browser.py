"""Headless Debian Chromium for the browser tests: screenshots of pages, decoded into arrays.

The system browser (``/usr/bin/chromium``, Debian's ``chromium`` package; ``.ci/run`` installs it) renders
WebGL with its software renderer (SwiftShader). Every run gets its own profile folder, no first-run,
component-update, sync or background traffic, and optionally no network at all: host names resolve to
nothing and every other connection goes to a dead proxy, so a page that needs the network renders empty.
Screenshots are read back with matplotlib (a test dependency) as float RGB arrays in [0, 1].
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

CHROMIUM = os.environ.get("WBCPY_CHROMIUM", "/usr/bin/chromium")
WIDTH, HEIGHT = 640, 480

needs_chromium = pytest.mark.skipif(
    not (Path(CHROMIUM).is_file() and os.access(CHROMIUM, os.X_OK)),
    reason=f"{CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium; .ci/run does)",
)


def screenshot(url: str, out: Path, budget_ms: int = 1500, offline: bool = True) -> np.ndarray:
    """Load ``url`` in headless Chromium, screenshot it into ``out`` and return it as (H, W, 3) floats."""
    import matplotlib.image as mpimg

    profile = tempfile.mkdtemp(prefix="wbcpy-chromium-")
    args = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--enable-unsafe-swiftshader",
        "--use-angle=swiftshader",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        f"--user-data-dir={profile}",
        f"--window-size={WIDTH},{HEIGHT}",
        f"--virtual-time-budget={budget_ms}",
        f"--screenshot={out}",
    ]
    if offline:
        args += ["--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "--proxy-server=127.0.0.1:9"]
    try:
        proc = subprocess.run([*args, url], capture_output=True, text=True, timeout=120, check=False)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    assert out.is_file(), f"chromium wrote no screenshot (exit {proc.returncode}): {proc.stderr[-2000:]}"
    return np.asarray(mpimg.imread(str(out)))[..., :3].astype(float)


def screenshots(urls: list[str], folder: Path, **kwargs: object) -> list[np.ndarray]:
    """:func:`screenshot` of every URL, two browsers at a time (the CI machine has two cores)."""
    outs = [folder / f"shot{i}.png" for i in range(len(urls))]
    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(lambda uo: screenshot(uo[0], uo[1], **kwargs), zip(urls, outs, strict=True)))


def changed(a: np.ndarray, b: np.ndarray, tol: float = 0.08) -> np.ndarray:
    """Mask of pixels whose colour differs between two screenshots by more than ``tol`` in some channel."""
    return np.abs(a - b).max(axis=-1) > tol
