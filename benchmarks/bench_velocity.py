"""Benchmark: differential IK on the Panda, one control step as a user writes it — wbcpy next to pink.

Everything is measured side by side in one process (interleaved blocks), ``--runs`` times:

* ``floor``: the raw Pinocchio work of one step — ``computeJointJacobians`` + ``updateFramePlacements``
  + ``getFrameJacobian(panda_hand, LOCAL_WORLD_ALIGNED)``; ``floor + 3 distances`` adds
  ``updateGeometryPlacements`` + ``computeDistances`` of the three self-collision pairs.
* ``pink``: ``FrameTask("panda_hand", position_cost=1, orientation_cost=1, gain=FRAME_GAIN)`` +
  ``PostureTask(cost=1e-3)``, ``ConfigurationLimit(config_limit_gain=0.5)`` + ``VelocityLimit``,
  backend daqp; per step ``set_target`` (the next point of a circle), ``solve_ik`` and
  ``integrate_inplace`` (which runs pink's forward kinematics for the next step).
* ``wbcpy``: the same problem as a :class:`~wbcpy.VelocityScene` (daqp): one level with ``cart`` (tip
  ``panda_hand``, weights 1) and ``jnt`` over the 9 joints (weights 1e-6 = pink's cost², wbcpy weights
  act linearly on the squared residual, pink's costs on the residual), ``regularization=1e-12`` (pink's
  damping), ``dt = 0.01``, ``limit_gain = 0.5``, position and velocity limits. The step a user writes:
  ``robot.update(q)``, ``CartesianVelocityLaw(kp=FRAME_GAIN/dt)`` and ``JointVelocityLaw(kp=1/dt)``
  (pink's posture gain 1) bound to their tasks (``scene.bind``, the hot-loop API; the moving target
  through ``binding.set_target``, validated), ``update``, ``solve``, ``q = pin.integrate(model, q, q̇ dt)``.
  ``--checked``: the laws' ``reference(task, target)`` → ``scene.set_reference`` instead.
* ``... + 3 self-collision pairs``: pink's ``SelfCollisionBarrier(3, gain=DAMPER_GAIN/dt, d_min=0.01,
  safe_displacement_gain=0)`` on ``SELF_PAIRS`` (convex hulls of the Panda's collision meshes) — the row
  J q̇ ≥ −(γ/dt)(d − d_min) — and wbcpy's ``CollisionAvoidance(pairs=SELF_PAIRS, safety_distance=0.01,
  influence_distance=0.3, gain=DAMPER_GAIN)`` (0.3 m keeps the three rows active along the circle, as
  pink's barrier).

The ratios ``wbcpy / pink`` are taken per run (medians and p95 of the same interleaved run) and their
median over the runs is the figure that counts (target ≤ 0.35). A second table splits the wbcpy step
into its parts (and times daqp alone on the same QP: the floor of the solve). The last table counts the
steps to converge (acceptance point 6) of both: from ``PANDA_Q`` to the hand pose of ``GOAL_Q``,
position error < 1 mm and rotation error < 1 mrad (world axes), for several gains.

Run: ``python benchmarks/bench_velocity.py [--repeat N] [--runs R] [--gains G ...]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pinocchio as pin

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _timing import Row, Timing, measure_interleaved, print_cpu, print_table

from wbcpy import VelocityScene, load_robot
from wbcpy.collision import CollisionAvoidance, load_collision_geometry
from wbcpy.controllers import CartesianVelocityLaw, JointVelocityLaw
from wbcpy.tasks import TaskConfig

LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
DT = 0.01
HAND = "panda_hand"
PANDA_Q = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785, 0.02, 0.02])
GOAL_Q = PANDA_Q + np.array([0.3, -0.2, 0.2, 0.3, -0.2, 0.3, 0.2, 0.0, 0.0])
POSTURE_COST = 1e-3
FRAME_GAIN = 0.5
LIMIT_GAIN = 0.5
DAMPER_GAIN = 0.5
SAFETY = 0.01
INFLUENCE = 0.3
#: three geometry pairs that stay within 0.3 m along the circle (0.13, 0.15, 0.28 m at PANDA_Q)
SELF_PAIRS = [
    ("panda_link5_0", "panda_rightfinger_1"),
    ("panda_link2_0", "panda_link5_0"),
    ("panda_link1_0", "panda_leftfinger_3"),
]
CIRCLE_RADIUS = 0.1
CIRCLE_STEPS = 200  # one turn in 2 s at dt = 0.01


CHECKED = False  # --checked: references through set_reference (the checked API) instead of bindings


def circle_targets(start: pin.SE3, n: int = CIRCLE_STEPS, radius: float = CIRCLE_RADIUS) -> list[pin.SE3]:
    """Hand targets on a circle of ``radius`` in the world y-z plane through ``start`` (orientation kept)."""
    out = []
    for k in range(n):
        phi = 2.0 * np.pi * k / n
        offset = radius * np.array([0.0, np.sin(phi), np.cos(phi) - 1.0])
        out.append(pin.SE3(start.rotation, start.translation + offset))
    return out


def collision_model(robot) -> pin.GeometryModel:
    """The Panda's convex-hull collision geometry with exactly the pairs of ``SELF_PAIRS``."""
    geom = load_collision_geometry(robot, convex_hull=True)
    for a, b in SELF_PAIRS:
        geom.addCollisionPair(pin.CollisionPair(geom.getGeometryId(a), geom.getGeometryId(b)))
    return geom


def floor_step(robot, distances: bool) -> Callable[[], None]:
    """Raw Pinocchio work of one step at ``PANDA_Q`` (and the three distances)."""
    model, data = robot.model, robot.model.createData()
    fid = model.getFrameId(HAND)
    geom = collision_model(robot) if distances else None
    gdata = pin.GeometryData(geom) if geom is not None else None
    q = PANDA_Q.copy()

    def step() -> None:
        pin.computeJointJacobians(model, data, q)
        pin.updateFramePlacements(model, data)
        pin.getFrameJacobian(model, data, fid, LWA)
        if geom is not None:
            pin.updateGeometryPlacements(model, data, geom, gdata)
            pin.computeDistances(geom, gdata)

    return step


# ---------------------------------------------------------------------------------------------------- wbcpy
class WbcpyLoop:
    """The VelocityScene of the benchmark and the step a user writes (see the module docstring)."""

    def __init__(self, robot, collisions: bool, gain: float = FRAME_GAIN) -> None:
        self.robot = robot
        scene = VelocityScene(robot, solver="daqp", dt=DT, regularization=1e-12, limit_gain=LIMIT_GAIN)
        scene.configure(
            [
                TaskConfig(name="ee", type="cart", tip=HAND),
                TaskConfig(
                    name="post", type="jnt", joint_names=robot.joint_names, weights=[POSTURE_COST**2] * 9
                ),
            ]
        )
        if collisions:
            avoid = CollisionAvoidance(
                pairs=SELF_PAIRS, safety_distance=SAFETY, influence_distance=INFLUENCE, gain=DAMPER_GAIN
            )
            scene.set_collision_avoidance(avoid)
        self.scene = scene
        self.ee, self.post = scene.get_task("ee"), scene.get_task("post")
        self.law = CartesianVelocityLaw(kp=gain / DT)
        self.posture_law = JointVelocityLaw(kp=1.0 / DT)  # pink's PostureTask gain 1
        self.q = PANDA_Q.copy()
        robot.update(self.q)
        self.targets = circle_targets(self.ee.pose())  # (the Panda's base frame is the world frame)
        self.k = 0
        # the hot-loop API (scene.bind): laws bound to their tasks; the moving target set (validated) per step
        self.ee_binding = scene.bind("ee", self.law, self.targets[0])
        self.post_binding = scene.bind("post", self.posture_law, PANDA_Q)

    def references(self, target: pin.SE3) -> None:
        """The tasks' references at the robot's current state: bindings, or the checked API (--checked)."""
        if CHECKED:
            self.scene.set_reference("ee", self.law.reference(self.ee, target))
            self.scene.set_reference("post", self.posture_law.reference(self.post, PANDA_Q))
        else:
            self.ee_binding.set_target(target)  # validates the target, then evaluates the law
            self.post_binding.update()

    def step(self, target: pin.SE3 | None = None) -> None:
        """One control step: references from the state, set_reference, update, solve, integrate."""
        robot, scene = self.robot, self.scene
        if target is None:
            target = self.targets[self.k % CIRCLE_STEPS]
            self.k += 1
        robot.update(self.q)
        self.references(target)
        qdot = scene.solve(scene.update()).velocity
        self.q = pin.integrate(robot.model, self.q, qdot * DT)

    def parts(self, n: int) -> dict[str, Timing]:
        """Median and p95 (µs) of each part of the step over ``n`` steps (one timer per part)."""
        robot, scene, clock = self.robot, self.scene, time.perf_counter
        names = [
            "robot.update",
            "references (laws, set_reference)",
            "scene.update",
            "scene.solve",
            "integrate",
        ]
        samples = np.empty((n, len(names)))
        for i in range(n):
            target = self.targets[i % CIRCLE_STEPS]
            t0 = clock()
            robot.update(self.q)
            t1 = clock()
            self.references(target)
            t2 = clock()
            hqp = scene.update()
            t3 = clock()
            qdot = scene.solve(hqp).velocity
            t4 = clock()
            self.q = pin.integrate(robot.model, self.q, qdot * DT)
            t5 = clock()
            samples[i] = (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4)
        us = samples * 1e6
        return {
            k: Timing(float(np.median(us[:, j])), float(np.percentile(us[:, j], 95)), n)
            for j, k in enumerate(names)
        }

    def raw_daqp(self) -> Callable[[], None]:
        """daqp alone on the QP of the scene's current problem (the floor of ``scene.solve``)."""
        import daqp

        hqp = self.scene.update()
        level = hqp.levels[0]
        H = level.A.T @ level.A + np.diag(level.regularization)
        g = -level.A.T @ level.y
        n = H.shape[0]
        C = np.zeros((0, n)) if level.C is None else level.C
        lower = np.concatenate([hqp.lb, np.zeros(0) if level.C is None else level.lbC])
        upper = np.concatenate([hqp.ub, np.zeros(0) if level.C is None else level.ubC])
        sense = np.zeros(lower.shape[0], dtype=np.intc)

        def solve() -> None:
            daqp.solve(H, g, C, upper, lower, sense)

        return solve


def wbcpy_steps_to_converge(
    robot, gain: float, pos_tol: float = 1e-3, rot_tol: float = 1e-3, max_steps: int = 5000
):
    """Steps of the wbcpy loop from ``PANDA_Q`` until the hand is within tolerance of ``GOAL_Q``'s hand pose.

    Returns:
        (steps or None when not converged within ``max_steps``, final position error m, rotation error rad).
    """
    loop = WbcpyLoop(robot, collisions=False, gain=gain)
    goal = _goal(robot)
    errors = pose_errors(loop.ee.pose(), goal)
    for step in range(1, max_steps + 1):
        loop.step(goal)
        robot.update(loop.q)
        errors = pose_errors(loop.ee.pose(), goal)
        if errors[0] < pos_tol and errors[1] < rot_tol:
            return step, *errors
    return None, *errors


# ---------------------------------------------------------------------------------------------------- pink
def _pink_setup(robot, collisions: bool, gain: float = FRAME_GAIN):
    import pink
    from pink.barriers import SelfCollisionBarrier
    from pink.limits import ConfigurationLimit, VelocityLimit
    from pink.tasks import FrameTask, PostureTask

    model = robot.model
    geom = collision_model(robot) if collisions else None
    config = pink.Configuration(model, model.createData(), PANDA_Q.copy(), collision_model=geom)
    ee = FrameTask(HAND, position_cost=1.0, orientation_cost=1.0, gain=gain)
    posture = PostureTask(cost=POSTURE_COST)
    posture.set_target(PANDA_Q.copy())
    limits = [ConfigurationLimit(model, config_limit_gain=LIMIT_GAIN), VelocityLimit(model)]
    barriers = None
    if collisions:
        barriers = [
            SelfCollisionBarrier(
                len(SELF_PAIRS), gain=DAMPER_GAIN / DT, d_min=SAFETY, safe_displacement_gain=0.0
            )
        ]
    return pink, config, ee, [ee, posture], limits, barriers


def pink_step(robot, collisions: bool) -> Callable[[], None]:
    """One pink control step along the circle: set_target, solve_ik (daqp), integrate_inplace."""
    pink, config, ee, tasks, limits, barriers = _pink_setup(robot, collisions)
    targets = circle_targets(config.get_transform_frame_to_world(HAND))
    counter = [0]

    def step() -> None:
        ee.set_target(targets[counter[0] % CIRCLE_STEPS])
        counter[0] += 1
        v = pink.solve_ik(config, tasks, DT, solver="daqp", limits=limits, barriers=barriers)
        config.integrate_inplace(v, DT)

    return step


def pose_errors(current: pin.SE3, target: pin.SE3) -> tuple[float, float]:
    """(‖p_d − p‖ in m, ‖log₃(R_d Rᵀ)‖ in rad), world axes."""
    return (
        float(np.linalg.norm(target.translation - current.translation)),
        float(np.linalg.norm(pin.log3(target.rotation @ current.rotation.T))),
    )


def _goal(robot) -> pin.SE3:
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, GOAL_Q)
    return pin.SE3(data.oMf[robot.model.getFrameId(HAND)])


def pink_steps_to_converge(
    robot, gain: float, pos_tol: float = 1e-3, rot_tol: float = 1e-3, max_steps: int = 5000
) -> tuple[int | None, float, float]:
    """Steps of pink's loop from ``PANDA_Q`` until the hand is within tolerance of ``GOAL_Q``'s hand pose.

    Returns:
        (steps or None when not converged within ``max_steps``, final position error m, rotation error rad).
    """
    pink, config, ee, tasks, limits, _ = _pink_setup(robot, collisions=False, gain=gain)
    goal = _goal(robot)
    ee.set_target(goal)
    errors = pose_errors(config.get_transform_frame_to_world(HAND), goal)
    for step in range(1, max_steps + 1):
        v = pink.solve_ik(config, tasks, DT, solver="daqp", limits=limits)
        config.integrate_inplace(v, DT)
        errors = pose_errors(config.get_transform_frame_to_world(HAND), goal)
        if errors[0] < pos_tol and errors[1] < rot_tol:
            return step, *errors
    return None, *errors


# ---------------------------------------------------------------------------------------------------- main
def _side_by_side(robot, repeat: int, runs: int) -> None:
    fns = [
        floor_step(robot, False),
        floor_step(robot, True),
        pink_step(robot, False),
        WbcpyLoop(robot.copy(), collisions=False).step,
        pink_step(robot, True),
        WbcpyLoop(robot.copy(), collisions=True).step,
    ]
    ratios = []
    for run in range(runs):
        floor, floor_d, pink_t, wbcpy_t, pink_c, wbcpy_c = measure_interleaved(fns, n_repeat=repeat)
        title = f"run {run + 1}/{runs}: Panda differential IK, dt = {DT} s, one step"
        print_table(
            [
                Row("floor", floor),
                Row("pink", pink_t, floor, "FrameTask + PostureTask, config + velocity limits, daqp"),
                Row("wbcpy VelocityScene", wbcpy_t, pink_t, "ratio to pink (same run)"),
                Row("floor + 3 distances", floor_d),
                Row("pink + 3 self-collision pairs", pink_c, floor_d, "+ SelfCollisionBarrier"),
                Row("wbcpy + 3 self-collision pairs", wbcpy_c, pink_c, "ratio to pink + 3 pairs (same run)"),
            ],
            title=title,
        )
        print()
        ratios.append(
            (
                wbcpy_t.median_us / pink_t.median_us,
                wbcpy_t.p95_us / pink_t.p95_us,
                wbcpy_c.median_us / pink_c.median_us,
                wbcpy_c.p95_us / pink_c.p95_us,
            )
        )
    r = np.array(ratios)
    print(f"wbcpy / pink over {runs} runs (median of the per-run ratios; target ≤ 0.35):")
    print(f"  one step:             median {np.median(r[:, 0]):.2f}×, p95 {np.median(r[:, 1]):.2f}×"
          f"  (runs: {', '.join(f'{x:.2f}' for x in r[:, 0])})")  # fmt: skip
    print(f"  + 3 collision pairs:  median {np.median(r[:, 2]):.2f}×, p95 {np.median(r[:, 3]):.2f}×"
          f"  (runs: {', '.join(f'{x:.2f}' for x in r[:, 2])})")  # fmt: skip
    print()


def _parts(robot, repeat: int) -> None:
    loop = WbcpyLoop(robot.copy(), collisions=False)
    for _ in range(200):
        loop.step()
    parts = loop.parts(repeat)
    (daqp_t,) = measure_interleaved([loop.raw_daqp()], n_repeat=repeat)
    total = sum(t.median_us for t in parts.values())
    rows = [
        Row(k, t, None, f"{100 * t.median_us / total:.0f} % of the sum of medians") for k, t in parts.items()
    ]
    rows.append(
        Row(
            "daqp alone on the same QP",
            daqp_t,
            parts["scene.solve"],
            "the solve's floor (ratio: to the solve)",
        )
    )
    print_table(rows, title="where the wbcpy step goes (each part timed in the loop; no collision pairs)")
    print()


def main(argv: list[str] | None = None) -> None:
    print_cpu()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2000, help="samples per case and run (default 2000)")
    parser.add_argument("--runs", type=int, default=3, help="interleaved runs (default 3)")
    parser.add_argument("--gains", type=float, nargs="+", default=[0.1, 0.5, 1.0], help="frame task gains")
    parser.add_argument("--checked", action="store_true", help="references through set_reference")
    args = parser.parse_args(argv)
    global CHECKED
    CHECKED = args.checked
    robot = load_robot("panda", mimic=False)  # (pink's Panda: independent fingers)
    try:
        import pink  # noqa: F401
    except ImportError:
        print("pin-pink is not installed (pip install '.[bench]'): nothing to compare", file=sys.stderr)
        return
    _side_by_side(robot, args.repeat, args.runs)
    _parts(robot, args.repeat)
    print(f"steps to converge from PANDA_Q to GOAL_Q's hand pose (1 mm, 1 mrad), dt = {DT} s, same gain")
    print("gain  K_p = gain/dt (1/s)  pink  wbcpy  final errors pink (m, rad)  final errors wbcpy (m, rad)")
    for gain in args.gains:
        n_p, ep_p, er_p = pink_steps_to_converge(robot, gain)
        n_w, ep_w, er_w = wbcpy_steps_to_converge(robot.copy(), gain)
        shown = ["—" if n is None else str(n) for n in (n_p, n_w)]
        print(f"{gain:<5} {gain / DT:<20.1f} {shown[0]:>4}  {shown[1]:>5}  {ep_p:.2e}, {er_p:.2e}"
              f"         {ep_w:.2e}, {er_w:.2e}")  # fmt: skip


if __name__ == "__main__":
    main()
