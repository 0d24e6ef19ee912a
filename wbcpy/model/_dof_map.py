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

from .._kernels import normalize_blocks as _normalize_blocks
from ..errors import InvalidValueError

_FF_SUFFIX = ("x", "y", "z", "wx", "wy", "wz")
_PLANAR_SUFFIX = ("x", "y", "theta")


def _quaternion_of_rotation_vector(r: np.ndarray) -> list[float]:
    """Coefficients (x, y, z, w) of the unit quaternion of R = exp₃(r): (sin(θ/2) r/θ, cos(θ/2)), θ = |r|."""
    rx, ry, rz = r.tolist()
    theta = math.hypot(rx, ry, rz)  # no overflow for huge vectors (sqrt of a sum of squares would be inf)
    # sin(θ/2)/θ, with its Taylor series near 0 (error < θ⁴/3840)
    s = math.sin(0.5 * theta) / theta if theta > 1e-4 else 0.5 - theta * theta / 48.0
    return [s * rx, s * ry, s * rz, math.cos(0.5 * theta)]


#: the multi-DOF joints a DOF facade converts, tried in this order: (kind, part of Pinocchio's joint
#: shortname, nq required (None: any), suffixes of the DOF names, unit-norm block of q as (offset from
#: idx_q, length))
_OTHER_JOINTS: tuple[tuple[str, str, int | None, tuple[str, ...], tuple[int, int]], ...] = (
    ("freeflyer", "FreeFlyer", None, _FF_SUFFIX, (3, 4)),
    ("spherical", "Spherical", 4, _FF_SUFFIX[3:], (0, 4)),
    ("planar", "Planar", None, _PLANAR_SUFFIX, (2, 2)),
)


def _other_joint(shortname: str, nq: int, jname: str) -> tuple[str, tuple[str, ...], tuple[int, int]]:
    """(kind, DOF name suffixes, unit block) of a multi-DOF joint from :data:`_OTHER_JOINTS`.

    Raises:
        InvalidValueError: a joint type the DOF facades do not support (composite, mimic...).
    """
    for kind, part, need_nq, suffixes, block in _OTHER_JOINTS:
        if part in shortname and need_nq in (None, nq):
            return kind, suffixes, block
    raise InvalidValueError(  # pragma: no cover - exotic joints are not supported by DOF facades
        "model",
        "supported joint types",
        shortname,
        reason=f"joint {jname!r}: per-DOF conversion of {shortname} is not supported",
    )


def _contiguous_run(sq: np.ndarray, sv: np.ndarray) -> tuple[slice, slice] | None:
    """The 1-DOF joints as one slice of q and one of v, when both index arrays are contiguous runs."""
    if sq.size and np.all(np.diff(sq) == 1) and np.all(np.diff(sv) == 1):
        return slice(int(sq[0]), int(sq[-1]) + 1), slice(int(sv[0]), int(sv[-1]) + 1)
    return None


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
        other_blocks: list[tuple[int, int]] = []  # their unit-norm blocks of q: (start, length)
        names: list[str] = []
        lower = np.full(model.nv, -np.inf)
        upper = np.full(model.nv, np.inf)
        for jid in range(1, model.njoints):
            joint = model.joints[jid]
            jname = model.names[jid]
            iq, iv, nq, nv = joint.idx_q, joint.idx_v, joint.nq, joint.nv
            if nv == 0:
                continue
            if nq == nv and (nq == 1 or "Composite" in joint.shortname()):
                # (a composite of 1-DOF joints, e.g. an MJCF body with several hinges: q = one value per
                # DOF, named <composite>:<k>)
                for k in range(nq):
                    simple_q.append(iq + k)
                    simple_v.append(iv + k)
                    names.append(jname if nq == 1 else f"{jname}:{k}")
                    lo, hi = model.lowerPositionLimit[iq + k], model.upperPositionLimit[iq + k]
                    lower[iv + k] = lo if lo > -1e300 else -np.inf
                    upper[iv + k] = hi if hi < 1e300 else np.inf
            elif nq == 2 and nv == 1:
                self._cont_q.append(iq)
                self._cont_v.append(iv)
                names.append(jname)
            else:
                kind, suffixes, (offset, length) = _other_joint(joint.shortname(), nq, jname)
                self._other.append((kind, iq, iv))
                other_blocks.append((iq + offset, length))
                names.extend(f"{jname}:{s}" for s in suffixes)
        self.nq, self.nv = model.nq, model.nv
        self._sq = np.array(simple_q, dtype=np.intp)
        self._sv = np.array(simple_v, dtype=np.intp)
        self._cq = np.array(self._cont_q, dtype=np.intp)
        self._cv = np.array(self._cont_v, dtype=np.intp)
        # the 1-DOF joints usually form one contiguous run in q and in v: copy it as a slice
        self._simple_run = _contiguous_run(self._sq, self._sv)
        # unit-norm blocks of q: (start, length)
        self._unit_blocks = [(int(iq), 2) for iq in self._cont_q] + other_blocks
        self._unit_array = np.array(self._unit_blocks, dtype=np.intp).reshape(-1, 2)
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
        """Renormalise unit blocks of q (tolerance 1e-6) or raise :class:`InvalidValueError` (q unchanged);
        one compiled pass (q: a contiguous float64 array of size nq)."""
        if not self._unit_blocks:
            return
        bad = _normalize_blocks(q, self._unit_array, 1e-6)
        if bad is not None:
            start, length, norm = bad
            raise InvalidValueError(
                "q",
                (self.nq,),
                q.shape,
                reason=f"entries {start}..{start + length - 1} must have unit norm (got {norm:.6g}); "
                "use q_from_dof() or pinocchio.integrate to build q",
            )
