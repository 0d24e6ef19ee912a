"""Contact transitions: the ramps of a contact that is lifted or put down smoothly (``specs/walking.md``).

Unloading — ``scene.set_contact_active(frame, False, transition=T)`` keeps the contact active for T
seconds of scene time (N = round(T / dt) ≥ 1 update() calls) while the upper bound of its normal force
falls linearly,

    f_z ≤ f_0 (1 − k / N)   at the k-th update after the call (k = 1 … N; the last is 0),

then deactivates it at the next update (TSID's ``removeRigidContact(name, transition_duration)``). f_0 is
the contact's normal force when the transition starts. The wrench a foot carries in its last active step
is thus 0, and nothing jumps at lift-off.

Loading — ``scene.set_contact_active(frame, True, transition=T)`` activates the contact at once while the
upper bound of its normal force rises linearly over N updates,

    f_z ≤ f_s + (f_1 − f_s) k / N   at the k-th update after the call (k = 1 … N),

from f_s (0, or the bound of an unloading ramp it interrupts) to f_1 (the contact's ``fz_max``, or m·g
when that is infinite); then the bound is ``fz_max`` again. A landing foot thus takes its load in steps of
at most (f_1 − f_s) / N per update, and nothing jumps at touch-down either.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import ConfigError

#: the longest transition (s): an hour of unloading is no contact switch (and T / dt must be a step count)
MAX_TRANSITION = 3600.0


def transition_duration(value: Any) -> float:
    """A transition time T (s): a finite number in [0, :data:`MAX_TRANSITION`].

    Raises:
        ConfigError: (field ``transition``) anything else.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ConfigError("transition", f"must be a number of seconds, got {value!r:.80}")
    try:
        out = float(value)
    except OverflowError:  # an integer beyond the float range
        out = math.inf
    if not (math.isfinite(out) and 0.0 <= out <= MAX_TRANSITION):
        raise ConfigError("transition", f"must be a time in [0, {MAX_TRANSITION:g}] s, got {value!r:.80}")
    return out


class UnloadingRamp:
    """The normal-force bound of one contact being unloaded (see the module docstring).

    Plain data (slots): copies and pickles are independent ramps; a ramp belongs to the scene that
    advances it (the scene's contract covers threads).

    Attributes:
        start_force: f_0 (N). steps: N. done: updates taken so far (k). dt: the scene's step (s).
    """

    __slots__ = ("done", "dt", "start_force", "steps")

    def __init__(self, start_force: float, duration: float, dt: float) -> None:
        """A ramp from f_0 = ``start_force`` (N) over ``duration`` (s, :func:`transition_duration`) of
        scene steps ``dt`` (s).

        Raises:
            ConfigError: (field ``transition``) a duration of more than 1e9 steps of dt.
        """
        steps = duration / dt
        if not steps <= 1e9:
            raise ConfigError("transition", f"{duration:g} s is more than 1e9 scene steps of {dt:g} s")
        self.start_force = float(start_force)
        self.dt = float(dt)
        self.steps = max(1, round(steps))
        self.done = 0

    @property
    def bound(self) -> float:
        """Today's upper bound on f_z (N): f_0 (1 − k/N)."""
        return self.start_force * (1.0 - self.done / self.steps)

    @property
    def time_left(self) -> float:
        """Scene time until the contact is deactivated (s)."""
        return (self.steps - self.done) * self.dt

    def advance(self) -> bool:
        """One update(): True when the ramp has ended (the contact is to be deactivated now), else the
        bound moves one step down."""
        if self.done >= self.steps:
            return True
        self.done += 1
        return False


class LoadingRamp:
    """The normal-force bound of one contact being loaded (see the module docstring).

    Attributes:
        start_force: f_s (N). end_force: f_1 (N). steps: N. done: updates taken so far (k). dt: the
            scene's step (s).
    """

    __slots__ = ("done", "dt", "end_force", "start_force", "steps")

    def __init__(self, start_force: float, end_force: float, duration: float, dt: float) -> None:
        self.start_force = float(start_force)
        self.end_force = max(float(end_force), self.start_force)
        self.dt = float(dt)
        self.steps = max(1, round(duration / dt))
        self.done = 0

    @property
    def bound(self) -> float:
        """Today's upper bound on f_z (N): f_s + (f_1 − f_s) k/N."""
        return self.start_force + (self.end_force - self.start_force) * (self.done / self.steps)

    @property
    def time_left(self) -> float:
        """Scene time until the bound is the contact's own again (s)."""
        return (self.steps - self.done) * self.dt

    def advance(self) -> bool:
        """One update(): True when the ramp has ended (its last bound, f_1, held for one update: the bound
        is the contact's own from now), else the bound moves one step up."""
        if self.done >= self.steps:
            return True
        self.done += 1
        return False
