"""``wbcpy._kernels.dls_search`` (the compiled IK search) against its NumPy definition in ``wbcpy.ik.dls``.

Oracles: ``dls_step`` and ``_solve_from`` of ``wbcpy.ik.dls`` (the readable NumPy path: pose error through
``pin.log3``, the damped solve through ``np.linalg.solve``), run on the same kinematics — a planar 3R arm
in closed form written here (no Pinocchio inside) and the Panda arm through its chain. Each iteration of
the kernel must be one iteration of the NumPy loop from the kernel's own state (the same step to the
rounding the damped system's condition allows, the same accept/reject decision and damping update, the
same stop); whole searches are judged by what they return (inside the limits, the error they report is
the pose error at their answer, converged as often as the NumPy loop), not by equal iteration counts: a
search that steps along a singular or limit-bound region amplifies rounding (OpenBLAS picks its kernels
per CPU), so the two codes may leave it along different paths. The kernel must also pause where its
contract says, and refuse malformed arguments without touching its outputs.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pinocchio as pin
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wbcpy import _kernels as kernels
from wbcpy.ik.dls import _solve_from, dls_step
from wbcpy.ik.pose_error import CtrlPose, pose_error

ROWS = {CtrlPose.FULL: slice(0, 6), CtrlPose.XYZ: slice(0, 3), CtrlPose.ANG: slice(3, 6)}
LENGTHS = np.array([0.5, 0.4, 0.3])


class Planar3R:
    """A planar arm with three revolute joints about z (link lengths ``LENGTHS`` along x), in closed form:
    the duck-typed chain that ``_solve_from`` and the kernel's ``fk`` read."""

    n = 3

    def __init__(self, lower: np.ndarray, upper: np.ndarray) -> None:
        self.lower, self.upper = lower, upper

    def fk_jacobian(self, q: np.ndarray) -> tuple[pin.SE3, np.ndarray]:
        angles = np.cumsum(q)
        c, s = np.cos(angles), np.sin(angles)
        p = np.array([LENGTHS @ c, LENGTHS @ s, 0.0])
        J = np.zeros((6, 3))
        for j in range(3):  # joint j moves links j.. : d p / d q_j = Σ_{i≥j} l_i (−sin, cos)
            J[0, j] = -(LENGTHS[j:] @ s[j:])
            J[1, j] = LENGTHS[j:] @ c[j:]
            J[5, j] = 1.0
        R = np.array([[c[-1], -s[-1], 0.0], [s[-1], c[-1], 0.0], [0.0, 0.0, 1.0]])
        return pin.SE3(R, p), J


def _acc(n: int, tol: float = 1e-8, tol_pause: float | None = None, lam0: float = 1e-2) -> np.ndarray:
    """A search state (layout of wbcpy.ik._warm_ik.acc_layout) with its settings."""
    acc = np.zeros(7 * n + 25)
    r = 7 * n
    acc[r + 20 : r + 25] = [tol, tol if tol_pause is None else tol_pause, lam0, 1e-6, 0.5]
    return acc


def _search(chain, q0, M_d, mode, max_iter, tol_pause=None, lam0=1e-2):
    """The kernel from the start q0 (phase 1): (status, iterations, err, q, acc)."""
    acc = _acc(chain.n, tol_pause=tol_pause, lam0=lam0)
    q_try = np.array(q0, dtype=float)
    lo, hi = np.asarray(chain.lower, dtype=float), np.asarray(chain.upper, dtype=float)
    status, it, err, q = kernels.dls_search(
        chain.fk_jacobian,
        q_try,
        M_d.rotation.copy(),
        M_d.translation.copy(),
        lo,
        hi,
        acc,
        int(mode),
        1,
        max_iter,
    )
    return status, it, err, q, acc


#: stop rule and damping bounds of the searches below (_solve_from's and the kernel's defaults)
TOL, LAM0, LAM_MIN, LAMBDA_MAX = 1e-8, 1e-2, 1e-6, 1e6


def _walk(chain, q0: np.ndarray, M_d: pin.SE3, mode: CtrlPose, max_iter: int) -> list[tuple]:
    """The kernel's search from q0 one iteration per call (phase 1 with no iteration, then phase 0 with one
    each: the pause/resume contract). Returns the states before each iteration: (q, λ, err, q_try, status)
    with q_try the step the kernel proposes from there, and the final state last."""
    n = chain.n
    acc, q_try = _acc(n), np.array(q0, dtype=float)
    lo, hi = np.asarray(chain.lower, dtype=float), np.asarray(chain.upper, dtype=float)
    R_d, p_d = M_d.rotation.copy(), M_d.translation.copy()
    r = 7 * n
    status = kernels.dls_search(chain.fk_jacobian, q_try, R_d, p_d, lo, hi, acc, int(mode), 1, 0)[0]
    states = [(acc[:n].copy(), acc[r + 19], acc[r + 18], q_try.copy(), status)]
    while status in (0, 4) and len(states) <= max_iter:
        status = kernels.dls_search(chain.fk_jacobian, q_try, R_d, p_d, lo, hi, acc, int(mode), 0, 1)[0]
        states.append((acc[:n].copy(), acc[r + 19], acc[r + 18], q_try.copy(), status))
    return states


def _step_tolerance(J: np.ndarray, lam: float) -> float:
    """How far two roundings of the damped step Δq = Jᵀ(J Jᵀ + λ²I)⁻¹e may land apart: a few hundred ε
    times the condition of J Jᵀ + λ²I over the rows J moves (rows of zeros, a planar arm's z, roll and
    pitch in FULL mode, carry e = 0 and decouple)."""
    Jr = J[np.abs(J).max(axis=1) > 0.0]
    if Jr.shape[0] == 0:
        return 0.0
    kappa = float(np.linalg.cond(Jr @ Jr.T + lam * lam * np.eye(Jr.shape[0])))
    return 1e3 * np.finfo(float).eps * kappa


def _follows_the_numpy_loop(chain, q0: np.ndarray, M_d: pin.SE3, mode: CtrlPose, max_iter: int) -> int:
    """Walk the kernel's search and check every iteration against one iteration of ``_solve_from`` from
    the kernel's state (q, λ): the same accepted point (to :func:`_step_tolerance`) and error, λ halved on
    an accept (not below λ_min) or tripled on a reject, and the status the state calls for. States with a
    joint on a limit are walked through unchecked: which joints the active set drops depends on the sign
    of a step component that may be zero to rounding there (:func:`test_one_step_is_dls_step` checks the
    active set on single steps). An accept/reject decision that differs must be a tie to rounding (the
    trial error equal to the current one within 1e-9): the two searches then part, and the walk stops
    being compared. The walk must equal the one-call search exactly (the same kernel code on the same
    numbers). Returns the number of iterations compared."""
    lo, hi = np.asarray(chain.lower, dtype=float), np.asarray(chain.upper, dtype=float)
    rows = ROWS[mode]
    states = _walk(chain, q0, M_d, mode, max_iter)
    status, it, err, q, _ = _search(chain, q0, M_d, mode, max_iter)
    walked = len(states) - 1 + (status == 3 and len(states) - 1 < max_iter)  # (no step counts as one)
    assert (status, it, err) == (states[-1][4], walked, states[-1][2])
    np.testing.assert_array_equal(q, states[-1][0])
    compared = 0
    for before, after in itertools.pairwise(states):
        (q_k, lam, err_k, trial, _), (q_next, lam_next, err_next, _, status_next) = before, after
        assert np.all((q_next >= lo) & (q_next <= hi)) and err_next <= err_k
        if np.any((q_k <= lo) | (q_k >= hi)):
            continue
        q_ref, err_ref, _ = _solve_from(
            chain, q_k, M_d.translation, M_d.rotation, mode, rows, TOL, 1, lam, LAM_MIN, 0.5
        )
        accepted, accepted_ref = err_next < err_k, err_ref < err_k
        if accepted != accepted_ref:
            e_trial = pose_error(M_d.translation, M_d.rotation, chain.fk_jacobian(trial)[0], mode)
            assert math.sqrt(e_trial @ e_trial) == pytest.approx(err_k, rel=1e-9)
            return compared
        J = chain.fk_jacobian(q_k)[1][rows]
        np.testing.assert_allclose(q_next, q_ref, rtol=0, atol=_step_tolerance(J, lam))
        assert err_next == pytest.approx(err_ref, rel=1e-9, abs=1e-15)
        # (one IEEE product on both sides: equal on any CPU)
        assert lam_next == (max(0.5 * lam, LAM_MIN) if accepted else 3.0 * lam)
        assert status_next == _status_of(chain, q_next, err_next, lam_next, M_d, mode)
        compared += 1
    return compared


def _status_of(chain, q: np.ndarray, err: float, lam: float, M_d: pin.SE3, mode: CtrlPose) -> int:
    """The status the NumPy loop's rules give the state (q, err, λ): 1 converged, 2 stuck (λ > 1e6), 3 no
    step (``dls_step`` returns None), else 0 (a step proposed)."""
    if err < TOL:
        return 1
    if lam > LAMBDA_MAX:
        return 2
    rows = ROWS[mode]
    M, J = chain.fk_jacobian(q)
    e = pose_error(M_d.translation, M_d.rotation, M, mode)[rows]
    lo, hi = np.asarray(chain.lower, dtype=float), np.asarray(chain.upper, dtype=float)
    step = dls_step(J[rows], e, q, lo, hi, lam, 0.5, np.eye(rows.stop - rows.start))
    return 3 if step is None else 0


def _answer_is_certified(got: tuple, chain, M_d: pin.SE3, mode: CtrlPose, start_err: float) -> bool:
    """A whole search's (status, iterations, err, q): q inside the limits, err the pose error at q
    (recomputed through ``pose_error``), no worse than the start's, status 1 exactly when err < tol.
    Returns whether it converged."""
    status, _, err, q = got
    assert np.all((q >= chain.lower) & (q <= chain.upper)) and err <= start_err
    e = pose_error(M_d.translation, M_d.rotation, chain.fk_jacobian(q)[0], mode)
    assert err == pytest.approx(math.sqrt(e @ e), rel=1e-9, abs=1e-15)
    assert (status == 1) == (err < TOL)
    return status == 1


@pytest.mark.parametrize("mode", list(CtrlPose))
def test_search_follows_the_numpy_loop_on_a_closed_form_arm(mode: CtrlPose) -> None:
    """25 targets from random starts, capped at 1, 3 and 50 iterations: every iteration is the NumPy
    loop's, whole searches are certified and converge about as often as the NumPy loop's (on this arm
    about half of them; a few start in a region where either code may end stuck)."""
    rng = np.random.default_rng(3)
    arm = Planar3R(np.array([-2.5, -2.0, -2.0]), np.array([2.5, 2.0, 2.0]))
    converged = converged_ref = compared = 0
    for _ in range(25):
        M_d = arm.fk_jacobian(rng.uniform(-2.0, 2.0, 3))[0]
        q0 = rng.uniform(arm.lower, arm.upper)
        e0 = pose_error(M_d.translation, M_d.rotation, arm.fk_jacobian(q0)[0], mode)
        for max_iter in (1, 3, 50):
            compared += _follows_the_numpy_loop(arm, q0, M_d, mode, max_iter)
            status, it, err, q, acc = _search(arm, q0, M_d, mode, max_iter)
            np.testing.assert_array_equal(acc[:3], q)  # the accepted configuration
            assert it <= max_iter
            converged += _answer_is_certified((status, it, err, q), arm, M_d, mode, math.sqrt(e0 @ e0))
            ref = _solve_from(arm, q0, M_d.translation, M_d.rotation, mode, ROWS[mode], TOL, max_iter, LAM0,
                              LAM_MIN, 0.5)  # fmt: skip
            converged_ref += ref[1] < TOL
    assert converged >= 15 and abs(converged - converged_ref) <= 3
    assert compared >= 100  # (the walks were compared, not only walked)


def test_search_follows_the_numpy_loop_on_the_panda_chain(example_robot) -> None:
    chain = example_robot("panda").chain("panda_link0", "panda_hand")
    lo, hi = np.asarray(chain.lower), np.asarray(chain.upper)
    rng = np.random.default_rng(5)
    converged = converged_ref = compared = 0
    for mode in CtrlPose:
        for _ in range(6):
            M_d = chain.fk(rng.uniform(lo, hi))
            q0 = rng.uniform(lo, hi)
            e0 = pose_error(M_d.translation, M_d.rotation, chain.fk(q0), mode)
            compared += _follows_the_numpy_loop(chain, q0, M_d, mode, 50)
            status, it, err, q, _ = _search(chain, q0, M_d, mode, 50)
            converged += _answer_is_certified((status, it, err, q), chain, M_d, mode, math.sqrt(e0 @ e0))
            ref = _solve_from(chain, q0, M_d.translation, M_d.rotation, mode, ROWS[mode], TOL, 50, LAM0,
                              LAM_MIN, 0.5)  # fmt: skip
            converged_ref += ref[1] < TOL
    assert converged >= 9 and abs(converged - converged_ref) <= 2
    assert compared >= 50


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    mode=st.sampled_from(list(CtrlPose)),
    lam=st.floats(1e-3, 10.0),
    at_limit=st.lists(st.sampled_from([0, 1, 2]), min_size=3, max_size=3),
)
def test_one_step_is_dls_step(seed: int, mode: CtrlPose, lam: float, at_limit: list[int]) -> None:
    """Phase 2 with no iteration: the error at the stored pose (pose_error) and the proposed q_try =
    clip(q + dls_step), joints on their limits included (the active set)."""
    rng = np.random.default_rng(seed)
    arm = Planar3R(np.array([-1.0, -1.5, -2.0]), np.array([1.0, 1.5, 2.0]))
    q = rng.uniform(arm.lower, arm.upper)
    for j, side in enumerate(at_limit):  # 1: on the lower limit, 2: on the upper one
        q[j] = (q[j], arm.lower[j], arm.upper[j])[side]
    M, J = arm.fk_jacobian(q)
    M_d = arm.fk_jacobian(q + rng.normal(0.0, 0.7, 3))[0]
    acc = _acc(3, lam0=1e3)
    acc[:3], acc[3:21] = q, J.ravel()
    acc[21:30], acc[30:33] = M.rotation.ravel(), M.translation
    acc[40] = lam  # λ (≤ lam0: kept)
    q_try = np.zeros(3)
    status, it, err, q_acc = kernels.dls_search(
        arm.fk_jacobian,
        q_try,
        M_d.rotation.copy(),
        M_d.translation.copy(),
        arm.lower,
        arm.upper,
        acc,
        int(mode),
        2,
        0,
    )
    e = pose_error(M_d.translation, M_d.rotation, M, mode)
    assert it == 0 and err == pytest.approx(math.sqrt(e @ e), rel=1e-9, abs=1e-14)
    np.testing.assert_allclose(acc[33:39], e, atol=1e-12)
    np.testing.assert_array_equal(q_acc, q)
    rows = ROWS[mode]
    dq = dls_step(J[rows], e[rows], q, arm.lower, arm.upper, lam, 0.5, np.eye(rows.stop - rows.start))
    if err < 1e-8:
        assert status == 1
    elif dq is None:
        assert status == 3
    else:
        assert status == 0
        np.testing.assert_allclose(q_try, np.clip(q + dq, arm.lower, arm.upper), atol=1e-10)


def test_pause_after_one_iteration_and_resume() -> None:
    """tol_pause: the search returns (status 4) after the first iteration that leaves err < tol_pause, its
    next step proposed in q_try; resuming it (phase 0) gives exactly the unpaused search."""
    arm = Planar3R(np.full(3, -3.0), np.full(3, 3.0))
    M_d = arm.fk_jacobian(np.array([0.4, 0.9, -0.7]))[0]
    Rd, pd, lo, hi = M_d.rotation.copy(), M_d.translation.copy(), arm.lower, arm.upper
    q0 = np.array([0.1, 0.5, -0.2])
    full = _search(arm, q0, M_d, CtrlPose.XYZ, 50)
    acc, q_try = _acc(3, tol_pause=1e-3), q0.copy()
    status, it, err, _ = kernels.dls_search(arm.fk_jacobian, q_try, Rd, pd, lo, hi, acc, 1, 1, 50)
    assert status == 4 and 1e-8 <= err < 1e-3 and 1 <= it < full[1]
    rest = kernels.dls_search(arm.fk_jacobian, q_try, Rd, pd, lo, hi, acc, 1, 0, 50 - it)
    assert rest[0] == 1 and it + rest[1] == full[1] and rest[2] == full[2]
    np.testing.assert_array_equal(rest[3], full[3])
    # a search paused on entry (its start already below tol_pause) still takes one iteration
    again = kernels.dls_search(
        arm.fk_jacobian, q0.copy(), Rd, pd, lo, hi, _acc(3, tol=1e-30, tol_pause=1e3), 1, 1, 5
    )
    assert again[0] == 4 and again[1] == 1


def _args(arm: Planar3R) -> list:
    M_d = arm.fk_jacobian(np.array([0.3, 0.2, 0.1]))[0]
    return [arm.fk_jacobian, np.zeros(3), M_d.rotation.copy(), M_d.translation.copy(), arm.lower.copy(),
            arm.upper.copy(), _acc(3), 0, 1, 5]  # fmt: skip


@pytest.mark.parametrize(
    "index, value, error",
    [
        (0, "not callable", TypeError),
        (0, lambda q: None, TypeError),  # fk must return (M, J)
        (0, lambda q: (np.eye(3), np.zeros((6, 3))), ValueError),  # M must be 4×4
        (0, lambda q: (np.eye(4), np.zeros((5, 3))), ValueError),  # J must be 6×n
        (0, lambda q: (pin.SE3.Identity(), np.zeros((6, 3), dtype=np.float32)), TypeError),
        (6, np.zeros(7 * 3 + 24), ValueError),  # acc of the wrong length
        (7, 3, ValueError),  # mode
        (8, -1, ValueError),  # phase
        (9, -2, ValueError),  # max_iter
        (1, np.zeros(0), ValueError),  # no joint
    ],
)
def test_bad_arguments_raise(index: int, value: object, error: type) -> None:
    arm = Planar3R(np.full(3, -3.0), np.full(3, 3.0))
    args = _args(arm)
    args[index] = value
    outputs = [np.copy(args[1]), np.copy(args[6])]
    with pytest.raises(error):
        kernels.dls_search(*args)
    np.testing.assert_array_equal(args[1], outputs[0])  # nothing written
    np.testing.assert_array_equal(args[6], outputs[1])


def test_fk_errors_propagate_and_fk_results_may_not_alias_the_outputs() -> None:
    arm = Planar3R(np.full(3, -3.0), np.full(3, 3.0))
    args = _args(arm)

    def boom(q: np.ndarray) -> tuple:
        raise RuntimeError("kinematics failed")

    args[0] = boom
    with pytest.raises(RuntimeError, match="kinematics failed"):
        kernels.dls_search(*args)
    args = _args(arm)
    acc = args[6]
    args[0] = lambda q: (np.eye(4), acc[:18].reshape(6, 3))  # J inside acc: refused
    with pytest.raises(ValueError, match="overlaps"):
        kernels.dls_search(*args)
