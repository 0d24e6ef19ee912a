"""The jspace facade: State, nodes, the original API names, semantics, floating base and bad input.

Numeric oracles are raw Pinocchio calls on a scratch ``pin.Data`` (placements by forward kinematics, M by
CRBA, g by ``computeGeneralizedGravity``), central finite differences, or values read from the URDF text.
"""

from __future__ import annotations

import dataclasses
import math
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

from wbcpy import (
    InvalidValueError,
    RobotModel,
    StateNotSetError,
    UnknownNameError,
    URDFError,
    URDFNotFoundError,
    jspace,
)
from wbcpy.jspace import COMPARE_ALL, COMPARE_FORCE, COMPARE_POSITION, COMPARE_VELOCITY, State

ORIGINAL_API = {  # Stanford-WBC jspace::Model method -> wbcpy snake_case method
    "update": "update",
    "setState": "set_state",
    "getState": "get_state",
    "getNNodes": "get_n_nodes",
    "getNJoints": "get_n_joints",
    "getNDOF": "get_n_dof",
    "getNodeName": "get_node_name",
    "getJointName": "get_joint_name",
    "getNode": "get_node",
    "getNodeByName": "get_node_by_name",
    "getNodeByJointName": "get_node_by_joint_name",
    "getJointLimits": "get_joint_limits",
    "updateKinematics": "update_kinematics",
    "getGlobalFrame": "get_global_frame",
    "computeGlobalFrame": "compute_global_frame",
    "computeGlobalCOMFrame": "compute_global_com_frame",
    "computeJacobian": "compute_jacobian",
    "updateDynamics": "update_dynamics",
    "computeCOM": "compute_com",
    "computeGravity": "compute_gravity",
    "disableGravityCompensation": "disable_gravity_compensation",
    "getGravity": "get_gravity",
    "computeCoriolisCentrifugal": "compute_coriolis_centrifugal",
    "getCoriolisCentrifugal": "get_coriolis_centrifugal",
    "computeMassInertia": "compute_mass_inertia",
    "getMassInertia": "get_mass_inertia",
    "computeInverseMassInertia": "compute_inverse_mass_inertia",
    "getInverseMassInertia": "get_inverse_mass_inertia",
}
H = 1e-6


@pytest.fixture
def puma(robots_dir: Path) -> jspace.Model:
    return jspace.Model.from_urdf(robots_dir / "puma560.urdf")


def _raw_placements(model: pin.Model, q: np.ndarray) -> list[pin.SE3]:
    data = model.createData()
    pin.forwardKinematics(model, data, q)
    return [pin.SE3(data.oMi[j]) for j in range(1, model.njoints)]


# ------------------------------------------------------------------------------------------------ State
def test_state_flags_and_equal() -> None:
    assert (COMPARE_POSITION, COMPARE_VELOCITY, COMPARE_FORCE, COMPARE_ALL) == (1, 2, 4, 7)
    assert State.COMPARE_ALL == COMPARE_POSITION | COMPARE_VELOCITY | COMPARE_FORCE
    a = State([0.0, 1.0], [2.0, 3.0], [4.0], time=1.5)
    b = State([0.0, 1.0 + 1e-7], [2.0, 3.5], [4.0, 0.0])
    assert a.equal(a.copy()) and a.equal(a, COMPARE_ALL, 0.0)
    assert a.equal(b, COMPARE_POSITION, 1e-6) and not a.equal(b, COMPARE_POSITION, 1e-8)
    assert not a.equal(b, COMPARE_VELOCITY, 0.4) and a.equal(b, COMPARE_VELOCITY, 0.5)
    assert not a.equal(b, COMPARE_FORCE, 10.0)  # sizes differ
    assert not a.equal(b) and a.equal(b, 0)  # no flag: nothing compared
    assert not a.equal(State([0.0], [2.0, 3.0], [4.0]), COMPARE_POSITION, 1e9)
    assert State().equal(State())
    with pytest.raises(InvalidValueError):
        a.equal("a state")  # type: ignore[arg-type]


def test_state_init_copy_and_validation() -> None:
    pos = np.array([1.0, 2.0])
    state = State(pos)
    pos[0] = 9.0
    assert state.position[0] == 1.0 and state.velocity.shape == (0,) and state.time == 0.0
    clone = state.copy()
    clone.position[1] = -1.0
    assert state.position[1] == 2.0
    state.init(3, 2, 0)
    assert [v.tolist() for v in (state.position, state.velocity, state.force)] == [[0.0] * 3, [0.0] * 2, []]
    assert State.zeros(4).equal(State(np.zeros(4), np.zeros(4), np.zeros(4)))
    with pytest.raises(InvalidValueError):
        State(np.zeros((2, 2)))
    with pytest.raises(InvalidValueError):
        State(["a", "b"])
    with pytest.raises(InvalidValueError):
        State.zeros(-1)


# ------------------------------------------------------------------------------------------- API and nodes
def test_every_original_method_has_an_alias(puma: jspace.Model) -> None:
    for camel, snake in ORIGINAL_API.items():
        assert getattr(jspace.Model, camel) is getattr(jspace.Model, snake), camel
        assert callable(getattr(puma, camel))
    assert jspace.Node.getID is jspace.Node.get_id


def test_nodes_names_and_limits(puma: jspace.Model, robots_dir: Path) -> None:
    root = ET.parse(robots_dir / "puma560.urdf").getroot()
    joints = [j for j in root.findall("joint") if j.get("type") != "fixed"]
    assert puma.getNNodes() == puma.getNJoints() == puma.getNDOF() == len(joints) == 6
    lower, upper = puma.getJointLimits()
    for i, joint in enumerate(joints):
        assert puma.getJointName(i) == joint.get("name")
        assert puma.getNodeName(i) == joint.find("child").get("link")
        limit = joint.find("limit")
        assert (lower[i], upper[i]) == (float(limit.get("lower")), float(limit.get("upper")))
        node = puma.getNode(np.int64(i))
        assert node.getID() == node.id == i and node.link_name == node.name
        assert node.dof_index == i and node.ndof == 1 and node.joint_index == i + 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        puma.getNode(0).mass = 1.0  # type: ignore[misc]
    with pytest.raises(ValueError):
        puma.getNode(1).com[0] = 1.0


def test_continuous_joints_have_no_limits(example_robot: Callable[..., RobotModel]) -> None:
    model = jspace.Model(example_robot("kinova"))
    lower, upper = model.getJointLimits()
    continuous = [n.dof_index for n in model.nodes if "RUB" in n.joint_type]
    assert continuous and all(np.isinf(lower[i]) and np.isinf(upper[i]) for i in continuous)
    # any angle is a valid per-DOF value: 7 rad is 7 − 2π
    state = np.zeros(model.getNDOF())
    state[continuous[0]] = 7.0
    model.update(State(state))
    wrapped = state.copy()
    wrapped[continuous[0]] = 7.0 - 2.0 * math.pi
    expected = _raw_placements(model.robot.model, model.robot.q_from_dof(wrapped))
    for node in model.nodes:
        np.testing.assert_allclose(
            model.getGlobalFrame(node).homogeneous, expected[node.id].homogeneous, atol=1e-12
        )


# ------------------------------------------------------------------------------------------------ state
def test_state_round_trip_and_copies(puma: jspace.Model) -> None:
    given = State([0.1, -0.2, 0.3, 0.4, -0.5, 0.6], [1, 2, 3, 4, 5, 6], [7.0, 8.0], time=12.5)
    puma.update(given)
    back = puma.getState()
    assert back.equal(given, COMPARE_ALL, 0.0) and back.time == 12.5
    given.position[:] = 0.0
    given.force[:] = 0.0
    assert puma.getState().equal(back, COMPARE_ALL, 0.0)
    back.velocity[:] = 0.0
    assert puma.getState().velocity[0] == 1.0
    puma.setState(State(np.zeros(6)))  # empty velocity means zero
    np.testing.assert_array_equal(puma.getState().velocity, np.zeros(6))
    np.testing.assert_allclose(puma.getCoriolisCentrifugal(), np.zeros(6), atol=1e-12)
    # a state set on the RobotModel directly is what getState reports
    puma.robot.update(np.full(6, 0.25), np.full(6, -1.0))
    assert puma.getState().equal(State(np.full(6, 0.25), np.full(6, -1.0)), COMPARE_ALL, 1e-15)


def test_states_outside_limits_are_not_clamped(puma: jspace.Model) -> None:
    lower, upper = puma.getJointLimits()
    outside = upper + 0.5
    outside[::2] = lower[::2] - 0.7
    puma.update(State(outside))
    np.testing.assert_array_equal(puma.getState().position, outside)
    for node, expected in zip(puma.nodes, _raw_placements(puma.robot.model, outside), strict=True):
        np.testing.assert_allclose(puma.getGlobalFrame(node).homogeneous, expected.homogeneous, atol=1e-12)


def test_getters_follow_every_update(puma: jspace.Model) -> None:
    model, data = puma.robot.model, puma.robot.model.createData()
    rng = np.random.default_rng(3)
    for _ in range(3):
        q, v = rng.uniform(-2, 2, 6), rng.uniform(-1, 1, 6)
        puma.update(State(q, v))
        puma.updateKinematics()
        puma.updateDynamics()
        np.testing.assert_allclose(puma.getMassInertia(), pin.crba(model, data, q), atol=1e-12)
        np.testing.assert_allclose(
            puma.getGravity(), pin.computeGeneralizedGravity(model, data, q), atol=1e-12
        )
        np.testing.assert_allclose(
            puma.getInverseMassInertia(), np.linalg.inv(pin.crba(model, data, q)), atol=1e-9
        )
        pin.computeJointJacobians(model, data, q)
        jac = pin.getJointJacobian(model, data, 6, pin.LOCAL_WORLD_ALIGNED)
        np.testing.assert_allclose(puma.computeJacobian(5), jac, atol=1e-12)
        out = puma.getMassInertia()
        out[:] = 0.0  # results are new arrays
        assert puma.getMassInertia()[0, 0] > 0.0


# ------------------------------------------------------------------------------------- frames, Jacobians
def test_compute_global_frame_forms(puma: jspace.Model) -> None:
    q = np.array([0.3, -1.0, 0.8, 0.2, -0.6, 1.1])
    puma.update(State(q))
    local = pin.SE3(pin.utils.rotate("y", 0.4), np.array([0.01, -0.02, 0.05]))
    for node, oMi in zip(puma.nodes, _raw_placements(puma.robot.model, q), strict=True):
        np.testing.assert_allclose(
            puma.computeGlobalFrame(node, local).homogeneous, (oMi * local).homogeneous, atol=1e-12
        )
        expected = oMi.translation + oMi.rotation @ local.translation
        for frame in (
            puma.computeGlobalFrame(node, *local.translation),
            puma.computeGlobalFrame(node, local.translation),
        ):
            np.testing.assert_allclose(frame.translation, expected, atol=1e-12)
            np.testing.assert_allclose(frame.rotation, oMi.rotation, atol=1e-12)
        com = puma.computeGlobalCOMFrame(node)
        np.testing.assert_allclose(
            com.translation, oMi.act(puma.robot.model.inertias[node.id + 1].lever), atol=1e-12
        )
    with pytest.raises(InvalidValueError):
        puma.computeGlobalFrame(0, local, 1.0)
    with pytest.raises(InvalidValueError):
        puma.computeGlobalFrame(0, 1.0, 2.0)
    with pytest.raises(InvalidValueError):
        puma.computeGlobalFrame(0, [1.0, 2.0])


@pytest.mark.parametrize("name", ["panda", "kinova", "talos"])
def test_jacobian_at_global_point_is_derivative(name: str, example_robot: Callable[..., RobotModel]) -> None:
    model = jspace.Model(example_robot(name))
    robot = model.robot
    rng = np.random.default_rng(11)
    dof = rng.uniform(-1.0, 1.0, robot.nv)
    model.update(State(dof))
    q = robot.q
    local = np.array([0.05, -0.1, 0.2])
    for node in (model.nodes[len(model.nodes) // 2], model.nodes[-1]):
        point = model.computeGlobalFrame(node, local).translation

        def moving_point(qq: np.ndarray, j: int = node.joint_index) -> pin.SE3:
            data = robot.model.createData()
            pin.forwardKinematics(robot.model, data, qq)
            return data.oMi[j] * pin.SE3(np.eye(3), local)

        cols = []
        for i in range(robot.nv):
            e = np.zeros(robot.nv)
            e[i] = H
            a, b = (
                moving_point(pin.integrate(robot.model, q, e)),
                moving_point(pin.integrate(robot.model, q, -e)),
            )
            cols.append(
                np.concatenate(
                    [(a.translation - b.translation) / (2 * H), pin.log3(a.rotation @ b.rotation.T) / (2 * H)]
                )
            )
        expected = np.array(cols).T
        for jac in (
            model.computeJacobian(node, *point),
            model.computeJacobian(node, point),
            model.computeJacobian(node.id, list(point)),
        ):
            np.testing.assert_allclose(jac, expected, atol=1e-6)
        np.testing.assert_allclose(model.computeJacobian(node)[3:], expected[3:], atol=1e-6)


def test_floating_base(example_robot: Callable[..., RobotModel]) -> None:
    model = jspace.Model(example_robot("talos"))
    robot = model.robot
    assert model.floating_base and model.getNDOF() == robot.nv == 38
    assert model.getNNodes() == model.getNJoints() == robot.model.njoints - 1
    base = model.getNode(0)
    assert (base.ndof, base.dof_index, base.parent_id, base.joint_type) == (6, 0, -1, "JointModelFreeFlyer")
    assert model.getNode(1).dof_index == 6
    rng = np.random.default_rng(5)
    dof = rng.uniform(-0.5, 0.5, 38)
    dof[:3] = [0.3, -0.2, 1.1]
    dof[3:6] = [0.2, -0.4, 0.9]
    vel = rng.uniform(-1.0, 1.0, 38)
    model.update(State(dof, vel))
    frame = model.getGlobalFrame(0)
    np.testing.assert_allclose(frame.translation, dof[:3], atol=1e-12)
    np.testing.assert_allclose(frame.rotation, pin.exp3(dof[3:6]), atol=1e-12)
    np.testing.assert_allclose(model.getState().position, dof, atol=1e-12)
    for rotation in ([1e-9, -2e-9, 0.5e-9], [0.0, 0.0, 0.0], [2.0, -2.5, 1.0], [0.0, 3.0, 0.0]):
        other = dof.copy()
        other[3:6] = rotation
        model.update(State(other, vel))
        np.testing.assert_allclose(model.getGlobalFrame(0).rotation, pin.exp3(np.array(rotation)), atol=1e-14)
    model.update(State(dof, vel))
    # per-DOF velocity = Pinocchio's v: J v is the derivative of the node placement along q ⊕ t v
    q = robot.q
    node = model.getNodeByJointName("arm_left_7_joint")
    before = _raw_placements(robot.model, pin.integrate(robot.model, q, -H * vel))[node.id]
    after = _raw_placements(robot.model, pin.integrate(robot.model, q, H * vel))[node.id]
    np.testing.assert_allclose(
        model.computeJacobian(node)[:3] @ vel, (after.translation - before.translation) / (2 * H), atol=1e-6
    )


# ------------------------------------------------------------------------------------ gravity switches
def test_disable_gravity_compensation(puma: jspace.Model) -> None:
    puma.update(State([0.2, -0.8, 1.0, 0.0, 0.5, 0.0], np.ones(6)))
    full, mass, bias = puma.getGravity(), puma.getMassInertia(), puma.getCoriolisCentrifugal()
    assert np.all(np.abs(full[1:3]) > 1.0)
    assert puma.disableGravityCompensation(1) is False
    assert puma.disableGravityCompensation(1, True) is True
    expected = full.copy()
    expected[1] = 0.0
    np.testing.assert_array_equal(puma.getGravity(), expected)
    np.testing.assert_array_equal(puma.getMassInertia(), mass)
    np.testing.assert_array_equal(puma.getCoriolisCentrifugal(), bias)
    for bad in (-1, 6, 2.0, "1", True):
        with pytest.raises((KeyError, InvalidValueError)):
            puma.disableGravityCompensation(bad)  # type: ignore[arg-type]
    np.testing.assert_array_equal(puma.getGravity(), expected)
    assert puma.disableGravityCompensation(np.int32(1), False) is True
    np.testing.assert_array_equal(puma.getGravity(), full)


# ------------------------------------------------------------------------------------------- bad input
BAD_URDFS = {
    "malformed": "<robot name='x'><link name='a'></robot>",
    "no_link": "<robot name='x'></robot>",
    "not_robot": "<model name='x'><link name='a'/></model>",
}


def test_missing_and_bad_urdf_files(tmp_path: Path) -> None:
    with pytest.raises(URDFNotFoundError) as missing:
        jspace.Model.from_urdf(tmp_path / "nope.urdf")
    assert isinstance(missing.value, FileNotFoundError) and isinstance(missing.value, URDFError)
    for label, text in BAD_URDFS.items():
        path = tmp_path / f"{label}.urdf"
        path.write_text(text)
        with pytest.raises(URDFError):
            jspace.Model.from_urdf(path)
        with pytest.raises(URDFError):
            jspace.Model.from_urdf(text)
    with pytest.raises(InvalidValueError):
        jspace.Model("puma560")  # type: ignore[arg-type]


def test_reads_before_any_state_raise(puma: jspace.Model) -> None:
    reads = [
        puma.getGravity,
        puma.getMassInertia,
        puma.getInverseMassInertia,
        puma.getCoriolisCentrifugal,
        puma.getState,
        puma.computeCOM,
        puma.computeGravity,
        puma.updateKinematics,
        puma.updateDynamics,
        lambda: puma.getGlobalFrame(0),
        lambda: puma.computeJacobian(2),
    ]
    for read in reads:
        with pytest.raises(StateNotSetError):
            read()


def _snapshot(model: jspace.Model) -> tuple:
    return (
        model.robot.state_id,
        model.getState(),
        model.getMassInertia(),
        model.getGravity(),
        model.computeJacobian(5),
    )


def _assert_unchanged(model: jspace.Model, snap: tuple) -> None:
    state_id, state, mass, gravity, jac = snap
    assert model.robot.state_id == state_id
    assert model.getState().equal(state, COMPARE_ALL, 0.0) and model.getState().time == state.time
    np.testing.assert_array_equal(model.getMassInertia(), mass)
    np.testing.assert_array_equal(model.getGravity(), gravity)
    np.testing.assert_array_equal(model.computeJacobian(5), jac)


@pytest.mark.filterwarnings("ignore:.*encountered in (dot|matmul):RuntimeWarning")
def test_bad_states_leave_model_unchanged(puma: jspace.Model) -> None:
    puma.update(State([0.1, 0.2, 0.3, 0.4, 0.5, 0.6], np.full(6, 0.5), [1.0], time=3.0))
    snap = _snapshot(puma)
    nan = np.zeros(6)
    nan[3] = np.nan
    inf = np.zeros(6)
    inf[0] = -np.inf
    bad = [
        State(np.zeros(5)),
        State(np.zeros(7)),
        State(nan),
        State(np.zeros(6), inf),
        State(np.zeros(6), np.zeros(3)),
        State([1e200] * 6, [np.nan] * 6),
    ]
    for state in bad:
        with pytest.raises(InvalidValueError):
            puma.update(state)
        _assert_unchanged(puma, snap)
    odd = State(np.zeros(6))
    odd.position = "abc"  # type: ignore[assignment]
    with pytest.raises(InvalidValueError):
        puma.setState(odd)
    with pytest.raises(InvalidValueError):
        puma.update([0.0] * 6)  # type: ignore[arg-type]
    _assert_unchanged(puma, snap)
    # huge finite values (v = 1e200 would give NaN Coriolis terms) are rejected by name, the model unchanged
    for state in (
        State([1e200] * 6),
        State(np.zeros(6), [1e200] * 6),
        State(np.zeros(6), [0, 0, 0, 0, 0, 2e9]),
    ):
        with pytest.raises(InvalidValueError, match="exceed"):
            puma.update(state)
        _assert_unchanged(puma, snap)
    # large values within the documented limit are states like any other, with finite dynamics
    puma.update(State([1e8] * 6, [1e8] * 6))
    assert puma.getState().position[0] == 1e8
    assert np.isfinite(puma.getCoriolisCentrifugal()).all() and np.isfinite(puma.getMassInertia()).all()


def test_unknown_names_and_bad_ids(puma: jspace.Model) -> None:
    puma.update(State(np.zeros(6)))
    snap = _snapshot(puma)
    with pytest.raises(UnknownNameError) as err:
        puma.getNodeByName("uper_arm")
    assert isinstance(err.value, KeyError) and "upper_arm" in err.value.suggestions
    assert "upper_arm" in str(err.value)
    with pytest.raises(UnknownNameError) as err:
        puma.getNodeByJointName("elbo")
    assert "elbow" in err.value.suggestions and "elbow" in str(err.value)
    with pytest.raises(UnknownNameError):
        puma.getNodeByName("base_link")  # the fixed root is not a node
    calls = [
        puma.getNode,
        puma.getNodeName,
        puma.getJointName,
        puma.getGlobalFrame,
        puma.computeJacobian,
        puma.computeGlobalCOMFrame,
        lambda i: puma.computeGlobalFrame(i, 0.0, 0.0, 0.0),
    ]
    for call in calls:
        for bad in (-1, 6, 100):
            with pytest.raises(jspace.NodeIDError) as err:
                call(bad)
            assert isinstance(err.value, KeyError) and isinstance(err.value, IndexError)
            assert "0..5" in str(err.value)
        for bad in (1.0, "elbow", None):
            with pytest.raises(InvalidValueError):
                call(bad)
    other = jspace.Model.from_urdf(puma.robot.source.replace("puma560", "rr_unit_mass"))
    with pytest.raises(InvalidValueError):
        puma.getGlobalFrame(other.getNode(1))
    _assert_unchanged(puma, snap)
