"""The log of a walk (:func:`~wbcpy.locomotion.walk`): its arrays and how a walk fills them.

The log file (``log=...``, NumPy ``.npz``; the keys of specs/walking.md): ``t`` (K,), ``q`` (K, nq),
``v`` (K, nv) — the measured state the controller saw at step k —, ``tau`` (K, nv − 6) sent to the
plant, ``contact_frames`` (C,), ``contact_parents`` (C,) and ``contact_placements`` (C, 4, 4): each
contact frame's parent frame and its placement there (the frame itself and the identity when the URDF
has it; a sole frame added to the model hangs under its foot frame), ``active`` (K, C) the plant's rigid
contacts during the step, ``wrenches`` (K, C, 6) the plant's contact wrenches during the step (zero when
inactive; contact axes, about the frame origin, force over torque), ``com`` (K, 3), ``mu``,
``half_size`` (2,), ``dt``, ``footsteps`` (S, 4): side (0 left, 1 right), x, y, yaw of every footstep
taken; ``contact_damping``, the rigid plant's Baumgarte velocity gain (1/s,
:data:`~wbcpy.locomotion.walk.CONTACT_DAMPING`; 0 for another plant) that a replay with
``pin.constraintDynamics`` needs; ``plant``, the plant's name, and ``contact_options``, its contact
options as a JSON text; ``locked_joints`` (L,) and ``locked_positions`` (L,): the URDF joints locked
because they move no inertia, and where (:mod:`~wbcpy.locomotion.walking_robot`; q and v are those of
the model without them); ``planned_wrenches`` (K, C, 6): the controller's planned contact wrenches at
step k (zero for a sole outside its contact set); ``degraded`` (K,): the steps whose answer was degraded
(:mod:`~wbcpy.locomotion.fallback`). The rigid plant's ``active`` are the contacts it held rigid,
another plant's the soles that carried a contact force in the step.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigError
from ..sim.plant import Plant
from ._walk_inputs import check_log_path
from .controller import WalkingController
from .feet import MU, Feet


@dataclass
class WalkLog:
    """The arrays of the log file (see the module docstring); ``save`` writes them.

    Plain data: ``copy.copy`` shares the arrays, ``copy.deepcopy`` and pickles copy them; threads may
    read a log that no one changes.
    """

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    tau: np.ndarray
    active: np.ndarray
    wrenches: np.ndarray
    com: np.ndarray
    contact_frames: np.ndarray
    footsteps: np.ndarray
    mu: float = MU
    half_size: np.ndarray = field(default_factory=lambda: np.zeros(2))
    dt: float = 0.002
    contact_damping: float = 0.0
    plant: str = "pinocchio"
    contact_options: str = "{}"
    contact_parents: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=str))
    contact_placements: np.ndarray = field(default_factory=lambda: np.zeros((0, 4, 4)))
    locked_joints: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=str))
    locked_positions: np.ndarray = field(default_factory=lambda: np.zeros(0))
    planned_wrenches: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 6)))
    degraded: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))

    def save(self, path: str | Path) -> Path:
        """Write the log as an ``.npz`` file (the keys of the module docstring; ``.npz`` is appended when
        the name lacks it); returns the path written.

        Raises:
            ConfigError: (``path``) a folder, a missing folder, or a file that cannot be written.
        """
        out = check_log_path(path, "path")
        arrays: dict[str, Any] = {k: np.asarray(getattr(self, k)) for k in self.__dataclass_fields__}
        try:
            np.savez_compressed(out, **arrays)
        except OSError as exc:
            raise ConfigError("path", f"cannot write {str(out)!r} ({exc.strerror or exc})") from None
        return out


class LogRecorder:
    """The log of a walk filled step by step (:func:`~wbcpy.locomotion.walk`'s loop): arrays of K steps,
    :meth:`record` writes step k, :meth:`log` returns the :class:`WalkLog` of the steps recorded."""

    def __init__(self, K: int, nq: int, nv: int, feet: Feet) -> None:
        self.t, self.q, self.v = np.zeros(K), np.zeros((K, nq)), np.zeros((K, nv))
        self.tau, self.com = np.zeros((K, nv - 6)), np.zeros((K, 3))
        frames = feet.frames
        self.active = np.zeros((K, len(frames)), dtype=bool)
        self.wrenches = np.zeros((K, len(frames), 6))
        self.planned = np.zeros((K, len(frames), 6))
        self.degraded = np.zeros(K, dtype=bool)
        self.frames, self.feet = frames, feet
        self.k = 0

    def record(self, t: float, q: np.ndarray, v: np.ndarray, com: np.ndarray, tau: np.ndarray, plant: Plant,
               wrenches: dict[str, np.ndarray], ctrl: WalkingController, degraded: bool) -> None:  # fmt: skip
        k = self.k
        self.t[k], self.q[k], self.v[k], self.com[k], self.tau[k] = t, q, v, com, tau
        active = plant.active_contacts()
        planned = ctrl.scene.get_contact_wrenches()
        for i, f in enumerate(self.frames):
            if f in active:
                self.active[k, i] = True
                self.wrenches[k, i] = wrenches[f]
            if f in planned:
                self.planned[k, i] = planned[f]
        self.degraded[k] = degraded
        self.k += 1

    def log(self, steps: np.ndarray, dt: float, plant: Plant, locked: dict[str, float], damping: float
            ) -> WalkLog:  # fmt: skip
        """The :class:`WalkLog` of the steps recorded: footsteps ``steps`` (S, 4), control step ``dt`` (s),
        the plant, the locked joints' positions, the plant's contact damping (1/s)."""
        k, feet = self.k, self.feet.log_arrays()
        options = json.dumps(plant.contact_options, default=str)
        return WalkLog(
            self.t[:k], self.q[:k], self.v[:k], self.tau[:k], self.active[:k], self.wrenches[:k],
            self.com[:k], feet["contact_frames"], steps, self.feet.mu, feet["half_size"], dt, damping,
            str(plant.name), options, feet["contact_parents"], feet["contact_placements"],
            np.array(list(locked), dtype=str), np.array(list(locked.values()), dtype=float),
            self.planned[:k], self.degraded[:k],
        )  # fmt: skip
