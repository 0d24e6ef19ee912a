"""Walk sweeps take the plant: ``walk.plant`` in the walk section or the grid (wbcpy.sweep.walks)."""

from __future__ import annotations

import pytest

from wbcpy.errors import ConfigError
from wbcpy.model.registry import example_robot_data_dir
from wbcpy.sweep import load_sweep, run_one

needs_talos = pytest.mark.skipif(
    example_robot_data_dir() is None, reason="example-robot-data is not installed"
)


def _doc(**walk) -> dict:
    return {
        "walk": {"robot": "talos", "n_steps": 2, "length": 0.1, **walk},
        "grid": {"walk.plant": ["pinocchio", "mujoco"]},
        "metrics": ["success", "progress", "fell", "max_slip"],
    }


@needs_talos
def test_a_grid_over_the_plant_runs_both():
    pytest.importorskip("mujoco", reason="the MuJoCo plant needs mujoco")
    spec = load_sweep(_doc())
    rows = [run_one(spec, run) for run in spec.runs()]
    assert [r["walk.plant"] for r in rows] == ["pinocchio", "mujoco"]
    assert [r["fell"] for r in rows] == [0, 0]
    # both plants hold the standing soles (MuJoCo's loaded soles creep by less than 5 mm/s), each its own way
    assert max(r["max_slip"] for r in rows) < 5e-3
    assert rows[0]["max_slip"] != rows[1]["max_slip"]


@pytest.mark.parametrize("bad", ["bullet", 1, None])
def test_a_bad_plant_names_the_key(bad):
    with pytest.raises(ConfigError, match=r"walk\.plant"):
        load_sweep({**_doc(plant=bad), "grid": {"walk.length": [0.1]}})
    with pytest.raises(ConfigError, match=r"walk\.plant"):
        load_sweep({**_doc(), "grid": {"walk.plant": ["pinocchio", bad]}})
