"""The joint target of :class:`~wbcpy.ik.MultiRefMinJerkCtrl` without ``qd``: a warm-started, bounded IK.

:class:`WarmIK` runs the damped least-squares search of :func:`~wbcpy.ik.dls.dls_ik` — the same starts,
steps, damping rule and stopping tests (``dls.py`` is the definition, in NumPy) — with two differences
that make it cheap inside a control step:

* **Warm start.** A new target is solved from the last answer (its pose, Jacobian and damping λ kept),
  not from scratch: a target that moves a little per step needs one or two iterations (Gauss–Newton
  converges quadratically from there). The first target, and the first after :meth:`WarmIK.go_cold`
  (the controller's q was reset), start from the controller's q.
* **Bounded, resumable work.** :meth:`WarmIK.run` spends at most a given number of iterations, and
  ends early once ‖e‖ < ``tol_pause`` (default √tol = 1e-4) after at least one iteration; the next call
  with the same target continues the search where it stopped (same start, same λ, then the next starts
  of :func:`~wbcpy.ik.dls.start_points`) until ‖e‖ < tol. From ‖e‖ < √tol one more Gauss–Newton
  iteration reaches about tol: a target that holds still gets it one call later, a target that moves
  starts over from the new pose. A target that moves a few millimetres per step thus costs one iteration
  (one Pinocchio pass) per call, and its joint target is within ~1e-6 of the exact IK answer.

The iterations run in one compiled call (:func:`wbcpy._kernels.dls_search`: pose error, accept/reject,
damped step, clip, in C) that calls back ``chain.fk_jacobian_unchecked`` for the kinematics: per
iteration one Pinocchio pass and no other Python work, on buffers allocated once. The search state lives
in one vector (``acc``, :func:`acc_layout`) that the kernel reads and writes.

How this differs from iKin: iCub runs its IK solver in a thread of its own that hands ``qd`` to the
controller when a solution is ready (the controller keeps the previous ``qd`` meanwhile). Here the IK runs
inside ``iterate`` on the caller's thread, a bounded slice per step, and the joint loop always gets the
best answer found so far — the converged one whenever the budget suffices.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .._kernels import dls_search as _dls_search
from .dls import start_points
from .pose_error import CtrlPose

if TYPE_CHECKING:
    from ..model.chain import Chain

# the kernel's statuses: a step proposed (the budget ended); converged; stuck (λ > 1e6); no step
# (max|Δq| < 1e-14); a step proposed with ‖e‖ below the pause tolerance (the call ends there)
_STEP, _DONE, _STUCK, _NO_STEP, _PAUSE = 0, 1, 2, 3, 4
# the kernel's first action: none (q_try holds the proposed step), accept q_try as a start, new target
_RESUME, _START, _RETARGET = 0, 1, 2


def acc_layout(n: int) -> dict[str, slice | int]:
    """Where the search state lives in ``acc`` (7n + 25 float64) for an n-joint chain.

    ``q`` (n) the accepted configuration, ``J`` (6n, row-major 6×n) its Jacobian, ``R`` (9, row-major) and
    ``p`` (3) its tip pose, ``e`` (6) its pose error, ``err`` = ‖e‖, ``lam`` the damping λ; ``tol``,
    ``tol_pause``, ``lam0`` (a start's damping), ``lam_min`` and ``max_step`` are the search's settings
    (read only for the kernel).
    """
    r = 7 * n
    return {
        "q": slice(0, n),
        "J": slice(n, r),
        "R": slice(r, r + 9),
        "p": slice(r + 9, r + 12),
        "e": slice(r + 12, r + 18),
        "err": r + 18,
        "lam": r + 19,
        "tol": r + 20,
        "tol_pause": r + 21,
        "lam0": r + 22,
        "lam_min": r + 23,
        "max_step": r + 24,
    }


class WarmIK:
    """Damped least-squares IK for one chain, warm-started, with bounded work per call (module docstring).

    Args:
        chain: the chain (uses ``fk_jacobian_unchecked``, ``lower``, ``upper``, ``n``).
        tol, damping, damping_min, max_step: as in :func:`~wbcpy.ik.dls.dls_ik` (validated by the caller).
        iter_per_start: most iterations one start may use.
        restarts: starts tried after the first one fails.
        tol_pause: a call ends once ‖e‖ < ``tol_pause`` (after one iteration at least); None: √tol;
            ``tol_pause`` ≤ tol: calls end only at tol or at their budget (as :func:`dls_ik`).

    Attributes (read after :meth:`run`):
        best_q: the best configuration found for the current target (a new array each time it improves,
            never written in place). best_err: its ‖e‖. starts: starts begun for the current target.
        finished: the search for the current target is over (converged, or every start tried).
    """

    def __init__(
        self,
        chain: Chain,
        tol: float = 1e-8,
        damping: float = 1e-2,
        damping_min: float = 1e-6,
        max_step: float = 0.5,
        iter_per_start: int = 50,
        restarts: int = 16,
        tol_pause: float | None = None,
    ) -> None:
        n = int(chain.n)
        self.n = n
        self.lo = np.array(chain.lower, dtype=np.float64)
        self.hi = np.array(chain.upper, dtype=np.float64)
        self._fk_jac = chain.fk_jacobian_unchecked
        self.tol = tol
        self.iter_per_start, self.restarts = iter_per_start, restarts
        lay = acc_layout(n)
        acc = self.acc = np.zeros(7 * n + 25)
        acc[lay["tol"]], acc[lay["lam0"]], acc[lay["lam_min"]] = tol, damping, damping_min
        acc[lay["max_step"]] = max_step
        acc[lay["tol_pause"]] = math.sqrt(tol) if tol_pause is None else tol_pause
        self.q_try = np.zeros(n)
        # the starts after the first (independent of it): the middle, then the fixed pseudo-random draws
        self._later = start_points(self.lo, self.hi, self.lo, restarts)[1:]
        self.p_d = np.zeros(3)
        self.R_d = np.eye(3)
        self.mode = CtrlPose.FULL
        self.best_q = np.zeros(n)
        self.best_err = math.inf
        self.starts = 0
        self.finished = True
        self._cold = True  # no answer to warm-start from yet
        self._acc_is_best = False  # the accepted point (acc) is best_q
        self._status = _DONE  # the kernel's last status for the current start
        self._phase = _RESUME  # what the next kernel call begins with
        self._it = 0  # iterations of the current start

    def go_cold(self) -> None:
        """Start the next target from the q given to :meth:`new_target`, not from the last answer."""
        self._cold = True

    def new_target(self, p_d: np.ndarray, R_d: np.ndarray, mode: CtrlPose, q: np.ndarray) -> None:
        """Begin the search for the pose (``p_d``, ``R_d``) in ``mode``: warm from the last answer, or from
        ``q`` (inside the limits) when there is none or after :meth:`go_cold` (first start of the sequence
        ``[start, middle of the ranges, pseudo-random draws]``). The work starts at :meth:`run`."""
        self.p_d, self.R_d, self.mode = p_d, R_d, mode
        self.best_err = math.inf
        self.finished = False
        if self._acc_is_best and not self._cold:  # warm: the accepted point is the last answer
            self.starts, self._it, self._phase = 1, 0, _RETARGET  # (its error for p_d, R_d; λ kept ≤ damping)
            return
        self.starts = 0
        self._begin(q if self._cold else self.best_q)
        self._cold = False

    def solve(self, p_d: np.ndarray, R_d: np.ndarray, mode: CtrlPose, q: np.ndarray, budget: int) -> int:
        """:meth:`new_target` then :meth:`run` (``budget`` ≥ 1): the iterations used.

        The warm start takes one kernel call when it pauses at once (the hot path of a moving target);
        anything else continues as :meth:`run`.
        """
        if not self._acc_is_best or self._cold:
            self.new_target(p_d, R_d, mode, q)
            return self.run(budget)
        self.p_d, self.R_d, self.mode = p_d, R_d, mode
        cap = min(self.iter_per_start, budget)
        status, it, err, q_acc = _dls_search(
            self._fk_jac, self.q_try, R_d, p_d, self.lo, self.hi, self.acc, mode, _RETARGET, cap
        )
        # the first segment of a new search: its accepted point is the best so far
        self.best_err, self.best_q, self.starts, self._it, self._status = err, q_acc, 1, it, status
        self._phase = _RESUME
        self.finished = False
        if status == _PAUSE:
            return it
        left = budget - max(it, 1)
        if left > 0:
            return it + self.run(left)
        if not self._can_step():
            self._finish_if_last()
        return it

    def _begin(self, seed: np.ndarray) -> None:
        """Begin the next start at ``seed`` (evaluated and accepted by the next kernel call, λ = damping)."""
        self.q_try[:] = seed
        self._phase = _START
        self._acc_is_best = False
        self._it = 0
        self.starts += 1

    def run(self, budget: int) -> int:
        """Search for at most ``budget`` (≥ 1) iterations; return the iterations used.

        As :func:`~wbcpy.ik.dls.dls_ik` with ``budget``: a start takes at most ``iter_per_start``
        iterations and costs at least one of the budget; when it ends without converging, the next start
        begins. Unlike it, the call ends once ‖e‖ < ``tol_pause`` (after one iteration at least), and the
        next call continues the search where this one stopped.
        """
        left, used = budget, 0
        while True:
            if not self._phase and not self._can_step():  # the start is over
                if self._finish_if_last():
                    return used
                self._begin(self._later[self.starts - 1])
            status, it, err, q = _dls_search(self._fk_jac, self.q_try, self.R_d, self.p_d, self.lo, self.hi,
                                             self.acc, self.mode, self._phase,
                                             min(self.iter_per_start - self._it, left))  # fmt: skip
            self._status, self._phase = status, _RESUME
            self._it += it
            used += it
            left -= max(it, 1)  # (a start over at its seed costs one, as in dls_ik)
            if err < self.best_err:  # the accepted point is the best of this target's search
                self.best_err, self.best_q, self._acc_is_best = err, q, True
            if status == _PAUSE or left <= 0:
                if not self._can_step():
                    self._finish_if_last()
                return used

    def _can_step(self) -> bool:
        """The current start has a step proposed in q_try and iterations left."""
        return (self._status == _STEP or self._status == _PAUSE) and self._it < self.iter_per_start

    def _finish_if_last(self) -> bool:
        """After a start ended: finished when the search converged or no start is left (True then)."""
        if self.best_err < self.tol or self.starts > self.restarts:
            self.finished = True
        return self.finished
