"""The acceptance table of ``specs/mujoco.md``: Talos's four walks on MuJoCo's soft contacts, judged by
raw Pinocchio from the record (tests/locomotion/_soft_acceptance.py) against the table's limits.

Two plants: an independent MuJoCo Talos built here (tests/locomotion/_mujoco_talos.py; the loop a user
writes, the plant's sole wrenches fed to the controller) and wbcpy's own ``MujocoPlant`` through
``walk(plant="mujoco")`` (its log judged by the same figures). Every walk: the table's progress (heading
for the turn), loaded soles' drift per stance and sliding speed, planned friction use in norm and f_z
change per control step, no fall, an answer at every step (none degraded), soles that never touch. With
MuJoCo's own default contact options (the independent model) the four walks do not fall.
Slow: run with WBCPY_SLOW=1.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco", reason="the MuJoCo plant needs mujoco (pip install 'wbcpy[mujoco]')")

from _mujoco_talos import MUJOCO_DEFAULTS, IndependentTalos  # noqa: E402
from _soft_acceptance import WALKS, Record, drive, failures, judge  # noqa: E402

from wbcpy.locomotion import WalkingController, WalkingPattern, plan_footsteps, walk  # noqa: E402
from wbcpy.locomotion.plants import SETTLE_TIME  # noqa: E402

SKIP_SLOW = pytest.mark.skipif(not os.environ.get("WBCPY_SLOW"), reason="full walks: set WBCPY_SLOW=1")
SOLES = ("left_sole_link", "right_sole_link")


def run_independent(example_robot, name: str, options: dict | None = None) -> dict[str, float]:
    """One walk of the table in the independent MuJoCo Talos (``options``: its contact options, None the
    library's); its figures (and ``degraded``)."""
    plan, push = WALKS[name]
    robot = example_robot("talos")
    q0 = robot.reference_configuration("half_sitting")
    robot.update(q0, np.zeros(robot.nv))
    pattern = WalkingPattern(robot, plan_footsteps(robot, **plan))
    ctrl = WalkingController(robot, pattern)
    plant = IndependentTalos(q0, options, dt=ctrl.dt)
    rec = drive(ctrl, robot, plant, pattern.duration, push, settle=SETTLE_TIME)
    figures = judge(rec, plant.pin_model, plan)
    figures["degraded"] = float(ctrl.fallback.count)
    figures["pushed"] = float(plant._force is not None)
    return figures


def run_library(example_robot, name: str) -> dict[str, float]:
    """One walk of the table through ``walk(plant="mujoco")``; the log judged as the independent one's."""
    plan, push = WALKS[name]
    example_robot("talos")
    summary = walk("talos", plant="mujoco", push=push, **plan)
    log = summary.log
    frames = [str(f) for f in log.contact_frames]
    order = [frames.index(f) for f in SOLES]
    rec = Record(
        t=list(log.t), q=list(log.q), v=list(log.v), measured=list(log.wrenches[:, order]),
        planned=list(log.planned_wrenches[:, order]), error=summary.error,
    )  # fmt: skip
    figures = judge(rec, summary.robot.model, plan)
    figures["degraded"] = float(summary.degraded)
    figures["pushed"] = float(summary.pushed)
    return figures


def _check(name: str, figures: dict[str, float]) -> None:
    out = failures(name, figures)
    if figures["degraded"]:
        out.append(f"degraded answers {figures['degraded']:.0f}")
    if figures["pushed"] != (WALKS[name][1] is not None):
        out.append("the push was not applied as planned")
    assert out == [], (out, figures)


@pytest.mark.slow
@SKIP_SLOW
@pytest.mark.parametrize("name", list(WALKS))
def test_the_table_in_an_independent_mujoco_talos(example_robot, name):
    figures = run_independent(example_robot, name)
    print(name, figures)
    _check(name, figures)


@pytest.mark.slow
@SKIP_SLOW
@pytest.mark.parametrize("name", list(WALKS))
def test_the_table_in_wbcpys_mujoco_plant(example_robot, name):
    figures = run_library(example_robot, name)
    print(name, figures)
    _check(name, figures)


@pytest.mark.slow
@SKIP_SLOW
@pytest.mark.parametrize("name", list(WALKS))
def test_no_fall_on_mujocos_default_contacts(example_robot, name):
    figures = run_independent(example_robot, name, MUJOCO_DEFAULTS)
    print(name, figures)
    assert not figures["fell"] and figures["answered"] and not figures["soles_touched"], figures
