"""Sweeps of contact scenes: contact metrics, random pushes, success = still standing.

Oracles: a robot standing still on two symmetric soles carries half its weight on each (total mass from
``pin.computeTotalMass`` here, g = 9.81); the torque ratio recomputed here from the torques of a second
simulation of the same run and the effort limits read from the raw Pinocchio model by joint name; the
push direction recomputed from the documented generator ``default_rng([seed, sample, 1])``.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest
import yaml
from _sweep_helpers import reach_scene, write_sweep

from wbcpy.errors import ConfigError
from wbcpy.model.registry import example_robot_data_dir
from wbcpy.sim import SceneSimulation
from wbcpy.sweep import load_sweep, run_one
from wbcpy.sweep.run import build_setup, push_of

ROOT = Path(__file__).resolve().parents[2]
SOLES = ("left_sole_link", "right_sole_link")
#: two torso-orientation tolerances and a 1 cm COM: "still standing"
STANDING = {"com": 0.01, "torso": [None, 0.05]}

pytestmark = pytest.mark.skipif(
    example_robot_data_dir() is None, reason="example-robot-data is not installed"
)


def standing_scene(steps: int, effort_limits=None) -> dict:
    """examples/talos_balance.yaml holding its start: COM offset 0, no weight-share wrench task."""
    doc = yaml.safe_load((ROOT / "examples" / "talos_balance.yaml").read_text())
    doc.pop("duration")
    doc["steps"] = steps
    doc["tasks"] = [t for t in doc["tasks"] if t["type"] != "wrench"]
    doc["tasks"][0]["target"] = {"offset": [0.0, 0.0, 0.0]}
    if effort_limits is None:
        doc.pop("effort_limits")
    else:
        doc["effort_limits"] = effort_limits
    return doc


def _metric_values(spec, row) -> dict:
    cols = [c for c in spec.deterministic_columns if c not in ("run_id", "sample", *spec.grid)]
    return {c: row.get(c) for c in cols}


def _same(a: dict, b: dict) -> bool:
    """Equal bit for bit (NaN equals NaN)."""
    return a.keys() == b.keys() and all(
        x == y or (isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y))
        for x, y in ((a[k], b[k]) for k in a)
    )


@pytest.mark.parametrize("limits", [None, {"leg_left_4_joint": 60.0, "leg_right_4_joint": 60.0}])
def test_contact_metrics_against_the_weight_share_and_the_effort_limits(tmp_path, limits):
    scene = standing_scene(40, limits)
    metrics = ["max_torque_ratio", "min_normal_force", "success", "final_error"]
    spec = load_sweep(write_sweep(tmp_path, {"random": {"n": 1}, "metrics": metrics}, scene))
    run = next(spec.runs())
    row = run_one(spec, run)
    assert row["status"] == "ok" and row["success"] == 1
    # the same run simulated here: torques and simulated normal forces per step
    setup = build_setup(spec, run)
    sim = SceneSimulation(setup)
    taus, fz = [], []
    for _ in range(setup.steps):
        sim.step()
        taus.append(setup.scene.get_joint_torques())
        fz += [float(w[2]) for w in sim.plant.sim.wrenches.values()]
    model = setup.robot.model  # the raw Pinocchio model: URDF effort limits by joint name
    names = setup.scene.get_solver_output().names
    limit = np.array([model.effortLimit[model.joints[model.getJointId(n)].idx_v] for n in names])
    for joint, value in (limits or {}).items():
        limit[names.index(joint)] = value
    keep = np.isfinite(limit) & (limit > 0)
    expected = max(float(np.max(np.abs(t[keep]) / limit[keep])) for t in taus)
    assert row["max_torque_ratio"] == pytest.approx(expected, rel=1e-12)
    assert 0.05 < row["max_torque_ratio"] <= 1.0 + 1e-9
    assert row["min_normal_force"] == pytest.approx(min(fz), rel=1e-12)
    share = pin.computeTotalMass(model) * 9.81 / len(SOLES)  # standing still: half the weight per sole
    assert share * (1 - 1e-3) <= row["min_normal_force"] <= share * (1 + 1e-9)


def test_push_sizes_zero_small_large_and_determinism(tmp_path):
    scene = standing_scene(100)
    random = {"n": 1, "seed": 3, "push": {"time": 0.05}}
    metrics = ["success", "final_error", "max_torque_ratio", "min_normal_force", "qp_failures"]
    sweep = {"grid": {"random.push.magnitude": [0, 5, 80]}, "random": random, "metrics": metrics}
    spec = load_sweep(write_sweep(tmp_path, {**sweep, "tolerances": STANDING}, scene))
    zero, small, large = (run_one(spec, run) for run in spec.runs())
    quiet = {"random": {"n": 1, "seed": 3}, "metrics": metrics, "tolerances": STANDING}
    still = load_sweep(write_sweep(tmp_path, quiet, scene, name="still"))
    nothing = run_one(still, next(still.runs()))
    assert _same(_metric_values(spec, zero), _metric_values(still, nothing))  # size 0 is no push, bit for bit
    assert small["status"] == "ok" and small["success"] == 1
    assert small["max_torque_ratio"] != nothing["max_torque_ratio"]  # the push acted
    assert large["status"] == "ok" and large["success"] == 0  # it fell
    assert math.isnan(large["final_error"]) or large["final_error.com"] > 0.01
    again = run_one(spec, spec.run(1))
    assert _same(_metric_values(spec, again), _metric_values(spec, small))  # a pure function of the run


def test_push_direction_is_the_samples_own_and_shared_by_every_size(tmp_path):
    random = {"n": 3, "seed": 7, "push": {"time": 0.1, "frame": "torso_2_link"}}
    grid = {"random.push.magnitude": [10, 30], "random.push.time": [0.02, 0.1]}
    spec = load_sweep(write_sweep(tmp_path, {"grid": grid, "random": random}, standing_scene(50)))
    for run in spec.runs():
        push = push_of(spec, run, build_setup(spec, run))
        theta = np.random.default_rng([7, run.sample, 1]).uniform(0.0, 2.0 * math.pi)
        P = run.params["random.push.magnitude"] * np.array([math.cos(theta), math.sin(theta), 0.0])
        np.testing.assert_allclose(push.impulse, P, rtol=1e-15)
        assert push.step == round(run.params["random.push.time"] / 0.005) and push.frame == "torso_2_link"
    assert spec.param_columns == ["sample", "random.push.magnitude", "random.push.time"]


def test_the_push_example(tmp_path):
    spec = load_sweep(ROOT / "examples" / "sweep_push.yaml")
    assert spec.n_runs == 48 and spec.grid == {"random.push.magnitude": (0, 10, 20, 30, 40, 50)}
    assert spec.tolerances == {"com": 0.01, "torso.rotation": 0.05}
    row = run_one(spec, spec.run(8))  # 10 N·s, sample 0
    assert row["status"] == "ok" and row["success"] == 1 and row["min_normal_force"] > 0


TALOS_BAD = [
    ({"push": [1]}, None, "random.push"),
    ({"push": {"force": 1}}, None, "random.push.force"),
    ({"push": {"magnitude": -1}}, None, "random.push.magnitude"),
    ({"push": {"magnitude": float("nan")}}, None, "random.push.magnitude"),
    ({"push": {"magnitude": True}}, None, "random.push.magnitude"),
    ({"push": {"magnitude": 5, "time": -0.1}}, None, "random.push.time"),
    ({"push": {"magnitude": 5, "time": 0.5}}, None, "random.push.time"),  # the run ends at 0.1 s
    ({"push": {"magnitude": 5, "frame": "no_such_link"}}, None, "random.push.frame"),
    ({"push": {"magnitude": 5, "frame": 3}}, None, "random.push.frame"),
    ({"push": {"time": 0.01}}, None, "random.push.magnitude"),  # no size anywhere
    ({"push": {}}, {"random.push.magnitude": [5, -1]}, "grid.random.push.magnitude"),
    ({"push": {"magnitude": 5}}, {"random.push.frame": ["torso_2_link", "nope"]}, "grid.random.push.frame"),
    ({"push": {"magnitude": 5}}, {"random.push.time": [0.0, 1.0]}, "grid.random.push.time"),
    ({"push": {"magnitude": 5}}, {"random.push.force": [1]}, "grid.random.push.force"),
    ({}, {"random.n": [1, 2]}, "grid.random.n"),
    ({}, {"random.push.magnitude": [5]}, "grid.random.push.magnitude"),  # no push section
    (None, {"random.push.magnitude": [5]}, "grid.random.push.magnitude"),  # no random section
]


@pytest.mark.parametrize(("push", "grid", "key"), TALOS_BAD, ids=[k for *_, k in TALOS_BAD])
def test_bad_push_keys_raise_config_error_naming_the_key(tmp_path, push, grid, key):
    sweep: dict = {"steps": 20}
    if push is not None:
        sweep["random"] = {"n": 2, **push}
    if grid is not None:
        sweep["grid"] = grid
    with pytest.raises(ConfigError) as info:
        load_sweep(write_sweep(tmp_path, sweep, standing_scene(20)))
    assert info.value.field == key


def test_contact_metrics_and_pushes_need_a_scene_that_has_them(tmp_path):
    arm = {**reach_scene(), "effort_limits": True}  # an InverseDynamicsScene without contacts: torques
    spec = load_sweep(write_sweep(tmp_path, {"grid": {"tasks.ee.kp": [10]}}, arm))
    assert "max_torque_ratio" in spec.metrics and "min_normal_force" not in spec.metrics  # the defaults
    with pytest.raises(ConfigError) as info:
        load_sweep(
            write_sweep(
                tmp_path, {"grid": {"tasks.ee.kp": [10]}, "metrics": ["success", "min_normal_force"]}, arm
            )
        )
    assert info.value.field == "metrics[1]"
    for metric in ("max_torque_ratio", "min_normal_force"):  # an acceleration scene has neither
        with pytest.raises(ConfigError) as info:
            load_sweep(write_sweep(tmp_path, {"grid": {"tasks.ee.kp": [10]}, "metrics": [metric]}))
        assert info.value.field == "metrics[0]"
    with pytest.raises(ConfigError) as info:  # no plant to push
        load_sweep(write_sweep(tmp_path, {"random": {"n": 1, "push": {"magnitude": 1, "frame": "lwr_ee"}}}))
    assert info.value.field == "random.push"
    spec = load_sweep(write_sweep(tmp_path, {"random": {"n": 1}}, standing_scene(20)))
    assert {"max_torque_ratio", "min_normal_force"} <= set(spec.metrics)  # a contact scene's defaults
