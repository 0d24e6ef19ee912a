"""Simulation: the plant a controller is run against.

* :class:`SceneSimulation`, :class:`SimulationResult` — closed loop of a scene file's scene: PD
  references → update → solve → integrate q̈ (or q̇) (:mod:`~wbcpy.sim.simulation`);
* :class:`Plant` — the plant protocol: state, torques for one control period, contact wrenches, pushes
  (:mod:`~wbcpy.sim.plant`);
* :class:`ContactSimulation`, :class:`ContactPlant` — joint torques integrated with Pinocchio's rigid
  constraint dynamics (:mod:`~wbcpy.sim.contact_simulation`, :mod:`~wbcpy.sim.contact_plant`);
* :mod:`wbcpy.sim.mujoco` — a robot simulated by MuJoCo (``MujocoPlant``, ``ContactOptions``; the optional
  ``mujoco`` extra).

Layer: above the scenes.
"""

from __future__ import annotations

from .contact_plant import ContactPlant
from .contact_simulation import ContactSimulation
from .plant import Plant
from .simulation import SceneSimulation, SimulationResult

__all__ = [
    "ContactPlant",
    "ContactSimulation",
    "Plant",
    "SceneSimulation",
    "SimulationResult",
]
