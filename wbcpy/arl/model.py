"""``wbcpy.arl.Model``: a robot as named kinematic chains, modelled on AUTh-ARL's ``arl::robot::Model``.

The model holds an ordered list of :class:`~wbcpy.model.chain.Chain` objects over one
:class:`~wbcpy.model.robot_model.RobotModel`. The first ``main_chains`` chains are the *main* chains: they
share no
joint and together cover every DOF of the robot (a free-flyer root excepted), so their concatenation
defines the *global* joint index space ``0..N−1`` used by ``getJointName(joint)``,
``getJointLimit(joint)`` and ``getGlobalIndex(chain, joint)``. The other chains may share joints (for
example base → each joint link, used to read the pose of every link).

Threads, copies, pickles: a model is not changed after construction and its chains are safe to share,
so one model may serve many threads. ``copy.copy`` gives an independent model with new chains over the
same robot (chains never read the robot's state), ``copy.deepcopy`` and pickles also copy the robot;
chain rest configurations and tool offsets are kept.

Differences with the C++ seed: where it logged an error and returned NaN, (−π, π), 0 or an empty value,
wbcpy raises (:class:`~wbcpy.errors.UnknownNameError` for an unknown chain or joint,
:class:`~wbcpy.errors.ConfigError` for an inconsistent chain set, :class:`~wbcpy.errors.InvalidValueError`
for the limits of a joint that has none). Chains and joints are given by index or by name. The
snake_case methods are the API; the camelCase names of the seed are aliases.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeGuard

import numpy as np
import pinocchio as pin

from ..errors import ConfigError, ConfigKeyError, InvalidValueError, UnknownNameError
from ..model.chain import Chain
from ..model.robot_model import RobotModel
from .config import load_config, lock_joints, parse_chain_specs, parse_main_chains, robot_from_config


def _is_index(x: Any) -> TypeGuard[int | np.integer[Any]]:
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


class ChainFkSolver:
    """KDL-style forward-kinematics solver of one chain (``fk_solver[i]``)."""

    def __init__(self, chain: Chain) -> None:
        self.chain = chain

    def jnt_to_cart(self, q: Any) -> pin.SE3:
        """Tip placement in the chain base frame (:meth:`Chain.fk`)."""
        return self.chain.fk(q)

    JntToCart = jnt_to_cart  #: alias of :meth:`jnt_to_cart` (KDL name)


class ChainJacSolver:
    """KDL-style Jacobian solver of one chain (``jac_solver[i]``)."""

    def __init__(self, chain: Chain) -> None:
        self.chain = chain

    def jnt_to_jac(self, q: Any) -> np.ndarray:
        """Chain Jacobian (6×n, base axes, tip origin; :meth:`Chain.jacobian`)."""
        return self.chain.jacobian(q)

    JntToJac = jnt_to_jac  #: alias of :meth:`jnt_to_jac` (KDL name)


def _restore(
    robot: RobotModel,
    specs: list[tuple[str, str, str]],
    n_main: int,
    name: str,
    extras: list[tuple[Any, Any]],
) -> Model:
    """A :class:`Model` rebuilt from :meth:`Model.__reduce__`'s arguments."""
    model = Model(robot, specs, main_chains=n_main, name=name)
    for chain, (rest, offset) in zip(model.chain, extras, strict=True):
        chain.rest = rest
        chain.tip_offset = offset
    return model


class Model:
    """A robot as named kinematic chains (main chains first) over one :class:`RobotModel`.

    Attributes:
        robot: the :class:`RobotModel` (possibly reduced by ``locked_joints``).
        name: model name.
        chain: the :class:`Chain` objects, main chains first.
        chain_index: chain name → index.
        fk_solver, jac_solver: per-chain KDL-style solvers (``JntToCart(q)``, ``JntToJac(q)``).
    """

    def __init__(
        self,
        robot: RobotModel,
        chains: Sequence[Any],
        main_chains: int | None = None,
        name: str | None = None,
    ) -> None:
        """Build the chains and run :meth:`test`.

        Args:
            robot: the robot.
            chains: ``(name, base, tip)`` triples or ``{name, base, tip}`` mappings, main chains first.
            main_chains: how many of the first chains are main chains (default: all).
            name: model name (default the robot's).

        Raises:
            ConfigError: malformed chain specs, a bad ``main_chains``, a chain that cannot be built (tip not
                below base, no DOF), main chains that overlap or leave DOF uncovered.
            ConfigKeyError: a chain names an unknown frame (also a ``KeyError``).
        """
        specs = parse_chain_specs(chains)
        n_main = parse_main_chains(main_chains, len(specs))
        built: list[Chain] = []
        for i, (cname, base, tip) in enumerate(specs):
            field = f"chains[{i}] ({cname})"
            try:
                built.append(Chain(robot, base, tip, name=cname))
            except UnknownNameError as exc:
                raise ConfigKeyError(field, exc.kind, exc.name, exc.valid) from None
            except ConfigError as exc:
                raise ConfigError(field, exc.reason) from None
        self.robot = robot
        self.name = name or robot.name
        self.chain = built
        self.chain_index = {c.name: i for i, c in enumerate(built)}
        self.fk_solver = [ChainFkSolver(c) for c in built]
        self.jac_solver = [ChainJacSolver(c) for c in built]
        self._n_main = n_main
        self._joint_names = [j for c in built[:n_main] for j in c.joint_names]
        self._global = {j: g for g, j in enumerate(self._joint_names)}
        self.test()
        self._global_index = [np.array([self._global[j] for j in c.joint_names]) for c in built]
        g_dofs = np.concatenate([c.dof_indices for c in built[:n_main]])
        self._lower = robot.dof_lower_limit[g_dofs]
        self._upper = robot.dof_upper_limit[g_dofs]
        self._velocity = robot.velocity_limit[g_dofs]

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle and copies: the robot, the chain specs and each chain's rest values and tool offset."""
        specs = [(c.name, c.base, c.tip) for c in self.chain]
        extras = [(c.rest, c.tip_offset) for c in self.chain]
        return (_restore, (self.robot, specs, self._n_main, self.name, extras))

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_urdf(
        cls,
        source: str | Path,
        chains: Sequence[Any],
        main_chains: int | None = None,
        name: str | None = None,
        locked_joints: Sequence[str] | Mapping[str, float] | None = None,
        **load_kwargs: Any,
    ) -> Model:
        """Load a robot (URDF path, URDF XML or registry name), lock joints, and build the chains.

        Args:
            source: anything :func:`wbcpy.model.registry.load_robot` accepts.
            chains, main_chains, name: see :class:`Model`.
            locked_joints: joint names, or a mapping name → value (rad or m), removed from the model at
                that value (see :func:`wbcpy.arl.config.lock_joints`).
            **load_kwargs: passed to :func:`~wbcpy.model.registry.load_robot` (``floating_base``,
                ``gravity``...).
        """
        from ..model.registry import load_robot

        robot = lock_joints(load_robot(source, **load_kwargs), locked_joints)
        return cls(robot, chains, main_chains=main_chains, name=name)

    @classmethod
    def from_config(cls, config: Mapping[str, Any] | str | Path, robot: RobotModel | None = None) -> Model:
        """Build a model from a configuration mapping or YAML file (format: :mod:`wbcpy.arl.config`).

        Args:
            config: the mapping, or the path of a YAML file (``urdf`` is relative to its folder).
            robot: use this robot instead of the configuration's ``urdf``/``robot``/``floating_base``
                (which are then ignored); ``locked_joints`` still applies.

        Raises:
            ConfigError: a missing/invalid file, unknown keys, or any error of :class:`Model`.
        """
        data, folder = load_config(config)
        if "chains" not in data:
            raise ConfigError("chains", "missing (a list of {name, base, tip})")
        if "main_chains" not in data:
            raise ConfigError("main_chains", "missing (the number of main chains)")
        name = data.get("name")
        if name is not None and not isinstance(name, str):
            raise ConfigError("name", f"expected a string, got {name!r}")
        parse_main_chains(data["main_chains"], len(parse_chain_specs(data["chains"])))
        if robot is None:
            robot = robot_from_config(data, folder)
        robot = lock_joints(robot, data.get("locked_joints"))
        return cls(robot, data["chains"], main_chains=data["main_chains"], name=name)

    # ------------------------------------------------------------------ consistency
    def test(self) -> None:
        """Check the chain set; raise :class:`ConfigError` naming the joints at fault.

        Checks: the main chains share no joint, and every moving joint of the robot (a free-flyer root
        excepted) belongs to a main chain. The constructors run it; it returns None when all is well.
        """
        main = self.chain[: self._n_main]
        owner: dict[str, str] = {}
        for c in main:
            shared = [j for j in c.joint_names if j in owner]
            if shared:
                others = sorted({owner[j] for j in shared})
                raise ConfigError(
                    "main_chains",
                    f"main chain {c.name!r} shares joint(s) {', '.join(shared)} with main chain(s) "
                    f"{', '.join(others)}; main chains must be mutually exclusive",
                )
            owner.update(dict.fromkeys(c.joint_names, c.name))
        model = self.robot.model
        skip = 1 if self.robot.floating_base else 0
        uncovered = [
            model.names[j]
            for j in range(1 + skip, model.njoints)
            if model.joints[j].nv and model.names[j] not in owner
        ]
        if uncovered:
            raise ConfigError(
                "main_chains",
                f"joint(s) {', '.join(uncovered)} are not in any main chain; add them to a main chain or "
                "remove them with locked_joints",
            )

    # ------------------------------------------------------------------ index resolution
    def _chain_id(self, chain: int | str) -> int:
        if _is_index(chain):
            if 0 <= chain < len(self.chain):
                return int(chain)
        elif isinstance(chain, str) and chain in self.chain_index:
            return self.chain_index[chain]
        valid = list(self.chain_index) + [str(i) for i in range(len(self.chain))]
        raise UnknownNameError("chain", chain, valid)

    def _chain_joint(self, chain: int | str, joint: int | str) -> tuple[int, int]:
        c = self._chain_id(chain)
        names = self.chain[c].joint_names
        if _is_index(joint):
            if 0 <= joint < len(names):
                return c, int(joint)
        elif isinstance(joint, str) and joint in names:
            return c, names.index(joint)
        raise UnknownNameError(f"joint of chain {self.chain[c].name!r}", joint, names)

    def _global_joint(self, joint: int | str) -> int:
        if _is_index(joint):
            if 0 <= joint < len(self._joint_names):
                return int(joint)
        elif isinstance(joint, str) and joint in self._global:
            return self._global[joint]
        raise UnknownNameError("joint (main chains)", joint, self._joint_names)

    def _resolve(self, chain_or_joint: int | str, joint: int | str | None) -> int:
        """Global index of ``joint`` of chain ``chain_or_joint``, or of global joint ``chain_or_joint``."""
        if joint is None:
            return self._global_joint(chain_or_joint)
        c, j = self._chain_joint(chain_or_joint, joint)
        return int(self._global_index[c][j])

    # ------------------------------------------------------------------ names and sizes
    def get_name(self) -> str:
        """Model name."""
        return self.name

    def get_nr_of_chains(self) -> int:
        """Number of chains (main and others)."""
        return len(self.chain)

    def get_nr_of_main_chains(self) -> int:
        """Number of main chains."""
        return self._n_main

    def get_chain_name(self, chain: int | str) -> str:
        """Name of a chain."""
        return self.chain[self._chain_id(chain)].name

    def get_chain_names(self) -> list[str]:
        """Names of every chain, main chains first."""
        return [c.name for c in self.chain]

    def get_nr_of_joints(self, chain: int | str | None = None) -> int:
        """Joints of a chain, or (``None`` or the seed's ``-1``) distinct DOF over the main chains."""
        if chain is None or (_is_index(chain) and chain == -1):
            return len(self._joint_names)
        return self.chain[self._chain_id(chain)].n

    def get_joint_names(self, chain: int | str | None = None) -> list[str]:
        """Joint names of a chain (base → tip), or of the main chains in global order."""
        if chain is None:
            return list(self._joint_names)
        return list(self.chain[self._chain_id(chain)].joint_names)

    def get_joint_name(self, chain_or_joint: int | str, joint: int | str | None = None) -> str:
        """``get_joint_name(joint)``: global joint; ``get_joint_name(chain, joint)``: joint of a chain."""
        return self._joint_names[self._resolve(chain_or_joint, joint)]

    def get_global_index(self, chain: int | str, joint: int | str) -> int:
        """Position of a chain's joint among the main-chain joints (chain ``-1``: ``joint`` is global)."""
        if _is_index(chain) and chain == -1:
            return self._global_joint(joint)
        return self._resolve(chain, joint)

    def get_global_indices(self, chain: int | str) -> np.ndarray:
        """Global indices of every joint of a chain (base → tip), a new int array."""
        return self._global_index[self._chain_id(chain)].copy()

    # ------------------------------------------------------------------ limits
    def _limit_or_raise(self, g: int) -> tuple[float, float]:
        lo, hi = float(self._lower[g]), float(self._upper[g])
        if not (np.isfinite(lo) and np.isfinite(hi)):
            raise InvalidValueError(
                "joint",
                "a joint with position limits",
                self._joint_names[g],
                reason=f"joint {self._joint_names[g]!r} has no position limits (continuous or unbounded)",
            )
        return lo, hi

    def get_joint_limit(
        self, chain_or_joint: int | str, joint: int | str | None = None
    ) -> tuple[float, float]:
        """``(lower, upper)`` position limit (rad or m) of a global joint, or of a chain's joint.

        Raises:
            UnknownNameError: unknown chain or joint.
            InvalidValueError: the joint has no limits (continuous).
        """
        return self._limit_or_raise(self._resolve(chain_or_joint, joint))

    def get_joint_limits(self, chain: int | str | None = None) -> np.ndarray:
        """(n, 2) ``[lower, upper]`` rows of a chain's joints, or of every main-chain joint (global order).

        Raises:
            InvalidValueError: some joint has no limits (every such joint is named).
        """
        g = np.arange(len(self._joint_names)) if chain is None else self._global_index[self._chain_id(chain)]
        out = np.column_stack((self._lower[g], self._upper[g]))
        bad = [self._joint_names[i] for i, row in zip(g, out, strict=True) if not np.isfinite(row).all()]
        if bad:
            raise InvalidValueError(
                "chain",
                "joints with position limits",
                bad,
                reason=f"joint(s) {', '.join(bad)} have no position limits",
            )
        return out

    def get_joint_velocity_limit(self, chain_or_joint: int | str, joint: int | str | None = None) -> float:
        """Velocity limit (rad/s or m/s) of a global joint, or of a chain's joint.

        Raises:
            InvalidValueError: the URDF gives no velocity limit for the joint.
        """
        g = self._resolve(chain_or_joint, joint)
        vel = float(self._velocity[g])
        if not np.isfinite(vel):
            raise InvalidValueError(
                "joint",
                "a joint with a velocity limit",
                self._joint_names[g],
                reason=f"joint {self._joint_names[g]!r} has no velocity limit",
            )
        return vel

    # ------------------------------------------------------------------ camelCase aliases of the seed
    getName = get_name  #: alias of :meth:`get_name`
    getNrOfChains = get_nr_of_chains  #: alias of :meth:`get_nr_of_chains`
    getNrOfMainChains = get_nr_of_main_chains  #: alias of :meth:`get_nr_of_main_chains`
    getChainName = get_chain_name  #: alias of :meth:`get_chain_name`
    getChainNames = get_chain_names  #: alias of :meth:`get_chain_names`
    getNrOfJoints = get_nr_of_joints  #: alias of :meth:`get_nr_of_joints`
    getJointNames = get_joint_names  #: alias of :meth:`get_joint_names`
    getJointName = get_joint_name  #: alias of :meth:`get_joint_name`
    getGlobalIndex = get_global_index  #: alias of :meth:`get_global_index`
    getJointLimit = get_joint_limit  #: alias of :meth:`get_joint_limit`
    getJointLimits = get_joint_limits  #: alias of :meth:`get_joint_limits`
    getJointVelocityLimit = get_joint_velocity_limit  #: alias of :meth:`get_joint_velocity_limit`

    def __repr__(self) -> str:
        return (
            f"arl.Model(name={self.name!r}, chains={self.get_chain_names()!r}, "
            f"main_chains={self._n_main}, joints={len(self._joint_names)})"
        )
