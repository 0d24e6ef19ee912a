"""The ``momentum`` task on robots with mimic joints, in the three scenes: its rows are the centroidal
momentum matrix of the unreduced model times the mimic map, A_G = A_G,u G, and its bias is the momentum
rate at q̈ = 0 — both against raw Pinocchio on the uncoupled model (tests/_mimic_oracle.Uncoupled): the
momentum h(q, v) = A_G,u(q_u) G v and finite differences of it along q(t) = q ⊕ v t (q̈ = 0)."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from _mimic_oracle import MIMIC2, Uncoupled

from wbcpy import AccelerationScene, InverseDynamicsScene, RobotModel, VelocityScene
from wbcpy.tasks import ComReference, MomentumReference, TaskConfig


@pytest.fixture(scope="module")
def robots(example_robot, tmp_path_factory):
    path = tmp_path_factory.mktemp("mimic") / "mimic2.urdf"
    path.write_text(MIMIC2)
    return [example_robot("panda"), RobotModel.from_urdf(path)]


def _momentum(raw: Uncoupled, q: np.ndarray, v: np.ndarray) -> np.ndarray:
    data = raw.model.createData()
    return pin.computeCentroidalMomentum(raw.model, data, raw.q(q), raw.v(v)).vector.copy()


@pytest.mark.parametrize("kind", [AccelerationScene, VelocityScene, InverseDynamicsScene])
def test_momentum_rows_through_the_mimic_coupling(robots, kind):
    rng = np.random.default_rng(11)
    for robot in robots:
        raw = Uncoupled(robot)
        scene = kind(robot)
        scene.configure([TaskConfig(name="h", type="momentum"), TaskConfig(name="c", type="com")])
        for _ in range(3):
            q = robot.q_from_dof(rng.uniform(robot.dof_lower_limit, robot.dof_upper_limit))
            v = rng.normal(size=robot.nv)
            robot.update(q, v)
            task = scene.get_task("h")
            task.compute()
            Au = pin.computeCentroidalMap(raw.model, raw.model.createData(), raw.q(q))
            np.testing.assert_allclose(task.A, Au @ raw.G, atol=1e-10)
            np.testing.assert_allclose(task.position(), _momentum(raw, q, v), atol=1e-10)
            if kind is not VelocityScene:
                eps = 1e-6
                fd = (
                    _momentum(raw, pin.integrate(robot.model, q, v * eps), v)
                    - _momentum(raw, pin.integrate(robot.model, q, -v * eps), v)
                ) / (2 * eps)
                np.testing.assert_allclose(task.bias, fd, atol=1e-6 * (1 + np.abs(fd).max()))
            # the scene takes the task: a reference and a solve, no error from Pinocchio
            if kind is VelocityScene:
                scene.set_reference("h", MomentumReference(momentum=np.zeros(6)))
                scene.set_reference("c", ComReference(velocity=np.zeros(3)))
            else:
                scene.set_reference("h", MomentumReference(rate=np.zeros(6)))
                scene.set_reference("c", ComReference(np.zeros(3)))
            scene.solve(scene.update())
