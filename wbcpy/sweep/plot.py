"""Plots of sweep results (matplotlib, the ``plot`` extra): a metric over one or two swept parameters.

* Two parameters: a heat map of the metric's mean over the runs of each (x, y) cell (other parameters
  and random samples averaged), with the value written in each cell.
* One parameter: the metric's mean against the parameter — for ``success`` the success rate.

Runs that failed (status other than ``ok``) count as failures for ``success`` and are left out of the
mean of any other metric. Parameter values are shown in grid order as categories, so numbers, solver
names and lists all work.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..viz.plotting import have_matplotlib


def _value(row: Mapping[str, Any], metric: str) -> float:
    ok = str(row.get("status", "ok")) == "ok"
    if metric == "success" and not ok:
        return 0.0
    cell = row.get(metric)
    if not ok or cell is None or cell == "":
        return math.nan
    try:
        return float(cell)
    except (TypeError, ValueError):
        return math.nan


def _levels(rows: Sequence[Mapping[str, Any]], param: str, order: Sequence[Any] | None) -> list[str]:
    if order is not None:
        return [str(v) for v in order]
    return list(dict.fromkeys(str(r[param]) for r in rows))


def aggregate(
    rows: Sequence[Mapping[str, Any]],
    metric: str,
    params: Sequence[str],
    order: Mapping[str, Sequence[Any]] | None = None,
) -> tuple[list[list[str]], np.ndarray]:
    """Mean of ``metric`` per combination of ``params`` values.

    Args:
        rows: result rows (from :func:`~wbcpy.sweep.read_results` or :func:`~wbcpy.sweep.run_sweep`).
        metric: the metric column.
        params: one or two parameter columns.
        order: parameter → its values in display order (default: order of first appearance).

    Returns:
        (levels per parameter as strings, array of means with one axis per parameter; NaN where no run
        of that cell has a value).
    """
    levels = [_levels(rows, p, (order or {}).get(p)) for p in params]
    index = [{v: i for i, v in enumerate(lv)} for lv in levels]
    total = np.zeros([len(lv) for lv in levels])
    count = np.zeros_like(total)
    for row in rows:
        value = _value(row, metric)
        if math.isnan(value):
            continue
        cell = tuple(ix[str(row[p])] for ix, p in zip(index, params, strict=True))
        total[cell] += value
        count[cell] += 1
    with np.errstate(invalid="ignore", divide="ignore"):
        return levels, np.where(count > 0, total / np.maximum(count, 1), np.nan)


def plot_sweep(
    path: str | Path,
    rows: Sequence[Mapping[str, Any]],
    metric: str,
    params: Sequence[str],
    order: Mapping[str, Sequence[Any]] | None = None,
    title: str = "",
) -> bool:
    """Save a heat map (two parameters) or a curve (one parameter) of ``metric`` to ``path`` (PNG).

    Returns:
        False, writing nothing, when matplotlib is not installed.

    Raises:
        ValueError: not one or two parameters, or a column missing from the rows.
    """
    if len(params) not in (1, 2):
        raise ValueError(f"plot one or two parameters, got {list(params)}")
    for column in (*params, metric):
        if rows and column not in rows[0]:
            raise ValueError(f"no column {column!r} in the results")
    if not have_matplotlib():
        return False
    from matplotlib.figure import Figure

    levels, mean = aggregate(rows, metric, params, order)
    label = "success rate" if metric == "success" else f"mean {metric}"
    fig = Figure(figsize=(7.5, 5), layout="constrained")
    ax = fig.add_subplot(1, 1, 1)
    if len(params) == 1:
        ax.plot(range(len(levels[0])), mean, "o-")
        ax.set_xticks(range(len(levels[0])), levels[0])
        ax.set_xlabel(params[0])
        ax.set_ylabel(label)
        if metric == "success":
            ax.set_ylim(-0.05, 1.05)
        ax.grid(True, alpha=0.3)
    else:
        vmin, vmax = (0.0, 1.0) if metric == "success" else (None, None)
        image = ax.imshow(mean.T, origin="lower", aspect="auto", cmap="viridis", vmin=vmin, vmax=vmax)
        ax.set_xticks(range(len(levels[0])), levels[0])
        ax.set_yticks(range(len(levels[1])), levels[1])
        ax.set_xlabel(params[0])
        ax.set_ylabel(params[1])
        fig.colorbar(image, ax=ax, label=label)
        shade = np.asarray(image.norm(mean))  # the cells' positions on the colour scale, 0..1
        for (i, j), value in np.ndenumerate(mean):
            dark = math.isnan(value) or shade[i, j] < 0.6  # white text on the dark end of viridis
            text = "–" if math.isnan(value) else f"{value:.3g}"
            ax.text(i, j, text, ha="center", va="center", color="w" if dark else "k")
    ax.set_title(title or f"{label} over {' × '.join(params)}")
    fig.savefig(path, dpi=100)
    return True
