"""InverseDynamicsScene answers are the exact task optimum (issue 10, acceptance points 2, 3 and 5).

Oracles: AccelerationScene and ``pin.rnea`` (fixed-base arm without contacts); the independent contact
oracle ``tests/_contact_oracle.py`` (raw Pinocchio, corner-force parametrisation, no force regulariser,
quadprog) for Talos standing — its optimum with λ = 0 (the spec's tolerance: ‖q̈ − q̈*‖∞ ≤ 3e-5·(1 + ‖q̈*‖∞),
wrenches within 1e-4·mg of the least-norm split at q̈*) and with the scene's λ = 1e-8 on q̈ (the same
problem: q̈ to 1e-8 relative, wrenches to 1e-6·mg).
"""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin
import pytest
from _contact_oracle import (
    TALOS_SOLE,
    ContactProblem,
    OracleContact,
    TaskRows,
    com_task,
    talos_half_sitting,
    talos_standing,
)
from _id_helpers import G0, SOLES, assert_exact, solve_talos, talos_scene

from wbcpy import AccelerationScene, InverseDynamicsScene, load_robot
from wbcpy.qp.backends import daqp_direct
from wbcpy.tasks import CartesianReference, ComReference, JointReference

LWR_Q = np.array([0.3, 0.6, -0.2, -1.2, 0.3, 0.8, 0.1])


def _arm_configs(robot) -> list[dict]:
    return [
        {"name": "ee", "type": "cart", "tip": "lwr_ee", "priority": 0, "weights": [1, 1, 1, 0.5, 0.5, 0.5]},
        {"name": "posture", "type": "jnt", "joint_names": robot.joint_names, "priority": 1},
    ]


@pytest.mark.parametrize("effort_limits", [False, True])
def test_fixed_base_arm_equals_acceleration_scene_and_rnea(effort_limits: bool) -> None:
    robot = load_robot("lwr4")
    rng = np.random.default_rng(4)
    scenes = [AccelerationScene(robot), InverseDynamicsScene(robot, effort_limits=effort_limits)]
    for scene in scenes:
        scene.configure(_arm_configs(robot))
    data = robot.model.createData()
    for _ in range(5):
        q, v = LWR_Q + 0.3 * rng.normal(size=7), rng.normal(size=7)
        ee, post = 0.5 * rng.normal(size=6), rng.normal(size=7)
        robot.update(q, v)
        out = []
        for scene in scenes:
            scene.set_reference("ee", CartesianReference(ee))
            scene.set_reference("posture", JointReference(post))
            out.append(scene.solve(scene.update()))
        qdd = scenes[1].get_solver_output_raw()
        np.testing.assert_allclose(
            qdd, scenes[0].get_solver_output_raw(), rtol=0, atol=1e-9 * (1 + abs(qdd).max())
        )
        tau = pin.rnea(robot.model, data, q, v, qdd)
        np.testing.assert_allclose(out[1].effort, tau, rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(scenes[1].get_joint_torques(), tau, rtol=1e-10, atol=1e-10)
        assert out[0].effort is None and scenes[1].get_contact_wrenches() == {}


@pytest.fixture(scope="module")
def talos():
    return talos_half_sitting()


def _knee(model) -> int:
    return model.joints[model.getJointId("leg_left_4_joint")].idx_v - 6


#: name: (COM acceleration, μ, fz_max as a fraction of mg, feet, tight knee limit)
CASES = {
    "interior": ((0.3, -0.2, 0.1), 0.3, math.inf, SOLES, False),
    "friction": ((0.0, 3.0, 0.0), 0.05, math.inf, SOLES, False),
    "lifted_foot": ((0.0, 4.0, 0.0), 0.6, math.inf, SOLES, False),
    "cop_edge": ((3.0, 0.0, 0.0), 1.0, math.inf, SOLES, False),
    "fz_max": ((0.0, 1.5, 0.0), 0.6, 0.55, SOLES, False),
    "torque_single_support": ((0.0, 0.2, 0.0), 0.3, math.inf, SOLES[:1], True),
}


def _binding(name: str, wrenches: list[np.ndarray], mu: float, fz_max: float, tau, limit) -> None:
    """The case really has the constraint it is named after active."""
    fz = np.array([w[2] for w in wrenches])
    if name == "friction":
        assert all(abs(w[1]) == pytest.approx(mu * w[2], rel=1e-6) for w in wrenches)
    elif name == "lifted_foot":
        assert fz.min() < 1e-6 * fz.max()
    elif name == "cop_edge":
        assert any(abs(w[4]) == pytest.approx(TALOS_SOLE[0] * w[2], rel=1e-6) for w in wrenches)
    elif name == "fz_max":
        assert fz.max() == pytest.approx(fz_max, rel=1e-9)
    elif name == "torque_single_support":
        assert abs(tau) == pytest.approx(limit, rel=1e-8)


@pytest.mark.parametrize("name", CASES)
def test_talos_standing_is_the_exact_task_optimum(talos, name: str) -> None:
    robot, q = talos
    model = robot.model
    com, mu, fz_frac, feet, tight = CASES[name]
    mg = robot.total_mass * G0
    fz_max = fz_frac * mg
    rng = np.random.default_rng(3)
    v, post = np.zeros(model.nv), rng.normal(size=model.nv - 6)
    com = np.array(com)
    limits, options = None, {}
    if tight:  # 80 % of the knee torque the unconstrained optimum needs
        free = talos_standing(model, q, v, com, post, mu=mu, feet=feet)
        opt = free.task_optimum()
        limits = robot.effort_limit[6:]
        limits[_knee(model)] = 0.8 * abs(free.torques(opt.qdd, opt.wrenches)[_knee(model)])
        options = {"effort_limits": {"leg_left_4_joint": float(limits[_knee(model)])}}
    scene = talos_scene(robot, mu=mu, feet=feet, fz_max=fz_max, **options)
    qdd, wrenches, tau = solve_talos(scene, robot, q, v, com, post)
    w = [wrenches[f] for f in feet]
    for lam, qtol, wtol in ((0.0, 3e-5, 1e-4), (1e-8, 1e-8, 1e-6)):
        problem = talos_standing(model, q, v, com, post, mu=mu, feet=feet, fz_max=fz_max, effort_limit=limits,
                                 regularization=lam)  # fmt: skip
        opt = problem.task_optimum()
        assert np.abs(qdd - opt.qdd).max() <= qtol * (1 + np.abs(opt.qdd).max()), lam
        split = problem.least_norm_wrenches(opt.qdd, opt.wrenches)
        for mine, theirs in zip(w, split, strict=True):
            assert np.abs(mine - theirs).max() <= wtol * mg, (lam, mine - theirs)
        np.testing.assert_allclose(tau, problem.torques(opt.qdd, split), rtol=0, atol=2 * wtol * mg)
    _binding(name, w, mu, fz_max, tau[_knee(model)], None if limits is None else limits[_knee(model)])


def test_single_support_wrench_and_torque_are_unique(talos) -> None:
    """One sole: the unactuated rows fix its wrench for a given q̈, so wrench and τ equal the oracle's
    whatever split rule either side uses; a yawed, moving base catches frame errors."""
    robot, q0 = talos
    model = robot.model
    rng = np.random.default_rng(11)
    q = q0.copy()
    yaw = pin.utils.rotate("z", 0.6)
    q[:3] = yaw @ q[:3]
    q[3:7] = pin.Quaternion(yaw @ pin.Quaternion(q0[6], q0[3], q0[4], q0[5]).matrix()).coeffs()
    com, post = np.array([0.05, 0.1, -0.2]), rng.normal(size=model.nv - 6)
    scene = talos_scene(robot, mu=0.8, feet=SOLES[:1])
    qdd, wrenches, tau = solve_talos(scene, robot, q, np.zeros(model.nv), com, post)
    problem = talos_standing(
        model, q, np.zeros(model.nv), com, post, mu=0.8, feet=SOLES[:1], regularization=1e-8
    )
    opt = problem.task_optimum()
    mg = robot.total_mass * G0
    np.testing.assert_allclose(qdd, opt.qdd, rtol=0, atol=1e-9 * (1 + np.abs(opt.qdd).max()))
    np.testing.assert_allclose(wrenches[SOLES[0]], opt.wrenches[0], rtol=0, atol=1e-7 * mg)
    np.testing.assert_allclose(tau, problem.torques(opt.qdd, opt.wrenches), rtol=0, atol=1e-7 * mg)


@pytest.mark.parametrize("legs", [False, True])
def test_directions_no_task_covers_keep_the_regularised_optimum(talos, legs: bool) -> None:
    """A COM task (and a posture task on the legs only) leaves most of q̈ to the regulariser λ‖q̈‖²: q̈ must
    be that level's optimum (the least-norm wrench level below may not move it to shrink the wrenches).
    λ = 1e-4 keeps the oracle's proximal iterations short."""
    robot, q = talos
    model = robot.model
    com = np.array([0.2, -0.3, 0.4])
    scene = InverseDynamicsScene(robot, regularization=1e-4)
    scene.set_contacts([{"type": "surface", "frame": f, "half_size": TALOS_SOLE, "mu": 0.5} for f in SOLES])
    leg_joints = [n for n in robot.joint_names if n.startswith("leg_")]
    post = np.linspace(-1.0, 1.0, len(leg_joints))
    configs = [{"name": "com", "type": "com"}]
    if legs:
        configs.append({"name": "legs", "type": "jnt", "joint_names": leg_joints, "weights": [1e-2] * 12})
    scene.configure(configs)
    v = np.zeros(model.nv)
    robot.update(q, v)
    scene.set_reference("com", ComReference(com))
    tasks = [com_task(model, q, v, com, 1.0)]
    if legs:
        scene.set_reference("legs", JointReference(post))
        rows = np.eye(model.nv)[[robot.joint_v_index(n) for n in leg_joints]]
        tasks.append(TaskRows(rows, post, np.full(12, 1e-2)))
    scene.solve(scene.update())
    contacts = [OracleContact(f, 0.5, TALOS_SOLE) for f in SOLES]
    problem = ContactProblem(model, q, v, contacts, tasks, regularization=1e-4)
    assert_exact(robot, scene, problem, SOLES)


def test_talos_standing_still_is_exact_without_python_refinement(talos) -> None:
    """Standing still (v = 0, references 0): DAQP's level answer passes its certificate only within
    rounding (marginal, ~2e-11). It is accepted as it is — no active-set refinement in Python at every
    step (issue 26: that made the most common state 3–8× slower) — and is still the exact optimum of the
    independent oracle (λ = 1e-8: q̈ to 1e-8 relative, wrenches to 1e-6·mg)."""
    robot, q = talos
    model = robot.model
    v, com, post = np.zeros(model.nv), np.zeros(3), np.zeros(model.nv - 6)
    scene = talos_scene(robot)
    qdd, wrenches, _ = solve_talos(scene, robot, q, v, com, post)
    levels = scene.update_tasks_status().levels
    assert levels and all("refined" not in lv.status and lv.fallback is None for lv in levels), levels
    problem = talos_standing(model, q, v, com, post, regularization=1e-8)
    opt = problem.task_optimum()
    assert np.abs(qdd - opt.qdd).max() <= 1e-8 * (1 + np.abs(opt.qdd).max())
    split = problem.least_norm_wrenches(opt.qdd, opt.wrenches)
    for mine, theirs in zip([wrenches[f] for f in SOLES], split, strict=True):
        assert np.abs(mine - theirs).max() <= 1e-6 * robot.total_mass * G0


@pytest.mark.skipif(not daqp_direct.bound(), reason="no compiled level: this daqp is not bound directly")
def test_talos_standing_still_is_settled_in_compiled_code(talos, monkeypatch) -> None:
    """Standing still, every level is settled by the compiled level (its marginal certificate is the
    kernel's second test, as kkt._dual_error's): no level is built as a StdQP and solved again in Python
    (issue 26: that second solve made standing still 1.6× an ordinary state's step)."""
    from wbcpy.qp.level_solver import LevelSolver

    robot, q = talos
    python_solves = []
    real = LevelSolver.solve

    def counted(self, *args, **kwargs):
        python_solves.append(1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(LevelSolver, "solve", counted)
    scene = talos_scene(robot)
    for _ in range(3):
        solve_talos(scene, robot, q, np.zeros(robot.model.nv), np.zeros(3), np.zeros(robot.model.nv - 6))
    assert python_solves == []


def _equality_optimum(problem) -> np.ndarray:
    """q̈ minimising the oracle problem's cost subject to its contact rows J q̈ = −a only (the friction cones
    and the unactuated rows dropped: for two 6-D contacts Jᵤᵀ has full row rank, so some wrench meets the
    unactuated rows at any q̈), by least squares on J's null space with rows scaled by √weight (its error
    grows with cond of the rows, not of their Gram matrix). A lower bound of the cost: an answer that
    reaches it with wrenches inside the cones is the optimum."""
    from scipy.linalg import null_space

    N = null_space(problem.J)
    q0 = np.linalg.lstsq(problem.J, -problem.a, rcond=None)[0]
    rows, rhs = [], []
    for t in problem.tasks:
        s = np.sqrt(t.w)[:, None]
        rows.append(s * t.A @ N)
        rhs.append(s[:, 0] * (t.y - t.A @ q0))
    lam = math.sqrt(problem.regularization)
    rows.append(lam * N)
    rhs.append(-lam * q0)
    u = np.linalg.lstsq(np.vstack(rows), np.concatenate(rhs), rcond=None)[0]
    return q0 + N @ u


def test_weights_over_twelve_decades_are_exact_and_take_one_qr(talos) -> None:
    """COM weight 1e6 over posture 1e-6 (twelve decades): DAQP's proximal iterations crawl (40–160 per
    step) and stop within rounding of H (q̈ 1e-4 off). The compiled level then takes the unconstrained
    least-squares minimiser (a QR of the level's rows, the wrench split nearest DAQP's, then the last
    answer's) where it meets the friction cones, and tries it first on the next steps. Every step's q̈ is the
    optimum of the contact rows alone (a lower bound of the cost, computed independently) with wrenches
    inside the cones (the oracle's certificate): the exact optimum. (The oracle's own proximal solver
    does not converge at twelve decades.) Without the compiled level (a daqp not bound directly) DAQP's
    answer is kept as certified, within rounding: its cost within 1e-6 of the optimum's."""
    from _contact_oracle import talos_standing

    robot, q = talos
    model = robot.model
    rng = np.random.default_rng(12)
    scene = talos_scene(robot, weights=(1e6, 1e-6))
    statuses = []
    for _ in range(4):
        v = 0.02 * rng.standard_normal(model.nv)
        com, post = 0.2 * rng.standard_normal(3), 0.1 * rng.standard_normal(model.nv - 6)
        solve_talos(scene, robot, q, v, com, post)
        statuses.append(scene.update_tasks_status().levels[0].status)
        problem = talos_standing(model, q, v, com, post, weights=(1e6, 1e-6), regularization=1e-8)
        best = _equality_optimum(problem)
        qdd, wrenches = scene.get_solver_output_raw(), scene.get_contact_wrenches()
        if daqp_direct.bound():
            np.testing.assert_allclose(qdd, best, rtol=0, atol=1e-9 * (1 + np.abs(best).max()))
        else:  # (the Python path keeps DAQP's answer certified within rounding: optimal in cost)
            assert problem.cost(qdd) - problem.cost(best) <= 1e-6 * (1.0 + problem.cost(best))
        cert = problem.certificate(qdd, [wrenches[f] for f in SOLES])
        mg = robot.total_mass * G0
        assert max(cert.equality, cert.inequality, cert.cone) <= 1e-8 * mg, cert
    if daqp_direct.bound():  # (the compiled level takes it; the Python path refines DAQP's answer instead)
        assert all("least-squares" in s for s in statuses), statuses


@pytest.mark.skipif(not daqp_direct.bound(), reason="no compiled level: this daqp is not bound directly")
def test_after_a_twelve_decade_episode_daqp_answers_again(talos) -> None:
    """The least-squares minimiser goes first only while DAQP crawls. During a twelve-decade episode
    DAQP is tried again after LS_PROBE_FIRST steps, then at doubling intervals (it still crawls: few
    tries), and the Cholesky minimiser, tried at every step, refuses the weak directions; once the
    weights are ordinary again, the Cholesky minimiser answers at the first step and the QR is left
    (issue 26: the slower QR used to stay first for good, 1.13× TSID's step afterwards; then for up to
    LS_PROBE_MAX steps). Each answer is checked as in the twelve-decade test (the contact rows' optimum,
    wrenches inside the cones) — the path is only a choice of speed."""
    from _contact_oracle import talos_standing

    from wbcpy.qp.backends.active_set import LS_PROBE_FIRST, LS_PROBE_MAX

    robot, q = talos
    model = robot.model
    rng = np.random.default_rng(5)
    scene = talos_scene(robot, weights=(1e6, 1e-6))

    def step(weights: tuple[float, float]) -> tuple[str, int]:
        v = 0.02 * rng.standard_normal(model.nv)
        com, post = 0.2 * rng.standard_normal(3), 0.1 * rng.standard_normal(model.nv - 6)
        solve_talos(scene, robot, q, v, com, post)
        problem = talos_standing(model, q, v, com, post, weights=weights, regularization=1e-8)
        best = _equality_optimum(problem)
        np.testing.assert_allclose(scene.get_solver_output_raw(), best, rtol=0,
                                   atol=1e-8 * (1 + np.abs(best).max()))  # fmt: skip
        wrenches = scene.get_contact_wrenches()
        cert = problem.certificate(scene.get_solver_output_raw(), [wrenches[f] for f in SOLES])
        assert max(cert.equality, cert.inequality, cert.cone) <= 1e-8 * robot.total_mass * G0, cert
        level = scene.update_tasks_status().levels[0]
        return level.status, level.iterations

    episode = [step((1e6, 1e-6)) for _ in range(60)]
    assert all("least-squares" in s for s, _ in episode), episode
    daqp_runs = [k for k, (_, iterations) in enumerate(episode) if iterations > 0]
    # DAQP at the first step, then after 8, 16 and 32 minimiser steps: 4 runs in 60 steps
    assert daqp_runs[:2] == [0, LS_PROBE_FIRST + 1] and len(daqp_runs) <= 4, daqp_runs
    n = model.nv - 6
    scene.set_task_weights("com", [1.0] * 3)
    scene.set_task_weights("posture", [1e-3] * n)
    reached = min(LS_PROBE_FIRST * 2 ** (len(daqp_runs) - 1), LS_PROBE_MAX)  # (the interval set last)
    after = [step((1.0, 1e-3)) for _ in range(reached + 4)]
    first_daqp = next(k for k, (s, _) in enumerate(after) if "least-squares" not in s)
    assert first_daqp <= reached, after
    assert all("least-squares" not in s for s, _ in after[first_daqp:]), after
    assert first_daqp == 0 and "Cholesky" in after[0][0], after  # (the minimiser by Cholesky at once)
