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
