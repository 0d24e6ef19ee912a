"""Random perturbations of sweep runs: the ``random`` section (perturbed starts and pushes).

Format (every key checked; an unknown one is a :class:`~wbcpy.errors.ConfigKeyError` naming it)::

    random:
      n: 8                 # samples per grid combination (required, ≥ 1)
      seed: 1              # sweep seed (default 0)
      q0_noise: 0.02       # uniform ± per DOF added to q0 (a number or one per DOF; default 0)
      push:                # optional: one push per run, in the simulated plant (contact scenes only)
        magnitude: 30      # N·s, the size of a linear impulse (≥ 0; may be left to the grid)
        time: 0.1          # s, when it hits (default 0: before the first step)
        frame: null        # the frame pushed at its origin (default: the floating base)

**Push.** Sample s of a run with a push gets an impulse P = magnitude · (cos θ, sin θ, 0) (world axes, N·s):
a horizontal push whose direction θ is uniform in [0, 2π) and drawn from
``numpy.random.default_rng([seed, s, 1])`` — a stream of its own, so the q0 noise and the direction do
not depend on each other, and every grid combination (every push size) sees the same n directions. The
push is applied to the simulated robot (:meth:`~wbcpy.sim.SceneSimulation.push`): an instantaneous
impulse at the frame's origin under the active rigid contacts, before step k = round(time / dt); the
controller sees the new velocity at that step. A magnitude of 0 is no push at all (the run is the one
without a ``push`` section, bit for bit). A push needs a physical plant: a contact scene (a scene file
with ``contacts``, :class:`~wbcpy.InverseDynamicsScene`).

**Grid.** The grid may sweep the options in :data:`RANDOM_GRID_PATHS` with dotted paths that start with
``random.`` (``random.push.magnitude: [0, 20, 40]``); such a path needs its section in the file
(``random.push`` for the push keys), where the swept key itself may be left out.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._support.config_fields import checked_fields
from ..errors import ConfigError, ConfigKeyError
from ..scenes import SceneSetup
from ..scenes.inverse_dynamics_scene import InverseDynamicsScene
from .values import is_int, is_number

#: the keys of a sweep file's ``random`` section
RANDOM_KEYS = ("n", "seed", "q0_noise", "push")
#: the keys of its ``random.push`` section
PUSH_KEYS = ("magnitude", "time", "frame")
#: the ``random`` options a grid may sweep
RANDOM_GRID_PATHS = ("random.q0_noise", *(f"random.push.{k}" for k in PUSH_KEYS))
#: stream index of the push direction in ``default_rng([seed, sample, stream])``
PUSH_STREAM = 1


def _noise(value: Any, field: str) -> tuple[float, ...] | float:
    if isinstance(value, list):
        if not value or not all(is_number(x) and x >= 0 for x in value):
            raise ConfigError(field, f"expected finite numbers ≥ 0 (one per DOF), got {value!r}")
        return tuple(float(x) for x in value)
    if not is_number(value) or value < 0:
        raise ConfigError(field, f"must be a finite number ≥ 0 or a list, got {value!r}")
    return float(value)


def _non_negative(what: str) -> Callable[[Any, str], float]:
    def check(value: Any, field: str) -> float:
        if not is_number(value) or value < 0:
            raise ConfigError(field, f"must be a finite number ≥ 0 ({what}), got {value!r}")
        return float(value)

    return check


def _frame(value: Any, field: str) -> str | None:
    if value is not None and (not isinstance(value, str) or not value):
        raise ConfigError(field, f"expected a frame name or null (the floating base), got {value!r}")
    return value


#: option path (below ``random``) → checker (value, field) → parsed value
_CHECKS: dict[str, Callable[[Any, str], Any]] = {
    "q0_noise": _noise,
    "push.magnitude": _non_negative("impulse, N·s"),
    "push.time": _non_negative("s"),
    "push.frame": _frame,
}


@dataclass(frozen=True)
class Push:
    """The push of one run.

    Attributes:
        step: the step before which it is applied.
        impulse: P (N·s, world axes: x, y, z).
        frame: the frame pushed at its origin (None: the floating base).
    """

    step: int
    impulse: tuple[float, float, float]
    frame: str | None


@checked_fields
@dataclass(frozen=True)
class PushSpec:
    """The ``random.push`` section.

    Attributes:
        magnitude: ‖P‖ (N·s); None when only the grid gives it.
        time: when the push hits (s).
        frame: the frame pushed at its origin (None: the floating base).
    """

    magnitude: float | None = None
    time: float = 0.0
    frame: str | None = None


@checked_fields
@dataclass(frozen=True)
class RandomSpec:
    """Random perturbations crossed with the grid.

    Attributes:
        n: samples per grid combination (≥ 1).
        seed: the sweep seed (an integer ≥ 0).
        q0_noise: half-width of the uniform noise added to q0, per DOF (nv entries, rad or m).
        push: the push of every run, or None.
    """

    n: int
    seed: int
    q0_noise: tuple[float, ...] | float = 0.0
    push: PushSpec | None = None

    def rng(self, sample: int) -> np.random.Generator:
        """The generator of sample ``sample`` (the same for every grid combination)."""
        return np.random.default_rng([self.seed, sample])

    def q0_offset(self, sample: int, nv: int) -> NDArray[np.float64]:
        """Uniform noise in [−q0_noise, q0_noise] per DOF for sample ``sample`` (nv values)."""
        half = np.broadcast_to(np.asarray(self.q0_noise, dtype=np.float64), (nv,))
        return self.rng(sample).uniform(-1.0, 1.0, nv) * half

    def push_direction(self, sample: int) -> NDArray[np.float64]:
        """The unit horizontal direction (cos θ, sin θ, 0) of sample ``sample``'s push."""
        theta = np.random.default_rng([self.seed, sample, PUSH_STREAM]).uniform(0.0, 2.0 * math.pi)
        return np.array([math.cos(theta), math.sin(theta), 0.0])

    def push_event(self, sample: int, dt: float) -> Push | None:
        """The push of sample ``sample`` in a run with step ``dt`` (s); None without one or of size 0."""
        push = self.push
        if push is None or not push.magnitude:
            return None
        x, y, z = (float(c) for c in push.magnitude * self.push_direction(sample))
        return Push(round(push.time / dt), (x, y, z), push.frame)

    def with_value(self, path: str, value: Any, field: str) -> RandomSpec:
        """A copy with the option at ``path`` (below ``random``, e.g. ``push.magnitude``) set to ``value``.

        Raises:
            ConfigError: ``field`` — an option the grid cannot sweep, or a bad value.
        """
        check = _CHECKS.get(path)
        if check is None:
            raise ConfigKeyError(field, "random option a grid can sweep", f"random.{path}", RANDOM_GRID_PATHS)
        parsed = check(value, field)
        if path == "q0_noise":
            return dataclasses.replace(self, q0_noise=parsed)
        if self.push is None:
            raise ConfigError(field, "the sweep file has no random.push section to sweep")
        return dataclasses.replace(self, push=dataclasses.replace(self.push, **{path[5:]: parsed}))


def _section(spec: Any, field: str, keys: tuple[str, ...], kind: str) -> Mapping[str, Any] | None:
    """``spec`` when it is None or a mapping of some of ``keys``; else a ConfigError naming the key."""
    if spec is None:
        return None
    if not isinstance(spec, Mapping):
        raise ConfigError(field, f"expected a mapping with {', '.join(keys)}")
    for key in spec:
        if key not in keys:
            raise ConfigKeyError(f"{field}.{key}", kind, key, keys)
    return spec


def _push(section: Any) -> PushSpec | None:
    spec = _section(section, "random.push", PUSH_KEYS, "push option")
    if spec is None:
        return None
    values = {k: _CHECKS[f"push.{k}"](spec[k], f"random.push.{k}") for k in PUSH_KEYS if k in spec}
    return PushSpec(**values)


def parse_random(section: Any) -> RandomSpec | None:
    """Check a sweep file's ``random`` section (None when absent).

    Raises:
        ConfigError: a key that is not an option (:class:`ConfigKeyError` naming ``random.<key>``), or a
            bad value (naming its key).
    """
    spec = _section(section, "random", RANDOM_KEYS, "random option")
    if spec is None:
        return None
    n, seed = spec.get("n"), spec.get("seed", 0)
    if not is_int(n) or n < 1:
        raise ConfigError("random.n", f"must be an integer ≥ 1 (samples per grid point), got {n!r}")
    if not is_int(seed) or seed < 0:
        raise ConfigError("random.seed", f"must be an integer ≥ 0, got {seed!r}")
    noise = _noise(spec.get("q0_noise", 0.0), "random.q0_noise")
    return RandomSpec(n=n, seed=seed, q0_noise=noise, push=_push(spec.get("push")))


def _check(random: RandomSpec, setup: SceneSetup, field: Callable[[str], str], swept: set[str]) -> None:
    robot = setup.robot
    if isinstance(random.q0_noise, tuple) and len(random.q0_noise) != robot.nv:
        raise ConfigError(field("q0_noise"), f"expected {robot.nv} values (one per DOF)")
    push = random.push
    if push is None:
        return
    if not isinstance(setup.scene, InverseDynamicsScene):
        raise ConfigError("random.push", "a push needs a contact scene (a scene file with contacts)")
    if push.magnitude is None and "push.magnitude" not in swept:
        raise ConfigError("random.push.magnitude", "missing: the impulse size (N·s), here or in the grid")
    if push.frame is None and not robot.floating_base:
        raise ConfigError(field("push.frame"), "the robot has no floating base: name the frame to push")
    if push.frame is not None and push.frame not in robot.frame_names:
        raise ConfigKeyError(field("push.frame"), "frame", push.frame, robot.frame_names)
    if round(push.time / setup.dt) >= setup.steps:
        end = setup.steps * setup.dt
        raise ConfigError(field("push.time"), f"{push.time} s is not before the end of the run ({end:g} s)")


def check_random(random: RandomSpec, setup: SceneSetup, grid: Mapping[str, Sequence[Any]]) -> None:
    """Check the ``random`` section and the grid's values of its options against the built scene.

    Args:
        random: the parsed section.
        setup: the scene built without grid values (its robot, dt and steps).
        grid: the grid's ``random.…`` paths and their values.

    Raises:
        ConfigError: naming the key: a path the grid cannot sweep or whose section is missing, a bad
            value, a q0_noise list of the wrong length, a push on a scene without a plant, a missing
            magnitude, an unknown frame, a push time after the run's end.
    """
    swept = {path.removeprefix("random.") for path in grid}
    _check(random, setup, lambda key: f"random.{key}", swept)
    for path, values in grid.items():
        swept_key = path.removeprefix("random.")

        def field(key: str, path: str = path, swept_key: str = swept_key) -> str:
            return f"grid.{path}" if key == swept_key else f"random.{key}"

        for value in values:
            _check(random.with_value(swept_key, value, f"grid.{path}"), setup, field, swept)
