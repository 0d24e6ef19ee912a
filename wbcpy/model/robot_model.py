"""RobotModel: one Pinocchio model, a state, and cached kinematics and dynamics.

Every facade of wbcpy (jspace, arl, AccelerationScene, iKin controller) holds a reference to one
:class:`RobotModel`. It validates states and computes each derived quantity at most once per state (and
thread): ``update(q, v, a)`` publishes a new state; a getter (frame placement, Jacobian, M, M⁻¹, g, b,
COM, ...) runs its Pinocchio algorithm on first use for that state and returns a new array, a ``*_view``
accessor the cached array itself; a getter used before any state was set raises
:class:`~wbcpy.errors.StateNotSetError`.

It is composed of a :class:`~wbcpy.model._names.RobotNames` (model-only names, sizes, limits; immutable,
shared with copies) and per-thread :class:`~wbcpy.model._cache.Workspace` objects (a ``pin.Data`` each,
with the one cache-fill path of every quantity); its base :class:`~wbcpy.model._views.RobotStateViews`
owns the published state and the no-copy views that facades, tasks and scenes use.

Conventions: SI units; Jacobians are 6×nv (also for nv = 1), linear rows over angular rows, in world axes
at the frame origin (``pin.LOCAL_WORLD_ALIGNED``); the bias ``J̇q̇`` is the classical acceleration of the
frame origin with q̈ = 0 in the same axes.
"""

from __future__ import annotations

import copy as _copy
import itertools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pinocchio as pin

from .._kernels import state_copy as _state_copy
from .._support.validation import STATE_LIMIT, as_bool, as_state_vector
from ..description._mjcf_loading import load_mjcf_model
from ..description._urdf_loading import load_urdf_model
from ..description.srdf import (
    load_reference_configurations,
    reference_configuration,
    reference_configuration_names,
)
from ..description.urdf_physics import PhysicsMode
from ..errors import InvalidValueError
from ._cache import FRAMES, record
from ._mimic_pickle import MimicRepair, mimic_repairs, repair_mimic_joints
from ._names import MimicJoint, RobotNames
from ._names import forwarded as _forward
from ._pin_bindings import BindingProbe, probe_bindings
from ._views import RobotStateViews

if TYPE_CHECKING:
    from .chain import Chain

_LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED


def _paths(dirs: Any) -> list[str]:
    """``package_dirs`` as a list of strings: None, one path, or an iterable of paths."""
    if dirs is None:
        return []
    if isinstance(dirs, (str, Path)):
        return [str(dirs)]
    try:
        items = list(dirs)
    except TypeError:
        raise InvalidValueError("package_dirs", "paths", type(dirs).__name__) from None
    if not all(isinstance(p, (str, Path)) for p in items):
        raise InvalidValueError("package_dirs", "paths", None, reason="every entry must be a str or Path")
    return [str(p) for p in items]


#: where a model came from: (urdf_path, urdf_text, srdf_path, mjcf_path)
_Description = tuple[Path | None, str | None, Path | None, Path | None]


def _restore(model: pin.Model, name: str, source: str, dirs: list[str],
             state: tuple[np.ndarray, np.ndarray, np.ndarray | None] | None,
             description: _Description = (None, None, None, None),
             mimic: tuple[MimicRepair, ...] = ()) -> RobotModel:  # fmt: skip
    """Unpickling and ``copy.deepcopy``: a new robot on ``model`` at ``state`` = (q, v, a), its mimic joints
    rebuilt from ``mimic`` (what Pinocchio's pickle loses: :mod:`wbcpy.model._mimic_pickle`)."""
    repair_mimic_joints(model, mimic)
    robot = RobotModel(model, name=name, source=source, package_dirs=dirs)
    robot._set_description(description)
    if state is not None:
        q, v, a = (None if x is None else np.array(x, dtype=np.float64) for x in state)
        if q is not None and v is not None:
            robot.set_state_unchecked(q, v, a)
    return robot


class RobotModel(RobotStateViews):
    """A robot: one ``pin.Model``, a validated state and per-state caches (see the module docstring).

    Names, sizes, limits and per-DOF conversions (``nq``, ``frame_id``, ``dof_lower_limit``,
    ``q_from_dof``, ...) are those of :attr:`names`, forwarded under the same names.

    The no-copy views (``q_view``, ``frame_jacobian_view``, ``set_state_unchecked``, ...) come from
    :class:`~wbcpy.model._views.RobotStateViews`.

    **Threads.** A RobotModel may be shared: any thread may call any method at any time. A state change
    is one atomic publication, each thread computes into its own ``pin.Data``, and every result is the
    quantity at one state that was set — never a mix of two states, never an old result marked fresh.
    Two calls are not one transaction: to read several quantities of one state while another thread may
    update, read them from ``snap = robot.copy()``. A ``*_view`` result is valid until the calling thread
    computes a later state; never write to it.

    **Copies and pickles.** :meth:`copy` (also ``copy.copy``) is cheap: shared ``pin.Model`` and names,
    new data, same state. ``copy.deepcopy`` also copies the ``pin.Model``. A pickle holds the model,
    names and state, never a ``pin.Data``; unpickling rebuilds the caches (and the mimic joints, which
    Pinocchio's own pickle damages). Copies are independent.

    Args:
        model: the Pinocchio model (shared, never modified; e.g. a reduced model with locked joints).
        name: robot name (default the model's).
        source: where the model came from (for messages).
        package_dirs: folders for ``package://`` URIs (kept for geometry loading).

    Attributes:
        model: the Pinocchio model.
        names: the model-only :class:`~wbcpy.model._names.RobotNames`.
        name, source, package_dirs: as given.
        total_mass: total mass in kg.
        urdf_path: the URDF file (absolute) of :meth:`from_urdf`, or None.
        urdf_text: the URDF XML when it was given as a string to :meth:`from_urdf`, else None.
        srdf_path: the SRDF of the reference configurations, or None.
        mjcf_path: the MJCF file (absolute) of :meth:`from_mjcf`, or None.
    """

    urdf_path: Path | None = None
    urdf_text: str | None = None
    srdf_path: Path | None = None
    mjcf_path: Path | None = None

    @property
    def nq(self) -> int:
        """Size of the configuration vector q."""
        return self.names.nq

    @property
    def nv(self) -> int:
        """Size of v, q̈ and τ (= number of DOF)."""
        return self.names.nv

    @property
    def ndof(self) -> int:
        """Number of DOF (= nv; a free-flyer counts 6)."""
        return self.names.nv

    @property
    def floating_base(self) -> bool:
        """True when joint 1 is a free-flyer."""
        return self.names.floating_base

    # members of `names` (RobotNames), annotated with what an instance hands out
    joint_names: list[str] = _forward("joint_names")
    mimic_joints: list[MimicJoint] = _forward("mimic_joints")
    dof_names: list[str] = _forward("dof_names")
    frame_names: list[str] = _forward("frame_names")
    link_names: list[str] = _forward("link_names")
    root_link: str = _forward("root_link")
    frame_id: Callable[[Any], int] = _forward("frame_id")
    joint_id: Callable[[Any], int] = _forward("joint_id")
    joint_v_index: Callable[[Any], int] = _forward("joint_v_index")
    joint_q_index: Callable[[Any], int] = _forward("joint_q_index")
    lower_position_limit: np.ndarray = _forward("lower_position_limit")
    upper_position_limit: np.ndarray = _forward("upper_position_limit")
    dof_lower_limit: np.ndarray = _forward("dof_lower_limit")
    dof_upper_limit: np.ndarray = _forward("dof_upper_limit")
    velocity_limit: np.ndarray = _forward("velocity_limit")
    effort_limit: np.ndarray = _forward("effort_limit")
    q_from_dof: Callable[[Any], np.ndarray] = _forward("q_from_dof")
    dof_from_q: Callable[[Any], np.ndarray] = _forward("dof_from_q")
    neutral: Callable[[], np.ndarray] = _forward("neutral")

    def __init__(
        self,
        model: pin.Model,
        name: str | None = None,
        source: str = "<model>",
        package_dirs: Sequence[str | Path] | None = None,
    ) -> None:
        if not isinstance(model, pin.Model):
            raise InvalidValueError("model", "a pinocchio.Model", type(model).__name__)
        self._setup(model, RobotNames(model), probe_bindings(model), name, source, package_dirs)

    def _setup(
        self,
        model: pin.Model,
        names: RobotNames,
        probe: BindingProbe,
        name: str | None,
        source: str,
        package_dirs: Sequence[str | Path] | None,
    ) -> None:
        RobotStateViews.__init__(self, model, names, probe)
        self.name = str(name or model.name or "robot")
        self.source = str(source)
        self.package_dirs = _paths(package_dirs)
        self.total_mass: float = float(pin.computeTotalMass(model))

    # ------------------------------------------------------------------ construction and copies
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
        mimic: bool = True,
    ) -> RobotModel:
        """Load a URDF given as a file path or as an XML string.

        Args:
            source: path to a ``.urdf`` file, or the URDF XML itself (a string containing ``<robot``).
            floating_base: add Pinocchio's free-flyer as the first joint (nq += 7, nv += 6).
            package_dirs: folders for ``package://`` URIs (kept for geometry loading).
            gravity: gravity vector in m/s², world frame.
            name: robot name; default the URDF's ``name`` attribute.
            srdf: SRDF file whose ``group_state`` postures become reference configurations
                (:meth:`reference_configuration`).
            check_physics: True: raise on physically invalid masses, inertias, axes or limits; "warn";
                False; or the names of the checks to run (see :mod:`wbcpy.description.urdf_physics`).
            mimic: couple each ``<mimic>`` joint to the joint it follows (default): one DOF for both,
                q_f = multiplier · q_leader + offset (:attr:`mimic_joints`); the follower's limits narrow
                the leader's. False: independent joints (Pinocchio's default). When Pinocchio cannot
                couple them (a continuous leader, an unknown leader, an order it refuses) the joints
                stay independent with a :class:`~wbcpy.errors.URDFWarning` that says why.

        Raises:
            URDFNotFoundError: the path does not exist (also a ``FileNotFoundError``).
            URDFError: unreadable file, malformed XML or URDF (element, attribute, value and line named),
                physically invalid model, or a model beyond the size guards
                (:mod:`wbcpy.description.urdf_checks`).
            SRDFError: the SRDF is missing, malformed or does not fit the model.
            InvalidValueError: a non-finite or wrongly sized gravity vector, a non-bool ``floating_base``.
        """
        model, src = load_urdf_model(
            source, as_bool(floating_base, "floating_base"), gravity, check_physics, as_bool(mimic, "mimic")
        )
        srdf_path = None if srdf is None else load_reference_configurations(model, srdf)
        robot = cls(model, name=name, source=src.label, package_dirs=package_dirs)
        robot.urdf_path, robot.urdf_text = src.path, (src.text if src.path is None else None)
        robot.srdf_path = srdf_path
        return robot

    @classmethod
    def from_mjcf(cls, source: str | Path, name: str | None = None) -> RobotModel:
        """Load a robot from an MJCF file (MuJoCo's XML) with Pinocchio's ``buildModelFromMJCF``.

        Hinge, slide, ball and free joints, armature, bodies and sites (as frames) and keyframes (as
        reference configurations, plus ``qpos0``); gravity from ``<option gravity>``. Joint and frame names
        are MuJoCo's, so a :class:`~wbcpy.sim.mujoco.MujocoPlant` of the same file maps on this model by
        name. See :mod:`wbcpy.description._mjcf_loading`.

        Args:
            source: path to the ``.xml`` file.
            name: robot name; default the ``<mujoco model>`` attribute, else the file's stem.

        Raises:
            URDFNotFoundError: the path does not exist (also a ``FileNotFoundError``).
            MJCFError: not an MJCF file, malformed XML, or a file Pinocchio's parser rejects.
        """
        model, path, label = load_mjcf_model(source)
        robot = cls(model, name=name or label, source=str(path))
        robot.mjcf_path = path
        return robot

    def copy(self) -> RobotModel:
        """An independent robot at the same state, cheaply: shared ``pin.Model`` and names, new data.

        Use it to give another thread its own robot, or to read several quantities of one state while
        other threads update this one. Later updates of either robot do not affect the other.
        """
        new = RobotModel.__new__(RobotModel)
        new._setup(self.model, self.names, self._probe, self.name, self.source, self.package_dirs)
        new._copy_description(self)
        q, v, a, sid = self._st[:4]
        if q is not None:
            new._next_sid = itertools.count(sid + 1).__next__
            new._st = record(q.copy(), v.copy(), None if a is None else a.copy(), sid)
        return new

    __copy__ = copy

    def __deepcopy__(self, memo: dict[int, Any]) -> RobotModel:
        """An independent robot on a copy of the ``pin.Model``, at the same state."""
        return _restore(
            _copy.deepcopy(self.model, memo),
            self.name,
            self.source,
            self.package_dirs,
            self._state_args(),
            self._description(),
        )

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle the model, names and state, and what rebuilds its mimic joints; never the ``pin.Data``
        (rebuilt when unpickled).

        Raises:
            ConfigError: a mimic joint that is neither revolute nor prismatic (it cannot be rebuilt).
        """
        mimic = mimic_repairs(self.model) if self.names.mimic_joints else ()
        return (_restore, (self.model, self.name, self.source, self.package_dirs, self._state_args(),
                           self._description(), mimic))  # fmt: skip

    def _description(self) -> _Description:
        """Where the model came from: (urdf_path, urdf_text, srdf_path, mjcf_path)."""
        return self.urdf_path, self.urdf_text, self.srdf_path, self.mjcf_path

    def _set_description(self, description: tuple[Any, ...]) -> None:
        # (a pickle of an older wbcpy holds three entries: no MJCF)
        self.urdf_path, self.urdf_text, self.srdf_path, self.mjcf_path = (*description, None, None)[:4]

    def _copy_description(self, other: RobotModel) -> None:
        self._set_description(other._description())

    def _state_args(self) -> tuple[np.ndarray, np.ndarray, np.ndarray | None] | None:
        q, v, a = self._st[:3]
        return None if q is None else (q.copy(), v.copy(), None if a is None else a.copy())

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
        """Return a serial :class:`~wbcpy.model.chain.Chain` view from frame ``base`` to frame ``tip``."""
        from .chain import Chain

        return Chain(self, base, tip, name=name, **kwargs)

    # ------------------------------------------------------------------ state
    def update(self, q: Any, v: Any = None, a: Any = None) -> None:
        """Set the state; every cached quantity is recomputed on its next read.

        Args:
            q: configuration (nq). Unit-norm blocks (quaternions, cos/sin pairs) must have norm 1 ± 1e-6;
                they are renormalised exactly.
            v: velocity (nv), zero when omitted.
            a: measured acceleration (nv), optional; used by task status (``y``), never by the dynamics.

        Raises:
            InvalidValueError: wrong size, non-numeric, NaN/inf, an entry beyond
                :data:`~wbcpy._support.validation.STATE_LIMIT` (1e9), or a non-unit quaternion / cos-sin pair.
                The previous state stays in place.
        """
        names = self.names
        nq, nv = names.nq, names.nv
        qa = _state_copy(q, nq, STATE_LIMIT)  # (as_state_vector's compiled pass, inlined: the hot path)
        if qa is None:
            qa = as_state_vector(q, nq, "q")  # (another layout, or raises naming the argument)
        names.dofs.normalize_in_place(qa)
        va: np.ndarray | None = self._zero_v if v is None else _state_copy(v, nv, STATE_LIMIT)
        if va is None:
            va = as_state_vector(v, nv, "v")
        aa = None if a is None else as_state_vector(a, nv, "a")
        self._st = (qa, va, aa, self._next_sid(), {})

    def update_dof(self, angles: Any, velocity: Any = None, acceleration: Any = None) -> None:
        """:meth:`update` from one value per DOF (see :meth:`q_from_dof`)."""
        nv = self.names.nv
        dof = as_state_vector(angles, nv, "angles")
        qa = self.names.dofs.q_from_dof(dof)  # unit blocks are exact by construction
        va = self._zero_v if velocity is None else as_state_vector(velocity, nv, "velocity")
        aa = None if acceleration is None else as_state_vector(acceleration, nv, "acceleration")
        self._st = (qa, va, aa, self._next_sid(), {})

    # ------------------------------------------------------------------ kinematics (new arrays)
    def frame_placement(self, frame: str | int) -> pin.SE3:
        """World placement ``oMf`` of a frame (a new ``pin.SE3``)."""
        return self.frame_placement_view(frame).copy()  # (SE3.copy: the constructor costs more)

    def frame_velocity(self, frame: str | int) -> np.ndarray:
        """Spatial velocity (v, ω) of a frame origin in world axes (6, m/s over rad/s)."""
        fid = self.names.frame_id(frame)
        ws, st = self._tls.ws, self._st
        ws.placements(st, "frame velocity")
        twist: np.ndarray = pin.getFrameVelocity(self.model, ws.data, fid, _LWA).vector.copy()
        return twist

    def frame_jacobian(self, frame: str | int) -> np.ndarray:
        """Frame Jacobian (6×nv), linear over angular rows, world axes at the frame origin."""
        if type(frame) is not int or not 0 <= frame < self._n_frames:
            frame = self.names.frame_id(frame)
        st = self._st
        jac = st[FRAMES].get(frame)
        # not cached yet: Pinocchio's new array is the caller's (no copy; the next view call caches one)
        return self._tls.ws.frame_jacobian(st, frame, False) if jac is None else jac.copy()

    def frame_bias(self, frame: str | int) -> np.ndarray:
        """Classical acceleration of the frame origin at q̈ = 0: ``J̇ q̇`` (6, world axes)."""
        return self.frame_bias_view(frame).copy()

    # ------------------------------------------------------------------ dynamics (new arrays)
    def mass_matrix(self) -> np.ndarray:
        """Joint-space inertia matrix M(q) (nv×nv, full and symmetric)."""
        ws, st = self._tls.ws, self._st
        if ws.dyn is not st:
            ws.dynamics(st, "mass matrix")
        return ws.src_M.copy()

    def inverse_mass_matrix(self) -> np.ndarray:
        """M(q)⁻¹ (nv×nv, full and symmetric): Cholesky of M when it is there (nv ≤ 24), else ABA."""
        ws, st = self._tls.ws, self._st
        if ws.minv is not st:
            ws.minverse(st, "inverse mass matrix")
        fresh = ws.minv_fresh
        if fresh is not None:
            ws.minv_fresh = None
            return fresh
        return ws.src_Minv.copy()

    def gravity(self) -> np.ndarray:
        """Generalised gravity torques g(q) (nv): τ = M q̈ + b + g."""
        ws, st = self._tls.ws, self._st
        if ws.grav is not st:
            ws.gravity(st, "gravity")
        return ws.g.copy()

    def coriolis_centrifugal(self) -> np.ndarray:
        """Coriolis and centrifugal torques b = C(q, q̇) q̇ (nv), gravity excluded."""
        ws, st = self._tls.ws, self._st
        if ws.grav is not st:
            ws.gravity(st, "Coriolis/centrifugal torques")
        b: np.ndarray = ws.nle - ws.g
        return b

    def nonlinear_effects(self) -> np.ndarray:
        """b + g = RNEA(q, q̇, 0) (nv)."""
        return self.nonlinear_effects_view().copy()

    def com(self) -> np.ndarray:
        """Centre of mass position in the world frame (3, m); from the kinematics alone."""
        return self.com_position_view().copy()

    def com_jacobian(self) -> np.ndarray:
        """Centre-of-mass Jacobian (3×nv) in world axes."""
        return self.com_jacobian_view().copy()

    def com_velocity(self) -> np.ndarray:
        """Centre-of-mass velocity (3, m/s) = J_com q̇."""
        ws, st = self._tls.ws, self._st
        ws.com_terms(st, "COM velocity")
        vcom: np.ndarray = ws.data.vcom[0].copy()
        return vcom

    def com_bias(self) -> np.ndarray:
        """COM acceleration at q̈ = 0: ``J̇_com q̇`` (3, m/s²)."""
        return self.com_bias_view().copy()

    def __repr__(self) -> str:
        return (
            f"RobotModel(name={self.name!r}, nq={self.names.nq}, nv={self.names.nv}, source={self.source!r})"
        )
