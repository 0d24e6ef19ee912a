"""``wbcpy view ROBOT``: serve an interactive 3-D view of a robot in the browser.

The robot's URDF ``<visual>`` geometry (meshes of example-robot-data and icub-models included) is drawn by
Pinocchio's ``MeshcatVisualizer`` into meshcat's viewer, served from this process on ``--host``:``--port``
(default 127.0.0.1, first free port from 7000). The page is meshcat's: orbit with the mouse, the controls
panel toggles the parts. The command runs until Ctrl-C (SIGINT) or SIGTERM, then stops the server and exits
with 0. ``--html FILE`` writes the same view as a self-contained HTML file instead of serving it.

``--q``: ``neutral`` (default), a posture of the robot's SRDF (``half_sitting``, ...) or nq numbers.
Needs the ``viz`` extra (``pip install "wbcpy[viz]"``); without it the command says so and exits with 2.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
import webbrowser
from typing import Any

from .common import add_robot_argument, load_robot_arg, parse_configuration_arg


def register(subparsers: Any) -> None:
    """Add the ``view`` command."""
    p = subparsers.add_parser(
        "view",
        help="serve an interactive 3-D view of a robot (meshcat; needs the viz extra)",
        description=(
            "Serve an interactive 3-D view of a registered robot or URDF in the browser (Pinocchio's\n"
            "MeshcatVisualizer), until Ctrl-C. --html FILE writes it as one offline HTML file instead."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog='needs the viz extra: pip install "wbcpy[viz]"',
    )
    add_robot_argument(p)
    p.add_argument(
        "--q",
        nargs="+",
        metavar="Q",
        help="configuration: neutral (default), an SRDF posture such as half_sitting, or nq values",
    )
    p.add_argument("--port", type=int, metavar="N", help="HTTP port (default: first free port from 7000)")
    p.add_argument("--host", default="127.0.0.1", metavar="HOST", help="address to listen on (127.0.0.1)")
    p.add_argument("--open", action="store_true", help="open the page in the default web browser")
    p.add_argument("--html", metavar="FILE", help="write a self-contained HTML file instead of serving")
    p.set_defaults(func=run)


def _wait_until_stopped() -> None:
    """Block until SIGINT (Ctrl-C) or SIGTERM."""
    stop = threading.Event()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        while not stop.wait(0.2):
            pass
    except KeyboardInterrupt:
        pass


def run(args: argparse.Namespace) -> int:
    """Serve the view until interrupted (exit status 0), or write ``--html``."""
    from ..viz import ViewServer, require_viz, show_robot, write_animation

    require_viz()
    if args.html:
        from ..viz.animation import prepare_output

        prepare_output(args.html, "--html")  # (checked before the robot is loaded)
    robot = load_robot_arg(args)
    q = parse_configuration_arg(robot, args.q, "--q")
    label = "neutral" if not args.q else " ".join(args.q)
    if args.html:
        path = write_animation(robot, [0.0], [q], args.html, title=f"{robot.name} ({label})")
        print(f"wbcpy view: wrote {path}")
        return 0
    logging.getLogger("tornado.access").setLevel(logging.ERROR)  # no line per file the page fetches
    server = ViewServer(args.host, args.port).start()
    try:
        show_robot(server.visualizer(), robot, q)
        print(f"wbcpy view: {robot.name} at {label} on {server.url} (Ctrl-C to stop)", flush=True)
        if args.open:
            webbrowser.open(server.url)
        _wait_until_stopped()
    finally:
        server.stop()
    print("wbcpy view: server stopped", file=sys.stderr, flush=True)
    return 0
