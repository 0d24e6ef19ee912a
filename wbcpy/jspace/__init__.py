"""Stanford-WBC's joint-space model (``jspace``) on Pinocchio.

:class:`Model` loads a robot, takes a :class:`State` (one value per DOF) and answers frame, Jacobian,
M, M⁻¹, gravity, Coriolis/centrifugal and COM queries per :class:`Node`, with the original camelCase
method names kept as aliases::

    from wbcpy import jspace

    model = jspace.Model.from_urdf("robots/puma560.urdf")
    model.update(jspace.State(position=[0, 0.3, 0, 0, 0, 0], velocity=[0.1] * 6))
    M = model.getMassInertia()
    J = model.computeJacobian(model.getNodeByName("end-effector"))
"""

from __future__ import annotations

from .model import Model
from .node import Node, NodeIDError
from .state import COMPARE_ALL, COMPARE_FORCE, COMPARE_POSITION, COMPARE_VELOCITY, State

__all__ = [
    "COMPARE_ALL",
    "COMPARE_FORCE",
    "COMPARE_POSITION",
    "COMPARE_VELOCITY",
    "Model",
    "Node",
    "NodeIDError",
    "State",
]
