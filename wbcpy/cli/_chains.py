"""``--chains CONFIG`` of ``wbcpy info``: the chain table of an arl chain configuration.

Kept apart from ``info.py`` so that command only gains the option and one call.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from .common import format_table

if TYPE_CHECKING:
    import numpy as np

    from ..arl import Model
    from ..robot import RobotModel

__all__ = ["add_chains_argument", "chain_table", "model_chain_table"]


def add_chains_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--chains CONFIG`` (an arl chain configuration YAML, see ``robots/bimanual_chains.yaml``)."""
    parser.add_argument(
        "--chains",
        metavar="CONFIG",
        default=None,
        help="arl chain configuration (YAML) to apply to ROBOT: print its chain table",
    )


def _limits(lower: np.ndarray, upper: np.ndarray) -> str:
    return " ".join(f"[{lo:.4g},{hi:.4g}]" for lo, hi in zip(lower, upper, strict=True))


def chain_table(config: str, robot: RobotModel) -> str:
    """The chain table of ``config`` applied to ``robot`` (its ``locked_joints`` are honoured).

    Columns: chain, main (yes/no), base -> tip, number of joints, joint names, global indices (position in
    the main chains' concatenation) and position limits [lower,upper] per joint (rad or m).

    Raises:
        ConfigError, UnknownNameError: a bad configuration (the CLI turns them into exit code 2).
    """
    from ..arl import Model

    return model_chain_table(Model.from_config(config, robot=robot))


def model_chain_table(model: Model) -> str:
    """The chain table of an :class:`wbcpy.arl.Model` (see :func:`chain_table` for the columns)."""
    rows = []
    for i, chain in enumerate(model.chain):
        rows.append(
            (
                chain.name,
                "yes" if i < model.get_nr_of_main_chains() else "no",
                f"{chain.base} -> {chain.tip}",
                chain.n,
                ",".join(chain.joint_names),
                ",".join(str(g) for g in model.get_global_indices(i)),
                _limits(chain.lower, chain.upper),
            )
        )
    header = ("chain", "main", "base -> tip", "n", "joints", "global", "limits")
    title = (
        f"chains of {model.name}: {model.get_nr_of_chains()} chains, {model.get_nr_of_main_chains()} main, "
        f"{model.get_nr_of_joints()} joints"
    )
    return f"{title}\n{format_table(header, rows)}"
