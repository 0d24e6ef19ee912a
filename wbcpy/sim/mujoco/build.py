"""The MuJoCo model of a robot: its URDF compiled by MuJoCo (``MjSpec``), or its MJCF file as it is.

From a URDF (:func:`model_from_urdf`):

1. the URDF's ``<visual>`` elements are dropped and, unless ``geometry="collisions"``, its ``<collision>``
   elements too; a ``<mujoco><compiler .../></mujoco>`` element is added (inertias from the URDF's
   ``<inertial>`` only, not balanced; static links fused; mesh paths kept as resolved here);
2. a robot with a floating base gets a free joint on its root body, named as Pinocchio's;
3. contact geometry: one thin box per surface contact (the contact's half sizes, half thickness
   ``options.box_half_thickness``) whose bottom face lies on the contact frame's x–y plane, one sphere
   per point contact touching the frame's origin from above (they collide with the floor and with each
   other) — or, with ``geometry="collisions"``, the URDF's collision geometry (it collides with the floor
   only: the meshes of neighbouring links overlap); friction μ of the contact (of the first contact for
   collision geometry), ``solref``, ``solimp``, ``condim`` of the options, priority 1 (their parameters
   win over the floor's);
4. a floor plane (friction, solref, solimp of the options, priority 0);
5. one motor per 1-DOF joint (gear 1, ``ctrlrange`` ±the URDF effort limit when it is finite and > 0);
6. joint damping and friction (``frictionloss``) of the URDF kept, or zeroed (``joint_friction=False``);
7. the options' cone, impratio, time step and integrator.

From an MJCF file (:func:`model_from_mjcf`): MuJoCo's own model of the file, as it is; with
``actuators="motors"`` its actuators are replaced by one gear-1 motor per hinge or slide joint (control
range the joint's ``actuatorfrcrange`` when it is limited).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pinocchio as pin

from ...contacts.contacts import Contact, SurfaceContact
from ...description.robot_files import mesh_package_dirs, urdf_source
from ...errors import ConfigError, ModelError
from ._lib import mujoco_module
from .options import ContactOptions

if TYPE_CHECKING:
    from ...model.robot_model import RobotModel

#: name of the floor geom
FLOOR_NAME = "wbcpy_floor"
#: a contact frame's box or sphere is named ``<frame><CONTACT_GEOM_SUFFIX>``
CONTACT_GEOM_SUFFIX = "_wbcpy_contact"
# collision bits (MuJoCo collides g₁, g₂ when contype₁ & conaffinity₂ or contype₂ & conaffinity₁): the
# contact boxes keep MuJoCo's 1/1 (they touch the floor and each other: soles can collide); collision
# geometry is 2/1, the floor 1/3 — collision geometry touches the floor and the boxes, not itself
_ROBOT_TYPE, _FLOOR_TYPE = 2, 1


def _mesh_path(uri: str, folders: Sequence[str], base: Path | None) -> str:
    """A mesh ``filename`` of a URDF as an absolute path (``package://NAME/...`` through ``folders``)."""
    if uri.startswith("package://"):
        rest = uri.removeprefix("package://")
        for folder in folders:
            if (Path(folder) / rest).is_file():
                return str((Path(folder) / rest).resolve())
        return uri
    if uri.startswith("file://"):
        return uri.removeprefix("file://")
    return str((base / uri).resolve()) if base is not None and not Path(uri).is_absolute() else uri


def _urdf_xml(robot: RobotModel, keep_collisions: bool) -> str:
    """The robot's URDF prepared for MuJoCo's compiler (step 1 of the module docstring)."""
    text, path = urdf_source(robot)
    root = ET.fromstring(text)
    folders = mesh_package_dirs(text, path, robot.package_dirs) if keep_collisions else []
    for link in root.iter("link"):
        for tag in ("visual", "collision"):
            for element in link.findall(tag):
                if tag == "visual" or not keep_collisions:
                    link.remove(element)
                    continue
                for mesh in element.iter("mesh"):
                    base = path.parent if path is not None else None
                    mesh.set("filename", _mesh_path(mesh.get("filename", ""), folders, base))
    for old in root.findall("mujoco"):
        root.remove(old)
    ET.SubElement(ET.SubElement(root, "mujoco"), "compiler", {
        "discardvisual": "true", "balanceinertia": "false", "fusestatic": "true", "strippath": "false",
    })  # fmt: skip
    return ET.tostring(root, encoding="unicode")


def _joint_body(spec: Any, name: str) -> Any:
    """The spec body that the joint ``name`` moves."""
    for joint in spec.joints:
        if joint.name == name:
            return joint.parent
    raise ModelError("joints", None, f"MuJoCo compiled no joint {name!r} from the URDF")


def _add_contact_geom(spec: Any, robot: RobotModel, contact: Contact, options: ContactOptions) -> None:
    """The box (surface contact) or sphere (point contact) of step 3 on the frame's body."""
    mujoco = mujoco_module()
    frame = robot.model.frames[robot.model.getFrameId(contact.frame)]
    joint = frame.parentJoint
    body = spec.worldbody if joint == 0 else _joint_body(spec, robot.model.names[joint])
    h = options.box_half_thickness
    # (a URDF body's frame is its parent joint's frame: the frame's placement in it is frame.placement)
    centre = frame.placement.act(np.array([0.0, 0.0, h]))
    quat = pin.Quaternion(frame.placement.rotation)
    geom = body.add_geom()
    geom.name = contact.frame + CONTACT_GEOM_SUFFIX
    if isinstance(contact, SurfaceContact):
        geom.type = mujoco.mjtGeom.mjGEOM_BOX
        geom.size = [contact.half_size[0], contact.half_size[1], h]
    else:
        geom.type = mujoco.mjtGeom.mjGEOM_SPHERE
        geom.size = [h, 0.0, 0.0]
    geom.pos = centre
    geom.quat = [quat.w, quat.x, quat.y, quat.z]
    _surface(geom, contact.mu, options, priority=1)
    geom.mass = 0.0


def _surface(geom: Any, mu: float, options: ContactOptions, priority: int) -> None:
    geom.friction = [mu, 0.005 if options.condim >= 4 else 0.0, 0.0001 if options.condim == 6 else 0.0]
    geom.condim = options.condim
    geom.solref = list(options.solref)
    geom.solimp = options.full_solimp()
    geom.priority = priority


def _actuate(spec: Any, robot: RobotModel) -> None:
    """One gear-1 motor per 1-DOF joint, control range ± its finite effort limit."""
    model = robot.model
    for jid in range(1, model.njoints):
        joint = model.joints[jid]
        if joint.nv != 1:
            continue
        actuator = spec.add_actuator()
        actuator.name = model.names[jid]
        actuator.target = model.names[jid]
        actuator.trntype = mujoco_module().mjtTrn.mjTRN_JOINT
        actuator.gear = [1.0, 0, 0, 0, 0, 0]
        effort = float(model.effortLimit[joint.idx_v])
        if np.isfinite(effort) and effort > 0.0:
            actuator.ctrllimited = 1
            actuator.ctrlrange = [-effort, effort]
        else:
            actuator.ctrllimited = 0


def _set_options(spec: Any, options: ContactOptions) -> None:
    mujoco = mujoco_module()
    opt = spec.option
    opt.timestep = options.timestep
    opt.impratio = options.impratio
    opt.cone = (
        mujoco.mjtCone.mjCONE_ELLIPTIC if options.cone == "elliptic" else mujoco.mjtCone.mjCONE_PYRAMIDAL
    )
    opt.integrator = getattr(mujoco.mjtIntegrator, f"mjINT_{options.integrator.upper()}")


def model_from_urdf(
    robot: RobotModel,
    contacts: Sequence[Contact],
    options: ContactOptions,
    geometry: str,
    floor: float | None,
    joint_friction: bool,
) -> Any:
    """MuJoCo's model of a URDF robot (see the module docstring).

    Args:
        robot: a robot loaded from a URDF (file or XML); its gravity is MuJoCo's.
        contacts: validated contacts (step 3). options: step 3, 4, 7. geometry: ``"contacts"`` or
            ``"collisions"``. floor: height of the floor plane (m), None for none.
        joint_friction: keep the URDF's joint damping and friction.

    Raises:
        ModelError: MuJoCo cannot compile the model (its message), or a joint it did not create.
    """
    mujoco = mujoco_module()
    keep = geometry == "collisions"
    try:
        spec = mujoco.MjSpec.from_string(_urdf_xml(robot, keep))
    except ValueError as exc:
        raise ModelError("model", None, f"MuJoCo cannot read the URDF of {robot.name!r}: {exc}") from None
    spec.compiler.inertiafromgeom = mujoco.mjtInertiaFromGeom.mjINERTIAFROMGEOM_FALSE
    spec.option.gravity = np.asarray(robot.model.gravity.linear, dtype=float)
    if robot.floating_base:
        spec.worldbody.first_body().add_freejoint(name=robot.model.names[1])
    for joint in spec.joints:
        if not joint_friction:
            joint.damping, joint.frictionloss = [0.0, 0.0, 0.0], 0.0
    for contact in [] if keep else contacts:
        _add_contact_geom(spec, robot, contact, options)
    if keep:  # (self-collisions off: the meshes of neighbouring links overlap; the floor collides)
        mu = contacts[0].mu if contacts else 1.0
        for geom in spec.geoms:
            _surface(geom, mu, options, priority=1)
            geom.contype, geom.conaffinity = _ROBOT_TYPE, _FLOOR_TYPE
    if floor is not None:
        plane = spec.worldbody.add_geom()
        plane.name, plane.type = FLOOR_NAME, mujoco.mjtGeom.mjGEOM_PLANE
        plane.size, plane.pos = [0.0, 0.0, 1.0], [0.0, 0.0, floor]
        _surface(plane, contacts[0].mu if contacts else 1.0, options, priority=0)
        plane.contype, plane.conaffinity = _FLOOR_TYPE, _ROBOT_TYPE | _FLOOR_TYPE
    _actuate(spec, robot)
    _set_options(spec, options)
    return _compile(spec, robot.name)


def _compile(spec: Any, name: str) -> Any:
    try:
        return spec.compile()
    except ValueError as exc:
        raise ModelError("model", None, f"MuJoCo cannot compile the model of {name!r}: {exc}") from None


def model_from_mjcf(path: Path, actuators: str) -> Any:
    """MuJoCo's model of an MJCF file, as it is (``actuators="file"``) or with gear-1 motors on every hinge
    and slide joint instead of its actuators (``"motors"``).

    Raises:
        ConfigError: ``actuators`` is neither. ModelError: MuJoCo cannot compile the file (its message).
    """
    if actuators not in ("file", "motors"):
        raise ConfigError("actuators", f"must be 'file' or 'motors', got {actuators!r}")
    mujoco = mujoco_module()
    try:
        spec = mujoco.MjSpec.from_file(str(path))
    except ValueError as exc:
        raise ModelError("model", None, f"MuJoCo cannot read {str(path)!r}: {exc}") from None
    if actuators == "motors":
        for actuator in list(spec.actuators):
            spec.delete(actuator)
        hinge, slide = mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE
        for joint in spec.joints:
            if joint.type not in (hinge, slide):
                continue
            motor = spec.add_actuator()
            motor.name, motor.target = joint.name, joint.name
            motor.trntype = mujoco.mjtTrn.mjTRN_JOINT
            motor.gear = [1.0, 0, 0, 0, 0, 0]
            if joint.actfrclimited == mujoco.mjtLimited.mjLIMITED_TRUE:
                motor.ctrllimited, motor.ctrlrange = 1, list(joint.actfrcrange)
    return _compile(spec, str(path))
