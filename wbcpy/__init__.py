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
    EffortLimitWarning,
    InvalidValueError,
    MissingDependencyError,
    MissingReferenceWarning,
    MJCFError,
    ModelError,
    QPSolveError,
    ReadOnlyAttributeError,
    SRDFError,
    StateNotSetError,
    UnknownNameError,
    URDFError,
    URDFNotFoundError,
    URDFWarning,
    WalkingWarning,
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
    "EffortLimitWarning",
    "InvalidValueError",
    "InverseDynamicsScene",
    "MJCFError",
    "MissingDependencyError",
    "MissingReferenceWarning",
    "ModelError",
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
    "WalkingWarning",
    "WbcpyError",
    "__version__",
    "available_robots",
    "load_robot",
]


#: sub-packages and modules imported on first access (``wbcpy.jspace``...), so ``import wbcpy`` stays light
_SUBMODULES = ("arl", "cli", "collision", "controllers", "ik", "jspace", "qp", "scenes", "tasks")
#: classes imported on first access: name -> the module that defines it
_LAZY = {
    "AccelerationScene": ".scenes.acceleration_scene",
    "InverseDynamicsScene": ".scenes.inverse_dynamics_scene",
    "AccelerationSceneTSID": ".scenes.inverse_dynamics_scene",
    "VelocityScene": ".scenes.velocity_scene",
    "Chain": ".model.chain",
}

if TYPE_CHECKING:  # what editors and type checkers see; keep in step with _SUBMODULES and _LAZY
    from . import arl as arl
    from . import cli as cli
    from . import collision as collision
    from . import controllers as controllers
    from . import ik as ik
    from . import jspace as jspace
    from . import qp as qp
    from . import scenes as scenes
    from . import tasks as tasks
    from .model.chain import Chain as Chain
    from .scenes.acceleration_scene import AccelerationScene as AccelerationScene
    from .scenes.inverse_dynamics_scene import AccelerationSceneTSID as AccelerationSceneTSID
    from .scenes.inverse_dynamics_scene import InverseDynamicsScene as InverseDynamicsScene
    from .scenes.velocity_scene import VelocityScene as VelocityScene


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
