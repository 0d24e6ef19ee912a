"""Contact switches in the inverse-dynamics scene (issue 26: the step right after a switch cost 1.9× a
standing step): a switch keeps what the outgoing contact set built and takes back what the incoming one
built the last time it was active. Oracle: a fresh scene configured with the same active contacts (built
from scratch, no kept state) gives the same q̈, τ and wrenches; changes made while a set was inactive
(task weights, joint weights, references) are seen when it comes back."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from _contact_oracle import talos_half_sitting
from _id_helpers import SOLES, actuated_joints, solve_talos, talos_scene


@pytest.fixture(scope="module")
def talos():
    return talos_half_sitting()


def _fresh(robot, active: tuple[bool, bool], weights=(1.0, 1e-3)):
    scene = talos_scene(robot, weights=weights)
    for frame, on in zip(SOLES, active, strict=True):
        scene.set_contact_active(frame, on)
    return scene


def _same(a: tuple, b: tuple) -> None:
    qdd, w, tau = a
    qdd_ref, w_ref, tau_ref = b
    np.testing.assert_allclose(qdd, qdd_ref, rtol=0, atol=1e-9 * (1 + np.abs(qdd_ref).max()))
    np.testing.assert_allclose(tau, tau_ref, rtol=0, atol=1e-9 * (1 + np.abs(tau_ref).max()))
    assert w.keys() == w_ref.keys()
    for f in w:
        np.testing.assert_allclose(w[f], w_ref[f], rtol=0, atol=1e-7 * (1 + np.abs(w_ref[f]).max()))


def test_switching_back_and_forth_equals_a_fresh_scene(talos) -> None:
    robot, q0 = talos
    rng = np.random.default_rng(4)
    scene = talos_scene(robot)
    na = robot.nv - 6
    for k in range(8):
        active = (True, k % 2 == 0)  # double support, then the right sole lifted, and so on
        scene.set_contact_active(SOLES[1], active[1])
        v = 0.05 * rng.standard_normal(robot.nv)
        com, post = rng.standard_normal(3), 0.1 * rng.standard_normal(na)
        got = solve_talos(scene, robot, q0, v, com, post)
        _same(got, solve_talos(_fresh(robot, active), robot, q0, v, com, post))
        assert scene.active_contact_frames == [f for f, on in zip(SOLES, active, strict=True) if on]


def test_changes_made_while_a_set_was_inactive_are_seen_when_it_returns(talos) -> None:
    robot, q0 = talos
    na = robot.nv - 6
    v, com, post = np.zeros(robot.nv), np.array([0.0, 0.4, 0.1]), np.zeros(na)
    scene = talos_scene(robot)
    solve_talos(scene, robot, q0, v, com, post)  # the double-support set builds its plan
    scene.set_contact_active(SOLES[1], False)
    solve_talos(scene, robot, q0, v, com, post)
    scene.set_task_weights("com", [1e3] * 3)  # while double support is kept aside
    scene.set_contact_active(SOLES[1], True)
    _same(solve_talos(scene, robot, q0, v, com, post),
          solve_talos(_fresh(robot, (True, True), (1e3, 1e-3)), robot, q0, v, com, post))  # fmt: skip
    scene.set_contact_active(SOLES[1], False)
    joints = actuated_joints(robot)
    scene.set_joint_weights({joints[0]: 0.5})  # drops every kept set (their λ rows are of the old weights)
    scene.set_contact_active(SOLES[1], True)
    ref = _fresh(robot, (True, True), (1e3, 1e-3))
    ref.set_joint_weights({joints[0]: 0.5})
    _same(solve_talos(scene, robot, q0, v, com, post), solve_talos(ref, robot, q0, v, com, post))


def test_copies_after_switches_answer_like_the_original(talos) -> None:
    robot, q0 = talos
    na = robot.nv - 6
    v, com, post = np.zeros(robot.nv), np.array([0.1, -0.2, 0.0]), np.zeros(na)
    scene = talos_scene(robot)
    for on in (False, True, False):
        scene.set_contact_active(SOLES[1], on)
        solve_talos(scene, robot, q0, v, com, post)
    twin = copy.deepcopy(scene)
    for on in (True, False, True):
        scene.set_contact_active(SOLES[1], on)
        twin.set_contact_active(SOLES[1], on)
        a = solve_talos(scene, robot, q0, v, com, post)
        b = solve_talos(twin, twin.robot, q0, v, com, post)
        _same(b, a)


def test_a_walk_of_switches_builds_each_contact_set_once(talos, monkeypatch) -> None:
    """Ten switches between double and single support build the constraints of each set once (before
    issue 26's change: once per switch)."""
    from wbcpy.scenes import inverse_dynamics_scene as ids

    robot, q0 = talos
    built = []
    real = ids.ContactConstraints

    def counted(*args, **kwargs):
        built.append(args[1].n)
        return real(*args, **kwargs)

    monkeypatch.setattr(ids, "ContactConstraints", counted)
    scene = talos_scene(robot)
    built.clear()
    for k in range(10):
        scene.set_contact_active(SOLES[1], k % 2 == 1)
        solve_talos(scene, robot, q0, np.zeros(robot.nv), np.zeros(3), np.zeros(robot.nv - 6))
    assert len(built) == 1  # (the single-support set; double support was built by configure)
