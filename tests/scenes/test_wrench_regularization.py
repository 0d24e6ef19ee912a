"""InverseDynamicsScene's ``wrench_regularization`` ε: ε Σ_c ‖w_c‖² in the last task level instead of the
least-norm wrench level.

Oracle: the independent contact problem of ``tests/_contact_oracle.py`` (raw Pinocchio, corner forces,
quadprog) with the regulariser written as wrench rows ε ‖w_c‖² in the same level — the regularised
problem's exact optimum — and, as ε → 0, the unregularised optimum with its least-norm split (the spec's
tolerances). Bad values, the setter's cache invalidation, scene files, copies, pickles and threads.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _concurrency import COPIERS, run_together
from _contact_oracle import OracleContact, WrenchRows, talos_half_sitting, talos_standing
from _id_helpers import G0, SOLES, check_physics, solve_talos, talos_scene
from hypothesis import given, settings
from hypothesis import strategies as st

from wbcpy import InverseDynamicsScene
from wbcpy.errors import ConfigError
from wbcpy.scenes import load_scene_file

#: name: (COM acceleration, μ, fz_max as a fraction of mg): a free optimum and the binding cone faces
CASES = {
    "interior": ((0.3, -0.2, 0.1), 0.3, math.inf),
    "friction": ((0.0, 3.0, 0.0), 0.05, math.inf),
    "cop_edge": ((3.0, 0.0, 0.0), 1.0, math.inf),
    "fz_max": ((0.0, 1.5, 0.0), 0.6, 0.55),
}
BAD = [-1e-9, math.nan, math.inf, -math.inf, "1e-6", True, None, [1e-6], 10**400]


@pytest.fixture(scope="module")
def talos():
    return talos_half_sitting()


def _case(talos, name: str):
    robot, q = talos
    com, mu, fz_frac = CASES[name]
    rng = np.random.default_rng(3)
    post = rng.normal(size=robot.model.nv - 6)
    return robot, q, np.zeros(robot.model.nv), np.array(com), post, mu, fz_frac * robot.total_mass * G0


def _oracle(robot, q, v, com, post, mu, fz_max, eps: float, lam: float):
    """The problem with ε Σ ‖w_c‖² as wrench rows (identity, target 0, weight ε) in the task level."""
    rows = (
        tuple(WrenchRows(k, np.eye(6), np.zeros(6), np.full(6, eps)) for k in range(len(SOLES)))
        if eps
        else ()
    )
    return talos_standing(
        robot.model, q, v, com, post, mu=mu, fz_max=fz_max, regularization=lam, wrench_tasks=rows
    )


@pytest.mark.parametrize("name", CASES)
def test_regularised_answer_is_the_optimum_of_the_regularised_problem(talos, name: str) -> None:
    """ε = 1e-7 moves the answer visibly (≈ 0.03 rad/s² on q̈): it must be the regularised problem's
    optimum (λ = 1e-8 on q̈ as the scene's), q̈ to 1e-8 relative, wrenches to 1e-6·mg, and a physical
    answer (equations of motion, rigid contacts, cones)."""
    robot, q, v, com, post, mu, fz_max = _case(talos, name)
    eps, mg = 1e-7, robot.total_mass * G0
    scene = talos_scene(robot, mu=mu, fz_max=fz_max, wrench_regularization=eps)
    qdd, wrenches, _ = solve_talos(scene, robot, q, v, com, post)
    opt = _oracle(robot, q, v, com, post, mu, fz_max, eps, 1e-8).task_optimum()
    assert np.abs(qdd - opt.qdd).max() <= 1e-8 * (1 + np.abs(opt.qdd).max())
    for frame, theirs in zip(SOLES, opt.wrenches, strict=True):
        assert np.abs(wrenches[frame] - theirs).max() <= 1e-6 * mg, frame
    check_physics(robot, scene, q, v, [OracleContact(f, mu, (0.1, 0.065), fz_max=fz_max) for f in SOLES])
    exact = talos_scene(robot, mu=mu, fz_max=fz_max)
    qdd_exact = solve_talos(exact, robot, q, v, com, post)[0]
    assert np.abs(qdd - qdd_exact).max() > 1e3 * 1e-8 * (1 + np.abs(opt.qdd).max())  # ε does act


@pytest.mark.parametrize("name", CASES)
def test_small_regularisation_meets_the_exactness_tolerances(talos, name: str) -> None:
    """ε = 1e-12: q̈ within 3e-5·(1 + ‖q̈*‖∞) of the unregularised optimum, wrenches within 1e-4·mg of its
    least-norm split (the contact spec's tolerances for the exact scene)."""
    robot, q, v, com, post, mu, fz_max = _case(talos, name)
    mg = robot.total_mass * G0
    scene = talos_scene(robot, mu=mu, fz_max=fz_max, wrench_regularization=1e-12)
    qdd, wrenches, _ = solve_talos(scene, robot, q, v, com, post)
    problem = _oracle(robot, q, v, com, post, mu, fz_max, 0.0, 0.0)
    opt = problem.task_optimum()
    assert np.abs(qdd - opt.qdd).max() <= 3e-5 * (1 + np.abs(opt.qdd).max())
    split = problem.least_norm_wrenches(opt.qdd, opt.wrenches)
    for frame, theirs in zip(SOLES, split, strict=True):
        assert np.abs(wrenches[frame] - theirs).max() <= 1e-4 * mg, frame


@settings(max_examples=15, deadline=None)
@given(
    log_eps=st.tuples(st.floats(-10.0, -4.0), st.floats(0.3, 3.0)),
    com=st.lists(st.floats(-2.0, 2.0), min_size=3, max_size=3),
)
def test_a_larger_regulariser_trades_task_cost_for_smaller_wrenches(talos, log_eps, com) -> None:
    """The regularisation path: for ε₁ < ε₂ the answer at ε₂ has Σ‖w‖² no larger and a task cost (the
    oracle's, raw Pinocchio) no smaller than at ε₁ — each is optimal for its own ε, so
    c₁ + ε₁ n₁ ≤ c₂ + ε₁ n₂ and c₂ + ε₂ n₂ ≤ c₁ + ε₂ n₁, which give (ε₂ − ε₁)(n₁ − n₂) ≥ 0."""
    robot, q, v, _, post, mu, fz_max = _case(talos, "interior")
    com_acc = np.array(com)
    eps1 = 10.0 ** log_eps[0]
    eps2 = eps1 * 10.0 ** log_eps[1]
    problem = _oracle(robot, q, v, com_acc, post, mu, fz_max, 0.0, 1e-8)
    costs, norms = [], []
    for eps in (eps1, eps2):
        scene = talos_scene(robot, mu=mu, fz_max=fz_max, wrench_regularization=eps)
        qdd, wrenches, _ = solve_talos(scene, robot, q, v, com_acc, post)
        costs.append(problem.cost(qdd))
        norms.append(sum(float(w @ w) for w in wrenches.values()))
    scale = 1e-9 * (1.0 + max(norms))
    assert norms[1] <= norms[0] + scale
    assert costs[1] >= costs[0] - 1e-9 * (1.0 + max(costs)) - eps2 * scale


def test_the_wrench_level_is_left_out(talos) -> None:
    robot, q, v, *_ = _case(talos, "interior")
    exact, reg = talos_scene(robot), talos_scene(robot, wrench_regularization=1e-12)
    robot.update(q, v)
    n_exact, n_reg = len(exact.update().levels), len(reg.update().levels)
    assert n_reg == n_exact - 1
    assert exact.wrench_regularization == 0.0 and reg.wrench_regularization == 1e-12


@pytest.mark.parametrize("bad", BAD, ids=repr)
def test_bad_values_raise_and_change_nothing(talos, bad) -> None:
    robot, q, v, com, post, _, _ = _case(talos, "interior")
    with pytest.raises(ConfigError) as info:
        InverseDynamicsScene(robot, wrench_regularization=bad)
    assert info.value.field == "wrench_regularization"
    scene = talos_scene(robot, wrench_regularization=1e-7)
    before = solve_talos(scene, robot, q, v, com, post)[0]
    with pytest.raises(ConfigError) as info:
        scene.wrench_regularization = bad
    assert info.value.field == "wrench_regularization"
    assert scene.wrench_regularization == 1e-7
    after = solve_talos(scene, robot, q, v, com, post)[0]  # (a warm start: equal to rounding)
    np.testing.assert_allclose(after, before, rtol=0, atol=1e-9 * (1 + np.abs(before).max()))


def test_setting_it_rebuilds_what_depends_on_it(talos) -> None:
    """Set after solves, and across contact switches (whose kept sets hold the level rows), the scene
    answers as one built with the new value."""
    robot, q, v, com, post, _, _ = _case(talos, "interior")
    scene = talos_scene(robot)
    solve_talos(scene, robot, q, v, com, post)
    scene.set_contact_active(SOLES[1], False)
    solve_talos(scene, robot, q, v, com, post)
    scene.set_contact_active(SOLES[1], True)
    for eps in (1e-7, 0.0, 1e-6):
        scene.wrench_regularization = eps
        fresh = talos_scene(robot, wrench_regularization=eps)
        for lifted in (False, True, False):
            scene.set_contact_active(SOLES[1], not lifted)
            fresh.set_contact_active(SOLES[1], not lifted)
            got = solve_talos(scene, robot, q, v, com, post)[0]
            want = solve_talos(fresh, robot, q, v, com, post)[0]
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-9 * (1 + np.abs(want).max()))


def test_scene_files_take_it(talos) -> None:
    doc = {
        "robot": "talos",
        "floating_base": True,
        "q0": "half_sitting",
        "steps": 3,
        "wrench_regularization": 1e-10,
        "contacts": [{"type": "surface", "frame": f, "half_size": [0.1, 0.065], "mu": 0.3} for f in SOLES],
        "tasks": [{"name": "com", "type": "com"}],
    }
    setup = load_scene_file(doc)
    assert isinstance(setup.scene, InverseDynamicsScene)
    assert setup.scene.wrench_regularization == 1e-10
    for bad in (-1.0, "small", True):
        with pytest.raises(ConfigError) as info:
            load_scene_file({**doc, "wrench_regularization": bad})
        assert info.value.field == "wrench_regularization"


@pytest.mark.parametrize("how", COPIERS)
def test_copies_keep_it_and_stay_independent(talos, how: str) -> None:
    robot, q, v, com, post, _, _ = _case(talos, "interior")
    scene = talos_scene(robot, wrench_regularization=1e-7)
    want = solve_talos(scene, robot, q, v, com, post)[0]
    clone = COPIERS[how](scene)
    assert clone.wrench_regularization == 1e-7
    clone.wrench_regularization = 0.0
    assert scene.wrench_regularization == 1e-7
    got = solve_talos(scene, robot, q, v, com, post)[0]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-9 * (1 + np.abs(want).max()))


def test_copies_in_threads_answer_as_alone(talos) -> None:
    """Deep copies (each with its own robot) solved in threads at once give the serial answers."""
    robot, q, v, com, post, _, _ = _case(talos, "interior")
    base = talos_scene(robot, wrench_regularization=1e-7)
    want = solve_talos(base, robot, q, v, com, post)[0]
    tol = 1e-9 * (1 + np.abs(want).max())

    def worker(stop) -> None:
        scene = COPIERS["deepcopy"](base)
        own = scene.robot
        while not stop.is_set():
            np.testing.assert_allclose(solve_talos(scene, own, q, v, com, post)[0], want, rtol=0, atol=tol)

    run_together([worker, worker])
