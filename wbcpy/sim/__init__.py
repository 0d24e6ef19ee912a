"""Simulation: the plant a controller is run against.

* :class:`SceneSimulation`, :class:`SimulationResult` — closed loop of a scene file's scene: PD
  references → update → solve → integrate q̈ (or q̇) (:mod:`~wbcpy.sim.simulation`);
* :class:`ContactSimulation`, :class:`ContactPlant` — joint torques integrated with Pinocchio's rigid
  constraint dynamics (:mod:`~wbcpy.sim.contact_simulation`).

Layer: above the scenes.
"""

from __future__ import annotations

from .contact_simulation import ContactPlant, ContactSimulation
from .simulation import SceneSimulation, SimulationResult

__all__ = ["ContactPlant", "ContactSimulation", "SceneSimulation", "SimulationResult"]
