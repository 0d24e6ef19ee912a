"""RobotModel: one Pinocchio model and data, a state, and cached kinematics and dynamics.

Every facade of wbcpy (jspace, arl, AccelerationScene, iKin controller) holds a reference to one
:class:`RobotModel`. It owns the only ``pin.Model`` and ``pin.Data`` of the robot, validates states, and
computes each derived quantity at most once per state:

* ``update(q, v, a)`` stores a new state and bumps :attr:`RobotModel.state_id`;
* a getter (frame placement, Jacobian, M, M⁻¹, g, b, COM, ...) computes its Pinocchio algorithm on first
  use for that state and returns a new array afterwards from the cache;
* a getter used before any state was set raises :class:`~wbcpy.errors.StateNotSetError`.

Conventions: SI units; Jacobians are 6×nv, linear rows over angular rows, expressed in world axes at the
frame origin (``pin.LOCAL_WORLD_ALIGNED``); the bias ``J̇q̇`` is the classical acceleration of the frame
origin with q̈ = 0 in the same axes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pinocchio as pin

from ._dof_map import DofMap
from ._pin_bindings import probe_bindings
from ._robot_names import RobotNamesMixin
from ._robot_views import RobotViewsMixin
from ._urdf import load_urdf_model
from ._validation import as_vector, check_finite
from .errors import StateNotSetError
from .srdf import load_reference_configurations, reference_configuration, reference_configuration_names
from .urdf_physics import PhysicsMode

if TYPE_CHECKING:
    from .chain import Chain

__all__ = ["RobotModel"]

_LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
_F64 = np.dtype(np.float64)
#: up to this nv, M⁻¹ from the Cholesky factors of an already computed M beats ``computeMinverse``
#: (measured with pin 4.1 after computeAllTerms: PUMA 3.6 vs 4.2 µs, Baxter nv=19 11.0 vs 12.1 µs; Talos
#: nv=38 30.7 vs 24.2 µs, iCub nv=35 28 vs 22 µs)
_CHOLESKY_MINV_MAX_NV = 24


def _state_vector(x: Any, n: int, name: str) -> np.ndarray:
    """:func:`as_vector` with a fast path for float64 arrays of the right size (hot path of update)."""
    if x.__class__ is np.ndarray and x.shape == (n,) and x.dtype is _F64:
        out = x.copy()
        if not math.isfinite(out.dot(out)):  # NaN/inf (or overflow, then checked exactly)
            check_finite(out, name)
        return out
    return as_vector(x, n, name)


class RobotModel(RobotNamesMixin, RobotViewsMixin):
    """A robot: one ``pin.Model``, one ``pin.Data``, a validated state and per-state caches.

    Names, sizes, limits and per-DOF conversions come from :class:`~wbcpy._robot_names.RobotNamesMixin`;
    the no-copy ``*_view`` accessors from :class:`~wbcpy._robot_views.RobotViewsMixin`.

    Attributes:
        model: the Pinocchio model (shared, never copied).
        name: robot name (from the URDF unless given).
        source: the path the model was loaded from, or ``"<xml>"``.
        urdf_path: the URDF file (absolute) of :meth:`from_urdf`, or None.
        urdf_text: the URDF XML when it was given as a string to :meth:`from_urdf`, else None.
        package_dirs: folders for ``package://`` URIs (geometry loading).
        srdf_path: the SRDF of the reference configurations, or None.
    """

    urdf_path: Path | None = None
    urdf_text: str | None = None
    package_dirs: Sequence[str] = ()
    srdf_path: Path | None = None

    def __init__(self, model: pin.Model, name: str | None = None, source: str = "<model>") -> None:
        """Wrap an existing Pinocchio model (for example a reduced model with locked joints)."""
        self.model = model
        self._data = model.createData()
        self.name = name or model.name or "robot"
        self.source = source
        self._dofs = DofMap(model)
        nv = model.nv
        self._zero_v = np.zeros(nv)
        self._lower_tri = np.tri(nv, nv, -1, dtype=bool)
        self._frame_index = {model.frames[i].name: i for i in range(len(model.frames))}
        self._joint_index = {model.names[i]: i for i in range(1, model.njoints)}
        self.total_mass: float = float(pin.computeTotalMass(model))
        # state and per-state cache stamps (-1 = never computed)
        self._q: np.ndarray | None = None
        self._v = np.zeros(nv)
        self._a: np.ndarray | None = None
        self.state_id = 0
        self._kin_id = self._jac_id = self._dyn_id = self._minv_id = self._cbias_id = -1
        self._frames_id = self._com_id = -1
        self._n_frames = len(model.frames)
        self._jac_cache: dict[int, np.ndarray] = {}
        self._bias_cache: dict[int, np.ndarray] = {}
        self._M = np.zeros((nv, nv))
        self._Minv = np.zeros((nv, nv))
        self._minv_fresh: np.ndarray | None = None
        self._probe_bindings()
        # numpy views of pin.Data results, taken once (each attribute access costs a new wrapper); they
        # stay valid because self._data is never replaced (``data`` is a read-only property)
        data = self._data
        self._view_g, self._view_nle = data.g, data.nle
        # data.M is column-major; when the bindings give it full and symmetric, its transpose is the same
        # matrix with a row-major layout, so copies are plain memory copies
        self._src_M = self._M if self._fill_M else data.M.T
        self._src_Minv = self._Minv if self._fill_Minv else data.Minv

    @property
    def data(self) -> pin.Data:
        """The Pinocchio data that holds the current state's results (read-only attribute)."""
        return self._data

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_urdf(
        cls,
        source: str | Path,
        floating_base: bool = False,
        package_dirs: Sequence[str | Path] | None = None,
        gravity: Sequence[float] = (0.0, 0.0, -9.81),
        name: str | None = None,
        srdf: str | Path | None = None,
        check_physics: PhysicsMode = True,
    ) -> RobotModel:
        """Load a URDF given as a file path or as an XML string.

        Args:
            source: path to a ``.urdf`` file, or the URDF XML itself (a string containing ``<robot``).
            floating_base: add Pinocchio's free-flyer as the first joint (nq += 7, nv += 6).
            package_dirs: folders for ``package://`` URIs; kept for geometry loading, unused by the
                kinematic/dynamic model.
            gravity: gravity vector in m/s², world frame.
            name: robot name; default the URDF's ``name`` attribute.
            srdf: SRDF file whose ``group_state`` postures become reference configurations
                (:meth:`reference_configuration`).
            check_physics: True: raise on physically invalid masses, inertias, axes or limits; "warn";
                False; or the names of the checks to run (see :mod:`wbcpy.urdf_physics`).

        Raises:
            URDFNotFoundError: the path does not exist (also a ``FileNotFoundError``).
            URDFError: unreadable file, malformed XML or URDF (element, attribute, value and line named),
                physically invalid model, or a model beyond the size guards (:mod:`wbcpy.urdf_checks`).
            SRDFError: the SRDF is missing, malformed or does not fit the model.
            InvalidValueError: a non-finite or wrongly sized gravity vector.
        """
        model, src = load_urdf_model(source, floating_base, gravity, check_physics)
        srdf_path = None if srdf is None else load_reference_configurations(model, srdf)
        robot = cls(model, name=name, source=src.label)
        robot.urdf_path, robot.urdf_text = src.path, (src.text if src.path is None else None)
        robot.package_dirs = [str(p) for p in (package_dirs or [])]
        robot.srdf_path = srdf_path
        return robot

    def reference_configuration(self, name: str) -> np.ndarray:
        """A named posture of the SRDF (``half_sitting``, ``standing``...) as a configuration (nq).

        Raises:
            UnknownNameError: no such posture (the message lists the known ones, or says there is no SRDF).
        """
        return reference_configuration(self.model, name, self.srdf_path)

    def reference_configuration_names(self) -> list[str]:
        """Names of the SRDF postures of this robot (empty without an SRDF)."""
        return reference_configuration_names(self.model)

    def chain(self, base: str, tip: str, name: str | None = None, **kwargs: Any) -> Chain:
        """Return a serial :class:`~wbcpy.chain.Chain` view from frame ``base`` to frame ``tip``."""
        from .chain import Chain

        return Chain(self, base, tip, name=name, **kwargs)

    # ------------------------------------------------------------------ state
    def update(self, q: Any, v: Any = None, a: Any = None) -> None:
        """Set the state and invalidate every cached quantity.

        Args:
            q: configuration (nq). Unit-norm blocks (quaternions, cos/sin pairs) must have norm 1 ± 1e-6;
                they are renormalised exactly.
            v: velocity (nv), zero when omitted.
            a: measured acceleration (nv), optional; used by task status (``y``), never by the dynamics.

        Raises:
            InvalidValueError: wrong size, NaN/inf, or a non-unit quaternion / cos-sin pair. The previous
                state stays in place.
        """
        qa = _state_vector(q, self.model.nq, "q")
        self._dofs.normalize_in_place(qa)
        va = self._zero_v.copy() if v is None else _state_vector(v, self.model.nv, "v")
        aa = None if a is None else _state_vector(a, self.model.nv, "a")
        self._set_state(qa, va, aa)

    def update_dof(self, angles: Any, velocity: Any = None, acceleration: Any = None) -> None:
        """:meth:`update` from one value per DOF (see :meth:`q_from_dof`)."""
        qa = self.q_from_dof(angles)  # validated; unit blocks are exact by construction
        va = self._zero_v.copy() if velocity is None else as_vector(velocity, self.model.nv, "velocity")
        aa = None if acceleration is None else as_vector(acceleration, self.model.nv, "acceleration")
        self._set_state(qa, va, aa)

    def _set_state(self, q: np.ndarray, v: np.ndarray, a: np.ndarray | None = None) -> None:
        """Store an already validated state and invalidate every cache (internal fast path).

        The arrays are kept as they are: callers hand over fresh, finite arrays of the right sizes with
        unit-norm blocks of q normalised (facades validate once and call this).
        """
        self._q, self._v, self._a = q, v, a
        self.state_id += 1
        self._jac_cache.clear()
        self._bias_cache.clear()

    @property
    def has_state(self) -> bool:
        """True once a state was set."""
        return self._q is not None

    @property
    def q(self) -> np.ndarray:
        """Current configuration (copy)."""
        return self._require_state("q").copy()

    @property
    def v(self) -> np.ndarray:
        """Current velocity (copy)."""
        self._require_state("v")
        return self._v.copy()

    @property
    def a(self) -> np.ndarray | None:
        """Measured acceleration given to the last :meth:`update`, or None."""
        self._require_state("a")
        return None if self._a is None else self._a.copy()

    def _require_state(self, quantity: str) -> np.ndarray:
        if self._q is None:
            raise StateNotSetError(quantity)
        return self._q

    # ------------------------------------------------------------------ lazy computations
    def _ensure_motion(self, quantity: str) -> None:
        """Joint placements, velocities and q̈ = 0 accelerations: ``forwardKinematics(q, v, 0)``."""
        if self._kin_id != self.state_id:
            q = self._require_state(quantity)
            pin.forwardKinematics(self.model, self._data, q, self._v, self._zero_v)
            self._kin_id = self.state_id

    def _ensure_kinematics(self, quantity: str) -> None:
        """Placements, velocities and q̈ = 0 accelerations of joints and frames for the current state."""
        if self._frames_id == self.state_id:
            return
        self._ensure_motion(quantity)
        pin.updateFramePlacements(self.model, self._data)
        self._frames_id = self.state_id

    def _ensure_jacobians(self, quantity: str) -> None:
        """Joint Jacobians; reuses the joint placements when forward kinematics already ran."""
        if self._jac_id != self.state_id:
            if self._kin_id == self.state_id:
                pin.computeJointJacobians(self.model, self._data)  # no second placement pass
            else:
                pin.computeJointJacobians(self.model, self._data, self._require_state(quantity))
            self._jac_id = self.state_id

    def _ensure_com(self, quantity: str) -> None:
        """COM position, velocity, q̈ = 0 acceleration and Jacobian without the dynamics (no M, no RNEA).

        ``forwardKinematics(q, v, 0)`` + ``computeJointJacobians`` (both shared with the frame
        quantities), then ``centerOfMass`` at acceleration level and ``jacobianCenterOfMass`` on that
        data: the same values as ``computeAllTerms`` + ``centerOfMass(q, v, 0)``, at a fraction of the cost.
        """
        if self._com_id == self.state_id:
            return
        self._ensure_motion(quantity)
        self._ensure_jacobians(quantity)
        model, data = self.model, self._data
        pin.centerOfMass(model, data, pin.KinematicLevel.ACCELERATION, True)
        pin.jacobianCenterOfMass(model, data, False)
        self._com_bias = data.acom[0].copy()
        self._com_id = self._cbias_id = self.state_id

    def _ensure_dynamics(self, quantity: str) -> None:
        """M (upper), nle, g, joint Jacobians, COM and COM Jacobian in one ``computeAllTerms`` pass."""
        if self._dyn_id == self.state_id:
            return
        q = self._q
        if q is None:
            raise StateNotSetError(quantity)
        pin.computeAllTerms(self.model, self._data, q, self._v)
        if self._fill_M:
            np.copyto(self._M, self._data.M)
            np.copyto(self._M, self._M.T, where=self._lower_tri)
        self._dyn_id = self._jac_id = self._kin_id = self.state_id

    def _ensure_minverse(self, quantity: str) -> None:
        """M⁻¹ (full matrix in ``self._Minv`` or data): from the Cholesky factors of M when M was computed
        for this state, else by Pinocchio's ABA-based ``computeMinverse``."""
        if self._minv_id == self.state_id:
            return
        q = self._q
        if q is None:
            raise StateNotSetError(quantity)
        if self._dyn_id == self.state_id and self.model.nv <= _CHOLESKY_MINV_MAX_NV:
            # M is already there: for small robots M⁻¹ from its LDLᵀ factors is cheaper than an ABA pass
            pin.cholesky.decompose(self.model, self._data)
            fresh = pin.cholesky.computeMinv(self.model, self._data)
            returns_copy = self._chol_returns_copy
        else:
            fresh = pin.computeMinverse(self.model, self._data, q)
            returns_copy = self._minv_returns_copy
        if self._fill_Minv:
            np.copyto(self._Minv, self._data.Minv)
            np.copyto(self._Minv, self._Minv.T, where=self._lower_tri)
        # the bindings return M⁻¹ as a new array: the first reader for this state gets it without a copy
        self._minv_fresh = fresh if returns_copy else None
        self._minv_id = self.state_id

    def _probe_bindings(self) -> None:
        """Check once, on a scratch ``pin.Data``, what the Python bindings of Pinocchio return (see
        :mod:`wbcpy._pin_bindings`): whether M and M⁻¹ must be mirrored, whether M⁻¹ comes as a new array."""
        probe = probe_bindings(self.model)
        self._fill_M, self._fill_Minv = probe.fill_M, probe.fill_Minv
        self._chol_returns_copy = probe.chol_returns_copy
        self._minv_returns_copy = probe.minv_returns_copy

    # ------------------------------------------------------------------ kinematics
    def frame_placement(self, frame: str | int) -> pin.SE3:
        """World placement ``oMf`` of a frame (a new ``pin.SE3``)."""
        fid = self.frame_id(frame)
        self._ensure_kinematics("frame placement")
        return pin.SE3(self._data.oMf[fid])

    def frame_velocity(self, frame: str | int) -> np.ndarray:
        """Spatial velocity (v, ω) of a frame origin in world axes (6, m/s over rad/s)."""
        fid = self.frame_id(frame)
        self._ensure_kinematics("frame velocity")
        return pin.getFrameVelocity(self.model, self._data, fid, _LWA).vector.copy()

    def frame_jacobian(self, frame: str | int) -> np.ndarray:
        """Frame Jacobian (6×nv), linear over angular rows, world axes at the frame origin."""
        return self._frame_jacobian(self.frame_id(frame)).copy()

    def _frame_jacobian(self, fid: int) -> np.ndarray:
        """Cached frame Jacobian; callers must not modify the returned array."""
        jac = self._jac_cache.get(fid)
        if jac is None:
            self._ensure_jacobians("frame Jacobian")
            jac = pin.getFrameJacobian(self.model, self._data, fid, _LWA)
            self._jac_cache[fid] = jac
        return jac

    def frame_bias(self, frame: str | int) -> np.ndarray:
        """Classical acceleration of the frame origin at q̈ = 0: ``J̇ q̇`` (6, world axes)."""
        return self._frame_bias(self.frame_id(frame)).copy()

    def _frame_bias(self, fid: int) -> np.ndarray:
        bias = self._bias_cache.get(fid)
        if bias is None:
            if self._kin_id != self.state_id:
                self._ensure_motion("frame bias")  # frame placements are not needed
            bias = pin.getFrameClassicalAcceleration(self.model, self._data, fid, _LWA).vector.copy()
            self._bias_cache[fid] = bias
        return bias

    # ------------------------------------------------------------------ dynamics
    def mass_matrix(self) -> np.ndarray:
        """Joint-space inertia matrix M(q) (nv×nv, full and symmetric)."""
        if self._dyn_id != self.state_id:
            self._ensure_dynamics("mass matrix")
        return self._src_M.copy()

    def inverse_mass_matrix(self) -> np.ndarray:
        """M(q)⁻¹ (nv×nv, full and symmetric), by Pinocchio's ABA-based ``computeMinverse``."""
        if self._minv_id != self.state_id:
            self._ensure_minverse("inverse mass matrix")
        fresh = self._minv_fresh
        if fresh is not None:
            self._minv_fresh = None
            return fresh
        return self._src_Minv.copy()

    def gravity(self) -> np.ndarray:
        """Generalised gravity torques g(q) (nv): τ = M q̈ + b + g."""
        if self._dyn_id != self.state_id:
            self._ensure_dynamics("gravity")
        return self._view_g.copy()

    def coriolis_centrifugal(self) -> np.ndarray:
        """Coriolis and centrifugal torques b = C(q, q̇) q̇ (nv), gravity excluded."""
        if self._dyn_id != self.state_id:
            self._ensure_dynamics("Coriolis/centrifugal torques")
        return self._view_nle - self._view_g

    def nonlinear_effects(self) -> np.ndarray:
        """b + g = RNEA(q, q̇, 0) (nv)."""
        if self._dyn_id != self.state_id:
            self._ensure_dynamics("nonlinear effects")
        return self._view_nle.copy()

    def com(self) -> np.ndarray:
        """Centre of mass position in the world frame (3, m)."""
        self._ensure_dynamics("centre of mass")
        return self._data.com[0].copy()

    def com_jacobian(self) -> np.ndarray:
        """Centre-of-mass Jacobian (3×nv) in world axes."""
        self._ensure_dynamics("COM Jacobian")
        return self._data.Jcom.copy()

    def com_velocity(self) -> np.ndarray:
        """Centre-of-mass velocity (3, m/s) = J_com q̇."""
        return self.com_jacobian() @ self._v

    def com_bias(self) -> np.ndarray:
        """COM acceleration at q̈ = 0: ``J̇_com q̇`` (3, m/s²)."""
        q = self._require_state("COM bias")
        if self._cbias_id != self.state_id:
            pin.centerOfMass(self.model, self._data, q, self._v, self._zero_v)
            self._com_bias = self._data.acom[0].copy()
            self._cbias_id = self._kin_id = self.state_id
        return self._com_bias.copy()

    def __repr__(self) -> str:
        return f"RobotModel(name={self.name!r}, nq={self.nq}, nv={self.nv}, source={self.source!r})"
