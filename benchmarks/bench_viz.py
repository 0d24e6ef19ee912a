"""Benchmark: meshcat against viser, the two 3-D viewers Pinocchio integrates (``pinocchio.visualize``).

The figures behind the choice of meshcat for ``wbcpy view`` and the HTML animations (docs/viz.md):

* **install**: a fresh virtual environment gets ``pin`` and ``example-robot-data`` first (not counted), then
  ``pip install meshcat`` / ``pip install viser`` is timed and the growth of the environment measured
  (wall time depends on the network and pip's cache: compare the two rows of one run).
* **start-up**: in that environment, a new Python process imports the viewer, loads the robot's models with
  ``pin.buildModelsFromUrdf``, starts the viewer's server, loads the robot into it (Pinocchio's
  ``MeshcatVisualizer`` / ``ViserVisualizer``) and fetches the page over HTTP (200): wall time to that point.
* **export**: the viewer's own self-contained HTML export of the scene (meshcat ``static_html()``, viser
  ``scene.as_html()``), time and size.
* **render**: headless Debian Chromium (software WebGL, network cut off) opens the exported file and takes
  a screenshot with a virtual-time budget of 3 s; the wall time, and the share of the central region of
  the screenshot that is not background (``drawn``: 0 % means the robot did not appear). A render still
  running after 90 s is killed and reported as such.

Run: ``python benchmarks/bench_viz.py [--robot talos] [--repeat 3] [--backends meshcat viser]``
(needs network access to PyPI or a warm pip cache; about two minutes per backend).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np
from _timing import print_cpu

CHROMIUM = "/usr/bin/chromium"
_PACKAGES = {"meshcat": ["meshcat"], "viser": ["viser", "pycollada"]}  # viser needs pycollada for .dae

_CHILD = r"""
import json, socket, sys, time, urllib.request
t0 = time.perf_counter()
import pinocchio as pin
from pathlib import Path
import importlib.metadata as md
backend, robot, out = sys.argv[1], sys.argv[2], sys.argv[3]
share = Path(str(md.distribution("example-robot-data").locate_file("cmeel.prefix/share")))
urdf = {"talos": "talos_data/robots/talos_reduced.urdf", "panda": "panda_description/urdf/panda.urdf"}[robot]
path = share / "example-robot-data/robots" / urdf
model, collision, visual = pin.buildModelsFromUrdf(str(path), [str(share)])
with socket.socket() as s:
    s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]
if backend == "meshcat":
    from pinocchio.visualize import MeshcatVisualizer
    viz = MeshcatVisualizer(model, collision, visual)
    viz.initViewer(loadModel=True)
    url = viz.viewer.url()
else:
    import viser
    from pinocchio.visualize import ViserVisualizer
    viz = ViserVisualizer(model, collision, visual)
    server = viser.ViserServer(host="127.0.0.1", port=port, verbose=False)
    viz.initViewer(viewer=server, loadModel=True)
    url = f"http://127.0.0.1:{server.get_port()}/"
viz.display(pin.neutral(model))
status = urllib.request.urlopen(url, timeout=30).status
startup = time.perf_counter() - t0
t1 = time.perf_counter()
page = viz.viewer.static_html() if backend == "meshcat" else viz.viewer.scene.as_html()
export = time.perf_counter() - t1
Path(out).write_text(page)
print(json.dumps({"startup": startup, "status": status, "export": export, "bytes": len(page.encode())}))
if backend == "viser":
    server.stop()
"""


def _du(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def _venv(folder: Path, backend: str) -> tuple[Path, float, float, int]:
    """A venv with pin + example-robot-data, then the backend: (python, install s, added MB, packages)."""
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
    py = folder / "bin" / "python"
    pip = [str(py), "-m", "pip", "install", "-q"]
    subprocess.run([*pip, "--upgrade", "pip"], check=True, capture_output=True)
    subprocess.run([*pip, "pin", "example-robot-data"], check=True, capture_output=True)
    before, count0 = _du(folder), len(list((folder / "lib").glob("python*/site-packages/*.dist-info")))
    t0 = time.perf_counter()
    subprocess.run([*pip, *_PACKAGES[backend]], check=True, capture_output=True)
    seconds = time.perf_counter() - t0
    count = len(list((folder / "lib").glob("python*/site-packages/*.dist-info"))) - count0
    return py, seconds, (_du(folder) - before) / 1e6, count


def _render(html: Path, png: Path, budget_ms: int = 3000) -> tuple[float, float | None]:
    """(seconds, drawn share of the central region) of one headless Chromium screenshot; None on timeout."""
    import matplotlib.image as mpimg

    profile = tempfile.mkdtemp(prefix="bench-chromium-")
    args = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--enable-unsafe-swiftshader",
        "--use-angle=swiftshader", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", f"--user-data-dir={profile}", "--window-size=800,600",
        "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9",
        f"--virtual-time-budget={budget_ms}", f"--screenshot={png}", html.as_uri(),
    ]  # fmt: skip
    t0 = time.perf_counter()
    try:
        subprocess.run(args, capture_output=True, timeout=90, check=False)
    except subprocess.TimeoutExpired:
        return time.perf_counter() - t0, None
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    seconds = time.perf_counter() - t0
    img = np.asarray(mpimg.imread(str(png)))[150:450, 200:600, :3]
    background = np.median(img[:, :20], axis=1, keepdims=True)  # per row: gradients stay background
    return seconds, float((np.abs(img - background).max(axis=-1) > 0.1).mean())


def _stats(xs: list[float]) -> str:
    return f"{np.median(xs):6.2f} / {np.percentile(xs, 95):6.2f}"


class _Measured(NamedTuple):
    """One backend's figures: install, then the start-up/export runs and the renders of the exports."""

    install_s: float
    added_mb: float
    count: int
    runs: list[dict[str, float]]
    renders: list[tuple[float, float | None]]

    def rendered(self) -> list[tuple[float, float | None]]:
        """The renders that finished (a timed-out one has no drawn share)."""
        return [r for r in self.renders if r[1] is not None]

    def median(self, key: str) -> float:
        return float(np.median([r[key] for r in self.runs]))


def _measure(tmp: Path, backend: str, robot: str, repeat: int) -> _Measured:
    """Install ``backend`` in a fresh venv, then ``repeat`` start-up + export runs, each rendered."""
    py, install_s, added_mb, count = _venv(tmp / backend, backend)
    runs, renders = [], []
    for k in range(repeat):
        html = tmp / f"{backend}{k}.html"
        proc = subprocess.run(
            [str(py), "-c", _CHILD, backend, robot, str(html)], capture_output=True, text=True
        )
        if proc.returncode != 0:
            sys.exit(f"{backend}: measurement failed:\n{proc.stderr[-3000:]}")
        runs.append(json.loads(next(x for x in proc.stdout.splitlines() if x.startswith("{"))))
        if Path(CHROMIUM).is_file():
            renders.append(_render(html, tmp / f"{backend}{k}.png"))
    return _Measured(install_s, added_mb, count, runs, renders)


def _print_row(backend: str, m: _Measured) -> None:
    done = m.rendered()
    render = _stats([r[0] for r in done]) if done else "   n/a"
    drawn = f"{100 * np.median([r[1] for r in done]):7.1f}" if done else "    n/a"
    startup, export = _stats([r["startup"] for r in m.runs]), _stats([r["export"] for r in m.runs])
    size = np.median([r["bytes"] for r in m.runs]) / 1e6
    print(
        f"{backend:8} {m.install_s:9.1f} {m.added_mb:6.0f} {m.count:4d} {startup:>15} {export:>15} "
        f"{size:7.2f} {render:>15} {drawn:>8} {len(m.renders) - len(done)}"
    )


def _print_ratios(m: _Measured, v: _Measured) -> None:
    """viser / meshcat: install time, size, start-up and (when both rendered) render time."""
    ratio = v.median("startup") / m.median("startup")
    install, size = v.install_s / m.install_s, v.added_mb / m.added_mb
    print(f"viser / meshcat: install {install:.2f}x, size {size:.2f}x, start-up {ratio:.2f}x")
    done_m, done_v = [r[0] for r in m.rendered()], [r[0] for r in v.rendered()]
    if done_m and done_v:
        render_ratio = np.median(done_v) / np.median(done_m)
        print(f"viser / meshcat: render of the exported page {render_ratio:.2f}x")


def main() -> None:
    print_cpu()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robot", default="talos", choices=["talos", "panda"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--backends", nargs="+", default=["meshcat", "viser"], choices=list(_PACKAGES))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-viz-") as tmp:
        rows = {b: _measure(Path(tmp), b, args.robot, args.repeat) for b in args.backends}
    print(f"robot: {args.robot} (example-robot-data), {args.repeat} runs; median / p95 where two numbers")
    print(f"{'viewer':8} {'install s':>9} {'+MB':>6} {'pkgs':>4} {'start-up s':>15} {'export s':>15} "
          f"{'HTML MB':>7} {'render s':>15} {'drawn %':>8} timeouts")  # fmt: skip
    for backend, measured in rows.items():
        _print_row(backend, measured)
    if {"meshcat", "viser"} <= rows.keys():
        _print_ratios(rows["meshcat"], rows["viser"])


if __name__ == "__main__":
    main()
