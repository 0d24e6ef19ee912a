"""Benchmark: differential IK on the Panda, one control step as a user writes it — the pink side.

The wbcpy side (``VelocityScene``: reference from the state, ``set_reference``, ``update``, ``solve``,
``pin.integrate``) is added with the scene itself; this script already measures everything it will be
compared with, side by side in one process (interleaved blocks):

* ``floor``: the raw Pinocchio work of one step — ``computeJointJacobians`` + ``updateFramePlacements``
  + ``getFrameJacobian(panda_hand, LOCAL_WORLD_ALIGNED)``; ``floor + distances`` adds
  ``updateGeometryPlacements`` + ``computeDistances`` of the three self-collision pairs.
* ``pink``: ``FrameTask("panda_hand", position_cost=1, orientation_cost=1, gain=FRAME_GAIN)`` +
  ``PostureTask(cost=1e-3)``, ``ConfigurationLimit(config_limit_gain=0.5)`` + ``VelocityLimit``,
  backend daqp; per step ``set_target`` (the next point of a circle), ``solve_ik`` and
  ``integrate_inplace`` (which runs pink's forward kinematics for the next step).
* ``pink + 3 self-collision pairs``: the same with ``SelfCollisionBarrier(3, gain=DAMPER_GAIN/dt,
  d_min=0.01, safe_displacement_gain=0)`` on ``SELF_PAIRS`` (convex hulls of the Panda's collision
  meshes, as wbcpy uses): the row J q̇ ≥ −(γ/dt)(d − d_min), i.e. wbcpy's velocity damper with gain γ.

The equivalent wbcpy problem (for the scene's side): one level with ``cart`` (tip ``panda_hand``,
weights 1) and ``jnt`` over the 9 joints (weights 1e-6 = pink's cost² — wbcpy weights act linearly on
the squared residual, pink's costs on the residual), ``regularization=1e-12`` (pink's damping),
``dt = 0.01``, ``limit_gain = 0.5``, velocity reference K_p e with K_p = FRAME_GAIN / dt, collision
avoidance ``CollisionAvoidance(pairs=SELF_PAIRS, safety_distance=0.01, influence_distance=0.3,
gain=DAMPER_GAIN)`` (influence 0.3 m keeps all three rows active along the circle, as pink's barrier).

A second table times the wbcpy building blocks that exist already (``VelocityLimitBounds.compute`` and
``robot.update`` + ``CollisionConstraint.compute`` with the three pairs active, right-hand sides clipped to
the bounds) next to the same floors: the collision rows' overhead over raw Pinocchio + coal.

The last table counts pink's steps to converge (acceptance point 6): from ``PANDA_Q`` to the hand pose
of ``GOAL_Q``, position error < 1 mm and rotation error < 1 mrad (world axes), for several gains.

Run: ``python benchmarks/bench_velocity.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pinocchio as pin

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _timing import Row, measure_interleaved, print_table

from wbcpy import load_robot
from wbcpy.collision import CollisionAvoidance, CollisionConstraint, load_collision_geometry
from wbcpy.scenes.velocity_limits import VelocityLimitBounds

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


def wbcpy_components(robot) -> tuple[Callable[[], None], Callable[[], None]]:
    """(VelocityLimitBounds.compute, robot.update + CollisionConstraint.compute) at ``PANDA_Q``."""
    bounds = VelocityLimitBounds(robot, DT, limit_gain=LIMIT_GAIN)
    avoid = CollisionAvoidance(
        pairs=SELF_PAIRS, safety_distance=SAFETY, influence_distance=INFLUENCE, gain=DAMPER_GAIN
    )
    rows = CollisionConstraint(robot, avoid)
    q = PANDA_Q.copy()
    robot.update(q)
    if rows.compute(DT)[0].shape[0] != len(SELF_PAIRS):
        raise RuntimeError("the benchmark's pairs are expected within the influence distance at PANDA_Q")

    def limits() -> None:
        bounds.compute(q)

    def collisions() -> None:
        robot.update(q)
        lb, ub = bounds.compute(q)
        rows.compute(DT, lb, ub)

    return limits, collisions


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


def pink_steps_to_converge(
    robot, gain: float, pos_tol: float = 1e-3, rot_tol: float = 1e-3, max_steps: int = 5000
) -> tuple[int | None, float, float]:
    """Steps of pink's loop from ``PANDA_Q`` until the hand is within tolerance of ``GOAL_Q``'s hand pose.

    Returns:
        (steps or None when not converged within ``max_steps``, final position error m, rotation error rad).
    """
    pink, config, ee, tasks, limits, _ = _pink_setup(robot, collisions=False, gain=gain)
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, GOAL_Q)
    goal = pin.SE3(data.oMf[robot.model.getFrameId(HAND)])
    ee.set_target(goal)
    errors = pose_errors(config.get_transform_frame_to_world(HAND), goal)
    for step in range(1, max_steps + 1):
        v = pink.solve_ik(config, tasks, DT, solver="daqp", limits=limits)
        config.integrate_inplace(v, DT)
        errors = pose_errors(config.get_transform_frame_to_world(HAND), goal)
        if errors[0] < pos_tol and errors[1] < rot_tol:
            return step, *errors
    return None, *errors


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2000, help="samples per case (default 2000)")
    parser.add_argument("--gains", type=float, nargs="+", default=[0.1, 0.5, 1.0], help="frame task gains")
    args = parser.parse_args(argv)
    robot = load_robot("panda")
    try:
        import pink  # noqa: F401
    except ImportError:
        print("pin-pink is not installed (pip install '.[bench]'): nothing to compare", file=sys.stderr)
        return
    labels = ["floor", "floor + 3 distances", "pink", "pink + 3 self-collision pairs"]
    fns = [floor_step(robot, False), floor_step(robot, True), pink_step(robot, False), pink_step(robot, True)]
    floor, floor_d, pink_t, pink_c = measure_interleaved(fns, n_repeat=args.repeat)
    print_table(
        [
            Row(labels[0], floor),
            Row(labels[1], floor_d),
            Row(labels[2], pink_t, floor, "FrameTask + PostureTask, config + velocity limits, daqp"),
            Row(labels[3], pink_c, floor_d, "+ SelfCollisionBarrier on 3 convex-hull pairs"),
        ],
        title=f"Panda differential IK, dt = {DT} s, one step (set_target + solve_ik + integrate)",
    )
    print("wbcpy VelocityScene: added with the scene (ratios to pink are computed then).\n")
    limits_fn, collisions_fn = wbcpy_components(robot)
    floor, floor_d, lim_t, coll_t = measure_interleaved(
        [fns[0], fns[1], limits_fn, collisions_fn], n_repeat=args.repeat
    )
    print_table(
        [
            Row(labels[0], floor),
            Row(labels[1], floor_d),
            Row("VelocityLimitBounds.compute", lim_t, floor, "position (γ = 0.5) and velocity bounds"),
            Row("robot.update + bounds + CollisionConstraint.compute", coll_t, floor_d, "3 rows, clipped"),
        ],
        title="wbcpy building blocks (not yet the scene's step)",
    )
    print()
    print(f"pink steps to converge from PANDA_Q to GOAL_Q's hand pose (1 mm, 1 mrad), dt = {DT} s")
    print("gain  K_p = gain/dt (1/s)  steps  final position error (m)  final rotation error (rad)")
    for gain in args.gains:
        steps, ep, er = pink_steps_to_converge(robot, gain)
        shown = "—" if steps is None else str(steps)
        print(f"{gain:<5} {gain / DT:<20.1f} {shown:>5}  {ep:<24.3e} {er:.3e}")


if __name__ == "__main__":
    main()
