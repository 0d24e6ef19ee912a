"""Helpers of the InverseDynamicsScene tests: Talos scenes matching the oracle's problems, and the physics
check of an answer against raw Pinocchio (``tests/_contact_oracle.py`` builds the raw quantities)."""

from __future__ import annotations

import math

import numpy as np
from _contact_oracle import TALOS_SOLE, ContactProblem, OracleContact, cone_facets

from wbcpy import InverseDynamicsScene
from wbcpy.contacts import PointContact, SurfaceContact
from wbcpy.sim.contact_simulation import ContactSimulation
from wbcpy.tasks import ComReference, JointReference

SOLES = ("left_sole_link", "right_sole_link")
G0 = 9.81


def actuated_joints(robot) -> list[str]:
    return [n for n in robot.joint_names if robot.model.joints[robot.joint_id(n)].nv == 1]


def talos_scene(
    robot,
    mu: float = 0.3,
    feet: tuple[str, ...] = SOLES,
    weights: tuple[float, float] = (1.0, 1e-3),
    fz_max: float = math.inf,
    **options,
) -> InverseDynamicsScene:
    """The scene of the oracle's ``talos_standing``: soles as surface contacts, COM + posture in one level."""
    scene = InverseDynamicsScene(robot, **options)
    scene.set_contacts([SurfaceContact(f, half_size=TALOS_SOLE, mu=mu, fz_max=fz_max) for f in feet])
    joints = actuated_joints(robot)
    scene.configure(
        [
            {"name": "com", "type": "com", "weights": [weights[0]] * 3},
            {"name": "posture", "type": "jnt", "joint_names": joints, "weights": [weights[1]] * len(joints)},
        ]
    )
    return scene


def solve_talos(scene, robot, q, v, com_acc, posture_acc):
    """Set the state and references, solve; returns (q̈, wrenches in contact order, τ)."""
    robot.update(q, v)
    scene.set_reference("com", ComReference(np.asarray(com_acc, dtype=float)))
    scene.set_reference("posture", JointReference(np.asarray(posture_acc, dtype=float)))
    cmd = scene.solve(scene.update())
    wrenches = scene.get_contact_wrenches()
    return scene.get_solver_output_raw(), wrenches, cmd.effort


def check_physics(robot, scene, q, v, contacts: list[OracleContact], effort_limit=None, tol: float = 1e-8):
    """Acceptance point 4 for the scene's last answer at (q, v): equations of motion, zero contact
    acceleration, wrenches in their corner-form cones and bounds, |τ| within limits (all from raw Pinocchio
    and qhull), and rigid-contact forward dynamics (Pinocchio's constraintDynamics) of τ giving back q̈
    and the wrenches. (q, v) must keep the contact frames at rest (Pinocchio's 6-D contacts constrain the
    spatial acceleration, the scene the classical one: equal then.)"""
    model = robot.model
    qdd = scene.get_solver_output_raw()
    tau = scene.get_joint_torques()
    wrenches = scene.get_contact_wrenches()
    assert list(wrenches) == [c.frame for c in contacts]
    w = np.concatenate([wrenches[c.frame] for c in contacts]) if contacts else np.zeros(0)
    raw = ContactProblem(model, q, v, contacts, [])
    mg = robot.total_mass * G0
    scale = mg * (1.0 + np.abs(qdd).max())
    gen = np.zeros(model.nv)
    gen[raw.actuated] = tau
    eom = raw.M @ qdd + raw.h - gen - raw.J.T @ w
    assert np.abs(eom).max() <= tol * scale, np.abs(eom).max()
    if contacts:
        acc = raw.J @ qdd + raw.a
        assert np.abs(acc).max() <= tol * (1.0 + np.abs(qdd).max()), np.abs(acc).max()
    for c in contacts:
        wc = wrenches[c.frame]
        facets = cone_facets(c.generators())
        assert (facets @ wc).max() <= tol * mg, (c.frame, (facets @ wc).max())
        assert c.fz_min - tol * mg <= wc[2] <= c.fz_max + tol * mg
    if effort_limit is not None:
        assert np.all(np.abs(tau) <= effort_limit * (1 + 1e-9) + tol)
    sim = ContactSimulation(robot, [_as_contact(c) for c in contacts], q, v)
    qdd_sim, w_sim = sim.forward(q, v, tau)
    np.testing.assert_allclose(qdd_sim, qdd, rtol=0, atol=1e-8 * (1.0 + np.abs(qdd).max()))
    for c in contacts:  # independent contact rows: the wrenches that go with τ are unique
        np.testing.assert_allclose(w_sim[c.frame], wrenches[c.frame], rtol=0, atol=1e-7 * mg)
    return qdd, wrenches, tau


def assert_exact(robot, scene, problem, frames, qtol: float = 1e-8, wtol: float = 1e-6):
    """The scene's q̈ is the oracle problem's optimum (relative ``qtol``) and its wrenches the least-norm
    split at it (``wtol``·mg); returns the optimum."""
    opt = problem.task_optimum()
    qdd = scene.get_solver_output_raw()
    np.testing.assert_allclose(qdd, opt.qdd, rtol=0, atol=qtol * (1 + np.abs(opt.qdd).max()))
    split = problem.least_norm_wrenches(opt.qdd, opt.wrenches)
    mg = robot.total_mass * G0
    wrenches = scene.get_contact_wrenches()
    for frame, theirs in zip(frames, split, strict=True):
        np.testing.assert_allclose(wrenches[frame], theirs, rtol=0, atol=wtol * mg)
    return opt


def _as_contact(c: OracleContact) -> SurfaceContact | PointContact:
    if c.half_size is None:
        return PointContact(c.frame, mu=c.mu, fz_min=c.fz_min, fz_max=c.fz_max)
    return SurfaceContact(c.frame, half_size=c.half_size, mu=c.mu, fz_min=c.fz_min, fz_max=c.fz_max)
