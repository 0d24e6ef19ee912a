"""``jspace::Model`` of Stanford-WBC as a thin facade over :class:`~wbcpy.RobotModel`.

Stanford-WBC's joint-space model loads a robot, takes a :class:`~wbcpy.jspace.State` and answers
kinematic and dynamic queries per node. wbcpy keeps every method (snake_case, with the original camelCase
names as aliases) and changes the failure modes: where the original returned ``false``, ``""`` or NULL,
wbcpy raises (:class:`~wbcpy.errors.UnknownNameError` for a bad node or name,
:class:`~wbcpy.errors.InvalidValueError` for a bad vector, :class:`~wbcpy.errors.StateNotSetError` for a
quantity read before any state).

Semantics:

* **Nodes.** A node is a moving link (see :class:`~wbcpy.jspace.Node`); node ID = Pinocchio joint index
  − 1, and for robots made of 1-DOF joints node ID = joint index = DOF index. A floating base is node 0 and
  owns DOF 0..5 (x, y, z and a rotation vector for positions; Pinocchio's base-frame linear and angular
  velocity for velocities); the robot's joints follow.
* **Frames.** :meth:`Model.get_global_frame` is the node origin after the joint motion (Pinocchio's
  ``oMi`` of the joint) as a ``pin.SE3`` in the world (root) frame.
* **Jacobians.** 6×ndof, linear rows over angular rows, world axes. At a global point p of node i with
  origin o: ``J_lin(p) = J_lin(o) − [p − o]× J_ang``.
* **Dynamics.** τ = M(q) q̈ + b(q, q̇) + g(q): M from CRBA, M⁻¹ from its Cholesky factors or the ABA-based
  ``computeMinverse``, g = ∂V/∂q, b = C(q, q̇) q̇ (gravity excluded).
* **Laziness.** :meth:`Model.update` stores the state in the :class:`~wbcpy.RobotModel`; every quantity
  is computed on first use and cached for that state, so ``update_*``/``compute_*`` are cheap and getters
  never return stale data. States outside the joint limits are accepted (a model never clamps).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar, overload

import numpy as np
import pinocchio as pin

from .._support.validation import STATE_LIMIT, as_bool, as_float, as_se3, as_vector
from ..errors import InvalidValueError
from ..model.robot_model import RobotModel
from ._helpers import check_state_pair, one_state, state_vectors
from ._helpers import point as _point
from .node import Node, NodeIDError, NodeTable, build_nodes
from .state import State

NodeRef = Node | int
_T = TypeVar("_T")
_F64 = np.dtype(np.float64)
_EMPTY = np.zeros(0)
_EMPTY.setflags(write=False)
_NO_FORCE = (0,)
_LIMIT = STATE_LIMIT
_max, _min = np.maximum.reduce, np.minimum.reduce
_Record = tuple[Any, np.ndarray, np.ndarray, np.ndarray, float]
#: set_states remembered for get_state (another thread may set this many while one get_state runs)
_HISTORY = 4


class Model:
    """Stanford-WBC's ``jspace::Model`` over one :class:`~wbcpy.RobotModel`.

    The snake_case methods are the API; each original camelCase name is an alias of one of them
    (``setState`` = :meth:`set_state`, ``getNDOF`` = :meth:`get_n_dof`, ``computeCOM`` =
    :meth:`compute_com`, ``getMassInertia`` = :meth:`get_mass_inertia`, ...). ``init`` is replaced by
    the constructor, :meth:`from_urdf` and :meth:`load`. Results that the original wrote into
    out-parameters are returned (``get_joint_limits`` returns ``(lower, upper)``).

    **Threads.** Safe to share, like its :class:`~wbcpy.RobotModel`: every call returns quantities of one
    state that was set (a point Jacobian or ``compute_com(jacobian=True)`` reads its parts from one
    state), and :meth:`get_state` returns a state that was set as a whole.

    **Copies and pickles.** ``copy.copy`` gives an independent model over ``robot.copy()`` (shared
    ``pin.Model``), ``copy.deepcopy`` one over a deep copy of the robot; both keep the state (with its
    force and time) and the gravity flags. Pickles hold the same.

    Args:
        robot: the robot (shared, never copied). ``Model.from_urdf`` and ``Model.load`` build one.
    """

    def __init__(self, robot: RobotModel) -> None:
        if not isinstance(robot, RobotModel):
            raise InvalidValueError("robot", "a wbcpy.RobotModel", type(robot).__name__)
        self._robot = robot
        self._table = NodeTable(build_nodes(robot.model))
        self._node = self._table.resolve
        self._n_nodes = len(self._table.nodes)
        self._ndof = robot.nv
        self._shape = (self._ndof,)
        # (shapes, dtypes) of the set_state hot path; a model without DOF (no extremes to compare) always
        # takes the general path
        self._fast = (self._shape, self._shape, _F64, _F64) if self._ndof else None
        self._frame_ids = [n.frame_id for n in self._table.nodes]
        arange = np.arange(self._ndof, dtype=np.float64)
        self._identity_dofs = robot.nq == robot.nv and bool(np.array_equal(robot.q_from_dof(arange), arange))
        self._to_q = robot.names.dofs.q_from_dof
        # DOF whose gravity torque is zeroed: None, or a read-only bool mask (replaced, never written)
        self._gravity_mask: np.ndarray | None = None
        # the States given to the last _HISTORY set_states, newest first, each published as one tuple with
        # the configuration array handed to the robot, (q, position, velocity, force, time), before the
        # robot's state: a reader that sees the robot at a configuration finds its record here
        self._recs: tuple[_Record, ...] = ((None, _EMPTY, _EMPTY, _EMPTY, 0.0),)

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_urdf(cls, source: str | Path, floating_base: bool = False, **kwargs: Any) -> Model:
        """Load a URDF file or XML string (replaces ``jspace::Model::init``).

        Keyword arguments go to :meth:`wbcpy.RobotModel.from_urdf` (``gravity``, ``name``, ...).

        Raises:
            URDFNotFoundError: missing file (also a ``FileNotFoundError``).
            URDFError: unreadable file, malformed XML or a URDF without links.
        """
        return cls(RobotModel.from_urdf(source, floating_base=floating_base, **kwargs))

    @classmethod
    def load(cls, name_or_path: str | Path, **kwargs: Any) -> Model:
        """Load a registered robot name (``wbcpy info --list``), a URDF path or XML (see ``load_robot``)."""
        from ..model.registry import load_robot

        return cls(load_robot(name_or_path, **kwargs))

    def __copy__(self) -> Model:
        """An independent model over ``robot.copy()`` (see the class docstring)."""
        return _restore(self._robot.copy(), *self._reduce_args()[1:])

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle and ``copy.deepcopy``: the robot, the gravity flags and the state last set."""
        return (_restore, self._reduce_args())

    def _reduce_args(self) -> tuple[Any, ...]:
        robot = self._robot
        rec = self._record()
        current = rec is not None
        rec = rec or self._recs[0]
        state = tuple(x.copy() if isinstance(x, np.ndarray) else x for x in rec[1:])
        return (robot, self._gravity_mask, state, current)

    @property
    def robot(self) -> RobotModel:
        """The underlying :class:`~wbcpy.RobotModel`."""
        return self._robot

    @property
    def nodes(self) -> tuple[Node, ...]:
        """Every node, in ID order."""
        return self._table.nodes

    @property
    def floating_base(self) -> bool:
        """True when node 0 is a free-flyer base (DOF 0..5)."""
        return self._robot.floating_base

    # ------------------------------------------------------------------ state
    def set_state(self, state: State) -> None:
        """Store ``state``: ``position`` (ndof), ``velocity`` (ndof, or empty for zero), ``force``, ``time``.

        The model keeps copies. Positions outside the joint limits are accepted as they are. Also
        available as :meth:`update` (``setState + updateKinematics + updateDynamics`` of the original):
        kinematics and dynamics are computed lazily, on the first read for this state.

        Raises:
            InvalidValueError: not a State, wrong sizes, NaN or inf; the model is left unchanged.
        """
        if not isinstance(state, State):
            raise InvalidValueError("state", "a jspace.State", type(state).__name__)
        pos, vel, force, time = state.position, state.velocity, state.force, state.time
        if (
            pos.__class__ is np.ndarray
            and vel.__class__ is np.ndarray
            and self._fast
            == (
                pos.shape,
                vel.shape,
                pos.dtype,
                vel.dtype,
            )
        ):  # hot path: copies, and extremes that compare False for NaN, inf and huge entries
            position, velocity = pos.copy(), vel.copy()
            if not (
                (_max(position) <= _LIMIT and _min(position) >= -_LIMIT)
                and (_max(velocity) <= _LIMIT and _min(velocity) >= -_LIMIT)
            ):
                check_state_pair(position, velocity)
        else:
            position, velocity = state_vectors(pos, vel, self._ndof)
        if not (force.__class__ is np.ndarray and force.shape == _NO_FORCE):
            force = as_vector(force, None, "state.force")
        if time.__class__ is not float or time - time != 0.0:  # not a float, or NaN/inf
            time = as_float(time, "state.time")
        q = position if self._identity_dofs else self._to_q(position)
        recs = self._recs
        self._recs = (
            (q, position, velocity, _EMPTY if force.size == 0 else force, time),
            *recs[: _HISTORY - 1],
        )
        self._robot.set_state_unchecked(q, velocity)

    #: ``update(state)``: same as :meth:`set_state` (kinematics and dynamics follow lazily).
    update = set_state

    def get_state(self) -> State:
        """A copy of the current state.

        The State given to the :meth:`set_state` whose configuration the robot holds, with its force and
        time, also while other threads call :meth:`set_state`. If the :class:`~wbcpy.RobotModel` was
        updated directly since (or other threads called :meth:`set_state` more than three times during
        each of three attempts), the state is rebuilt from the robot: per-DOF position and velocity of one
        state, empty force, time 0.

        Raises:
            StateNotSetError: no state was set yet.
        """
        rec = self._record()
        if rec is not None:
            return State(*rec[1:])
        robot = self._robot
        current = robot.state  # one consistent (q, v); StateNotSetError before any state
        return State(robot.dof_from_q(current.q), current.v)

    def _record(self) -> _Record | None:
        """The set_state record of the robot's current configuration (None: the robot was updated
        directly, or has no state).

        The robot's configuration is read first, the records after: a set_state publishes its record
        before the robot's state, so the record of a configuration the robot holds is already among the
        records, unless more than ``_HISTORY - 1`` later set_states overtook this read (then it retries).
        """
        robot = self._robot
        for _ in range(3):
            if not robot.has_state:
                return None
            q = robot.q_view
            for rec in self._recs:
                if rec[0] is q:
                    return rec
        return None

    # ------------------------------------------------------------------ sizes, names, nodes
    def get_n_nodes(self) -> int:
        """Number of nodes (moving links; the fixed root excluded)."""
        return self._n_nodes

    def get_n_joints(self) -> int:
        """Number of joints (one per node; a free-flyer base counts as one joint)."""
        return self._n_nodes

    def get_n_dof(self) -> int:
        """Number of degrees of freedom (= length of per-DOF vectors; a free-flyer counts 6)."""
        return self._ndof

    def get_node_name(self, id: int) -> str:
        """Link name of node ``id``."""
        return self._node(id).name

    def get_joint_name(self, id: int) -> str:
        """Name of the joint of node ``id``."""
        return self._node(id).joint_name

    def get_node(self, id: int) -> Node:
        """The read-only :class:`Node` with ID ``id``.

        Raises:
            NodeIDError: ``id`` out of range (a ``KeyError`` and an ``IndexError``).
        """
        return self._node(id)

    def get_node_by_name(self, name: str) -> Node:
        """The node whose link is called ``name``.

        Raises:
            UnknownNameError: no such link among the nodes; the message lists close names.
        """
        return self._table.by_link(name)

    def get_node_by_joint_name(self, name: str) -> Node:
        """The node moved by the joint called ``name``.

        Raises:
            UnknownNameError: no such joint; the message lists close names.
        """
        return self._table.by_joint(name)

    def get_joint_limits(self) -> tuple[np.ndarray, np.ndarray]:
        """Per-DOF position limits ``(lower, upper)`` (ndof each; ±inf where unbounded)."""
        return self._robot.dof_lower_limit, self._robot.dof_upper_limit

    # ------------------------------------------------------------------ kinematics
    def update_kinematics(self) -> None:
        """Compute placements and joint Jacobians for the current state (cached; cheap when repeated).

        Raises:
            StateNotSetError: no state was set yet.
        """
        self._robot.precompute("kinematics", "jacobians")

    def get_global_frame(self, node: NodeRef) -> pin.SE3:
        """World placement of the node origin (the joint frame after motion, Pinocchio's ``oMi``)."""
        return self._robot.frame_placement(self._node(node).frame_id)

    @overload
    def compute_global_frame(
        self, node: NodeRef, local: pin.SE3 | Sequence[float] | np.ndarray
    ) -> pin.SE3: ...
    @overload
    def compute_global_frame(self, node: NodeRef, local: float, y: float, z: float) -> pin.SE3: ...
    def compute_global_frame(
        self, node: NodeRef, local: Any, y: float | None = None, z: float | None = None
    ) -> pin.SE3:
        """World placement of a frame fixed to a node.

        Three forms, as the original overloads:

        * ``compute_global_frame(node, local_transform)`` → ``oMi * local_transform`` (``pin.SE3``);
        * ``compute_global_frame(node, (x, y, z))`` → node rotation, origin moved to the local point;
        * ``compute_global_frame(node, x, y, z)`` → the same with three floats.
        """
        nd = self._node(node)
        if isinstance(local, pin.SE3):
            if y is not None or z is not None:
                raise InvalidValueError(
                    "local",
                    "an SE3 alone, a 3-vector, or three floats",
                    None,
                    reason="an SE3 local transform takes no y, z",
                )
            return self._robot.frame_placement(nd.frame_id) * as_se3(local, "local")
        point = _point(local, y, z, "local point")
        placement = self._robot.frame_placement(nd.frame_id)
        placement.translation = placement.translation + placement.rotation @ point
        return placement

    def compute_global_com_frame(self, node: NodeRef) -> pin.SE3:
        """World placement of the node's COM: node rotation, origin at the COM (``oMi * (I, com)``)."""
        nd = self._node(node)
        placement = self._robot.frame_placement(nd.frame_id)
        placement.translation = placement.translation + placement.rotation @ nd.com
        return placement

    def compute_jacobian(
        self, node: NodeRef, x: Any = None, y: float | None = None, z: float | None = None
    ) -> np.ndarray:
        """Jacobian (6×ndof, linear over angular rows, world axes) of a point moving with a node.

        ``compute_jacobian(node)`` is taken at the node origin; ``compute_jacobian(node, gx, gy, gz)``
        and ``compute_jacobian(node, p)`` at the global (world) point p:
        ``J_lin(p) = J_lin(o) − [p − o]× J_ang``, ``J_ang`` unchanged. Columns of DOF that do not move
        the node are zero.
        """
        if type(node) is int and 0 <= node < self._n_nodes:
            fid = self._frame_ids[node]
        else:
            fid = self._node(node).frame_id
        robot = self._robot
        if x is None and y is None and z is None:
            return robot.frame_jacobian(fid)
        point = _point(x, y, z, "global point")
        jac, origin = one_state(robot, lambda: (robot.frame_jacobian_view(fid), robot.frame_placement(fid)))
        out = jac.copy()
        out[:3] -= np.cross((point - origin.translation)[:, None], jac[3:], axis=0)
        return out

    # ------------------------------------------------------------------ dynamics
    def update_dynamics(self) -> None:
        """Compute M, M⁻¹, g, b and the COM for the current state (cached; cheap when repeated)."""
        self._robot.precompute("dynamics", "minverse")

    @overload
    def compute_com(self, jacobian: Literal[False] = ...) -> np.ndarray: ...
    @overload
    def compute_com(self, jacobian: Literal[True]) -> tuple[np.ndarray, np.ndarray]: ...
    def compute_com(self, jacobian: bool = False) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        """Centre of mass of the nodes in the world frame (3, m), and its Jacobian (3×ndof) on request.

        ``com = Σ mᵢ (oMᵢ · cᵢ) / Σ mᵢ`` over the nodes (the fixed root's mass is not counted, as in
        the original). Returns ``com`` or ``(com, J_com)`` when ``jacobian`` is true.
        """
        robot = self._robot
        if jacobian:
            return one_state(robot, lambda: (robot.com(), robot.com_jacobian()))
        return robot.com()

    def compute_gravity(self) -> None:
        """Compute the gravity torques for the current state (cached)."""
        self._robot.precompute("dynamics")

    def disable_gravity_compensation(self, index: int, disable: bool = True) -> bool:
        """Zero (or restore) DOF ``index`` in :meth:`get_gravity`; returns the previous flag.

        Only :meth:`get_gravity` is affected; M, b and every other quantity are not.

        Raises:
            NodeIDError: ``index`` is not a DOF index (0..ndof−1); nothing changes.
        """
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 <= index < self._ndof:
            raise NodeIDError("DOF index", index, self._ndof)
        flag = as_bool(disable, "disable")
        old = self._gravity_mask
        mask = np.zeros(self._ndof, dtype=bool) if old is None else old.copy()
        previous = bool(mask[index])
        mask[index] = flag
        mask.setflags(write=False)
        self._gravity_mask = mask if mask.any() else None  # published at once: readers see old or new
        return previous

    def get_gravity(self) -> np.ndarray:
        """Gravity torques g(q) = ∂V/∂q (ndof, N·m or N), zero at DOF disabled by
        :meth:`disable_gravity_compensation`.

        Raises:
            StateNotSetError: no state was set yet.
        """
        g = self._robot.gravity()
        mask = self._gravity_mask
        if mask is not None:
            g[mask] = 0.0
        return g

    def compute_coriolis_centrifugal(self) -> None:
        """Compute b(q, q̇) for the current state (cached)."""
        self._robot.precompute("dynamics")

    def get_coriolis_centrifugal(self) -> np.ndarray:
        """Coriolis and centrifugal torques b = C(q, q̇) q̇ (ndof), gravity excluded."""
        return self._robot.coriolis_centrifugal()

    def compute_mass_inertia(self) -> None:
        """Compute M(q) for the current state (cached)."""
        self._robot.precompute("dynamics")

    def get_mass_inertia(self) -> np.ndarray:
        """Joint-space inertia matrix M(q) (ndof×ndof, symmetric positive definite, new array)."""
        return self._robot.mass_matrix()

    def compute_inverse_mass_inertia(self) -> None:
        """Compute M(q)⁻¹ for the current state (cached)."""
        self._robot.precompute("minverse")

    def get_inverse_mass_inertia(self) -> np.ndarray:
        """M(q)⁻¹ (ndof×ndof, new array)."""
        return self._robot.inverse_mass_matrix()

    def __repr__(self) -> str:
        return f"jspace.Model(robot={self._robot.name!r}, nodes={self._n_nodes}, ndof={self._ndof})"

    # ------------------------------------------------------------------ Stanford-WBC names (aliases)
    setState = set_state
    getState = get_state
    getNNodes = get_n_nodes
    getNJoints = get_n_joints
    getNDOF = get_n_dof
    getNodeName = get_node_name
    getJointName = get_joint_name
    getNode = get_node
    getNodeByName = get_node_by_name
    getNodeByJointName = get_node_by_joint_name
    getJointLimits = get_joint_limits
    updateKinematics = update_kinematics
    getGlobalFrame = get_global_frame
    computeGlobalFrame = compute_global_frame
    computeGlobalCOMFrame = compute_global_com_frame
    computeJacobian = compute_jacobian
    updateDynamics = update_dynamics
    computeCOM = compute_com
    computeGravity = compute_gravity
    disableGravityCompensation = disable_gravity_compensation
    getGravity = get_gravity
    computeCoriolisCentrifugal = compute_coriolis_centrifugal
    getCoriolisCentrifugal = get_coriolis_centrifugal
    computeMassInertia = compute_mass_inertia
    getMassInertia = get_mass_inertia
    computeInverseMassInertia = compute_inverse_mass_inertia
    getInverseMassInertia = get_inverse_mass_inertia


def _restore(robot: RobotModel, mask: np.ndarray | None, state: tuple[Any, ...], current: bool) -> Model:
    """A :class:`Model` over ``robot`` with gravity ``mask`` and, when ``current``, the State last set."""
    model = Model(robot)
    if mask is not None:
        model._gravity_mask = np.array(mask, dtype=bool)
        model._gravity_mask.setflags(write=False)
    if current:
        model._recs = ((robot.q_view, *state),)
    return model
