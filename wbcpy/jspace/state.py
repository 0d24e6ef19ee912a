"""``jspace::State``: a joint-space state (position, velocity, force, time stamp), one value per DOF.

Stanford-WBC passes robot states around as a ``jspace::State``: three vectors and a time stamp. In wbcpy
the vectors are float64 numpy arrays; :class:`~wbcpy.jspace.Model` reads ``position`` and ``velocity``
(``ndof`` values each, see :meth:`wbcpy.RobotModel.q_from_dof` for multi-DOF joints) and keeps
``force`` and ``time`` so that :meth:`~wbcpy.jspace.Model.get_state` returns what was set.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from .._support.validation import as_float, as_int, as_real_array
from ..errors import InvalidValueError

#: :meth:`State.equal` flag: compare positions (Stanford-WBC ``jspace::State::COMPARE_POSITION``)
COMPARE_POSITION = 0x1
#: :meth:`State.equal` flag: compare velocities
COMPARE_VELOCITY = 0x2
#: :meth:`State.equal` flag: compare forces
COMPARE_FORCE = 0x4
#: :meth:`State.equal` flag: compare positions, velocities and forces
COMPARE_ALL = 0x7
_MAX_SIZE = 1 << 24  # a larger state is a mistake (and would allocate gigabytes)


def _as_1d(value: Any, name: str) -> np.ndarray:
    """A new 1-D float64 array (NaN allowed: a State is a container; models validate what they use)."""
    arr = as_real_array(value, name, "(n,)")
    if arr.ndim != 1:
        raise InvalidValueError(name, "(n,)", arr.shape)
    return arr


def _vectors_equal(lhs: np.ndarray, rhs: np.ndarray, precision: float) -> bool:
    """Same size and max |lhs − rhs| ≤ precision (two empty vectors are equal)."""
    if lhs.shape != rhs.shape:
        return False
    if lhs.size == 0:
        return True
    return bool(np.max(np.abs(lhs - rhs)) <= precision)


@dataclass(eq=False)
class State:
    """Joint-space state, one value per DOF (``jspace::State``).

    Attributes:
        position: joint positions (ndof, rad or m; a free-flyer contributes x, y, z and a rotation
            vector, see :meth:`wbcpy.RobotModel.q_from_dof`).
        velocity: joint velocities (ndof, rad/s or m/s; a free-flyer contributes Pinocchio's base
            velocity, linear then angular, in the base frame). An empty vector means zero velocity.
        force: joint forces/torques (any size, N·m or N); stored, never used by the model.
        time: time stamp in seconds, finite (``jspace::State::time_`` was a ``timeval``).

    The constructor copies its arguments into new float64 arrays.
    """

    COMPARE_POSITION: ClassVar[int] = COMPARE_POSITION
    COMPARE_VELOCITY: ClassVar[int] = COMPARE_VELOCITY
    COMPARE_FORCE: ClassVar[int] = COMPARE_FORCE
    COMPARE_ALL: ClassVar[int] = COMPARE_ALL

    position: np.ndarray = field(default_factory=lambda: np.zeros(0))
    velocity: np.ndarray = field(default_factory=lambda: np.zeros(0))
    force: np.ndarray = field(default_factory=lambda: np.zeros(0))
    time: float = 0.0

    def __post_init__(self) -> None:
        self.position = _as_1d(self.position, "position")
        self.velocity = _as_1d(self.velocity, "velocity")
        self.force = _as_1d(self.force, "force")
        self.time = as_float(self.time, "time")  # finite seconds

    @classmethod
    def zeros(cls, npos: int, nvel: int | None = None, nforce: int | None = None) -> State:
        """A state of zeros: ``npos`` positions, ``nvel`` velocities and ``nforce`` forces (default npos)."""
        sizes = [npos, npos if nvel is None else nvel, npos if nforce is None else nforce]
        n0, n1, n2 = (
            as_int(n, name, minimum=0, maximum=_MAX_SIZE)
            for name, n in zip(("npos", "nvel", "nforce"), sizes, strict=True)
        )
        return cls(np.zeros(n0), np.zeros(n1), np.zeros(n2))

    def init(self, npos: int, nvel: int, nforce: int) -> None:
        """Resize every vector and fill it with zeros (``jspace::State::init``); the time is kept."""
        fresh = State.zeros(npos, nvel, nforce)
        self.position, self.velocity, self.force = fresh.position, fresh.velocity, fresh.force

    def copy(self) -> State:
        """A deep copy."""
        return State(self.position, self.velocity, self.force, self.time)

    def equal(self, other: State, flags: int = COMPARE_ALL, precision: float = 1e-6) -> bool:
        """Compare selected vectors of two states (``jspace::State::equal``).

        Args:
            other: the state to compare with.
            flags: bit mask of :data:`COMPARE_POSITION` (1), :data:`COMPARE_VELOCITY` (2) and
                :data:`COMPARE_FORCE` (4); :data:`COMPARE_ALL` (7) by default. The time stamp is never
                compared.
            precision: largest allowed absolute difference per entry.

        Returns:
            True when every selected vector has the same size in both states and
            ``max |self − other| ≤ precision``.
        """
        if not isinstance(other, State):
            raise InvalidValueError("other", "a jspace.State", type(other).__name__)
        flags = as_int(flags, "flags", minimum=0, maximum=COMPARE_ALL)
        precision = as_float(precision, "precision", minimum=0.0)
        if flags & COMPARE_POSITION and not _vectors_equal(self.position, other.position, precision):
            return False
        if flags & COMPARE_VELOCITY and not _vectors_equal(self.velocity, other.velocity, precision):
            return False
        return not (flags & COMPARE_FORCE and not _vectors_equal(self.force, other.force, precision))
