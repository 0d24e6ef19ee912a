"""``--chains CONFIG`` of ``wbcpy info``: the chain table of an arl chain configuration.

Kept apart from ``info.py`` so that command only gains the option and one call.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..reporting import model_chain_table

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel


def add_chains_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--chains CONFIG`` (an arl chain configuration YAML, see ``robots/bimanual_chains.yaml``)."""
    parser.add_argument(
        "--chains",
        metavar="CONFIG",
        default=None,
        help="arl chain configuration (YAML) to apply to ROBOT: print its chain table",
    )


def chain_table(config: str, robot: RobotModel) -> str:
    """The chain table of ``config`` applied to ``robot`` (its ``locked_joints`` are honoured).

    Columns: chain, main (yes/no), base -> tip, number of joints, joint names, global indices (position in
    the main chains' concatenation) and position limits [lower,upper] per joint (rad or m).

    Raises:
        ConfigError, UnknownNameError: a bad configuration (the CLI turns them into exit code 2).
    """
    from ..arl import Model

    return model_chain_table(Model.from_config(config, robot=robot))
