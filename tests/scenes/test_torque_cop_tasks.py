"""The ``torque`` and ``cop`` task types of the InverseDynamicsScene.

Oracles: Pinocchio's ABA (alone on a fixed-base arm, a torque task over every joint gives q̈ = ABA(q, v,
τ*)); the equations of motion and contact physics of ``tests/_id_helpers.check_physics`` (raw Pinocchio,
qhull, constraintDynamics); the CoP of each solved wrench computed by hand, (−τ_y/f_z, τ_x/f_z).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest
import yaml
from _contact_oracle import TALOS_SOLE, OracleContact, talos_half_sitting
from _id_helpers import SOLES, actuated_joints, check_physics

from wbcpy import load_robot
from wbcpy.errors import ConfigError, ConfigKeyError, InvalidValueError
from wbcpy.scenes import (
    AccelerationScene,
    InverseDynamicsScene,
    PointContact,
    SurfaceContact,
    load_scene_file,
)
from wbcpy.sim import SceneSimulation
from wbcpy.tasks import ComReference, CopReference, JointReference, ReferenceTypeError, TorqueReference

Q0 = np.array([0.3, 0.6, -0.2, -1.2, 0.3, 0.8, 0.1])


@pytest.fixture(scope="module")
def talos():
    return talos_half_sitting()


def _hand_cop(w: np.ndarray) -> np.ndarray:
    return np.array([-w[4] / w[2], w[3] / w[2]])


# ---------------------------------------------------------------------------------------- torque
def test_a_torque_task_alone_on_an_arm_is_the_forward_dynamics() -> None:
    robot = load_robot("lwr4")
    v = np.linspace(-0.5, 0.4, 7)
    tau = np.array([3.0, -20.0, 5.0, 8.0, -1.0, 0.5, 0.2])
    robot.update(Q0, v)
    # (each level also minimises λ‖q̈‖²: with the arm's small inertias, a λ far below M's smallest
    # eigenvalue squared keeps the answer within the tolerance of the unregularised forward dynamics)
    scene = InverseDynamicsScene(robot, regularization=1e-16)
    scene.configure([{"name": "tau", "type": "torque", "joint_names": robot.joint_names}])
    scene.set_reference("tau", TorqueReference(tau))
    cmd = scene.solve(scene.update())
    np.testing.assert_allclose(cmd.acceleration, pin.aba(robot.model, robot.model.createData(), Q0, v, tau),
                               atol=1e-7)  # fmt: skip
    np.testing.assert_allclose(cmd.effort, tau, atol=1e-7)
    status = scene.update_tasks_status()["tau"]
    np.testing.assert_allclose(status.y_solution, tau, atol=1e-7)
    assert status.error_norm < 1e-7 and status.y is None


def test_a_torque_task_on_standing_talos_sets_those_torques(talos) -> None:
    robot, q = talos
    v = np.zeros(robot.nv)
    robot.update(q, v)
    arm = [f"arm_left_{k}_joint" for k in range(1, 8)]
    tau_arm = np.array([2.0, -5.0, 1.0, -8.0, 0.5, 0.3, 0.1])
    scene = InverseDynamicsScene(robot, regularization=1e-12)  # (λ‖q̈‖² biases each level: see above)
    scene.set_contacts([SurfaceContact(f, half_size=TALOS_SOLE, mu=0.3) for f in SOLES])
    joints = actuated_joints(robot)
    weak = [1e-3] * len(joints)
    scene.configure([
        {"name": "tau", "type": "torque", "joint_names": arm},
        {"name": "com", "type": "com", "priority": 1},
        {"name": "posture", "type": "jnt", "joint_names": joints, "priority": 1, "weights": weak},
    ])  # fmt: skip
    scene.set_reference("tau", TorqueReference(tau_arm))
    scene.set_reference("com", ComReference(np.zeros(3)))
    scene.set_reference("posture", JointReference(np.zeros(len(joints))))
    scene.solve(scene.update())
    _, _, tau = check_physics(robot, scene, q, v, [OracleContact(f, 0.3, TALOS_SOLE) for f in SOLES])
    names = [robot.dof_names[i] for i in range(6, robot.nv)]
    np.testing.assert_allclose(tau[[names.index(j) for j in arm]], tau_arm, atol=1e-6)
    # the task rows act on the wrenches too: a contact switch changes the columns, the task follows
    scene.set_contact_active(SOLES[1], False)
    robot.update(q, v)
    scene.solve(scene.update())
    np.testing.assert_allclose(scene.update_tasks_status()["tau"].y_solution, tau_arm, atol=1e-6)


def test_torque_task_bad_inputs() -> None:
    robot = load_robot("lwr4")
    robot.update(Q0)
    with pytest.raises(ConfigError, match="InverseDynamicsScene") as info:
        AccelerationScene(robot).configure([{"name": "t", "type": "torque", "joint_names": ["lwr_a1"]}])
    assert info.value.field == "tasks[0].type"
    scene = InverseDynamicsScene(robot)
    with pytest.raises(ConfigKeyError) as key_info:
        scene.configure([{"name": "t", "type": "torque", "joint_names": ["nope"]}])
    assert key_info.value.field == "tasks[0].joint_names"
    with pytest.raises(ConfigError):
        scene.configure([{"name": "t", "type": "torque"}])
    floating = load_robot("lwr4", floating_base=True)
    with pytest.raises(ConfigError, match="1-DOF"):
        InverseDynamicsScene(floating).configure(
            [{"name": "t", "type": "torque", "joint_names": [floating.joint_names[0]]}]
        )
    scene.configure([{"name": "t", "type": "torque", "joint_names": robot.joint_names[:2]}])
    scene.set_reference("t", TorqueReference([1.0, 2.0]))
    before = scene.get_task("t").reference
    with pytest.raises(InvalidValueError):
        scene.set_reference("t", TorqueReference([1.0, np.nan]))
    with pytest.raises(InvalidValueError):
        scene.set_reference("t", TorqueReference([1.0]))
    with pytest.raises(ReferenceTypeError):
        scene.set_reference("t", JointReference(acceleration=[1.0, 2.0]))
    assert scene.get_task("t").reference is before


# ---------------------------------------------------------------------------------------- CoP
def _cop_scene(robot, targets, fz_max=np.inf):
    """Both soles' CoP and the COM in the first level, the posture below. (Both CoPs in a level of their
    own above the others hit a weakness of the QP layer that two wrench tasks on the soles' torques hit
    too: DAQP's proximal iterations stop with a stationarity error above the certificate's tolerance.)"""
    scene = InverseDynamicsScene(robot)
    scene.set_contacts([SurfaceContact(f, half_size=TALOS_SOLE, mu=0.3, fz_max=fz_max) for f in SOLES])
    joints = actuated_joints(robot)
    weak = [1e-3] * len(joints)
    scene.configure([
        {"name": "cop_l", "type": "cop", "contact": SOLES[0]},
        {"name": "cop_r", "type": "cop", "contact": SOLES[1]},
        {"name": "com", "type": "com"},
        {"name": "posture", "type": "jnt", "joint_names": joints, "priority": 1, "weights": weak},
    ])  # fmt: skip
    for name, target in zip(("cop_l", "cop_r"), targets, strict=True):
        scene.set_reference(name, CopReference(target))
    scene.set_reference("com", ComReference(np.array([0.1, -0.05, 0.0])))
    scene.set_reference("posture", JointReference(np.zeros(len(joints))))
    return scene


def test_both_feet_centres_of_pressure_are_the_targets(talos) -> None:
    robot, q = talos
    v = np.zeros(robot.nv)
    robot.update(q, v)
    targets = (np.array([0.03, -0.01]), np.array([-0.02, 0.015]))
    scene = _cop_scene(robot, targets)
    scene.solve(scene.update())
    _, wrenches, _ = check_physics(robot, scene, q, v, [OracleContact(f, 0.3, TALOS_SOLE) for f in SOLES])
    for frame, target in zip(SOLES, targets, strict=True):
        assert wrenches[frame][2] > 50.0  # (each foot carries weight: its CoP is defined)
        np.testing.assert_allclose(_hand_cop(wrenches[frame]), target, atol=1e-7)
    status = scene.update_tasks_status()
    np.testing.assert_allclose(status["cop_l"].y_solution, targets[0], atol=1e-7)
    assert status["cop_r"].state == "active"


def test_a_cop_outside_the_sole_ends_on_its_edge(talos) -> None:
    robot, q = talos
    v = np.zeros(robot.nv)
    robot.update(q, v)
    scene = _cop_scene(robot, (np.array([0.3, 0.0]), np.array([0.0, 0.0])))
    scene.solve(scene.update())
    cop = _hand_cop(scene.get_contact_wrenches()[SOLES[0]])
    assert cop[0] == pytest.approx(TALOS_SOLE[0], abs=1e-6)  # the front edge: the closest it can be
    assert abs(cop[1]) <= TALOS_SOLE[1] + 1e-7


def test_cop_task_bad_inputs(talos) -> None:
    robot, q = talos
    robot.update(q)
    scene = InverseDynamicsScene(robot)
    scene.set_contacts(
        [SurfaceContact(SOLES[0], half_size=TALOS_SOLE, mu=0.3), PointContact(SOLES[1], mu=0.3)]
    )
    with pytest.raises(ConfigError, match="surface contact") as info:
        scene.configure([{"name": "c", "type": "cop", "contact": SOLES[1]}])
    assert info.value.field == "tasks[0].contact"
    with pytest.raises(ConfigKeyError) as key_info:
        scene.configure([{"name": "c", "type": "cop", "contact": "torso_1_link"}])
    assert key_info.value.field == "tasks[0].contact"
    with pytest.raises(ConfigError) as info:
        scene.configure([{"name": "c", "type": "cop", "frame": SOLES[0]}])  # a wrench task's field
    assert info.value.field in ("tasks[0].frame", "tasks[0].contact")
    scene.configure([{"name": "c", "type": "cop", "contact": SOLES[0]}])
    with pytest.raises(ConfigError, match="surface contact"):  # the task's contact may not become a point
        scene.set_contacts([PointContact(SOLES[0], mu=0.3)])
    assert [c.type for c in scene.contacts] == ["surface", "point"]
    with pytest.raises(InvalidValueError):
        scene.set_reference("c", CopReference([0.0, 0.0, 0.0]))
    with pytest.raises(ReferenceTypeError):
        scene.set_reference("c", ComReference(np.zeros(3)))
    with pytest.raises(ConfigError, match="InverseDynamicsScene"):
        AccelerationScene(robot).configure([{"name": "c", "type": "cop", "contact": SOLES[0]}])
    scene.set_contact_active(SOLES[0], False)
    scene.set_reference("c", CopReference([0.0, 0.0]))
    assert scene.get_task("c").state(scene.clock()) == "contact_inactive"


# ---------------------------------------------------------------------------------------- files
def test_a_contact_scene_file_takes_torque_and_cop_tasks(talos, tmp_path: Path) -> None:
    doc = yaml.safe_load((Path(__file__).parents[2] / "examples" / "talos_balance.yaml").read_text())
    doc.pop("duration")
    doc["steps"] = 20
    for task in doc["tasks"]:
        task["priority"] = 1
    doc["tasks"] += [
        {"name": "cop_l", "type": "cop", "contact": "left_sole_link", "target": [0.01, 0.0]},
        {
            "name": "tau",
            "type": "torque",
            "joint_names": ["arm_left_1_joint"],
            "target": [1.5],
            "priority": 0,
        },
    ]
    path = tmp_path / "talos.yaml"
    path.write_text(yaml.safe_dump(doc))
    setup = load_scene_file(path)
    assert [t.error_labels() for t in setup.targets[-2:]] == [[], []]
    SceneSimulation(setup).run()
    status = setup.scene.update_tasks_status()
    np.testing.assert_allclose(status["tau"].y_solution, [1.5], atol=1e-6)
    doc["tasks"][-1]["kp"] = 10.0
    path.write_text(yaml.safe_dump(doc))
    with pytest.raises(ConfigKeyError):
        load_scene_file(path)
