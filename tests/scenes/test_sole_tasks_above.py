"""Tasks on the soles' wrenches alone, in a level above the rest: answered at the lexicographic optimum.

Two ``cop`` tasks (or two wrench tasks on τx, τy) at priority 0 over Talos's two soles, the COM at 1 and a
posture at 2. Level 0 only weighs the soles' torques and the λ = 1e-8 regulariser: it is semidefinite
(internal forces, tangential forces are free) and its curvatures span from 1 down to 1e-13 over exact
null directions; level 1 (the COM rows, entries ~1e-2) has curvatures ≤ 2e-4. Every backend's answer once
failed its certificate and the fallbacks gave up: at level 0 the certificate judged a degenerate vertex's
multipliers of 1e-13 — rounding — as wrong-signed on the strict scale, where its stationarity had been
accepted within the rounding allowance; at level 1 the proximal iterations' weight δ = 1e-6·(1 + max
H_ii), absolute for a level whose curvatures are all far below 1, swamped its λ directions.

Judged against the independent sequential reference of ``tests/_hierarchy_reference.py`` on the scene's
own hierarchy, and against the hand-computed CoP. The reference's answer is a feasible point of the
hierarchy, so the optimum is lexicographically no worse: level by level, the answer's cost may exceed the
reference's by at most 1e-6·(1 + cost), and a level where it is lower (beyond the 1e-12 the costs are
evaluated to) decides in its favour. Equal costs level by level are not a fair demand: the last levels
trade against each other (a level-2 cost 2e-7 below the reference's moves level 3's by 3e-3).
"""

from __future__ import annotations

import numpy as np
import pytest
from _contact_oracle import TALOS_SOLE, talos_half_sitting
from _hierarchy_reference import level_costs, reference, violation
from _id_helpers import SOLES, actuated_joints

from wbcpy.contacts import SurfaceContact
from wbcpy.qp import QPSolver
from wbcpy.scenes import InverseDynamicsScene
from wbcpy.tasks import ComReference, CopReference, JointReference, WrenchReference

TARGETS = {SOLES[0]: np.array([0.03, -0.01]), SOLES[1]: np.array([0.02, 0.01])}


def _scene(robot, kind: str) -> InverseDynamicsScene:
    scene = InverseDynamicsScene(robot)
    scene.set_contacts([SurfaceContact(f, half_size=TALOS_SOLE, mu=0.3) for f in SOLES])
    joints = actuated_joints(robot)
    if kind == "cop":
        soles = [{"name": f, "type": "cop", "contact": f} for f in SOLES]
    else:  # (the wrench's torque rows only: weights on τx, τy)
        soles = [{"name": f, "type": "wrench", "frame": f, "weights": [0, 0, 0, 1, 1, 0]} for f in SOLES]
    scene.configure([
        *soles,
        {"name": "com", "type": "com", "priority": 1},
        {"name": "posture", "type": "jnt", "joint_names": joints, "priority": 2},
    ])  # fmt: skip
    for f in SOLES:
        if kind == "cop":
            scene.set_reference(f, CopReference(TARGETS[f]))
        else:
            scene.set_reference(f, WrenchReference(np.array([0.0, 0.0, 0.0, 5.0, -3.0, 0.0])))
    scene.set_reference("com", ComReference(np.zeros(3)))
    scene.set_reference("posture", JointReference(np.zeros(len(joints))))
    return scene


@pytest.fixture(scope="module")
def talos():
    robot, q = talos_half_sitting()
    robot.update(q, np.zeros(robot.nv))
    return robot


@pytest.mark.parametrize("kind", ["cop", "wrench"])
def test_the_scene_answers_at_the_reference_optimum(talos, kind: str) -> None:
    scene = _scene(talos, kind)
    hqp = scene.update()
    ref = reference(hqp.copy())
    assert ref.feasible and ref.costs is not None
    scene.solve(hqp)
    wrenches = scene.get_contact_wrenches()
    for f in SOLES:
        w = wrenches[f]
        if kind == "cop":
            np.testing.assert_allclose([-w[4] / w[2], w[3] / w[2]], TARGETS[f], atol=1e-9)
        else:
            np.testing.assert_allclose(w[3:5], [5.0, -3.0], atol=1e-7)
    for backend in (None, "daqp", "quadprog", "clarabel"):
        x = QPSolver(backend).solve_hierarchy(hqp.copy())
        assert violation(hqp, x) <= 1e-9
        _no_worse(level_costs(hqp, x), ref.costs, backend)


def _no_worse(costs: np.ndarray, ref: np.ndarray, who: str | None) -> None:
    """Lexicographically no worse than the reference (see the module docstring)."""
    for p, (c, r) in enumerate(zip(costs, ref, strict=True)):
        if c < r - 1e-12 * (1.0 + abs(r)):
            return
        assert c <= r + 1e-6 * (1.0 + abs(r)), (who, p, costs, ref)
