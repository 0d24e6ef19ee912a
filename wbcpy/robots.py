"""Robot registry: names that resolve to URDF files.

Resolution order for :func:`load_robot`:

1. the URDFs shipped with wbcpy (``robots/`` in a checkout, installed as ``wbcpy/_robots``);
2. robots of ``example-robot-data`` (Panda, UR3/5/10, Talos, iCub, Baxter, Kinova, xArm7, ...) when that
   package is installed (PyPI wheels put its data under ``cmeel.prefix/share/example-robot-data``);
3. iCub models of ``icub-models`` when installed (names ``icub-models:<model>``);
4. otherwise the argument is treated as a path or a URDF XML string.

Robots whose real base is free-floating (humanoids, legged robots) default to ``floating_base=True``.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from functools import lru_cache
from pathlib import Path
from typing import Any

from .errors import UnknownNameError
from .robot import RobotModel

__all__ = ["available", "example_robot_data_dir", "load_robot", "robot_path", "shipped_robots_dir"]

#: name -> (path inside example-robot-data's robots/ folder, floating base by default)
EXAMPLE_ROBOTS: dict[str, tuple[str, bool]] = {
    "panda": ("panda_description/urdf/panda.urdf", False),
    "ur3": ("ur_description/urdf/ur3_robot.urdf", False),
    "ur5": ("ur_description/urdf/ur5_robot.urdf", False),
    "ur10": ("ur_description/urdf/ur10_robot.urdf", False),
    "talos": ("talos_data/robots/talos_reduced.urdf", True),
    "talos_full": ("talos_data/robots/talos_full_v2.urdf", True),
    "talos_arm": ("talos_data/robots/talos_left_arm.urdf", False),
    "icub": ("icub_description/robots/icub_reduced.urdf", True),
    "icub_full": ("icub_description/robots/icub.urdf", True),
    "baxter": ("baxter_description/urdf/baxter.urdf", False),
    "kinova": ("kinova_description/robots/kinova.urdf", False),
    "xarm7": ("xarm_description/urdf/xarm7.urdf", False),
    "z1": ("z1_description/urdf/z1.urdf", False),
    "so_arm": ("so_arm_description/urdf/so_arm100.urdf", False),
    "tiago": ("tiago_description/robots/tiago.urdf", False),
    "solo12": ("solo_description/robots/solo12.urdf", True),
    "go1": ("go1_description/urdf/go1.urdf", True),
    "g1": ("g1_description/urdf/g1_29dof.urdf", True),
}


def shipped_robots_dir() -> Path:
    """Folder of the URDFs shipped with wbcpy (installed copy first, then the checkout's ``robots/``)."""
    installed = Path(__file__).resolve().parent / "_robots"
    if installed.is_dir():
        return installed
    return Path(__file__).resolve().parent.parent / "robots"


@lru_cache(maxsize=1)
def example_robot_data_dir() -> Path | None:
    """The ``robots/`` folder of an installed example-robot-data, or None when it is absent."""
    try:
        dist = importlib.metadata.distribution("example-robot-data")
    except importlib.metadata.PackageNotFoundError:
        dist = None
    if dist is not None:
        folder = Path(str(dist.locate_file("cmeel.prefix/share/example-robot-data/robots")))
        if folder.is_dir():
            return folder
    spec = importlib.util.find_spec("example_robot_data")
    if spec is not None and spec.origin:  # older releases ship a Python module with the data next to it
        try:
            import example_robot_data as erd

            folder = Path(erd.getModelPath("panda_description/urdf/panda.urdf"))
            candidate = folder / "robots" if (folder / "robots").is_dir() else folder
            if candidate.is_dir():
                return candidate
        except Exception:  # optional dependency of unknown version
            return None
    return None


def _icub_models() -> dict[str, Path]:
    """iCub model files of an installed ``icub-models`` package, as ``icub-models:<name>``."""
    if importlib.util.find_spec("icub_models") is None:
        return {}
    try:
        import icub_models

        return {
            f"icub-models:{n}": Path(icub_models.get_model_file(n)) for n in icub_models.get_robot_names()
        }
    except Exception:  # optional dependency of unknown version
        return {}


def _shipped() -> dict[str, Path]:
    return {p.stem: p for p in sorted(shipped_robots_dir().glob("*.urdf"))}


def _example() -> dict[str, tuple[Path, bool]]:
    root = example_robot_data_dir()
    if root is None:
        return {}
    return {n: (root / rel, fb) for n, (rel, fb) in EXAMPLE_ROBOTS.items() if (root / rel).is_file()}


def available() -> list[str]:
    """Every robot name :func:`load_robot` resolves on this installation (shipped ones first)."""
    return [*_shipped(), *sorted(_example()), *sorted(_icub_models())]


def robot_path(name: str) -> Path:
    """URDF path of a registered robot name.

    Raises:
        UnknownNameError: the name is not registered; the message lists close names.
    """
    shipped = _shipped()
    if name in shipped:
        return shipped[name]
    example = _example()
    if name in example:
        return example[name][0]
    icub = _icub_models()
    if name in icub:
        return icub[name]
    raise UnknownNameError("robot", name, available())


def load_robot(name_or_path: str | Path, **kwargs: Any) -> RobotModel:
    """Load a robot by registry name, URDF path or URDF XML string.

    Keyword arguments go to :meth:`RobotModel.from_urdf` (``floating_base``, ``gravity``, ...). For
    example-robot-data humanoids and legged robots ``floating_base`` defaults to True.

    Raises:
        UnknownNameError: a bare name (no path separator, no ``.urdf``) that is not registered.
        URDFError: the file is missing, unreadable or malformed.
    """
    text = str(name_or_path)
    looks_like_path = isinstance(name_or_path, Path) or "/" in text or "\\" in text or text.endswith(".urdf")
    if "<robot" in text or looks_like_path:
        return RobotModel.from_urdf(name_or_path, **kwargs)
    path = robot_path(text)
    example = _example()
    if text in example:
        kwargs.setdefault("floating_base", example[text][1])
        kwargs.setdefault("package_dirs", [str(example_robot_data_dir())])
    kwargs.setdefault("name", text)
    return RobotModel.from_urdf(path, **kwargs)
