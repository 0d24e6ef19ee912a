"""MuJoCo as the plant: a robot simulated by MuJoCo, driven by joint torques (``specs/mujoco.md``).

* :class:`MujocoPlant` — the plant (:class:`~wbcpy.sim.plant.Plant` protocol) of a robot loaded from a URDF
  (compiled by MuJoCo with contact boxes, a floor and motors: :mod:`~wbcpy.sim.mujoco.build`) or from an
  MJCF file (used as it is);
* :class:`ContactOptions` — the contact and integration options of a model built from a URDF (the
  library's stiff defaults, or MuJoCo's own);
* :class:`~wbcpy.sim.mujoco.joint_map.JointMap` — q, v, q̈, τ between the two conventions, by joint name;
* :func:`~wbcpy.sim.mujoco.agreement.check_agreement` — mass, COM, gravity and inverse dynamics of the
  two models within 1e-9.

Needs the optional ``mujoco`` package (``pip install 'wbcpy[mujoco]'``): importing this module works
without it; building a plant raises :class:`~wbcpy.errors.MissingDependencyError`.

Layer: a plant, beside :mod:`wbcpy.sim.contact_simulation`.
"""

from __future__ import annotations

from .mujoco_plant import MujocoPlant
from .options import ContactOptions

__all__ = ["ContactOptions", "MujocoPlant", "mujoco_available"]


def mujoco_available() -> bool:
    """True when the ``mujoco`` package can be imported."""
    import importlib.util

    return importlib.util.find_spec("mujoco") is not None
