"""Sweeps of walks (``walk:`` instead of ``scene:``, wbcpy.sweep.walks).

Oracles: a run's ``progress`` against the base's displacement read from the walk's own log file (the
floating base's x in the logged q over the planned (n − 1)·length of a straight walk), ``max_slip``
against the active soles' velocities that raw Pinocchio computes from the logged q, v and active set;
the push tuple against the file's mapping; bad files against the key they name.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wbcpy.errors import ConfigError, ConfigKeyError
from wbcpy.locomotion import walk
from wbcpy.model.registry import example_robot_data_dir, load_robot
from wbcpy.sweep import load_sweep, run_one
from wbcpy.sweep.walks import WALK_METRICS, walk_arguments

ROOT = Path(__file__).resolve().parents[2]

needs_talos = pytest.mark.skipif(
    example_robot_data_dir() is None, reason="example-robot-data is not installed"
)


def tiny(**extra) -> dict:
    """Two 2-step walks of Talos: length 0.10 and 0.15 m."""
    doc = {
        "walk": {"robot": "talos", "n_steps": 2, "length": 0.10, "push": {"impulse": 0, "time": 1.5}},
        "grid": {"walk.length": [0.10, 0.15]},
        "metrics": ["success", "progress", "fell", "max_slip", "cop_margin", "realtime"],
    }
    doc.update(extra)
    return doc


@needs_talos
def test_example_walk_sweep_loads():
    spec = load_sweep(ROOT / "examples" / "sweep_walk.yaml")
    assert spec.walk is not None and spec.walk["robot"] == "talos"
    assert list(spec.grid) == ["walk.length", "walk.step_time"]
    assert spec.n_runs == np.prod([len(v) for v in spec.grid.values()])
    assert spec.grid_keys == {"walk.length": ("length",), "walk.step_time": ("step_time",)}
    assert "success" in spec.metrics and spec.describe().startswith(f"{spec.n_runs} walks")
    # the wall-clock metrics are columns but not deterministic ones
    assert "realtime" in spec.columns and "realtime" not in spec.deterministic_columns


@needs_talos
def test_two_walks_via_run_one_match_their_logs(tmp_path):
    spec = load_sweep(tiny())
    rows = [run_one(spec, run) for run in spec.runs()]
    assert [r["walk.length"] for r in rows] == [0.10, 0.15]
    robot = load_robot("talos")
    model, data = robot.model, robot.model.createData()
    for row in rows:
        assert row["status"] == "ok", row["status"]
        assert row["success"] == 1 and row["fell"] == 0
        assert set(row) >= set(spec.columns) - {"worker"}
        # the same walk, logged: progress from the floating base's x, slip from raw Pinocchio
        path = tmp_path / f"{row['run_id']}.npz"
        walk("talos", n_steps=2, length=row["walk.length"], log=path)
        log = np.load(path)
        assert row["progress"] == pytest.approx(
            (log["q"][-1, 0] - log["q"][0, 0]) / row["walk.length"], abs=1e-9
        )
        slip = 0.0
        ids = [model.getFrameId(str(f)) for f in log["contact_frames"]]
        for q, v, active in zip(log["q"], log["v"], log["active"], strict=True):
            pin.forwardKinematics(model, data, q, v)
            for fid, on in zip(ids, active, strict=True):
                if on:
                    vel = pin.getFrameVelocity(model, data, fid, pin.LOCAL_WORLD_ALIGNED)
                    slip = max(slip, float(np.linalg.norm(vel.linear)))
        assert row["max_slip"] == pytest.approx(slip, rel=1e-6, abs=1e-9)
        assert 0.0 < row["cop_margin"] < 0.065


@needs_talos
def test_a_bad_walk_is_a_row_not_a_crash():
    """A double support longer than the step: the planner refuses it; the row records why."""
    spec = load_sweep(tiny(grid={"walk.step_time": [0.1]}))
    row = run_one(spec, next(spec.runs()))
    assert row["status"].startswith("ConfigError") and "double_support_time" in row["status"]
    assert "success" not in row


def test_push_paths_give_walks_impulse_tuple():
    doc = {"n_steps": 4, "push": {"impulse": 0, "time": 3.0}}
    assert walk_arguments(doc, [])["push"] is None  # an impulse of 0 is no push
    args = walk_arguments(doc, [(("push", "impulse"), 30), (("length",), 0.2)])
    assert args["push"] == (30.0, 3.0) and args["length"] == 0.2
    assert doc["push"]["impulse"] == 0  # the walk section is not changed
    assert walk_arguments(doc, [(("push", "impulse"), 30)], as_file=True)["push"] == {
        "impulse": 30,
        "time": 3.0,
    }


@settings(max_examples=40, deadline=None)
@given(impulse=st.floats(0, 1e3), time=st.floats(0, 1e2), length=st.floats(-1, 1))
def test_walk_arguments_property(impulse, time, length):
    doc = {"push": {"impulse": 1.0, "time": 0.5}}
    args = walk_arguments(
        doc, [(("push", "impulse"), impulse), (("push", "time"), time), (("length",), length)]
    )
    assert args["length"] == length
    assert args["push"] == (None if impulse == 0 else (impulse, time))


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"walk": {"n_stepz": 2}}, "walk.n_stepz"),
        ({"walk": {"n_steps": 0}}, "walk.n_steps"),
        ({"walk": {"push": {"impulse": -1, "time": 0}}}, "walk.push.impulse"),
        ({"walk": {"push": [30, 3.0]}}, "walk.push"),
        ({"grid": {"walk.step_time": [0.8, -0.8]}}, "grid.walk.step_time[1]"),
        ({"grid": {"walk.lenght": [0.1]}}, "grid.walk.lenght"),
        ({"grid": {"length": [0.1]}}, "grid.length"),
        ({"grid": {"walk.length.x": [0.1]}}, "grid.walk.length.x"),
        ({"grid": {"walk.length": []}}, "grid.walk.length"),
        ({"grid": {"walk.length": [0.1]}, "set": {"walk.length": 0.2}}, "grid.walk.length"),
        ({"grid": {"walk.push.impulse": [0, 30]}, "set": {"walk.push": None}}, "grid.walk.push.impulse"),
        ({"scene": "talos_balance.yaml"}, "scene"),
        ({"random": {"n": 2}}, "random"),
        ({"tolerances": {"com": 0.01}}, "tolerances"),
        ({"metrics": ["final_error"]}, "metrics[0]"),
        ({"walk": {"feet": ["l_sole"]}}, "walk.feet"),
        ({"walk": {"feet": "l_sole;r_sole"}}, "walk.feet"),
        ({"walk": {"sole": [0.2, -0.1]}}, "walk.sole"),
        ({"walk": {"sole": "0.2by0.1"}}, "walk.sole"),
        ({"grid": {"walk.sole": [[0.2, 0.13], [0.2, float("nan")]]}}, "grid.walk.sole[1]"),
        ({"walk": {"posture": ""}}, "walk.posture"),
        ({"walk": {"posture": [0.0, "a"]}}, "walk.posture"),
    ],
)
def test_bad_walk_sweeps_name_the_key(change, field):
    doc = tiny(**change)
    with pytest.raises(ConfigError) as info:
        load_sweep(doc)
    assert info.value.field == field


def test_push_path_needs_a_push_mapping():
    doc = tiny(grid={"walk.push.impulse": [0, 30]})
    del doc["walk"]["push"]
    with pytest.raises(ConfigError, match="no push mapping") as info:
        load_sweep(doc)
    assert info.value.field == "grid.walk.push.impulse"


def test_unknown_walk_metric_lists_the_walk_metrics():
    with pytest.raises(ConfigKeyError) as info:
        load_sweep(tiny(metrics=["succes"]))
    assert "success" in str(info.value) and set(WALK_METRICS) >= {"success", "progress", "max_slip"}


@needs_talos
def test_a_walk_sweep_passes_feet_sole_and_posture_to_walk():
    """iCub with its soles, sole size and posture named in the sweep file walks as walk() with the same
    arguments does: the row's figures are the direct walk's summary's."""
    doc = {
        "walk": {"robot": "icub", "n_steps": 2, "length": 0.04, "feet": ["l_sole", "r_sole"]},
        "grid": {"walk.sole": ["0.1x0.05", [0.09, 0.045]]},
        "set": {"walk.posture": "computed"},
        "metrics": ["success", "progress", "cop_margin"],
    }
    spec = load_sweep(doc)
    rows = [run_one(spec, run) for run in spec.runs()]
    for row, sole in zip(rows, [(0.1, 0.05), (0.09, 0.045)], strict=True):
        assert row["status"] == "ok", row["status"]
        direct = walk(
            "icub", n_steps=2, length=0.04, feet=("l_sole", "r_sole"), sole=sole, posture="computed"
        )
        assert row["success"] == int(direct.ok) == 1
        assert row["progress"] == pytest.approx(direct.progress, abs=1e-9)
        assert 0.0 < row["cop_margin"] < sole[1] / 2
