"""InverseDynamicsScene: q̈, contact wrenches and joint torques (ARC-OPT ``AccelerationSceneTSID``, TSID).

Variables ``x = (q̈, w_1, …, w_k)``: joint accelerations and one wrench per active contact
(:class:`~wbcpy.contacts.constraints.ContactLayout`). The hierarchy handed to the QP layer is

* level 0 (and every level below): the hard constraints — unactuated rows of the equations of motion,
  rigid contacts ``J_c q̈ + a_c = 0`` (contact axes, classical acceleration), friction cones, normal-force
  bounds, effort limits ``|τ| ≤ τ_max`` as rows in (q̈, w), joint-limit bounds on q̈ —
  :mod:`~wbcpy.contacts.constraints`; the collision-avoidance rows on q̈
  (:meth:`~wbcpy.AccelerationScene.set_collision_avoidance`, the discrete-time damper of
  :class:`~wbcpy.collision.AccelerationCollisionConstraint`);
* one level per task priority, exactly as in :class:`~wbcpy.AccelerationScene`: task rows on q̈
  (wrench tasks: rows on their contact's wrench, :mod:`~wbcpy.tasks.wrench_task`) and the regulariser
  λ/ω_j on q̈ only, never on the wrenches;
* exactness: the last task level writes its regulariser as rows √(λ/ω_j) e_j with target 0 (same cost)
  instead of a diagonal term, so that "lower levels keep A x = A x*" fixes q̈ at that level's optimum
  (DOFs that an active joint-task row of that level selects keep the diagonal term: that row fixes them
  already);
* a final level min Σ_c ‖w_c‖²: among the wrenches that realise the optimal q̈ (and the wrench tasks'
  optimal values), the least-norm one. With ``wrench_regularization = ε > 0`` that level is left out and
  the last task level carries ε Σ_c ‖w_c‖² (ε in the level's cost units per N², N·m) instead, as TSID's and
  PlaCo's force regularisation do: one level fewer to solve, at a bias of the answer of order ε
  relative to the task cost's curvature along the directions the wrenches move (about ε/λ where only the
  regulariser λ holds q̈). As ε → 0 the answer tends to the exact one (the least-norm split of the
  optimal q̈).

τ follows from the actuated rows of the equations of motion, ``τ = M_a q̈ + h_a − Σ_c J_c,aᵀ w_c``.
Known external wrenches (:meth:`InverseDynamicsScene.set_external_wrench`: a carried load, a measured
force) enter the equations of motion, ``M q̈ + h = Sᵀτ + Σ_c J_cᵀ w_c + Σ_e J_eᵀ w_e``
(:mod:`~wbcpy.contacts.external`), and so the contact wrenches and τ the scene finds.
Per control step::

    robot.update(q, v)
    scene.set_reference("com", ComReference(a_com))     # PD laws: wbcpy.controllers
    cmd = scene.solve(scene.update())                   # cmd.acceleration, cmd.effort (actuated DOFs)
    scene.get_contact_wrenches()                        # {frame: wrench} of the active contacts

Without contacts and with a fixed base this is AccelerationScene with torques τ = M q̈ + h.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import numpy as np

from .._support.read_only import ClassConstant
from ..contacts.constraints import ContactConstraints, ContactLayout
from ..contacts.contacts import Contact, as_contacts
from ..contacts.external import ExternalWrenches
from ..contacts.transition import LoadingRamp, UnloadingRamp, transition_duration
from ..errors import ConfigError, ConfigKeyError, InvalidValueError
from ..limits.effort_limits import effort_limit_vector
from ..model.robot_model import RobotModel
from ..qp import HierarchicalQP, QPLevel, QPSolver, default_solver
from ..tasks import Task, TaskConfig, task_type
from ..tasks.contact_task import ContactTask
from ..tasks.registry import TorqueRowsTask
from ._plan import ScenePlan
from .acceleration_scene import AccelerationScene
from .aliases import InverseDynamicsAliases
from .joint_command import JointCommand, NoSolutionError
from .values import non_negative

#: backend options the scene's levels need: its level 0 is semidefinite in the wrench split (no row
#: covers it), where DAQP runs proximal-point iterations whose default stopping tolerance leaves a
#: stationarity error of ~1e-4 relative that the KKT certificate rightly rejects. A fixed proximal weight
#: 1e-8 (instead of DAQP's automatic one) converges in 4 iterations instead of 6 (Talos standing, the
#: states of bench_contact, every answer certified; weights 1e-9 and 1e-10 take as many iterations; the
#: step's cost: docs/benchmarks.md). Stopping at 1e-10 takes 3 (1e-12 and 1e-11 take 4), and leaves a
#: stationarity error ≤ 1e-10 relative, every answer certified as it is, none refined, no fallback.
BACKEND_OPTIONS: dict[str, dict[str, Any]] = {"daqp": {"eta_prox": 1e-10, "eps_prox": 1e-8}}


def _solver(solver: Any) -> Any:
    """A backend name (or None: the default backend) as a QPSolver with :data:`BACKEND_OPTIONS`."""
    if solver is None or (isinstance(solver, str) and solver):
        name = solver if solver is not None else default_solver()
        # (DAQP's answers need no tightening here: see QPSolver's tighten; an unknown name: ConfigKeyError)
        return QPSolver(name, tighten=name != "daqp", **BACKEND_OPTIONS.get(name, {}))
    return solver


def _copied(value: Any) -> Any:
    """The effort-limit option as kept: a mapping copied (a caller's later edit changes nothing)."""
    return dict(value) if isinstance(value, Mapping) else value


def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


#: what a contact set built, kept across switches (InverseDynamicsScene._layout_changed): its layout,
#: constraints, wrench bounds, λ rows and row plan (the last two None until the next update builds them)
_ContactSet = tuple[
    ContactLayout,
    ContactConstraints,
    "tuple[np.ndarray, np.ndarray] | None",
    "_LayoutRows | None",
    "ScenePlan | None",
]


class _LayoutRows:
    """Constant arrays of one (layout, joint weights) pair, shared read-only by the levels handed out."""

    __slots__ = ("bounds", "last", "n", "nv", "reg", "reg_q", "reg_w", "wrench", "zeros_n", "zeros_w")

    def __init__(self, reg_q: np.ndarray, nv: int, n: int, reg_w: float) -> None:
        self.reg_q, self.nv, self.n, self.reg_w = reg_q, nv, n, reg_w
        reg = np.zeros(n)
        reg[:nv] = reg_q
        self.reg = _readonly(reg)
        # (plan, λ rows, their targets, r) of the last task level
        self.last: tuple[ScenePlan, np.ndarray, np.ndarray, np.ndarray] | None = None
        self.zeros_n = _readonly(np.zeros(n))
        mw = n - nv
        wrench = np.zeros((mw, n))
        wrench[np.arange(mw), nv + np.arange(mw)] = 1.0
        self.wrench = _readonly(wrench)
        self.zeros_w = _readonly(np.zeros(mw))
        self.bounds: tuple[np.ndarray | None, np.ndarray | None] | None = None

    def wrench_only_bounds(
        self, wrench_bounds: tuple[np.ndarray, np.ndarray] | None
    ) -> tuple[np.ndarray | None, np.ndarray | None]:
        """(lb, ub) on x when q̈ has no bounds: −∞/+∞ on q̈, then the layout's wrench bounds (read-only,
        built on first use); (None, None) without wrench bounds."""
        if self.bounds is None:
            if wrench_bounds is None:
                self.bounds = (None, None)
            else:
                inf = np.full(self.nv, np.inf)
                self.bounds = (
                    _readonly(np.concatenate((-inf, wrench_bounds[0]))),
                    _readonly(np.concatenate((inf, wrench_bounds[1]))),
                )
        return self.bounds

    def last_level(self, plan: ScenePlan) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(λ rows, zero targets, diagonal r) of the plan's last task level (cached per plan): the
        regulariser λ/ω_j stays diagonal on the DOFs an active joint-task row of that level selects, and
        is a row √(λ/ω_j) e_j on the others (same cost; the rows then fix every q̈ direction below); the
        wrench regulariser ε is diagonal on every wrench entry (0: none, the least-norm level follows)."""
        if self.last is None or self.last[0] is not plan:
            nv, n = self.nv, self.n
            covered = np.zeros(nv, dtype=bool)
            for task in plan.levels[-1].tasks if plan.levels else ():
                covered[task.selected_dofs()] = True
            free = np.flatnonzero(~covered)
            lam = np.zeros((free.size, n))
            lam[np.arange(free.size), free] = np.sqrt(self.reg_q[free])
            reg = np.zeros(n)
            reg[:nv][covered] = self.reg_q[covered]
            reg[nv:] = self.reg_w
            self.last = (plan, _readonly(lam), _readonly(np.zeros(free.size)), _readonly(reg))
        return self.last[1:]


class InverseDynamicsScene(AccelerationScene, InverseDynamicsAliases):
    """Prioritised tasks under rigid contacts, friction and torque limits; outputs q̈, τ and wrenches.

    Its attributes are AccelerationScene's and these three.

    Attributes:
        effort_limits: the option as given (False, True or a mapping; settable: the limits and the
            contact constraints are rebuilt).
        effort_limit: |τ| limit per actuated DOF (inf: none), or None without effort limits (read-only).
        wrench_regularization: ε ≥ 0 of the wrenches' regulariser (0: exact least-norm split; settable).
    """

    #: (the λ rows of the last level, cached per plan, go with the plan: left out of copies)
    _PLAN_ATTRIBUTES: ClassVar[tuple[str, ...]] = (
        *AccelerationScene._PLAN_ATTRIBUTES,
        "_rows",
        "_contact_sets",
    )

    needs_dynamics = ClassConstant(True)

    def __init__(
        self,
        robot: RobotModel,
        solver: Any = None,
        dt: float = 0.001,
        regularization: float = 1e-8,
        joint_limits: bool = False,
        effort_limits: Any = False,
        clock: Callable[[], float] = time.monotonic,
        wrench_regularization: float = 0.0,
        **options: Any,
    ) -> None:
        """Create a scene without contacts and tasks; call :meth:`set_contacts` and :meth:`configure`.

        Args:
            robot: the robot (a free-flyer joint is unactuated; every other DOF has an actuator).
            solver: as :class:`AccelerationScene`; a backend name (or None) gets the options of
                :data:`BACKEND_OPTIONS` (daqp: ``eta_prox=1e-10``); a QPSolver is used as given.
            dt, regularization, joint_limits, clock, options: as :class:`AccelerationScene`.
            effort_limits: False, True (URDF limits) or ``{joint_name: limit}`` (N·m or N; the others keep
                their URDF limit): hard bounds |τ_j| ≤ limit (:mod:`~wbcpy.limits.effort_limits`).
            wrench_regularization: ε ≥ 0 (default 0: the exact least-norm wrench level); ε > 0 puts
                ε Σ_c ‖w_c‖² in the last task level instead (see the module docstring; settable).

        Raises:
            ConfigError: an invalid option (field named); ConfigKeyError for unknown names.
        """
        reg_w = non_negative(wrench_regularization, "wrench_regularization", "a finite number")
        super().__init__(robot, solver, dt, regularization, joint_limits, clock, **options)
        self._wrench_regularization = reg_w
        self._effort_limit = effort_limit_vector(robot, effort_limits, self._actuated)
        self._effort_limits = _copied(effort_limits)
        self._contacts: list[Contact] = []
        self._external = ExternalWrenches(robot)
        #: running unloading and loading transitions by frame
        self._unloading: dict[str, UnloadingRamp] = {}
        self._loading: dict[str, LoadingRamp] = {}
        self._layout_changed()

    def _as_solver(self, solver: Any) -> Any:
        """As the base scene's, with :data:`BACKEND_OPTIONS` for a backend name."""
        return super()._as_solver(_solver(solver))

    @property
    def effort_limits(self) -> Any:
        """The effort-limit option (False, True or ``{joint_name: limit}``; settable: the limits and the
        contact constraints are rebuilt; a copy of a mapping)."""
        return _copied(self._effort_limits)

    @effort_limits.setter
    def effort_limits(self, value: Any) -> None:
        limit = effort_limit_vector(self._robot, value, self._actuated)
        self._effort_limit, self._effort_limits = limit, _copied(value)
        self._layout_changed()

    @property
    def wrench_regularization(self) -> float:
        """ε ≥ 0 of ε Σ_c ‖w_c‖² in the last task level (0: the exact least-norm wrench level instead;
        settable)."""
        return self._wrench_regularization

    @wrench_regularization.setter
    def wrench_regularization(self, value: float) -> None:
        self._wrench_regularization = non_negative(value, "wrench_regularization", "a finite number")
        self._drop_level_rows()

    @property
    def effort_limit(self) -> np.ndarray | None:
        """|τ| limit per actuated DOF (inf: none; a copy), or None without effort limits."""
        return None if self._effort_limit is None else self._effort_limit.copy()

    # ------------------------------------------------------------------ contacts
    def set_contacts(self, contacts: Any) -> None:
        """Replace the contacts (SurfaceContact / PointContact objects or mappings with ``type``).

        Raises:
            ConfigError: an invalid contact field (``contacts[i].field``), two contacts on one frame, or a
                configured wrench task whose frame would lose its contact (or change its wrench size).
            ConfigKeyError: an unknown frame, type or key. Nothing changes on error.
        """
        new = as_contacts(self.robot, contacts)
        by_frame = {c.frame: c for c in new}
        for t in self._contact_tasks():
            c = by_frame.get(t.frame)
            why = "has no contact" if c is None else t.contact_mismatch(t.config, c)
            if why is not None:
                raise ConfigError(
                    "contacts", f"{t.type} task {t.name!r} needs its frame {t.frame!r}, which then: {why}"
                )
        self._contacts = new
        self._unloading, self._loading = {}, {}
        self._layout_changed()

    @property
    def contacts(self) -> list[Contact]:
        """Copies of the contacts (with their current ``active`` flags); a contact being unloaded or loaded
        (:meth:`set_contact_active` with a transition) has ``unloading`` or ``loading`` = the time left
        (s), else None."""
        out = [c.copy() for c in self._contacts]
        for c in out:
            ramp = self._unloading.get(c.frame)
            c.unloading = None if ramp is None else ramp.time_left
            load = self._loading.get(c.frame)
            c.loading = None if load is None else load.time_left
        return out

    @property
    def active_contact_frames(self) -> list[str]:
        """Frames of the active contacts, in contact order (a new list)."""
        return [c.frame for c in self._layout.contacts]

    def set_contact_active(self, frame: str, active: bool, transition: float = 0.0) -> None:
        """Lift (False) or put back (True) the contact on ``frame``.

        With ``active=False`` and ``transition=T > 0`` the contact is unloaded smoothly
        (:class:`~wbcpy.contacts.transition.UnloadingRamp`): for T seconds of scene time (update() calls
        × dt) it stays active while its normal-force upper bound falls linearly from its current normal
        force (the last solve's f_z, or fz_max when finite and smaller; m·g before any solve) to 0, then
        it is deactivated. With ``active=True`` and ``transition=T > 0`` it is loaded smoothly
        (:class:`~wbcpy.contacts.transition.LoadingRamp`): active at once, its normal-force upper bound
        rises linearly over T from 0 (or from the bound of the unloading ramp it interrupts; a contact
        already active and not being unloaded is left as it is) to fz_max (m·g when fz_max is
        infinite). ``transition=0`` switches at once and ends a running transition.

        Raises:
            ConfigKeyError: ``frame`` has no contact (field ``frame``; also a KeyError).
            ConfigError: ``active`` is not a bool, ``transition`` not a finite number ≥ 0.
        """
        contact = next((c for c in self._contacts if isinstance(frame, str) and c.frame == frame), None)
        if contact is None:
            raise ConfigKeyError("frame", "contact frame", frame, [c.frame for c in self._contacts])
        if not isinstance(active, (bool, np.bool_)):
            raise ConfigError("active", f"must be true or false, got {active!r}")
        duration = transition_duration(transition)
        if not active and duration > 0.0 and contact.active:
            self._loading.pop(frame, None)
            if frame not in self._unloading:
                self._unloading[frame] = UnloadingRamp(self._normal_force(contact), duration, self.dt)
            return
        self._set_loading(contact, bool(active), duration)
        if contact.active != bool(active):
            contact.active = bool(active)
            self._layout_changed(switch=True)

    def _set_loading(self, contact: Contact, active: bool, duration: float) -> None:
        """:meth:`set_contact_active`'s ramps when the contact does not start unloading: a running unloading
        ends; a contact put back over ``duration`` > 0 s (inactive, or interrupting its unloading) loads
        from 0 (or the interrupted ramp's bound) to fz_max (m·g when infinite); a contact lifted, or
        switched at once, ends its loading."""
        frame = contact.frame
        unloading = self._unloading.pop(frame, None)
        if active and duration > 0.0 and (unloading is not None or not contact.active):
            start = 0.0 if unloading is None else unloading.bound
            end = contact.fz_max if np.isfinite(contact.fz_max) else self.robot.total_mass * 9.81
            self._loading[frame] = LoadingRamp(start, end, duration, self.dt)
        elif not active or duration == 0.0:
            self._loading.pop(frame, None)

    # ------------------------------------------------------------------ external wrenches
    def set_external_wrench(self, frame: str, wrench: Any) -> None:
        """A known wrench on the robot at ``frame`` from the next :meth:`update` on (replaces the frame's
        previous one): a load carried in a hand, a force sensor's reading, a measured push.

        It enters the equations of motion ``M q̈ + h = Sᵀτ + Σ_c J_cᵀ w_c + J_eᵀ w_e`` (J_e: the frame's
        Jacobian in its own axes), so that the contact wrenches and τ compensate it.

        Args:
            frame: a frame of the robot.
            wrench: 6 numbers, force (N) over torque (N·m), in the frame's own axes, about its origin,
                exerted on the robot (the contact-wrench convention).

        Raises:
            UnknownNameError: an unknown frame (a KeyError listing close names).
            InvalidValueError: not 6 finite numbers. Nothing changes on error.
        """
        self._external.set(frame, wrench)

    def set_external_wrenches(self, wrenches: Any) -> None:
        """Set several external wrenches ``{frame: wrench}`` at once (see :meth:`set_external_wrench`);
        all are checked before any is set.

        Raises:
            ConfigError: not a mapping; UnknownNameError, InvalidValueError: as set_external_wrench.
        """
        self._external.update(wrenches)

    def clear_external_wrenches(self) -> None:
        """Remove every external wrench (from the next :meth:`update` on)."""
        self._external.clear()

    @property
    def external_wrenches(self) -> dict[str, np.ndarray]:
        """``{frame: wrench}`` of the external wrenches in use (new arrays; frame axes, on the robot)."""
        return self._external.as_dict()

    def _normal_force(self, contact: Contact) -> float:
        """Where an unloading ramp starts: the last solve's f_z, at most a finite fz_max (N)."""
        last = self.get_contact_wrenches().get(contact.frame) if self._wrenches is not None else None
        force = float(last[contact.normal_index]) if last is not None else self.robot.total_mass * 9.81
        return max(0.0, min(force, contact.fz_max))

    def _advance_transitions(self) -> None:
        """One update()'s step of the ramps: finished unloading ones deactivate their contact, finished
        loading ones give it its own bound back."""
        for frame in [frame for frame, ramp in self._loading.items() if ramp.advance()]:
            del self._loading[frame]
        done = [frame for frame, ramp in self._unloading.items() if ramp.advance()]
        for frame in done:
            del self._unloading[frame]
            next(c for c in self._contacts if c.frame == frame).active = False
        if done:
            self._layout_changed(switch=True)

    def _layout_changed(self, switch: bool = False) -> None:
        """The contacts, the tasks or the joint weights changed (``switch``: only which contacts are
        active): the layout, its constraints, wrench bounds and row plan follow.

        A switch keeps what the outgoing contact set built (layout, constraints, bounds, λ rows, row plan)
        and takes the incoming set's from the last time it was active, so that a walk, which alternates
        between a few sets, rebuilds nothing at a touch-down or lift-off (the step right after a switch
        costs what any other step costs). Any other change drops them all. The row plan stays valid
        across switches: :meth:`ScenePlan.valid` checks the tasks' versions and timeouts at every update.
        """
        kept_sets: dict[tuple[str, ...], _ContactSet] | None = getattr(self, "_contact_sets", None)
        sets = kept_sets if switch and kept_sets is not None else {}
        if switch and kept_sets is not None:
            outgoing = tuple(c.frame for c in self._layout.contacts)
            sets[outgoing] = (self._layout, self._constraints, self._wrench_bounds, self._rows, self._plan)
        key = tuple(c.frame for c in self._contacts if c.active)
        kept = sets.get(key)
        if kept is None:
            layout = ContactLayout(self._dof_names, self._contacts, self.loop_closures)
            constraints = ContactConstraints(
                self._robot, layout, self._actuated, self._effort_limit, self._external
            )
            kept = (layout, constraints, layout.wrench_bounds(), None, None)
        self._layout: ContactLayout = kept[0]
        self._constraints: ContactConstraints = kept[1]
        self._wrench_bounds: tuple[np.ndarray, np.ndarray] | None = kept[2]
        self._rows: _LayoutRows | None = kept[3]
        self._plan = kept[4]
        self._contact_sets: dict[tuple[str, ...], _ContactSet] | None = sets
        #: the configured contact and torque tasks (the tasks change only by configure(), which calls
        #: this method): they are told the layout, the torque rows and the solution
        self._wrench: list[ContactTask] = self._contact_tasks()
        for t in self._wrench:
            contact = next(c for c in self._contacts if c.frame == t.frame)
            t.bind(contact, self._layout.columns(t.frame))
        tasks = getattr(self, "_tasks", ())
        self._torque_tasks: list[TorqueRowsTask] = [t for t in tasks if task_type(t.type).needs_torques]

    def _contact_tasks(self) -> list[ContactTask]:
        return [t for t in getattr(self, "_tasks", ()) if task_type(t.type).needs_contacts]

    # ------------------------------------------------------------------ configuration
    def _make_task(self, cfg: TaskConfig, prefix: str) -> Task:
        spec = task_type(cfg.type, f"{prefix}type")
        if spec.needs_torques:
            task: Task = spec.task_class(self.robot, cfg, prefix, self.task_level)
            return task
        if not spec.needs_contacts:
            return super()._make_task(cfg, prefix)
        key = spec.task_class.contact_field
        frame = getattr(cfg, key)
        contact = next((c for c in self._contacts if c.frame == frame), None)
        if contact is None:
            raise ConfigKeyError(f"{prefix}{key}", "contact frame", frame, [c.frame for c in self._contacts])
        task = spec.task_class(self.robot, cfg, contact, prefix)
        return task

    def configure(self, configs: Any) -> None:
        """As :meth:`AccelerationScene.configure`, plus ``wrench`` tasks on the contacts' frames.

        Raises:
            ConfigError: as AccelerationScene; a wrench task whose frame has no contact
                (:class:`ConfigKeyError`, field ``tasks[i].frame``) or whose weight count is not the
                contact's wrench size.
        """
        super().configure(configs)
        self._layout_changed()

    def _joint_weights_changed(self) -> None:
        super()._joint_weights_changed()
        self._drop_level_rows()

    def _drop_level_rows(self) -> None:
        """The regularisers changed (joint weights, λ or ε): the λ and ε rows are rebuilt at the next
        update, and the kept contact sets' rows and plans, built with the old values, are dropped."""
        self._rows = None
        self._contact_sets = None

    def _loops_changed(self) -> None:
        """The loop closures changed: their wrenches are variables, the layout is rebuilt."""
        self._layout_changed()

    def _reset_output(self) -> None:
        super()._reset_output()
        self._tau: np.ndarray | None = None
        #: the last solution's x and its layout (the wrenches are read from it on demand)
        self._wrenches: tuple[np.ndarray, ContactLayout] | None = None
        self._torque_rows: tuple[np.ndarray, np.ndarray, ContactLayout] | None = None

    # ------------------------------------------------------------------ problem
    def _layout_rows(self) -> _LayoutRows:
        if self._rows is None:
            self._rows = _LayoutRows(self._reg, self.robot.nv, self._layout.n, self._wrench_regularization)
        return self._rows

    def _full_bounds(
        self, lb: np.ndarray | None, ub: np.ndarray | None
    ) -> tuple[np.ndarray | None, np.ndarray | None]:
        """The bounds on x: ``lb, ub`` on q̈ (or None), then the wrench bounds, with the unloading and
        loading ramps' upper bounds on f_z. Without bounds on q̈ and without a running ramp they are the
        layout's own (read-only arrays shared by the problems handed out, like the regularisation: built
        once per layout, :meth:`_LayoutRows.wrench_only_bounds`)."""
        if lb is None and ub is None:
            lo, hi = self._layout_rows().wrench_only_bounds(self._wrench_bounds)
            if not self._unloading and not self._loading:
                return lo, hi
            n = self._layout.n
            lo, hi = (
                (lo.copy(), hi.copy())
                if lo is not None and hi is not None
                else (np.full(n, -np.inf), np.full(n, np.inf))
            )
        else:
            wb = self._wrench_bounds
            nv, mw = self.robot.nv, self._layout.n - self.robot.nv
            qlb = lb if lb is not None else np.full(nv, -np.inf)
            qub = ub if ub is not None else np.full(nv, np.inf)
            wlb, wub = wb if wb is not None else (np.full(mw, -np.inf), np.full(mw, np.inf))
            lo, hi = np.concatenate((qlb, wlb)), np.concatenate((qub, wub))
        layout = self._layout
        for c, sl in zip(layout.contacts, layout.slices, strict=True):
            ramp: UnloadingRamp | LoadingRamp | None = self._unloading.get(c.frame)
            if ramp is None:
                ramp = self._loading.get(c.frame)
            if ramp is not None:
                iz = sl.start + c.normal_index
                hi[iz] = min(hi[iz], ramp.bound)
                lo[iz] = min(lo[iz], hi[iz])
        return lo, hi

    def update(self) -> HierarchicalQP:
        """Build the hierarchical QP over (q̈, wrenches) from the robot's state and the references.

        Returns:
            A :class:`~wbcpy.qp.HierarchicalQP` (see the module docstring for its levels); its variable
            names are the DOF names, then ``<frame>:fx`` … of the active contacts.

        Raises:
            StateNotSetError: the robot has no state yet.
            ConfigError: the scene has no tasks (configure() was never called).
        """
        robot = self.robot
        measured = robot.state_view("scene update")[2]
        if not self._tasks:
            raise ConfigError("tasks", "the scene has no tasks: call configure() first")
        now = float(self._clock())
        if self._unloading or self._loading:
            self._advance_transitions()
        layout, rows = self._layout, self._layout_rows()
        plan = self._plan
        if plan is None or not plan.valid(now):
            plan = self._plan = ScenePlan(self._groups, now, robot.nv, layout.n)
        E, f, C, lo, hi, T, h_a = self._constraints.update()  # first: computeAllTerms serves the tasks too
        for t in self._torque_tasks:
            t.set_torque_rows(T, h_a, self._actuated)
        # λ as rows on the last task level: the next level keeps q̈ at this optimum
        levels, prios = plan.build_levels(rows.reg, robot.nv, rows.last_level(plan))
        first = levels[0]
        first.E, first.f, first.C, first.lbC, first.ubC = E, f, C, lo, hi
        if layout.n > robot.nv and not rows.reg_w:
            levels.append(QPLevel(rows.wrench.copy(), rows.zeros_w.copy(), rows.zeros_n))
        lb, ub = self._full_bounds(*self._bounds())
        self._add_collision_rows(first, lb, ub, layout.n)
        if self._com_polygon is not None:
            self._add_constraint_rows(first, layout.n, loops=False)  # (the loops are in the layout)
        self._torque_rows = (T, h_a, layout)
        return self._keep_problem(HierarchicalQP(levels, layout.names, lb, ub), list(prios), now, measured)

    def relax_contacts(self, hqp: HierarchicalQP | None = None) -> HierarchicalQP:
        """The problem of the last :meth:`update` (or ``hqp``, one of its copies) with its contacts held as
        closely as the limits allow instead of exactly: the contact rows ``J_c q̈ + a_c = −K_d J_c v`` become
        the least-squares rows of a first level of their own, under the same hard constraints (equations of
        motion, friction cones, normal-force bounds — a running transition's ramp lifted —, effort limits,
        joint limits and collision rows, loop closures); the task levels follow, unchanged.

        With a floating base and no joint limits it always has an answer (τ = 0, no wrench, q̈ = −M⁻¹h
        satisfies every constraint kept): a controller whose contacts cannot all be held (soles that
        collide, a foot that slips off) still gets torques within their limits and wrenches within their
        cones, the contacts' accelerations as close to their targets as they allow.

        Raises:
            NoSolutionError: no problem given and :meth:`update` never called.
        """
        hqp = self._hqp if hqp is None else hqp
        if hqp is None or self._torque_rows is None:
            raise NoSolutionError("problem")
        first = hqp.levels[0]
        nu = self.robot.nv - len(self._actuated)
        mc = sum(c.size for c in self._layout.contacts)
        out = hqp.copy()
        if first.E is None or first.f is None or mc == 0:
            return out
        keep = np.r_[0:nu, nu + mc : first.E.shape[0]]
        E, f = (first.E[keep], first.f[keep]) if keep.size else (None, None)
        rows = QPLevel(first.E[nu : nu + mc].copy(), first.f[nu : nu + mc].copy(), np.zeros(hqp.n), E, f,
                       first.C, first.lbC, first.ubC)  # fmt: skip
        out.levels[0].E = out.levels[0].f = out.levels[0].C = out.levels[0].lbC = out.levels[0].ubC = None
        out.levels.insert(0, rows)
        if out.ub is not None and out.lb is not None:
            for c, sl in zip(self._layout.contacts, self._layout.slices, strict=True):
                iz = sl.start + c.normal_index
                out.lb[iz], out.ub[iz] = c.fz_min, c.fz_max
        return out

    # ------------------------------------------------------------------ solution
    def _set_solution(self, x: np.ndarray) -> None:
        if self._torque_rows is None or x.shape[0] != self._torque_rows[2].n:
            n = None if self._torque_rows is None else self._torque_rows[2].n
            raise InvalidValueError(
                "hqp", (n,), x.shape, reason="not a problem of this scene's last update()"
            )
        T, h_a, layout = self._torque_rows
        tau = T.dot(x)  # (ndarray.dot: less dispatch work than the matmul operator, same product)
        tau += h_a
        for t in self._wrench:
            t.set_solution(x)
        for torque_task in self._torque_tasks:
            torque_task.set_solution(x)
        self._qdd = x[: layout.nv]  # (a view: x is the solver's new array, kept by the scene alone)
        self._tau = tau
        self._wrenches = (x, layout)

    def _command(self) -> JointCommand:
        qdd, tau = self._qdd, self._tau
        if qdd is None or tau is None:
            raise NoSolutionError()
        return JointCommand(list(self._actuated_names), qdd[self._actuated_index].copy(), effort=tau.copy())

    def get_joint_torques(self) -> np.ndarray:
        """τ of the actuated DOFs (N·m or N) of the last solve (a new array; same as ``cmd.effort``).

        Raises:
            NoSolutionError: before the first successful :meth:`solve`.
        """
        if self._tau is None:
            raise NoSolutionError("joint torques")
        return self._tau.copy()

    def get_contact_wrenches(self) -> dict[str, np.ndarray]:
        """``{frame: wrench}`` of the contacts active at the last solve: what the environment exerts on
        the robot, contact-frame axes, about its origin (force over torque; the force for a point contact).

        Raises:
            NoSolutionError: before the first successful :meth:`solve`.
        """
        if self._wrenches is None:
            raise NoSolutionError("contact wrenches")
        x, layout = self._wrenches
        w = x[layout.nv :].copy()  # (one new array; each wrench is a view of its own part of it)
        return {frame: w[s] for frame, s in layout.frame_slices}

    def get_loop_wrenches(self) -> dict[str, np.ndarray]:
        """``{name: λ}`` of the loop closures at the last solve: the wrench each loop exerts on its
        ``frame_a``, in frame_a's axes about its origin (force over torque; the force of a ``"3d"`` loop),
        frame_b receiving the opposite (:mod:`~wbcpy.contacts.loop_closure`). New arrays.

        Raises:
            NoSolutionError: before the first successful :meth:`solve`.
        """
        if self._wrenches is None:
            raise NoSolutionError("loop wrenches")
        x, layout = self._wrenches
        return {name: x[s].copy() for name, s in layout.loop_slices}


#: ARC-OPT's name of this scene
AccelerationSceneTSID = InverseDynamicsScene
