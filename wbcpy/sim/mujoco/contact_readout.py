"""Contact wrenches per contact frame from MuJoCo's contacts, and where a robot frame sits in MuJoCo.

A MuJoCo contact between geoms g₁ and g₂ has a frame whose first row is the normal n, pointing from g₁
to g₂, and ``mj_contactForce`` gives its force f (and torque, condim > 3) in that frame: g₂ receives
+f, g₁ receives −f, at the contact's position p. A contact frame c of the robot owns some geoms (its box,
or the geoms rigidly attached to its body); what the environment exerts on it is

    F = Σ s_k Cᵀ_k f_k,   τ_o = Σ s_k (Cᵀ_k t_k + (p_k − o) × Cᵀ_k f_k),

over the contacts k touching one of its geoms (s_k = +1 when it is g₂, −1 when g₁; C_k the contact
frame's rows), about the frame's origin o, then expressed in the frame's axes (R its rotation):
w = (Rᵀ F, Rᵀ τ_o) — force over torque, the convention of
:class:`~wbcpy.sim.contact_simulation.ContactSimulation`; a point contact reports the force only.
The wrench of a control period is the mean over its time steps (the impulse over the period).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pinocchio as pin
from numpy.typing import NDArray

from ...errors import ModelError
from ._lib import mujoco_module
from .joint_map import JointMap


def frame_in_body(robot_model: pin.Model, mj: Any, joints: JointMap, frame: str) -> tuple[int, pin.SE3]:
    """The MuJoCo body that carries Pinocchio frame ``frame``, and the frame's placement in it.

    The body is the one moved by the frame's parent joint; its Pinocchio counterpart is the ``BODY``
    frame of the same name (a URDF link, an MJCF body), whose placement P_b in the joint is known as is the
    frame's P_f: the frame in the body is P_b⁻¹ P_f.

    Raises:
        ModelError: the body has no Pinocchio ``BODY`` frame of its name.
    """
    mujoco = mujoco_module()
    f = robot_model.frames[robot_model.getFrameId(frame)]
    if f.parentJoint == 0:
        return 0, pin.SE3(f.placement)
    name = robot_model.names[f.parentJoint]
    first = name.removeprefix("Composite_") if name.startswith("Composite_") else name
    body = int(mj.jnt_bodyid[mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_JOINT, first)])
    body_name = mj.body(body).name
    if not robot_model.existFrame(body_name, pin.FrameType.BODY):
        raise ModelError("frames", None, f"MuJoCo body {body_name!r} has no Pinocchio BODY frame")
    pb = robot_model.frames[robot_model.getFrameId(body_name, pin.FrameType.BODY)]
    if pb.parentJoint != f.parentJoint:
        raise ModelError("frames", None, f"body {body_name!r} and frame {frame!r} move with different joints")
    return body, pb.placement.actInv(f.placement)


class ContactReadout:
    """Accumulates the contact wrenches of the contact frames over the time steps of a control period.

    Attributes:
        frames: the contact frames. sizes: 6 (surface) or 3 (point) per frame.
    """

    def __init__(
        self,
        mj: Any,
        frames: Sequence[str],
        sizes: Sequence[int],
        geoms: Sequence[Sequence[int]],
        placements: Sequence[tuple[int, pin.SE3]],
    ) -> None:
        self.frames = tuple(frames)
        self.sizes = tuple(sizes)
        self._owner = np.full(mj.ngeom, -1, dtype=np.intp)
        for i, ids in enumerate(geoms):
            for g in ids:
                if self._owner[g] >= 0:
                    raise ModelError("contacts", None, f"geom {g} belongs to two contact frames")
                self._owner[g] = i
        self._bodies = [b for b, _ in placements]
        self._local_R = [np.array(P.rotation) for _, P in placements]
        self._local_p = [np.array(P.translation) for _, P in placements]
        self._sum = np.zeros((len(self.frames), 6))
        self._touched = np.zeros(len(self.frames), dtype=bool)
        self._steps = 0
        self._f6 = np.zeros(6)

    def reset(self) -> None:
        """Start a new period."""
        self._sum[:] = 0.0
        self._touched[:] = False
        self._steps = 0

    def frame_pose(self, data: Any, i: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """World position (3) and rotation (3×3) of contact frame i (from the data's body poses)."""
        b = self._bodies[i]
        Rb = data.xmat[b].reshape(3, 3)
        return data.xpos[b] + Rb @ self._local_p[i], Rb @ self._local_R[i]

    def accumulate(self, mj: Any, data: Any) -> None:
        """Add the wrenches of the data's contacts (after a time step: contacts and body poses are of the
        step's start). Per frame the forces and their moments about the world origin are summed first,
        F = Σ s_k F_k, M = Σ s_k (τ_k + p_k × F_k); then τ_o = M − o × F in the frame's axes. (Plain
        floats: a few contacts per step, where numpy's per-call cost would dominate.)"""
        self._steps += 1
        n = data.ncon
        if n == 0 or not self.frames:
            return
        contact = data.contact
        owners = self._owner[contact.geom[:n]].tolist()  # the frame of g₁, g₂ (−1: none)
        frames, positions = contact.frame, contact.pos
        f6, contact_force = self._f6, mujoco_module().mj_contactForce
        sums: dict[int, list[float]] = {}
        for k in range(n):
            o1, o2 = owners[k]
            if o1 < 0 and o2 < 0:
                continue
            contact_force(mj, data, k, f6)
            f0, f1, f2, t0, t1, t2 = f6.tolist()
            if f0 <= 0.0:
                continue
            c0, c1, c2, c3, c4, c5, c6, c7, c8 = frames[k].tolist()  # rows: normal, tangent 1, tangent 2
            fx, fy, fz = c0 * f0 + c3 * f1 + c6 * f2, c1 * f0 + c4 * f1 + c7 * f2, c2 * f0 + c5 * f1 + c8 * f2
            px, py, pz = positions[k].tolist()
            mx = c0 * t0 + c3 * t1 + c6 * t2 + py * fz - pz * fy
            my = c1 * t0 + c4 * t1 + c7 * t2 + pz * fx - px * fz
            mz = c2 * t0 + c5 * t1 + c8 * t2 + px * fy - py * fx
            for i, sign in ((o1, -1.0), (o2, 1.0)):
                if i >= 0:
                    acc = sums.setdefault(i, [0.0] * 6)
                    acc[0] += sign * fx
                    acc[1] += sign * fy
                    acc[2] += sign * fz
                    acc[3] += sign * mx
                    acc[4] += sign * my
                    acc[5] += sign * mz
        for i, (fx, fy, fz, mx, my, mz) in sums.items():
            o, R = self.frame_pose(data, i)
            ox, oy, oz = o.tolist()
            world = np.array(
                [
                    [fx, mx - (oy * fz - oz * fy)],
                    [fy, my - (oz * fx - ox * fz)],
                    [fz, mz - (ox * fy - oy * fx)],
                ]
            )
            self._sum[i] += (R.T @ world).T.ravel()  # (Rᵀ F, Rᵀ τ_o)
            self._touched[i] = True

    def wrenches(self) -> dict[str, NDArray[np.float64]]:
        """``{frame: mean wrench}`` of the period (6 or 3 entries; zeros for a frame without contact)."""
        steps = max(self._steps, 1)
        return {f: self._sum[i, : self.sizes[i]] / steps for i, f in enumerate(self.frames)}

    def active(self) -> list[str]:
        """The frames that carried a positive normal force in some time step of the period."""
        return [f for i, f in enumerate(self.frames) if self._touched[i]]
