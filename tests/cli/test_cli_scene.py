"""``wbcpy solvers`` and ``wbcpy scene``, the scene-file loader, and the examples (few steps each)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest
from _scene_helpers import example_robot

from wbcpy.cli import main
from wbcpy.errors import ConfigError, ConfigKeyError
from wbcpy.qp import available_solvers, default_solver
from wbcpy.scenes import load_scene_file
from wbcpy.sim import SceneSimulation

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_YAML = ROOT / "examples" / "scene_reach.yaml"
EXAMPLE_PY = ROOT / "examples" / "scene_reach.py"


def test_solvers_lists_backends_and_marks_default(capsys):
    assert main(["solvers"]) == 0
    out = capsys.readouterr().out
    rows = {
        line.split()[0]: line for line in out.splitlines()[2:] if line and not line.startswith(("*", "not"))
    }
    assert sorted(rows) == sorted(available_solvers())
    assert "*" in rows[default_solver()].split()
    assert sum("*" in line.split() for line in rows.values()) == 1
    assert main(["solvers", "--names"]) == 0
    assert capsys.readouterr().out.split() == available_solvers()


def test_scene_command_runs_the_example_and_plots(tmp_path, capsys):
    plot = tmp_path / "errors.png"
    rc = main(["scene", str(EXAMPLE_YAML), "--steps", "40", "--plot", str(plot)])
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    out = captured.out
    assert "40 steps" in out and "solver " + default_solver() in out
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("task "))
    end = lines.index("", start)
    rows = [line for line in lines[start + 2 : end] if not line.startswith(("level", "units"))]
    assert [line.split()[0] for line in rows] == [
        "ee",
        "posture",
    ]
    assert "median" in out and "µs" in out and "joint limits: respected" in out
    assert "100.0%" in captured.err and "40/40 steps" in captured.err
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_scene_command_options_override_the_file(capsys):
    other = next((s for s in available_solvers() if s != default_solver()), default_solver())
    assert (
        main(["scene", str(EXAMPLE_YAML), "--steps", "5", "--dt", "0.002", "--solver", other, "--quiet"]) == 0
    )
    captured = capsys.readouterr()
    assert f"solver {other}" in captured.out and "dt 0.002 s, 5 steps" in captured.out
    assert captured.err == ""


def test_scene_plot_without_matplotlib(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    plot = tmp_path / "errors.png"
    assert main(["scene", str(EXAMPLE_YAML), "--steps", "3", "--quiet", "--plot", str(plot)]) == 0
    captured = capsys.readouterr()
    assert "matplotlib is not installed" in captured.err
    assert "update()+solve() per step" in captured.out
    assert not plot.exists()


def _bad_scene(tmp_path: Path, text: str) -> str:
    path = tmp_path / f"bad{len(list(tmp_path.iterdir()))}.yaml"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--solver", "nosuchqp"], "solver"),
        (["--steps", "0"], "--steps"),
        (["--dt", "-0.1"], "--dt"),
        (["--plot", "/no/such/folder/x.png"], "--plot"),
    ],
)
def test_scene_command_bad_arguments(argv, needle, capsys):
    assert main(["scene", str(EXAMPLE_YAML), *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and needle in err and err.startswith("wbcpy scene: error:")


def test_scene_command_bad_files(tmp_path, capsys):
    cases = [
        (str(tmp_path / "missing.yaml"), "not found"),
        (_bad_scene(tmp_path, "robot: lwr4\ncolour: red\ntasks: []\n"), "colour"),
        (
            _bad_scene(tmp_path, "robot: lwr4\ntasks:\n  - {name: e, type: cart, tip: nowhere}\n"),
            "tasks[0].tip",
        ),
        (
            _bad_scene(tmp_path, "robot: lwr4\ntasks: [{name: c, type: com, target: [1, 2]}]\n"),
            "tasks[0].target",
        ),
        (_bad_scene(tmp_path, "robot: lwr4\ntasks: [{name: c, type: com, kp: -1}]\n"), "kp"),
        (
            _bad_scene(tmp_path, "robot: lwr4\nsteps: 3\nduration: 1\ntasks: [{name: c, type: com}]\n"),
            "steps",
        ),
        (_bad_scene(tmp_path, "robot: nosuchrobot\ntasks: [{name: c, type: com}]\n"), "nosuchrobot"),
        (_bad_scene(tmp_path, "robot: [unbalanced\n"), "YAML"),
    ]
    for path, needle in cases:
        assert main(["scene", path, "--quiet"]) == 2, needle
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and needle in err, err
    with pytest.raises(SystemExit) as info:  # argparse: missing CONFIG
        main(["scene"])
    assert info.value.code == 2 and "CONFIG" in capsys.readouterr().err


def test_scene_file_loader_targets_and_errors():
    doc = {
        "robot": "lwr4",
        "q0": {"lwr_joint_2": 0.5, "lwr_joint_4": -1.0},
        "steps": 2,
        "tasks": [
            {
                "name": "ee",
                "type": "cart",
                "tip": "lwr_ee",
                "target": {"position": [0.3, 0.1, 0.8], "quaternion": [0, 0, 0, 2]},
            },
            {
                "name": "j",
                "type": "jnt",
                "joint_names": ["lwr_joint_3", "lwr_joint_1"],
                "target": {"lwr_joint_1": 0.2},
            },
            {"name": "com", "type": "com", "target": {"offset": [0.0, 0.0, -0.1]}, "kp": [1, 2, 3]},
        ],
    }
    setup = load_scene_file(doc)
    q = setup.q0
    assert q[1] == 0.5 and q[3] == -1.0 and q[0] == 0.0
    ee, j, com = setup.targets
    np.testing.assert_allclose(ee.target.translation, [0.3, 0.1, 0.8])
    np.testing.assert_allclose(ee.target.rotation, np.eye(3), atol=1e-15)
    np.testing.assert_allclose(j.target, [0.0, 0.2])  # joint 3 keeps its initial 0.0
    data = setup.robot.model.createData()
    c0 = pin.centerOfMass(setup.robot.model, data, q)
    np.testing.assert_allclose(com.target, c0 + np.array([0, 0, -0.1]), atol=1e-12)
    np.testing.assert_allclose(ee.controller.kd, 20.0)  # default kd = 2 sqrt(kp)
    for bad, field in [
        ({**doc, "q0": [0.0] * 6}, "q0"),
        ({**doc, "q0": {"elbow": 1.0}}, "q0.elbow"),
        ({**doc, "dt": 0}, "dt"),
        ({**doc, "steps": 0}, "steps"),
        (
            {**doc, "tasks": [{"name": "e", "type": "cart", "tip": "lwr_ee", "target": {"pos": [0, 0, 0]}}]},
            "tasks[0].target.pos",
        ),
        (
            {
                **doc,
                "tasks": [
                    {
                        "name": "e",
                        "type": "cart",
                        "tip": "lwr_ee",
                        "target": {"position": [0, 0, 0], "offset": [0, 0, 0]},
                    }
                ],
            },
            "tasks[0].target",
        ),
        (
            {
                **doc,
                "tasks": [
                    {"name": "j", "type": "jnt", "joint_names": ["lwr_joint_1"], "target": {"lwr_joint_2": 1}}
                ],
            },
            "tasks[0].target.lwr_joint_2",
        ),
        (
            {**doc, "tasks": [{"name": "j", "type": "jnt", "joint_names": ["lwr_joint_1"], "kd": [1, 2]}]},
            "tasks[0].kd",
        ),
        ({**doc, "tasks": "none"}, "tasks"),
        ({"tasks": []}, "robot"),
    ]:
        with pytest.raises(ConfigError) as info:
            load_scene_file(bad)
        assert info.value.field == field
    with pytest.raises(ConfigKeyError):
        load_scene_file({**doc, "joint_limit": True})


def test_floating_base_scene_file_runs():
    talos = example_robot("talos")
    bent = {
        f"leg_{side}_{k}_joint": a for side in ("left", "right") for k, a in ((3, -0.4), (4, 0.8), (5, -0.4))
    }
    doc = {
        "robot": "talos",
        "q0": {"root_joint:z": 1.0, **bent},
        "steps": 5,
        "joint_limits": True,
        "tasks": [
            {"name": "com", "type": "com", "target": {"offset": [0.0, 0.0, -0.02]}},
            {"name": "lf", "type": "cart", "root": "universe", "tip": "left_sole_link"},
            {"name": "rf", "type": "cart", "root": "universe", "tip": "right_sole_link"},
            {
                "name": "posture",
                "type": "jnt",
                "priority": 1,
                "kp": 10,
                "joint_names": [n for n in talos.joint_names if n != "root_joint"],
            },
        ],
    }
    result = SceneSimulation(load_scene_file(doc)).run()
    assert result.time.shape == (6,) and result.step_us.shape == (5,)
    assert set(result.final_errors()) >= {"com [m]", "lf position [m]", "posture [rad|m]"}
    errors = result.final_errors()
    assert errors["lf position [m]"] < 1e-6 and errors["rf rotation [rad]"] < 1e-6  # feet held in place
    assert errors["com [m]"] < result.errors["com [m]"][0]  # the COM moves towards its target
    assert result.limit_violation["position"] == 0.0


def test_python_example_matches_the_yaml_scene():
    spec = importlib.util.spec_from_file_location("scene_reach_example", EXAMPLE_PY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = module.main(steps=60, verbose=False)
    sim = SceneSimulation(load_scene_file(EXAMPLE_YAML, steps=60))
    errors = sim.run().final_errors()
    assert out["position_error"] == pytest.approx(errors["ee position [m]"], rel=1e-9, abs=1e-12)
    assert out["rotation_error"] == pytest.approx(errors["ee rotation [rad]"], rel=1e-9, abs=1e-12)
    assert out["position_error"] < 0.2  # moving towards the 0.206 m target


def test_example_script_and_module_entry_point_run():
    proc = subprocess.run(
        [sys.executable, str(EXAMPLE_PY), "--steps", "10"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        env={**__import__("os").environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr
    assert "10 steps" in proc.stdout and "posture" in proc.stdout
    proc = subprocess.run(
        [sys.executable, "-m", "wbcpy", "scene", str(EXAMPLE_YAML), "--steps", "10"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        env={**__import__("os").environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr
    assert "10/10 steps" in proc.stderr and "update()+solve() per step" in proc.stdout
