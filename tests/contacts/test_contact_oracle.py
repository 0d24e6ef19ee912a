"""The contact oracle (tests/_contact_oracle.py) on problems with closed-form answers, and on Talos.

Closed forms: a free-floating box standing on its sole (a surface contact) carries a slider that moves
along x at height h2. The box cannot move (q̈_base = 0) and a slider acceleration a needs the
environment's wrench w = (m2 a, 0, W, 0, m2 h2 a, 0) with W = (m1 + m2) g, so a task asking for a large
a gets exactly a* = min(a_ref, μ W / m2 (friction), X W / (m2 h2) (centre of pressure), τ_max / m2
(effort)). A box on four corner points with its COM at (cx, cy) has the least-norm split
f_iz = W/4 (1 + x_i cx / X² + y_i cy / Y²), no tangential force.
"""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin
import pytest
from _contact_oracle import (
    ContactProblem,
    OracleContact,
    TaskRows,
    WrenchRows,
    cone_facets,
    pyramid_generators,
    talos_half_sitting,
    talos_standing,
)

G0 = 9.81
M1, M2, H1 = 20.0, 5.0, 0.3


def box_model(h2: float, X: float, Y: float, com: tuple[float, float] = (0.0, 0.0), slider: bool = True):
    """A free-flyer box (mass M1, COM at (cx, cy, H1)) with a sole frame at its origin, four corner
    frames (±X, ±Y, 0) and optionally a slider (mass M2) on a prismatic x joint at height h2."""
    corners = "".join(
        f'<link name="c{i}"/><joint name="cj{i}" type="fixed"><parent link="base"/><child link="c{i}"/>'
        f'<origin xyz="{sx * X} {sy * Y} 0"/></joint>'
        for i, (sx, sy) in enumerate(((1, 1), (1, -1), (-1, 1), (-1, -1)))
    )
    slide = (
        f'<link name="slider"><inertial><origin xyz="0 0 0"/><mass value="{M2}"/>'
        '<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>'
        '<joint name="slide" type="prismatic"><parent link="base"/><child link="slider"/>'
        f'<origin xyz="0 0 {h2}"/><axis xyz="1 0 0"/><limit lower="-1" upper="1" effort="1e3" velocity="1"/>'
        "</joint>"
        if slider
        else ""
    )
    xml = (
        '<robot name="box"><link name="base"><inertial>'
        f'<origin xyz="{com[0]} {com[1]} {H1}"/><mass value="{M1}"/>'
        '<inertia ixx="0.4" iyy="0.5" izz="0.6" ixy="0" ixz="0" iyz="0"/></inertial></link>'
        '<link name="sole"/><joint name="sole_joint" type="fixed"><parent link="base"/><child link="sole"/>'
        f'<origin xyz="0 0 0"/></joint>{corners}{slide}</robot>'
    )
    model = pin.buildModelFromXML(xml, pin.JointModelFreeFlyer())
    return model, pin.neutral(model), np.zeros(model.nv)


def slider_problem(a_ref: float, mu: float, h2: float, X: float, Y: float, tau_max: float = math.inf):
    model, q, v = box_model(h2, X, Y)
    row = np.zeros((1, model.nv))
    row[0, 6] = 1.0
    task = TaskRows(row, np.array([a_ref]), np.ones(1))
    contact = OracleContact("sole", mu, (X, Y))
    return ContactProblem(model, q, v, [contact], [task], np.array([tau_max]))


def slider_answer(a: float, h2: float) -> tuple[np.ndarray, np.ndarray]:
    qdd = np.zeros(7)
    qdd[6] = a
    W = (M1 + M2) * G0
    return qdd, np.array([M2 * a, 0.0, W, 0.0, M2 * h2 * a, 0.0])


W_TOTAL = (M1 + M2) * G0
SLIDER_CASES = {
    # name: (a_ref, mu, h2, X, Y, tau_max, a*)
    "free": (0.7, 0.5, 0.05, 0.3, 0.2, math.inf, 0.7),
    "friction": (50.0, 0.2, 0.05, 0.3, 0.2, math.inf, 0.2 * W_TOTAL / M2),
    "centre_of_pressure": (50.0, 1.0, 1.0, 0.05, 0.05, math.inf, 0.05 * W_TOTAL / M2),
    "effort": (50.0, 1.0, 0.05, 0.3, 0.2, 30.0, 30.0 / M2),
}


@pytest.mark.parametrize("name", SLIDER_CASES)
def test_task_optimum_matches_closed_form(name: str) -> None:
    a_ref, mu, h2, X, Y, tau_max, a_star = SLIDER_CASES[name]
    problem = slider_problem(a_ref, mu, h2, X, Y, tau_max)
    sol = problem.task_optimum()
    qdd, w = slider_answer(a_star, h2)
    np.testing.assert_allclose(sol.qdd, qdd, atol=1e-9 * (1 + a_star))
    np.testing.assert_allclose(sol.wrenches[0], w, atol=1e-8 * W_TOTAL)  # one contact: w is unique
    np.testing.assert_allclose(problem.torques(sol.qdd, sol.wrenches), [M2 * a_star], rtol=1e-9)
    np.testing.assert_allclose(problem.least_norm_wrenches(sol.qdd, sol.wrenches)[0], w, atol=1e-8 * W_TOTAL)


@pytest.mark.parametrize("name", SLIDER_CASES)
def test_certificate_accepts_the_closed_form_and_rejects_neighbours(name: str) -> None:
    a_ref, mu, h2, X, Y, tau_max, a_star = SLIDER_CASES[name]
    problem = slider_problem(a_ref, mu, h2, X, Y, tau_max)
    cert = problem.certificate(*_as_candidate(slider_answer(a_star, h2)))
    assert cert.optimal(1e-9, W_TOTAL), cert
    slower = problem.certificate(*_as_candidate(slider_answer(0.98 * a_star, h2)))  # feasible, worse
    assert slower.inequality == 0.0 and slower.cone < 1e-9 * W_TOTAL
    assert slower.stationarity > 1e-3 * slower.gradient
    if a_star < a_ref:  # a binding constraint: 2 % more is infeasible
        faster = problem.certificate(*_as_candidate(slider_answer(1.02 * a_star, h2)))
        assert max(faster.cone, faster.inequality) > 1e-3


def _as_candidate(answer: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, list[np.ndarray]]:
    return answer[0], [answer[1]]


def test_least_norm_split_of_a_box_on_four_points() -> None:
    X, Y, cx, cy = 0.2, 0.1, 0.05, -0.03
    model, q, v = box_model(0.0, X, Y, com=(cx, cy), slider=False)
    contacts = [OracleContact(f"c{i}", 0.5) for i in range(4)]
    problem = ContactProblem(model, q, v, contacts, [])
    sol = problem.task_optimum()
    np.testing.assert_allclose(sol.qdd, 0.0, atol=1e-10)
    W = M1 * G0
    split = problem.least_norm_wrenches(sol.qdd, sol.wrenches)
    for (sx, sy), f in zip(((1, 1), (1, -1), (-1, 1), (-1, -1)), split, strict=True):
        fz = W / 4 * (1 + sx * X * cx / X**2 + sy * Y * cy / Y**2)
        np.testing.assert_allclose(f, [0.0, 0.0, fz], atol=1e-9 * W)
    # the split realises q̈ = 0 and is optimal (no task: any feasible split is)
    assert problem.certificate(sol.qdd, split).optimal(1e-9, W)


def test_cone_facets_of_the_point_pyramid() -> None:
    mu = 0.4
    facets = cone_facets(pyramid_generators(mu))
    expected = np.array([[1, 0, -mu], [-1, 0, -mu], [0, 1, -mu], [0, -1, -mu]]) / math.hypot(1, mu)
    assert facets.shape == (4, 3)
    for e in expected:
        assert np.min(np.linalg.norm(facets - e, axis=1)) < 1e-12


@pytest.fixture(scope="module")
def talos():
    return talos_half_sitting()


@pytest.mark.parametrize(
    ("com_acc", "mu"),
    [((0.3, -0.2, 0.1), 0.3), ((0.0, 3.0, 0.0), 0.05), ((0.0, 4.0, 0.0), 0.6), ((3.0, 0.0, 0.0), 1.0)],
    ids=["interior", "friction", "lifted_foot", "cop_edge"],
)
def test_talos_optimum_is_certified_and_independent_of_eps(talos, com_acc, mu) -> None:
    robot, q = talos
    model = robot.model
    rng = np.random.default_rng(3)
    v = np.zeros(model.nv)
    problem = talos_standing(model, q, v, np.array(com_acc), rng.normal(size=model.nv - 6), mu=mu)
    sol = problem.task_optimum()
    other = problem.task_optimum(eps=3e-7)
    scale = 1 + np.abs(sol.qdd).max()
    np.testing.assert_allclose(sol.qdd, other.qdd, atol=1e-9 * scale)
    mg = problem.total_mass * G0
    assert problem.certificate(sol.qdd, sol.wrenches).optimal(1e-9, mg)
    split = problem.least_norm_wrenches(sol.qdd, sol.wrenches)
    assert problem.certificate(sol.qdd, split).optimal(1e-9, mg)
    assert sum(float(w @ w) for w in split) <= sum(float(w @ w) for w in sol.wrenches) + 1e-9 * mg**2


def test_wrench_task_gives_the_left_sole_seventy_percent_of_the_weight(talos) -> None:
    robot, q = talos
    model = robot.model
    rng = np.random.default_rng(8)
    v = np.zeros(model.nv)
    com_acc, posture_acc = np.array([0.3, -0.2, 0.1]), rng.normal(size=model.nv - 6)
    free = talos_standing(model, q, v, com_acc, posture_acc).task_optimum()
    mg = sum(inertia.mass for inertia in model.inertias) * G0
    fz = np.zeros((1, 6))
    fz[0, 2] = 1.0
    ask = WrenchRows(0, fz, np.array([0.7 * mg]), np.ones(1))
    problem = talos_standing(model, q, v, com_acc, posture_acc, wrench_tasks=(ask,))
    sol = problem.task_optimum()
    assert sol.wrenches[0][2] == pytest.approx(0.7 * mg, rel=1e-9)
    # in double support the split does not change what the robot can do: q̈ is the same
    np.testing.assert_allclose(sol.qdd, free.qdd, atol=1e-9 * (1 + np.abs(free.qdd).max()))
    assert problem.certificate(sol.qdd, sol.wrenches).optimal(1e-9, mg)
    split = problem.least_norm_wrenches(sol.qdd, sol.wrenches)
    assert split[0][2] == pytest.approx(0.7 * mg, rel=1e-9)


def test_single_support_with_a_tight_knee_torque_limit(talos) -> None:
    robot, q = talos
    model = robot.model
    rng = np.random.default_rng(9)
    v = np.zeros(model.nv)
    com_acc, posture_acc = np.array([0.0, 0.2, 0.0]), rng.normal(size=model.nv - 6)
    feet = ("left_sole_link",)
    limits = model.effortLimit[6:].copy()
    free_problem = talos_standing(model, q, v, com_acc, posture_acc, feet=feet, effort_limit=limits)
    free = free_problem.task_optimum()
    knee = model.joints[model.getJointId("leg_left_4_joint")].idx_v - 6
    tau_free = free_problem.torques(free.qdd, free.wrenches)
    limits[knee] = 0.8 * abs(tau_free[knee])
    problem = talos_standing(model, q, v, com_acc, posture_acc, feet=feet, effort_limit=limits)
    sol = problem.task_optimum()
    tau = problem.torques(sol.qdd, sol.wrenches)
    assert np.all(np.abs(tau) <= limits * (1 + 1e-9))
    assert abs(tau[knee]) == pytest.approx(limits[knee], rel=1e-8)  # the bound binds
    assert sol.cost > free.cost * (1 + 1e-6)
    mg = problem.total_mass * G0
    assert problem.certificate(sol.qdd, sol.wrenches).optimal(1e-9, mg)
    # single support: one 6-D wrench, fixed by the unactuated rows — unique, and so is τ
    np.testing.assert_allclose(
        problem.least_norm_wrenches(sol.qdd, sol.wrenches)[0], sol.wrenches[0], atol=1e-6
    )
