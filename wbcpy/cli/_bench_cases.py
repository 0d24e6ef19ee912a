"""The capabilities ``wbcpy bench`` measures: wbcpy's call, its raw-Pinocchio floor, and its peers.

Each case is the loop a user writes (bound PD laws, ``update``, ``solve``) at one state set anew at every
call, so no cached kinematics survive between calls; the floor is the raw Pinocchio work for the same
maths at the same state (the rigid-body algorithms wbcpy calls, without tasks, QP or validation); peers
are measured when installed (:mod:`wbcpy.cli._bench_peers`). The cases mirror the scripts of
``benchmarks/`` (``bench_model.py``, ``bench_chains.py``, ``bench_loop.py``, ``bench_velocity.py``,
``bench_ik.py``, ``bench_contact.py``) on the robots shipped with wbcpy, and Talos from example-robot-data
for the contact scene.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pinocchio as pin

from ..model.registry import example_robot_data_dir, load_robot
from ..model.robot_model import RobotModel

LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
#: the lwr4's start configuration (README's examples) [rad]
ARM_Q = np.array([0.3, 0.6, -0.2, -1.2, 0.3, 0.8, 0.1])
ARM_V = np.array([0.2, -0.1, 0.3, 0.1, -0.2, 0.1, 0.05])
SOLES = ("left_sole_link", "right_sole_link")


@dataclass
class Case:
    """One capability on one robot.

    Attributes:
        capability: what is measured (a user's call or loop).
        robot: the robot and the task set.
        wbcpy: one call of wbcpy's side.
        floor: the raw Pinocchio work of the same maths (the ratio's denominator).
        peers: ``{name: one call}`` of the installed peers doing the same job (pink, TSID).
        note: why a peer is missing, or other remarks.
    """

    capability: str
    robot: str
    wbcpy: Callable[[], object]
    floor: Callable[[], object]
    peers: dict[str, Callable[[], object]] = field(default_factory=dict)
    note: str = ""


def _floor_dynamics(robot: RobotModel, q: np.ndarray, v: np.ndarray, frames: list[str]) -> Callable[[], None]:
    """``computeAllTerms`` (M, b, g, Jacobians, COM) + frame Jacobians and J̇q̇ of ``frames``."""
    model, data = robot.model, robot.model.createData()
    fids = [model.getFrameId(f) for f in frames]

    def run() -> None:
        pin.computeAllTerms(model, data, q, v)
        for fid in fids:
            pin.getFrameJacobian(model, data, fid, LWA)
            pin.getFrameClassicalAcceleration(model, data, fid, LWA)

    return run


def model_case() -> Case:
    """``jspace.Model.update(state)`` + M, M⁻¹, g, b and one Jacobian (PUMA 560)."""
    from ..jspace import Model, State

    robot = load_robot("puma560")
    jm = Model(robot)
    q, v = np.array([0.1, -0.5, 1.0, 0.2, 0.5, -0.3]), np.full(6, 0.2)
    state, node = State(q, v), jm.getNodeByName("end-effector")
    model, data = robot.model, robot.model.createData()
    fid = model.getFrameId("end-effector")

    def wbcpy() -> None:
        jm.update(state)
        jm.get_mass_inertia(), jm.get_inverse_mass_inertia(), jm.get_gravity()
        jm.get_coriolis_centrifugal(), jm.compute_jacobian(node)

    def floor() -> None:
        pin.computeAllTerms(model, data, q, v)
        pin.computeGeneralizedGravity(model, data, q)
        pin.computeMinverse(model, data, q)
        pin.getFrameJacobian(model, data, fid, LWA)

    return Case("jspace update + M, M⁻¹, g, b, J", "PUMA 560", wbcpy, floor)


def chain_case() -> Case:
    """``Chain.fk_jacobian`` (lwr4 base → tip) against ``computeJointJacobians`` + placements."""
    robot = load_robot("lwr4")
    chain = robot.chain("lwr_base_link", "lwr_ee")
    model, data = robot.model, robot.model.createData()
    tid, bid = model.getFrameId("lwr_ee"), model.getFrameId("lwr_base_link")

    def floor() -> None:
        pin.computeJointJacobians(model, data, ARM_Q)
        tip = pin.updateFramePlacement(model, data, tid)
        pin.updateFramePlacement(model, data, bid).actInv(tip)
        pin.getFrameJacobian(model, data, tid, LWA)

    return Case("chain fk_jacobian", "lwr4 base → tip", lambda: chain.fk_jacobian(ARM_Q), floor)


def acceleration_case(with_pink: bool) -> Case:
    """The AccelerationScene step: ``robot.update``, bound PD laws, ``update``, ``solve`` (lwr4)."""
    from ..controllers import CartesianPD, JointPD
    from ..scenes.acceleration_scene import AccelerationScene
    from ..tasks import TaskConfig

    robot = load_robot("lwr4")
    robot.update(ARM_Q, ARM_V)
    scene = AccelerationScene(robot, solver="daqp", dt=0.001, joint_limits=True)
    scene.configure(
        [
            TaskConfig(name="ee", type="cart", tip="lwr_ee"),
            TaskConfig(name="posture", type="jnt", joint_names=robot.joint_names, weights=[1e-3] * 7),
        ]
    )
    pose = robot.frame_placement("lwr_ee")
    target = pin.SE3(pose.rotation, pose.translation + np.array([0.1, -0.1, 0.1]))
    laws = [
        scene.bind("ee", CartesianPD(kp=100.0, kd=20.0), target),
        scene.bind("posture", JointPD(kp=10.0, kd=6.3), ARM_Q),
    ]

    def wbcpy() -> None:
        robot.update(ARM_Q, ARM_V)
        for law in laws:
            law.update()
        scene.solve(scene.update())

    peers: dict[str, Callable[[], object]] = {}
    note = ""
    if with_pink:
        from ._bench_peers import pink_step

        peers, note = pink_step(robot, "lwr_ee", ARM_Q, target)
    floor = _floor_dynamics(robot, ARM_Q, ARM_V, ["lwr_ee"])
    return Case(
        "AccelerationScene step (PD laws, update, solve)", "lwr4, ee + posture", wbcpy, floor, peers, note
    )


def velocity_case(with_pink: bool) -> Case:
    """The VelocityScene step: ``robot.update``, bound velocity laws, ``update``, ``solve`` (lwr4)."""
    from ..controllers import CartesianVelocityLaw, JointVelocityLaw
    from ..scenes.velocity_scene import VelocityScene
    from ..tasks import TaskConfig

    robot = load_robot("lwr4")
    robot.update(ARM_Q)
    scene = VelocityScene(robot, dt=0.001)
    scene.configure(
        [
            TaskConfig(name="ee", type="cart", tip="lwr_ee"),
            TaskConfig(name="posture", type="jnt", joint_names=robot.joint_names, weights=[1e-3] * 7),
        ]
    )
    pose = robot.frame_placement("lwr_ee")
    target = pin.SE3(pose.rotation, pose.translation + np.array([0.1, -0.1, 0.1]))
    laws = [
        scene.bind("ee", CartesianVelocityLaw(kp=1.0), target),
        scene.bind("posture", JointVelocityLaw(kp=1.0), ARM_Q),
    ]
    model, data = robot.model, robot.model.createData()
    fid = model.getFrameId("lwr_ee")

    def wbcpy() -> None:
        robot.update(ARM_Q)
        for law in laws:
            law.update()
        scene.solve(scene.update())

    def floor() -> None:
        pin.computeJointJacobians(model, data, ARM_Q)
        pin.updateFramePlacements(model, data)
        pin.getFrameJacobian(model, data, fid, LWA)

    peers: dict[str, Callable[[], object]] = {}
    note = ""
    if with_pink:
        from ._bench_peers import pink_step

        peers, note = pink_step(robot, "lwr_ee", ARM_Q, target)
    return Case("VelocityScene step (laws, update, solve)", "lwr4, ee + posture", wbcpy, floor, peers, note)


def multiref_case() -> Case:
    """``MultiRefMinJerkCtrl.iterate(xd, qd)`` (lwr4) against the chain's raw FK + Jacobian."""
    from ..ik import CtrlPose, MultiRefMinJerkCtrl

    chain = load_robot("lwr4").chain("lwr_base_link", "lwr_ee")
    ctrl = MultiRefMinJerkCtrl(chain, CtrlPose.FULL, Ts=0.01, q0=ARM_Q)
    start = ctrl.get_pose()
    xd = pin.SE3(start.rotation, start.translation + np.array([-0.1, 0.15, -0.05]))
    qd = ARM_Q + 0.1
    robot = chain.robot
    model, data = robot.model, robot.model.createData()
    tid = model.getFrameId("lwr_ee")

    def floor() -> None:
        pin.computeJointJacobians(model, data, ARM_Q)
        pin.updateFramePlacement(model, data, tid)
        pin.getFrameJacobian(model, data, tid, LWA)

    return Case("MultiRefMinJerkCtrl.iterate(xd, qd)", "lwr4", lambda: ctrl.iterate(xd, qd), floor)


#: the wrench regulariser of the one-QP contact case: q̈ within ~3e-7 rad/s² of the exact scene's
CONTACT_WRENCH_REG = 1e-12


def contact_case(with_tsid: bool, wrench_regularization: float = 0.0) -> Case:
    """The InverseDynamicsScene step on Talos standing on both soles (COM + posture, μ = 0.3); with
    ``wrench_regularization`` ε > 0, its one-QP form (ε Σ‖w‖² instead of the least-norm wrench level)."""
    from ..contacts import SurfaceContact
    from ..controllers import ComPD, JointPD
    from ..scenes.inverse_dynamics_scene import InverseDynamicsScene

    robot = load_robot("talos")
    q0 = robot.reference_configuration("half_sitting")
    v0 = np.zeros(robot.nv)
    robot.update(q0, v0)
    scene = InverseDynamicsScene(robot, wrench_regularization=wrench_regularization)
    scene.set_contacts([SurfaceContact(f, half_size=(0.1, 0.065), mu=0.3) for f in SOLES])
    joints = robot.joint_names[1:]
    scene.configure(
        [
            {"name": "com", "type": "com"},
            {"name": "posture", "type": "jnt", "joint_names": joints, "weights": [1e-3] * len(joints)},
        ]
    )
    goal = robot.com() + np.array([0.0, 0.02, 0.0])
    laws = [
        scene.bind("com", ComPD(kp=100.0, kd=20.0), goal),
        scene.bind("posture", JointPD(kp=10.0, kd=6.3), q0[7:]),
    ]

    def wbcpy() -> None:
        robot.update(q0, v0)
        for law in laws:
            law.update()
        scene.solve(scene.update())

    floor = _floor_dynamics(robot, q0, v0, list(SOLES))
    peers: dict[str, Callable[[], object]] = {}
    note = ""
    if with_tsid:
        from ._bench_peers import placo_talos_step, tsid_talos_step

        peers, note = tsid_talos_step(robot, q0, goal)
        placo, placo_note = placo_talos_step(robot, q0, goal)
        peers.update(placo)
        note = "; ".join(n for n in (note, placo_note) if n)
    name = "InverseDynamicsScene step (PD laws, update, solve)"
    if wrench_regularization:
        name = f"InverseDynamicsScene one-QP step (wrench_regularization={wrench_regularization:g})"
    return Case(name, "Talos on two soles", wbcpy, floor, peers, note)


#: the kinematic walk case: footsteps, their length (m), the control step (s)
WALK_STEPS, WALK_LENGTH, WALK_DT = 3, 0.2, 0.005


def walk_case(with_placo: bool) -> Case:
    """The kinematic walk step on Talos: a WalkingPattern tracked by a VelocityScene against PlaCo's walk
    step (``benchmarks/bench_placo.py`` is the full script). One call is one step of the loop a user
    writes: ``robot.update(q)``, the pattern sampled at t (COM, planted and swinging soles), the targets set
    on bound velocity laws (COM, soles — a planted one's when the phase changes —, torso upright, posture),
    ``update``, ``solve``, q ⊕ q̇ dt; the walk (3 footsteps of 0.2 m, 0.8 s each, dt 5 ms) starts again
    when it ends. The floor is the raw Pinocchio
    kinematics of a state (joint Jacobians, the frames' placements, the COM Jacobian)."""
    from ..controllers import CartesianVelocityLaw, ComVelocityLaw, JointVelocityLaw
    from ..locomotion import WalkingPattern, plan_footsteps
    from ..scenes import VelocityScene

    robot = load_robot("talos")
    q0 = robot.reference_configuration("half_sitting")
    robot.update(q0)
    pattern = WalkingPattern(robot, plan_footsteps(robot, n_steps=WALK_STEPS, length=WALK_LENGTH))
    scene = VelocityScene(robot, dt=WALK_DT)
    joints = robot.joint_names[1:]
    upright_only = [0, 0, 0, 1, 1, 1]
    scene.configure([
        {"name": "com", "type": "com"},
        {"name": "left", "type": "cart", "tip": SOLES[0], "root": "universe"},
        {"name": "right", "type": "cart", "tip": SOLES[1], "root": "universe"},
        {"name": "torso", "type": "cart", "tip": "torso_2_link", "root": "universe", "weights": upright_only},
        {"name": "posture", "type": "jnt", "joint_names": joints, "weights": [1e-3] * len(joints)},
    ])  # fmt: skip
    com = scene.bind("com", ComVelocityLaw(kp=10.0), robot.com())
    feet = {side: scene.bind(side, CartesianVelocityLaw(kp=10.0), robot.frame_placement(frame))
            for side, frame in zip(("left", "right"), SOLES, strict=True)}  # fmt: skip
    upright = pin.SE3(np.eye(3), robot.frame_placement("torso_2_link").translation)
    others = [scene.bind("torso", CartesianVelocityLaw(kp=10.0), upright),
              scene.bind("posture", JointVelocityLaw(kp=1.0), q0[7:])]  # fmt: skip
    M, twist, acc, zero = np.eye(4), np.zeros(6), np.zeros(6), np.zeros(6)
    state: list[tuple[np.ndarray, float]] = [(q0.copy(), 0.0)]
    tracked: list[Any] = [None, []]  # the phase whose planted soles the bindings track, and their bindings

    def wbcpy() -> None:
        q, t = state[0]
        robot.update(q)
        pos, vel, _, _, _ = pattern.sample(t)
        com.set_target(pos, vel)
        swing = pattern.swing_into(t, M, twist, acc)
        phase = pattern.phase(t)
        if phase is not tracked[0]:  # (the planted soles change with the phase only: targets set once)
            planted = pattern.planted(t)
            for side, placement in planted.items():
                feet[side].set_target(placement, zero)
            tracked[:] = [phase, [feet[side] for side in planted]]
        else:
            for binding in tracked[1]:  # (the same targets: the laws at the new state)
                binding.update()
        if swing is not None:
            feet[swing].set_target(M, twist)  # (a 4×4 homogeneous matrix is a pose target)
        for law in others:
            law.update()
        scene.solve(scene.update())
        if t + WALK_DT > pattern.duration:  # the walk again from its first state
            state[0] = (q0.copy(), 0.0)
        else:
            state[0] = (pin.integrate(robot.model, q, scene.get_solver_output_raw() * WALK_DT), t + WALK_DT)

    model, data = robot.model, robot.model.createData()
    fids = [model.getFrameId(f) for f in (*SOLES, "torso_2_link")]

    def floor() -> None:
        pin.computeJointJacobians(model, data, q0)
        for fid in fids:
            pin.updateFramePlacement(model, data, fid)
        pin.jacobianCenterOfMass(model, data, q0)

    peers: dict[str, Callable[[], object]] = {}
    note = ""
    if with_placo:
        from ._bench_peers import placo_walk_step

        peers, note = placo_walk_step(robot, WALK_STEPS, WALK_LENGTH, WALK_DT)
    return Case("kinematic walk step (pattern, laws, update, solve)", "Talos, 3 steps of 0.2 m", wbcpy,
                floor, peers, note)  # fmt: skip


def all_cases() -> tuple[list[Case], list[str]]:
    """The cases of this installation, and a note per case that cannot run here (why)."""
    builders: list[tuple[str, Callable[[], Case]]] = [
        ("model", model_case),
        ("chain", chain_case),
        ("acceleration scene", lambda: acceleration_case(with_pink=True)),
        ("velocity scene", lambda: velocity_case(with_pink=True)),
        ("min-jerk IK", multiref_case),
    ]
    skipped: list[str] = []
    if example_robot_data_dir() is not None:
        builders.append(("contact scene", lambda: contact_case(with_tsid=True)))
        builders.append(("contact scene, one QP", lambda: contact_case(True, CONTACT_WRENCH_REG)))
        builders.append(("kinematic walk", lambda: walk_case(with_placo=True)))
    else:
        skipped.append(
            "contact scene (Talos): example-robot-data is not installed (pip install example-robot-data)"
        )
    cases = []
    for name, build in builders:
        try:
            cases.append(build())
        except Exception as exc:  # one case that cannot be built must not stop the others
            skipped.append(f"{name}: {type(exc).__name__}: {exc}")
    return cases, skipped
