"""Benchmark: jspace.Model hot path against the raw Pinocchio calls that compute the same.

One iteration sets a new state and reads M, M⁻¹, g, b and one Jacobian (a wrist/end-effector node, world
axes at its origin):

* ``jspace``: ``model.update(state)`` then ``getMassInertia``, ``getInverseMassInertia``, ``getGravity``,
  ``getCoriolisCentrifugal``, ``computeJacobian(node)`` (per-DOF state; Talos converts its base
  rotation vector to a quaternion on every update).
* ``RobotModel``: ``robot.update(q, v)`` then the same five getters of :class:`wbcpy.RobotModel`.
* floor ``CAT`` (the reference of the ratios): ``computeAllTerms + computeMinverse + getFrameJacobian``
  and the reads a user of raw Pinocchio needs to hold the same five results: ``M = data.M.copy()``
  (layout kept), ``Minv`` (``computeMinverse`` already returns a new array), ``g = data.g.copy()``,
  ``b = data.nle − data.g`` (computeAllTerms gives nle = b + g). This is the sequence wbcpy itself
  runs: one computeAllTerms pass also leaves joint Jacobians, q̈ = 0 accelerations (for J̇q̇) and the
  COM ready.
* ``CAT bare``: the same three calls reading views into ``pin.Data`` without copying (results are
  overwritten by the next state; shown for transparency).
* ``split``: ``crba + nonLinearEffects + computeGeneralizedGravity + computeMinverse +
  computeFrameJacobian`` with the same copies: the cheapest raw sequence found for these five results
  (it leaves no J̇q̇-ready kinematics and no COM). The last row of each robot gives jspace's ratio to it.

Every case cycles through the same 64 random states; cases are measured interleaved in the same run.
Run: ``python benchmarks/bench_model.py [--repeat N] [--robots puma560 panda talos]``.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pinocchio as pin

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _timing import Row, measure_interleaved, print_cpu, print_table

from wbcpy import jspace
from wbcpy.errors import UnknownNameError

LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
#: robot -> joint whose node Jacobian is read
NODE_JOINT = {"puma560": "wrist-roll2", "panda": "panda_joint7", "talos": "arm_left_7_joint"}


def _states(model: jspace.Model, n: int, rng: np.random.Generator) -> list[jspace.State]:
    robot = model.robot
    lower, upper = model.get_joint_limits()
    lo = np.where(np.isfinite(lower), lower, -np.pi)
    hi = np.where(np.isfinite(upper), upper, np.pi)
    states = []
    for _ in range(n):
        pos = rng.uniform(lo, hi)
        if robot.floating_base:
            pos[:3] = rng.uniform(-1.0, 1.0, 3)
            pos[3:6] = rng.uniform(-1.0, 1.0, 3)
        states.append(jspace.State(pos, rng.uniform(-1.0, 1.0, robot.nv)))
    return states


def bench_robot(name: str, n_repeat: int) -> list[Row]:
    """Rows (floors first) for one robot."""
    try:
        model = jspace.Model.load(name)
    except UnknownNameError as exc:
        print(f"skipping {name}: {exc}", file=sys.stderr)
        return []
    robot = model.robot
    node = model.get_node_by_joint_name(NODE_JOINT[name]).id
    states = _states(model, 64, np.random.default_rng(0))
    qv = [(robot.q_from_dof(s.position), s.velocity.copy()) for s in states]
    m, d = robot.model, robot.model.createData()
    fid = model.get_node(node).frame_id

    next_state = itertools.cycle(states).__next__
    next_qv = itertools.cycle(qv).__next__
    next_qv_rm = itertools.cycle(qv).__next__
    next_qv_bare = itertools.cycle(qv).__next__
    next_qv_split = itertools.cycle(qv).__next__

    def case_jspace() -> None:
        model.update(next_state())
        model.getMassInertia()
        model.getInverseMassInertia()
        model.getGravity()
        model.getCoriolisCentrifugal()
        model.computeJacobian(node)

    def case_robot() -> None:
        q, v = next_qv_rm()
        robot.update(q, v)
        robot.mass_matrix()
        robot.inverse_mass_matrix()
        robot.gravity()
        robot.coriolis_centrifugal()
        robot.frame_jacobian(fid)

    def floor_cat() -> None:
        q, v = next_qv()
        pin.computeAllTerms(m, d, q, v)
        d.M.copy(order="K")
        pin.computeMinverse(m, d, q)
        d.g.copy()
        d.nle - d.g
        pin.getFrameJacobian(m, d, fid, LWA)

    def floor_bare() -> None:
        q, v = next_qv_bare()
        pin.computeAllTerms(m, d, q, v)
        pin.computeMinverse(m, d, q)
        pin.getFrameJacobian(m, d, fid, LWA)
        d.M, d.Minv, d.g, d.nle  # noqa: B018

    def floor_split() -> None:
        q, v = next_qv_split()
        pin.crba(m, d, q).copy(order="K")
        nle = pin.nonLinearEffects(m, d, q, v)
        g = pin.computeGeneralizedGravity(m, d, q)
        nle - g
        g.copy()
        pin.computeMinverse(m, d, q)
        pin.computeFrameJacobian(m, d, q, fid, LWA)

    cases: list[tuple[str, Callable[[], None]]] = [
        ("floor CAT", floor_cat),
        ("CAT bare (views)", floor_bare),
        ("split (crba+nle+g+Minv+J)", floor_split),
        ("RobotModel", case_robot),
        ("jspace.Model", case_jspace),
    ]
    timings = measure_interleaved([fn for _, fn in cases], n_repeat=n_repeat, warmup=300)
    floor = timings[0]
    info = f"nq={robot.nq} nv={robot.nv}"
    rows = [Row(f"{name}: floor CAT", floor, None, info)]
    for (label, _), timing in zip(cases[1:], timings[1:], strict=True):
        rows.append(Row(f"{name}: {label}", timing, floor))
    split = timings[2]
    rows.append(Row(f"{name}: jspace.Model", timings[-1], split, "ratio to split (cheapest raw)"))
    return rows


def main(argv: list[str] | None = None) -> int:
    print_cpu()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5000, help="samples per case (default 5000)")
    parser.add_argument("--robots", nargs="+", default=list(NODE_JOINT), choices=list(NODE_JOINT))
    args = parser.parse_args(argv)
    rows: list[Row] = []
    for name in args.robots:
        rows.extend(bench_robot(name, args.repeat))
    print_table(
        rows,
        title="update(state) + M, M⁻¹, g, b, one Jacobian — per call; ratio = median / floor CAT median",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
