"""Physics of every InverseDynamicsScene answer, and every backend (issue 10, acceptance points 4 and 7).

Every answer is checked with raw Pinocchio (``tests/_id_helpers.check_physics``): the equations of motion
with the scene's τ and wrenches, zero contact acceleration, wrenches inside the corner-form cones (qhull
facets of the corner generators) and the normal-force bounds, |τ| within the limits, and Pinocchio's
rigid-contact forward dynamics (``constraintDynamics``) of τ giving back the scene's q̈ and wrenches.
Inputs vary (hypothesis): state, velocity (contact frames at rest), μ, references, effort limits.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from _contact_oracle import (
    TALOS_SOLE,
    ContactProblem,
    OracleContact,
    com_task,
    posture_task,
    rigid_contact_velocity,
    talos_half_sitting,
)
from _id_helpers import G0, SOLES, actuated_joints, assert_exact, check_physics, solve_talos, talos_scene
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_inverse_dynamics_exact import CASES

from wbcpy import InverseDynamicsScene, load_robot
from wbcpy.contacts import PointContact
from wbcpy.errors import QPSolveError
from wbcpy.model.registry import example_robot_data_dir
from wbcpy.qp import QPSolver, available_solvers, default_solver
from wbcpy.scenes.inverse_dynamics_scene import BACKEND_OPTIONS
from wbcpy.tasks import ComReference, JointReference


@pytest.fixture(scope="module")
def talos():
    return talos_half_sitting()


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    seed=st.integers(0, 2**31),
    mu=st.floats(0.1, 1.0),
    com_scale=st.floats(0.0, 5.0),
    both_feet=st.booleans(),
    effort=st.booleans(),
)
def test_every_answer_is_physical(
    talos, seed: int, mu: float, com_scale: float, both_feet: bool, effort: bool
):
    robot, q0 = talos
    model = robot.model
    rng = np.random.default_rng(seed)
    q = pin.integrate(model, q0, rng.normal(size=model.nv) * 0.03)
    feet = SOLES if both_feet else SOLES[:1]
    v = rigid_contact_velocity(model, q, list(feet), [6] * len(feet), rng) * 0.3
    scene = talos_scene(robot, mu=mu, feet=feet, effort_limits=effort)
    com = rng.normal(size=3) * com_scale
    solve_talos(scene, robot, q, v, com, rng.normal(size=model.nv - 6))
    contacts = [OracleContact(f, mu, TALOS_SOLE) for f in feet]
    check_physics(robot, scene, q, v, contacts, robot.effort_limit[6:] if effort else None)


def test_without_active_contacts_the_robot_falls_freely(talos) -> None:
    robot, q = talos
    model = robot.model
    scene = talos_scene(robot)
    for frame in SOLES:
        scene.set_contact_active(frame, False)
    rng = np.random.default_rng(2)
    v = rng.normal(size=model.nv) * 0.2
    solve_talos(scene, robot, q, v, (0.0, 0.0, 0.0), rng.normal(size=model.nv - 6))
    assert scene.get_contact_wrenches() == {}
    qdd = check_physics(robot, scene, q, v, [])[0]
    # whatever τ does, the COM falls with g (closed form)
    data = model.createData()
    pin.centerOfMass(model, data, q, v, qdd)
    np.testing.assert_allclose(data.acom[0], [0.0, 0.0, -G0], atol=1e-8)


@pytest.fixture(scope="module")
def solo():
    if example_robot_data_dir() is None:
        pytest.skip("example-robot-data is not installed")
    robot = load_robot("solo12")
    model = robot.model
    q = pin.neutral(model)
    q[7:] = np.tile([0.0, 0.8, -1.6], 4)
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    q[2] -= min(data.oMf[model.getFrameId(f)].translation[2] for f in SOLO_FEET)
    return robot, q


SOLO_FEET = ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"]


def test_quadruped_on_point_contacts_is_exact_and_physical(solo) -> None:
    """Four point contacts (3-D forces, friction pyramids): the exact optimum of the oracle and the
    physics of the answer; the velocity is arbitrary (point contacts constrain the classical
    acceleration in Pinocchio too)."""
    robot, q0 = solo
    model = robot.model
    rng = np.random.default_rng(6)
    q = pin.integrate(model, q0, rng.normal(size=model.nv) * 0.05)
    v = rng.normal(size=model.nv) * 0.3
    scene = InverseDynamicsScene(robot, effort_limits=True)
    scene.set_contacts([PointContact(f, mu=0.6, fz_max=40.0) for f in SOLO_FEET])
    joints = actuated_joints(robot)
    posture = {"name": "posture", "type": "jnt", "joint_names": joints, "weights": [1e-2] * 12}
    scene.configure([{"name": "com", "type": "com"}, posture])
    com, post = np.array([1.0, -0.5, 2.0]), rng.normal(size=12)
    robot.update(q, v)
    scene.set_reference("com", ComReference(com))
    scene.set_reference("posture", JointReference(post))
    scene.solve(scene.update())
    contacts = [OracleContact(f, 0.6, fz_max=40.0) for f in SOLO_FEET]
    limits = robot.effort_limit[6:]
    check_physics(robot, scene, q, v, contacts, limits)
    tasks = [com_task(model, q, v, com, 1.0), posture_task(model, post, 1e-2)]
    problem = ContactProblem(model, q, v, contacts, tasks, limits, regularization=1e-8)
    assert_exact(robot, scene, problem, SOLO_FEET)


@pytest.mark.parametrize("name", available_solvers())
def test_every_backend_agrees_or_raises(talos, name: str) -> None:
    """Each installed backend (no rescue; the scene's options for it) gives the default backend's answer to
    1e-5 relative, or raises QPSolveError; the default backend solves every case (also the lifted foot:
    f_z = 0, all 16 cone rows of that sole active)."""
    robot, q = talos
    model = robot.model
    mg = robot.total_mass * G0
    for case, (com, mu, fz_frac, feet, tight) in CASES.items():
        rng = np.random.default_rng(3)
        post = rng.normal(size=model.nv - 6)
        options = {"effort_limits": {"leg_left_4_joint": 60.0}} if tight else {}
        args = (robot, q, np.zeros(model.nv), com, post)
        ref = solve_talos(talos_scene(robot, mu=mu, feet=feet, fz_max=fz_frac * mg, **options), *args)
        solver = QPSolver(
            name, rescue=None, **BACKEND_OPTIONS.get(name, {})
        )  # the scene's options per backend
        scene = talos_scene(robot, mu=mu, feet=feet, fz_max=fz_frac * mg, solver=solver, **options)
        try:
            qdd, wrenches, tau = solve_talos(scene, *args)
        except QPSolveError as exc:
            assert name != default_solver(), (case, str(exc))
            continue
        scale = 1 + np.abs(ref[0]).max()
        np.testing.assert_allclose(qdd, ref[0], rtol=0, atol=1e-5 * scale, err_msg=case)
        for f in feet:
            np.testing.assert_allclose(wrenches[f], ref[1][f], rtol=0, atol=1e-5 * mg, err_msg=case)
        np.testing.assert_allclose(tau, ref[2], rtol=0, atol=1e-5 * mg, err_msg=case)
        if case == "lifted_foot":
            assert min(w[2] for w in wrenches.values()) < 1e-6 * mg
