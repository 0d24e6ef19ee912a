"""YAML scene files: a robot, an initial state, scene options and tasks with PD targets.

Format (every key but ``robot`` and ``tasks`` is optional; an unknown key raises ConfigKeyError)::

    robot: lwr4                 # registry name (wbcpy info --list) or URDF path (relative to this file)
    floating_base: false        # add a free-flyer (default: the registry's choice)
    q0: [0.3, 0.6, ...]         # one value per DOF (nv; angles, free-flyer x y z rx ry rz), or a
                                #   mapping {joint: angle}; default: Pinocchio's neutral configuration
    v0: [0, 0, ...]             # initial velocity per DOF (nv); default zeros
    dt: 0.001                   # control and integration step (s)
    duration: 3.0               # simulated time (s); or `steps: N` (not both); default 3 s
    solver: null                # qpsolvers backend name (wbcpy solvers); null = default
    regularization: 1.0e-8      # λ of the scene
    joint_limits: true          # position/velocity/acceleration limits as bounds on q̈
    acceleration_limit: null    # a_max, scalar or per DOF; null = 10 × velocity limit
    braking: true               # viability stage of the joint-limit bounds
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

Other PD keys: ``kff`` (feed-forward gain) and ``max_acceleration`` (saturation).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pinocchio as pin
import yaml

from ..controllers import CartesianPD, ComPD, JointPD
from ..controllers._gains import as_gain
from ..errors import ConfigError, ConfigKeyError
from ..robot import RobotModel
from ..robots import load_robot
from ..tasks import CartesianTask, ComTask, JointTask, Task
from .acceleration_scene import AccelerationScene

__all__ = ["SCENE_FILE_KEYS", "SceneSetup", "TaskTarget", "load_scene_file"]

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
    "tasks",
)
PD_KEYS = ("target", "kp", "kd", "kff", "max_acceleration")


def _numbers(value: Any, n: int | None, field: str) -> np.ndarray:
    try:
        arr = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise ConfigError(field, f"expected {n or 'a list of'} numbers, got {value!r}") from None
    if arr.ndim != 1 or (n is not None and arr.shape[0] != n) or not np.isfinite(arr).all():
        raise ConfigError(
            field, f"expected {n if n is not None else 'a list of'} finite numbers, got {value!r}"
        )
    return arr


@dataclass
class TaskTarget:
    """A task with a fixed target and the PD law that turns it into references.

    Attributes:
        task: the scene task.
        controller: :class:`JointPD`, :class:`CartesianPD` or :class:`ComPD`.
        target: joint positions (n), a ``pin.SE3`` (tip in root coordinates) or a COM position (3).
    """

    task: Task
    controller: JointPD | CartesianPD | ComPD
    target: Any

    @property
    def name(self) -> str:
        """Task name."""
        return self.task.name

    def reference(self) -> Any:
        """The PD reference for the robot's current state."""
        return self.controller.reference(self.task, self.target)  # type: ignore[arg-type]

    def error_labels(self) -> list[str]:
        """Labels of :meth:`errors` (Cartesian tasks report position and rotation separately)."""
        if isinstance(self.task, CartesianTask):
            return [f"{self.name} position [m]", f"{self.name} rotation [rad]"]
        unit = "[m]" if isinstance(self.task, ComTask) else "[rad|m]"
        return [f"{self.name} {unit}"]

    def errors(self) -> list[float]:
        """Current target errors (Euclidean norms) for the robot's current state."""
        task = self.task
        if isinstance(task, CartesianTask):
            M = task.pose()
            return [
                float(np.linalg.norm(self.target.translation - M.translation)),
                float(np.linalg.norm(pin.log3(self.target.rotation @ M.rotation.T))),
            ]
        if isinstance(task, ComTask):
            return [float(np.linalg.norm(self.target - task.position()))]
        return [float(np.linalg.norm(self.target - task.positions()))]  # type: ignore[union-attr]


@dataclass
class SceneSetup:
    """Everything a closed-loop simulation of a scene file needs.

    Attributes:
        robot, scene: the robot model and the configured scene.
        q0, v0: initial configuration (nq) and velocity (nv).
        dt: step (s). steps: number of steps.
        targets: one :class:`TaskTarget` per task.
        source: the file the setup was read from.
    """

    robot: RobotModel
    scene: AccelerationScene
    q0: np.ndarray
    v0: np.ndarray
    dt: float
    steps: int
    targets: list[TaskTarget]
    source: str = "<dict>"


def _cart_target(task: CartesianTask, spec: Any, field: str) -> pin.SE3:
    M = task.pose()
    if spec is None:
        return M
    if not isinstance(spec, Mapping):
        raise ConfigError(field, "expected a mapping with position/offset and rpy/quaternion")
    for key in spec:
        if key not in ("position", "offset", "rpy", "quaternion"):
            raise ConfigKeyError(
                f"{field}.{key}", "Cartesian target key", key, ["position", "offset", "rpy", "quaternion"]
            )
    if "position" in spec and "offset" in spec:
        raise ConfigError(field, "give either position or offset, not both")
    if "rpy" in spec and "quaternion" in spec:
        raise ConfigError(field, "give either rpy or quaternion, not both")
    p = M.translation.copy()
    if "position" in spec:
        p = _numbers(spec["position"], 3, f"{field}.position")
    elif "offset" in spec:
        p = p + _numbers(spec["offset"], 3, f"{field}.offset")
    R = M.rotation.copy()
    if "rpy" in spec:
        R = pin.rpy.rpyToMatrix(*_numbers(spec["rpy"], 3, f"{field}.rpy"))
    elif "quaternion" in spec:
        xyzw = _numbers(spec["quaternion"], 4, f"{field}.quaternion")
        norm = float(np.linalg.norm(xyzw))
        if norm < 1e-9:
            raise ConfigError(f"{field}.quaternion", "must be non-zero")
        x, y, z, w = xyzw / norm
        R = pin.Quaternion(w, x, y, z).toRotationMatrix()
    return pin.SE3(R, p)


def _point_target(current: np.ndarray, spec: Any, field: str) -> np.ndarray:
    if spec is None:
        return current.copy()
    if isinstance(spec, Mapping):
        keys = set(spec)
        if not keys or not keys <= {"position", "offset"} or len(keys) != 1:
            raise ConfigError(field, "expected {position: [...]} or {offset: [...]}")
        if "offset" in spec:
            return current + _numbers(spec["offset"], current.shape[0], f"{field}.offset")
        spec = spec["position"]
    return _numbers(spec, current.shape[0], field)


def _joint_target(task: JointTask, spec: Any, field: str) -> np.ndarray:
    current = task.positions()
    if isinstance(spec, Mapping) and not ({"position", "offset"} & set(spec)):
        out = current.copy()
        for name, value in spec.items():
            if name not in task.joint_names:
                raise ConfigKeyError(f"{field}.{name}", "task joint", name, task.joint_names)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ConfigError(f"{field}.{name}", f"expected a finite number, got {value!r}")
            out[task.joint_names.index(name)] = float(value)
        return out
    return _point_target(current, spec, field)


def _make_target(task: Task, spec: Mapping[str, Any], field: str) -> TaskTarget:
    kp = spec.get("kp", 100.0)
    try:
        kd_default = 2.0 * np.sqrt(as_gain(kp, "kp"))
    except ConfigError as exc:
        raise ConfigError(f"{field}.kp", exc.reason) from None
    kwargs = {"kp": kp, "kd": spec.get("kd", kd_default), "kff": spec.get("kff", 1.0)}
    kwargs["max_acceleration"] = spec.get("max_acceleration")
    try:
        if isinstance(task, CartesianTask):
            return TaskTarget(
                task, CartesianPD(**kwargs), _cart_target(task, spec.get("target"), f"{field}.target")
            )
        if isinstance(task, ComTask):
            return TaskTarget(
                task, ComPD(**kwargs), _point_target(task.position(), spec.get("target"), f"{field}.target")
            )
        target = _joint_target(task, spec.get("target"), f"{field}.target")  # type: ignore[arg-type]
        ctrl = JointPD(**kwargs)
        ctrl.compute(target, np.zeros(task.n), target)  # checks per-joint gain sizes
        return TaskTarget(task, ctrl, target)
    except ConfigError as exc:
        if exc.field in ("kp", "kd", "kff", "max_acceleration"):
            raise ConfigError(f"{field}.{exc.field}", exc.reason) from None
        raise


def _initial_state(robot: RobotModel, doc: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    q0 = doc.get("q0")
    if q0 is None:
        q = robot.neutral()
    elif isinstance(q0, Mapping):
        dofs = robot.dof_from_q(robot.neutral())
        names = robot.dof_names
        for name, value in q0.items():
            if name not in names:
                raise ConfigKeyError(f"q0.{name}", "joint", name, names)
            dofs[names.index(name)] = _numbers([value], 1, f"q0.{name}")[0]
        q = robot.q_from_dof(dofs)
    else:
        q = robot.q_from_dof(_numbers(q0, robot.nv, "q0"))
    v = np.zeros(robot.nv) if doc.get("v0") is None else _numbers(doc["v0"], robot.nv, "v0")
    return q, v


def load_scene_file(
    source: str | Path | Mapping[str, Any],
    solver: str | None = None,
    steps: int | None = None,
    dt: float | None = None,
) -> SceneSetup:
    """Read a YAML scene file (or an already parsed mapping) and build the robot, scene and PD targets.

    Args:
        source: path of the YAML file, or its content as a mapping.
        solver, steps, dt: overrides of the file's values (command-line options).

    Raises:
        ConfigError: unreadable file, invalid YAML, unknown keys (ConfigKeyError), invalid values, or any
            task configuration error (field named).
        URDFError, UnknownNameError: the robot cannot be loaded.
    """
    base_dir = Path(".")
    label = "<dict>"
    if isinstance(source, Mapping):
        doc = source
    else:
        path = Path(source).expanduser()
        label = str(path)
        base_dir = path.parent
        try:
            doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigError(label, f"cannot read scene file ({exc.strerror or exc})") from None
        except yaml.YAMLError as exc:
            raise ConfigError(label, f"invalid YAML ({str(exc).splitlines()[0]})") from None
    if not isinstance(doc, Mapping):
        raise ConfigError(label, "a scene file must be a YAML mapping")
    for key in doc:
        if key not in SCENE_FILE_KEYS:
            raise ConfigKeyError(str(key), "scene option", key, SCENE_FILE_KEYS)
    if "robot" not in doc:
        raise ConfigError("robot", "missing (required)")
    robot_name = str(doc["robot"])
    candidate = base_dir / robot_name
    if robot_name.endswith(".urdf") and candidate.is_file():
        robot_name = str(candidate)
    kwargs = {} if doc.get("floating_base") is None else {"floating_base": bool(doc["floating_base"])}
    robot = load_robot(robot_name, **kwargs)
    step = float(dt if dt is not None else doc.get("dt", 0.001))
    if not math.isfinite(step) or step <= 0:
        raise ConfigError("dt", f"must be > 0, got {step!r}")
    if "steps" in doc and "duration" in doc:
        raise ConfigError("steps", "give either steps or duration, not both")
    if steps is None:
        if "steps" in doc:
            steps = doc["steps"]
        else:
            duration = doc.get("duration", 3.0)
            if isinstance(duration, bool) or not isinstance(duration, (int, float)) or not duration > 0:
                raise ConfigError("duration", f"must be a number of seconds > 0, got {duration!r}")
            steps = max(1, round(duration / step))
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ConfigError("steps", f"must be an integer ≥ 1, got {steps!r}")
    options = {
        k: doc[k] for k in ("regularization", "joint_limits", "acceleration_limit", "braking") if k in doc
    }
    scene = AccelerationScene(robot, solver=solver or doc.get("solver"), dt=step, **options)
    tasks = doc.get("tasks")
    if not isinstance(tasks, list):
        raise ConfigError("tasks", "expected a list of tasks")
    configs, pd_specs = [], []
    for i, item in enumerate(tasks):
        if not isinstance(item, Mapping):
            raise ConfigError(f"tasks[{i}]", "expected a mapping")
        configs.append({k: v for k, v in item.items() if k not in PD_KEYS})
        pd_specs.append({k: v for k, v in item.items() if k in PD_KEYS})
    scene.configure(configs)
    q0, v0 = _initial_state(robot, doc)
    robot.update(q0, v0)
    targets = [
        _make_target(scene.get_task(cfg.name), spec, f"tasks[{i}]")
        for i, (cfg, spec) in enumerate(zip(scene.get_wbc_config(), pd_specs, strict=True))
    ]
    return SceneSetup(robot, scene, q0, v0, step, int(steps), targets, label)
