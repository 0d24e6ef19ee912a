"""State machine and deadlock watchdog of :class:`~wbcpy.ik.MultiRefMinJerkCtrl` (spec §4 step 10).

Exactly iKin's ``iKinCtrl::update_state`` and ``iKinCtrl::watchDog``, with dist = ‖e‖ and the joint step
‖q − q_old‖ of the iteration:

* RUNNING: dist < tol → INTARGET and counter := 0; otherwise the watchdog runs when it is on;
* INTARGET: dist ≥ tol → RUNNING; the counter is set to 0 at every step (also the one that leaves);
* DEADLOCK: dist < tol → INTARGET and counter := 0; otherwise the watchdog runs (on or off);
* watchdog: a step shorter than ``watchdog_tol`` increments the counter, a longer one sets RUNNING and
  counter := 0; counter ≥ ``watchdog_max_iter`` sets DEADLOCK and counter := 0.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

from .._support.validation import as_bool, as_float, as_int


class CtrlState(IntEnum):
    """Controller state (iKin ``IKINCTRL_STATE_*``)."""

    RUNNING = 0
    INTARGET = 1
    DEADLOCK = 2


_RUNNING, _INTARGET, _DEADLOCK = CtrlState.RUNNING, CtrlState.INTARGET, CtrlState.DEADLOCK


class TargetWatch:
    """The controller's state, its in-target test and its watchdog (see the module docstring).

    Attributes:
        state: RUNNING, INTARGET or DEADLOCK.
        count: the watchdog counter (stalled iterations).
        in_target_tol: in-target tolerance on ‖e‖ (> 0; m and rad mixed), default 5e-3.
        watchdog_on: whether the watchdog runs in RUNNING (it always runs in DEADLOCK), default off.
        watchdog_tol: joint-step norm below which an iteration counts as stalled (≥ 0), default 1e-4.
        watchdog_max_iter: stalled iterations before DEADLOCK (≥ 1), default 200.
    """

    def __init__(self) -> None:
        self.state = _RUNNING
        self.count = 0
        self.in_target_tol = 5e-3
        self.watchdog_on = False
        self.watchdog_tol = 1e-4
        self.watchdog_max_iter = 200

    def update(self, dist: float, step: float) -> None:
        """One step of the state machine for ‖e‖ = ``dist`` and ‖q − q_old‖ = ``step``."""
        state = self.state
        if state is _RUNNING:
            if dist < self.in_target_tol:
                self.state = _INTARGET
                self.count = 0
            elif self.watchdog_on:
                self._watchdog(step)
        elif state is _INTARGET:
            if not dist < self.in_target_tol:
                self.state = _RUNNING
            self.count = 0
        elif dist < self.in_target_tol:  # DEADLOCK
            self.state = _INTARGET
            self.count = 0
        else:
            self._watchdog(step)

    def _watchdog(self, step: float) -> None:
        if step < self.watchdog_tol:
            self.count += 1
        else:
            self.state = _RUNNING
            self.count = 0
        if self.count >= self.watchdog_max_iter:
            self.state = _DEADLOCK
            self.count = 0

    # ------------------------------------------------------------------ validated settings
    def get_in_target_tol(self) -> float:
        """In-target tolerance on ‖e‖ (m and rad mixed)."""
        return self.in_target_tol

    def set_in_target_tol(self, tol: Any) -> None:
        """Set the in-target tolerance (finite, > 0).

        Raises:
            InvalidValueError: not a finite number > 0 (nothing changes).
        """
        self.in_target_tol = as_float(tol, "tol", minimum=0.0, strict=True)

    def switch_watchdog(self, on: Any) -> None:
        """Turn the deadlock watchdog on or off (``True``/``False``; off by default).

        Raises:
            InvalidValueError: not a bool (nothing changes).
        """
        self.watchdog_on = as_bool(on, "on")

    def is_watchdog_on(self) -> bool:
        """True when the watchdog runs."""
        return self.watchdog_on

    def get_watchdog_tol(self) -> float:
        """Joint-step norm below which an iteration counts as stalled."""
        return self.watchdog_tol

    def set_watchdog_tol(self, tol: Any) -> None:
        """Set the watchdog tolerance (finite, ≥ 0).

        Raises:
            InvalidValueError: not a finite number ≥ 0 (nothing changes).
        """
        self.watchdog_tol = as_float(tol, "watchdog_tol", minimum=0.0)

    def get_watchdog_max_iter(self) -> int:
        """Stalled iterations before DEADLOCK."""
        return self.watchdog_max_iter

    def set_watchdog_max_iter(self, max_iter: Any) -> None:
        """Set the number of stalled iterations before DEADLOCK (an integer ≥ 1).

        Raises:
            InvalidValueError: not an integer ≥ 1 (nothing changes).
        """
        self.watchdog_max_iter = as_int(max_iter, "max_iter", minimum=1)
