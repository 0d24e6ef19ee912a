"""Known external wrenches on the robot: a carried load, a force sensor's reading, a measured push.

A wrench ``w_e = (f, τ)`` (6 entries: force in N over torque in N·m) acts at a frame, expressed in that
frame's own axes about its origin, and is exerted *on* the robot — the convention of the contact wrenches
(:mod:`wbcpy.contacts.contacts`). It enters the equations of motion as the generalised force

.. math::

    M \\ddot q + h = S^T τ + \\sum_c J_c^T w_c + \\sum_e J_e^T w_e ,

with J_e the frame's Jacobian in its own axes (``pin.LOCAL``, linear over angular rows): J_eᵀ w_e is the
power-conjugate of the frame's twist, so the wrench does the work ``w_eᵀ J_e q̇``. A 40 N load hanging
from a hand whose frame has the rotation R (world ← frame) is ``w = (Rᵀ (0, 0, −40), 0)``.

:class:`ExternalWrenches` holds the wrenches of one robot (validated on entry) and sums their generalised
force for the state a ``pin.Data`` holds.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pinocchio as pin
from numpy.typing import NDArray

from .._support.validation import as_vector
from ..errors import ConfigError

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel

_LOCAL = pin.ReferenceFrame.LOCAL


class ExternalWrenches:
    """The known external wrenches on one robot, by frame (see the module docstring).

    **Copies, pickles, threads.** ``copy.copy`` shares the robot and copies the wrenches, ``copy.deepcopy``
    and pickles copy the robot too (as its own contract says): independent objects. Any number of threads
    may use one object: a change publishes the new set of wrenches at once (readers see the old set or the
    new one, whole), and changes are serialised (none is lost).

    Attributes:
        robot: the robot whose frames the wrenches act at.
    """

    def __init__(self, robot: RobotModel) -> None:
        self.robot = robot
        #: {frame: (frame id, wrench)}, never changed in place: a change publishes a new dict (read-only
        #: arrays), so that a reader iterating over it sees one set
        self._wrenches: dict[str, tuple[int, NDArray[np.float64]]] = {}
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def __copy__(self) -> ExternalWrenches:
        new = ExternalWrenches(self.robot)
        new._wrenches = self._wrenches  # (never changed in place: sharing the dict is a copy)
        return new

    def set(self, frame: str, wrench: Any) -> None:
        """Set the wrench on ``frame`` (replaces a previous one on that frame).

        Args:
            frame: a frame name of the robot.
            wrench: 6 numbers, force (N) over torque (N·m), frame axes, about its origin, on the robot.

        Raises:
            UnknownNameError: an unknown frame (a KeyError listing close names).
            InvalidValueError: not 6 finite numbers. Nothing changes on error.
        """
        fid = self.robot.frame_id(frame)
        w = as_vector(wrench, 6, "wrench")
        w.setflags(write=False)
        self._publish({self.robot.frame_names[fid]: (fid, w)})

    def _publish(self, changes: dict[str, tuple[int, NDArray[np.float64]]], clear: bool = False) -> None:
        """The wrenches with ``changes`` applied (after removing all when ``clear``), as a new dict."""
        with self._lock:
            self._wrenches = {**({} if clear else self._wrenches), **changes}

    def update(self, wrenches: Mapping[str, Any]) -> None:
        """Set several wrenches ``{frame: wrench}`` at once (all are checked before any is set).

        Raises:
            ConfigError: not a mapping; UnknownNameError, InvalidValueError: as :meth:`set`.
        """
        if not isinstance(wrenches, Mapping):
            raise ConfigError(
                "external_wrenches", f"expected a mapping {{frame: wrench}}, got {type(wrenches).__name__}"
            )
        staged = ExternalWrenches(self.robot)
        for frame, wrench in wrenches.items():
            staged.set(frame, wrench)
        self._publish(staged._wrenches)

    def clear(self) -> None:
        """Remove every wrench."""
        self._publish({}, clear=True)

    def __len__(self) -> int:
        return len(self._wrenches)

    def as_dict(self) -> dict[str, NDArray[np.float64]]:
        """``{frame: wrench}`` (new arrays)."""
        return {name: w.copy() for name, (_, w) in self._wrenches.items()}

    def generalized_force(self, model: pin.Model, data: pin.Data) -> NDArray[np.float64]:
        """Σ_e J_eᵀ w_e (nv, N·m or N) for the state whose joint placements and joint Jacobians ``data``
        holds (``computeJointJacobians``, or ``computeAllTerms``); zero without wrenches."""
        out = np.zeros(model.nv)
        for fid, w in self._wrenches.values():
            J = pin.getFrameJacobian(model, data, fid, _LOCAL)
            if J.ndim == 1:  # (the bindings give a 6-vector when nv = 1)
                J = J[:, None]
            out += J.T @ w
        return out

    def __repr__(self) -> str:
        return f"ExternalWrenches(frames={list(self._wrenches)})"
