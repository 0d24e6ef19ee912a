"""The constraints every scene offers besides its tasks: a COM support polygon and loop closures.

:class:`SceneConstraintsApi` is the part of :class:`~wbcpy.scenes.scene.Scene`'s public surface that
sets them (``set_com_polygon``, ``clear_com_polygon``, ``add_loop_closure``, ``remove_loop_closure``);
the rows come from :class:`~wbcpy.limits.com_polygon.ComPolygon` and
:class:`~wbcpy.contacts.loop_closure.LoopClosure`, at the scene's level (q̇ or q̈) and step ``dt``. Both
are hard: equalities (loops) and inequalities (polygon) of the first level, so they hold at every level.
An :class:`~wbcpy.scenes.InverseDynamicsScene` puts its loops into its variables instead (a wrench per
loop in the equations of motion: :mod:`~wbcpy.contacts.loop_closure`).

Every setter validates completely before it changes anything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..contacts.loop_closure import STEPS_PER_TIME_CONSTANT, LoopClosure
from ..errors import ConfigError, UnknownNameError
from ..limits.com_polygon import ComPolygon
from ..qp import QPLevel

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel


def append_rows(level: QPLevel, E: np.ndarray | None = None, f: np.ndarray | None = None,
                C: np.ndarray | None = None, upper: np.ndarray | None = None,
                lower: np.ndarray | None = None) -> None:  # fmt: skip
    """Append equality rows ``E x = f`` and inequality rows ``lower ≤ C x ≤ upper`` (a missing side
    unbounded) to ``level`` (new arrays: the level's own may be shared read-only arrays)."""
    if E is not None and f is not None and E.shape[0]:
        if level.E is None or level.f is None:
            level.E, level.f = E, f
        else:
            level.E, level.f = np.concatenate((level.E, E)), np.concatenate((level.f, f))
    if C is not None and (upper is not None or lower is not None) and C.shape[0]:
        lower = np.full(C.shape[0], -np.inf) if lower is None else lower
        upper = np.full(C.shape[0], np.inf) if upper is None else upper
        if level.C is None or level.lbC is None or level.ubC is None:
            level.C, level.lbC, level.ubC = C, lower, upper
        else:
            level.C = np.concatenate((level.C, C))
            level.lbC = np.concatenate((level.lbC, lower))
            level.ubC = np.concatenate((level.ubC, upper))


class SceneConstraintsApi:
    """The COM polygon and the loop closures of a scene (mixed into :class:`~wbcpy.scenes.scene.Scene`)."""

    robot: RobotModel
    dt: float
    task_level: ClassVar[str]
    _com_polygon: ComPolygon | None
    _loops: dict[str, LoopClosure]

    # ------------------------------------------------------------------ COM polygon
    def set_com_polygon(self, vertices: Any, margin: float = 0.0) -> None:
        """Keep the COM's ground projection inside a convex polygon, shrunk by ``margin``, at the end of
        every step from the next :meth:`~wbcpy.scenes.scene.Scene.update` on (hard rows:
        :mod:`wbcpy.limits.com_polygon`).

        Args:
            vertices: k ≥ 3 vertices (x, y), world axes (m), in either orientation, convex.
            margin: the distance (m, ≥ 0) the COM keeps from the edges; smaller than the polygon's
                inradius.

        Raises:
            ConfigError: naming ``vertices`` or ``margin``; the scene is unchanged then.
        """
        self._com_polygon = ComPolygon(vertices, margin)

    def clear_com_polygon(self) -> None:
        """Remove the COM polygon (from the next :meth:`~wbcpy.scenes.scene.Scene.update` on)."""
        self._com_polygon = None

    @property
    def com_polygon(self) -> ComPolygon | None:
        """The COM polygon in use, or None."""
        return self._com_polygon

    # ------------------------------------------------------------------ loop closures
    def add_loop_closure(self, frame_a: str, frame_b: str, kind: str = "6d", *, name: str | None = None,
                         time_constant: float | None = None) -> str:  # fmt: skip
        """Hold two frames at the relative placement (``"6d"``) or position (``"3d"``) they have at the
        robot's current state, from the next :meth:`~wbcpy.scenes.scene.Scene.update` on
        (:mod:`wbcpy.contacts.loop_closure`).

        Args:
            frame_a, frame_b: frames on two different bodies.
            kind: ``"6d"`` (a weld) or ``"3d"`` (the origins held together: a ball joint).
            name: the closure's name (default ``"<frame_a>|<frame_b>"``).
            time_constant: T (s) of the drift correction (default 10 × ``dt``).

        Returns:
            The closure's name (for :meth:`remove_loop_closure` and ``get_loop_wrenches``).

        Raises:
            ConfigKeyError: an unknown frame or kind. ConfigError: two frames of one body, a bad time
                constant, a name in use. StateNotSetError: the robot has no state yet. The scene is
                unchanged then.
        """
        T = STEPS_PER_TIME_CONSTANT * self.dt if time_constant is None else time_constant
        loop = LoopClosure(self.robot, frame_a, frame_b, kind, T, name)
        if loop.name in self._loops:
            raise ConfigError("name", f"a loop closure named {loop.name!r} exists already")
        self._loops = {**self._loops, loop.name: loop}
        self._loops_changed()
        return loop.name

    def remove_loop_closure(self, name: str) -> None:
        """Remove the loop closure ``name`` (from the next :meth:`~wbcpy.scenes.scene.Scene.update` on).

        Raises:
            UnknownNameError: no such closure (a KeyError listing close names).
        """
        if not isinstance(name, str) or name not in self._loops:
            raise UnknownNameError("loop closure", name, list(self._loops))
        self._loops = {k: v for k, v in self._loops.items() if k != name}
        self._loops_changed()

    @property
    def loop_closures(self) -> list[LoopClosure]:
        """The loop closures in use, in the order they were added (a new list)."""
        return list(self._loops.values())

    def _loops_changed(self) -> None:
        """Hook: the loop closures changed (an inverse-dynamics scene rebuilds its variables)."""

    # ------------------------------------------------------------------ rows
    def _add_constraint_rows(self, level: QPLevel, n_columns: int, loops: bool = True) -> None:
        """Append the polygon's and (with ``loops``) the loops' rows at the robot's current state to
        ``level`` (zero columns beyond nv up to ``n_columns``)."""
        robot = self.robot
        if self._com_polygon is not None:
            C, upper = self._com_polygon.rows(robot, self.dt, self.task_level, n_columns)
            append_rows(level, C=C, upper=upper)
        if loops and self._loops:
            velocity = self.task_level == "velocity"
            rows = [lp.velocity_rows(robot) if velocity else lp.acceleration_rows(robot)
                    for lp in self._loops.values()]  # fmt: skip
            J = np.zeros((sum(r[0].shape[0] for r in rows), n_columns))
            J[:, : robot.nv] = np.concatenate([r[0] for r in rows])
            # velocity rows: J q̇ = −e/T; acceleration rows: J q̈ = −(J̇q̇ + K_p e + K_d J q̇)
            target = np.concatenate([r[1] if velocity else -r[1] for r in rows])
            append_rows(level, E=J, f=target)
