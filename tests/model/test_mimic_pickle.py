"""Pickles of robots with mimic joints (and of the scenes and jspace models on them): the unpickled robot
gives the original's kinematics and dynamics, and both give raw Pinocchio's on the uncoupled model with
the chain rule (tests/_mimic_oracle.Uncoupled) — Pinocchio's own pickle loses the mimic joint's extended
size. Robots: Panda (a prismatic finger mimics the other) and a two-joint arm whose follower is an
unaligned revolute joint with multiplier 0.5 and offset 0.1."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pinocchio as pin
import pytest
from _mimic_oracle import MIMIC2, Uncoupled

from wbcpy import AccelerationScene, InverseDynamicsScene, RobotModel, VelocityScene, jspace
from wbcpy.tasks import CartesianReference, TaskConfig


def _robots(example_robot, tmp_path_factory):
    path = tmp_path_factory.mktemp("mimic") / "mimic2.urdf"
    path.write_text(MIMIC2)
    return [(example_robot("panda"), "panda_hand"), (RobotModel.from_urdf(path), "tip")]


def _states(robot, n=4):
    rng = np.random.default_rng(7)
    lo, hi = robot.dof_lower_limit, robot.dof_upper_limit
    return [(rng.uniform(lo, hi), rng.uniform(-1.0, 1.0, robot.nv)) for _ in range(n)]


def _quantities(robot, frame):
    return [
        robot.frame_placement(frame).homogeneous,
        robot.frame_jacobian(frame),
        robot.frame_bias(frame),
        robot.mass_matrix(),
        robot.nonlinear_effects(),
        robot.com(),
        robot.com_jacobian(),
    ]


@pytest.mark.parametrize("how", ["pickle", "deepcopy", "pickle twice"])
def test_an_unpickled_mimic_robot_is_the_original(example_robot, tmp_path_factory, how):
    for robot, frame in _robots(example_robot, tmp_path_factory):
        assert robot.mimic_joints
        if how == "deepcopy":
            twin = copy.deepcopy(robot)
        else:
            twin = pickle.loads(pickle.dumps(robot))
            if how == "pickle twice":
                twin = pickle.loads(pickle.dumps(twin))
        assert twin.mimic_joints == robot.mimic_joints and twin.nv == robot.nv
        raw = Uncoupled(robot)
        data = raw.model.createData()
        fid = raw.model.getFrameId(frame)
        for q, v in _states(robot):
            robot.update(q, v)
            twin.update(q, v)
            for got, want in zip(_quantities(twin, frame), _quantities(robot, frame), strict=True):
                np.testing.assert_allclose(got, want, atol=1e-12)
            # the oracle: raw Pinocchio on the uncoupled model, chain rule G
            qu, vu = raw.q(q), raw.v(v)
            pin.computeJointJacobians(raw.model, data, qu)
            pin.updateFramePlacements(raw.model, data)
            J = pin.getFrameJacobian(raw.model, data, fid, pin.LOCAL_WORLD_ALIGNED) @ raw.G
            np.testing.assert_allclose(twin.frame_jacobian(frame), J, atol=1e-10)
            M = pin.crba(raw.model, data, qu)
            M = np.triu(M) + np.triu(M, 1).T
            np.testing.assert_allclose(twin.mass_matrix(), raw.G.T @ M @ raw.G, atol=1e-10)
            h = raw.G.T @ pin.rnea(raw.model, data, qu, vu, np.zeros(raw.model.nv))
            np.testing.assert_allclose(twin.nonlinear_effects(), h, atol=1e-9)


@pytest.mark.parametrize("kind", [AccelerationScene, VelocityScene, InverseDynamicsScene])
def test_an_unpickled_scene_on_panda_solves_as_the_original(example_robot, kind):
    robot = example_robot("panda")
    scene = kind(robot)
    scene.configure([TaskConfig(name="ee", type="cart", tip="panda_hand", weights=[1, 1, 1, 0.1, 0.1, 0.1])])
    if kind is VelocityScene:
        scene.set_reference("ee", CartesianReference(twist=np.array([0.1, -0.05, 0.02, 0.0, 0.1, 0.0])))
    else:
        scene.set_reference("ee", CartesianReference(np.array([1.0, -0.5, 0.2, 0.0, 1.0, 0.0])))
    twin = pickle.loads(pickle.dumps(scene))
    for q, v in _states(robot, 3):
        scene.robot.update(q, v)
        twin.robot.update(q, v)
        a, b = scene.solve(scene.update()), twin.solve(twin.update())
        for x, y in ((a.acceleration, b.acceleration), (a.velocity, b.velocity), (a.effort, b.effort)):
            if x is not None:
                np.testing.assert_allclose(y, x, atol=1e-8)


def test_an_unpickled_jspace_model_on_panda(example_robot):
    model = jspace.Model(example_robot("panda"))
    q, v = _states(model.robot, 1)[0]
    model.update(jspace.State(q, v))
    twin = pickle.loads(pickle.dumps(model))
    for node in range(model.get_n_nodes()):
        np.testing.assert_allclose(twin.compute_jacobian(node), model.compute_jacobian(node), atol=1e-12)
    np.testing.assert_allclose(twin.get_mass_inertia(), model.get_mass_inertia(), atol=1e-12)
