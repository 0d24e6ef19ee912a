"""wbcpy: whole-body control in Python on Pinocchio.

Four programming models over one Pinocchio model: :mod:`wbcpy.jspace` (Stanford-WBC), :mod:`wbcpy.arl`
(AUTh-ARL multi-chain), :class:`wbcpy.AccelerationScene` and :class:`wbcpy.VelocityScene` (DFKI/ARC-OPT
wbc) and :mod:`wbcpy.ik` (iCub iKin minimum-jerk controller).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import (
    ConcurrentUseError,
    ConfigError,
    ConfigKeyError,
    InvalidValueError,
    MissingReferenceWarning,
    QPSolveError,
    ReadOnlyAttributeError,
    SRDFError,
    StateNotSetError,
    UnknownNameError,
    URDFError,
    URDFNotFoundError,
    URDFWarning,
    WbcpyError,
)
from .model.registry import available as available_robots
from .model.registry import load_robot
from .model.robot_model import RobotModel

try:
    from importlib.metadata import PackageNotFoundError as _NotInstalled
    from importlib.metadata import version as _version

    #: the installed distribution's version (package metadata, i.e. pyproject's ``version``)
    __version__ = _version("wbcpy")
except _NotInstalled:  # pragma: no cover - a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "AccelerationScene",
    "AccelerationSceneTSID",
    "Chain",
    "ConcurrentUseError",
    "ConfigError",
    "ConfigKeyError",
    "InvalidValueError",
    "InverseDynamicsScene",
    "MissingReferenceWarning",
    "QPSolveError",
    "ReadOnlyAttributeError",
    "RobotModel",
    "SRDFError",
    "StateNotSetError",
    "URDFError",
    "URDFNotFoundError",
    "URDFWarning",
    "UnknownNameError",
    "VelocityScene",
    "WbcpyError",
    "__version__",
    "available_robots",
    "load_robot",
]


#: sub-packages and modules imported on first access (``wbcpy.jspace``...), so ``import wbcpy`` stays light
_SUBMODULES = ("arl", "chain", "cli", "collision", "controllers", "ik", "jspace", "qp", "scenes", "tasks")
#: classes imported on first access: name -> module that defines or re-exports it
_LAZY = {
    "AccelerationScene": ".scenes",
    "InverseDynamicsScene": ".scenes",
    "AccelerationSceneTSID": ".scenes",
    "VelocityScene": ".scenes",
    "Chain": ".chain",
}

if TYPE_CHECKING:  # what editors and type checkers see; keep in step with _SUBMODULES and _LAZY
    from . import arl as arl
    from . import cli as cli
    from . import controllers as controllers
    from . import ik as ik
    from . import jspace as jspace
    from . import qp as qp
    from . import scenes as scenes
    from . import tasks as tasks
    from .limits import collision as collision
    from .model import chain as chain
    from .model.chain import Chain as Chain
    from .scenes import AccelerationScene as AccelerationScene
    from .scenes import AccelerationSceneTSID as AccelerationSceneTSID
    from .scenes import InverseDynamicsScene as InverseDynamicsScene
    from .scenes import VelocityScene as VelocityScene


def __getattr__(name: str) -> object:
    """Lazy access to sub-packages (``wbcpy.jspace``, ``wbcpy.arl``...) and ``wbcpy.AccelerationScene``."""
    import importlib

    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module 'wbcpy' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The module's names plus the lazily loaded ones, so ``dir(wbcpy)`` and completion list them."""
    return sorted({*globals(), *_SUBMODULES, *_LAZY})
