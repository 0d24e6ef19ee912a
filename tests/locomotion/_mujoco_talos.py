"""A MuJoCo model of Talos built here, independently of wbcpy (not through ``wbcpy.sim.mujoco``).

example-robot-data's ``talos_reduced`` URDF is compiled by MuJoCo's own ``MjSpec`` (visual and collision
elements dropped, static links fused, inertias from the URDF, the URDF's joint damping and friction kept
as MuJoCo compiles them); a free joint on the base; one box per sole (the controller's 0.2 × 0.13 m, 5 mm
half thick, its bottom face on the sole frame's plane, placed with raw Pinocchio's frame placements),
μ 0.3; a floor plane at the soles' height; one gear-1 motor per joint with the URDF effort limit as its
control range; the options of ``specs/mujoco.md`` (elliptic cones, impratio 10, solref (0.005, 1), solimp
(0.95, 0.99, 0.001), 1 ms) or MuJoCo's own defaults.

Conventions mapped here by joint name: Pinocchio's free-flyer (x, y, z, qx, qy, qz, qw; linear velocity
in the base's axes) against MuJoCo's (w, x, y, z; linear velocity in world axes); the angular velocity is
in the base's axes in both. A sole's wrench is the sum of ``mj_contactForce`` over the contacts of its box,
moved to the sole frame's origin and axes (force over torque, what the ground exerts on the robot).
"""

from __future__ import annotations

import importlib.metadata
import xml.etree.ElementTree as ET

import mujoco
import numpy as np
import pinocchio as pin

SOLES = ("left_sole_link", "right_sole_link")
HALF_SIZE = (0.1, 0.065)
MU = 0.3
BOX_HALF_THICKNESS = 0.005
#: the body frames that may be near the floor (the feet); every other body is judged for a fall
FOOT_BODIES = ("leg_left_5_link", "leg_left_6_link", "leg_right_5_link", "leg_right_6_link", *SOLES)

LIBRARY = {"cone": "elliptic", "impratio": 10.0, "solref": (0.005, 1.0),
           "solimp": (0.95, 0.99, 0.001, 0.5, 2.0), "timestep": 0.001}  # fmt: skip
MUJOCO_DEFAULTS = {"cone": "pyramidal", "impratio": 1.0, "solref": (0.02, 1.0),
                   "solimp": (0.9, 0.95, 0.001, 0.5, 2.0), "timestep": 0.002}  # fmt: skip


def urdf_path() -> str:
    root = importlib.metadata.distribution("example-robot-data").locate_file(
        "cmeel.prefix/share/example-robot-data/robots"
    )
    return f"{root}/talos_data/robots/talos_reduced.urdf"


def pinocchio_model() -> pin.Model:
    """Raw Pinocchio's Talos with a free-flyer."""
    return pin.buildModelFromUrdf(urdf_path(), pin.JointModelFreeFlyer())


def _urdf_for_mujoco() -> str:
    root = ET.parse(urdf_path()).getroot()
    for link in root.iter("link"):
        for tag in ("visual", "collision"):
            for element in link.findall(tag):
                link.remove(element)
    ET.SubElement(
        ET.SubElement(root, "mujoco"),
        "compiler",
        {"discardvisual": "true", "balanceinertia": "false", "fusestatic": "true", "strippath": "false"},
    )
    return ET.tostring(root, encoding="unicode")


def _rotation(quat_xyzw: np.ndarray) -> np.ndarray:
    x, y, z, w = quat_xyzw
    return pin.Quaternion(w, x, y, z).toRotationMatrix()


class IndependentTalos:
    """Talos in MuJoCo (see the module docstring), driven in Pinocchio's conventions.

    Attributes:
        model, data: MuJoCo's. pin_model: raw Pinocchio's. dt: control period (s). substeps: MuJoCo steps
        per period. ground: the floor height (m). soles_touched: whether the two sole boxes ever touched.
    """

    def __init__(self, q0: np.ndarray, options: dict | None = None, dt: float = 0.002) -> None:
        options = LIBRARY if options is None else options
        self.pin_model = pm = pinocchio_model()
        pdata = pm.createData()
        pin.framesForwardKinematics(pm, pdata, q0)
        self.ground = min(float(pdata.oMf[pm.getFrameId(f)].translation[2]) for f in SOLES)
        spec = mujoco.MjSpec.from_string(_urdf_for_mujoco())
        spec.compiler.inertiafromgeom = mujoco.mjtInertiaFromGeom.mjINERTIAFROMGEOM_FALSE
        spec.option.gravity = [0.0, 0.0, -9.81]
        spec.worldbody.first_body().add_freejoint(name="root_joint")
        bodies = {j.name: j.parent for j in spec.joints}
        surface = {"friction": [MU, 0.0, 0.0], "condim": 3, "solref": list(options["solref"]),
                   "solimp": list(options["solimp"])}  # fmt: skip
        for sole in SOLES:
            frame = pm.frames[pm.getFrameId(sole)]
            body = bodies[pm.names[frame.parentJoint]]  # (a URDF body's frame is its joint's)
            quat = pin.Quaternion(frame.placement.rotation)
            geom = body.add_geom(name=sole + "_box", type=mujoco.mjtGeom.mjGEOM_BOX,
                                 size=[*HALF_SIZE, BOX_HALF_THICKNESS],
                                 pos=frame.placement.act(np.array([0.0, 0.0, BOX_HALF_THICKNESS])),
                                 quat=[quat.w, quat.x, quat.y, quat.z], priority=1, mass=0.0)  # fmt: skip
            for key, value in surface.items():
                setattr(geom, key, value)
        floor = spec.worldbody.add_geom(name="floor", type=mujoco.mjtGeom.mjGEOM_PLANE, size=[0, 0, 1],
                                        pos=[0, 0, self.ground])  # fmt: skip
        for key, value in surface.items():
            setattr(floor, key, value)
        for jid in range(2, pm.njoints):
            name = pm.names[jid]
            limit = float(pm.effortLimit[pm.joints[jid].idx_v])
            spec.add_actuator(name=name, target=name, trntype=mujoco.mjtTrn.mjTRN_JOINT,
                              gear=[1, 0, 0, 0, 0, 0], ctrllimited=1, ctrlrange=[-limit, limit])  # fmt: skip
        spec.option.timestep = options["timestep"]
        spec.option.impratio = options["impratio"]
        spec.option.cone = getattr(mujoco.mjtCone, f"mjCONE_{options['cone'].upper()}")
        self.model = mj = spec.compile()
        self.data = mujoco.MjData(mj)
        self.dt = dt
        self.substeps = round(dt / mj.opt.timestep)
        # joint maps by name: Pinocchio's q/v index of each MuJoCo hinge, the actuators in Pinocchio's v order
        self._hinges = []
        for jid in range(2, pm.njoints):
            j, pj = mj.joint(pm.names[jid]), pm.joints[jid]
            self._hinges.append((pj.idx_q, pj.idx_v, int(j.qposadr[0]), int(j.dofadr[0])))
        self._actuator = np.array([mj.actuator(pm.names[jid]).id for jid in range(2, pm.njoints)])
        self._box = [mj.geom(s + "_box").id for s in SOLES]
        self._body = [int(mj.geom_bodyid[g]) for g in self._box]
        self._local = [pm.frames[pm.getFrameId(s)].placement for s in SOLES]  # (sole in its body)
        self.soles_touched = False
        self._force: tuple[np.ndarray, float] | None = None  # (world force on the base, end time)
        self.set_state(q0, np.zeros(pm.nv))

    # ---------------------------------------------------------------- state
    def set_state(self, q: np.ndarray, v: np.ndarray) -> None:
        d = self.data
        d.qpos[:3] = q[:3]
        d.qpos[3:7] = [q[6], q[3], q[4], q[5]]
        d.qvel[:3] = _rotation(q[3:7]) @ v[:3]
        d.qvel[3:6] = v[3:6]
        for iq, iv, qa, da in self._hinges:
            d.qpos[qa], d.qvel[da] = q[iq], v[iv]
        mujoco.mj_forward(self.model, d)

    def state(self) -> tuple[np.ndarray, np.ndarray]:
        d, pm = self.data, self.pin_model
        q, v = np.zeros(pm.nq), np.zeros(pm.nv)
        q[:3] = d.qpos[:3]
        w, x, y, z = d.qpos[3:7]
        n = np.linalg.norm([x, y, z, w])
        q[3:7] = np.array([x, y, z, w]) / n
        v[:3] = _rotation(q[3:7]).T @ d.qvel[:3]
        v[3:6] = d.qvel[3:6]
        for iq, iv, qa, da in self._hinges:
            q[iq], v[iv] = d.qpos[qa], d.qvel[da]
        return q, v

    # ---------------------------------------------------------------- agreement
    def gravity_agreement(self, q: np.ndarray) -> float:
        """max |g_MuJoCo − g_Pinocchio| / max |g_Pinocchio| at q (joint damping and friction play no part at
        rest; MuJoCo's free-joint linear rows rotated into the base's axes)."""
        self.set_state(q, np.zeros(self.pin_model.nv))
        g_mj = self.data.qfrc_bias.copy()
        g = np.zeros(self.pin_model.nv)
        g[:3] = _rotation(q[3:7]).T @ g_mj[:3]
        g[3:6] = g_mj[3:6]
        for _, iv, _, da in self._hinges:
            g[iv] = g_mj[da]
        expected = pin.computeGeneralizedGravity(self.pin_model, self.pin_model.createData(), q)
        return float(np.max(np.abs(g - expected)) / np.max(np.abs(expected)))

    # ---------------------------------------------------------------- stepping
    def push(self, force: np.ndarray, duration: float) -> None:
        """A force (N, world axes) on the base's origin from now for ``duration`` s."""
        self._force = (np.asarray(force, dtype=float), self.data.time + duration)

    def apply(self, tau: np.ndarray) -> np.ndarray:
        """Hold τ (actuated joints, Pinocchio's v order) for one control period; returns the soles' mean
        wrenches over it (2, 6)."""
        m, d = self.model, self.data
        d.ctrl[self._actuator] = tau
        total = np.zeros((2, 6))
        for _ in range(self.substeps):
            d.xfrc_applied[:] = 0.0
            if self._force is not None and d.time < self._force[1] - 1e-12:
                d.xfrc_applied[1, :3] = self._force[0]  # (body 1: the base; its origin is the free joint's)
                r = d.xpos[1] - d.xipos[1]
                d.xfrc_applied[1, 3:] = np.cross(r, self._force[0])
            mujoco.mj_step(m, d)
            total += self._wrenches()
        return total / self.substeps

    def _wrenches(self) -> np.ndarray:
        """The soles' wrenches of the last step (contact forces of the contacts found at its start)."""
        m, d = self.model, self.data
        out = np.zeros((2, 6))
        f6 = np.zeros(6)
        for k in range(d.ncon):
            c = d.contact[k]
            g1, g2 = int(c.geom1), int(c.geom2)
            if g1 in self._box and g2 in self._box:
                self.soles_touched = True
            for i, box in enumerate(self._box):
                if box not in (g1, g2):
                    continue
                mujoco.mj_contactForce(m, d, k, f6)
                C = c.frame.reshape(3, 3)  # rows: normal (from geom1 to geom2), tangents
                force = C.T @ f6[:3] * (1.0 if box == g2 else -1.0)  # (on geom2: +f)
                R = d.xmat[self._body[i]].reshape(3, 3)
                origin = d.xpos[self._body[i]] + R @ self._local[i].translation
                Rs = R @ self._local[i].rotation
                out[i, :3] += Rs.T @ force
                out[i, 3:] += Rs.T @ np.cross(c.pos - origin, force)
        return out
