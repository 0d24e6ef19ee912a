"""iCub iKin / ctrlLib models: min-jerk filters, velocity controllers, reference generator.

Building blocks (no robot needed):

- :class:`Filter` — per-component direct-form-I IIR filter (``iCub::ctrl::Filter``).
- :class:`Integrator` — saturating trapezoidal integrator (``iCub::ctrl::Integrator``).
- :class:`MinJerkVelCtrlForIdealPlant`, :class:`MinJerkVelCtrlForNonIdealPlant` — min-jerk velocity
  controllers whose loop closes to p³/(s+p)³ (``minJerkVelCtrlFor*Plant``).
- :class:`MinJerkTrajectory` — exact-ZOH min-jerk reference generator (pos, vel, acc).
- :data:`ALPHA`, :data:`BETA`, :data:`KAPPA` — the min-jerk constants; :func:`minjerk_abc`.
"""

from __future__ import annotations

from .filters import Filter, Integrator
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

# --- multi-referential controller (multiref.py) -------------------------------------------------------
# from .multiref import CtrlPose, CtrlState, MultiRefMinJerkCtrl
# (add the three names to __all__ below as well)

__all__ = [
    "ALPHA",
    "BETA",
    "KAPPA",
    "PLANT_PARAMETER_DEFAULTS",
    "Filter",
    "Integrator",
    "MinJerkTrajectory",
    "MinJerkVelCtrlForIdealPlant",
    "MinJerkVelCtrlForNonIdealPlant",
    "minjerk_abc",
]
