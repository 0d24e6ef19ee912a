"""Damped least-squares (Levenberg–Marquardt) inverse kinematics on a :class:`~wbcpy.model.chain.Chain`.

The readable definition of the IK that :class:`~wbcpy.ik.MultiRefMinJerkCtrl` runs to obtain the joint
target q_d when the caller gives only the pose x_d (the controller runs the same iterations compiled,
warm-started and bounded per call: :mod:`wbcpy.ik._warm_ik`, ``csrc/kernels/dls.c``, tested against the
code here). Starting from q₀ (clipped to the limits) it iterates

.. math::

    \\Delta q = J_f^\\top (J_f J_f^\\top + \\lambda^2 I)^{-1} e,\\qquad
    q \\leftarrow \\mathrm{clip}(q + \\Delta q),

with e the pose error of :func:`~wbcpy.ik.pose_error.pose_error` (position [m] over θ·axis [rad]; the
rows of the uncontrolled part are dropped in XYZ/ANG mode) and J_f the chain Jacobian (base axes) with the
columns of joints that sit on a limit and are pushed outwards set to zero (active set, re-solved once). The
damping λ adapts as in Levenberg–Marquardt: a step that lowers ‖e‖ is accepted and λ halves (down to
``damping_min``); a step that does not is rejected and λ triples. Steps are scaled so that
max|Δq| ≤ ``max_step``.

Stops when ‖e‖ < ``tol`` (success), after ``max_iter`` iterations, or when λ exceeds 1e6 (stuck). If the
start does not converge, it retries from deterministic seeds: the middle of the joint ranges, then
``restarts − 1`` pseudo-random configurations inside the limits (fixed seed, so results are repeatable),
and returns the best result found. ``budget`` caps the iterations of all starts together (the work per
call is then bounded: a target that cannot be reached costs at most ``budget`` iterations). The returned
q is always inside the limits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._support.validation import as_float, as_int, as_vector
from .pose_error import CtrlPose, as_ctrl_pose, parse_target, pose_error

if TYPE_CHECKING:
    from ..model.chain import Chain

#: damping above which a search is stuck (it stops)
LAMBDA_MAX = 1e6


@dataclass(frozen=True, eq=False)
class DLSResult:
    """Outcome of :func:`dls_ik`.

    Attributes:
        q: joint angles (n,), inside the limits (the best found when ``success`` is False).
        success: ‖e‖ < tol was reached.
        error: ‖e‖ at ``q`` (masked by the mode; m and rad mixed).
        iterations: iterations used in total (all starts).
        starts: number of starting points tried.
    """

    q: np.ndarray
    success: bool
    error: float
    iterations: int
    starts: int


def dls_step(
    Jm: np.ndarray,
    em: np.ndarray,
    q: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    lam: float,
    max_step: float,
    eye: np.ndarray,
) -> np.ndarray | None:
    """The step Δq of one iteration, or None when max|Δq| < 1e-14 (the search stops).

    Δq = J_fᵀ (J_f J_fᵀ + λ² I)⁻¹ e on the controlled rows ``Jm`` (m×n) and ``em`` (m), J_f = ``Jm`` with
    the columns of the joints that sit on a limit and that Δq pushes outwards set to zero (found on the
    first solve, re-solved once; joints blocked by the second solve get Δq = 0 too), scaled so that
    max|Δq| ≤ ``max_step``. ``eye`` is the m×m identity.
    """
    free = np.ones(q.size)
    dq = np.zeros(q.size)
    for _ in range(2):  # active set: drop joints blocked at a limit, re-solve once
        Jf = Jm * free
        dq = Jf.T @ np.linalg.solve(Jf @ Jf.T + (lam * lam) * eye, em)
        blocked = ((q <= lo) & (dq < 0.0)) | ((q >= hi) & (dq > 0.0))
        if not blocked.any():
            break
        free[blocked] = 0.0
        dq[blocked] = 0.0
    big = float(np.abs(dq).max())
    if big > max_step:
        dq *= max_step / big
    if big < 1e-14:
        return None
    return dq


def _solve_from(
    chain: Chain,
    q0: np.ndarray,
    p_d: np.ndarray,
    R_d: np.ndarray,
    mode: CtrlPose,
    rows: slice,
    tol: float,
    max_iter: int,
    lam0: float,
    lam_min: float,
    max_step: float,
) -> tuple[np.ndarray, float, int]:
    """One LM run from ``q0`` (already clipped). Returns (q, ‖e‖, iterations)."""
    lo, hi = chain.lower, chain.upper
    q = q0
    M, J = chain.fk_jacobian(q)
    e = pose_error(p_d, R_d, M, mode)
    err = math.sqrt(float(e @ e))
    lam = lam0
    it = 0
    eye = np.eye(rows.stop - rows.start)
    while it < max_iter and err >= tol and lam <= LAMBDA_MAX:
        it += 1
        dq = dls_step(J[rows], e[rows], q, lo, hi, lam, max_step, eye)
        if dq is None:
            break
        q_new = np.clip(q + dq, lo, hi)
        M_new, J_new = chain.fk_jacobian(q_new)
        e_new = pose_error(p_d, R_d, M_new, mode)
        err_new = math.sqrt(float(e_new @ e_new))
        if err_new < err:
            q, J, e, err = q_new, J_new, e_new, err_new
            lam = max(0.5 * lam, lam_min)
        else:
            lam *= 3.0
    return q, err, it


def start_points(lo: np.ndarray, hi: np.ndarray, q0: np.ndarray | None, restarts: int) -> list[np.ndarray]:
    """The ``restarts + 1`` starting points of a search, in order (new arrays inside [lo, hi]).

    ``q0`` clipped to the limits (when given), the middle of the joint ranges (0 clipped to the range of a
    joint with an infinite limit), then pseudo-random configurations drawn uniformly inside the limits
    (±π for an infinite limit) from one fixed stream (seed 0): the same sequence on every call.
    """
    mid = np.where(np.isfinite(lo) & np.isfinite(hi), 0.5 * (lo + hi), np.clip(0.0, lo, hi))
    fixed = [mid] if q0 is None else [np.clip(q0, lo, hi), mid]
    span_lo = np.where(np.isfinite(lo), lo, -np.pi)
    span_hi = np.where(np.isfinite(hi), hi, np.pi)
    draws = np.random.default_rng(0).uniform(
        span_lo, span_hi, size=(max(restarts + 1 - len(fixed), 0), lo.size)
    )
    return [*fixed, *draws][: restarts + 1]


def dls_ik(
    chain: Chain,
    xd: Any,
    q0: Any = None,
    ctrl_pose: Any = CtrlPose.FULL,
    tol: float = 1e-8,
    max_iter: int = 100,
    damping: float = 1e-2,
    damping_min: float = 1e-6,
    max_step: float = 0.5,
    restarts: int = 16,
    budget: int | None = None,
    first_start: int = 0,
) -> DLSResult:
    """Solve FK(q) = x_d for q inside the limits by damped least squares (see the module docstring).

    Args:
        chain: the kinematic chain (uses ``fk_jacobian``, ``lower``, ``upper``, ``n``).
        xd: target pose, ``pin.SE3`` or iKin 7-vector (x, y, z, axis, angle), in the chain's base frame.
        q0: start (n,), clipped to the limits; default the middle of the joint ranges.
        ctrl_pose: FULL, XYZ (position only) or ANG (orientation only); also "full"/"xyz"/"ang".
        tol: success threshold on ‖e‖ (m and rad mixed), > 0.
        max_iter: iteration cap per start, ≥ 1.
        damping: initial λ (> 0); λ² is added to J Jᵀ.
        damping_min: lower bound of λ (> 0).
        max_step: largest joint step per iteration [rad or m], > 0.
        restarts: extra starts tried when the first one fails (≥ 0).
        budget: most iterations over all starts together (≥ 1), or None for ``(restarts + 1) · max_iter``.
        first_start: index of the first start to try (0: ``q0``; then the middle of the ranges when ``q0``
            is given; then the pseudo-random seeds, always the same sequence): a caller that stopped a
            search with ``budget`` resumes it with ``first_start = previous first_start + starts``.

    Returns:
        A :class:`DLSResult`; ``success`` False means the best q found is returned (target unreachable,
        blocked by limits, or a local minimum).

    Raises:
        InvalidValueError: bad xd/q0 or parameters.
        UnknownNameError: an unknown ``ctrl_pose`` string.
    """
    mode = as_ctrl_pose(ctrl_pose)
    p_d, R_d, _ = parse_target(xd)
    n = chain.n
    lo, hi = np.asarray(chain.lower, dtype=np.float64), np.asarray(chain.upper, dtype=np.float64)
    tol, damping, damping_min, max_step = (
        as_float(val, name, minimum=0.0, strict=True)
        for name, val in (
            ("tol", tol),
            ("damping", damping),
            ("damping_min", damping_min),
            ("max_step", max_step),
        )
    )
    max_iter = as_int(max_iter, "max_iter", minimum=1)
    restarts = as_int(restarts, "restarts", minimum=0)
    left = (restarts + 1) * max_iter if budget is None else as_int(budget, "budget", minimum=1)
    first = as_int(first_start, "first_start", minimum=0)
    seeds = start_points(lo, hi, None if q0 is None else as_vector(q0, n, "q0"), restarts)
    rows = {CtrlPose.FULL: slice(0, 6), CtrlPose.XYZ: slice(0, 3), CtrlPose.ANG: slice(3, 6)}[mode]
    best_q, best_err, total, starts = seeds[0], math.inf, 0, 0
    for k in range(first, restarts + 1):
        if left <= 0:
            break
        seed = seeds[k]
        starts += 1
        q, err, it = _solve_from(
            chain, seed, p_d, R_d, mode, rows, tol, min(max_iter, left), damping, damping_min, max_step
        )
        total += it
        left -= max(it, 1)
        if err < best_err:
            best_q, best_err = q, err
        if best_err < tol:
            break
    return DLSResult(
        q=np.array(best_q, dtype=np.float64),
        success=best_err < tol,
        error=best_err,
        iterations=total,
        starts=starts,
    )
