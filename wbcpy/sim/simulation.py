"""Closed-loop simulation of a scene: PD references → update → solve → integrate q̈.

One step with control period dt:

1. every task gets its PD reference from the current state (``TaskTarget.reference``);
2. ``scene.update()`` and ``scene.solve()`` give q̈ (timed: these two calls are the per-step time);
3. semi-implicit Euler: v ← v + q̈ dt, q ← q ⊕ v dt (``pin.integrate``, so free-flyers stay on SE(3)).

The robot is an ideal acceleration-controlled plant (no dynamics, no contacts): this checks the
controller and the task maths, not a physical robot. A velocity scene (``scene.task_level ==
"velocity"``) gives q̇ instead, from velocity laws: q ← q ⊕ q̇ dt, v ← q̇ (an ideal velocity-controlled
plant); with collision avoidance the smallest pair distance met at an update is recorded. An
:class:`~wbcpy.InverseDynamicsScene` (a scene file with ``contacts``) drives a physical plant:
its joint torques τ are integrated by rigid-contact dynamics
(:class:`~wbcpy.sim.contact_plant.ContactPlant`), and the run records how far the simulated
contact wrenches leave their cones and the torques their limits; :meth:`SceneSimulation.push` pushes
that simulated robot (an impulse, see :meth:`ContactSimulation.push
<wbcpy.sim.contact_simulation.ContactSimulation.push>`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pinocchio as pin

from ..errors import ConfigError
from ..scenes.acceleration_scene import AccelerationScene
from ..scenes.files.scene_file import SceneSetup
from ..scenes.inverse_dynamics_scene import InverseDynamicsScene
from ..tasks import TasksStatus
from .contact_plant import ContactPlant


@dataclass
class SimulationResult:
    """What a simulation run recorded.

    Attributes:
        time: time of every recorded sample (s), steps + 1 entries (initial state included).
        errors: target error norm series per label (same length as ``time``).
        step_us: wall time of update() + solve() per step (µs).
        q, v: final configuration and velocity.
        status: the scene's task status after the last step.
        q_path: (steps + 1, nq) configurations of every sample (initial state included).
        limit_violation: largest violation of position (rad|m), velocity (rad/s) and acceleration
            (rad/s²) limits over the run (0 when none was exceeded; acceleration limits are the scene's);
            contact scenes add ``friction cone``, ``normal force`` (N) and ``effort`` (N·m or N).
        min_distance: smallest signed distance of a collision pair at an update (m), or None without
            collision avoidance.
    """

    time: np.ndarray
    errors: dict[str, np.ndarray]
    step_us: np.ndarray
    q: np.ndarray
    v: np.ndarray
    status: TasksStatus
    q_path: np.ndarray
    limit_violation: dict[str, float] = field(default_factory=dict)
    min_distance: float | None = None

    @property
    def median_step_us(self) -> float:
        """Median of update() + solve() per step (µs)."""
        return float(np.median(self.step_us)) if self.step_us.size else float("nan")

    @property
    def p95_step_us(self) -> float:
        """95th percentile of update() + solve() per step (µs)."""
        return float(np.percentile(self.step_us, 95)) if self.step_us.size else float("nan")

    def final_errors(self) -> dict[str, float]:
        """Last value of every error series."""
        return {k: float(v[-1]) for k, v in self.errors.items()}


class SceneSimulation:
    """Run a :class:`~wbcpy.scenes.files.scene_file.SceneSetup` in closed loop.

    Attributes:
        setup: the scene, robot, targets and step.
        q, v: current state.
        time: simulated time (s).
    """

    def __init__(self, setup: SceneSetup) -> None:
        self.setup = setup
        self.q = setup.q0.copy()
        self.v = setup.v0.copy()
        self.time = 0.0
        robot = setup.robot
        self._vmax = robot.velocity_limit
        self._velocity = setup.scene.task_level == "velocity"
        scene = setup.scene
        self._amax = scene.limits.acceleration_limit if isinstance(scene, AccelerationScene) else None
        self.min_distance: float | None = None
        lo, hi = robot.lower_position_limit, robot.upper_position_limit
        self._q_lim = np.flatnonzero(np.isfinite(lo) | np.isfinite(hi))
        self._qlo, self._qhi = lo[self._q_lim], hi[self._q_lim]
        self.violation = {"position": 0.0, "velocity": 0.0}
        if not self._velocity:
            self.violation["acceleration"] = 0.0
        scene = setup.scene
        contacts = isinstance(scene, InverseDynamicsScene)
        self.plant = ContactPlant(scene, self.q, self.v, setup.dt) if contacts else None
        self._events = list(setup.contact_events)  # (still to come, by time)
        robot.update(self.q, self.v)

    def errors(self) -> dict[str, float]:
        """Current target errors per label."""
        out: dict[str, float] = {}
        for target in self.setup.targets:
            out.update(zip(target.error_labels(), target.errors(), strict=True))
        return out

    def step(self) -> float:
        """Advance one step; returns the wall time of update() + solve() in µs.

        Raises:
            QPSolveError: the backend failed (the state is not advanced).
        """
        setup = self.setup
        scene = setup.scene
        self._lift_contacts()
        for target in setup.targets:
            scene.set_reference(target.name, target.reference())
        t0 = time.perf_counter()
        scene.update()
        scene.solve()
        elapsed = (time.perf_counter() - t0) * 1e6
        self.advance(scene.get_solver_output_raw())
        return elapsed

    def _lift_contacts(self) -> None:
        """Start the setup's contact events that are due (``lift`` in a file's contact entry)."""
        events = self._events
        while events and events[0].time <= self.time + 0.5 * self.setup.dt:
            event = events.pop(0)
            scene = self.setup.scene
            if isinstance(scene, InverseDynamicsScene):  # (events come only with contacts)
                scene.set_contact_active(event.frame, False, transition=event.transition)

    def push(self, impulse: Any, frame: str | None = None) -> dict[str, np.ndarray]:
        """Push the simulated robot: a linear impulse (N·s, world axes) at ``frame``'s origin (default: the
        floating base), applied in the plant (:meth:`ContactSimulation.push
        <wbcpy.sim.contact_simulation.ContactSimulation.push>`); the controller sees the new velocity at
        its next :meth:`step`. Returns the contact impulses ``{frame: Λ}`` (contact axes).

        Raises:
            ConfigError: the scene is not a contact scene (no physical plant to push), or ``frame=None``
                without a floating base.
            UnknownNameError, InvalidValueError: an unknown frame, a bad impulse.
        """
        if self.plant is None:
            raise ConfigError("push", "only a contact scene (InverseDynamicsScene) has a plant to push")
        self.plant.sync()  # the scene's active contacts take the push
        impulses = self.plant.sim.push(impulse, frame)
        self.v = self.plant.sim.v.copy()
        self.setup.robot.update(self.q, self.v)
        return impulses

    def advance(self, out: np.ndarray) -> None:
        """Integrate one step with the scene's answer ``out`` and track the limit excess.

        ``out`` is q̈ (nv, rad/s²) for an acceleration scene and v (nv, rad/s) for a velocity scene; a
        contact scene's plant is driven by the scene's joint torques (its last solved ones). :meth:`step`
        calls it with the scene's answer; a caller that handles a ``QPSolveError`` itself can apply another
        command (e.g. the scene's last good output).
        """
        robot, dt, scene = self.setup.robot, self.setup.dt, self.setup.scene
        if self._velocity:
            self._track_distance(scene)
            self.v = out
            self.q = pin.integrate(robot.model, self.q, out * dt)
            robot.update(self.q, self.v)
        elif self.plant is not None:  # a torque-controlled robot: its τ through rigid-contact dynamics
            q, v, out = self.plant.step()
            self.q, self.v = q.copy(), v.copy()
            robot.update(self.q, self.v, out)
        else:
            self.v = self.v + out * dt
            self.q = pin.integrate(robot.model, self.q, self.v * dt)
            robot.update(self.q, self.v, out)
        self.time += dt
        self._track_violation(out)

    def _track_distance(self, scene: object) -> None:
        collision = getattr(scene, "collision", None)
        if collision is not None and collision.n_pairs:
            d = float(collision.distances().min())
            self.min_distance = d if self.min_distance is None else min(self.min_distance, d)

    def _track_violation(self, qdd: np.ndarray) -> None:
        viol = self.violation
        with np.errstate(invalid="ignore"):
            if self._q_lim.size:
                p = self.q[self._q_lim]
                worst = max(float((p - self._qhi).max()), float((self._qlo - p).max()))
                viol["position"] = max(viol["position"], worst)
            viol["velocity"] = max(viol["velocity"], float(np.nanmax(np.abs(self.v) - self._vmax)))
            if self._amax is not None and self.setup.scene.joint_limits:
                viol["acceleration"] = max(viol["acceleration"], float(np.nanmax(np.abs(qdd) - self._amax)))

    def _violations(self) -> dict[str, float]:
        return self.violation if self.plant is None else {**self.violation, **self.plant.violation}

    def run(
        self, steps: int | None = None, progress: Callable[[int, int], None] | None = None
    ) -> SimulationResult:
        """Run ``steps`` steps (default: the setup's), calling ``progress(done, total)`` after each."""
        total = self.setup.steps if steps is None else int(steps)
        labels = list(self.errors())
        series = np.empty((total + 1, len(labels)))
        series[0] = list(self.errors().values())
        q_path = np.empty((total + 1, self.q.size))
        q_path[0] = self.q
        step_us = np.empty(total)
        times = self.time + self.setup.dt * np.arange(total + 1)
        for k in range(total):
            step_us[k] = self.step()
            series[k + 1] = list(self.errors().values())
            q_path[k + 1] = self.q
            if progress is not None:
                progress(k + 1, total)
        status = self.setup.scene.update_tasks_status()
        return SimulationResult(
            time=times,
            errors={label: series[:, i].copy() for i, label in enumerate(labels)},
            step_us=step_us,
            q=self.q.copy(),
            v=self.v.copy(),
            status=status,
            q_path=q_path,
            limit_violation={k: max(v, 0.0) for k, v in self._violations().items()},
            min_distance=self.min_distance,
        )
