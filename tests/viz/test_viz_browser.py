"""3-D views in a real browser: headless Debian Chromium renders them (software WebGL), screenshots decide.

* An HTML animation written by :func:`wbcpy.viz.write_animation` opens from disk with the network cut off;
  the robot is drawn (hiding it with ``#robot=0`` changes a sizeable region), the animation advances (the
  first and last frames differ, and with the robot hidden they hardly do: the change is the robot's
  motion), and the task-frame path is drawn in its colour.
* ``wbcpy view`` serves its page, the page renders the robot, and the server stops cleanly on Ctrl-C.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest
from _browser import changed, needs_chromium, screenshot, screenshots

from wbcpy.model.registry import load_robot

pytest.importorskip("meshcat", reason='the viz extra is not installed (pip install "wbcpy[viz]")')
from wbcpy.viz import write_animation

pytestmark = needs_chromium

Q_START = np.array([0.0, 0.3, 0.0, -0.6, 0.0, 0.5, 0.0])
Q_END = np.array([1.4, 0.9, 0.3, -1.4, 0.2, 1.0, 0.0])


def saturated(img: np.ndarray) -> np.ndarray:
    """Pixels with colour (max − min channel > 0.25): background, grid and shading are grey."""
    return (img.max(axis=-1) - img.min(axis=-1)) > 0.25


def orange(img: np.ndarray) -> np.ndarray:
    """Pixels of the first path colour (0xE8590C) under any lighting: red high, blue low, green between."""
    r, g, b = img[..., 0], img[..., 1], img[..., 2]
    return (r > 0.45) & (r - b > 0.35) & (g < 0.75 * r) & (g > b)


@pytest.fixture(scope="module")
def animation(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import coal

    robot = load_robot("lwr4")
    times = np.linspace(0.0, 2.0, 101)
    q_path = np.array([Q_START + s * (Q_END - Q_START) for s in np.linspace(0.0, 1.0, times.size)])
    ball = ("ball", coal.Sphere(0.12), pin.SE3(np.eye(3), np.array([0.45, -0.45, 0.35])))
    out = tmp_path_factory.mktemp("anim") / "lwr4.html"
    return write_animation(robot, times, q_path, out, trace_frames=["lwr_ee"], obstacles=[ball])


def test_animation_opens_offline_draws_the_robot_and_advances(animation: Path, tmp_path: Path) -> None:
    url = animation.resolve().as_uri()
    first, last, first_hidden, last_hidden = screenshots(
        [f"{url}#t=0", f"{url}#t=2", f"{url}#t=0&robot=0", f"{url}#t=2&robot=0"], tmp_path
    )
    size = first.shape[0] * first.shape[1]
    robot_at_start = changed(first, first_hidden)
    robot_at_end = changed(last, last_hidden)
    assert robot_at_start.sum() > 0.01 * size, "no robot drawn at t = 0 (offline)"
    assert robot_at_end.sum() > 0.01 * size, "no robot drawn at t = 2 s (offline)"
    assert saturated(first).sum() > 0.005 * size  # orange joints, not only grey shading
    motion = changed(first, last).sum()
    assert motion > 0.005 * size, "the first and last frames are the same: the animation does not advance"
    # with the robot hidden only the small marker on the path moves: the change above is the robot's
    assert changed(first_hidden, last_hidden).sum() < 0.2 * motion
    # the robot moved away from where it was: its two silhouettes are not the same pixels
    assert (robot_at_start ^ robot_at_end).sum() > 0.5 * min(robot_at_start.sum(), robot_at_end.sum())
    assert orange(first_hidden).sum() > 40, "the path of lwr_ee is not drawn"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_view_serves_renders_and_stops(tmp_path: Path) -> None:
    port = _free_port()
    cmd = [sys.executable, "-m", "wbcpy", "view", "lwr4", "--q", *map(str, Q_END), "--port", str(port)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = ""
        deadline = time.monotonic() + 90.0
        while "http://" not in line and time.monotonic() < deadline and proc.poll() is None:
            line = proc.stdout.readline()
        assert f"http://127.0.0.1:{port}/static/" in line, f"no URL announced: {line!r} {proc.poll()}"
        url = line[line.index("http://") :].split()[0]
        with urllib.request.urlopen(url, timeout=10) as page:
            assert page.status == 200 and b"MeshCat" in page.read()
        for attempt in range(3):  # the scene arrives over a WebSocket, in real time: a busy machine may lag
            img = screenshot(url, tmp_path / f"view{attempt}.png", budget_ms=2500)
            size = img.shape[0] * img.shape[1]
            if saturated(img).sum() > 0.01 * size:
                break
        assert saturated(img).sum() > 0.01 * size, "the served page does not show the robot"
        corner = img[5:40, 5:40].reshape(-1, 3)  # background: grey, no robot there
        assert np.ptp(corner, axis=1).max() < 0.05
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert "server stopped" in err
    with socket.socket() as s, pytest.raises(ConnectionRefusedError):  # nothing listens there any more
        s.connect(("127.0.0.1", port))
