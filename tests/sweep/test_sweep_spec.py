"""Sweep files: dotted paths, run numbering, bad files (ConfigError naming the key; CLI: one line, exit 2)."""

from __future__ import annotations

import copy
import itertools
import math
import pickle
import sys
from pathlib import Path

import pytest
import yaml
from _sweep_helpers import Q0, reach_scene, write_sweep, write_yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from wbcpy.cli import main
from wbcpy.errors import ConfigError, ConfigKeyError
from wbcpy.sweep import DEFAULT_METRICS, METRICS, SweepSpec, load_sweep, run_one
from wbcpy.sweep.paths import check_path, set_path

ROOT = Path(__file__).resolve().parents[2]
GRID = {"tasks.ee.kp": [50, 100], "tasks.ee.kd": [10, 20, 30]}


# ---------------------------------------------------------------- dotted paths
def test_paths_address_task_entries_by_name_and_lists_by_index():
    doc = reach_scene()
    original = copy.deepcopy(doc)
    keys = check_path(doc, "tasks.posture.kd", "grid.tasks.posture.kd")
    assert keys == ("tasks", 1, "kd")
    assert check_path(doc, "tasks.1.kd", "f") == keys  # two spellings, one entry
    assert doc == original  # checking changes nothing
    set_path(doc, keys, 7.5)
    set_path(doc, check_path(doc, "q0.3", "f"), -1.0)
    set_path(doc, check_path(doc, "tasks.ee.target.offset", "f"), [0, 0, 0.2])
    assert doc["tasks"][1]["kd"] == 7.5 and doc["tasks"][0]["kd"] == 20
    assert doc["q0"] == [*Q0[:3], -1.0, *Q0[4:]]
    assert doc["tasks"][0]["target"] == {"offset": [0, 0, 0.2]}


def test_a_path_may_add_a_key_the_scene_format_accepts():
    doc = reach_scene()
    set_path(doc, check_path(doc, "tasks.posture.activation", "f"), 0.1)  # TaskConfig field
    set_path(doc, check_path(doc, "tasks.ee.max_acceleration", "f"), 5.0)  # PD key
    set_path(doc, check_path(doc, "braking", "f"), False)  # top-level scene key
    assert doc["tasks"][1]["activation"] == 0.1 and doc["tasks"][0]["max_acceleration"] == 5.0
    assert doc["braking"] is False


# ---------------------------------------------------------------- runs and ids
def test_runs_are_the_grid_product_crossed_with_samples(tmp_path):
    path = write_sweep(tmp_path, {"steps": 5, "grid": GRID, "random": {"n": 2, "seed": 3}})
    spec = load_sweep(path)
    runs = list(spec.runs())
    assert spec.n_runs == len(runs) == 2 * 3 * 2
    expected = [
        (kp, kd, s)
        for kp, kd in itertools.product(GRID["tasks.ee.kp"], GRID["tasks.ee.kd"])
        for s in range(2)
    ]
    assert [(r.params["tasks.ee.kp"], r.params["tasks.ee.kd"], r.sample) for r in runs] == expected
    assert [r.run_id for r in runs] == list(range(12))
    assert spec.columns[:4] == ["run_id", "sample", "tasks.ee.kp", "tasks.ee.kd"]
    assert spec.columns[-3:] == ["status", "worker", "wall_time"]
    assert "solve_time_median" in spec.columns and "solve_time_median" not in spec.deterministic_columns
    assert {"worker", "wall_time"}.isdisjoint(spec.deterministic_columns)


@settings(max_examples=40, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 4), min_size=0, max_size=3),
    samples=st.one_of(st.none(), st.integers(1, 3)),
)
def test_run_ids_are_stable_contiguous_and_invertible(sizes, samples):
    from wbcpy.sweep import RandomSpec

    if not sizes and samples is None:
        samples = 1
    grid = {f"p{i}": tuple(range(10 * i, 10 * i + n)) for i, n in enumerate(sizes)}
    spec = SweepSpec(
        source="s",
        scene_source="scene",
        scene_doc={},
        steps=None,
        grid=grid,
        grid_keys={},
        fixed=[],
        random=None if samples is None else RandomSpec(n=samples, seed=0),
        metrics=(),
        series=(),
    )
    runs = list(spec.runs())
    assert [r.run_id for r in runs] == list(range(spec.n_runs))
    assert spec.n_runs == (samples or 1) * math.prod(sizes)
    combos = [tuple(r.params.values()) for r in runs if r.sample in (0, None)]
    assert combos == list(itertools.product(*grid.values()))  # last key fastest
    for run in runs:
        assert spec.run(run.run_id) == run
    with pytest.raises(IndexError):
        spec.run(spec.n_runs)
    assert list(spec.runs()) == runs  # the same numbering every time


def test_spec_pickles_and_carries_the_urdf_text(tmp_path):
    urdf = (ROOT / "robots" / "lwr4.urdf").read_text()
    (tmp_path / "arm.urdf").write_text(urdf)
    scene = {**reach_scene(), "robot": "arm.urdf"}
    spec = load_sweep(write_sweep(tmp_path, {"steps": 3, "grid": {"tasks.ee.kp": [10]}}, scene))
    assert spec.scene_doc["robot"] == urdf  # workers elsewhere need no copy of the file
    clone = pickle.loads(pickle.dumps(spec))
    assert list(clone.runs()) == list(spec.runs()) and clone.columns == spec.columns


def test_defaults_and_tolerances(tmp_path):
    spec = load_sweep(write_sweep(tmp_path, {"grid": {"tasks.ee.kp": [10]}}))
    assert spec.metrics == DEFAULT_METRICS and not any(METRICS[m].needs for m in spec.metrics)
    assert spec.steps is None and spec.random is None and "sample" not in spec.columns
    assert spec.tolerances == {"ee.position": 1e-3, "ee.rotation": 1e-2}  # posture not checked
    tolerances = {"ee": 0.01, "posture": 0.2}
    spec = load_sweep(write_sweep(tmp_path, {"grid": {"tasks.ee.kp": [10]}, "tolerances": tolerances}))
    assert spec.tolerances == {"ee.position": 0.01, "ee.rotation": 0.01, "posture": 0.2}
    tolerances = {"ee": [0.002, 0.03]}
    spec = load_sweep(write_sweep(tmp_path, {"grid": {"tasks.ee.kp": [10]}, "tolerances": tolerances}))
    assert spec.tolerances == {"ee.position": 0.002, "ee.rotation": 0.03}
    spec = load_sweep(write_sweep(tmp_path, {"grid": {"tasks.ee.kp": [10]}, "tolerances": {"ee": None}}))
    assert spec.tolerances == {} and "success" not in spec.metrics  # nothing to check: not a default


# ---------------------------------------------------------------- bad files
BAD = [
    ({"grdi": {"tasks.ee.kp": [1]}}, "grdi"),
    ({"scene": None, "grid": GRID}, "scene"),
    ({"scene": "missing.yaml", "grid": GRID}, "scene"),
    ({"grid": GRID, "steps": 0}, "steps"),
    ({"grid": {}}, "grid"),
    ({}, "grid"),
    ({"grid": {"tasks.ee.kp": []}}, "grid.tasks.ee.kp"),
    ({"grid": {"tasks.ee.kp": 5}}, "grid.tasks.ee.kp"),
    ({"grid": {"tasks.hand.kp": [1]}}, "grid.tasks.hand.kp"),
    ({"grid": {"tasks.ee.kpp": [1]}}, "grid.tasks.ee.kpp"),
    ({"grid": {"tasks.ee.target.rpy": [[0, 0, 0]]}}, "grid.tasks.ee.target.rpy"),
    ({"grid": {"dt.x": [1]}}, "grid.dt.x"),
    ({"grid": {"q0.9": [1]}}, "grid.q0.9"),
    ({"grid": {"gravity": [1]}}, "grid.gravity"),
    ({"grid": {"tasks..kp": [1]}}, "grid.tasks..kp"),
    ({"grid": {"tasks.ee.kp": [1], "tasks.0.kp": [2]}}, "grid.tasks.0.kp"),
    ({"grid": {"tasks.ee": [{}]}, "set": {"tasks.ee.kp": 1}}, "grid.tasks.ee"),
    ({"grid": GRID, "set": []}, "set"),
    ({"grid": GRID, "set": {"braking": False, "tasks.posture.kp": -1}}, "set.tasks.posture.kp"),
    ({"grid": GRID, "random": {"n": 0}}, "random.n"),
    ({"grid": GRID, "random": {"n": 2, "seeds": 1}}, "random.seeds"),
    ({"grid": GRID, "random": {"n": 2, "seed": -1}}, "random.seed"),
    ({"grid": GRID, "random": {"n": 2, "q0_noise": -0.1}}, "random.q0_noise"),
    ({"grid": GRID, "random": {"n": 2, "q0_noise": [0.1, 0.1]}}, "random.q0_noise"),
    ({"grid": GRID, "random": [1]}, "random"),
    ({"grid": GRID, "metrics": ["final_eror"]}, "metrics[0]"),
    ({"grid": GRID, "metrics": []}, "metrics"),
    ({"grid": GRID, "metrics": ["success", "success"]}, "metrics[1]"),
    ({"grid": GRID, "metrics": ["min_normal_force"]}, "metrics[0]"),
    ({"grid": GRID, "tolerances": {"hand": 0.1}}, "tolerances.hand"),
    ({"grid": GRID, "tolerances": {"ee": [0.1]}}, "tolerances.ee"),
    ({"grid": GRID, "tolerances": {"ee": None}, "metrics": ["success"]}, "tolerances"),
]


@pytest.mark.parametrize(("sweep", "key"), BAD, ids=[k for _, k in BAD])
def test_bad_sweep_file_raises_config_error_naming_the_key(tmp_path, capsys, sweep, key):
    doc = {"scene": "scene.yaml", **sweep}
    if doc["scene"] is None:
        del doc["scene"]
    write_yaml(tmp_path / "scene.yaml", reach_scene())
    path = write_yaml(tmp_path / "bad.yaml", doc)
    with pytest.raises(ConfigError) as info:
        load_sweep(path)
    assert info.value.field == key
    assert str(info.value).startswith(f"{key}:")
    out = tmp_path / "out.csv"
    assert main(["sweep", str(path), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and key in err and "Traceback" not in err
    assert not out.exists()  # nothing ran, nothing written


def test_unknown_names_list_the_valid_ones(tmp_path):
    path = write_sweep(tmp_path, {"grid": {"tasks.eee.kp": [1]}})
    with pytest.raises(ConfigKeyError) as info:
        load_sweep(path)
    assert "'ee'" in str(info.value)  # did you mean 'ee'?
    path = write_sweep(tmp_path, {"grid": GRID, "metrics": ["sucess"]})
    with pytest.raises(ConfigKeyError, match="success"):
        load_sweep(path)


@pytest.mark.parametrize("text", ["grid: [1, 2\n", "- 1\n- 2\n"])
def test_invalid_yaml_or_not_a_mapping(tmp_path, text):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_sweep(path)
    assert info.value.field == str(path)


def test_a_bad_scene_file_names_the_scene_key(tmp_path):
    write_yaml(tmp_path / "scene.yaml", {**reach_scene(), "robot": "no_such_robot"})
    path = write_yaml(tmp_path / "s.yaml", {"scene": "scene.yaml", "grid": GRID})
    with pytest.raises(ConfigError) as info:
        load_sweep(path)
    assert info.value.field == "scene" and "no_such_robot" in str(info.value)


# ---------------------------------------------------------------- CLI arguments
def test_cli_rejects_bad_options_with_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = write_sweep(tmp_path, {"steps": 2, "grid": {"tasks.ee.kp": [10, 20], "tasks.ee.kd": [5]}})
    existing = tmp_path / "done.csv"
    existing.write_text("run_id\n0\n")
    cases = [
        (["--workers", "0"], "--workers"),
        (["--out", str(existing)], "--resume"),
        (["--out", str(tmp_path / "no" / "x.csv")], "--out"),
        (["--plot", str(tmp_path / "no" / "x.png")], "--plot"),
        (["--plot", str(tmp_path / "x.png"), "--plot-params", "tasks.posture.kd"], "--plot-params"),
        (["--plot", str(tmp_path / "x.png"), "--plot-metric", "nope"], "--plot-metric"),
        (["--plot", str(tmp_path / "x.png"), "--plot-params", "a,b,c"], "--plot-params"),
        (["--out", str(existing), "--resume"], "another sweep"),
    ]
    for extra, needle in cases:
        assert main(["sweep", str(path), "--quiet", *extra]) == 2, extra
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and needle in err, (extra, err)
    assert existing.read_text() == "run_id\n0\n"  # a refused call changes nothing
    assert sorted(p.name for p in tmp_path.iterdir()) == ["done.csv", "scene.yaml", "sweep.yaml"]
    assert main(["sweep", str(tmp_path / "missing.yaml")]) == 2
    assert "not found" in capsys.readouterr().err


def test_cli_without_dask_says_how_to_install_it(tmp_path, capsys, monkeypatch):
    path = write_sweep(tmp_path, {"steps": 2, "grid": {"tasks.ee.kp": [10]}})
    monkeypatch.setitem(sys.modules, "distributed", None)
    assert main(["sweep", str(path), "--out", str(tmp_path / "o.csv")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'wbcpy[sweep]'" in err


def test_example_sweep_shows_the_gain_trade_off():
    spec = load_sweep(ROOT / "examples" / "sweep_gains.yaml")
    assert list(spec.grid) == ["tasks.ee.kp", "tasks.ee.kd", "tasks.posture.activation"]
    assert spec.n_runs == 3 * 3 * 3 * 2
    assert yaml.safe_load((ROOT / "examples" / "sweep_gains.yaml").read_text())["scene"] == "scene_reach.yaml"
    stiff = spec.run(2 * 18 + 1 * 6 + 0 * 2)  # kp 400, kd 20 (critical damping), light posture
    soft = spec.run(0 * 18 + 2 * 6 + 2 * 2 + 1)  # kp 25, kd 40 (overdamped), heavy posture
    assert stiff.params == {"tasks.ee.kp": 400, "tasks.ee.kd": 20, "tasks.posture.activation": 0.001}
    assert soft.params == {"tasks.ee.kp": 25, "tasks.ee.kd": 40, "tasks.posture.activation": 0.1}
    good, bad = run_one(spec, stiff), run_one(spec, soft)
    assert good["status"] == bad["status"] == "ok"
    assert good["success"] == 1 and good["final_error.ee.position"] < 1e-3
    assert bad["success"] == 0 and bad["final_error.ee.position"] > 1e-2
