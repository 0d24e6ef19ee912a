"""A live 3-D view: meshcat's web server in a background thread, and a robot drawn into it by Pinocchio.

meshcat's server (``meshcat.servers.zmqserver.ZMQWebSocketBridge``) serves the viewer page and its
JavaScript from the installed package (no network), keeps the scene, and forwards scene commands that
arrive on a ZeroMQ socket to every open page over a WebSocket. ``meshcat-server`` runs it as a separate
process on the first free port from 7000; :class:`ViewServer` runs it in a thread of this process instead, on
the port asked for, and stops it (sockets closed, thread joined) on :meth:`ViewServer.stop`.

:func:`show_robot` loads a robot's visual geometry and draws it at a configuration with Pinocchio's
``MeshcatVisualizer``.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import socket
import threading
from typing import Any

import numpy as np
import pinocchio as pin

from ..description.robot_files import visual_model
from ..errors import WbcpyError
from .extra import require_viz

_START_TIMEOUT = 20.0


class ViewServerError(WbcpyError, OSError):
    """The view server could not start (port in use, bad host) (also an :class:`OSError`).

    Attributes:
        host, port: where it was asked to listen. reason: what went wrong.
    """

    def __init__(self, host: str, port: int | None, reason: str) -> None:
        self.host, self.port, self.reason = host, port, reason
        where = f"{host}:{port}" if port is not None else host
        super().__init__(f"cannot serve the 3-D view on {where}: {reason}")


class ViewServer:
    """meshcat's viewer server on ``host:port`` (``port=None``: the first free port from 7000).

    Use as a context manager, or call :meth:`start` and :meth:`stop`. One server per instance; not
    restartable. Attributes ``url`` (the viewer page) and ``zmq_url`` are set by :meth:`start`.
    """

    def __init__(self, host: str = "127.0.0.1", port: int | None = None) -> None:
        require_viz()
        if port is not None and not (isinstance(port, int) and 0 < port < 65536):
            raise ViewServerError(host, port, "the port must be an integer in 1..65535")
        self.host, self.port = host, port
        self.url = ""
        self.zmq_url = ""
        self._bridge: Any = None
        self._error: BaseException | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="wbcpy-view-server", daemon=True)
        self._clients: list[Any] = []

    def _check_port(self) -> None:
        """Fail before meshcat binds anything when the port is taken (meshcat would leak its ZMQ socket)."""
        if self.port is None:
            return
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.bind((self.host, self.port))

    def _serve(self) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            from meshcat.servers.zmqserver import ZMQWebSocketBridge

            self._check_port()
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                self._bridge = ZMQWebSocketBridge(host=self.host, port=self.port)
        except BaseException as exc:  # reported to start() in the calling thread
            self._error = exc
            self._ready.set()
            loop.close()
            return
        self.url, self.zmq_url = self._bridge.web_url, self._bridge.zmq_url
        self._ready.set()
        try:
            self._bridge.run()
        finally:
            self._bridge.zmq_stream.close()
            self._bridge.zmq_socket.close(linger=0)
            self._bridge.ioloop.close(all_fds=True)
            loop.close()

    def start(self) -> ViewServer:
        """Start serving; returns self once the page can be fetched.

        Raises:
            ViewServerError: the server could not listen (port in use, unknown host, timeout).
        """
        self._thread.start()
        if not self._ready.wait(_START_TIMEOUT):
            raise ViewServerError(self.host, self.port, f"no answer after {_START_TIMEOUT:g} s")
        if self._error is not None:
            self._thread.join()
            reason = str(self._error).strip() or type(self._error).__name__
            raise ViewServerError(self.host, self.port, reason) from None
        return self

    def visualizer(self) -> Any:
        """A new ``meshcat.Visualizer`` connected to this server."""
        import meshcat

        with contextlib.redirect_stdout(io.StringIO()):  # meshcat prints the URL; the caller decides
            vis = meshcat.Visualizer(zmq_url=self.zmq_url)
        self._clients.append(vis)
        return vis

    def stop(self) -> None:
        """Stop serving: close the connections made by :meth:`visualizer` and the server's sockets."""
        for vis in self._clients:
            vis.window.zmq_socket.close(linger=0)
        self._clients.clear()
        bridge = self._bridge
        if bridge is not None and self._thread.is_alive():
            bridge.ioloop.add_callback(bridge.ioloop.stop)
            self._thread.join(_START_TIMEOUT)

    @property
    def running(self) -> bool:
        """True while the server thread runs."""
        return self._thread.is_alive()

    def __enter__(self) -> ViewServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def show_robot(viewer: Any, robot: Any, q: np.ndarray) -> Any:
    """Draw ``robot`` (its URDF's visual geometry) at configuration ``q`` into a meshcat ``viewer``.

    Returns:
        Pinocchio's ``MeshcatVisualizer`` (call its ``display(q)`` to move the robot).

    Raises:
        URDFError: the visual geometry cannot be loaded.
    """
    from pinocchio.visualize import MeshcatVisualizer

    from .camera import camera_view, lowest_point, place_ground, set_camera

    viz = MeshcatVisualizer(robot.model, None, visual_model(robot))
    viz.initViewer(viewer=viewer)
    viz.loadViewerModel(rootNodeName="robot")
    viz.setBackgroundColor()
    viewer["/Axes"].set_property("visible", False)
    if viz.visual_model.ngeoms == 0:  # a URDF without <visual>: show the frames, not an empty scene
        viz.displayFrames(True, axis_length=0.1)
    viz.display(np.asarray(q, dtype=float))
    pin.updateFramePlacements(viz.model, viz.data)
    ground = lowest_point(viz.data, viz.visual_model, viz.visual_data)
    place_ground(viewer, ground)  # the grid at the robot's feet, not at the base's z = 0
    points = [M.translation for M in viz.data.oMf] + [M.translation for M in viz.visual_data.oMg]
    set_camera(viewer, camera_view(np.array([*points, [0.0, 0.0, ground]]), about_origin=True)[1])
    return viz
