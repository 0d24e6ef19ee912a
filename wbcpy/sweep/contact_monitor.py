"""Per-step quantities of a contact-scene run: torque ratio, normal force and footing.

:class:`ContactMonitor` watches a :class:`~wbcpy.sim.SceneSimulation` of an
:class:`~wbcpy.InverseDynamicsScene` (a torque-driven plant) step by step and fills the
:class:`~wbcpy.sweep.metrics.ContactRecord` of the run (definitions in :mod:`wbcpy.sweep.metrics`).
"""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin

from ..scenes.inverse_dynamics_scene import InverseDynamicsScene
from ..sim import SceneSimulation
from .metrics import FOOTING_TOLERANCE, ContactRecord


class ContactMonitor:
    """Records max |τ_j|/τ_max,j, the smallest normal force and the step the robot lost its footing.

    Attributes:
        max_torque_ratio: running max of |τ_j| / τ_max,j over the observed steps.
        min_normal_force: running min of the simulated normal forces f_z [N] (inf before any contact).
        footing_lost: the step at which a simulated wrench left its cone or bounds by more than the
            tolerance, None while the robot stands.
    """

    def __init__(self, sim: SceneSimulation) -> None:
        """Watch ``sim`` (a simulation with a contact plant: ``sim.plant`` is not None).

        Raises:
            ValueError: ``sim`` has no plant (not a contact scene).
        """
        scene = sim.setup.scene
        if sim.plant is None or not isinstance(scene, InverseDynamicsScene):
            raise ValueError("ContactMonitor needs the simulation of a contact scene (sim.plant is None)")
        self._sim = sim
        self._plant = sim.plant
        self._scene = scene
        model = sim.setup.robot.model
        weight = pin.computeTotalMass(model) * float(np.linalg.norm(model.gravity.linear))
        self._tolerance = FOOTING_TOLERANCE * weight
        self._inverse_limit: np.ndarray | None = None
        self.max_torque_ratio = 0.0
        self.min_normal_force = math.inf
        self.footing_lost: int | None = None

    def _inverse_limits(self) -> np.ndarray:
        """1 / τ_max,j per actuated joint (0 where there is no finite positive limit), once."""
        if self._inverse_limit is None:
            scene, robot = self._scene, self._sim.setup.robot
            limit = scene.effort_limit
            if limit is None:  # the scene sets no limits: the URDF's
                names = scene.get_solver_output().names
                limit = robot.effort_limit[[robot.dof_names.index(n) for n in names]]
            ok = np.isfinite(limit) & (limit > 0)
            self._inverse_limit = np.where(ok, 1.0 / np.where(ok, limit, 1.0), 0.0)
        return self._inverse_limit

    def observe(self, step: int) -> bool:
        """Record the step just simulated (the torques applied, the simulated wrenches).

        Returns:
            True when the robot lost its footing at this step.
        """
        tau = self._scene.get_joint_torques()
        ratio = float(np.max(np.abs(tau) * self._inverse_limits(), initial=0.0))
        self.max_torque_ratio = max(self.max_torque_ratio, ratio)
        for wrench in self._plant.sim.wrenches.values():
            self.min_normal_force = min(self.min_normal_force, float(wrench[2]))
        viol = self._plant.violation
        if max(viol["friction cone"], viol["normal force"]) > self._tolerance:
            self.footing_lost = step
            return True
        return False

    def record(self) -> ContactRecord:
        """The run's :class:`ContactRecord` (min_normal_force NaN when no contact was ever active)."""
        fz = self.min_normal_force if math.isfinite(self.min_normal_force) else math.nan
        return ContactRecord(self.max_torque_ratio, fz, self.footing_lost)
