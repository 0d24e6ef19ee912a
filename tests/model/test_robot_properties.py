"""Property tests of RobotModel on random URDF trees (1–40 DOF, every joint type, floating base on/off).

Each random robot and state is checked against identities computed independently in the test:

* M symmetric positive definite, M·M⁻¹ = I;
* τ = M a + b + g against ``pinocchio.rnea`` called directly on a fresh ``pin.Data``;
* frame Jacobians and the COM Jacobian against central differences of placements / COM positions
  computed with ``pin.integrate`` + forward kinematics on a scratch ``pin.Data``;
* the COM velocity J_com v; frame and COM biases J̇v against central differences of J(q ⊕ t v) v;
* Ṁ − 2C skew-symmetric with Ṁ by central differences of wbcpy's M along q ⊕ t v and C from
  ``pin.computeCoriolisMatrix`` (a second route to the Coriolis terms), tied to b by C v = b.

The quantities are read in a random order, so every cache-fill path is exercised after every other.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from _random_urdf import urdf_trees
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wbcpy import RobotModel

H = 1e-6
READS = ("M", "Minv", "nle", "g", "b", "J", "bias", "com", "Jcom", "vcom", "cbias", "place")


def _random_state(robot: RobotModel, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = robot.dof_lower_limit, robot.dof_upper_limit
    dof = rng.uniform(np.where(np.isfinite(lo), lo, -3.0), np.where(np.isfinite(hi), hi, 3.0))
    if robot.floating_base:
        dof[:6] = rng.uniform(-1.0, 1.0, 6)
    return robot.q_from_dof(dof), rng.uniform(-1.0, 1.0, robot.nv)


def _fd_columns(fun, model: pin.Model, q: np.ndarray, direction: np.ndarray | None = None) -> np.ndarray:
    """Central differences of ``fun`` along each DOF (or along ``direction`` when given)."""
    dirs = np.eye(model.nv) if direction is None else direction[None, :]
    cols = [
        (fun(pin.integrate(model, q, H * d)) - fun(pin.integrate(model, q, -H * d))) / (2 * H) for d in dirs
    ]
    return np.stack(cols, axis=-1)


def _close(a: np.ndarray, b: np.ndarray, rtol: float = 1e-6, atol: float = 1e-7) -> bool:
    scale = max(1.0, float(np.abs(b).max(initial=0.0)))
    return bool(np.abs(np.asarray(a) - np.asarray(b)).max(initial=0.0) <= atol + rtol * scale)


def _check(
    robot: RobotModel, q: np.ndarray, v: np.ndarray, order: list[str], rng: np.random.Generator
) -> None:
    model = robot.model
    scratch = model.createData()
    robot.update(q, v)
    frame = int(rng.integers(0, len(model.frames)))
    got = {}
    for what in order:  # the read order varies: every fill path after every other
        got[what] = {
            "M": robot.mass_matrix,
            "Minv": robot.inverse_mass_matrix,
            "nle": robot.nonlinear_effects,
            "g": robot.gravity,
            "b": robot.coriolis_centrifugal,
            "J": lambda: robot.frame_jacobian(frame),
            "bias": lambda: robot.frame_bias(frame),
            "com": robot.com,
            "Jcom": robot.com_jacobian,
            "vcom": robot.com_velocity,
            "cbias": robot.com_bias,
            "place": lambda: robot.frame_placement(frame).homogeneous,
        }[what]()
    nv = model.nv
    M, Minv = got["M"], got["Minv"]
    assert M.shape == (nv, nv) and got["J"].shape == (6, nv) and got["Jcom"].shape == (3, nv)
    assert np.array_equal(M, M.T)
    assert np.linalg.eigvalsh(M).min() > 0.0
    assert _close(M @ Minv, np.eye(nv), rtol=1e-8 * np.linalg.cond(M), atol=1e-8)
    a = rng.uniform(-1.0, 1.0, nv)
    assert _close(M @ a + got["nle"], pin.rnea(model, scratch, q, v, a), rtol=1e-9)
    assert _close(got["nle"], got["b"] + got["g"], rtol=1e-12)

    def placement(x: np.ndarray) -> pin.SE3:
        pin.framesForwardKinematics(model, scratch, x)
        return scratch.oMf[frame].copy()

    ref = placement(q)
    assert _close(got["place"], ref.homogeneous, rtol=1e-12)
    lin = _fd_columns(lambda x: placement(x).translation, model, q)
    ang = _fd_columns(lambda x: pin.log3(placement(x).rotation @ ref.rotation.T), model, q)
    assert _close(got["J"], np.vstack((lin, ang)))
    com = _fd_columns(lambda x: pin.centerOfMass(model, scratch, x).copy(), model, q)
    assert _close(got["Jcom"], com) and _close(got["com"], pin.centerOfMass(model, scratch, q))
    assert _close(got["vcom"], got["Jcom"] @ v, rtol=1e-10)
    jcv = _fd_columns(lambda x: pin.jacobianCenterOfMass(model, scratch, x).reshape(3, nv) @ v, model, q, v)
    assert _close(got["cbias"], jcv[:, 0], rtol=1e-5, atol=1e-6)
    jv = _fd_columns(
        lambda x: (
            pin.computeFrameJacobian(model, scratch, x, frame, pin.LOCAL_WORLD_ALIGNED).reshape(6, nv) @ v
        ),
        model,
        q,
        v,
    )
    assert _close(got["bias"], jv[:, 0], rtol=1e-5, atol=1e-6)
    # Ṁ − 2C skew-symmetric; C v = b
    twin = RobotModel(model)

    def mass_at(x: np.ndarray) -> np.ndarray:
        twin.update(x, v)
        return twin.mass_matrix()

    Mdot = _fd_columns(mass_at, model, q, v)[:, :, 0]
    C = pin.computeCoriolisMatrix(model, scratch, q, v)
    S = Mdot - 2.0 * C
    assert _close(S + S.T, np.zeros_like(S), rtol=1e-5, atol=1e-5 * max(1.0, np.abs(Mdot).max()))
    assert _close(C @ v, got["b"], rtol=1e-9)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=urdf_trees(), seed=st.integers(0, 2**32 - 1), order=st.permutations(READS))
def test_identities_on_random_trees(tree: tuple[str, int, bool], seed: int, order: list[str]) -> None:
    xml, n_moving, floating = tree
    robot = RobotModel.from_urdf(xml, floating_base=floating)
    assert robot.nv == n_moving + (6 if floating else 0)
    rng = np.random.default_rng(seed)
    q, v = _random_state(robot, rng)
    _check(robot, q, v, list(order), rng)
    q2, v2 = _random_state(robot, rng)  # a second state on the same (now warm) caches
    _check(robot, q2, v2, list(reversed(order)), rng)


@pytest.mark.parametrize("joint", ["revolute", "continuous", "prismatic"])
def test_one_dof_shapes(joint: str) -> None:
    """nv = 1: Jacobians are 2-D (6×1, 3×1), never Pinocchio's 1-D vectors (issue 14, class 1)."""
    limit = "" if joint == "continuous" else '<limit lower="-2" upper="2" effort="1" velocity="1"/>'
    xml = f"""<robot name="one"><link name="link0"/>
      <link name="link1"><inertial><origin xyz="0.1 0 -0.5"/><mass value="2"/>
        <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.05"/></inertial></link>
      <joint name="j" type="{joint}"><parent link="link0"/><child link="link1"/>
        <axis xyz="0 0.6 0.8"/>{limit}</joint></robot>"""
    robot = RobotModel.from_urdf(xml)
    assert robot.nv == 1
    robot.update_dof([0.4], [0.7])
    tip = robot.frame_id("link1")
    assert robot.frame_jacobian(tip).shape == (6, 1)
    assert robot.frame_jacobian_view(tip).shape == (6, 1)
    assert robot.frame_jacobian_bias_view(tip)[0].shape == (6, 1)
    assert robot.com_jacobian().shape == (3, 1) and robot.com_jacobian_view().shape == (3, 1)
    assert robot.com_velocity().shape == (3,)
    np.testing.assert_allclose(robot.com_velocity(), robot.com_jacobian()[:, 0] * 0.7, atol=1e-12)
    chain = robot.chain("link0", "link1")
    assert chain.jacobian([0.4]).shape == (6, 1) and chain.fk_jacobian([0.4])[1].shape == (6, 1)
    from wbcpy import jspace

    model = jspace.Model(robot)
    model.update(jspace.State([0.4], [0.7]))
    assert model.compute_jacobian(0).shape == (6, 1)
    com, jcom = model.compute_com(jacobian=True)
    assert com.shape == (3,) and jcom.shape == (3, 1)
    # and the values: finite differences of the COM along the single DOF
    scratch = robot.model.createData()
    q = robot.q
    fd = _fd_columns(lambda x: pin.centerOfMass(robot.model, scratch, x).copy(), robot.model, q)
    np.testing.assert_allclose(robot.com_jacobian(), fd, atol=1e-7)
