"""Sweeps of walks: a sweep file whose runs are closed-loop walks (:func:`wbcpy.locomotion.walk`).

A walk sweep has ``walk:`` — the arguments of :func:`~wbcpy.locomotion.walk` — instead of ``scene:``::

    walk:                        # walk() arguments (robot: a registry name; push: {impulse, time} or null)
      robot: talos
      n_steps: 6
      length: 0.15
      push: {impulse: 0, time: 3.0}
      plant: mujoco              # pinocchio (default) or mujoco
      feet: [l_sole, r_sole]     # optional: sole frames, sole size [L, W] (m), start posture (walk())
    set:                         # optional: walk paths -> value in every run (not a column)
      walk.double_support_time: 0.2
    grid:                        # walk paths -> values; runs = Cartesian product
      walk.length: [0.10, 0.20]
      walk.step_time: [0.7, 0.8]
      walk.push.impulse: [0, 20, 30]
    metrics: [success, progress, cop_margin, max_slip]   # default: every walk metric

The plant is Pinocchio's rigid contacts (``plant: pinocchio``, the default) or MuJoCo (``plant: mujoco``,
the ``mujoco`` extra; ``walk.plant`` may be a grid path, to compare both). Paths are
``walk.<argument>`` (:data:`WALK_KEYS`) and ``walk.push.impulse`` / ``walk.push.time`` (the
walk section must then have a ``push`` mapping). A push is a lateral impulse (N·s, +y world) on the base
at ``time`` (s) through the plant, which the controller is not told about; an impulse of 0 is no push (the
walk's unpushed acceptance figures apply). Every value, in the walk section, ``set`` and the grid, is
checked when the file loads (:class:`~wbcpy.errors.ConfigError` naming the key); what the planner itself
refuses (a double support longer than the step) is recorded in the run's ``status``. A walk sweep has no
``scene``, ``steps``, ``random`` or ``tolerances`` section: a walk's success is its own acceptance summary.

Metrics (:data:`WALK_METRICS`), from the walk's
:class:`~wbcpy.locomotion.walk_summary.WalkSummary`: ``success``
(1 when the summary is ok: no fall, no slip of an active sole above 5 mm/s or 0.05 rad/s, every wrench
in the real soles' cones, |τ| within the effort limits, progress ≥ 90 % of the plan, 80 % when pushed),
``progress``, ``fell``, ``cop_margin`` (m), ``friction_use``, ``max_slip`` (m/s), ``max_slip_rotation``
(rad/s), ``cone_violation`` (N), ``effort_violation`` (N·m), and the wall-clock ``controller_step_median``
(µs) and ``realtime`` (simulated over wall time), which are left out of the deterministic columns.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..errors import ConfigError, ConfigKeyError
from ..locomotion import WalkSummary, walk
from .metrics import Metric
from .values import is_int, is_number

#: the arguments of :func:`wbcpy.locomotion.walk` a walk section may give
WALK_KEYS = (
    "robot",
    "n_steps",
    "length",
    "width",
    "turn",
    "lateral",
    "step_time",
    "double_support_time",
    "push",
    "dt",
    "solver",
    "push_recovery",
    "plant",
    "feet",
    "sole",
    "posture",
)
#: the keys of a walk's ``push`` mapping: impulse (N·s, ≥ 0), time (s, ≥ 0)
PUSH_KEYS = ("impulse", "time")

#: every metric a walk sweep can record, by name
WALK_METRICS: dict[str, Metric] = {
    m.name: m
    for m in (
        Metric(
            "success", "1 when the walk's acceptance summary is ok (no fall, slip, cone or torque excess)"
        ),
        Metric("progress", "the base's displacement along the plan over the planned one (1 = the plan)"),
        Metric("fell", "1 when the base dropped below 85 % of its start height or the controller failed"),
        Metric("cop_margin", "smallest distance of a loaded sole's CoP inside its edges [m]"),
        Metric("friction_use", "largest |f_t| / (μ f_z) of a loaded sole"),
        Metric("max_slip", "largest linear velocity of a standing sole [m/s]"),
        Metric("max_slip_rotation", "largest angular velocity of a standing sole [rad/s]"),
        Metric("cone_violation", "largest excess of a logged wrench over its friction cone or f_z ≥ 0 [N]"),
        Metric("effort_violation", "largest excess of |τ| over the effort limits [N·m]"),
        Metric("controller_step_median", "median controller step [µs]", deterministic=False),
        Metric("realtime", "simulated time over wall time, plant included", deterministic=False),
    )
}


def _is_feet(x: Any) -> bool:
    if x is None:
        return True
    names = x.split(",") if isinstance(x, str) else x
    return (
        isinstance(names, (list, tuple)) and len(names) == 2 and all(isinstance(n, str) and n for n in names)
    )


def _is_sole(x: Any) -> bool:
    if x is None:
        return True
    if isinstance(x, str):
        parts = x.lower().split("x")
        try:
            size = [float(p) for p in parts]
        except ValueError:
            return False
    elif isinstance(x, (list, tuple)) and all(is_number(v) for v in x):
        size = [float(v) for v in x]
    else:
        return False
    return len(size) == 2 and all(0.0 < v < float("inf") for v in size)


def _is_posture(x: Any) -> bool:
    if x is None or (isinstance(x, str) and bool(x)):
        return True
    return isinstance(x, (list, tuple)) and bool(x) and all(is_number(v) for v in x)


def _value_error(field: str, key: str, value: Any) -> ConfigError | None:
    """The error of one walk argument's value (None when valid)."""
    expect: dict[str, tuple[Callable[[Any], bool], str]] = {
        "robot": (lambda x: isinstance(x, str) and bool(x), "a robot registry name"),
        "n_steps": (lambda x: is_int(x) and x >= 1, "an integer ≥ 1"),
        "length": (is_number, "a number (m)"),
        "width": (lambda x: x is None or (is_number(x) and x > 0), "a number > 0 (m) or null"),
        "turn": (is_number, "a number (rad)"),
        "lateral": (is_number, "a number (m)"),
        "step_time": (lambda x: is_number(x) and x > 0, "a number > 0 (s)"),
        "double_support_time": (lambda x: is_number(x) and x > 0, "a number > 0 (s)"),
        "dt": (lambda x: is_number(x) and 0 < x <= 0.05, "a step in (0, 0.05] s"),
        "solver": (lambda x: x is None or (isinstance(x, str) and bool(x)), "a QP backend name or null"),
        "push_recovery": (lambda x: isinstance(x, bool), "true or false"),
        "plant": (lambda x: x in ("pinocchio", "mujoco"), "pinocchio or mujoco"),
        "feet": (_is_feet, "null, 'LEFT,RIGHT' or [LEFT, RIGHT] sole frame names"),
        "sole": (_is_sole, "null, 'LxW' or [length, width] in m (both > 0)"),
        "posture": (_is_posture, "null, 'computed', an SRDF posture's name or a configuration (numbers)"),
        "impulse": (lambda x: is_number(x) and x >= 0, "a number ≥ 0 (N·s)"),
        "time": (lambda x: is_number(x) and x >= 0, "a number ≥ 0 (s)"),
    }
    if key == "push":
        return _push_error(field, value)
    ok, what = expect[key]
    return None if ok(value) else ConfigError(field, f"expected {what}, got {value!r}")


def _push_error(field: str, value: Any) -> ConfigError | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        return ConfigError(field, f"expected {{impulse: N·s, time: s}} or null, got {value!r}")
    for key in value:
        if key not in PUSH_KEYS:
            return ConfigKeyError(f"{field}.{key}", "push option", key, PUSH_KEYS)
    for key in PUSH_KEYS:
        if key not in value:
            return ConfigError(f"{field}.{key}", "missing (required)")
        error = _value_error(f"{field}.{key}", key, value[key])
        if error is not None:
            return error
    return None


def check_walk(doc: Any) -> dict[str, Any]:
    """The checked ``walk`` section (a copy).

    Raises:
        ConfigError: not a mapping, an unknown argument (:class:`~wbcpy.errors.ConfigKeyError`), a bad
            value — naming ``walk.<key>``.
    """
    if not isinstance(doc, Mapping):
        raise ConfigError("walk", f"expected a mapping of walk() arguments, got {doc!r}")
    for key, value in doc.items():
        if key not in WALK_KEYS:
            raise ConfigKeyError(f"walk.{key}", "walk argument", key, WALK_KEYS)
        error = _value_error(f"walk.{key}", key, value)
        if error is not None:
            raise error
    return copy.deepcopy(dict(doc))


def walk_path(walk_doc: Mapping[str, Any], path: Any, field: str) -> tuple[str, ...]:
    """The keys of a walk path (``walk.length`` → ``("length",)``, ``walk.push.impulse`` →
    ``("push", "impulse")``).

    Raises:
        ConfigError: not a walk path, an unknown argument, or a push key without a push mapping in the
            walk section — naming ``field``.
    """
    parts = path.split(".") if isinstance(path, str) else []
    if len(parts) < 2 or parts[0] != "walk":
        raise ConfigError(field, f"a walk sweep's paths are walk.<argument>, got {path!r}")
    if parts[1] not in WALK_KEYS:
        raise ConfigKeyError(field, "walk argument", parts[1], WALK_KEYS)
    if len(parts) == 2:
        return (parts[1],)
    if parts[1] != "push" or len(parts) != 3:
        raise ConfigError(field, f"only walk.push has sub-keys ({', '.join(PUSH_KEYS)}), got {path!r}")
    if parts[2] not in PUSH_KEYS:
        raise ConfigKeyError(field, "push option", parts[2], PUSH_KEYS)
    if not isinstance(walk_doc.get("push"), Mapping):
        raise ConfigError(field, "the walk section has no push mapping ({impulse: …, time: …}) to sweep")
    return ("push", parts[2])


def check_walk_value(keys: Sequence[str], value: Any, field: str) -> None:
    """Check a ``set`` or grid value at a walk path.

    Raises:
        ConfigError: a bad value, naming ``field``.
    """
    error = _value_error(field, keys[-1], value)
    if error is not None:
        raise error


def walk_arguments(
    walk_doc: Mapping[str, Any], values: Sequence[tuple[Sequence[str | int], Any]], as_file: bool = False
) -> dict[str, Any]:
    """The walk section with ``values`` (keys, value) set: as walk() keyword arguments, the push mapping
    as walk's (impulse, time) tuple (None without one or for an impulse of 0); ``as_file``: as a walk
    section (the push a mapping still)."""
    args = copy.deepcopy(dict(walk_doc))
    for keys, value in values:
        name = str(keys[0])
        args[name] = copy.deepcopy(value) if len(keys) == 1 else {**args[name], str(keys[1]): value}
    if as_file:
        return args
    push = args.get("push")
    args["push"] = (
        None if push is None or push["impulse"] == 0 else (float(push["impulse"]), float(push["time"]))
    )
    return args


def walk_metric_values(summary: WalkSummary, metrics: Sequence[str]) -> dict[str, Any]:
    """The CSV values of ``metrics`` (names of :data:`WALK_METRICS`) from a walk's summary."""
    v = summary.violation
    values: dict[str, Any] = {
        "success": int(summary.ok),
        "progress": float(summary.progress),
        "fell": int(summary.fell),
        "cop_margin": float(summary.cop_margin),
        "friction_use": float(summary.friction_use),
        "max_slip": float(summary.max_slip[0]),
        "max_slip_rotation": float(summary.max_slip[1]),
        "cone_violation": float(max(v.get("friction cone", 0.0), v.get("normal force", 0.0))),
        "effort_violation": float(v.get("effort", 0.0)),
        "controller_step_median": float(summary.step_us),
        "realtime": float(summary.realtime),
    }
    return {name: values[name] for name in metrics}


def run_walk(arguments: Mapping[str, Any], metrics: Sequence[str]) -> dict[str, Any]:
    """Walk with ``arguments`` (:func:`walk_arguments`) and return the metric columns.

    Raises:
        WbcpyError: arguments the planner or the controller refuses.
    """
    return walk_metric_values(walk(**arguments), metrics)
