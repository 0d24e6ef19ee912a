"""The joint-space and task-space min-jerk velocity controllers of :class:`~wbcpy.ik.MultiRefMinJerkCtrl`.

The multi-referential controller runs two min-jerk velocity controllers (spec §4 steps 4–5): one on the n
joint errors and one on the 6 task errors. :class:`MinJerkLoops` keeps both behind one interface whose input
and output are stacked ``(n + 6)`` vectors ``[joint part; task part]``.

While the joint controller is the ideal-plant one, both controllers have the same coefficients (same Ts, same
T, per-component independent filters), so they are one :class:`MinJerkVelCtrlForIdealPlant` of dimension
n + 6: one filter step per iterate instead of two. Skipping the task loop for one step (a given task
velocity) restores the task columns' state afterwards. :meth:`MinJerkLoops.set_plant_parameters` splits
them into a non-ideal joint controller (fresh state, as in iKin) and an ideal task controller that keeps
the task state.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .minjerk_ctrl import (
    PLANT_PARAMETER_DEFAULTS,
    MinJerkVelCtrlForIdealPlant,
    MinJerkVelCtrlForNonIdealPlant,
)


class MinJerkLoops:
    """Joint (n) and task (6) min-jerk velocity controllers with stacked ``(n + 6)`` input and output.

    Args:
        Ts: sample time [s] (validated by the caller).
        n: number of joints.
        non_ideal_plant: use :class:`MinJerkVelCtrlForNonIdealPlant` for the joints.

    Attributes:
        fused: True while one ideal controller serves both loops (then ``fused_step`` is valid).
        T: execution time of the fused controller's current coefficients.
        fused_step: the fused filter's :meth:`~wbcpy.ik.Filter.step_unchecked` — the hot path when
            ``fused`` and the wanted T equals ``T``.
    """

    def __init__(self, Ts: float, n: int, non_ideal_plant: bool = False) -> None:
        self._ts = Ts
        self._n = n
        # exactly one of: the fused ideal controller, or the (non-ideal joint, ideal task) pair
        self._fused: MinJerkVelCtrlForIdealPlant | None = None
        self._split: tuple[MinJerkVelCtrlForNonIdealPlant, MinJerkVelCtrlForIdealPlant] | None = None
        if non_ideal_plant:
            self._split = (MinJerkVelCtrlForNonIdealPlant(Ts, n), MinJerkVelCtrlForIdealPlant(Ts, 6))
        else:
            self._fused = MinJerkVelCtrlForIdealPlant(Ts, n + 6)
        self._bind()

    def _bind(self) -> None:
        fused = self._fused
        self.fused = fused is not None
        self.T = fused.get_T() if fused is not None else float("nan")
        self.fused_step = fused.filter.step_unchecked if fused is not None else None

    @property
    def non_ideal(self) -> bool:
        """True when the joint loop uses the non-ideal-plant controller."""
        return self._split is not None

    def step(self, T: float, inp: np.ndarray, with_task: bool = True) -> np.ndarray:
        """One step of both loops at execution time ``T`` (the task loop only ``with_task``).

        Args:
            T: execution time [s] (> 0; the coefficients are recomputed when it changed, state kept).
            inp: ``(n + 6)`` finite float64 errors ``[q_d − q (+ compensation); e]``.
            with_task: False skips the task controller: its state stays as it was, and the task part of
                the result is zero.

        Returns:
            ``[q̇_J; ẋ_T]``, a new ``(n + 6)`` array.
        """
        n = self._n
        fused = self._fused
        if fused is not None:
            filt = fused.filter
            kept = None if with_task else filt.get_state()[:, n:]
            # unchecked step while T is unchanged (inp is trusted), compute_cmd to retune
            y = filt.step_unchecked(inp) if fused.get_T() == T else fused.compute_cmd(T, inp)
            if kept is not None:  # the task loop was not due: put its columns' past values back
                state = filt.get_state()
                state[:, n:] = kept
                filt.set_state(state)
                y[n:] = 0.0
            self.T = fused.get_T()
            return y
        joint, task = self._split  # type: ignore[misc]
        out = np.zeros(n + 6)
        # unchecked steps while T is unchanged (inp is trusted), compute_cmd to retune
        out[:n] = joint.step_unchecked(inp[:n]) if joint.get_T() == T else joint.compute_cmd(T, inp[:n])
        if with_task:
            out[n:] = task.step_unchecked(inp[n:]) if task.get_T() == T else task.compute_cmd(T, inp[n:])
        return out

    def reset(self) -> None:
        """Reset both controllers to zero state (commands 0)."""
        if self._split is None:
            self._fused.reset(np.zeros(self._n + 6))  # type: ignore[union-attr]
        else:
            self._split[0].reset(np.zeros(self._n))
            self._split[1].reset(np.zeros(6))

    def set_plant_parameters(self, params: Any) -> None:
        """Set the joint plant parameters (see :meth:`MinJerkVelCtrlForNonIdealPlant.set_plant_parameters`).

        With the ideal joint controller, the joints switch to a fresh non-ideal controller (their filter
        state is lost, as in iKin); the task controller keeps its state. Invalid parameters raise
        ``ConfigError``/``ConfigKeyError`` and change nothing.
        """
        if self._split is not None:
            self._split[0].set_plant_parameters(params)
            return
        joint = MinJerkVelCtrlForNonIdealPlant(self._ts, self._n)
        joint.set_plant_parameters(params)  # validates first
        # the task columns' past values carry over; the coefficients follow T at the next compute_cmd
        task = MinJerkVelCtrlForIdealPlant(self._ts, 6)
        task.filter.set_state(self._fused.filter.get_state()[:, self._n :])  # type: ignore[union-attr]
        self._split, self._fused = (joint, task), None
        self._bind()

    def get_plant_parameters(self) -> dict[str, dict[str, float]]:
        """Per-joint plant parameters ``{"dimension_i": {Kp, Tz, Tw, Zeta}}`` (defaults when ideal)."""
        if self._split is not None:
            return self._split[0].get_plant_parameters()
        return {f"dimension_{i}": dict(PLANT_PARAMETER_DEFAULTS) for i in range(self._n)}
