"""ComPD: centre-of-mass PD law that produces a :class:`~wbcpy.tasks.ComReference`.

.. math::

    a = K_{ff}\\, a_d + K_d (v_d - \\dot c) + K_p (c_d - c)

world axes, gains scalar or per axis (3), optional direction-keeping saturation.
"""

from __future__ import annotations

from ..tasks import ComReference, ComTask, register_law
from ._base import VectorPD


class ComPD(VectorPD[ComTask, ComReference]):
    """COM PD law with feed-forward: a = K_ff a_d + K_d (v_d − ċ) + K_p (c_d − c).

    :meth:`compute` (alias ``update``) takes the COM position (m), velocity (m/s) and targets (3 each)
    and returns the COM acceleration reference (3, m/s², world axes). :meth:`reference` builds a
    :class:`ComReference` for a :class:`~wbcpy.tasks.ComTask` from the robot's current COM state.

    Attributes:
        kp, kd, kff: gains, scalar or 3 values.
        max_acceleration: optional saturation (m/s²), scalar or 3 values.
    """

    _axes = 3


register_law("com", "acceleration", ComPD)
