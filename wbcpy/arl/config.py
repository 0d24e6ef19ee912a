"""Chain configurations of :class:`wbcpy.arl.Model`: YAML/dict parsing and joint locking.

A configuration (``robots/bimanual_chains.yaml`` is an example) is a mapping::

    name: bimanual                 # optional, default: the robot's name
    urdf: bimanual.urdf            # URDF path, relative to the YAML file ...
    robot: baxter                  # ... or a registry name (wbcpy.model.registry.load_robot), not both
    floating_base: false           # optional, add a free-flyer root joint
    main_chains: 3                 # the first 3 chains are the main chains
    chains:                        # {name, base, tip} mappings or [name, base, tip] lists
      - {name: torso, base: base_link, tip: torso_link}
      - ...
    locked_joints: [a, b]          # optional: joint names (locked at neutral clipped to limits),
                                   # or a mapping name -> value (rad or m)

Locked joints are removed with Pinocchio's ``buildReducedModel`` at the given values; the result is
wrapped in a new :class:`~wbcpy.model.robot_model.RobotModel`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pinocchio as pin

from .._support.validation import as_float, short_repr
from ..errors import ConfigError, ConfigKeyError, InvalidValueError, UnknownNameError
from ..model.robot_model import RobotModel

#: keys a chain configuration may hold
CONFIG_KEYS = ("name", "urdf", "robot", "floating_base", "main_chains", "chains", "locked_joints")

#: one chain of a configuration: (name, base frame, tip frame)
ChainSpec = tuple[str, str, str]


def load_config(config: Mapping[str, Any] | str | Path) -> tuple[dict[str, Any], Path]:
    """Read a configuration mapping or YAML file; return it with the folder relative paths start from.

    Raises:
        ConfigError: missing or unreadable file, invalid YAML, not a mapping, or unknown keys
            (:class:`~wbcpy.errors.ConfigKeyError`).
    """
    if isinstance(config, Mapping):
        data, folder = dict(config), Path.cwd()
    elif isinstance(config, (str, Path)):
        import yaml

        path = Path(config).expanduser()
        if not path.is_file():
            raise ConfigError(str(path), "no such configuration file")
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(str(path), f"unreadable ({exc})") from None
        except yaml.YAMLError as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else "parse error"
            raise ConfigError(str(path), f"invalid YAML ({first})") from None
        if not isinstance(data, dict):
            raise ConfigError(str(path), f"expected a mapping at the top level, got {type(data).__name__}")
        folder = path.resolve().parent
    else:
        raise ConfigError("config", f"expected a mapping or a YAML path, got {type(config).__name__}")
    for key in data:
        if key not in CONFIG_KEYS:
            raise ConfigKeyError("config", "key", key, CONFIG_KEYS)
    return data, folder


def _chain_spec(item: Any, field: str) -> ChainSpec:
    """One chain entry: a ``{name, base, tip}`` mapping or a ``(name, base, tip)`` sequence of strings."""
    keys = ("name", "base", "tip")
    if isinstance(item, Mapping):
        extra = set(item) - set(keys)
        if extra:
            raise ConfigKeyError(field, "key", sorted(extra)[0], keys)
        missing = [k for k in keys if k not in item]
        if missing:
            raise ConfigError(field, f"missing {', '.join(missing)}")
        spec = tuple(item[k] for k in keys)
    elif isinstance(item, Sequence) and not isinstance(item, (str, bytes)) and len(item) == 3:
        spec = tuple(item)
    else:
        raise ConfigError(field, f"expected (name, base, tip) or a mapping, got {item!r}")
    if not all(isinstance(s, str) and s for s in spec):
        raise ConfigError(field, f"name, base and tip must be non-empty strings, got {spec!r}")
    return spec[0], spec[1], spec[2]


def parse_chain_specs(chains: Any) -> list[ChainSpec]:
    """Validate a list of chain specs: ``(name, base, tip)`` sequences or ``{name, base, tip}`` mappings.

    Raises:
        ConfigError: not a non-empty list, a malformed entry, or a duplicated chain name.
    """
    if isinstance(chains, (str, bytes)) or not isinstance(chains, Sequence) or len(chains) == 0:
        raise ConfigError("chains", "expected a non-empty list of (name, base, tip) entries")
    specs: list[ChainSpec] = []
    seen: set[str] = set()
    for i, item in enumerate(chains):
        spec = _chain_spec(item, f"chains[{i}]")
        if spec[0] in seen:
            raise ConfigError(f"chains[{i}]", f"duplicate chain name {spec[0]!r}")
        seen.add(spec[0])
        specs.append(spec)
    return specs


def parse_main_chains(main_chains: Any, n_chains: int) -> int:
    """Validate the number of main chains: an int in [1, n_chains] (None means every chain).

    Raises:
        ConfigError: not an integer or out of range.
    """
    if main_chains is None:
        return n_chains
    if isinstance(main_chains, bool) or not isinstance(main_chains, (int, np.integer)):
        raise ConfigError("main_chains", f"expected an integer, got {main_chains!r}")
    if not 1 <= int(main_chains) <= n_chains:
        raise ConfigError("main_chains", f"expected 1..{n_chains} (the number of chains), got {main_chains}")
    return int(main_chains)


def _locked_items(locked: Any) -> list[tuple[Any, Any]]:
    """``(name, value or None)`` pairs of the ``locked_joints`` option (names, or a mapping).

    Raises:
        ConfigError: neither.
    """
    if isinstance(locked, Mapping):
        return list(locked.items())
    if isinstance(locked, Sequence) and not isinstance(locked, (str, bytes)):
        return [(name, None) for name in locked]
    raise ConfigError("locked_joints", f"expected joint names or a mapping name -> value, got {locked!r}")


def _set_locked_value(robot: RobotModel, jid: int, value: Any, field: str, dof: np.ndarray) -> None:
    """Write the value a 1-DOF joint is locked at into the per-DOF vector ``dof`` (rad or m).

    Raises:
        ConfigError: a multi-DOF joint, a non-number, or a value outside the joint limits.
    """
    joint = robot.model.joints[jid]
    if joint.nv != 1:
        raise ConfigError(field, f"a value can only be given for 1-DOF joints ({joint.shortname()})")
    try:
        val = as_float(value, field, finite=False)
    except InvalidValueError:
        raise ConfigError(field, f"expected a number, got {short_repr(value)}") from None
    iv = joint.idx_v
    lo, hi = robot.dof_lower_limit[iv], robot.dof_upper_limit[iv]
    if not math.isfinite(val) or not lo <= val <= hi:
        raise ConfigError(field, f"value {val} is outside the joint limits [{lo}, {hi}]")
    dof[iv] = val


def lock_joints(robot: RobotModel, locked: Any) -> RobotModel:
    """A new :class:`RobotModel` without the ``locked`` joints (Pinocchio ``buildReducedModel``).

    Args:
        robot: the full robot (unchanged).
        locked: joint names, locked at Pinocchio's neutral value clipped to the joint limits, or a mapping
            name → value (rad or m, 1-DOF joints; continuous joints take an angle). ``None`` or empty
            returns ``robot`` itself.

    Raises:
        ConfigKeyError: an unknown joint name.
        ConfigError: a duplicated name, a non-finite value, a value outside the joint limits, or a value
            for a multi-DOF joint.
    """
    if not locked:
        return robot
    items = _locked_items(locked)
    if robot.mimic_joints:
        robot, items = _uncouple_locked(robot, items)
    dof = np.clip(robot.dof_from_q(robot.neutral()), robot.dof_lower_limit, robot.dof_upper_limit)
    ids: list[int] = []
    for name, value in items:
        field = f"locked_joints[{name!r}]"
        try:
            jid = robot.joint_id(name) if isinstance(name, str) else robot.joint_id(str(name))
        except UnknownNameError:
            raise ConfigKeyError("locked_joints", "joint", name, robot.joint_names) from None
        if jid in ids:
            raise ConfigError(field, "joint listed twice")
        ids.append(jid)
        if value is not None:
            _set_locked_value(robot, jid, value, field, dof)
    q_ref = robot.q_from_dof(dof)
    reduced = pin.buildReducedModel(robot.model, sorted(ids), q_ref)
    out = RobotModel(reduced, name=robot.name, source=robot.source)
    out.package_dirs = list(getattr(robot, "package_dirs", []))
    return out


def _uncouple_locked(
    robot: RobotModel, items: list[tuple[Any, Any]]
) -> tuple[RobotModel, list[tuple[Any, Any]]]:
    """Locking mimic joints: Pinocchio's ``buildReducedModel`` cannot lock a leader of mimic joints, so
    when the locked joints touch mimic pairs the robot is reloaded from its URDF uncoupled and each
    locked leader's followers are locked with it at q_f = m q_leader + o (the coupled posture). Every
    mimic pair must then be locked (a remaining one would lose its coupling).

    Raises:
        ConfigError: a follower locked without its leader, a mimic pair left unlocked, or a robot that
            keeps no URDF.
    """
    follows = {m.name: m for m in robot.mimic_joints}
    leaders = {m.mimicked for m in robot.mimic_joints}
    given = dict(items)
    if not any(isinstance(n, str) and (n in follows or n in leaders) for n in given):
        return robot, items
    _check_mimic_pairs_locked(follows, given)
    source = robot.urdf_path or robot.urdf_text
    if source is None:
        raise ConfigError("locked_joints", "locking mimic joints needs the robot's URDF")
    uncoupled = RobotModel.from_urdf(source, floating_base=robot.floating_base, name=robot.name,
                                     gravity=robot.model.gravity.linear, package_dirs=robot.package_dirs,
                                     mimic=False)  # fmt: skip
    return uncoupled, _with_followers(robot, items, follows, leaders)


def _with_followers(
    robot: RobotModel, items: list[tuple[Any, Any]], follows: Mapping[str, Any], leaders: set[str]
) -> list[tuple[Any, Any]]:
    """The locked joints without the followers given, each locked leader at its value (0 clipped into
    its limits when none is given) followed by its followers at q_f = m q_leader + o."""
    out = [(n, v) for n, v in items if n not in follows]
    for i, (name, value) in enumerate(out):
        if name in leaders:
            iv = robot.joint_v_index(name)
            lead = float(np.clip(0.0, robot.dof_lower_limit[iv], robot.dof_upper_limit[iv]))
            lead = lead if value is None else as_float(value, f"locked_joints[{name!r}]", finite=False)
            out[i] = (name, lead)
            out += [(f, m.multiplier * lead + m.offset) for f, m in follows.items() if m.mimicked == name]
    return out


def _check_mimic_pairs_locked(follows: Mapping[str, Any], given: Mapping[Any, Any]) -> None:
    """Every mimic follower's leader is among the locked joints.

    Raises:
        ConfigError: a follower whose leader is not locked (the follower itself locked, or left free while
            other mimic joints are locked).
    """
    for name, m in follows.items():
        if m.mimicked not in given:
            why = "is locked" if name in given else "stays while other mimic joints are locked"
            raise ConfigError(
                f"locked_joints[{name!r}]",
                f"mimic joint {name!r} follows {m.mimicked!r}, which is not locked: it {why}; lock "
                f"{m.mimicked!r} (its followers are locked with it)",
            )


def robot_from_config(data: Mapping[str, Any], folder: Path) -> RobotModel:
    """Load the robot a configuration names (``urdf`` relative to ``folder``, or a registry ``robot``).

    Raises:
        ConfigError: neither or both of ``urdf`` and ``robot``, or a bad ``floating_base``.
        URDFError, UnknownNameError: the robot cannot be loaded.
    """
    from ..model.registry import load_robot

    has_urdf, has_robot = data.get("urdf") is not None, data.get("robot") is not None
    if has_urdf == has_robot:
        raise ConfigError("urdf", "give exactly one of 'urdf' (a path) and 'robot' (a registry name)")
    kwargs: dict[str, Any] = {}
    if data.get("floating_base") is not None:
        if not isinstance(data["floating_base"], bool):
            raise ConfigError("floating_base", f"expected true or false, got {data['floating_base']!r}")
        kwargs["floating_base"] = data["floating_base"]
    if has_urdf:
        if not isinstance(data["urdf"], str):
            raise ConfigError("urdf", f"expected a path, got {data['urdf']!r}")
        path = Path(data["urdf"]).expanduser()
        if not path.is_absolute():
            path = folder / path
        return RobotModel.from_urdf(path, **kwargs)
    if not isinstance(data["robot"], str):
        raise ConfigError("robot", f"expected a robot name, got {data['robot']!r}")
    return load_robot(data["robot"], **kwargs)
