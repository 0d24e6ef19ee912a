"""iCub iKin / ctrlLib models: min-jerk filters, velocity controllers, reference generator.

Building blocks (no robot needed):

- :class:`Filter` — per-component direct-form-I IIR filter (``iCub::ctrl::Filter``).
- :class:`Integrator` — saturating trapezoidal integrator (``iCub::ctrl::Integrator``).
- :class:`MinJerkVelCtrlForIdealPlant`, :class:`MinJerkVelCtrlForNonIdealPlant` — min-jerk velocity
  controllers whose loop closes to p³/(s+p)³ (``minJerkVelCtrlFor*Plant``).
- :class:`MinJerkTrajectory` — exact-ZOH min-jerk reference generator (pos, vel, acc).
- :data:`ALPHA`, :data:`BETA`, :data:`KAPPA` — the min-jerk constants; :func:`minjerk_abc`.

Controller on a :class:`~wbcpy.model.chain.Chain`:

- :class:`MultiRefMinJerkCtrl` (``iKin::MultiRefMinJerkCtrl``), :class:`CtrlPose`, :class:`CtrlState`.
- :func:`blend_velocities`, :func:`guard_weights` — its blend and joint-limit weights as pure functions.
- :func:`dls_ik`, :class:`DLSResult` — damped least-squares IK (joint targets when only a pose is given).
"""

from __future__ import annotations

from ._ctrl_state import CtrlState
from .blend import blend_velocities, guard_weights
from .dls import DLSResult, dls_ik
from .filters import Filter
from .integrator import Integrator
from .minjerk_ctrl import (
    ALPHA,
    BETA,
    KAPPA,
    PLANT_PARAMETER_DEFAULTS,
    MinJerkVelCtrlForIdealPlant,
    MinJerkVelCtrlForNonIdealPlant,
    minjerk_abc,
)
from .minjerk_trajectory import MinJerkTrajectory
from .multiref import MultiRefMinJerkCtrl
from .pose_error import CtrlPose

__all__ = [
    "ALPHA",
    "BETA",
    "KAPPA",
    "PLANT_PARAMETER_DEFAULTS",
    "CtrlPose",
    "CtrlState",
    "DLSResult",
    "Filter",
    "Integrator",
    "MinJerkTrajectory",
    "MinJerkVelCtrlForIdealPlant",
    "MinJerkVelCtrlForNonIdealPlant",
    "MultiRefMinJerkCtrl",
    "blend_velocities",
    "dls_ik",
    "guard_weights",
    "minjerk_abc",
]
