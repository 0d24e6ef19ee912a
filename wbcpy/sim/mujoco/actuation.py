"""Actuation: Pinocchio's joint torques as MuJoCo controls, by joint name.

Every DOF but the free joints' takes a torque (as in
:class:`~wbcpy.sim.contact_simulation.ContactSimulation`), given in Pinocchio's v order. A DOF driven
by exactly one MuJoCo motor (joint transmission, fixed gain, no bias, no activation dynamics) gets it
through that motor: ``ctrl = τ / (gear · gain)``, which MuJoCo clamps to the motor's ``ctrlrange``
when the motor is ``ctrllimited``. A DOF without a motor (the three DOFs of a ball joint, a joint the
file leaves unactuated) gets it as ``qfrc_applied``. Any other actuator (a position servo, a muscle, a
tendon or site transmission) would add forces the controller does not command: it is refused with a
:class:`~wbcpy.errors.ModelError`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...errors import ModelError
from ._lib import mujoco_module
from .joint_map import JointMap


def _motor_dof(mj: Any, a: int) -> int:
    """The MuJoCo DOF of motor ``a``, or raise naming why the actuator is not a joint motor."""
    mujoco = mujoco_module()
    name = mj.actuator(a).name or f"#{a}"
    is_motor = (
        int(mj.actuator_trntype[a]) == int(mujoco.mjtTrn.mjTRN_JOINT)
        and int(mj.actuator_gaintype[a]) == int(mujoco.mjtGain.mjGAIN_FIXED)
        and int(mj.actuator_biastype[a]) == int(mujoco.mjtBias.mjBIAS_NONE)
        and int(mj.actuator_dyntype[a]) == int(mujoco.mjtDyn.mjDYN_NONE)
    )
    if not is_motor:
        raise ModelError(
            "actuators", None,
            f"actuator {name!r} is not a joint motor (fixed gain, no bias): the plant applies joint torques; "
            "load the MJCF with actuators='motors' to replace its actuators by motors",
        )  # fmt: skip
    joint = int(mj.actuator_trnid[a, 0])
    if int(mj.jnt_type[joint]) not in (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE)):
        raise ModelError("actuators", None, f"motor {name!r} drives a ball or free joint; give it no motor")
    return int(mj.jnt_dofadr[joint])


class Actuation:
    """Writes τ of the actuated DOFs into ``data.ctrl`` and ``data.qfrc_applied`` (module docstring).

    Attributes:
        n: number of actuated DOFs (the size of τ).
        limits: |τ| bound of each actuated DOF from its motor's control range (inf when unlimited).
    """

    def __init__(self, mj: Any, joints: JointMap) -> None:
        pin_of_mj = np.empty(mj.nv, dtype=np.intp)
        pin_of_mj[joints.mj_dof_of_v] = np.arange(joints.nv)
        motor_v: list[int] = []
        scale: list[float] = []
        for a in range(mj.nu):
            iv = int(pin_of_mj[_motor_dof(mj, a)])
            if iv in motor_v:
                raise ModelError(
                    "actuators", None, f"two motors drive the DOF of actuator {mj.actuator(a).name!r}"
                )
            motor_v.append(iv)
            scale.append(float(mj.actuator_gear[a, 0] * mj.actuator_gainprm[a, 0]))
        if any(s == 0.0 for s in scale):
            raise ModelError("actuators", None, "a motor with gear · gain = 0")
        self.n = int(joints.actuated.size)
        self._tau = np.zeros(joints.nv)  # τ of every DOF in v order (free joints' entries stay 0)
        self._actuated = joints.actuated
        self._motor_v = np.array(motor_v, dtype=np.intp)
        self._scale = np.array(scale)
        plain = np.setdiff1d(joints.actuated, self._motor_v)
        unknown = np.setdiff1d(self._motor_v, joints.actuated)
        if unknown.size:
            raise ModelError("actuators", None, "a motor drives a free joint")
        self._plain_v, self._plain_mj = plain, joints.mj_dof_of_v[plain]
        limits = np.full(joints.nv, np.inf)
        for k, a in enumerate(range(mj.nu)):
            if mj.actuator_ctrllimited[a]:
                lo, hi = mj.actuator_ctrlrange[a] * abs(self._scale[k])
                limits[motor_v[k]] = min(abs(lo), abs(hi))
        self.limits = limits[joints.actuated]

    def write(self, tau: NDArray[np.float64], data: Any) -> None:
        """Set ``data.ctrl`` and ``data.qfrc_applied`` of the actuated torques τ (n, Pinocchio v order)."""
        full = self._tau
        full[self._actuated] = tau
        data.ctrl[:] = full[self._motor_v] / self._scale
        if self._plain_v.size:
            data.qfrc_applied[self._plain_mj] = full[self._plain_v]
