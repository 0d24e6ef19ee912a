"""The Talos part of ``wbcpy demo``: balance, weight shift and a foot lift with an InverseDynamicsScene.

Talos (example-robot-data) starts at its SRDF ``half_sitting`` posture on both soles (surface contacts
0.2 × 0.13 m, μ = 0.3) and is simulated as a torque-controlled robot: every step the scene turns PD
references into joint torques τ, and Pinocchio's rigid-contact dynamics integrate them
(:class:`~wbcpy.sim.contact_plant.ContactPlant`). Tasks, one weighted level: COM (weight 1, PD
towards a minimum-jerk COM path), posture (1e-3, PD towards half_sitting), a Cartesian task on the right
sole in world axes (1, active while the foot is lifted) and a wrench task on the right sole (1e-6 per
entry, active while both soles are in contact). In double support the split of the weight between the
soles is free (it does not change q̈), so the wrench task sets it: the right sole's normal force follows
the lever rule on the COM path's ZMP, f_z = m·g·s with s the ZMP's position along the segment from the
left sole to the right one (clamped to [0, 1]; ZMP = c − (c_z / g)·c̈ of the planned COM), its other
entries zero. The right sole thus unloads once, smoothly, while the COM moves over the left sole, and
reloads once while it returns (without the task the split is the regulariser's: the sole unloaded, took
30 % of the weight back and unloaded again).
Effort limits: the URDF's. The sequence (:data:`PHASES`):

1. ``shift``  — the COM moves over the left sole's centre (0.8 s);
2. ``unload`` — the COM rests over the left sole, the right one carries no weight (nothing jumps at
   lift-off);
3. ``lift``   — the right contact is deactivated and the foot rises 5 cm (minimum-jerk);
4. ``down``   — the foot goes back and the contact is put back where the foot lands;
5. ``reload`` — the sole is in contact again, still unloaded while the COM rests over the left sole;
6. ``back``   — the COM returns to its start, the right sole takes its share of the weight back.

:func:`run_talos` returns a :class:`TalosRun` with everything recorded and its checks: simulated
contact wrenches inside their cones and bounds (feet never slip or tip), torques
within limits, the COM over the support polygon, the lifted foot at its target within 1 cm.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import numpy as np
import pinocchio as pin

from ..contacts import SurfaceContact
from ..controllers import CartesianPD, ComPD, JointPD
from ..model.registry import load_robot
from ..model.robot_model import RobotModel
from ..scenes.inverse_dynamics_scene import InverseDynamicsScene
from ..sim.contact_plant import ContactPlant
from ..tasks import CartesianTask, ComTask, JointTask, WrenchReference

#: the soles in contact (the right one is lifted)
FEET = ("left_sole_link", "right_sole_link")
#: half sizes (X, Y) of Talos's soles (m)
SOLE_HALF_SIZE = (0.1, 0.065)
MU = 0.3
#: gravity (m/s²)
G0 = 9.81
#: how high the right foot is lifted (m)
LIFT_HEIGHT = 0.05
#: (name, start, end) in seconds
PHASES = (
    ("shift", 0.0, 0.8),
    ("unload", 0.8, 1.0),
    ("lift", 1.0, 1.45),
    ("down", 1.45, 1.9),
    ("reload", 1.9, 2.1),
    ("back", 2.1, 2.9),
    ("hold", 2.9, 3.1),
)
_T = {name: (start, end) for name, start, end in PHASES}


def _min_jerk(s: float) -> tuple[float, float, float]:
    """Minimum-jerk blend of s ∈ [0, 1]: value, first and second derivative (per unit s)."""
    s = min(max(s, 0.0), 1.0)
    return (
        10 * s**3 - 15 * s**4 + 6 * s**5,
        30 * s**2 - 60 * s**3 + 30 * s**4,
        60 * s - 180 * s**2 + 120 * s**3,
    )


def _blend(
    a: np.ndarray, b: np.ndarray, t: float, t0: float, t1: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Position, velocity, acceleration of the minimum-jerk path a → b over [t0, t1] at time t."""
    T = t1 - t0
    p, dp, ddp = _min_jerk((t - t0) / T)
    d = b - a
    return a + p * d, d * dp / T, d * ddp / T**2


@dataclass
class TalosRun:
    """What :func:`run_talos` recorded (sample k is the state after k steps; k = 0 is the start).

    Attributes:
        time: (N,) s. q_path: (N, nq). com: (N, 3) m, world.
        wrenches: {foot: (N, 6)} simulated contact wrenches (NaN while the contact is lifted).
        tau: (N − 1, na) torques applied at each step (N·m); effort_limit: (na,) their limits.
        foot: (N, 3) right sole position (world, m); foot_apex_target: its highest target (m).
        soles: {foot: (4, 2)} world xy corners of each sole at the start.
        active: (N, 2) bool, contact states. phases: the phases' (name, start, end).
        violation: largest excess of the simulated wrenches over their cones / normal-force bounds (N) and
            of |τ| over its limits (N·m), from :class:`ContactPlant`.
        com_margin: smallest distance of the COM's ground projection inside the support polygon (m;
            negative: outside). foot_error: |foot apex − target apex| (m). step_us: scene update + solve
            per step (µs).
    """

    time: np.ndarray
    q_path: np.ndarray
    com: np.ndarray
    wrenches: dict[str, np.ndarray]
    tau: np.ndarray
    effort_limit: np.ndarray
    foot: np.ndarray
    foot_apex_target: np.ndarray
    soles: dict[str, np.ndarray]
    active: np.ndarray
    phases: tuple[tuple[str, float, float], ...] = PHASES
    violation: dict[str, float] = field(default_factory=dict)
    com_margin: float = math.nan
    foot_error: float = math.nan
    step_us: np.ndarray = field(default_factory=lambda: np.zeros(0))
    mass: float = 0.0

    @property
    def ok(self) -> bool:
        """Wrenches in their cones and bounds, torques in limits (1e-6·m·g, 1e-6 N·m), the COM over the
        support polygon and the foot at its target apex within 1 cm."""
        mg = self.mass * 9.81
        cone_ok = (
            max(self.violation.get("friction cone", 0.0), self.violation.get("normal force", 0.0))
            <= 1e-6 * mg
        )
        return bool(
            cone_ok
            and self.violation.get("effort", 0.0) <= 1e-6
            and self.com_margin > 0.0
            and self.foot_error < 0.01
        )


def _support_margin(point: np.ndarray, corners: list[np.ndarray]) -> float:
    """Signed distance of ``point`` (xy) inside the convex hull of the corners (xy) (negative: outside)."""
    from scipy.spatial import ConvexHull

    pts = np.vstack(corners)
    hull = ConvexHull(pts)
    return float(-(hull.equations[:, :2] @ point + hull.equations[:, 2]).max())


class _Controller:
    """The scene, its tasks and PD laws, and the phase logic."""

    def __init__(self, robot: RobotModel, q0: np.ndarray, solver: str | None) -> None:
        self.robot = robot
        scene = self.scene = InverseDynamicsScene(robot, solver=solver, effort_limits=True)
        scene.set_contacts([SurfaceContact(f, half_size=SOLE_HALF_SIZE, mu=MU) for f in FEET])
        joints = [n for n in robot.joint_names if robot.model.joints[robot.joint_id(n)].nv == 1]
        scene.configure(
            [
                {"name": "com", "type": "com"},
                {"name": "posture", "type": "jnt", "joint_names": joints, "weights": [1e-3] * len(joints)},
                {"name": "foot", "type": "cart", "tip": FEET[1], "root": "universe", "activation": 0.0},
                {
                    "name": "unload",
                    "type": "wrench",
                    "frame": FEET[1],
                    "weights": [1e-6] * 6,
                },
            ]
        )
        robot.update(q0, np.zeros(robot.nv))
        self.com0 = robot.com()
        self.foot0 = robot.frame_placement(FEET[1])
        left = robot.frame_placement(FEET[0]).translation
        self.com_left = np.array([left[0], left[1], self.com0[2]])
        self.sole_xy = (left[:2].copy(), self.foot0.translation[:2].copy())
        self.weight = robot.total_mass * G0
        self.posture_target = q0[7:].copy()
        self.com_pd, self.foot_pd = ComPD(kp=100.0, kd=20.0), CartesianPD(kp=100.0, kd=20.0)
        self.posture_pd = JointPD(kp=10.0, kd=2.0 * math.sqrt(10.0))
        self.com_task = cast(ComTask, scene.get_task("com"))
        self.posture_task = cast(JointTask, scene.get_task("posture"))
        self.foot_task = cast(CartesianTask, scene.get_task("foot"))

    def com_target(self, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if t < _T["shift"][1]:
            return _blend(self.com0, self.com_left, t, *_T["shift"])
        if t < _T["back"][0]:
            return self.com_left, np.zeros(3), np.zeros(3)
        return _blend(self.com_left, self.com0, t, *_T["back"])

    def foot_target(self, t: float) -> tuple[pin.SE3, np.ndarray, np.ndarray]:
        p0 = self.foot0.translation
        top = p0 + np.array([0.0, 0.0, LIFT_HEIGHT])
        p, dp, ddp = _blend(p0, top, t, *_T["lift"]) if t < _T["down"][0] else _blend(top, p0, t, *_T["down"])
        return (
            pin.SE3(self.foot0.rotation, p),
            np.concatenate((dp, np.zeros(3))),
            np.concatenate((ddp, np.zeros(3))),
        )

    def right_share(self, t: float) -> float:
        """The right sole's share of the weight by the lever rule on the planned COM's ZMP (module
        docstring)."""
        c, _, ddc = self.com_target(t)
        zmp = c[:2] - (c[2] / G0) * ddc[:2]
        left, right = self.sole_xy
        axis = right - left
        return min(max(float((zmp - left) @ axis / (axis @ axis)), 0.0), 1.0)

    def events(self, t: float, dt: float) -> None:
        """Contact switches, activations and the wrench reference at time t."""
        scene = self.scene
        lifted = _T["lift"][0] <= t < _T["down"][1] - 0.5 * dt
        if lifted == (FEET[1] in scene.active_contact_frames):
            scene.set_contact_active(FEET[1], not lifted)
            scene.set_task_activation("foot", 1.0 if lifted else 0.0)
            scene.set_task_activation("unload", 0.0 if lifted else 1.0)
        if not lifted:
            wrench = np.zeros(6)
            wrench[2] = self.right_share(t) * self.weight
            scene.set_reference("unload", WrenchReference(wrench))

    def solve(self, t: float) -> None:
        """References for the robot's current state at time t, then update + solve."""
        scene = self.scene
        p, dp, ddp = self.com_target(t)
        scene.set_reference("com", self.com_pd.reference(self.com_task, p, dp, ddp))
        scene.set_reference("posture", self.posture_pd.reference(self.posture_task, self.posture_target))
        if self.foot_task.activation > 0.0:
            pose, twist, acc = self.foot_target(t)
            scene.set_reference("foot", self.foot_pd.reference(self.foot_task, pose, twist, acc))
        scene.solve(scene.update())


def run_talos(
    solver: str | None = None, dt: float = 0.01, progress: Callable[[int, int], None] | None = None
) -> TalosRun:
    """Run the Talos sequence (see the module docstring) in rigid-contact simulation.

    Args:
        solver: QP backend (None: the default).
        dt: control and simulation step (s).
        progress: called as ``progress(done, total)`` after each step.

    Raises:
        UnknownNameError: example-robot-data (Talos) is not installed; QPSolveError from the scene.
    """
    robot = load_robot("talos")  # (raises a WbcpyError naming example-robot-data when it is missing)
    q0 = robot.reference_configuration("half_sitting")
    ctrl = _Controller(robot, q0, solver)
    plant = ContactPlant(ctrl.scene, q0, np.zeros(robot.nv), dt)
    steps = round(PHASES[-1][2] / dt)
    rec = _Recorder(robot, steps)
    rec.sample(0, q0, None, ctrl.scene.active_contact_frames)
    soles = {f: _sole_corners(robot, f) for f in FEET}
    for k in range(steps):
        ctrl.events(k * dt, dt)
        robot.update(*plant.sync())  # a foot put down lands (impact) before the controller sees the state
        t0 = time.perf_counter()
        ctrl.solve(k * dt)
        rec.step_us[k] = (time.perf_counter() - t0) * 1e6
        rec.tau[k] = ctrl.scene.get_joint_torques()
        q, v, _ = plant.step()
        robot.update(q, v)
        rec.sample(k + 1, q, plant.sim.wrenches, ctrl.scene.active_contact_frames)
        if progress is not None:
            progress(k + 1, steps)
    apex = ctrl.foot0.translation + np.array([0.0, 0.0, LIFT_HEIGHT])
    at_apex = round(_T["down"][0] / dt)
    margins = [
        _support_margin(rec.com[k, :2], [soles[f] for f, a in zip(FEET, rec.active[k], strict=True) if a])
        for k in range(steps + 1)
    ]
    return TalosRun(
        time=dt * np.arange(steps + 1),
        q_path=rec.q,
        com=rec.com,
        wrenches=rec.wrenches,
        tau=rec.tau,
        effort_limit=np.asarray(ctrl.scene.effort_limit),
        foot=rec.foot,
        foot_apex_target=apex,
        soles=soles,
        active=rec.active,
        violation=dict(plant.violation),
        com_margin=min(margins),
        foot_error=float(np.linalg.norm(rec.foot[at_apex] - apex)),
        step_us=rec.step_us,
        mass=robot.total_mass,
    )


def _sole_corners(robot: RobotModel, frame: str) -> np.ndarray:
    M = robot.frame_placement(frame)
    X, Y = SOLE_HALF_SIZE
    local = np.array([[X, Y, 0.0], [X, -Y, 0.0], [-X, -Y, 0.0], [-X, Y, 0.0]])
    corners: np.ndarray = (local @ M.rotation.T + M.translation)[:, :2]
    return corners


class _Recorder:
    """Preallocated per-step records."""

    def __init__(self, robot: RobotModel, steps: int) -> None:
        self.robot = robot
        self.q = np.empty((steps + 1, robot.nq))
        self.com = np.empty((steps + 1, 3))
        self.foot = np.empty((steps + 1, 3))
        self.active = np.zeros((steps + 1, len(FEET)), dtype=bool)
        self.wrenches = {f: np.full((steps + 1, 6), np.nan) for f in FEET}
        self.tau = np.empty((steps, robot.nv - 6))
        self.step_us = np.empty(steps)

    def sample(
        self, k: int, q: np.ndarray, wrenches: dict[str, np.ndarray] | None, active: list[str]
    ) -> None:
        robot = self.robot
        self.q[k] = q
        self.com[k] = robot.com()
        self.foot[k] = robot.frame_placement(FEET[1]).translation
        self.active[k] = [f in active for f in FEET]
        for f, w in (wrenches or {}).items():
            self.wrenches[f][k] = w


def animate_talos(run: TalosRun, out: str | Path, fps: float = 10.0) -> Path:
    """HTML animation of a :class:`TalosRun` (:func:`wbcpy.viz.write_animation`): the robot, the right
    sole's path and its apex target; ``fps`` frames per second (meshes are heavy: 10 keeps it quick)."""
    from ..viz import write_animation

    robot = load_robot("talos")
    return write_animation(
        robot,
        run.time,
        run.q_path,
        out,
        trace_frames=[FEET[1]],
        targets=[run.foot_apex_target],
        title="Talos: weight shift and foot lift",
        fps=fps,
    )
