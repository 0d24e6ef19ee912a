"""wbcpy: whole-body control in Python on Pinocchio.

Four programming models over one Pinocchio model: :mod:`wbcpy.jspace` (Stanford-WBC), :mod:`wbcpy.arl`
(AUTh-ARL multi-chain), :class:`wbcpy.AccelerationScene` (DFKI/ARC-OPT wbc) and
:mod:`wbcpy.ik` (iCub iKin minimum-jerk controller).
"""

from __future__ import annotations

from .errors import (
    ConcurrentUseError,
    ConfigError,
    ConfigKeyError,
    InvalidValueError,
    QPSolveError,
    SRDFError,
    StateNotSetError,
    UnknownNameError,
    URDFError,
    URDFNotFoundError,
    URDFWarning,
    WbcpyError,
)
from .robot import RobotModel
from .robots import available as available_robots
from .robots import load_robot

try:
    from importlib.metadata import PackageNotFoundError as _NotInstalled
    from importlib.metadata import version as _version

    __version__ = _version("wbcpy")
except _NotInstalled:  # pragma: no cover - a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "ConcurrentUseError",
    "ConfigError",
    "ConfigKeyError",
    "InvalidValueError",
    "QPSolveError",
    "RobotModel",
    "SRDFError",
    "StateNotSetError",
    "URDFError",
    "URDFNotFoundError",
    "URDFWarning",
    "UnknownNameError",
    "WbcpyError",
    "__version__",
    "available_robots",
    "load_robot",
]


_SUBMODULES = ("arl", "chain", "cli", "controllers", "ik", "jspace", "qp", "scenes", "tasks")


def __getattr__(name: str) -> object:
    """Lazy access to sub-packages (``wbcpy.jspace``, ``wbcpy.arl``...) and ``wbcpy.AccelerationScene``."""
    import importlib

    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    if name in ("AccelerationScene", "InverseDynamicsScene", "AccelerationSceneTSID"):
        from . import scenes

        return getattr(scenes, name)
    if name == "Chain":
        from .chain import Chain

        return Chain
    raise AttributeError(f"module 'wbcpy' has no attribute {name!r}")
