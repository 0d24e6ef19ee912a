"""Per-DOF values ↔ Pinocchio configuration q, for every joint type.

"DOF" facades (jspace, arl, iKin) speak of one value per degree of freedom (nv values). Pinocchio's q has
nq ≥ nv entries: a continuous joint stores (cos θ, sin θ), a free-flyer stores (x, y, z, qx, qy, qz, qw),
a spherical joint a quaternion, a planar joint (x, y, cos θ, sin θ). :class:`DofMap` converts both ways
with vectorised index arrays for the common 1-DOF joints and a short loop over the rare others.
"""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin

from .errors import InvalidValueError

__all__ = ["DofMap"]

_FF_SUFFIX = ("x", "y", "z", "wx", "wy", "wz")
_PLANAR_SUFFIX = ("x", "y", "theta")


def _quaternion_of_rotation_vector(r: np.ndarray) -> list[float]:
    """Coefficients (x, y, z, w) of the unit quaternion of R = exp₃(r): (sin(θ/2) r/θ, cos(θ/2)), θ = |r|."""
    rx, ry, rz = r.tolist()
    theta = math.hypot(rx, ry, rz)  # no overflow for huge vectors (sqrt of a sum of squares would be inf)
    # sin(θ/2)/θ, with its Taylor series near 0 (error < θ⁴/3840)
    s = math.sin(0.5 * theta) / theta if theta > 1e-4 else 0.5 - theta * theta / 48.0
    return [s * rx, s * ry, s * rz, math.cos(0.5 * theta)]


class DofMap:
    """Index bookkeeping between per-DOF vectors (nv) and configurations (nq) of one ``pin.Model``.

    Attributes:
        dof_names: one name per DOF.
        lower, upper: per-DOF position limits (±inf where the joint is unbounded).
    """

    def __init__(self, model: pin.Model) -> None:
        simple_q: list[int] = []
        simple_v: list[int] = []
        self._cont_q: list[int] = []
        self._cont_v: list[int] = []
        self._other: list[tuple[str, int, int]] = []  # (kind, idx_q, idx_v)
        names: list[str] = []
        lower = np.full(model.nv, -np.inf)
        upper = np.full(model.nv, np.inf)
        for jid in range(1, model.njoints):
            joint = model.joints[jid]
            jname = model.names[jid]
            iq, iv, nq, nv = joint.idx_q, joint.idx_v, joint.nq, joint.nv
            kind = joint.shortname()
            if nv == 0:
                continue
            if nq == nv == 1:
                simple_q.append(iq)
                simple_v.append(iv)
                names.append(jname)
                lo, hi = model.lowerPositionLimit[iq], model.upperPositionLimit[iq]
                lower[iv] = lo if lo > -1e300 else -np.inf
                upper[iv] = hi if hi < 1e300 else np.inf
            elif nq == 2 and nv == 1:
                self._cont_q.append(iq)
                self._cont_v.append(iv)
                names.append(jname)
            elif "FreeFlyer" in kind:
                self._other.append(("freeflyer", iq, iv))
                names.extend(f"{jname}:{s}" for s in _FF_SUFFIX)
            elif "Spherical" in kind and nq == 4:
                self._other.append(("spherical", iq, iv))
                names.extend(f"{jname}:{s}" for s in _FF_SUFFIX[3:])
            elif "Planar" in kind:
                self._other.append(("planar", iq, iv))
                names.extend(f"{jname}:{s}" for s in _PLANAR_SUFFIX)
            else:  # pragma: no cover - exotic joints (composite, mimic...) are not supported by DOF facades
                raise InvalidValueError(
                    "model",
                    "supported joint types",
                    kind,
                    reason=f"joint {jname!r}: per-DOF conversion of {kind} is not supported",
                )
        self.nq, self.nv = model.nq, model.nv
        self._sq = np.array(simple_q, dtype=np.intp)
        self._sv = np.array(simple_v, dtype=np.intp)
        self._cq = np.array(self._cont_q, dtype=np.intp)
        self._cv = np.array(self._cont_v, dtype=np.intp)
        # the 1-DOF joints usually form one contiguous run in q and in v: copy it as a slice
        self._simple_run: tuple[slice, slice] | None = None
        if self._sq.size and np.all(np.diff(self._sq) == 1) and np.all(np.diff(self._sv) == 1):
            self._simple_run = (
                slice(int(self._sq[0]), int(self._sq[-1]) + 1),
                slice(int(self._sv[0]), int(self._sv[-1]) + 1),
            )
        # unit-norm blocks of q: (start, length)
        self._unit_blocks = [(int(iq), 2) for iq in self._cont_q]
        for kind, iq, _ in self._other:
            if kind in ("freeflyer",):
                self._unit_blocks.append((iq + 3, 4))
            elif kind == "spherical":
                self._unit_blocks.append((iq, 4))
            else:
                self._unit_blocks.append((iq + 2, 2))
        self.dof_names = names
        self.lower, self.upper = lower, upper

    def q_from_dof(self, dof: np.ndarray) -> np.ndarray:
        """Configuration q (nq) from per-DOF values (nv)."""
        q = np.empty(self.nq)
        if self._simple_run is not None:
            q[self._simple_run[0]] = dof[self._simple_run[1]]
        else:
            q[self._sq] = dof[self._sv]
        if self._cq.size:
            theta = dof[self._cv]
            q[self._cq] = np.cos(theta)
            q[self._cq + 1] = np.sin(theta)
        for kind, iq, iv in self._other:
            if kind == "freeflyer":
                q[iq : iq + 3] = dof[iv : iv + 3]
                q[iq + 3 : iq + 7] = _quaternion_of_rotation_vector(dof[iv + 3 : iv + 6])
            elif kind == "spherical":
                q[iq : iq + 4] = _quaternion_of_rotation_vector(dof[iv : iv + 3])
            else:
                q[iq : iq + 2] = dof[iv : iv + 2]
                q[iq + 2], q[iq + 3] = np.cos(dof[iv + 2]), np.sin(dof[iv + 2])
        return q

    def dof_from_q(self, q: np.ndarray) -> np.ndarray:
        """Per-DOF values (nv) from a configuration q (nq); angles of continuous joints in (−π, π]."""
        dof = np.empty(self.nv)
        dof[self._sv] = q[self._sq]
        if self._cq.size:
            dof[self._cv] = np.arctan2(q[self._cq + 1], q[self._cq])
        for kind, iq, iv in self._other:
            if kind == "freeflyer":
                dof[iv : iv + 3] = q[iq : iq + 3]
                dof[iv + 3 : iv + 6] = pin.log3(pin.Quaternion(q[iq + 3 : iq + 7]).normalized().matrix())
            elif kind == "spherical":
                dof[iv : iv + 3] = pin.log3(pin.Quaternion(q[iq : iq + 4]).normalized().matrix())
            else:
                dof[iv : iv + 2] = q[iq : iq + 2]
                dof[iv + 2] = np.arctan2(q[iq + 3], q[iq + 2])
        return dof

    def normalize_in_place(self, q: np.ndarray) -> None:
        """Renormalise unit blocks of q (tolerance 1e-6) or raise :class:`InvalidValueError`."""
        for start, length in self._unit_blocks:
            block = q[start : start + length]
            norm = float(np.sqrt(block @ block))
            if abs(norm - 1.0) > 1e-6:
                raise InvalidValueError(
                    "q",
                    (self.nq,),
                    q.shape,
                    reason=f"entries {start}..{start + length - 1} must have unit norm (got {norm:.6g}); "
                    "use q_from_dof() or pinocchio.integrate to build q",
                )
            block /= norm
