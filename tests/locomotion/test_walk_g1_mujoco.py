"""Unitree G1 walks in the MuJoCo plant: the issue table's G1 walks (forward, turning, sideways, and
pushed: 10 N·s as 100 N on the base for 0.1 s at t = 3 s, not told to the controller) through
``walk("g1", plant="mujoco")``, each log judged by raw Pinocchio with the figures and limits of
``specs/mujoco.md``'s table (tests/locomotion/_soft_acceptance.py) for G1's soles and heights.
Slow: run with WBCPY_SLOW=1.
"""

from __future__ import annotations

import math
import os

import pytest

pytest.importorskip("mujoco", reason="the MuJoCo plant needs mujoco (pip install 'wbcpy[mujoco]')")

from _soft_acceptance import Body, Record, failures, judge

from wbcpy.locomotion import walk

SKIP_SLOW = pytest.mark.skipif(not os.environ.get("WBCPY_SLOW"), reason="full walks: set WBCPY_SLOW=1")

#: G1's rows of the humanoid table: name -> (plan_footsteps arguments, push (force N, start s, duration s))
WALKS = {
    "forward": ({"n_steps": 8, "length": 0.15}, None),
    "turning": ({"n_steps": 8, "length": 0.075, "turn": math.pi / 2}, None),
    "sideways": ({"n_steps": 6, "length": 0.0, "lateral": 0.05}, None),
    "pushed": ({"n_steps": 8, "length": 0.15}, (100.0, 3.0, 0.1)),
}


def _figures(example_robot, plan: dict, push=None) -> tuple[dict[str, float], object]:
    example_robot("g1")
    summary = walk("g1", plant="mujoco", push=push, **plan)
    log = summary.log
    rec = Record(
        t=list(log.t), q=list(log.q), v=list(log.v), measured=list(log.wrenches),
        planned=list(log.planned_wrenches), error=summary.error,
    )  # fmt: skip
    soles = (str(log.contact_frames[0]), str(log.contact_frames[1]))
    assert soles[0].startswith("left") and soles[1].startswith("right")
    # G1's pelvis stands 0.75 m over its soles and its knees 0.3 m: a fall drops them below these
    body = Body(soles, (float(log.half_size[0]), float(log.half_size[1])), float(log.mu), 0.5, 0.1)
    figures = judge(rec, summary.robot.model, plan, body=body)
    figures["degraded"] = float(summary.degraded)
    return figures, summary


@pytest.mark.slow
@SKIP_SLOW
@pytest.mark.parametrize("name", list(WALKS))
def test_g1_walks_the_table_in_mujoco(example_robot, name):
    plan, push = WALKS[name]
    figures, summary = _figures(example_robot, plan, push)
    print(name, figures)
    out = failures(name, figures)
    if figures["degraded"]:
        out.append(f"degraded answers {figures['degraded']:.0f}")
    if summary.pushed != (push is not None):
        out.append("the push was not applied as planned")
    assert out == [], (out, figures)
    assert summary.ok, summary.text()


def test_g1_takes_three_steps_in_mujoco(example_robot):
    """The short walk CI runs: three steps of 0.15 m judged as the table's forward walk."""
    figures, summary = _figures(example_robot, {"n_steps": 3, "length": 0.15})
    out = failures("forward", figures)
    assert out == [] and not figures["degraded"], (out, figures)
    assert summary.ok, summary.text()
