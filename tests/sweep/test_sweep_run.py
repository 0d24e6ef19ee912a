"""run_one and the metrics against closed forms; result files; plots (no Dask needed).

Oracles: with joint limits off and one task at the top priority, the task-space error of a PD law under
semi-implicit Euler follows the scalar recursion u ← u + dt (kp e − kd u), e ← e − dt u from e = 1, u = 0
(exact in joint space, to 2 % in Cartesian space where forward kinematics is not linear). The recursion
is written here, independently of the simulation code.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _sweep_helpers import JOINTS, Q0, reach_scene, write_sweep
from hypothesis import given, settings
from hypothesis import strategies as st

from wbcpy.errors import ConfigError, QPSolveError
from wbcpy.model.registry import load_robot
from wbcpy.sweep import ResultWriter, completed_ids, load_sweep, plot_sweep, read_results, run_one
from wbcpy.sweep.plot import aggregate
from wbcpy.sweep.run import build_setup, simulate

DT = 0.001
UPPER_1 = 2.9670597283903604  # lwr_joint_1 upper limit in robots/lwr4.urdf


def pd_recursion(kp: float, kd: float, steps: int, hold: tuple[int, ...] = ()) -> tuple[np.ndarray, float]:
    """|e_k| / |e_0| for k = 0..steps, and max |a_k| / |e_0|; at steps in ``hold`` the last a is reused."""
    e, u, a = 1.0, 0.0, 0.0
    out, amax = [e], 0.0
    for k in range(steps):
        if k not in hold:
            a = kp * e - kd * u
        amax = max(amax, abs(a))
        u += a * DT
        e -= u * DT
        out.append(e)
    return np.abs(np.array(out)), amax


def joint_scene(offset: list[float], q0: list[float] | None = None, limits: bool = False) -> dict:
    return {
        "robot": "lwr4",
        "q0": q0 or list(Q0),
        "dt": DT,
        "steps": 300,
        "joint_limits": limits,
        "tasks": [
            {"name": "posture", "type": "jnt", "joint_names": JOINTS, "target": {"offset": offset}, "kd": 20}
        ],
    }


def test_cartesian_errors_follow_the_pd_recursion(tmp_path):
    scene = reach_scene(joint_limits=False)
    scene["tasks"] = scene["tasks"][:1]
    offset = np.array([0.03, -0.04, 0.02])
    scene["tasks"][0]["target"] = {"offset": offset.tolist()}
    scene["steps"] = 300
    grid = {"tasks.ee.kp": [100, 400], "tasks.ee.kd": [20, 40]}
    spec = load_sweep(write_sweep(tmp_path, {"grid": grid, "tolerances": {"ee": [0.005, 0.01]}}, scene))
    for run in spec.runs():
        row = run_one(spec, run)
        assert row["status"] == "ok"
        kp, kd = run.params["tasks.ee.kp"], run.params["tasks.ee.kd"]
        expected = pd_recursion(kp, kd, 300)[0] * np.linalg.norm(offset)
        assert row["final_error.ee.position"] == pytest.approx(expected[-1], rel=2e-2, abs=1e-6)
        assert row["rms_error.ee.position"] == pytest.approx(np.sqrt(np.mean(expected**2)), rel=1e-3)
        assert row["final_error.ee.rotation"] < 1e-5  # the orientation target is the start's
        assert row["final_error"] == max(row["final_error.ee.position"], row["final_error.ee.rotation"])
        assert row["success"] == int(expected[-1] < 0.005)
        assert row["qp_failures"] == 0 and row["solve_time_median"] > 0
    assert {run_one(spec, r)["success"] for r in spec.runs()} == {0, 1}  # the tolerance separates runs


def test_joint_task_acceleration_and_limit_excess_in_closed_form(tmp_path):
    q0 = [2.9, *Q0[1:]]
    offset = [0.2, -0.1, 0.05, 0.0, 0.0, 0.0, 0.0]
    spec = load_sweep(
        write_sweep(
            tmp_path,
            {"grid": {"tasks.posture.kp": [100.0]}, "tolerances": {"posture": 0.05}},
            joint_scene(offset, q0),
        )
    )
    row = run_one(spec, next(spec.runs()))
    ratio, amax = pd_recursion(100.0, 20.0, 300)
    assert row["max_acceleration"] == pytest.approx(amax * 0.2, rel=1e-7)  # kp·max|δ| at the first step
    assert row["final_error.posture"] == pytest.approx(ratio[-1] * np.linalg.norm(offset), rel=1e-6)
    q_final = 2.9 + 0.2 * (1.0 - ratio[-1])  # critically damped: no overshoot, the last q is the largest
    assert row["limit_violation.position"] == pytest.approx(q_final - UPPER_1, rel=1e-6)
    assert row["limit_violation.velocity"] == 0.0  # peak ω·δ/e ≈ 0.74 rad/s < 1.92 rad/s
    assert row["success"] == int(ratio[-1] * np.linalg.norm(offset) <= 0.05)


def test_joint_limits_on_keep_the_excess_at_zero(tmp_path):
    spec = load_sweep(
        write_sweep(
            tmp_path,
            {"grid": {"tasks.posture.kp": [100.0]}},
            joint_scene([0.2, 0, 0, 0, 0, 0, 0], [2.9, *Q0[1:]], limits=True),
        )
    )
    row = run_one(spec, next(spec.runs()))
    assert row["status"] == "ok"
    assert max(row[f"limit_violation.{k}"] for k in ("position", "velocity", "acceleration")) <= 1e-9
    assert row["final_error.posture"] > 0.2 - (UPPER_1 - 2.9) - 1e-6  # the target is out of reach


def test_a_failed_qp_step_is_counted_and_the_last_command_held(tmp_path, monkeypatch):
    spec = load_sweep(
        write_sweep(tmp_path, {"steps": 60, "grid": {"tasks.posture.kp": [100.0]}}, joint_scene([0.1] * 7))
    )
    setup = build_setup(spec, next(spec.runs()))
    solve, calls = setup.scene.solve, [0]

    def flaky(hqp=None):
        calls[0] += 1
        if calls[0] in (3, 4, 5):
            raise QPSolveError("injected", "test failure")
        return solve(hqp)

    monkeypatch.setattr(setup.scene, "solve", flaky)
    record = simulate(setup)
    assert record.qp_failures == 3
    assert np.isnan(record.step_us[2:5]).all() and np.isfinite(record.step_us[5:]).all()
    expected = pd_recursion(100.0, 20.0, 60, hold=(2, 3, 4))[0] * np.linalg.norm([0.1] * 7)
    np.testing.assert_allclose(record.errors[:, 0], expected, rtol=1e-6)
    unheld = pd_recursion(100.0, 20.0, 60)[0] * np.linalg.norm([0.1] * 7)
    assert abs(unheld[-1] - expected[-1]) > 1e-4  # holding the command changed the trajectory


def test_a_run_that_raises_records_the_error_and_no_metrics(tmp_path):
    spec = load_sweep(write_sweep(tmp_path, {"steps": 5, "grid": {"tasks.ee.kp": [100.0, math.nan]}}))
    good, bad = (run_one(spec, r) for r in spec.runs())
    assert good["status"] == "ok" and "final_error" in good
    assert bad["status"].startswith("ConfigError: tasks[0].kp")
    assert set(bad) == {"run_id", "tasks.ee.kp", "status", "wall_time"}


def test_run_one_is_pure_and_noise_is_shared_across_the_grid(tmp_path):
    sweep = {"steps": 20, "grid": {"tasks.ee.kp": [50, 100]}, "random": {"n": 2, "seed": 7, "q0_noise": 0.05}}
    spec = load_sweep(write_sweep(tmp_path, sweep))
    runs = list(spec.runs())
    first = run_one(spec, runs[1])
    again = run_one(spec, runs[1])
    assert [first[c] for c in spec.deterministic_columns] == [again[c] for c in spec.deterministic_columns]
    robot = load_robot("lwr4")
    noise = [robot.dof_from_q(build_setup(spec, r).q0) - Q0 for r in runs]
    assert np.array_equal(noise[0], noise[2]) and np.array_equal(
        noise[1], noise[3]
    )  # same sample, same noise
    assert not np.allclose(noise[0], noise[1])
    assert all(np.abs(n).max() <= 0.05 and np.abs(n).max() > 0.005 for n in noise)
    assert first["final_error"] != run_one(spec, runs[0])["final_error"]
    # the target is the unperturbed scene's: a noise-free build has the same one
    nominal = build_setup(
        load_sweep(write_sweep(tmp_path, {"steps": 20, "grid": {"tasks.ee.kp": [50]}})), runs[0]
    )
    noisy = build_setup(spec, runs[1])
    assert np.array_equal(nominal.targets[0].target.translation, noisy.targets[0].target.translation)


# ---------------------------------------------------------------- result files
@settings(max_examples=30, deadline=None)
@given(values=st.lists(st.floats(allow_nan=False), min_size=1, max_size=5))
def test_result_rows_round_trip_floats_bit_for_bit(tmp_path_factory, values):
    path = tmp_path_factory.mktemp("csv") / "r.csv"
    with ResultWriter(path, ["run_id", "x", "status"]) as writer:
        for i, v in enumerate(values):
            writer.write({"run_id": i, "x": v, "status": "ok"})
    header, rows = read_results(path)
    assert header == ["run_id", "x", "status"]
    assert [float(r["x"]) for r in rows] == values
    assert completed_ids(path, header) == set(range(len(values)))


def test_resume_drops_a_truncated_last_line_and_refuses_other_sweeps(tmp_path):
    path = tmp_path / "r.csv"
    columns = ["run_id", "x", "status"]
    with ResultWriter(path, columns) as writer:
        writer.write({"run_id": 0, "x": 1.5, "status": "ok"})
        writer.write({"run_id": 4, "status": "ValueError: boom"})
        with pytest.raises(ValueError, match="extra"):
            writer.write({"run_id": 5, "extra": 1})
    with path.open("a") as fh:
        fh.write("7,2.")  # a kill in the middle of a row
    assert completed_ids(path, columns) == {0, 4}
    assert path.read_text().endswith("ValueError: boom\n")
    with ResultWriter(path, columns, append=True) as writer:
        writer.write({"run_id": 7, "x": 2.5, "status": "ok"})
    assert [r["run_id"] for r in read_results(path)[1]] == ["0", "4", "7"]
    with pytest.raises(ConfigError) as info:
        completed_ids(path, ["run_id", "y", "status"])
    assert info.value.field == "out"
    assert completed_ids(tmp_path / "absent.csv", columns) == set()


# ---------------------------------------------------------------- plots
ROWS = [
    {"a": "1", "b": "x", "success": "1", "err": "0.5", "status": "ok"},
    {"a": "1", "b": "x", "success": "0", "err": "1.5", "status": "ok"},
    {"a": "1", "b": "y", "success": "", "err": "", "status": "ConfigError: bad"},
    {"a": "2", "b": "y", "success": "1", "err": "3.0", "status": "ok"},
]


def test_aggregate_means_per_cell_failed_runs_count_as_failures():
    levels, mean = aggregate(ROWS, "success", ["a", "b"])
    assert levels == [["1", "2"], ["x", "y"]]
    np.testing.assert_array_equal(mean, [[0.5, 0.0], [np.nan, 1.0]])
    levels, mean = aggregate(ROWS, "err", ["a"], order={"a": [2, 1]})
    assert levels == [["2", "1"]]
    np.testing.assert_array_equal(mean, [3.0, 1.0])  # the failed run is left out of the mean


def test_plots_are_pngs(tmp_path, monkeypatch):
    heat, curve = tmp_path / "heat.png", tmp_path / "curve.png"
    assert plot_sweep(heat, ROWS, "err", ["a", "b"])
    assert plot_sweep(curve, ROWS, "success", ["a"])
    for path in (heat, curve):
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="no column"):
        plot_sweep(tmp_path / "x.png", ROWS, "nope", ["a"])
    monkeypatch.setitem(__import__("sys").modules, "matplotlib", None)
    assert not plot_sweep(tmp_path / "none.png", ROWS, "err", ["a"])
    assert not (tmp_path / "none.png").exists()


def test_contact_metrics_come_from_the_contact_record():
    from wbcpy.sweep.metrics import ContactRecord, RunRecord, Series, compute_metrics

    series = (Series("ee.position", "ee", "position"),)
    record = RunRecord(np.zeros((3, 1)), np.ones(2), 0.0, {}, 0, ContactRecord(0.75, 120.5))
    names = ["max_torque_ratio", "min_normal_force"]
    assert compute_metrics(record, names, series, {}) == {"max_torque_ratio": 0.75, "min_normal_force": 120.5}
    record.contact = None  # a run that recorded no contact data leaves the cells empty
    assert compute_metrics(record, names, series, {}) == {}
