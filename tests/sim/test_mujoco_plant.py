"""MujocoPlant against independent oracles: Pinocchio's kinematics and dynamics (placements, velocities,
q̈ = M⁻¹(τ − h)), momentum balance of pushes, MuJoCo's contact forces summed by hand with Pinocchio's
spatial algebra, the agreement check on deliberately wrong models; bad inputs; copies, pickles, threads.

Conversions in these tests are written from the conventions table of specs/mujoco.md (MuJoCo's joints
looked up by name with MuJoCo's own API), not taken from the plant's JointMap."""

from __future__ import annotations

import copy
import pickle
import sys
import threading
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

from wbcpy import RobotModel
from wbcpy.contacts.contacts import SurfaceContact
from wbcpy.errors import (
    ConcurrentUseError,
    ConfigError,
    InvalidValueError,
    MissingDependencyError,
    ModelError,
    UnknownNameError,
    URDFError,
)

mujoco = pytest.importorskip("mujoco", reason="the MuJoCo plant needs mujoco (pip install 'wbcpy[mujoco]')")

from wbcpy.sim.mujoco import ContactOptions, MujocoPlant  # noqa: E402
from wbcpy.sim.plant import Plant  # noqa: E402

ARM = Path(__file__).resolve().parents[1] / "data" / "mjcf" / "floating_arm.xml"
SOLES = ("left_sole_link", "right_sole_link")


def _soles(mu: float = 0.3) -> list[SurfaceContact]:
    return [SurfaceContact(f, half_size=(0.1, 0.065), mu=mu) for f in SOLES]


def _talos(example_robot):
    robot = example_robot("talos")
    return robot, robot.reference_configuration("half_sitting")


def _rotation(q: np.ndarray) -> np.ndarray:
    return pin.Quaternion(q[6], q[3], q[4], q[5]).toRotationMatrix()


def _pin_acceleration(plant: MujocoPlant, q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Pinocchio's q̈ of MuJoCo's qacc by joint name: a_lin = Rᵀ a_mj − ω × v_lin on the free joint."""
    model, mj = plant.robot.model, plant.model
    a = np.empty(model.nv)
    for jid in range(1, model.njoints):
        joint, j = model.joints[jid], mj.joint(model.names[jid])
        a[joint.idx_v : joint.idx_v + joint.nv] = plant.data.qacc[j.dofadr[0] : j.dofadr[0] + joint.nv]
    a[:3] = _rotation(q).T @ a[:3] - np.cross(v[3:6], v[:3])
    return a


def _random_talos_state(robot, q0, rng):
    lo, hi = robot.model.lowerPositionLimit[7:], robot.model.upperPositionLimit[7:]
    q = q0.copy()
    q[7:] = lo + (hi - lo) * rng.uniform(0.2, 0.8, size=lo.size)  # inside the limits: no limit constraint
    q[3:7] = pin.Quaternion(pin.exp3(rng.normal(size=3))).coeffs()
    return q, 0.3 * rng.normal(size=robot.nv)


# ---------------------------------------------------------------------------------------- conventions
def test_state_round_trip_placements_and_velocities(example_robot) -> None:
    robot, q0 = _talos(example_robot)
    rng = np.random.default_rng(0)
    for _ in range(3):
        q, v = _random_talos_state(robot, q0, rng)
        plant = MujocoPlant(robot, [], q, v, floor=None, check=False)
        q1, v1 = plant.state()
        np.testing.assert_allclose(q1, q, atol=1e-14)
        np.testing.assert_allclose(v1, v, atol=1e-13)
        data, model = plant.data, robot.model
        pdata = model.createData()
        pin.forwardKinematics(model, pdata, q, v)
        pin.updateFramePlacements(model, pdata)
        for b in range(1, plant.model.nbody):
            name = plant.model.body(b).name
            fid = model.getFrameId(name, pin.FrameType.BODY)
            np.testing.assert_allclose(data.xpos[b], pdata.oMf[fid].translation, atol=1e-12)
            np.testing.assert_allclose(data.xmat[b].reshape(3, 3), pdata.oMf[fid].rotation, atol=1e-12)
            twist = np.zeros(6)  # MuJoCo: (angular, linear) of the body frame, in its axes
            mujoco.mj_objectVelocity(plant.model, data, mujoco.mjtObj.mjOBJ_XBODY, b, twist, 1)
            local = pin.getFrameVelocity(model, pdata, fid, pin.ReferenceFrame.LOCAL)
            np.testing.assert_allclose(twist[3:], local.linear, atol=1e-11)
            np.testing.assert_allclose(twist[:3], local.angular, atol=1e-11)


def test_torques_give_pinocchios_acceleration_on_a_free_floating_robot(example_robot) -> None:
    robot, q0 = _talos(example_robot)
    rng = np.random.default_rng(1)
    model, pdata = robot.model, robot.model.createData()
    for _ in range(3):
        q, v = _random_talos_state(robot, q0, rng)
        plant = MujocoPlant(robot, [], q, v, dt=0.001, floor=None, joint_friction=False)
        tau = model.effortLimit[6:] * rng.uniform(-0.9, 0.9, size=model.nv - 6)  # (inside the ctrlrange)
        plant.apply(tau)
        assert plant.data.nefc == 0  # no contact, no limit
        M = pin.crba(model, pdata, q)
        M = np.triu(M) + np.triu(M, 1).T
        expected = np.linalg.solve(M, np.r_[np.zeros(6), tau] - pin.nonLinearEffects(model, pdata, q, v))
        got = _pin_acceleration(plant, q, v)
        np.testing.assert_allclose(got, expected, atol=1e-9 * np.abs(expected).max())


def test_mjcf_motors_with_gear_and_a_ball_joint(tmp_path: Path) -> None:
    robot = RobotModel.from_mjcf(ARM)
    q = robot.reference_configuration("bent")
    q[2] = 3.0  # (high above the file's ground plane: no contact)
    plant = MujocoPlant(robot, [], q)
    assert plant.dt == 0.002 and plant.substeps == 2
    tau = np.array([3.0, 0.4, -0.2, 0.1, 7.0])  # shoulder (gear 2), ball (3 DOFs, no motor), slider
    plant.apply(tau)  # (v = 0 at the start: no damping force in the first time step)
    np.testing.assert_allclose(plant.data.ctrl, [1.5, 7.0])
    model, pdata = robot.model, robot.model.createData()
    expected = pin.aba(model, pdata, q, np.zeros(model.nv), np.r_[np.zeros(6), tau])
    data2 = mujoco.MjData(plant.model)  # MuJoCo's q̈ at the start state, computed again
    data2.qpos[:] = [*q[:3], q[6], *q[3:6], q[7], q[11], *q[8:11], q[12]]
    data2.ctrl[:] = plant.data.ctrl
    data2.qfrc_applied[:] = plant.data.qfrc_applied
    mujoco.mj_forward(plant.model, data2)
    R = _rotation(q)
    got = np.r_[R.T @ data2.qacc[:3], data2.qacc[3:]]
    np.testing.assert_allclose(got, expected, atol=1e-10)
    # a control range clamps: the slider motor's ±50 N
    assert plant.contact_options["source"].startswith("MJCF")


# ---------------------------------------------------------------------------------------- contacts
def _hold(plant: MujocoPlant, q0: np.ndarray, periods: int) -> None:
    """Stand with gravity compensation plus joint PD (Pinocchio's g at the measured state)."""
    model, data = plant.robot.model, plant.robot.model.createData()
    for _ in range(periods):
        q, v = plant.state()
        g = pin.computeGeneralizedGravity(model, data, q)[6:]
        plant.apply(g + 400.0 * (q0[7:] - q[7:]) - 20.0 * v[6:])


def _by_hand(plant: MujocoPlant, q: np.ndarray, data) -> dict[str, np.ndarray]:
    """The soles' wrenches of one time step: MuJoCo's contact forces moved into the sole frames with
    Pinocchio's SE3 action on forces (the sole placements from Pinocchio at the step's start state q)."""
    model, pdata = plant.robot.model, plant.robot.model.createData()
    pin.framesForwardKinematics(model, pdata, q)
    out = {f: pin.Force.Zero() for f in SOLES}
    f6 = np.zeros(6)
    for k in range(data.ncon):
        c = data.contact[k]
        mujoco.mj_contactForce(plant.model, data, k, f6)
        oMc = pin.SE3(c.frame.reshape(3, 3).T, c.pos.copy())  # columns: normal (g₁ → g₂), tangents
        for g, sign in ((c.geom1, -1.0), (c.geom2, 1.0)):
            name = plant.model.geom(g).name
            for f in SOLES:
                if name.startswith(f):
                    oMs = pdata.oMf[model.getFrameId(f)]
                    out[f] += oMs.actInv(oMc.act(pin.Force(sign * f6[:3], sign * f6[3:])))
    return {f: w.vector for f, w in out.items()}


@pytest.mark.parametrize("dt", [0.001, 0.002])
def test_wrench_readout_equals_contact_forces_summed_by_hand(example_robot, dt: float) -> None:
    robot, q0 = _talos(example_robot)
    plant = MujocoPlant(robot, _soles(), q0, dt=dt)
    _hold(plant, q0, round(0.3 / dt))
    q, v = plant.state()
    g = pin.computeGeneralizedGravity(robot.model, robot.model.createData(), q)[6:]
    tau = g + 400.0 * (q0[7:] - q[7:]) - 20.0 * v[6:]
    # the same period by hand on a copy: mean over its time steps of the by-hand wrenches
    twin = copy.deepcopy(plant)
    model = robot.model
    for a in range(twin.model.nu):  # the motors (gear 1) are named after their joints
        twin.data.ctrl[a] = tau[model.joints[model.getJointId(twin.model.actuator(a).name)].idx_v - 6]
    mean = {f: np.zeros(6) for f in SOLES}
    for _ in range(twin.substeps):
        start = twin.state()[0]
        mujoco.mj_step(twin.model, twin.data)
        for f, w in _by_hand(twin, start, twin.data).items():
            mean[f] += w / twin.substeps
    plant.apply(tau)
    got = plant.contact_wrenches()
    for f in SOLES:
        np.testing.assert_allclose(got[f], mean[f], atol=1e-9 * robot.total_mass * 9.81)
    assert plant.active_contacts() == list(SOLES)
    # standing still: the soles carry the weight (the momentum rate is small after 0.3 s)
    fz = sum(got[f][2] for f in SOLES)
    assert fz == pytest.approx(robot.total_mass * 9.81, rel=0.03)


def test_contact_boxes_lie_on_the_sole_frames(example_robot) -> None:
    robot, q0 = _talos(example_robot)
    options = ContactOptions(box_half_thickness=0.004)
    plant = MujocoPlant(robot, _soles(0.4), q0, options=options)
    data, model = plant.data, plant.model
    pdata = robot.model.createData()
    pin.framesForwardKinematics(robot.model, pdata, q0)
    heights = []
    for f in SOLES:
        g = model.geom(f + "_wbcpy_contact")
        np.testing.assert_allclose(g.size, [0.1, 0.065, 0.004])
        assert g.friction[0] == pytest.approx(0.4) and list(g.solref) == [0.005, 1.0]
        oMs = pdata.oMf[robot.model.getFrameId(f)]
        centre = data.geom_xpos[g.id] - data.geom_xmat[g.id].reshape(3, 3)[:, 2] * 0.004  # bottom face
        np.testing.assert_allclose(centre, oMs.translation, atol=1e-12)
        np.testing.assert_allclose(data.geom_xmat[g.id].reshape(3, 3), oMs.rotation, atol=1e-12)
        heights.append(oMs.translation[2])
    floor = model.geom("wbcpy_floor")
    assert data.geom_xpos[floor.id][2] == pytest.approx(min(heights), abs=1e-12)
    assert model.opt.cone == mujoco.mjtCone.mjCONE_ELLIPTIC and model.opt.impratio == 10.0
    assert model.opt.timestep == 0.001 and model.nu == robot.nv - 6
    limits = np.array(
        [model.actuator(robot.model.names[j]).ctrlrange[1] for j in range(2, robot.model.njoints)]
    )
    np.testing.assert_allclose(limits, robot.model.effortLimit[6:])
    mj_default = MujocoPlant(robot, _soles(), q0, options=ContactOptions.mujoco_defaults(), check=False)
    assert mj_default.model.opt.cone == mujoco.mjtCone.mjCONE_PYRAMIDAL and mj_default.substeps == 1
    no_friction = MujocoPlant(robot, _soles(), q0, joint_friction=False, check=False)
    assert np.all(no_friction.model.dof_damping == 0) and np.all(no_friction.model.dof_frictionloss == 0)
    assert np.any(plant.model.dof_damping > 0)  # (Talos's URDF has joint damping)


def test_collision_geometry_stands_on_the_feet_meshes(example_robot) -> None:
    robot, q0 = _talos(example_robot)
    plant = MujocoPlant(robot, _soles(), q0, geometry="collisions")
    model = plant.model
    assert model.nmesh > 0 and model.ngeom > 3
    assert not any(model.geom(g).name.endswith("_wbcpy_contact") for g in range(model.ngeom))
    _hold(plant, q0, 150)
    touching = {model.body(model.geom_bodyid[c.geom2]).name for c in plant.data.contact}
    assert touching == {"leg_left_6_link", "leg_right_6_link"}  # the floor, the feet: no self-collision
    fz = sum(w[2] for w in plant.contact_wrenches().values())
    assert fz == pytest.approx(robot.total_mass * 9.81, rel=0.05)


# ---------------------------------------------------------------------------------------- pushes
def test_push_impulse_and_force_change_the_momentum_by_their_impulse() -> None:
    robot = RobotModel.from_mjcf(ARM)
    q = robot.reference_configuration("bent")
    q[2] = 50.0  # (falling freely, far above the ground plane for the test's duration)
    mass, g = robot.total_mass, robot.model.gravity.linear
    model, pdata = robot.model, robot.model.createData()

    def com_velocity(plant):
        q, v = plant.state()
        pin.centerOfMass(model, pdata, q, v)
        return pdata.vcom[0].copy()

    plant = MujocoPlant(robot, [], q, dt=0.001)
    before = com_velocity(plant)
    plant.push([3.0, -2.0, 1.0], "tool")  # an impulse at a site: Δv_com = P / m at once
    np.testing.assert_allclose(com_velocity(plant) - before, np.array([3.0, -2.0, 1.0]) / mass, atol=1e-12)
    before = com_velocity(plant)
    plant.push([0.0, 40.0, 0.0], None, duration=0.005)  # a force on the base for five time steps
    for _ in range(8):
        plant.apply(np.zeros(5))
    expected = (np.array([0.0, 40.0, 0.0]) * 0.005 + mass * g * 0.008) / mass
    np.testing.assert_allclose(com_velocity(plant) - before, expected, rtol=2e-3, atol=1e-4)
    assert not plant.data.xfrc_applied.any()  # (removed when the duration is over)


# ---------------------------------------------------------------------------------------- agreement
@pytest.mark.parametrize(
    ("field", "change", "quantity"),
    [
        ("body_mass", lambda m, b: m.body_mass.__setitem__(b, m.body_mass[b] * 1.001), "total mass"),
        ("body_ipos", lambda m, b: m.body_ipos.__setitem__(b, m.body_ipos[b] + 1e-4), "COM"),
        (
            "body_inertia",
            lambda m, b: m.body_inertia.__setitem__(b, m.body_inertia[b] * 1.01),
            "inverse dynamics",
        ),
    ],
)
def test_the_agreement_check_names_a_wrong_quantity(field, change, quantity) -> None:
    robot = RobotModel.from_mjcf(ARM)
    plant = MujocoPlant(robot)
    assert set(plant.agreement) == {"total mass", "COM", "gravity torques", "inverse dynamics"}
    assert max(plant.agreement.values()) < 1e-12
    change(plant.model, plant.model.body("upper").id)
    with pytest.raises(ModelError) as info:
        plant.check_model()
    assert info.value.quantity == quantity and info.value.difference > 0
    assert quantity in str(info.value)
    plant.check_model(rtol=1.0)  # (a loose tolerance accepts it)


def test_gravity_mismatch_is_named(tmp_path: Path) -> None:
    robot = RobotModel.from_mjcf(ARM)
    robot.model.gravity = pin.Motion(np.array([0.0, 0.0, -9.81]), np.zeros(3))  # not the file's
    with pytest.raises(ModelError, match=r"COM|gravity torques") as info:
        MujocoPlant(robot)
    assert "DOF" in str(info.value) or info.value.quantity == "COM"


# ---------------------------------------------------------------------------------------- bad inputs
def test_bad_inputs(example_robot) -> None:
    robot, q0 = _talos(example_robot)
    with pytest.raises(ConfigError, match="contacts"):
        MujocoPlant(robot, [{"type": "surface", "frame": "left_sole_link", "half_size": [0.1, -1.0]}], q0)
    with pytest.raises(UnknownNameError):
        MujocoPlant(robot, [SurfaceContact("left_sole", half_size=(0.1, 0.1), mu=0.3)], q0)
    with pytest.raises(InvalidValueError):
        MujocoPlant(robot, _soles(), q0[:-1])
    for kwargs, field in [
        ({"dt": 0.0015}, "dt"),
        ({"dt": -1.0}, "dt"),
        ({"dt": True}, "dt"),
        ({"options": {"cone": "x"}}, "options"),
        ({"geometry": "meshes"}, "geometry"),
        ({"floor": "low"}, "floor"),
        ({"floor": float("nan")}, "floor"),
        ({"joint_friction": 1}, "joint_friction"),
        ({"check": "yes"}, "check"),
    ]:
        with pytest.raises(ConfigError) as info:
            MujocoPlant(robot, _soles(), q0, **kwargs)
        assert info.value.field == field
    for kwargs, field in [
        ({"cone": "round"}, "cone"),
        ({"impratio": 0}, "impratio"),
        ({"solref": (1,)}, "solref"),
        ({"solimp": (0.9, 1.5, 0.001)}, "solimp"),
        ({"condim": 2}, "condim"),
        ({"integrator": "rk4"}, "integrator"),
        ({"timestep": float("inf")}, "timestep"),
    ]:
        with pytest.raises(ConfigError) as info:
            ContactOptions(**kwargs)
        assert info.value.field == field
    with pytest.raises(URDFError):  # a robot without a URDF or MJCF
        MujocoPlant(RobotModel(robot.model), [], q0)
    with pytest.raises(ConfigError, match="MJCF"):
        MujocoPlant(RobotModel.from_mjcf(ARM), floor=0.0)
    plant = MujocoPlant(robot, _soles(), q0, check=False)
    state = plant.state()
    for bad in (np.zeros(3), np.full(32, np.nan), "x"):
        with pytest.raises(InvalidValueError):
            plant.apply(bad)
    with pytest.raises(InvalidValueError):
        plant.push([1.0, 2.0])
    with pytest.raises(ConfigError):
        plant.push([1.0, 2.0, 3.0], duration=-1.0)
    with pytest.raises(UnknownNameError):
        plant.push([1.0, 2.0, 3.0], "no_such_frame")
    with pytest.raises(InvalidValueError):
        plant.check_model(rtol=0)
    assert plant.time == 0.0  # nothing changed
    for a, b in zip(plant.state(), state, strict=True):
        np.testing.assert_array_equal(a, b)


def test_missing_mujoco_is_a_clear_error(monkeypatch, example_robot) -> None:
    from wbcpy.sim.mujoco import _lib

    monkeypatch.setattr(_lib, "_loaded", [])
    monkeypatch.setitem(sys.modules, "mujoco", None)  # (an import of it raises ImportError)
    robot, q0 = _talos(example_robot)
    with pytest.raises(MissingDependencyError, match=r"pip install 'wbcpy\[mujoco\]'") as info:
        MujocoPlant(robot, _soles(), q0)
    assert isinstance(info.value, ImportError) and info.value.package == "mujoco"


# ---------------------------------------------------------------------------------------- copies, threads
def test_copies_and_pickles_are_independent_plants() -> None:
    robot = RobotModel.from_mjcf(ARM)
    q = robot.reference_configuration("bent")
    plant = MujocoPlant(robot, [], q)
    plant.apply(np.full(5, 0.5))
    tau = np.array([1.0, 0.0, 0.2, 0.0, -1.0])
    for other in (copy.copy(plant), copy.deepcopy(plant), pickle.loads(pickle.dumps(plant))):
        assert isinstance(other, Plant) and other.time == plant.time
        other.apply(tau)
        assert other.time > plant.time  # the original did not move
        reference = copy.deepcopy(plant)
        reference.apply(tau)
        for a, b in zip(other.state(), reference.state(), strict=True):
            np.testing.assert_allclose(a, b, atol=1e-12)
    assert plant.model is not copy.deepcopy(plant).model


def test_a_second_thread_is_refused_while_the_plant_steps() -> None:
    plant = MujocoPlant(RobotModel.from_mjcf(ARM))
    inside, release = threading.Event(), threading.Event()
    real = plant._readout.accumulate

    def slow(mj, data):
        inside.set()
        release.wait(5)
        real(mj, data)

    plant._readout.accumulate = slow
    worker = threading.Thread(target=plant.apply, args=(np.zeros(5),))
    worker.start()
    assert inside.wait(5)
    for call in (
        plant.state,
        plant.contact_wrenches,
        lambda: plant.push([1.0, 0, 0]),
        lambda: plant.apply(np.zeros(5)),
    ):
        with pytest.raises(ConcurrentUseError):
            call()
    release.set()
    worker.join(5)
    plant._readout.accumulate = real
    assert plant.time == pytest.approx(plant.dt)  # the running call finished, the refused ones did nothing
