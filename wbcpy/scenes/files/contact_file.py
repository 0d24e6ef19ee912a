"""Scene files with contacts: the InverseDynamicsScene of a ``wbcpy scene`` file.

An acceleration scene file (``scene: acceleration``, the default) with a ``contacts`` list, or an
``effort_limits`` or ``wrench_regularization`` option, builds an :class:`~wbcpy.InverseDynamicsScene`,
which ``wbcpy scene`` runs on a physical plant (:class:`~wbcpy.sim.contact_plant.ContactPlant`)::

    contacts:                   # SurfaceContact / PointContact fields plus `type: surface | point`
      - {type: surface, frame: left_sole_link, half_size: [0.1, 0.065], mu: 0.3}
    effort_limits: true         # |τ| ≤ URDF limits, or {joint: limit}; default false
    wrench_regularization: 1e-12  # ε Σ‖w_c‖² in the last task level (default 0: exact least-norm split)
    external_wrenches:          # known wrenches on the robot: {frame: [fx, fy, fz, tx, ty, tz]},
      arm_left_7_link: [0, 0, -40, 0, 0, 0]   # frame axes, about its origin (N, N·m); simulated too
    tasks:
      - {name: lf, type: wrench, frame: left_sole_link, target: [0, 0, 400, 0, 0, 0]}   # no PD gains

A ``wrench`` task's ``target`` is its wrench (contact axes; 3 entries for a point contact), default zero.
A contact entry may also say when the simulation lifts it: ``lift: {time: 1.0, transition: 0.2}`` (its
normal force ramps down to zero over 0.2 s from t = 1 s, then the contact is released: the unloading ramp
of :meth:`~wbcpy.InverseDynamicsScene.set_contact_active`; :class:`ContactEvent`).
See ``examples/talos_balance.yaml``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...contacts.transition import transition_duration
from ...errors import ConfigError, ConfigKeyError
from ...model.robot_model import RobotModel
from ..inverse_dynamics_scene import InverseDynamicsScene
from ..values import numbers

#: scene-file keys of contact scenes
CONTACT_FILE_KEYS = ("contacts", "effort_limits", "wrench_regularization", "external_wrenches")


def wants_contact_scene(doc: Mapping[str, Any], kind: str) -> bool:
    """True when the file asks for an InverseDynamicsScene (contacts, effort limits or external wrenches).

    Raises:
        ConfigError: contacts or effort limits in a velocity scene (the key named).
    """
    keys = [k for k in CONTACT_FILE_KEYS if k in doc]
    if keys and kind != "acceleration":
        raise ConfigError(keys[0], "only an acceleration scene takes it (an InverseDynamicsScene)")
    return bool(keys)


def make_contact_scene(robot: RobotModel, doc: Mapping[str, Any], solver: Any, dt: float,
                       options: dict[str, Any]) -> InverseDynamicsScene:  # fmt: skip
    """The InverseDynamicsScene of a scene file, with its contacts and external wrenches (tasks not
    configured).

    Raises:
        ConfigError: an invalid contact (``contacts[i].field``), option or external wrench
            (``external_wrenches.<frame>``; ConfigKeyError for an unknown frame).
    """
    scene = InverseDynamicsScene(robot, solver=solver, dt=dt, effort_limits=doc.get("effort_limits", False),
                                 wrench_regularization=doc.get("wrench_regularization", 0.0),
                                 **options)  # fmt: skip
    scene.set_contacts(split_contact_events(doc.get("contacts") or [])[0])
    scene.set_external_wrenches(external_wrenches(robot, doc.get("external_wrenches")))
    return scene


def external_wrenches(robot: RobotModel, section: Any) -> dict[str, np.ndarray]:
    """The ``external_wrenches`` section of a scene file as ``{frame: wrench}`` (empty for None).

    Raises:
        ConfigError: not a mapping (field ``external_wrenches``), a wrench that is not 6 finite numbers
            (field ``external_wrenches.<frame>``); ConfigKeyError: an unknown frame.
    """
    if section is None:
        return {}
    if not isinstance(section, Mapping):
        raise ConfigError("external_wrenches", "expected a mapping {frame: [fx, fy, fz, tx, ty, tz]}")
    frames = robot.frame_names
    out: dict[str, np.ndarray] = {}
    for frame, wrench in section.items():
        field = f"external_wrenches.{frame}"
        if frame not in frames:
            raise ConfigKeyError(field, "frame", frame, frames)
        out[str(frame)] = numbers(wrench, 6, field)
    return out


@dataclass(frozen=True, order=True)
class ContactEvent:
    """A contact lifted during a scene file's simulation: ``lift: {time: t, transition: T}`` in a contact
    entry lifts it at time t (s) with :meth:`InverseDynamicsScene.set_contact_active`'s unloading ramp of
    T seconds (0: at once).

    Attributes:
        time: when (s of simulated time). frame: the contact frame. transition: the ramp's duration (s).
    """

    time: float
    frame: str
    transition: float = 0.0


def _seconds(value: Any, field: str) -> float:
    try:
        return transition_duration(value)
    except ConfigError as exc:
        raise ConfigError(field, exc.reason) from None


def split_contact_events(items: Any) -> tuple[Any, list[ContactEvent]]:
    """The contact entries without their ``lift`` keys, and the :class:`ContactEvent` they ask for.

    Raises:
        ConfigError: a ``lift`` that is not ``{time: t ≥ 0, transition: T ≥ 0}`` (field
            ``contacts[i].lift.<key>``; an unknown key is a ConfigKeyError).
    """
    if not isinstance(items, list):
        return items, []
    contacts, events = [], []
    for i, item in enumerate(items):
        if not isinstance(item, Mapping) or "lift" not in item:
            contacts.append(item)
            continue
        field = f"contacts[{i}].lift"
        lift = item["lift"]
        if not isinstance(lift, Mapping):
            raise ConfigError(field, f"expected {{time: t, transition: T}}, got {lift!r}")
        for key in lift:
            if key not in ("time", "transition"):
                raise ConfigKeyError(f"{field}.{key}", "lift key", key, ["time", "transition"])
        at, ramp = (_seconds(lift.get(key, 0.0 if key == "transition" else None), f"{field}.{key}")
                    for key in ("time", "transition"))  # fmt: skip
        events.append(ContactEvent(at, str(item.get("frame")), ramp))
        contacts.append({k: v for k, v in item.items() if k != "lift"})
    return contacts, sorted(events)
