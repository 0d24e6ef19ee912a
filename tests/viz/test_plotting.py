"""Plots (issue 12 item 12): one panel per joint with its own limits and unit, equal 3-D scales, the
reach's error and bell-shaped speed profile."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("matplotlib", reason="plots need the wbcpy[plot] extra")

from matplotlib.colors import to_rgba

from wbcpy import load_robot
from wbcpy.demo.models import run_demo
from wbcpy.viz.plotting import joint_figure, joint_units, reach_profiles, set_equal_3d


def test_each_joint_has_its_own_panel_limits_colour_and_unit() -> None:
    t = np.linspace(0, 1, 50)
    q = np.column_stack([np.sin(t), 0.1 * t, np.cos(t)])
    names, lower, upper = ["a", "slide", "c"], np.array([-1, 0, -2.0]), np.array([1, 0.5, 2.0])
    fig = joint_figure(t, q, names, lower, upper, "test", ["rad", "m", "rad"])
    axes = fig.get_axes()
    assert len(axes) == 3
    colours = set()
    for ax, name, unit, lo, hi in zip(axes, names, ["rad", "m", "rad"], lower, upper, strict=True):
        assert ax.get_title().startswith(f"{name} [{unit}]")
        line, *limits = ax.get_lines()
        assert sorted(lim.get_ydata()[0] for lim in limits) == [lo, hi]
        assert all(to_rgba(lim.get_color()) == to_rgba(line.get_color()) for lim in limits)
        assert ax.get_legend() is None
        colours.add(to_rgba(line.get_color()))
    assert len(colours) == 3


def test_joint_units_follow_the_joint_type(robots_dir: Path) -> None:
    robot = load_robot("rp_unit_mass")
    assert joint_units(robot, ["joint1", "joint2"]) == ["rad", "m"]


def test_3d_axes_have_equal_scales() -> None:
    from matplotlib.figure import Figure

    ax = Figure().add_subplot(projection="3d")
    points = np.array([[0.0, 0.0, 0.0], [1.0, 0.1, 0.02]])
    set_equal_3d(ax, points)
    spans = [np.diff(lim)[0] for lim in (ax.get_xlim(), ax.get_ylim(), ax.get_zlim())]
    np.testing.assert_allclose(spans, spans[0])


def test_demo_reach_speed_is_bell_shaped(tmp_path: Path) -> None:
    result = run_demo(tmp_path, plots=False, out=io.StringIO(), progress=False, parts=("reach",))
    reach = result.reach
    error, speed = reach_profiles(reach)
    tips = np.asarray(reach.tips)
    np.testing.assert_allclose(error, np.linalg.norm(tips - reach.target.translation, axis=1))
    np.testing.assert_allclose(speed[5], np.linalg.norm(tips[6] - tips[5]) / (reach.time[6] - reach.time[5]))
    peak = int(np.argmax(speed))
    assert 0 < peak < len(speed) - 1
    assert speed[0] < 0.1 * speed[peak] and speed[-1] < 0.1 * speed[peak]
    assert error[-1] < 1e-3 < error[0]


def _inside_figure(fig: object, artist: object) -> bool:
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    box = artist.get_window_extent(renderer)  # type: ignore[attr-defined]
    width, height = fig.canvas.get_width_height()  # type: ignore[attr-defined]
    return bool(box.x0 >= -0.5 and box.y0 >= -0.5 and box.x1 <= width + 0.5 and box.y1 <= height + 0.5)


def test_task_errors_one_log_axis_per_unit_no_zero_spike_nothing_clipped() -> None:
    """Issue 29, point 7: one axis per unit (never m and rad on one log axis), an error that is exactly 0
    (a task starting on its target) is left out instead of drawn at 1e-12, every label and legend inside
    the image, the legends beside their axes (no gap above a legend under the plot)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from wbcpy.viz.plotting import error_units, log_values, task_error_figure

    t = np.linspace(0.0, 1.0, 101)
    errors = {
        "ee position [m]": 0.1 * np.exp(-5 * t),
        "ee rotation [rad]": 0.2 * np.exp(-5 * t),
        "posture [rad|m]": np.where(t > 0, 0.5 * (1 - np.exp(-20 * t)), 0.0),
        "com [m]": 0.05 * np.exp(-3 * t),
    }
    assert list(error_units(errors)) == ["m", "rad", "rad|m"]
    fig = task_error_figure(t, errors, "run")
    FigureCanvasAgg(fig)  # the canvas savefig would use, to measure the text
    axes = [ax for ax in fig.axes if ax.get_lines()]
    assert len(axes) == 3
    for ax in axes:
        units = {label.rsplit("[", 1)[1] for label in (ln.get_label() for ln in ax.get_lines())}
        assert len(units) == 1 and ax.get_yscale() == "log"
        assert ax.get_ylabel() == f"error [{units.pop()[:-1]}]"
        for line in ax.get_lines():
            y = np.asarray(line.get_ydata(), dtype=float)
            assert np.all(np.isnan(y) | (y > 0))
            assert np.nanmin(y) > 1e-6  # no spike down to an arbitrary floor
        fig.canvas.draw()
        assert _inside_figure(fig, ax.yaxis.label) and _inside_figure(fig, ax.get_legend())
    posture = next(ln for ax in axes for ln in ax.get_lines() if ln.get_label().startswith("posture"))
    assert np.isnan(posture.get_ydata()[0])  # t = 0: exactly on target, left out
    assert np.array_equal(np.isnan(log_values([0.0, -1.0, np.inf, 2.0])), [True, True, True, False])
