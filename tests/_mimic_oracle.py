"""The uncoupled twin of a robot with mimic joints: raw Pinocchio on the same URDF without the coupling.

A mimic joint q_f = m q_l + o is, in the uncoupled model, an independent joint: evaluating the uncoupled
model at the coupled state (q_f filled in, v_f = m v_l) and applying the chain rule (G: q̇ ↦ q̇_uncoupled,
constant) gives every quantity of the coupled robot independently of wbcpy and of Pinocchio's mimic
joints: J G, Gᵀ M G, Gᵀ h, Gᵀ C G, the same energies.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from wbcpy import RobotModel


class Uncoupled:
    """The uncoupled model of ``robot`` (built from its URDF without ``mimic``) and the state maps."""

    def __init__(self, robot: RobotModel) -> None:
        path = str(robot.urdf_path)
        root = [pin.JointModelFreeFlyer()] if robot.floating_base else []
        self.model = pin.buildModelFromUrdf(path, *root)
        self.robot = robot
        follows = {m.name: m for m in robot.mimic_joints}
        self._rows: list[tuple[int, int, int, float, float]] = []  # (uncoupled iq, iv, coupled iq/iv, m, o)
        G = np.zeros((self.model.nv, robot.nv))
        self._copy_q: list[tuple[int, int, int]] = []
        for jid in range(1, self.model.njoints):
            name, joint = self.model.names[jid], self.model.joints[jid]
            if name in follows:
                m = follows[name]
                leader = robot.model.joints[robot.joint_id(m.mimicked)]
                self._rows.append((joint.idx_q, joint.idx_v, leader.idx_q, m.multiplier, m.offset))
                G[joint.idx_v, leader.idx_v] = m.multiplier
            else:
                mine = robot.model.joints[robot.joint_id(name)]
                self._copy_q.append((joint.idx_q, mine.idx_q, joint.nq))
                G[joint.idx_v : joint.idx_v + joint.nv, mine.idx_v : mine.idx_v + mine.nv] = np.eye(joint.nv)
        self.G = G

    def q(self, q: np.ndarray) -> np.ndarray:
        """The uncoupled configuration of the coupled one (followers filled in)."""
        out = pin.neutral(self.model)
        for iu, ic, n in self._copy_q:
            out[iu : iu + n] = q[ic : ic + n]
        for iu, _, il, m, o in self._rows:
            out[iu] = m * q[il] + o
        return out

    def v(self, v: np.ndarray) -> np.ndarray:
        """The uncoupled velocity G v."""
        return self.G @ v


#: a two-joint arm whose follower j2 is an unaligned revolute joint (axis 0 0.2 1) mimicking j1 with
#: multiplier 0.5 and offset 0.1 (a URDF text)
_INERTIA_ = '<inertia ixx="0.01" iyy="0.02" izz="0.03" ixy="0" ixz="0" iyz="0"/>'
MIMIC2 = f"""<robot name="mimic2">
  <link name="base"/>
  <link name="l1"><inertial><mass value="1.0"/><origin xyz="0.25 0 0.05"/>{_INERTIA_}</inertial></link>
  <link name="l2"><inertial><mass value="0.7"/><origin xyz="0.2 0.03 0"/>{_INERTIA_}</inertial></link>
  <link name="tip"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>
    <limit lower="-2" upper="2" effort="10" velocity="2"/></joint>
  <joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/><origin xyz="0.5 0 0" rpy="0.3 0 0"/>
    <axis xyz="0 0.2 1"/><limit lower="-2" upper="2" effort="10" velocity="2"/>
    <mimic joint="j1" multiplier="0.5" offset="0.1"/></joint>
  <joint name="jt" type="fixed"><parent link="l2"/><child link="tip"/><origin xyz="0.5 0 0"/></joint>
</robot>"""
