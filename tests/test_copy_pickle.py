"""Copies and pickles are correct, independent objects (issue 14, class 2).

Every copy (``copy.copy``, ``copy.deepcopy``, a pickle round trip, ``RobotModel.copy``) is driven further
together with its original, each to its own new state, and both are compared with objects built fresh
at those states (for controllers: fresh controllers that replay the same calls). Before the fix a pickled
robot segfaulted on M⁻¹ and deep copies returned stale data.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from wbcpy import RobotModel, arl, jspace, load_robot
from wbcpy.ik import Filter, Integrator, MinJerkTrajectory, MultiRefMinJerkCtrl

COPIERS = {
    "copy": copy.copy,
    "deepcopy": copy.deepcopy,
    "pickle": lambda x: pickle.loads(pickle.dumps(x)),
}


def _state(robot: RobotModel, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return robot.q_from_dof(rng.uniform(-0.8, 0.8, robot.nv)), rng.uniform(-1.0, 1.0, robot.nv)


def _quantities(robot: RobotModel) -> list[np.ndarray]:
    return [
        robot.q,
        robot.v,
        robot.mass_matrix(),
        robot.inverse_mass_matrix(),
        robot.nonlinear_effects(),
        robot.frame_jacobian("lwr_ee"),
        robot.frame_bias("lwr_ee"),
        robot.frame_placement("lwr_ee").homogeneous,
        robot.com(),
        robot.com_jacobian(),
    ]


def _fresh(q: np.ndarray, v: np.ndarray) -> list[np.ndarray]:
    robot = load_robot("lwr4", floating_base=True)
    robot.update(q, v)
    return _quantities(robot)


def _assert_all_close(got: list[np.ndarray], want: list[np.ndarray]) -> None:
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("how", [*COPIERS, "method"])
def test_robot_copies_are_independent(how: str) -> None:
    robot = load_robot("lwr4", floating_base=True)
    qa, va = _state(robot, 1)
    robot.update(qa, va)
    robot.mass_matrix()  # warm caches: a copy must not carry views into the original's data
    dup = robot.copy() if how == "method" else COPIERS[how](robot)
    assert dup is not robot and dup.state_id == robot.state_id
    _assert_all_close(_quantities(dup), _fresh(qa, va))  # M⁻¹ after unpickling used to segfault
    qb, vb = _state(robot, 2)
    qc, vc = _state(robot, 3)
    robot.update(qb, vb)
    dup.update(qc, vc)
    _assert_all_close(_quantities(robot), _fresh(qb, vb))
    _assert_all_close(_quantities(dup), _fresh(qc, vc))
    assert (dup.model is robot.model) == (how in ("copy", "method"))  # cheap copies share the pin.Model


def test_robot_without_state_copies_without_state() -> None:
    robot = load_robot("planar3r")
    for dup in (robot.copy(), *(f(robot) for f in COPIERS.values())):
        assert not dup.has_state
        dup.update_dof([0.1, 0.2, 0.3])
        assert not robot.has_state


@pytest.mark.parametrize("how", list(COPIERS))
def test_jspace_copies_are_independent(how: str) -> None:
    model = jspace.Model.load("puma560")
    model.update(jspace.State(np.linspace(-1, 1, 6), np.ones(6), [4.0], time=2.5))
    model.disable_gravity_compensation(1)
    dup = COPIERS[how](model)
    assert dup.robot is not model.robot
    state = dup.get_state()
    np.testing.assert_array_equal(state.force, [4.0])
    assert state.time == 2.5
    assert dup.get_gravity()[1] == 0.0 and dup.get_gravity()[2] != 0.0
    model.update(jspace.State(np.full(6, 0.3), np.zeros(6)))
    dup.update(jspace.State(np.full(6, -0.2), np.full(6, 0.5)))
    for m, pos, vel in ((model, 0.3, 0.0), (dup, -0.2, 0.5)):
        fresh = jspace.Model.load("puma560")
        fresh.update(jspace.State(np.full(6, pos), np.full(6, vel)))
        fresh.disable_gravity_compensation(1)
        for name in (
            "get_mass_inertia",
            "get_inverse_mass_inertia",
            "get_gravity",
            "get_coriolis_centrifugal",
        ):
            np.testing.assert_allclose(getattr(m, name)(), getattr(fresh, name)(), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(m.compute_jacobian(5), fresh.compute_jacobian(5), atol=1e-12)


@pytest.mark.parametrize("how", list(COPIERS))
def test_chains_and_arl_models_are_independent(how: str) -> None:
    model = arl.Model.from_config("robots/bimanual_chains.yaml")
    chain = model.chain[1]
    q = np.linspace(-0.5, 0.5, chain.n)
    chain.rest = chain.rest + 0.1
    for dup_model in (COPIERS[how](model),):
        dup = dup_model.chain[1]
        np.testing.assert_array_equal(dup.rest, chain.rest)
        np.testing.assert_allclose(dup.fk(q).homogeneous, chain.fk(q).homogeneous, atol=1e-14)
        dup.rest = dup.rest + 0.2  # changes the copy only
        assert not np.array_equal(dup.rest, chain.rest)
        fresh = arl.Model.from_config("robots/bimanual_chains.yaml").chain[1]
        fresh.rest = chain.rest
        np.testing.assert_allclose(chain.jacobian(q), fresh.jacobian(q), atol=1e-14)
    solo = COPIERS[how](chain)
    np.testing.assert_allclose(solo.fk_jacobian(q)[1], chain.fk_jacobian(q)[1], atol=1e-14)


LWR = load_robot("lwr4").chain("lwr_base_link", "lwr_ee")
Q0 = np.array([0.1, -0.5, 0.2, 1.2, 0.1, -0.6, 0.3])


def _ctrl_calls(c: MultiRefMinJerkCtrl, shift: float, steps: int) -> list[np.ndarray]:
    target = LWR.pose7(Q0 + shift)
    out = []
    for k in range(steps):
        if k == 3:
            c.add_compensation(np.full(7, 0.01))
        out.append(c.iterate(target, Q0 + shift if k % 2 else None))
    return out


@pytest.mark.parametrize("how", list(COPIERS))
def test_multiref_copies_are_independent(how: str) -> None:
    ctrl = MultiRefMinJerkCtrl(LWR, "full", 0.01, q0=Q0)
    ctrl.set_gamma(0.2)
    _ctrl_calls(ctrl, 0.3, 10)
    dup = COPIERS[how](ctrl)
    assert (dup.chain is ctrl.chain) == (how == "copy")
    after_a = _ctrl_calls(ctrl, -0.2, 10)
    after_b = _ctrl_calls(dup, 0.4, 10)
    for shift, got in ((-0.2, after_a), (0.4, after_b)):
        replay = MultiRefMinJerkCtrl(LWR, "full", 0.01, q0=Q0)
        replay.set_gamma(0.2)
        _ctrl_calls(replay, 0.3, 10)
        np.testing.assert_allclose(got, _ctrl_calls(replay, shift, 10), rtol=0, atol=1e-14)


@pytest.mark.parametrize("how", list(COPIERS))
def test_building_blocks_copies_are_independent(how: str) -> None:
    makers = [
        (lambda: Filter([0.2, 0.1], [1.0, -0.5], [0.0]), lambda f, u: f.filt([u])),
        (lambda: Integrator(0.01, [0.0], [[-1.0, 1.0]]), lambda i, u: i.integrate([u])),
        (lambda: MinJerkTrajectory(0.01, [0.0]), lambda t, u: t.step([u])[0]),
    ]
    for make, step in makers:
        obj, replay = make(), make()
        for x in (obj, replay):
            step(x, 1.0)
        dup = COPIERS[how](obj)
        step(obj, 5.0)  # the original moves on alone
        got = [step(dup, 0.5) for _ in range(3)]
        np.testing.assert_array_equal(got, [step(replay, 0.5) for _ in range(3)])
