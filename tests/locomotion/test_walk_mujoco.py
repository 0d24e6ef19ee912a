"""walk() in MuJoCo: Talos walks a few steps without falling, the log records the plant and its options,
the logged wrenches balance the robot's momentum (an independent check of their frames and signs), plant
objects and bad plant arguments; the spec's four walks in slow-marked tests (WBCPY_SLOW=1), judged here on
falls and progress (the table's figures: test_soft_acceptance.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

from wbcpy import RobotModel
from wbcpy.cli import main
from wbcpy.errors import ConfigError
from wbcpy.locomotion import walk
from wbcpy.locomotion.walk import parse_push

mujoco = pytest.importorskip("mujoco", reason="the MuJoCo plant needs mujoco (pip install 'wbcpy[mujoco]')")

from wbcpy.sim.mujoco import ContactOptions, MujocoPlant  # noqa: E402

SKIP_SLOW = pytest.mark.skipif(not os.environ.get("WBCPY_SLOW"), reason="full walks: set WBCPY_SLOW=1")
SOLES = ("left_sole_link", "right_sole_link")


def _load(path):
    with np.load(path) as f:
        return {k: f[k] for k in f.files}


def _lowest_body(model, data, q) -> float:
    """The lowest origin of a body frame other than the feet's (m)."""
    pin.framesForwardKinematics(model, data, q)
    return min(
        data.oMf[i].translation[2]
        for i, f in enumerate(model.frames)
        if f.type == pin.FrameType.BODY and not any(k in f.name for k in ("leg_", "sole", "ankle"))
    )


def _momentum_balance(log, model) -> float:
    """|Σ_k F_k dt − (p_K − p_0) + m g T| / (m g T): the logged sole wrenches, moved to world axes with the
    logged q (Pinocchio's sole placements), against the change of the measured linear momentum."""
    data = model.createData()
    dt, K = float(log["dt"]), log["t"].size
    impulse = np.zeros(3)
    for k in range(K - 1):
        pin.framesForwardKinematics(model, data, log["q"][k])
        for i, f in enumerate(log["contact_frames"]):
            R = data.oMf[model.getFrameId(str(f))].rotation
            impulse += R @ log["wrenches"][k, i, :3] * dt
    p = [
        pin.computeCentroidalMomentum(model, data, log["q"][k], log["v"][k]).linear.copy() for k in (0, K - 1)
    ]
    mg = pin.computeTotalMass(model) * model.gravity.linear
    T = (K - 1) * dt
    return float(np.linalg.norm(impulse - (p[1] - p[0]) + mg * T) / (np.linalg.norm(mg) * T))


def test_a_short_walk_in_mujoco_does_not_fall(tmp_path, example_robot):
    robot = example_robot("talos")
    summary = walk("talos", n_steps=3, length=0.2, plant="mujoco", log=tmp_path / "w.npz")
    log = _load(tmp_path / "w.npz")
    assert not summary.fell and not summary.error, summary.text()
    assert summary.progress > 0.9 and summary.plant == "mujoco" and "plant: mujoco" in summary.text()
    assert str(log["plant"]) == "mujoco" and float(log["contact_damping"]) == 0.0
    options = json.loads(str(log["contact_options"]))
    assert (
        options["cone"] == "elliptic" and options["solref"] == [0.005, 1.0] and options["timestep"] == 0.001
    )
    assert options["mu"] == {f: 0.3 for f in SOLES}
    model, data = robot.model, robot.model.createData()
    assert log["q"][:, 2].min() > 0.6
    assert (
        min(_lowest_body(model, data, q) for q in log["q"][::25]) > 0.25
    )  # nothing but the legs near the floor
    assert log["active"].any(axis=0).all() and np.all(log["wrenches"][~log["active"]] == 0.0)
    assert _momentum_balance(log, model) < 0.01


def test_rigid_walk_logs_its_plant(tmp_path, example_robot):
    example_robot("talos")
    walk("talos", n_steps=2, length=0.1, log=tmp_path / "w.npz")
    log = _load(tmp_path / "w.npz")
    assert str(log["plant"]) == "pinocchio" and float(log["contact_damping"]) == 50.0
    assert json.loads(str(log["contact_options"]))["contacts"] == "rigid"
    assert _momentum_balance(log, example_robot("talos").model) < 0.01


def test_a_plant_object_with_mujocos_own_contact_options(example_robot):
    robot = example_robot("talos")
    q0 = robot.reference_configuration("half_sitting")
    soles = [{"type": "surface", "frame": f, "half_size": [0.1, 0.065], "mu": 0.3} for f in SOLES]
    plant = MujocoPlant(robot, soles, q0, dt=0.002, options=ContactOptions.mujoco_defaults())
    for _ in range(50):  # the plant settles on its soft contacts first: the walk starts from its state
        plant.apply(
            pin.computeGeneralizedGravity(robot.model, robot.model.createData(), plant.state()[0])[6:]
        )
    start = plant.state()[0]
    summary = walk(robot, n_steps=2, length=0.1, plant=plant)
    assert summary.plant == "mujoco" and not summary.fell, summary.text()
    np.testing.assert_array_equal(summary.log.q[0], start)
    assert plant.time == pytest.approx(0.1 + summary.duration)


def test_bad_plant_arguments(example_robot):
    robot = example_robot("talos")
    q0 = robot.reference_configuration("half_sitting")
    with pytest.raises(ConfigError, match="plant"):
        walk("talos", plant="bullet")
    with pytest.raises(ConfigError, match="plant_options"):
        walk("talos", plant="pinocchio", plant_options=ContactOptions())
    with pytest.raises(ConfigError, match="plant_options"):
        walk("talos", plant="mujoco", plant_options={"cone": "elliptic"})
    with pytest.raises(ConfigError, match="protocol"):
        walk("talos", plant=object())
    with pytest.raises(ConfigError, match="period"):
        walk("talos", plant=MujocoPlant(robot, [], q0, dt=0.004, check=False))
    arm = Path(__file__).resolve().parents[1] / "data" / "mjcf" / "floating_arm.xml"
    with pytest.raises(ConfigError, match="joints"):
        walk("talos", plant=MujocoPlant(RobotModel.from_mjcf(arm)))
    with pytest.raises(ConfigError, match="push"):
        parse_push("300@3.0:-0.1")
    assert parse_push("300@3.0:0.1") == (300.0, 3.0, 0.1) and parse_push("30@3") == (30.0, 3.0)


def test_cli_walk_in_mujoco(capsys, example_robot):
    example_robot("talos")
    code = main(["walk", "--steps", "2", "--length", "0.1", "--plant", "mujoco", "--quiet"])
    text = capsys.readouterr().out
    assert code in (0, 1) and "plant: mujoco" in text and "fall: no" in text
    assert main(["walk", "--steps", "2", "--contact-options", "mujoco", "--quiet"]) == 2
    assert "--plant mujoco" in capsys.readouterr().err


FULL_WALKS = [
    pytest.param({"n_steps": 10, "length": 0.20}, id="forward"),
    pytest.param({"n_steps": 8, "length": 0.10, "turn": 1.571}, id="turning"),
    pytest.param({"n_steps": 6, "length": 0.0, "lateral": 0.08}, id="sideways"),
    pytest.param({"n_steps": 10, "length": 0.15, "push": (300.0, 3.0, 0.1)}, id="pushed"),
]


@pytest.mark.slow
@SKIP_SLOW
@pytest.mark.parametrize("kwargs", FULL_WALKS)
@pytest.mark.parametrize("options", ["library", "mujoco"])
def test_full_walks_in_mujoco(example_robot, kwargs, options):
    example_robot("talos")
    plant_options = ContactOptions.mujoco_defaults() if options == "mujoco" else None
    summary = walk("talos", plant="mujoco", plant_options=plant_options, **kwargs)
    print(kwargs, options, summary.text())
    assert not summary.fell, summary.text()
    assert summary.progress > 0.85
