"""Pair selection: turn a :class:`~wbcpy.collision.CollisionAvoidance` into geometry index pairs.

The geometry model holds the robot's collision geometries first, then the obstacles (attached to the
universe, joint 0). Names resolve, in this order, to

* a geometry object (``<link>_<k>``, Pinocchio's naming) or an obstacle: that one geometry;
* a robot link: every collision geometry attached to it.

Pairs whose two geometries sit on the same Pinocchio joint cannot move relative to each other and are
never kept (that includes obstacles and the links of a fixed base, all on the universe).

"self" is every pair of robot geometries on different joints whose links are not adjacent through a joint
and not listed in the SRDF's ``disable_collisions``. An obstacle named in no explicit pair is paired with
every robot geometry that is not on the universe.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pinocchio as pin

from ...errors import ConfigError, ConfigKeyError
from .avoidance import CollisionAvoidance
from .geometry import adjacent_links, link_of_geometry


def _name_index(model: pin.Model, geom: pin.GeometryModel, n_robot: int) -> dict[str, list[int]]:
    """name → geometry indices: links (all their geometries), then geometry objects and obstacles."""
    index: dict[str, list[int]] = {}
    for i in range(n_robot):
        index.setdefault(link_of_geometry(model, geom.geometryObjects[i]), []).append(i)
    for i in range(geom.ngeoms):
        index[geom.geometryObjects[i].name] = [i]
    return index


def _joint(geom: pin.GeometryModel, i: int) -> int:
    return int(geom.geometryObjects[i].parentJoint)


def _explicit_pairs(
    geom: pin.GeometryModel, index: dict[str, list[int]], pairs: Iterable[tuple[str, str]], n_robot: int
) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for i, (a, b) in enumerate(pairs):
        sides = []
        for k, name in enumerate((a, b)):
            if name not in index:
                raise ConfigKeyError(f"pairs[{i}][{k}]", "link, collision geometry or obstacle", name, index)
            sides.append(index[name])
        if all(g >= n_robot for g in sides[0] + sides[1]):
            raise ConfigError(f"pairs[{i}]", f"{a!r} and {b!r} are both obstacles (fixed in the world)")
        kept = [(ga, gb) for ga in sides[0] for gb in sides[1] if _joint(geom, ga) != _joint(geom, gb)]
        if not kept:
            raise ConfigError(
                f"pairs[{i}]", f"{a!r} and {b!r} are attached to the same joint: they cannot move apart"
            )
        out += kept
    return out


def _srdf_disabled(model: pin.Model, geom: pin.GeometryModel, srdf: str | Path) -> set[frozenset[int]]:
    """The pairs of ``geom.collisionPairs`` that the SRDF disables (as index sets)."""
    before = {frozenset((cp.first, cp.second)) for cp in geom.collisionPairs}
    text = str(srdf)
    try:
        if "<robot" in text:
            pin.removeCollisionPairsFromXML(model, geom, text)
        else:
            if not Path(text).is_file():
                raise ConfigError("srdf", f"no such file: {text!r}")
            pin.removeCollisionPairs(model, geom, text)
    except (ValueError, RuntimeError, OSError) as exc:
        raise ConfigError("srdf", f"cannot read the SRDF: {exc}") from None
    after = {frozenset((cp.first, cp.second)) for cp in geom.collisionPairs}
    return before - after


def _self_pairs(
    model: pin.Model, geom: pin.GeometryModel, n_robot: int, srdf: str | Path | None
) -> list[tuple[int, int]]:
    adjacent = adjacent_links(model)
    links = [link_of_geometry(model, geom.geometryObjects[i]) for i in range(n_robot)]
    candidates = [
        (a, b)
        for a in range(n_robot)
        for b in range(a + 1, n_robot)
        if _joint(geom, a) != _joint(geom, b) and frozenset((links[a], links[b])) not in adjacent
    ]
    if srdf is None or not candidates:
        return candidates
    scratch = pin.GeometryModel()
    for i in range(n_robot):
        scratch.addGeometryObject(geom.geometryObjects[i])
    for a, b in candidates:
        scratch.addCollisionPair(pin.CollisionPair(a, b))
    disabled = _srdf_disabled(model, scratch, srdf)
    return [p for p in candidates if frozenset(p) not in disabled]


def _obstacle_pairs(
    geom: pin.GeometryModel, avoidance: CollisionAvoidance, n_robot: int
) -> list[tuple[int, int]]:
    named = {n for pair in avoidance.named_pairs for n in pair}
    movable = [i for i in range(n_robot) if _joint(geom, i) != 0]
    out: list[tuple[int, int]] = []
    for k, obstacle in enumerate(avoidance.obstacles):
        if obstacle.name not in named:
            out += [(i, n_robot + k) for i in movable]
    return out


def select_pairs(
    model: pin.Model,
    geom: pin.GeometryModel,
    n_robot: int,
    avoidance: CollisionAvoidance,
    robot_srdf: Path | None = None,
) -> list[tuple[int, int]]:
    """The geometry index pairs ``(a, b)`` to keep apart, without duplicates.

    Args:
        model: the robot's Pinocchio model.
        geom: robot geometries (indices < n_robot) followed by the obstacles, in ``avoidance`` order.
        n_robot: number of robot geometries.
        avoidance: the configuration.
        robot_srdf: the robot's own SRDF (:func:`wbcpy.description.robot_files.srdf_file`), used for "self"
            when
            ``avoidance.srdf`` is None.

    Raises:
        ConfigError: an obstacle named like a link or geometry of the robot, a pair of two obstacles or of
            two geometries on the same joint, an unreadable SRDF, no pair at all; ConfigKeyError: unknown
            names (field ``pairs[i][k]``).
    """
    robot_names = {link_of_geometry(model, geom.geometryObjects[i]) for i in range(n_robot)}
    robot_names |= {geom.geometryObjects[i].name for i in range(n_robot)}
    robot_names |= {f.name for f in model.frames}
    for k, obstacle in enumerate(avoidance.obstacles):
        if obstacle.name in robot_names:
            raise ConfigError(f"obstacles[{k}].name", f"{obstacle.name!r} is already a name of the robot")
    index = _name_index(model, geom, n_robot)
    if avoidance.self_collision:
        srdf = avoidance.srdf if avoidance.srdf is not None else robot_srdf
        pairs = _self_pairs(model, geom, n_robot, srdf)
    else:
        pairs = _explicit_pairs(geom, index, avoidance.named_pairs, n_robot)
    pairs += _obstacle_pairs(geom, avoidance, n_robot)
    seen: set[frozenset[int]] = set()
    unique: list[tuple[int, int]] = []
    for pair in pairs:
        key = frozenset(pair)
        if key not in seen:
            seen.add(key)
            unique.append(pair)
    if not unique:
        raise ConfigError("pairs", "no collision pair to avoid (give pairs, 'self' or obstacles)")
    return unique
