"""Copies and pickles of every scene answer like fresh scenes after their robot moves (issue 27).

Each scene (AccelerationScene, VelocityScene, InverseDynamicsScene; with and without bindings, with
joint limits, contacts, collision avoidance) is solved once, copied (``copy.deepcopy``, a pickle round
trip) together with its bindings, and then the copy's robot moves to a new state. The oracle is a scene
built fresh at that state with the same configuration and references: its answer must be the copy's.
The original must still give its own answer (at its state) as a fresh scene does. Before the fix the
copies kept the original's row buffers apart from the views their tasks write into, and answered with
the original's old answer bit for bit (InverseDynamicsScene: off by 0.225).
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from typing import Any

import numpy as np
import pinocchio as pin
import pytest
from _collision_helpers import write_arm
from _contact_oracle import TALOS_SOLE, talos_half_sitting
from _id_helpers import actuated_joints

from wbcpy import AccelerationScene, InverseDynamicsScene, RobotModel, VelocityScene, load_robot
from wbcpy.collision import CollisionAvoidance, Obstacle, Sphere
from wbcpy.contacts import SurfaceContact
from wbcpy.controllers import CartesianPD, CartesianVelocityLaw, ComPD, JointPD, JointVelocityLaw
from wbcpy.tasks import CartesianReference, ComReference, JointReference, TaskConfig

COPIERS: dict[str, Callable[[Any], Any]] = {
    "copy": lambda pair: (copy.copy(pair[0]), []),  # (a scene's copy.copy is deep; bindings not copied)
    "deepcopy": copy.deepcopy,
    "pickle": lambda x: pickle.loads(pickle.dumps(x)),
}

Q_LWR = np.array([0.3, 0.6, -0.2, -1.2, 0.3, 0.8, 0.1])


class Case:
    """A scene, its bindings, and the answer it gives at a state (q, v)."""

    def __init__(self, scene: Any, bindings: list[Any], key: str) -> None:
        self.scene, self.bindings, self.key = scene, bindings, key

    def answer(self, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        self.scene.robot.update(q, v)
        for binding in self.bindings:
            binding.update()
        out = self.scene.solve(self.scene.update())
        if self.key == "tau":
            wrenches = self.scene.get_contact_wrenches()
            return np.concatenate([out.acceleration, self.scene.get_joint_torques(), *wrenches.values()])
        return np.asarray(getattr(out, self.key))


def _acceleration(bindings: bool) -> Case:
    robot = load_robot("lwr4")
    robot.update(Q_LWR, np.zeros(7))
    scene = AccelerationScene(robot, dt=0.002, joint_limits=True)
    scene.configure(
        [
            TaskConfig(name="ee", type="cart", tip="lwr_ee", priority=0),
            TaskConfig(name="posture", type="jnt", joint_names=robot.joint_names, priority=1),
        ]
    )
    target = pin.SE3(pin.rpy.rpyToMatrix(0.1, 0.2, 0.3), np.array([0.3, -0.2, 0.6]))
    if not bindings:
        scene.set_reference("ee", CartesianReference(acceleration=[0.4, -0.3, 0.2, 0.1, -0.2, 0.3]))
        scene.set_reference("posture", JointReference(acceleration=np.linspace(-1.0, 1.0, 7)))
        return Case(scene, [], "acceleration")
    laws = [
        scene.bind("ee", CartesianPD(kp=100.0, kd=20.0), target),
        scene.bind("posture", JointPD(kp=10.0, kd=6.3), Q_LWR),
    ]
    return Case(scene, laws, "acceleration")


def _velocity(bindings: bool, tmp: Any) -> Case:
    robot = RobotModel.from_urdf(write_arm(tmp))
    robot.update(np.array([-0.7, 0.3, 0.9]))
    scene = VelocityScene(robot, dt=0.01, joint_limits=True)
    scene.configure(
        [
            TaskConfig(name="tip", type="cart", tip="tip", weights=[1, 1, 1, 0, 0, 0], priority=0),
            TaskConfig(name="posture", type="jnt", joint_names=robot.joint_names, priority=1),
        ]
    )
    ball = Obstacle("ball", Sphere(0.05), pin.SE3(np.eye(3), np.array([0.3, 0.1, 0.5])))
    scene.set_collision_avoidance(CollisionAvoidance(obstacles=[ball], safety_distance=0.01, gain=0.5))
    if not bindings:
        scene.set_reference("tip", CartesianReference(twist=[0.1, -0.2, 0.1, 0.0, 0.0, 0.0]))
        scene.set_reference("posture", JointReference(velocity=[0.2, -0.1, 0.3]))
        return Case(scene, [], "velocity")
    target = pin.SE3(np.eye(3), np.array([0.2, 0.3, 0.4]))
    laws = [
        scene.bind("tip", CartesianVelocityLaw(kp=3.0), target),
        scene.bind("posture", JointVelocityLaw(kp=1.0), np.array([0.1, 0.2, 0.3])),
    ]
    return Case(scene, laws, "velocity")


def _inverse_dynamics(bindings: bool) -> Case:
    robot, q0 = talos_half_sitting()
    robot.update(q0, np.zeros(robot.nv))
    scene = InverseDynamicsScene(robot, joint_limits=True, effort_limits=True)
    scene.set_contacts(
        [SurfaceContact(f, half_size=TALOS_SOLE, mu=0.3) for f in ("left_sole_link", "right_sole_link")]
    )
    joints = actuated_joints(robot)
    scene.configure(
        [
            {"name": "com", "type": "com", "weights": [1.0] * 3},
            {"name": "posture", "type": "jnt", "joint_names": joints, "weights": [1e-3] * len(joints)},
        ]
    )
    if not bindings:
        scene.set_reference("com", ComReference(acceleration=[0.1, -0.2, 0.05]))
        scene.set_reference("posture", JointReference(acceleration=np.linspace(-0.5, 0.5, len(joints))))
        return Case(scene, [], "tau")
    com = robot.com().copy()
    laws = [
        scene.bind("com", ComPD(kp=20.0, kd=9.0), com + np.array([0.01, -0.02, -0.01])),
        scene.bind("posture", JointPD(kp=10.0, kd=6.3), robot.q[7:][: len(joints)] + 0.05),
    ]
    return Case(scene, laws, "tau")


def _states(robot: RobotModel) -> list[tuple[np.ndarray, np.ndarray]]:
    """The state the scene was built at, and two nearby ones (q ⊕ δ, v)."""
    rng = np.random.default_rng(7)
    q0 = robot.q.copy()
    out = [(q0, np.zeros(robot.nv))]
    for _ in range(2):
        dq = rng.uniform(-0.05, 0.05, robot.nv)
        if robot.nq != robot.nv:
            dq[:6] = 0.0  # (the floating base stays on the ground: the contacts hold)
        out.append((pin.integrate(robot.model, q0, dq), rng.uniform(-0.1, 0.1, robot.nv)))
    return out


MAKERS: dict[str, Callable[[bool, Any], Case]] = {
    "acceleration": lambda b, tmp: _acceleration(b),
    "velocity": _velocity,
    "inverse-dynamics": lambda b, tmp: _inverse_dynamics(b),
}


@pytest.mark.parametrize(
    ("how", "bindings"),
    [(how, False) for how in COPIERS] + [(how, True) for how in COPIERS if how != "copy"],
    ids=lambda x: {False: "references", True: "bindings"}.get(x, x) if isinstance(x, bool) else x,
)
@pytest.mark.parametrize("kind", MAKERS)
def test_scene_copies_answer_like_fresh_scenes(kind: str, bindings: bool, how: str, tmp_path: Any) -> None:
    make = MAKERS[kind]
    original = make(bindings, tmp_path)
    s0, s1, s2 = _states(original.scene.robot)
    before = original.answer(*s0)
    scene, laws = COPIERS[how]((original.scene, original.bindings))
    twin = Case(scene, laws, original.key)
    assert twin.scene.robot is not original.scene.robot
    # the copy moves: it answers as a fresh scene at its new state, the original is untouched
    np.testing.assert_allclose(twin.answer(*s1), make(bindings, tmp_path).answer(*s1), rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(original.scene.robot.q, s0[0])
    np.testing.assert_allclose(original.answer(*s0), before, rtol=1e-12, atol=1e-12)
    # the original moves too: each answers for its own state
    np.testing.assert_allclose(
        original.answer(*s2), make(bindings, tmp_path).answer(*s2), rtol=1e-9, atol=1e-9
    )
    np.testing.assert_allclose(twin.answer(*s1), make(bindings, tmp_path).answer(*s1), rtol=1e-9, atol=1e-9)
