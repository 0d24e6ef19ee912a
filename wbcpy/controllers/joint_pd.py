"""JointPD: joint-space PD law that produces a :class:`~wbcpy.tasks.JointReference`.

.. math::

    a = K_{ff}\\, \\ddot q_d + K_d (\\dot q_d - \\dot q) + K_p (q_d - q)

gains scalar or per joint; with ``max_acceleration`` the output is scaled (direction kept) so that
|a_i| ≤ max_i (ARC-OPT's ``JointPosPDController`` saturation).
"""

from __future__ import annotations

from ..tasks import JointReference, JointTask, register_law
from ._base import VectorPD


class JointPD(VectorPD[JointTask, JointReference]):
    """Joint PD law with feed-forward: a = K_ff a_d + K_d (v_d − v) + K_p (q_d − q).

    :meth:`compute` (alias ``update``) takes joint positions, velocities and targets of any size n and
    returns n accelerations (rad/s²); per-joint gains must have n entries. :meth:`reference` builds a
    :class:`JointReference` for a :class:`~wbcpy.tasks.JointTask` from the robot's current joint state.

    Attributes:
        kp, kd, kff: gains (1/s², 1/s, 1), scalar or per joint.
        max_acceleration: optional saturation per joint (rad/s²), scalar or per joint.
    """

    #: the law's target is a joint task's positions
    joint_law = True


register_law("jnt", "acceleration", JointPD)
