"""JointMap: Pinocchio's q, v, q̈ and τ ↔ MuJoCo's qpos, qvel, qacc, qfrc and ctrl, by joint name.

Conventions (``specs/mujoco.md``):

============================  ========================================  ====================================
quantity                      MuJoCo                                    Pinocchio / wbcpy
============================  ========================================  ====================================
free-joint orientation        quaternion w, x, y, z                     x, y, z, w
free-joint linear velocity    world axes, at the body origin            body axes, at the body origin
free-joint angular velocity   body axes                                 body axes
ball joint                    w, x, y, z; ω in the child's axes         x, y, z, w; the same ω
continuous joint              one angle (a hinge without range)         (cos θ, sin θ)
actuated torques              ``ctrl`` of motors: τ = gear·gain·ctrl    τ of every DOF but a free joint's
============================  ========================================  ====================================

With R the free body's rotation (world from body): v_mj = R v_pin for the linear part of a free joint;
generalised forces map by power (τ_pin · v_pin = τ_mj · v_mj): τ_pin = R^T τ_mj; accelerations by the
derivative of v_pin = R^T v_mj: a_pin = R^T a_mj − ω × v_pin (linear part; ω the body-axes angular
velocity). Every other entry is a permutation.

A Pinocchio joint maps on the MuJoCo joint of the same name; a composite joint ``Composite_<name>`` (an
MJCF body with several joints) on the joints of ``<name>``'s body, in order.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pinocchio as pin
from numpy.typing import NDArray

from ...errors import ModelError
from ._lib import mujoco_module

_FREE, _BALL, _SLIDE, _HINGE = 0, 1, 2, 3  # mjtJoint


def _mj_joints(mj: Any, model: pin.Model, jid: int) -> list[int]:
    """The MuJoCo joint ids of Pinocchio joint ``jid`` (several for a composite)."""
    mujoco = mujoco_module()
    name = model.names[jid]
    joint = model.joints[jid]
    if "Composite" in joint.shortname() and name.startswith("Composite_"):
        first = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_JOINT, name.removeprefix("Composite_"))
        if first >= 0:
            body = int(mj.jnt_bodyid[first])
            return list(range(int(mj.body_jntadr[body]), int(mj.body_jntadr[body] + mj.body_jntnum[body])))
    jnt = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_JOINT, name)
    if jnt < 0:
        raise ModelError("joints", None, f"Pinocchio joint {name!r} has no MuJoCo joint of that name")
    return [jnt]


class JointMap:
    """Index maps between one ``pin.Model`` and one ``MjModel`` (see the module docstring).

    Attributes:
        nq, nv: Pinocchio's sizes. free: (idx_q, idx_v, qposadr, dofadr) of each free joint.
        actuated: Pinocchio's actuated DOFs (every DOF but the free joints'), in v order.
        mj_dof_of_v: the MuJoCo DOF of each Pinocchio velocity entry (nv).
    """

    def __init__(self, model: pin.Model, mj: Any) -> None:
        q_pin: list[int] = []
        q_mj: list[int] = []
        v_pin: list[int] = []
        v_mj: list[int] = []
        self.continuous: list[tuple[int, int]] = []  # (pin idx_q, MuJoCo qposadr)
        self.free: list[tuple[int, int, int, int]] = []
        free_v: list[int] = []
        seen: set[int] = set()
        for jid in range(1, model.njoints):
            joint = model.joints[jid]
            if joint.nv == 0:
                raise ModelError("joints", None, f"Pinocchio joint {model.names[jid]!r} has no DOF (mimic)")
            iq, iv = joint.idx_q, joint.idx_v
            for k, jnt in enumerate(_mj_joints(mj, model, jid)):
                if jnt in seen:
                    raise ModelError("joints", None, f"MuJoCo joint {mj.joint(jnt).name!r} mapped twice")
                seen.add(jnt)
                kind, qa, da = int(mj.jnt_type[jnt]), int(mj.jnt_qposadr[jnt]), int(mj.jnt_dofadr[jnt])
                self._add(model.names[jid], joint, kind, (iq + k, iv + k, qa, da), (q_pin, q_mj, v_pin, v_mj))
                if kind == _FREE:
                    self.free.append((iq, iv, qa, da))
                    free_v.extend(range(iv, iv + 6))
        missing = [mj.joint(j).name or f"#{j}" for j in range(mj.njnt) if j not in seen]
        if missing or mj.nq != len(q_mj) + len(self.continuous) or mj.nv != len(v_mj):
            raise ModelError("joints", None, f"MuJoCo joints without a Pinocchio joint: {missing}")
        self.nq, self.nv = model.nq, model.nv
        self._q_pin, self._q_mj = np.array(q_pin, dtype=np.intp), np.array(q_mj, dtype=np.intp)
        self._v_pin, self._v_mj = np.array(v_pin, dtype=np.intp), np.array(v_mj, dtype=np.intp)
        self.mj_dof_of_v = np.empty(model.nv, dtype=np.intp)
        self.mj_dof_of_v[self._v_pin] = self._v_mj
        self.actuated = np.setdiff1d(np.arange(model.nv), np.array(free_v, dtype=np.intp))

    def _add(
        self, name: str, joint: Any, kind: int, at: tuple[int, int, int, int], out: tuple[list[int], ...]
    ) -> None:
        """Index pairs of one MuJoCo joint on Pinocchio joint ``name`` (q and v offsets ``at``)."""
        iq, iv, qa, da = at
        q_pin, q_mj, v_pin, v_mj = out
        short = joint.shortname()
        if kind in (_HINGE, _SLIDE):
            if joint.nq == 2 and joint.nv == 1:  # continuous: (cos, sin) ↔ angle
                self.continuous.append((iq, qa))
            else:
                q_pin.append(iq)
                q_mj.append(qa)
            v_pin.append(iv)
            v_mj.append(da)
            return
        expected = "FreeFlyer" if kind == _FREE else "Spherical"
        if expected not in short:
            raise ModelError("joints", None, f"joint {name!r}: MuJoCo type {kind}, Pinocchio {short}")
        lin = 3 if kind == _FREE else 0
        # position (if free), then the quaternion: Pinocchio x, y, z, w ← MuJoCo w, x, y, z
        q_pin.extend([*range(iq, iq + lin), iq + lin + 3, iq + lin, iq + lin + 1, iq + lin + 2])
        q_mj.extend(range(qa, qa + lin + 4))
        v_pin.extend(range(iv, iv + lin + 3))
        v_mj.extend(range(da, da + lin + 3))

    # ------------------------------------------------------------------ Pinocchio → MuJoCo
    def qpos(self, q: NDArray[np.float64], out: NDArray[np.float64]) -> None:
        """Write MuJoCo's qpos of the configuration ``q`` into ``out`` (nq_mj)."""
        out[self._q_mj] = q[self._q_pin]
        for iq, qa in self.continuous:
            out[qa] = np.arctan2(q[iq + 1], q[iq])

    def qvel(self, q: NDArray[np.float64], v: NDArray[np.float64], out: NDArray[np.float64]) -> None:
        """Write MuJoCo's qvel of (q, v) into ``out`` (nv)."""
        out[self._v_mj] = v[self._v_pin]
        for iq, iv, _, da in self.free:
            out[da : da + 3] = _rotation(q, iq) @ v[iv : iv + 3]

    def qacc(
        self, q: NDArray[np.float64], v: NDArray[np.float64], a: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """MuJoCo's qacc of the acceleration ``a`` at (q, v): a_mj = R (a_pin + ω × v_pin) (linear part)."""
        out = np.empty(self.nv)
        out[self._v_mj] = a[self._v_pin]
        for iq, iv, _, da in self.free:
            out[da : da + 3] = _rotation(q, iq) @ (
                a[iv : iv + 3] + np.cross(v[iv + 3 : iv + 6], v[iv : iv + 3])
            )
        return out

    # ------------------------------------------------------------------ MuJoCo → Pinocchio
    def q(self, qpos: NDArray[np.float64]) -> NDArray[np.float64]:
        """Pinocchio's configuration of MuJoCo's ``qpos`` (quaternions normalised)."""
        q = np.empty(self.nq)
        q[self._q_pin] = qpos[self._q_mj]
        for iq, qa in self.continuous:
            q[iq], q[iq + 1] = np.cos(qpos[qa]), np.sin(qpos[qa])
        for iq, _, _, _ in self.free:
            q[iq + 3 : iq + 7] /= np.linalg.norm(q[iq + 3 : iq + 7])
        return q

    def v(self, q: NDArray[np.float64], qvel: NDArray[np.float64]) -> NDArray[np.float64]:
        """Pinocchio's velocity of MuJoCo's ``qvel`` at configuration ``q`` (Pinocchio's)."""
        v = np.empty(self.nv)
        v[self._v_pin] = qvel[self._v_mj]
        for iq, iv, _, da in self.free:
            v[iv : iv + 3] = _rotation(q, iq).T @ qvel[da : da + 3]
        return v

    def force(self, q: NDArray[np.float64], qfrc: NDArray[np.float64]) -> NDArray[np.float64]:
        """Pinocchio's generalised force of MuJoCo's ``qfrc`` (τ_pin = R^T τ_mj on a free joint's linear
        part) at configuration ``q`` (Pinocchio's)."""
        return self.v(q, qfrc)


def _rotation(q: NDArray[np.float64], iq: int) -> NDArray[np.float64]:
    """World-from-body rotation of the free joint whose q starts at ``iq`` (unit quaternion x, y, z, w)."""
    x, y, z, w = q[iq + 3 : iq + 7].tolist()
    n = 2.0 / (x * x + y * y + z * z + w * w)
    return np.array(
        [
            [1.0 - n * (y * y + z * z), n * (x * y - z * w), n * (x * z + y * w)],
            [n * (x * y + z * w), 1.0 - n * (x * x + z * z), n * (y * z - x * w)],
            [n * (x * z - y * w), n * (y * z + x * w), 1.0 - n * (x * x + y * y)],
        ]
    )
