"""walk(): Talos walks in the rigid-contact plant; the spec's acceptance checks are computed from the log
file alone by raw Pinocchio (tests/locomotion/_walk_acceptance.py). Short walks here; the spec's four full
walks in the slow-marked tests (WBCPY_SLOW=1)."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
from _walk_acceptance import accept

from wbcpy.errors import ConfigError
from wbcpy.locomotion import plan_footsteps, walk

SKIP_SLOW = pytest.mark.skipif(not os.environ.get("WBCPY_SLOW"), reason="full walks: set WBCPY_SLOW=1")


def _walk(tmp_path, example_robot, **kwargs):
    example_robot("talos")  # (skips without example-robot-data)
    path = tmp_path / "walk.npz"
    summary = walk("talos", log=path, **kwargs)
    with np.load(path) as f:
        log = {k: f[k] for k in f.files}
    return summary, log


def test_log_file_format(tmp_path, example_robot):
    summary, log = _walk(tmp_path, example_robot, n_steps=2, length=0.1)
    K, nq, nv = log["t"].size, 39, 38
    assert log["q"].shape == (K, nq) and log["v"].shape == (K, nv) and log["tau"].shape == (K, nv - 6)
    assert list(log["contact_frames"]) == ["left_sole_link", "right_sole_link"]
    assert log["active"].shape == (K, 2) and log["active"].dtype == bool
    assert log["wrenches"].shape == (K, 2, 6) and log["com"].shape == (K, 3)
    assert float(log["mu"]) == 0.3 and list(log["half_size"]) == [0.1, 0.065] and float(log["dt"]) == 0.002
    assert log["footsteps"].shape == (2, 4) and list(log["footsteps"][:, 0]) == [0, 1]
    np.testing.assert_allclose(np.diff(log["t"]), 0.002, atol=1e-12)
    assert np.all(log["wrenches"][~log["active"]] == 0.0)
    assert summary.ok, summary.text()


def test_short_forward_walk_passes_the_acceptance_checks(tmp_path, example_robot):
    summary, log = _walk(tmp_path, example_robot, n_steps=3, length=0.2)
    result = accept(log, 3, 0.2)
    assert result.failures == [], (result.failures, result.figures)
    assert summary.ok, summary.text()
    # wbcpy's own summary agrees with the independent figures
    assert summary.progress == pytest.approx(result.figures["progress"], abs=1e-9)
    assert summary.cop_margin == pytest.approx(result.figures["cop_margin"], abs=1e-9)


def test_bad_arguments(example_robot):
    example_robot("talos")
    with pytest.raises(ConfigError):
        walk("talos", n_steps=0)
    with pytest.raises(ConfigError):
        walk("talos", dt=0.0)
    with pytest.raises(ConfigError):
        walk("talos", step_time=0.1, double_support_time=0.2)


FULL_WALKS = [
    ({"n_steps": 10, "length": 0.20}, {}),
    ({"n_steps": 8, "length": 0.10, "turn": 1.571}, {}),
    ({"n_steps": 6, "length": 0.0, "lateral": 0.08}, {}),
]


@pytest.mark.slow
@SKIP_SLOW
@pytest.mark.parametrize(("kwargs", "_"), FULL_WALKS)
def test_full_walks(tmp_path, example_robot, kwargs, _):
    summary, log = _walk(tmp_path, example_robot, **kwargs)
    result = accept(
        log, kwargs["n_steps"], kwargs["length"], kwargs.get("lateral", 0.0), kwargs.get("turn", 0.0)
    )
    print(kwargs, result.figures)
    assert result.failures == [], (result.failures, result.figures)
    assert summary.ok, summary.text()
    assert not math.isnan(summary.step_us)


def test_push_recovery_steps_out_and_walks_on(tmp_path, example_robot):
    """A 30 N·s push to the left at t = 3.0 s (the left foot swinging): the controller moves that footstep
    out (capture point), then lifts the right foot early — the DCM leads its transfer to the left foot, so
    the double support is shortened (step timing) —, walks on to the goal, and the log passes every
    acceptance check; without the adaptation the same push fells the robot."""
    summary, log = _walk(tmp_path, example_robot, n_steps=4, length=0.15, push=(30.0, 3.0))
    result = accept(log, 4, 0.15, pushed=True, push_time=3.0)
    assert result.failures == [], (result.failures, result.figures)
    assert summary.ok, summary.text()
    planned = np.array([s.row() for s in plan_footsteps(summary_robot(), 4, 0.15)])
    moved = log["footsteps"][:, 2] - planned[:, 2]
    assert moved[2] > 0.1  # the pushed swing foot (footstep 3, left) landed > 10 cm further left
    right = list(log["contact_frames"]).index("right_sole_link")
    lifts = np.flatnonzero(log["active"][:-1, right] & ~log["active"][1:, right]) + 1
    lift = log["t"][lifts[log["t"][lifts] > 3.2][0]]
    assert 3.2 + 0.05 <= lift < 3.4 - 1e-9  # (planned at 3.4 s: 0.2 s of double support after 3.2 s)
    stiff = walk("talos", n_steps=4, length=0.15, push=(30.0, 3.0), push_recovery=False)
    assert stiff.fell and not stiff.ok


def summary_robot():
    from wbcpy.model.registry import load_robot

    robot = load_robot("talos")
    robot.update(robot.reference_configuration("half_sitting"), np.zeros(robot.nv))
    return robot
