"""Write the motion of a robot as ONE self-contained HTML file that plays it in a browser.

:func:`write_animation` loads the robot's visual geometry with Pinocchio, draws it with Pinocchio's
``MeshcatVisualizer`` into a :class:`~wbcpy.viz.recorder.SceneRecorder` (no server), adds the paths of the
chosen frames as tubes with a marker riding on each, explicit point paths, target markers and world
obstacles, and stores the motion as a meshcat keyframe animation: for each frame of the animation and each
geometry, its pose ``oMg`` from ``pin.forwardKinematics`` + ``pin.updateGeometryPlacements``.

Time: frames are spaced uniformly over [times[0], times[-1]] at about ``fps`` per second (the last frame is
the last sample); a frame between two samples uses ``pin.interpolate`` (the geodesic between the two
configurations, so free-flyer quaternions stay unit). The page starts playing (in a loop) when opened;
``#t=SECONDS`` in its URL pauses it at a time (see :mod:`wbcpy.viz.page`).
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pinocchio as pin

from .._support.validation import as_matrix, as_vector
from ..description.robot_files import visual_model
from ..errors import InvalidValueError
from .camera import camera_view, lowest_point, place_ground, set_camera
from .extra import require_viz
from .overlays import obstacle_model, sphere_object, tube_object
from .page import ROBOT_NODE, html_page
from .recorder import SceneRecorder

#: colours of the frame paths, in the order of ``trace_frames`` (then of ``paths``)
TRACE_COLORS = (0xE8590C, 0x1971C2, 0x9C36B5, 0x2F9E44, 0xF08C00, 0x0C8599)
_TARGET_COLOR = 0x2B8A3E
_LOOP_FOREVER = 2**31 - 1
_MAX_FPS = 240.0


@dataclass
class _Inputs:
    """Validated inputs of :func:`write_animation`."""

    times: np.ndarray
    q_path: np.ndarray
    frame_ids: list[int]
    paths: dict[str, np.ndarray]
    targets: list[np.ndarray]
    obstacles: pin.GeometryModel
    out: Path


def _check_times(times: Any) -> np.ndarray:
    t = as_vector(times, None, "times")
    if t.size == 0:
        raise InvalidValueError("times", "(N,) with N >= 1", t.shape)
    if t.size > 1 and not np.all(np.diff(t) > 0.0):
        raise InvalidValueError("times", "(N,)", t.shape, reason="must be strictly increasing")
    return t


def _check_inputs(robot: Any, times: Any, q_path: Any, out: Any, options: dict[str, Any]) -> _Inputs:
    t = _check_times(times)
    q = as_matrix(q_path, (t.size, robot.model.nq), "q_path")
    frame_ids = [robot.frame_id(f) for f in options["trace_frames"]]
    paths = {str(k): as_matrix(v, (None, 3), f"paths[{k!r}]") for k, v in (options["paths"] or {}).items()}
    targets = [as_vector(p, 3, f"targets[{i}]") for i, p in enumerate(options["targets"])]
    fps = options["fps"]
    if not (isinstance(fps, int | float) and math.isfinite(fps) and 0.0 < fps <= _MAX_FPS):
        raise InvalidValueError("fps", f"a number in (0, {_MAX_FPS:g}]", fps, reason=f"got {fps!r}")
    return _Inputs(t, q, frame_ids, paths, targets, obstacle_model(options["obstacles"]), prepare_output(out))


def prepare_output(out: str | Path, name: str = "out") -> Path:
    """Check, before a run, that an animation can be written to ``out``; returns it as a ``Path``.

    ``name`` is the argument named in errors (``"--html"`` for the CLI).

    Raises:
        VizExtraMissingError: the ``viz`` extra is not installed.
        InvalidValueError: the file's folder does not exist or cannot be written to, or ``out`` is a
            folder.
    """
    require_viz()
    path = Path(out).expanduser()
    if not path.parent.is_dir():
        reason = f"no folder {str(path.parent)!r}"
        raise InvalidValueError(name, "a file in an existing folder", str(path), reason=reason)
    if path.is_dir():
        raise InvalidValueError(name, "a file", str(path), reason=f"{str(path)!r} is a folder")
    try:
        with tempfile.TemporaryFile(dir=path.parent):
            pass
    except OSError as exc:
        reason = f"cannot write to {str(path.parent)!r} ({exc.strerror or exc})"
        raise InvalidValueError(name, "a writable folder", str(path), reason=reason) from None
    return path


def frame_times(times: np.ndarray, fps: float) -> np.ndarray:
    """Animation frame times: uniform over [times[0], times[-1]], at least ``fps`` per second."""
    span = float(times[-1] - times[0])
    if span <= 0.0:
        return times[:1].copy()
    count = max(1, math.ceil(span * fps - 1e-9))
    return np.linspace(times[0], times[-1], count + 1)


def _sample(model: pin.Model, times: np.ndarray, q_path: np.ndarray, t: float) -> np.ndarray:
    """The configuration at time ``t``: geodesic interpolation between the neighbouring samples."""
    if times.size == 1:
        first: np.ndarray = q_path[0]
        return first
    i = int(np.clip(np.searchsorted(times, t, side="right") - 1, 0, times.size - 2))
    alpha = float(np.clip((t - times[i]) / (times[i + 1] - times[i]), 0.0, 1.0))
    return np.asarray(pin.interpolate(model, q_path[i], q_path[i + 1], alpha))


class _Scene:
    """The recorded meshcat scene of one robot, with its Pinocchio data for the poses."""

    def __init__(self, robot: Any, obstacles: pin.GeometryModel) -> None:
        from pinocchio.visualize import MeshcatVisualizer

        self.model = robot.model
        self.visual = visual_model(robot)
        self.recorder = SceneRecorder()
        self.viewer = self.recorder.visualizer()
        self.viz = MeshcatVisualizer(self.model, None, self.visual)  # its own pin.Data: robot untouched
        self.viz.initViewer(viewer=self.viewer)
        self.viz.loadViewerModel(rootNodeName=ROBOT_NODE[-1])
        self.viz.setBackgroundColor()
        self.viewer["/Axes"].set_property("visible", False)
        if obstacles.ngeoms:
            walls = MeshcatVisualizer(pin.Model(), None, obstacles)
            walls.initViewer(viewer=self.viewer)
            walls.loadViewerModel(rootNodeName="obstacles")
            walls.display(np.zeros(0))

    def pose(self, q: np.ndarray) -> None:
        """Kinematics and geometry placements at ``q`` in the scene's own data."""
        pin.forwardKinematics(self.model, self.viz.data, q)
        pin.updateFramePlacements(self.model, self.viz.data)
        pin.updateGeometryPlacements(self.model, self.viz.data, self.visual, self.viz.visual_data)

    def node_names(self) -> list[str]:
        return [self.viz.getViewerNodeName(g, pin.GeometryType.VISUAL) for g in self.visual.geometryObjects]


def _frame_paths(scene: _Scene, q_path: np.ndarray, frame_ids: list[int]) -> list[np.ndarray]:
    """World positions (m) of each traced frame at every sample."""
    out = [np.empty((q_path.shape[0], 3)) for _ in frame_ids]
    for k, q in enumerate(q_path):
        scene.pose(q)
        for path, fid in zip(out, frame_ids, strict=True):
            path[k] = scene.viz.data.oMf[fid].translation
    return out


def _animate(scene: _Scene, inp: _Inputs, t_frames: np.ndarray, markers: list[str]) -> np.ndarray:
    """Record the keyframes; returns the origins of every frame and geometry at every step (the camera's)."""
    import meshcat.animation

    names = scene.node_names()
    span = float(t_frames[-1] - t_frames[0])
    anim = meshcat.animation.Animation(default_framerate=(t_frames.size - 1) / span if span > 0 else 30.0)
    seen = []
    for k, t in enumerate(t_frames):
        scene.pose(_sample(scene.model, inp.times, inp.q_path, float(t)))
        with anim.at_frame(scene.viewer, k) as frame:
            for g, name in enumerate(names):
                frame[name].set_transform(scene.viz.visual_data.oMg[g].homogeneous)
            for marker, fid in zip(markers, inp.frame_ids, strict=True):
                frame[marker].set_transform(scene.viz.data.oMf[fid].homogeneous)
        seen += [M.translation for M in (*scene.viz.data.oMf, *scene.viz.visual_data.oMg)]
    if t_frames.size > 1:
        scene.viewer.set_animation(anim, play=True, repetitions=_LOOP_FOREVER)
    return np.array(seen)


def write_animation(
    robot: Any,
    times: Any,
    q_path: Any,
    out: str | Path,
    *,
    trace_frames: Sequence[str] = (),
    paths: Mapping[str, Any] | None = None,
    targets: Iterable[Any] = (),
    obstacles: Iterable[Any] = (),
    title: str | None = None,
    fps: float = 30.0,
) -> Path:
    """Write an HTML animation of ``robot`` following ``q_path`` that opens from disk, offline.

    Args:
        robot: a :class:`~wbcpy.model.robot_model.RobotModel` (its URDF's ``<visual>`` elements are drawn);
            its state
            is not used or changed.
        times: (N,) strictly increasing sample times (s).
        q_path: (N, nq) configurations at those times.
        out: the HTML file to write (its folder must exist).
        trace_frames: frames whose path is drawn (a tube, with a marker moving along it).
        paths: extra polylines by name, each (M, 3) world points (m), e.g. a reference path.
        targets: world points (m) marked with a small green sphere.
        obstacles: world obstacles, see :mod:`wbcpy.viz.overlays`.
        title: page title (default: the robot's name).
        fps: animation frames per second (0 < fps ≤ 240).

    Returns:
        The path of the file written.

    Raises:
        VizExtraMissingError: the ``viz`` extra is not installed.
        InvalidValueError: wrong shapes, NaN or inf, times not increasing, a bad fps or obstacle, or the
            output folder missing. UnknownNameError: an unknown frame in ``trace_frames``.
        URDFError: the robot's visual geometry cannot be loaded.
    """
    require_viz()
    options = {"trace_frames": trace_frames, "paths": paths, "targets": targets, "obstacles": obstacles}
    inp = _check_inputs(robot, times, q_path, out, {**options, "fps": fps})
    scene = _Scene(robot, inp.obstacles)
    names, markers, points = _draw_overlays(scene, inp)
    scene.viz.display(inp.q_path[0])
    ground = lowest_point(scene.viz.data, scene.visual, scene.viz.visual_data)
    place_ground(scene.viewer, ground)  # the grid at the robot's feet at the first frame
    seen = _animate(scene, inp, frame_times(inp.times, fps), markers)
    obstacle_points = [o.placement.translation for o in inp.obstacles.geometryObjects]
    target, position = camera_view(np.vstack([seen, *points, *obstacle_points, [[0.0, 0.0, ground]]]))
    set_camera(scene.viewer, position)
    caption = _caption(robot, inp, names, scene.visual.ngeoms)
    duration = float(inp.times[-1] - inp.times[0])
    text = html_page(scene.recorder.commands(), title or str(robot.name), caption, duration, target)
    inp.out.write_text(text, encoding="utf-8")
    return inp.out


def _draw_overlays(scene: _Scene, inp: _Inputs) -> tuple[list[str], list[str], list[np.ndarray]]:
    """Draw the frame paths (tube + marker), the extra paths and the targets.

    Returns:
        The names of the paths, the viewer paths of the markers (one per traced frame) and the points
        drawn (for the camera).
    """
    traced = _frame_paths(scene, inp.q_path, inp.frame_ids)
    lines = [*traced, *inp.paths.values()]
    points = [p for p in (*lines, *[t[None] for t in inp.targets]) if p.size]
    size = float(np.ptp(np.vstack([*points, np.zeros((1, 3))]), axis=0).max()) if points else 1.0
    radius = float(np.clip(0.004 * max(size, 0.3), 0.002, 0.01))  # m: thin, yet a few pixels wide
    frame_names = [scene.model.frames[fid].name for fid in inp.frame_ids]
    markers = [f"traces/{name}/marker" for name in frame_names]
    names = frame_names + list(inp.paths)
    for i, (name, line) in enumerate(zip(names, lines, strict=True)):
        color = TRACE_COLORS[i % len(TRACE_COLORS)]
        scene.viewer[f"traces/{name}/path"].set_object(tube_object(line, radius, color))
        if i < len(markers):
            scene.viewer[markers[i]].set_object(sphere_object(2.5 * radius, color))
    for i, target in enumerate(inp.targets):
        scene.viewer[f"targets/{i}"].set_object(sphere_object(3.0 * radius, _TARGET_COLOR, 0.6))
        scene.viewer[f"targets/{i}"].set_transform(pin.SE3(np.eye(3), target).homogeneous)
    return names, markers, points


def _caption(robot: Any, inp: _Inputs, names: list[str], visual_count: int) -> list[str]:
    span = float(inp.times[-1] - inp.times[0])
    if inp.times.size == 1:
        lines = [f"{robot.name}: one configuration (a still view)"]
    else:
        lines = [
            f"{robot.name}: {inp.times.size} samples over {span:.3g} s (URL #t=SECONDS pauses at a time)"
        ]
    if visual_count == 0:
        lines.append("the URDF has no <visual> geometry: the robot itself is not drawn")
    if names:
        lines.append("paths: " + ", ".join(names))
    if inp.targets:
        lines.append(f"targets: {len(inp.targets)} (green)")
    if inp.obstacles.ngeoms:
        lines.append("obstacles: " + ", ".join(g.name for g in inp.obstacles.geometryObjects) + " (red)")
    return lines
