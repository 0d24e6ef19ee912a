"""Run a :class:`~wbcpy.ik.MultiRefMinJerkCtrl` to a target and record what happened.

Used by ``wbcpy reach``, ``wbcpy demo`` and the examples: the controller iterates at its sample time Ts
until it reports in-target (‖e‖ < its tolerance) or ``max_steps`` is reached.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from .multiref import MultiRefMinJerkCtrl


@dataclass
class ReachResult:
    """Outcome of :func:`run_reach`.

    Attributes:
        steps: iterations run. reached: the controller reported in-target.
        time: (steps + 1,) sample times (s), the start included.
        q: (steps + 1, n) joint angles; tips: (steps + 1, 3) tip positions in the chain base (m).
        target: the target pose (chain base frame).
        position_error, rotation_error: final errors from FK of the final angles (m, rad).
        iterate_us: (steps,) wall time of each ``iterate()`` call (µs; the first includes the IK).
    """

    steps: int
    reached: bool
    time: np.ndarray
    q: np.ndarray
    tips: np.ndarray
    target: pin.SE3
    position_error: float
    rotation_error: float
    iterate_us: np.ndarray

    @property
    def median_us(self) -> float:
        """Median wall time of one ``iterate()`` call (µs)."""
        return float(np.median(self.iterate_us)) if self.iterate_us.size else float("nan")

    @property
    def p95_us(self) -> float:
        """95th percentile of the ``iterate()`` wall time (µs)."""
        return float(np.percentile(self.iterate_us, 95)) if self.iterate_us.size else float("nan")


def run_reach(ctrl: MultiRefMinJerkCtrl, target: pin.SE3, max_steps: int) -> ReachResult:
    """Iterate ``ctrl`` towards ``target`` (qd from its DLS IK) until in target or ``max_steps``."""
    n = ctrl.get_q().size
    qs = np.empty((max_steps + 1, n))
    tips = np.empty((max_steps + 1, 3))
    times_ns = np.empty(max_steps)
    qs[0] = ctrl.get_q()
    tips[0] = ctrl.get_x()[:3]
    clock = time.perf_counter_ns
    steps = 0
    while steps < max_steps:
        t0 = clock()
        q = ctrl.iterate(target)
        times_ns[steps] = clock() - t0
        steps += 1
        qs[steps] = q
        tips[steps] = ctrl.get_x()[:3]
        if ctrl.is_in_target():
            break
    final = ctrl.chain.fk(qs[steps])
    return ReachResult(
        steps=steps,
        reached=bool(ctrl.is_in_target()),
        time=np.arange(steps + 1) * ctrl.Ts,
        q=qs[: steps + 1].copy(),
        tips=tips[: steps + 1].copy(),
        target=pin.SE3(target),
        position_error=float(np.linalg.norm(target.translation - final.translation)),
        rotation_error=float(np.linalg.norm(pin.log3(target.rotation @ final.rotation.T))),
        iterate_us=times_ns[:steps] / 1e3,
    )
