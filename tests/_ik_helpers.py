"""Helpers for the min-jerk controller / DLS tests: small URDFs, independent FK oracles, the p³/(s+p)³ step.

The oracles here use Pinocchio directly (``computeFrameJacobian`` on the robot's own model) or closed
forms; they never go through :class:`wbcpy.model.chain.Chain` or :mod:`wbcpy.ik`.
"""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin

from wbcpy import RobotModel

P_BAR = 15.9669610709384 / 3.0  # κ/3: p = p̄/T (spec §1)


def serial_urdf(
    n: int, lower: float = -1.0, upper: float = 1.0, length: float = 0.5, aux: bool = True
) -> str:
    """URDF of an n-joint planar arm: revolute joints about z, links of ``length`` along x, frame ``tip``.

    With ``aux`` a second branch (joint ``aux_joint`` → link ``aux``) hangs from the base, so the robot has
    n + 1 DOF and the chain base_link → tip must ignore one joint.
    """
    parts = ['<robot name="serial">', '<link name="base_link"/>']
    if aux:
        parts.append(
            '<joint name="aux_joint" type="revolute"><parent link="base_link"/><child link="aux"/>'
            '<origin xyz="0 0 -0.1"/><axis xyz="1 0 0"/>'
            '<limit lower="-1" upper="1" velocity="1" effort="1"/></joint>'
            '<link name="aux"><inertial><mass value="1"/>'
            '<inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>'
        )
    parent = "base_link"
    for i in range(n):
        origin = "0 0 0" if i == 0 else f"{length} 0 0"
        parts.append(
            f'<joint name="j{i}" type="revolute"><parent link="{parent}"/><child link="l{i}"/>'
            f'<origin xyz="{origin}"/><axis xyz="0 0 1"/>'
            f'<limit lower="{lower}" upper="{upper}" velocity="10" effort="10"/></joint>'
        )
        parts.append(
            f'<link name="l{i}"><inertial><mass value="1"/><origin xyz="{length / 2} 0 0"/>'
            '<inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>'
        )
        parent = f"l{i}"
    parts.append(
        f'<joint name="tip_joint" type="fixed"><parent link="{parent}"/><child link="tip"/>'
        f'<origin xyz="{length} 0 0"/></joint><link name="tip"/></robot>'
    )
    return "".join(parts)


def serial_chain(n: int, lower: float = -1.0, upper: float = 1.0, length: float = 0.5, aux: bool = True):
    """(robot, chain base_link → tip) of :func:`serial_urdf`."""
    robot = RobotModel.from_urdf(serial_urdf(n, lower, upper, length, aux))
    return robot, robot.chain("base_link", "tip")


class RawKinematics:
    """Tip pose and Jacobian straight from Pinocchio, for robots whose chain base is the world frame.

    Joints outside the chain are held at Pinocchio's neutral configuration clipped to the limits.
    """

    def __init__(self, robot: RobotModel, tip: str, joint_names: list[str]) -> None:
        self.model = robot.model
        self.data = self.model.createData()
        self.fid = self.model.getFrameId(tip)
        q = pin.neutral(self.model)
        self.q = np.clip(q, self.model.lowerPositionLimit, self.model.upperPositionLimit)
        self.idx_q = [self.model.joints[self.model.getJointId(j)].idx_q for j in joint_names]
        self.idx_v = [self.model.joints[self.model.getJointId(j)].idx_v for j in joint_names]
        self.lower = self.model.lowerPositionLimit[self.idx_q].copy()
        self.upper = self.model.upperPositionLimit[self.idx_q].copy()

    def _full(self, q_chain: np.ndarray) -> np.ndarray:
        q = self.q.copy()
        q[self.idx_q] = q_chain
        return q

    def pose(self, q_chain: np.ndarray) -> pin.SE3:
        pin.framesForwardKinematics(self.model, self.data, self._full(q_chain))
        return self.data.oMf[self.fid].copy()

    def jacobian(self, q_chain: np.ndarray) -> np.ndarray:
        J = pin.computeFrameJacobian(
            self.model, self.data, self._full(q_chain), self.fid, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
        )
        return J[:, self.idx_v].copy()


def pose_errors(target: pin.SE3, actual: pin.SE3) -> tuple[float, float]:
    """(position error [m], rotation angle between the two orientations [rad])."""
    dp = float(np.linalg.norm(target.translation - actual.translation))
    R = target.rotation @ actual.rotation.T
    angle = math.acos(max(-1.0, min(1.0, (np.trace(R) - 1.0) / 2.0)))
    return dp, angle


def triple_pole_step(t: np.ndarray | float, T: float) -> np.ndarray | float:
    """Unit step response of p³/(s+p)³, p = p̄/T: 1 − e^{−pt}(1 + pt + (pt)²/2)."""
    pt = P_BAR / T * np.asarray(t)
    return 1.0 - np.exp(-pt) * (1.0 + pt + 0.5 * pt * pt)
