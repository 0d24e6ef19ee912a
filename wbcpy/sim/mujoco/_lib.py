"""The ``mujoco`` package, imported on first use (wbcpy works without it: ``pip install 'wbcpy[mujoco]'``)."""

from __future__ import annotations

import importlib
from typing import Any

from ...errors import MissingDependencyError

_loaded: list[Any] = []  # the module once imported (the plant's hot loop asks for it at every step)


def mujoco_module(feature: str = "the MuJoCo plant") -> Any:
    """The imported ``mujoco`` module.

    Raises:
        MissingDependencyError: mujoco is not installed (also an ``ImportError``); the message says how
            to install it.
    """
    if _loaded:
        return _loaded[0]
    try:
        module = importlib.import_module("mujoco")
    except ImportError:
        raise MissingDependencyError("mujoco", "mujoco", feature) from None
    _loaded.append(module)
    return module
