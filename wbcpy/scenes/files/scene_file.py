"""YAML scene files: a robot, an initial state, scene options and tasks with PD targets.

Format (every key but ``robot`` and ``tasks`` is optional; an unknown key raises ConfigKeyError)::

    robot: lwr4                 # registry name (wbcpy info --list) or URDF path (relative to this file)
    floating_base: false        # add a free-flyer (default: the registry's choice)
    q0: [0.3, 0.6, ...]         # one value per DOF (nv; angles, free-flyer x y z rx ry rz), a
                                #   mapping {joint: angle}, or the name of an SRDF posture
                                #   (q0: half_sitting); default: Pinocchio's neutral configuration
    v0: [0, 0, ...]             # initial velocity per DOF (nv); default zeros
    dt: 0.001                   # control and integration step (s)
    duration: 3.0               # simulated time (s); or `steps: N` (not both); default 3 s;
                                #   at most MAX_STEPS steps
    solver: null                # qpsolvers backend name (wbcpy solvers); null = default
    regularization: 1.0e-8      # λ of the scene
    joint_limits: true          # position/velocity/acceleration limits as bounds on q̈
    acceleration_limit: null    # a_max, scalar or per DOF; null = 10 × velocity limit
    braking: true               # viability stage of the joint-limit bounds
    contacts: [{type: surface, frame: left_sole_link, half_size: [0.1, 0.065], mu: 0.3}]
                                # an InverseDynamicsScene, simulated with rigid contacts (its τ)
    effort_limits: true         # with contacts: |τ| ≤ URDF limits, or {joint: limit}
    tasks:                      # TaskConfig fields + PD target and gains
      - name: ee
        type: cart
        tip: lwr_ee             # root defaults to the base link, ref_frame to root
        priority: 0
        target:                 # tip pose in root coordinates; missing parts keep the initial pose
          position: [0.4, 0.2, 0.6]   # or offset: [dx, dy, dz] added to the initial position
          rpy: [3.14, 0, 0]           # or quaternion: [x, y, z, w]
        kp: 100                 # scalar or per axis; default 100
        kd: 20                  # default 2·sqrt(kp) (critical damping)
      - name: posture
        type: jnt
        joint_names: [...]
        priority: 1
        target: [...]           # one per joint, or {joint: angle}; default: initial positions
      - name: com
        type: com
        target: {offset: [0, 0, -0.05]}   # or [x, y, z] / {position: [...]}; world axes
      - {name: lf, type: wrench, frame: left_sole_link, target: [0, 0, 400, 0, 0, 0]}  # contacts only

Other PD keys: ``kff`` (feed-forward gain) and ``max_acceleration`` (saturation).

``scene: velocity`` (default ``acceleration``) builds a :class:`~wbcpy.VelocityScene` instead:
velocity laws per task (``kp``, ``kff``, ``max_velocity``), ``velocity_limits`` and ``limit_gain``
(:mod:`wbcpy.scenes.files.velocity_file`). Every scene kind takes a ``collision`` section
(:mod:`wbcpy.scenes.files.collision_file`) and ``com_polygon`` and ``loop_closures`` sections
(:mod:`wbcpy.scenes.files.constraint_file`).

A task entry takes the fields of its type (``tip``/``axis`` for ``axis``, ``contact`` for ``cop``, ...:
the docs page *Task types and constraints*). Tasks whose type takes no control law take only a
``target``: the value the reference holds (a ``wrench``, ``torque`` or ``cop`` task; default zero), or
nothing at all (``kinetic_energy``).

The file is read by :func:`wbcpy._support.yaml_files.load_yaml_file` (UTF-8, syntax errors with line and
column, depth and
size limits). A ``q0`` outside the joint limits is reported in :attr:`SceneSetup.warnings`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..._support.yaml_files import load_yaml_file
from ...errors import ConfigError, ConfigKeyError, UnknownNameError, safe_repr
from ...model.registry import load_robot
from ...model.robot_model import RobotModel
from ...tasks import TaskConfig
from ..acceleration_scene import AccelerationScene
from ..values import flag, numbers, positive
from ..velocity_scene import VelocityScene
from .collision_file import COLLISION_FILE_KEYS, apply_collision_section
from .constraint_file import CONSTRAINT_FILE_KEYS, apply_constraint_sections
from .contact_file import (
    CONTACT_FILE_KEYS,
    ContactEvent,
    make_contact_scene,
    split_contact_events,
    wants_contact_scene,
)
from .task_targets import TaskTarget, make_target
from .velocity_file import VELOCITY_FILE_KEYS, make_velocity_scene, scene_kind

if TYPE_CHECKING:
    from ...limits.collision.shapes import Obstacle

#: the top-level keys a scene file may have (an unknown key raises ConfigKeyError)
SCENE_FILE_KEYS = (
    "robot",
    "floating_base",
    "q0",
    "v0",
    "dt",
    "duration",
    "steps",
    "solver",
    "regularization",
    "joint_limits",
    "acceleration_limit",
    "braking",
    *CONTACT_FILE_KEYS,
    "tasks",
    "scene",
    *VELOCITY_FILE_KEYS,
    *COLLISION_FILE_KEYS,
    *CONSTRAINT_FILE_KEYS,
)
PD_KEYS = ("target", "kp", "kd", "kff", "max_acceleration", "max_velocity")
#: most simulation steps a scene file may ask for (duration / dt or steps)
MAX_STEPS = 1_000_000


@dataclass
class SceneSetup:
    """Everything a closed-loop simulation of a scene file needs.

    Attributes:
        robot, scene: the robot model and the configured scene.
        q0, v0: initial configuration (nq) and velocity (nv).
        dt: step (s). steps: number of steps.
        targets: one :class:`TaskTarget` per task.
        source: the file the setup was read from.
        warnings: what the file asks for that is legal but suspicious (``q0`` outside the joint limits).
        obstacles: the world obstacles of the scene's collision avoidance (drawn by ``--html``).
        contact_events: contacts lifted during the simulation (``lift`` in a contact entry), by time.
    """

    robot: RobotModel
    scene: AccelerationScene | VelocityScene
    q0: np.ndarray
    v0: np.ndarray
    dt: float
    steps: int
    targets: list[TaskTarget]
    source: str = "<dict>"
    warnings: list[str] = field(default_factory=list)
    contact_events: list[ContactEvent] = field(default_factory=list)

    @property
    def obstacles(self) -> list[Obstacle]:
        """The obstacles of the scene's collision avoidance (empty without one)."""
        avoidance = getattr(self.scene, "collision_avoidance", None)
        return [] if avoidance is None else list(avoidance.obstacles)


def _q0_by_name(robot: RobotModel, name: str) -> np.ndarray:
    try:
        return robot.reference_configuration(name)
    except UnknownNameError as exc:
        raise ConfigKeyError("q0", "reference configuration", name, exc.valid) from None


def _initial_state(robot: RobotModel, doc: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    q0 = doc.get("q0")
    if q0 is None:
        q = robot.neutral()
    elif isinstance(q0, str):
        q = _q0_by_name(robot, q0)
    elif isinstance(q0, Mapping):
        dofs = robot.dof_from_q(robot.neutral())
        names = robot.dof_names
        for name, value in q0.items():
            if name not in names:
                raise ConfigKeyError(f"q0.{name}", "joint", name, names)
            dofs[names.index(name)] = numbers([value], 1, f"q0.{name}")[0]
        q = robot.q_from_dof(dofs)
    else:
        q = robot.q_from_dof(numbers(q0, robot.nv, "q0"))
    v = np.zeros(robot.nv) if doc.get("v0") is None else numbers(doc["v0"], robot.nv, "v0")
    return q, v


def q0_limit_warnings(robot: RobotModel, q: np.ndarray) -> list[str]:
    """One line per joint whose position in ``q`` lies outside its finite position limits."""
    out = []
    lower, upper = robot.lower_position_limit, robot.upper_position_limit
    for name in robot.joint_names:
        jmodel = robot.model.joints[robot.joint_id(name)]
        if jmodel.nq != 1:
            continue
        i = jmodel.idx_q
        lo, hi, x = lower[i], upper[i], q[i]
        if (math.isfinite(lo) and x < lo - 1e-9) or (math.isfinite(hi) and x > hi + 1e-9):
            out.append(f"q0: joint {name!r} at {x:.6g} is outside its limits [{lo:.6g}, {hi:.6g}]")
    return out


def _steps(doc: Mapping[str, Any], step: float, steps: int | None) -> int:
    if "steps" in doc and "duration" in doc:
        raise ConfigError("steps", "give either steps or duration, not both")
    field_name = "steps"
    if steps is None and "steps" in doc:
        steps = doc["steps"]
    elif steps is None:
        duration = positive(doc.get("duration", 3.0), "duration", "a number of seconds")
        ratio = duration / step
        if not math.isfinite(ratio) or ratio > MAX_STEPS:
            raise ConfigError(
                "duration", f"{duration:g} s at dt = {step:g} s is more than {MAX_STEPS} steps; raise dt"
            )
        steps, field_name = max(1, round(ratio)), "duration"
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ConfigError("steps", f"must be an integer ≥ 1, got {safe_repr(steps)}")
    if steps > MAX_STEPS:
        raise ConfigError(field_name, f"{steps} steps is more than the {MAX_STEPS} accepted")
    return steps


def _split_tasks(tasks: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Task configs and PD specs of the ``tasks`` list; unknown keys list every valid field."""
    if not isinstance(tasks, list):
        raise ConfigError("tasks", "expected a list of tasks")
    valid = [*TaskConfig.field_names(), *PD_KEYS]
    configs, pd_specs = [], []
    for i, item in enumerate(tasks):
        if not isinstance(item, Mapping):
            raise ConfigError(f"tasks[{i}]", "expected a mapping")
        for key in item:
            if key not in valid:
                raise ConfigKeyError(f"tasks[{i}].{key}", "task field", key, valid, show_all=True)
        configs.append({k: v for k, v in item.items() if k not in PD_KEYS})
        pd_specs.append({k: v for k, v in item.items() if k in PD_KEYS})
    return configs, pd_specs


def _scene_document(source: str | Path | Mapping[str, Any]) -> tuple[Mapping[str, Any], str, Path]:
    """The scene document with only known keys, its label and the folder relative paths start from."""
    if isinstance(source, Mapping):
        doc, label, base_dir = source, "<dict>", Path(".")
    else:
        path = Path(source).expanduser()
        doc, label, base_dir = load_yaml_file(path), str(path), path.parent
    if not isinstance(doc, Mapping):
        raise ConfigError(label, "a scene file must be a YAML mapping")
    for key in doc:
        if key not in SCENE_FILE_KEYS:
            raise ConfigKeyError(str(key), "scene option", key, SCENE_FILE_KEYS, show_all=True)
    return doc, label, base_dir


def _robot_name(doc: Mapping[str, Any], base_dir: Path) -> str:
    """The registry name, or the URDF path resolved against the file's folder when that file exists."""
    if "robot" not in doc:
        raise ConfigError("robot", "missing (required)")
    robot_name = doc["robot"]
    if not isinstance(robot_name, str):
        raise ConfigError("robot", f"expected a robot name or URDF path, got {safe_repr(robot_name)}")
    candidate = base_dir / robot_name
    if robot_name.endswith(".urdf") and candidate.is_file():
        return str(candidate)
    return robot_name


def _make_scene(
    robot: RobotModel, doc: Mapping[str, Any], kind: str, contacts: bool, solver: str | None, step: float
) -> AccelerationScene | VelocityScene:
    """The velocity, contact (InverseDynamicsScene) or acceleration scene the file asks for."""
    solver = solver or doc.get("solver")
    if kind == "velocity":
        return make_velocity_scene(robot, doc, solver, step)
    options = {
        k: doc[k] for k in ("regularization", "joint_limits", "acceleration_limit", "braking") if k in doc
    }
    if contacts:
        scene: AccelerationScene = make_contact_scene(robot, doc, solver, step, options)
    else:
        scene = AccelerationScene(robot, solver=solver, dt=step, **options)
    apply_collision_section(scene, doc)
    return scene


def load_scene_file(
    source: str | Path | Mapping[str, Any],
    solver: str | None = None,
    steps: int | None = None,
    dt: float | None = None,
    package_dirs: Sequence[str | Path] = (),
) -> SceneSetup:
    """Read a YAML scene file (or an already parsed mapping) and build the robot, scene and PD targets.

    Args:
        source: path of the YAML file, or its content as a mapping.
        solver, steps, dt: overrides of the file's values (command-line options).
        package_dirs: folders for the robot's ``package://`` mesh URIs (``--package-dir``), searched before
            the registry's.

    Raises:
        ConfigError: unreadable file, invalid YAML, unknown keys (ConfigKeyError), invalid values, or any
            task configuration error (field named).
        URDFError, UnknownNameError: the robot cannot be loaded.
    """
    doc, label, base_dir = _scene_document(source)
    robot_name = _robot_name(doc, base_dir)
    floating = flag(doc, "floating_base")
    kind = scene_kind(doc)
    for key in ("joint_limits", "braking", "velocity_limits"):
        flag(doc, key)
    step = positive(dt if dt is not None else doc.get("dt", 0.001), "dt", "a step in seconds")
    n_steps = _steps(doc, step, steps)
    configs, pd_specs = _split_tasks(doc.get("tasks"))
    kwargs: dict[str, Any] = {} if floating is None else {"floating_base": floating}
    if package_dirs:
        kwargs["package_dirs"] = [str(d) for d in package_dirs]
    robot = load_robot(robot_name, **kwargs)
    contacts = wants_contact_scene(doc, kind)  # (raises for a velocity scene)
    scene = _make_scene(robot, doc, kind, contacts, solver, step)
    scene.configure(configs)
    q0, v0 = _initial_state(robot, doc)
    robot.update(q0, v0)
    apply_constraint_sections(scene, doc)  # (loops are closed at the initial state)
    targets = [
        make_target(scene.get_task(cfg.name), spec, f"tasks[{i}]", kind)
        for i, (cfg, spec) in enumerate(zip(scene.get_wbc_config(), pd_specs, strict=True))
    ]
    notes = q0_limit_warnings(robot, q0)
    events = split_contact_events(doc.get("contacts") or [])[1] if contacts else []
    return SceneSetup(robot, scene, q0, v0, step, n_steps, targets, label, notes, events)
