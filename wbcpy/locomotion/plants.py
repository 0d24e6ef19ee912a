"""The plants of :func:`~wbcpy.locomotion.walk.walk`: by name (``"pinocchio"``, ``"mujoco"``) or a plant
object (:class:`~wbcpy.sim.plant.Plant` protocol), checked before the walk starts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ConfigError
from ..sim.contact_plant import ContactPlant
from ..sim.mujoco.options import ContactOptions
from ..sim.plant import Plant

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel
    from .controller import WalkingController

#: the plants :func:`walk` builds by name
PLANTS = ("pinocchio", "mujoco")
#: how long (s) a MuJoCo plant that :func:`walk` builds stands under the controller's start before the walk
SETTLE_TIME = 0.2


def check_plant(plant: Any, options: Any, dt: float) -> None:
    """Check :func:`~wbcpy.locomotion.walk.walk`'s ``plant`` and ``plant_options`` (before any work).

    Raises:
        ConfigError: an unknown name, an object without the protocol or a ContactPlant (which follows its
            own scene), options for another plant than ``"mujoco"`` or not a
            :class:`~wbcpy.sim.mujoco.ContactOptions`, a plant object whose period is not dt.
    """
    if isinstance(plant, str):
        if plant not in PLANTS:
            raise ConfigError("plant", f"must be one of {', '.join(PLANTS)} or a plant object, got {plant!r}")
        if options is not None and plant != "mujoco":
            raise ConfigError("plant_options", "options of the MuJoCo plant: give them with plant='mujoco'")
        if options is not None and not isinstance(options, ContactOptions):
            raise ConfigError(
                "plant_options", f"must be a ContactOptions or None, got {type(options).__name__}"
            )
        return
    if isinstance(plant, ContactPlant) or not isinstance(plant, Plant):
        what = (
            "a ContactPlant follows its own scene: use plant='pinocchio'"
            if isinstance(plant, ContactPlant)
            else f"got {type(plant).__name__}, which lacks the plant protocol (wbcpy.sim.plant.Plant)"
        )
        raise ConfigError("plant", f"must be 'pinocchio', 'mujoco' or a plant object; {what}")
    if options is not None:
        raise ConfigError("plant_options", "a plant object has its options already")
    if abs(float(plant.dt) - dt) > 1e-12:
        raise ConfigError("plant", f"its control period {plant.dt} s is not the walk's dt {dt} s")


def plant_start(plant: Plant, model: RobotModel) -> tuple[np.ndarray, np.ndarray]:
    """The plant's state as the walk's start (sizes, and joint names when the plant has a robot, checked
    against the walk's robot)."""
    names = getattr(getattr(plant, "robot", None), "joint_names", None)
    if names is not None and list(names) != list(model.joint_names):
        raise ConfigError("plant", f"its robot's joints are not those of {model.name!r} (in order)")
    q0, v0 = plant.state()
    if q0.shape != (model.nq,) or v0.shape != (model.nv,):
        raise ConfigError(
            "plant",
            f"its state has sizes {q0.shape}, {v0.shape}; the robot's are ({model.nq},), ({model.nv},)",
        )
    model.update(q0, v0)
    return q0, v0


def make_plant(
    plant: str | Plant,
    options: Any,
    model: RobotModel,
    q0: np.ndarray,
    v0: np.ndarray,
    ctrl: WalkingController,
    contact_damping: float,
) -> Plant:
    """The walk's plant: the rigid one on the controller's scene (Baumgarte velocity gain
    ``contact_damping``), MuJoCo's with the controller's real soles and μ, or ``plant`` itself."""
    if plant == "pinocchio":
        return ContactPlant(ctrl.scene, q0, v0, ctrl.dt, kd=contact_damping)
    if plant == "mujoco":
        from ..contacts.contacts import SurfaceContact
        from ..sim.mujoco import MujocoPlant

        soles = [SurfaceContact(f, half_size=ctrl.half_size, mu=ctrl.mu) for f in ctrl.feet.values()]
        return MujocoPlant(model, soles, q0, v0, ctrl.dt, options=options)
    assert not isinstance(plant, str)  # (_check_plant refused other names)
    return plant


def push_base(plant: Plant, push: tuple[float, ...]) -> None:
    """The walk's lateral push (+y world) on the floating base: an impulse, or a force over a duration."""
    plant.push([0.0, push[0], 0.0], None, push[2] if len(push) > 2 else 0.0)


def settle(plant: Plant, ctrl: WalkingController, model: RobotModel, duration: float) -> np.ndarray:
    """Put the robot down: ``duration`` seconds of the plant under the controller with its clock at 0 (the
    pattern's start: both soles planted), the measured wrenches fed; returns the configuration reached
    (the robot's state is set to it). A soft floor then carries the robot at rest when the walk starts,
    instead of catching it in its first control periods."""
    for _ in range(round(duration / ctrl.dt)):
        q, v = plant.state()
        model.update(q, v)
        cmd = ctrl.step(0.0)
        plant.apply(cmd.effort if cmd.effort is not None else np.zeros(model.nv - 6))
        ctrl.set_measured_wrenches(plant.contact_wrenches())
    q, v = plant.state()
    model.update(q, v)
    return q
