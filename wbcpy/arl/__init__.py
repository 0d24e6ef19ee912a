"""AUTh-ARL ``arl::robot::Model`` facade: a robot as named kinematic chains (main chains first).

Example::

    from wbcpy.arl import Model

    model = Model.from_config("robots/bimanual_chains.yaml")
    model.getNrOfMainChains(), model.getJointNames("left_arm")
    pose = model.fk_solver[model.chain_index["left_arm"]].JntToCart(q_left)   # pin.SE3 in the chain base

See :class:`Model` and :mod:`wbcpy.arl.config` (configuration format, joint locking).
"""

from __future__ import annotations

from .config import load_config, lock_joints
from .model import ChainFkSolver, ChainJacSolver, Model

__all__ = ["ChainFkSolver", "ChainJacSolver", "Model", "load_config", "lock_joints"]
