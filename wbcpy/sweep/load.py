"""``load_sweep``: read and check a sweep file.

Format (``scene`` and one of ``grid``/``random`` are required; an unknown key is an error)::

    scene: scene_reach.yaml      # a scene file as `wbcpy scene` reads it (relative to this file)
    steps: 500                   # optional: number of steps of every run (overrides duration/steps)
    set:                         # optional: dotted path -> value, applied to every run (not a column)
      tasks.posture.priority: 0
    grid:                        # dotted path -> list of values; runs = Cartesian product
      tasks.ee.kp: [50, 100]
      tasks.ee.kd: [10, 20]
    random:                      # optional, crossed with the grid
      n: 3                       # samples per grid combination
      seed: 1                    # sweep seed (default 0)
      q0_noise: 0.02             # uniform ± per DOF added to q0 (a number or one per DOF; default 0)
      push: {magnitude: 30, time: 0.1}   # contact scenes: an impulse (N·s) in a random horizontal
                                 # direction at time s, on the floating base (wbcpy.sweep.perturbation)
    metrics: [final_error, success]   # default: every metric the scene supports (wbcpy.sweep.METRICS)
    tolerances:                  # optional, for `success`: task -> tolerance; null = not checked
      ee: [0.001, 0.01]          # cart: [position m, rotation rad] or one number for both; jnt/com: one

Dotted paths are described in :mod:`wbcpy.sweep.paths`; a grid path that starts with ``random.`` sweeps
an option of the ``random`` section instead (``random.push.magnitude``, :data:`RANDOM_GRID_PATHS
<wbcpy.sweep.perturbation.RANDOM_GRID_PATHS>`). A Cartesian tolerance may leave one part unchecked
(``[null, 0.05]``: the rotation only). Default tolerances: 1 mm and 0.01 rad for every
Cartesian task, 1 mm for every COM task; joint tasks (postures) are not checked unless listed.

The scene is built once with the ``set`` values (a *dry build*) to check it and to learn its target-error
series; grid values of scene paths are not checked here: a run whose values break the scene (a gain of
NaN) records the error in its row. Grid values of ``random`` options are checked (they are the sweep's own).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from ..errors import ConfigError, ConfigKeyError, WbcpyError
from ..scenes import SceneSetup, load_scene_file
from .metrics import METRICS, Series, scene_capabilities, series_of
from .paths import Key, check_path, overlapping, set_path
from .perturbation import RandomSpec, check_random, parse_random
from .spec import SweepSpec
from .values import is_int, is_number
from .walks import WALK_METRICS, check_walk, check_walk_value, walk_arguments, walk_path

#: the top-level keys of a sweep file (``random``: :data:`~wbcpy.sweep.perturbation.RANDOM_KEYS`)
SWEEP_KEYS = ("scene", "walk", "steps", "set", "grid", "random", "metrics", "tolerances")
#: the sections a walk sweep (``walk:`` instead of ``scene:``, :mod:`wbcpy.sweep.walks`) may have
WALK_SWEEP_KEYS = ("walk", "set", "grid", "metrics")


def _read_yaml(path: Path, field: str, what: str) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(field, f"cannot read {what} {str(path)!r} ({exc.strerror or exc})") from None
    except yaml.YAMLError as exc:
        raise ConfigError(field, f"invalid YAML in {str(path)!r} ({str(exc).splitlines()[0]})") from None


def _scene_doc(doc: Mapping[str, Any], base_dir: Path) -> tuple[str, dict[str, Any]]:
    """Read the scene file; a URDF path in it is replaced by the URDF text."""
    if "scene" not in doc:
        raise ConfigError("scene", "missing (required): the scene file to sweep")
    if not isinstance(doc["scene"], str) or not doc["scene"]:
        raise ConfigError("scene", f"expected the path of a scene file, got {doc['scene']!r}")
    path = (base_dir / doc["scene"]).expanduser()
    scene = _read_yaml(path, "scene", "scene file")
    if not isinstance(scene, Mapping):
        raise ConfigError("scene", f"{str(path)!r} is not a YAML mapping (a scene file)")
    scene = copy.deepcopy(dict(scene))
    robot = scene.get("robot")
    if isinstance(robot, str) and robot.endswith(".urdf") and (path.parent / robot).is_file():
        scene["robot"] = (path.parent / robot).read_text(encoding="utf-8")
    return str(path), scene


def _grid(
    doc: Mapping[str, Any], scene: Mapping[str, Any]
) -> tuple[dict[str, tuple[Any, ...]], dict[str, tuple[Key, ...]]]:
    grid = doc.get("grid")
    if grid is None:
        return {}, {}
    if not isinstance(grid, Mapping) or not grid:
        raise ConfigError("grid", "expected a non-empty mapping of dotted path -> list of values")
    values: dict[str, tuple[Any, ...]] = {}
    keys: dict[str, tuple[Key, ...]] = {}
    for path, items in grid.items():
        field = f"grid.{path}"
        if not (isinstance(path, str) and path.startswith("random.")):  # those sweep the random section
            keys[path] = check_path(scene, path, field)
        if not isinstance(items, list) or not items:
            raise ConfigError(field, f"expected a non-empty list of values, got {items!r}")
        values[path] = tuple(items)
    return values, keys


def _fixed(doc: Mapping[str, Any], scene: Mapping[str, Any]) -> dict[str, tuple[tuple[Key, ...], Any]]:
    fixed = doc.get("set")
    if fixed is None:
        return {}
    if not isinstance(fixed, Mapping) or not fixed:
        raise ConfigError("set", "expected a non-empty mapping of dotted path -> value")
    return {path: (check_path(scene, path, f"set.{path}"), value) for path, value in fixed.items()}


def _build(doc: dict[str, Any], steps: int | None) -> tuple[SceneSetup | None, WbcpyError | None]:
    try:
        return load_scene_file(doc, steps=steps), None
    except WbcpyError as exc:
        return None, exc


def _dry_build(
    scene: dict[str, Any], fixed: dict[str, tuple[tuple[Key, ...], Any]], steps: int | None, label: str
) -> SceneSetup:
    """Build the scene with the ``set`` values; a failure names the scene or the first bad ``set`` key."""
    doc = copy.deepcopy(scene)
    for keys, value in fixed.values():
        set_path(doc, keys, value)
    setup, error = _build(doc, steps)
    if setup is not None:
        return setup
    doc = copy.deepcopy(scene)
    if _build(doc, steps)[1] is None:  # the file builds: one of the `set` values breaks it
        for path, (keys, value) in fixed.items():
            set_path(doc, keys, value)
            failure = _build(doc, steps)[1]
            if failure is not None:
                raise ConfigError(f"set.{path}", str(failure))
    raise ConfigError("scene", f"{label}: {error}")


def _metrics(doc: Mapping[str, Any], setup: SceneSetup) -> tuple[str, ...]:
    names = doc.get("metrics")
    have = scene_capabilities(setup.scene)
    if names is None:
        return tuple(name for name, m in METRICS.items() if m.needs in have)
    if not isinstance(names, list) or not names:
        raise ConfigError("metrics", f"expected a non-empty list of metric names, got {names!r}")
    for i, name in enumerate(names):
        if not isinstance(name, str) or name not in METRICS:
            raise ConfigKeyError(f"metrics[{i}]", "metric", name, METRICS)
        if names.index(name) != i:
            raise ConfigError(f"metrics[{i}]", f"{name!r} is listed twice")
        needs = METRICS[name].needs
        if needs not in have:
            raise ConfigError(f"metrics[{i}]", f"{name!r} needs a scene with {needs}; this scene has none")
    return tuple(names)


def _tolerance_pair(value: Any, field: str, cartesian: bool) -> tuple[float | None, float | None] | None:
    if value is None:
        return None
    if cartesian and isinstance(value, list):
        if len(value) != 2 or not all(x is None or (is_number(x) and x >= 0) for x in value):
            what = "[position m, rotation rad] (numbers ≥ 0 or null)"
            raise ConfigError(field, f"expected {what}, got {value!r}")
        position, rotation = (None if x is None else float(x) for x in value)
        return position, rotation
    if not is_number(value) or value < 0:
        raise ConfigError(field, f"expected a number ≥ 0 or null, got {value!r}")
    return float(value), float(value)


def _tolerances(doc: Mapping[str, Any], series: tuple[Series, ...]) -> dict[str, float]:
    """Series name → tolerance: the defaults, then the file's ``tolerances`` section."""
    out: dict[str, float] = {}
    for s in series:
        if s.tolerance is not None:  # joint tasks (postures) are not checked by default
            out[s.name] = s.tolerance
    given = doc.get("tolerances") or {}
    if not isinstance(given, Mapping):
        raise ConfigError("tolerances", "expected a mapping task name -> tolerance")
    tasks = list(dict.fromkeys(s.task for s in series))
    for task, value in given.items():
        if task not in tasks:
            raise ConfigKeyError(f"tolerances.{task}", "task", task, tasks)
        mine = [s for s in series if s.task == task]
        pair = _tolerance_pair(value, f"tolerances.{task}", cartesian=mine[0].kind == "position")
        for s, tol in zip(mine, (pair or (None, None))[: len(mine)], strict=True):
            if tol is None:
                out.pop(s.name, None)
            else:
                out[s.name] = tol
    return out


def _document(source: str | Path | Mapping[str, Any], base_dir: str | Path | None) -> tuple[Any, str, Path]:
    """The sweep document, its label and the folder its ``scene`` path is relative to."""
    if isinstance(source, Mapping):
        return source, "<dict>", Path(base_dir) if base_dir is not None else Path.cwd()
    path = Path(source).expanduser()
    return _read_yaml(path, str(path), "sweep file"), str(path), path.parent


def _check_keys(doc: Any, label: str) -> None:
    if not isinstance(doc, Mapping):
        raise ConfigError(label, "a sweep file must be a YAML mapping")
    for key in doc:
        if key not in SWEEP_KEYS:
            raise ConfigKeyError(str(key), "sweep option", key, SWEEP_KEYS)


def _steps(doc: Mapping[str, Any]) -> int | None:
    steps = doc.get("steps")
    if steps is not None and (not is_int(steps) or steps < 1):
        raise ConfigError("steps", f"must be an integer ≥ 1, got {steps!r}")
    return steps


def _check_disjoint(
    fixed: dict[str, tuple[tuple[Key, ...], Any]], grid_keys: dict[str, tuple[Key, ...]]
) -> None:
    """No two ``set``/``grid`` paths address the same scene entry."""
    labelled = {f"set.{p}": keys for p, (keys, _) in fixed.items()}
    labelled.update({f"grid.{p}": keys for p, keys in grid_keys.items()})
    clash = overlapping(labelled)
    if clash is not None:
        raise ConfigError(clash[1], f"addresses the same scene entry as {clash[0]!r}")


def _random(
    doc: Mapping[str, Any], grid: dict[str, tuple[Any, ...]], grid_keys: dict[str, tuple[Key, ...]]
) -> tuple[RandomSpec | None, dict[str, tuple[Any, ...]]]:
    """The ``random`` section and the grid entries that sweep its options (``random.…`` paths)."""
    random = parse_random(doc.get("random"))
    if not grid and random is None:
        raise ConfigError("grid", "a sweep needs a grid or a random section")
    swept = {p: v for p, v in grid.items() if p not in grid_keys}
    if swept and random is None:
        raise ConfigError(f"grid.{next(iter(swept))}", "the sweep file has no random section to sweep")
    return random, swept


def _without_unchecked_success(
    doc: Mapping[str, Any], metrics: tuple[str, ...], tolerances: dict[str, float]
) -> tuple[str, ...]:
    """``success`` needs a checked task: an error when listed, dropped from the default list."""
    if "success" not in metrics or tolerances:
        return metrics
    if "metrics" in doc:
        raise ConfigError("tolerances", "`success` needs at least one checked task (give a tolerance)")
    return tuple(m for m in metrics if m != "success")  # default list: nothing to check


def _walk_entries(
    doc: Mapping[str, Any], walk_doc: Mapping[str, Any], section: str
) -> dict[str, tuple[tuple[str, ...], list[Any]]]:
    """A walk sweep's ``set`` or ``grid`` section: path → (keys into the walk section, checked values);
    a ``set`` entry has one value."""
    entries = doc.get(section)
    if entries is None and section == "set":
        return {}
    if not isinstance(entries, Mapping) or not entries:
        what = "value" if section == "set" else "list of values"
        raise ConfigError(section, f"expected a non-empty mapping of walk path -> {what}")
    out: dict[str, tuple[tuple[str, ...], list[Any]]] = {}
    for path, items in entries.items():
        field = f"{section}.{path}"
        keys = walk_path(walk_doc, path, field)
        values = [items] if section == "set" else items
        if not isinstance(values, list) or not values:
            raise ConfigError(field, f"expected a non-empty list of values, got {items!r}")
        for i, value in enumerate(values):
            check_walk_value(keys, value, field if section == "set" else f"{field}[{i}]")
        out[str(path)] = (keys, values)
    return out


def _walk_metrics(doc: Mapping[str, Any]) -> tuple[str, ...]:
    """A walk sweep's metric names (default: every walk metric)."""
    names = doc.get("metrics", list(WALK_METRICS))
    if not isinstance(names, list) or not names:
        raise ConfigError("metrics", f"expected a non-empty list of metric names, got {names!r}")
    for i, name in enumerate(names):
        if not isinstance(name, str) or name not in WALK_METRICS:
            raise ConfigKeyError(f"metrics[{i}]", "walk metric", name, WALK_METRICS)
        if names.index(name) != i:
            raise ConfigError(f"metrics[{i}]", f"{name!r} is listed twice")
    return tuple(names)


def _load_walk_sweep(doc: Mapping[str, Any], label: str) -> SweepSpec:
    """A walk sweep (:mod:`wbcpy.sweep.walks`): the walk section with the ``set`` values, the grid, the
    metrics (default: every walk metric)."""
    for key in doc:
        if key not in WALK_SWEEP_KEYS:
            what = "a walk's success is its acceptance summary" if key == "tolerances" else "walks only"
            raise ConfigError(str(key), f"a walk sweep (walk:) has no {key} section ({what}); "
                              f"its sections: {', '.join(WALK_SWEEP_KEYS)}")  # fmt: skip
    walk_doc = check_walk(doc["walk"])
    fixed = _walk_entries(doc, walk_doc, "set")
    grid = _walk_entries(doc, walk_doc, "grid")
    labelled = {f"set.{p}": keys for p, (keys, _) in fixed.items()}
    labelled.update({f"grid.{p}": keys for p, (keys, _) in grid.items()})
    clash = overlapping(labelled)
    if clash is not None:
        raise ConfigError(clash[1], f"addresses the same walk argument as {clash[0]!r}")
    walk_doc = walk_arguments(walk_doc, [(keys, values[0]) for keys, values in fixed.values()], as_file=True)
    names = _walk_metrics(doc)
    return SweepSpec(
        source=label,
        scene_source=label,
        scene_doc={},
        steps=None,
        grid={p: tuple(values) for p, (_, values) in grid.items()},
        grid_keys={p: keys for p, (keys, _) in grid.items()},
        fixed=[],
        random=None,
        metrics=names,
        series=(),
        walk=walk_doc,
    )


def load_sweep(source: str | Path | Mapping[str, Any], base_dir: str | Path | None = None) -> SweepSpec:
    """Read a sweep file (or its parsed content), check it, and resolve its scene.

    Args:
        source: path of the YAML sweep file, or its content as a mapping.
        base_dir: folder the ``scene`` path is relative to when ``source`` is a mapping (default: the
            current directory); for a file, the file's folder.

    Raises:
        ConfigError: unreadable file or invalid YAML, unknown keys (:class:`ConfigKeyError`), bad dotted
            paths, empty grids, bad values, or a scene file that does not build — naming the key.
    """
    doc, label, folder = _document(source, base_dir)
    _check_keys(doc, label)
    if "walk" in doc:
        return _load_walk_sweep(doc, label)
    scene_label, scene = _scene_doc(doc, folder)
    steps = _steps(doc)
    fixed = _fixed(doc, scene)
    grid, grid_keys = _grid(doc, scene)
    _check_disjoint(fixed, grid_keys)
    random, swept = _random(doc, grid, grid_keys)
    setup = _dry_build(scene, fixed, steps, scene_label)
    if random is not None:
        check_random(random, setup, swept)
    series = series_of(setup)
    metrics = _metrics(doc, setup)
    tolerances = _tolerances(doc, series)
    metrics = _without_unchecked_success(doc, metrics, tolerances)
    return SweepSpec(
        source=label,
        scene_source=scene_label,
        scene_doc=scene,
        steps=steps,
        grid=grid,
        grid_keys=grid_keys,
        fixed=list(fixed.values()),
        random=random,
        metrics=metrics,
        series=series,
        tolerances=tolerances,
    )
