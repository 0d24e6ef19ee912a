"""PD feedback laws that turn targets into acceleration references for scene tasks.

* :class:`JointPD` → :class:`~wbcpy.tasks.JointReference`
* :class:`CartesianPD` → :class:`~wbcpy.tasks.CartesianReference` (pose error (Δp, log₃(R_d Rᵀ)))
* :class:`ComPD` → :class:`~wbcpy.tasks.ComReference`

All follow a = K_ff a_d + K_d (v_d − v) + K_p e with scalar or per-axis gains and an optional
direction-keeping saturation.
"""

from __future__ import annotations

from .cartesian_pd import CartesianPD, pose_error
from .com_pd import ComPD
from .joint_pd import JointPD

__all__ = ["CartesianPD", "ComPD", "JointPD", "pose_error"]
