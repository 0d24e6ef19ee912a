"""RobotModel on real robots (example-robot-data): every cached quantity against an independent oracle.

Oracles (none of them calls the code under test at the perturbed states, except where a derivative of a
wbcpy quantity is itself the object of the identity):

* Jacobians: central differences of frame placements computed by ``pin.forwardKinematics`` +
  ``updateFramePlacements`` on a scratch ``pin.Data``, perturbing along each DOF with ``pin.integrate``;
  the rotation part uses ``log3(R(q + h eᵢ) R(q − h eᵢ)ᵀ) / 2h`` (world axes, as LOCAL_WORLD_ALIGNED).
* g: central differences of ``pin.computePotentialEnergy`` (V = −Σ mᵢ g·cᵢ).
* b: ``rnea(q, v, 0) − rnea(q, 0, 0)`` on a scratch data.
* Ṁ − 2C skew-symmetric, with Ṁ by central differences of wbcpy's M along q(t) = q ⊕ t v and C from
  ``pin.computeCoriolisMatrix`` (a second route to the Coriolis terms), tied to wbcpy's b by C v = b; and
  the power identity vᵀ Ṁ v = 2 vᵀ b, which involves only wbcpy's M (differentiated) and b.
* J̇q̇ (frames and COM): central differences of J(q ⊕ t v) v at t = 0 (along that path q̈ = 0).
* COM: Σ mᵢ oMᵢ·cᵢ / Σ mᵢ from the joint placements; its Jacobian by central differences of the COM.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest
from _mimic_oracle import Uncoupled

from wbcpy import InvalidValueError, RobotModel, StateNotSetError, UnknownNameError

ROBOTS = ["panda", "ur5", "kinova", "talos"]
H = 1e-6


def random_dof(robot: RobotModel, rng: np.random.Generator) -> np.ndarray:
    """Per-DOF values: inside finite limits (continuous joints up to ±7 rad), base pose random."""
    lower, upper = robot.dof_lower_limit, robot.dof_upper_limit
    dof = rng.uniform(np.where(np.isfinite(lower), lower, -7.0), np.where(np.isfinite(upper), upper, 7.0))
    if robot.floating_base:
        dof[:3] = rng.uniform(-1.0, 1.0, 3)
        dof[3:6] = rng.uniform(-1.2, 1.2, 3)
    return dof


def states(robot: RobotModel, n: int = 2, seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    return [(robot.q_from_dof(random_dof(robot, rng)), rng.uniform(-1.0, 1.0, robot.nv)) for _ in range(n)]


def central(
    f: Callable[[np.ndarray], np.ndarray], model: pin.Model, q: np.ndarray, h: float = H
) -> np.ndarray:
    """Columns (f(q ⊕ h eᵢ) − f(q ⊖ h eᵢ)) / 2h for every DOF i (f returns an array)."""
    cols = []
    for i in range(model.nv):
        e = np.zeros(model.nv)
        e[i] = h
        cols.append((f(pin.integrate(model, q, e)) - f(pin.integrate(model, q, -e))) / (2 * h))
    return np.stack(cols, axis=-1)


def along(
    f: Callable[[np.ndarray], np.ndarray], model: pin.Model, q: np.ndarray, v: np.ndarray, h: float = H
):
    """d/dt f(q ⊕ t v) at t = 0 by central differences."""
    return (f(pin.integrate(model, q, h * v)) - f(pin.integrate(model, q, -h * v))) / (2 * h)


@pytest.fixture(scope="module", params=ROBOTS)
def robot(request: pytest.FixtureRequest, example_robot: Callable[..., RobotModel]) -> RobotModel:
    return example_robot(request.param)


def _frames(robot: RobotModel) -> list[int]:
    """A handful of frames spread along the kinematic tree (the last one is a tip)."""
    n = len(robot.model.frames)
    return sorted({1, n // 3, n // 2, (2 * n) // 3, n - 1})


def test_frame_jacobian_is_derivative_of_placements(robot: RobotModel) -> None:
    model, scratch = robot.model, robot.model.createData()
    fids = _frames(robot)

    def placements(q: np.ndarray) -> list[pin.SE3]:
        pin.forwardKinematics(model, scratch, q)
        pin.updateFramePlacements(model, scratch)
        return [pin.SE3(scratch.oMf[f]) for f in fids]

    for q, v in states(robot):
        robot.update(q, v)
        cols = {f: [] for f in fids}
        for i in range(model.nv):
            e = np.zeros(model.nv)
            e[i] = H
            plus, minus = placements(pin.integrate(model, q, e)), placements(pin.integrate(model, q, -e))
            for f, a, b in zip(fids, plus, minus, strict=True):
                lin = (a.translation - b.translation) / (2 * H)
                ang = pin.log3(a.rotation @ b.rotation.T) / (2 * H)
                cols[f].append(np.concatenate([lin, ang]))
        for f in fids:
            np.testing.assert_allclose(
                robot.frame_jacobian(f), np.array(cols[f]).T, atol=1e-6, err_msg=str(f)
            )
        # the placement itself is the scratch data's at q
        np.testing.assert_allclose(
            robot.frame_placement(fids[-1]).homogeneous, placements(q)[-1].homogeneous, atol=1e-12
        )


def test_mass_matrix_spd_and_inverse(robot: RobotModel) -> None:
    twin = Uncoupled(robot) if robot.mimic_joints else None  # (Pinocchio's energies refuse mimic joints)
    model = robot.model if twin is None else twin.model
    scratch = model.createData()
    for q, v in states(robot, 3, seed=1):
        robot.update(q, v)
        mass, minv = robot.mass_matrix(), robot.inverse_mass_matrix()
        np.testing.assert_array_equal(mass, mass.T)
        assert np.linalg.eigvalsh(mass).min() > 0.0
        np.testing.assert_allclose(mass @ minv, np.eye(robot.nv), atol=1e-9)
        np.testing.assert_allclose(minv @ mass, np.eye(robot.nv), atol=1e-9)
        # kinetic energy ½ vᵀ M v against Pinocchio's own kinetic-energy algorithm
        qq, vv = (q, v) if twin is None else (twin.q(q), twin.v(v))
        energy = pin.computeKineticEnergy(model, scratch, qq, vv)
        assert 0.5 * v @ mass @ v == pytest.approx(energy, rel=1e-10)


def test_gravity_is_gradient_of_potential_energy(robot: RobotModel) -> None:
    model = robot.model
    twin = Uncoupled(robot) if robot.mimic_joints else None  # (Pinocchio's energies refuse mimic joints)
    scratch = (model if twin is None else twin.model).createData()

    def potential(q: np.ndarray) -> np.ndarray:
        if twin is not None:
            return np.array(pin.computePotentialEnergy(twin.model, scratch, twin.q(q)))
        return np.array(pin.computePotentialEnergy(model, scratch, q))

    for q, v in states(robot, 2, seed=2):
        robot.update(q, v)
        grad = central(potential, model, q, h=1e-5)
        np.testing.assert_allclose(robot.gravity(), grad, atol=1e-6 * max(1.0, np.abs(grad).max()))


def test_coriolis_is_rnea_without_gravity(robot: RobotModel) -> None:
    model, scratch = robot.model, robot.model.createData()
    zero = np.zeros(model.nv)
    for q, v in states(robot, 2, seed=3):
        robot.update(q, v)
        rnea_v = pin.rnea(model, scratch, q, v, zero).copy()
        rnea_0 = pin.rnea(model, scratch, q, zero, zero).copy()
        np.testing.assert_allclose(robot.coriolis_centrifugal(), rnea_v - rnea_0, atol=1e-9)
        np.testing.assert_allclose(robot.gravity(), rnea_0, atol=1e-9)
        np.testing.assert_allclose(robot.nonlinear_effects(), rnea_v, atol=1e-9)


def test_mdot_minus_2c_is_skew_symmetric(robot: RobotModel) -> None:
    model, scratch = robot.model, robot.model.createData()
    for q, v in states(robot, 2, seed=4):
        robot.update(q, v)
        bias = robot.coriolis_centrifugal()
        if robot.mimic_joints:  # C = Gᵀ C_uncoupled G (G constant)
            twin = Uncoupled(robot)
            c_u = pin.computeCoriolisMatrix(twin.model, twin.model.createData(), twin.q(q), twin.v(v))
            coriolis = twin.G.T @ c_u @ twin.G
        else:
            coriolis = pin.computeCoriolisMatrix(model, scratch, q, v).copy()

        def mass_at(qq: np.ndarray, v: np.ndarray = v) -> np.ndarray:
            robot.update(qq, v)
            return robot.mass_matrix()

        mdot = along(mass_at, model, q, v)
        scale = max(1.0, np.abs(mdot).max())
        np.testing.assert_allclose(coriolis @ v, bias, atol=1e-9)
        skew = mdot - 2.0 * coriolis
        np.testing.assert_allclose(skew + skew.T, 0.0, atol=1e-6 * scale)
        assert v @ mdot @ v == pytest.approx(2.0 * v @ bias, abs=1e-6 * scale)


@pytest.mark.parametrize("dynamics_first", [False, True], ids=["kinematics", "after-dynamics"])
def test_com_and_com_jacobian(robot: RobotModel, dynamics_first: bool) -> None:
    """(after-dynamics: the COM terms are taken from a computeAllTerms pass of the same state)"""
    model, scratch = robot.model, robot.model.createData()
    masses = np.array([model.inertias[j].mass for j in range(1, model.njoints)])

    def com_oracle(q: np.ndarray) -> np.ndarray:
        pin.forwardKinematics(model, scratch, q)
        points = [scratch.oMi[j].act(model.inertias[j].lever) for j in range(1, model.njoints)]
        return masses @ np.array(points) / masses.sum()

    for q, v in states(robot, 2, seed=5):
        robot.update(q, v)
        if dynamics_first:
            robot.precompute("dynamics")
        np.testing.assert_allclose(robot.com(), com_oracle(q), atol=1e-12)
        np.testing.assert_allclose(robot.com_jacobian(), central(com_oracle, model, q), atol=1e-6)
        np.testing.assert_allclose(robot.com_velocity(), robot.com_jacobian() @ v, atol=1e-12)


@pytest.mark.parametrize("dynamics_first", [False, True], ids=["kinematics", "after-dynamics"])
def test_com_bias_is_derivative_of_com_velocity(robot: RobotModel, dynamics_first: bool) -> None:
    model, scratch = robot.model, robot.model.createData()
    for q, v in states(robot, 2, seed=6):
        robot.update(q, v)
        if dynamics_first:
            robot.precompute("dynamics")
        bias = robot.com_bias()

        def com_velocity(qq: np.ndarray, v: np.ndarray = v) -> np.ndarray:
            return pin.jacobianCenterOfMass(model, scratch, qq) @ v

        expected = along(com_velocity, model, q, v)
        np.testing.assert_allclose(bias, expected, atol=1e-6 * max(1.0, np.abs(expected).max()))


def test_frame_bias_is_derivative_of_frame_velocity(robot: RobotModel) -> None:
    model, scratch = robot.model, robot.model.createData()
    fids = _frames(robot)
    for q, v in states(robot, 2, seed=7):
        robot.update(q, v)
        robot.inverse_mass_matrix()  # other algorithms on the same data must not spoil the bias
        for f in fids:

            def velocity(qq: np.ndarray, f: int = f, v: np.ndarray = v) -> np.ndarray:
                pin.computeJointJacobians(model, scratch, qq)
                return pin.getFrameJacobian(model, scratch, f, pin.LOCAL_WORLD_ALIGNED) @ v

            expected = along(velocity, model, q, v)
            got = robot.frame_bias(f)
            np.testing.assert_allclose(
                got, expected, atol=1e-6 * max(1.0, np.abs(expected).max()), err_msg=str(f)
            )
            np.testing.assert_allclose(robot.frame_velocity(f), velocity(q), atol=1e-12)


def test_results_are_new_arrays_and_never_stale(robot: RobotModel) -> None:
    (q0, v0), (q1, v1) = states(robot, 2, seed=8)
    scratch = robot.model.createData()
    robot.update(q0, v0)
    mass = robot.mass_matrix()
    mass[:] = 0.0
    gravity = robot.gravity()
    gravity[:] = 0.0
    jac = robot.frame_jacobian(len(robot.model.frames) - 1)
    jac[:] = 0.0
    assert np.abs(robot.mass_matrix()).max() > 0.0 and np.abs(robot.gravity()).max() > 0.0
    first = robot.inverse_mass_matrix()
    second = robot.inverse_mass_matrix()
    np.testing.assert_array_equal(first, second)
    first[:] = 0.0
    second[:] = 1.0
    np.testing.assert_allclose(robot.inverse_mass_matrix() @ robot.mass_matrix(), np.eye(robot.nv), atol=1e-9)
    with pytest.raises(AttributeError):
        robot.data = robot.model.createData()  # type: ignore[misc]  # cached views rely on it
    assert np.abs(robot.frame_jacobian(len(robot.model.frames) - 1)).max() > 0.0
    robot.update(q1, v1)
    np.testing.assert_allclose(robot.mass_matrix(), pin.crba(robot.model, scratch, q1), atol=1e-12)
    np.testing.assert_allclose(
        robot.gravity(), pin.computeGeneralizedGravity(robot.model, scratch, q1), atol=1e-12
    )


@pytest.mark.filterwarnings("ignore:.*encountered in (dot|matmul):RuntimeWarning")
def test_bad_input_leaves_robot_unchanged(robots_dir: Path) -> None:
    robot = RobotModel.from_urdf(robots_dir / "puma560.urdf")
    for read in (robot.gravity, robot.mass_matrix, robot.inverse_mass_matrix, robot.com, lambda: robot.q):
        with pytest.raises(StateNotSetError):
            read()
    with pytest.raises(StateNotSetError):
        robot.frame_placement("end-effector")
    q, v = np.linspace(-1.0, 1.0, 6), np.full(6, 0.3)
    robot.update(q, v)
    before = (robot.state_id, robot.q, robot.v, robot.mass_matrix(), robot.frame_jacobian("end-effector"))
    bad_q = q.copy()
    bad_q[2] = np.nan
    for args in (
        (np.zeros(5),),
        (bad_q,),
        (q, np.full(6, np.inf)),
        (q, np.zeros(7)),
        ("abc",),
        (q.reshape(2, 3),),
    ):
        with pytest.raises(InvalidValueError):
            robot.update(*args)
    with pytest.raises(UnknownNameError) as err:
        robot.frame_placement("end-efector")
    assert "end-effector" in err.value.suggestions and isinstance(err.value, KeyError)
    with pytest.raises(UnknownNameError):
        robot.joint_id("elbw")
    state_id, q0, v0, mass, jac = before
    assert robot.state_id == state_id
    np.testing.assert_array_equal(robot.q, q0)
    np.testing.assert_array_equal(robot.v, v0)
    np.testing.assert_array_equal(robot.mass_matrix(), mass)
    np.testing.assert_array_equal(robot.frame_jacobian("end-effector"), jac)


def test_inverse_mass_matrix_read_before_mass_matrix(robot: RobotModel) -> None:
    """M⁻¹ alone takes the ABA route, M⁻¹ after M the Cholesky route: both invert Pinocchio's own CRBA."""
    scratch = robot.model.createData()
    for q, v in states(robot, 2, seed=7):
        crba = pin.crba(robot.model, scratch, q)
        mass = np.triu(crba) + np.triu(crba, 1).T
        robot.update(q, v)
        first = robot.inverse_mass_matrix()
        np.testing.assert_allclose(first @ mass, np.eye(robot.nv), atol=1e-9)
        robot.update(q, v)
        robot.mass_matrix()
        np.testing.assert_allclose(robot.inverse_mass_matrix(), first, rtol=1e-9, atol=1e-9)
