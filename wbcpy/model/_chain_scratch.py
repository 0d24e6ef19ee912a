"""Configuration and per-thread scratch of a :class:`~wbcpy.model.chain.Chain`.

A chain computes with its joint angles plus a :class:`ChainConfig` (rest configuration, base placement,
tool offset) that is immutable and replaced as a whole, and writes Pinocchio results into a
:class:`Scratch` (a ``pin.Data`` and a full configuration buffer) that belongs to one thread.
"""

from __future__ import annotations

import threading

import numpy as np
import pinocchio as pin


class ChainConfig:
    """What a chain computes with besides its joint angles; immutable, replaced as a whole by the setters.

    Attributes:
        rest: per-DOF rest values (robot.nv); q_rest: the robot configuration they give (nq).
        bMo: inverse base placement; R6: blockdiag(Rᵦᵀ, Rᵦᵀ); offset, has_offset: the tool offset.
        base_rot_identity, base_identity: the base frame's rotation (placement) is the world's.
        plain: Pinocchio's tip pose and 2-D Jacobian need no transform (only a column selection).
    """

    __slots__ = (
        "R6",
        "bMo",
        "base_identity",
        "base_rot_identity",
        "has_offset",
        "offset",
        "plain",
        "q_rest",
        "rest",
    )

    def __init__(self, rest: np.ndarray, q_rest: np.ndarray, oMb: pin.SE3, offset: pin.SE3, nv: int) -> None:
        self.rest, self.q_rest = rest, q_rest
        self.bMo = oMb.inverse()
        rot_t = oMb.rotation.T.copy()
        self.base_rot_identity = bool(np.array_equal(rot_t, np.eye(3)))
        self.base_identity = self.base_rot_identity and not oMb.translation.any()
        self.R6 = np.zeros((6, 6))
        self.R6[:3, :3] = rot_t
        self.R6[3:, 3:] = rot_t
        self.offset = pin.SE3(offset)
        self.has_offset = not offset.isIdentity(0.0)
        self.plain = self.base_identity and not self.has_offset and nv > 1  # nv = 1: 1-D Jacobians


#: the configuration of a scratch nothing was loaded into: an empty instance that is no chain's
#: configuration, so the first :meth:`Scratch.load` check (``sc.cfg is not chain_cfg``) always loads
UNLOADED: ChainConfig = ChainConfig.__new__(ChainConfig)


class Scratch:
    """One thread's ``pin.Data`` and full configuration buffer (set from ``cfg.q_rest``) for a chain.

    ``cfg`` is the configuration loaded last (:data:`UNLOADED` before the first :meth:`load`).
    """

    __slots__ = ("cfg", "data", "q")

    def __init__(self, model: pin.Model) -> None:
        self.data = model.createData()
        self.q = np.zeros(model.nq)
        self.cfg: ChainConfig = UNLOADED

    def load(self, cfg: ChainConfig) -> None:
        """Take ``cfg`` and reset the configuration buffer to its rest configuration."""
        self.q = cfg.q_rest.copy()
        self.cfg = cfg


class PerThreadScratch(threading.local):
    """``.sc``: the calling thread's :class:`Scratch` (created on its first use in each thread)."""

    def __init__(self, model: pin.Model) -> None:
        self.sc = Scratch(model)
