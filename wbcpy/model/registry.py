"""Robot registry: names that resolve to URDF files, built from what is installed.

Sources, in this order (``wbcpy robots`` lists them):

1. ``wbcpy``: the URDFs shipped with wbcpy (``robots/`` in a checkout, installed as ``wbcpy/_robots``);
2. ``example-robot-data`` (``pip install example-robot-data``): every ``<package>/{urdf,robots}/*.urdf``
   of its ``robots/`` folder (PyPI wheels put it under ``cmeel.prefix/share/example-robot-data``);
3. ``icub-models`` (``pip install icub-models``): every iCub model, as ``icub-models:<model>``.

A name is the file's stem, lower case, with ``-`` and ``.`` turned into ``_`` (``anymal-kinova.urdf`` →
``anymal_kinova``); when two packages ship the same stem, each is named after its package. A short alias
table adds well-known names (``talos`` → ``talos_reduced``, ``ur5`` → ``ur5_robot``, ``g1`` →
``g1_29dof_rev_1_0``...); an alias never hides a file's own name. Files that define no link are skipped.

Each entry carries what loading needs and what the commands use as defaults: the SRDF whose postures
become reference configurations (``<package>/srdf/<stem>.srdf``, else the package's SRDF whose stem is the
longest prefix of the URDF's stem, else the package's only SRDF), a free-flyer for legged robots, humanoids
and flying robots, and a default end effector (``wbcpy reach``). Models of third-party packages are
checked for physical plausibility with warnings (``check_physics="warn"``: several published models have
inertias that break the triangle inequality); wbcpy's own files must pass every check.
"""

from __future__ import annotations

import fnmatch
import importlib.metadata
import importlib.util
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import pinocchio as pin

from ..description._mjcf_loading import is_mjcf
from ..description.robot_files import find_srdf
from ..description.robot_files import normalised_name as _name
from ..errors import MJCFError, UnknownNameError
from .robot_model import RobotModel

#: well-known short names -> registry names
ALIASES: dict[str, str] = {
    "talos": "talos_reduced",
    "talos_full": "talos_full_v2",
    "talos_arm": "talos_left_arm",
    "ur3": "ur3_robot",
    "ur5": "ur5_robot",
    "ur10": "ur10_robot",
    "g1": "g1_29dof_rev_1_0",
    "so_arm": "so100",
    "anymal": "anymal_b_simple",
    "anymal_b": "anymal_b_simple",
    "anymal_c": "anymal_c_simple",
    "hyq": "hyq_no_sensors",
    "alexander": "alexander_v1_lowerbodyonly",
    "asr_twodof": "twodofs",
    "hector": "quadrotor_base",
    "borinot": "borinot_flying_arm_2",
    "hextilt": "hextilt_flying_arm_5",
    "icub_full": "icub",
}

#: example-robot-data packages whose robots have a free-flying base (legged, humanoid, flying)
_FLOATING_PACKAGES = frozenset(
    {
        "a1", "alexander", "anymal_b_simple", "anymal_c_simple", "b1", "bolt", "borinot", "cassie",
        "centauro", "g1", "go1", "go2", "hector", "hextilt", "human", "hyq", "icub", "iris", "laikago",
        "quadruped", "romeo", "simple_humanoid", "solo", "talos",
    }
)  # fmt: skip
#: registry names that are fixed-base parts of a floating package
_FIXED_EXCEPTIONS = frozenset({"talos_left_arm"})

#: registry-name pattern -> default end effector of ``wbcpy reach`` (chain from the root link to it)
END_EFFECTORS: dict[str, str] = {
    "panda*": "panda_hand_tcp",
    "talos*": "gripper_left_base_link",
    "icub": "l_hand",
    "icub_reduced": "l_hand",
    "icub-models:iCub*": "l_hand",
    "baxter": "left_gripper",
    "tiago": "arm_tool_link",
    "tiago_no_hand": "arm_tool_link",
    "tiago_dual": "arm_left_tool_link",
    "tiago_pro": "arm_left_tool_link",
    "pr2": "l_gripper_tool_frame",
    "kinova": "j2s6s200_end_effector",
    "anymal_kinova": "j2s6s200_end_effector",
    "romeo*": "l_wrist",
    "g1_29dof_rev_1_0": "left_rubber_hand",
    "g1_29dof_with_hand_rev_1_0": "left_hand_palm_link",
    "human": "left_hand",
    "a1": "FL_foot",
    "b1": "FL_foot",
    "go1": "FL_foot",
    "go2": "FL_foot",
    "laikago": "FL_foot",
}

#: registry-name pattern -> a humanoid's feet for walking: its (left, right) sole frames or foot links, and
#: the sole rectangle's size (length, width) in m when those frames are sole frames at the centre of a known
#: rectangle (None: the soles come from the feet's collision geometry, :mod:`wbcpy.locomotion.sole_finder`)
FEET: dict[str, tuple[tuple[str, str], tuple[float, float] | None]] = {
    "talos*": (("left_sole_link", "right_sole_link"), (0.2, 0.13)),
    "icub": (("l_sole", "r_sole"), None),
    "icub_reduced": (("l_sole", "r_sole"), None),
    "icub-models:iCub*": (("l_sole", "r_sole"), None),
    "romeo*": (("l_sole", "r_sole"), None),
    "g1_*": (("left_ankle_roll_link", "right_ankle_roll_link"), None),
}


@dataclass(frozen=True)
class RobotEntry:
    """One registered robot.

    Attributes:
        name: registry name. source: ``"wbcpy"``, ``"example-robot-data"`` or ``"icub-models"``.
        urdf: the URDF file. srdf: its SRDF (reference postures), or None.
        floating_base: default of ``load_robot``'s ``floating_base``.
        package_dirs: folders for ``package://`` URIs.
        end_effector: default tip frame of ``wbcpy reach`` (None: the deepest frame of the tree).
        check_physics: default of ``load_robot``'s ``check_physics``.
        feet: a humanoid's (left, right) sole frames or foot links for walking, or None.
        sole: the sole rectangle's size (length, width) in m when ``feet`` are sole frames at its centre,
            or None (the soles come from the feet's collision geometry).
    """

    name: str
    source: str
    urdf: Path
    srdf: Path | None = None
    floating_base: bool = False
    package_dirs: tuple[str, ...] = ()
    end_effector: str | None = None
    check_physics: bool | str = True
    feet: tuple[str, str] | None = None
    sole: tuple[float, float] | None = None

    def load_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of :meth:`RobotModel.from_urdf` for this entry."""
        return {
            "floating_base": self.floating_base,
            "package_dirs": list(self.package_dirs),
            "srdf": self.srdf,
            "check_physics": self.check_physics,
            "name": self.name,
        }


def shipped_robots_dir() -> Path:
    """Folder of the URDFs shipped with wbcpy (installed copy first, then the checkout's ``robots/``)."""
    installed = Path(__file__).resolve().parents[1] / "_robots"
    if installed.is_dir():
        return installed
    return Path(__file__).resolve().parents[2] / "robots"


@lru_cache(maxsize=1)
def example_robot_data_dir() -> Path | None:
    """The ``robots/`` folder of an installed example-robot-data, or None when it is absent."""
    try:
        dist = importlib.metadata.distribution("example-robot-data")
    except importlib.metadata.PackageNotFoundError:
        return None
    folder = Path(str(dist.locate_file("cmeel.prefix/share/example-robot-data/robots")))
    return folder if folder.is_dir() else None


def _end_effector(name: str) -> str | None:
    return next((tip for pat, tip in END_EFFECTORS.items() if fnmatch.fnmatchcase(name, pat)), None)


def _feet(name: str) -> dict[str, Any]:
    """The ``feet`` and ``sole`` fields of a robot's entry (:data:`FEET`)."""
    found = next((v for pat, v in FEET.items() if fnmatch.fnmatchcase(name, pat)), None)
    return {} if found is None else {"feet": found[0], "sole": found[1]}


def _has_links(path: Path) -> bool:
    try:
        return b"<link" in path.read_bytes()
    except OSError:
        return False


def _shipped() -> list[RobotEntry]:
    return [RobotEntry(p.stem, "wbcpy", p) for p in sorted(shipped_robots_dir().glob("*.urdf"))]


def _example() -> list[RobotEntry]:
    root = example_robot_data_dir()
    if root is None:
        return []
    files = sorted(root.glob("*/*/*.urdf"))
    files = [p for p in files if p.parent.name in ("urdf", "robots") and _has_links(p)]
    stems = [_name(p.stem) for p in files]
    out = []
    for path, stem in zip(files, stems, strict=True):
        package = path.parent.parent
        short = _name(package.name.removesuffix("_description").removesuffix("_data"))
        name = stem
        if stems.count(stem) > 1:  # two packages ship this stem: name each after its package
            name = short if short.startswith(stem) else f"{short}_{stem}"
        floating = short in _FLOATING_PACKAGES and name not in _FIXED_EXCEPTIONS
        srdf = find_srdf(path)
        out.append(
            RobotEntry(
                name,
                "example-robot-data",
                path,
                srdf,
                floating,
                (str(root.parent.parent),),
                _end_effector(name),
                "warn",
                **_feet(name),
            )
        )
    return out


def _icub_models() -> list[RobotEntry]:
    """iCub models of an installed ``icub-models`` package, as ``icub-models:<model>``."""
    if importlib.util.find_spec("icub_models") is None:
        return []
    try:
        import icub_models

        models = {n: Path(icub_models.get_model_file(n)) for n in icub_models.get_robot_names()}
        package_dirs = (str(Path(icub_models.get_models_path()).parent.parent),)
    except (OSError, AttributeError, TypeError, ValueError):  # optional dependency of unknown version
        return []
    out = []
    for model, path in sorted(models.items()):
        name = f"icub-models:{model}"
        floating = model.startswith("iCub")  # whole robots float like example-robot-data's iCub; parts do not
        out.append(
            RobotEntry(
                name, "icub-models", path, None, floating, package_dirs, _end_effector(name), "warn",
                **_feet(name),
            )
        )  # fmt: skip
    return out


@lru_cache(maxsize=1)
def registry() -> dict[str, RobotEntry]:
    """Every registered robot by name (shipped first, then example-robot-data, then icub-models).

    Aliases are not included (see :data:`ALIASES` and :func:`robot_entry`). The scan is cached; call
    :func:`refresh` after installing a package in a running process.
    """
    out: dict[str, RobotEntry] = {}
    for entry in (*_shipped(), *_example(), *_icub_models()):
        out.setdefault(entry.name, entry)
    return out


def refresh() -> None:
    """Forget the cached scan (after installing or removing example-robot-data or icub-models)."""
    registry.cache_clear()
    example_robot_data_dir.cache_clear()


def aliases() -> dict[str, str]:
    """The aliases that resolve on this installation (alias -> registry name); none hides a file's name."""
    names = registry()
    return {a: n for a, n in ALIASES.items() if n in names and a not in names}


def available() -> list[str]:
    """Every robot name :func:`load_robot` resolves here: registry names (shipped first), then aliases."""
    return [*registry(), *sorted(aliases())]


def _missing_hint(name: str) -> str | None:
    """Which package brings robots the registry cannot see, when that package is not installed."""
    if name.startswith("icub-models:"):
        if importlib.util.find_spec("icub_models") is None:
            return "icub-models robots come with `pip install icub-models`"
        return None
    if example_robot_data_dir() is None:
        return (
            "it is not shipped with wbcpy; robots such as panda, ur5, talos, icub, go1 come with "
            "`pip install example-robot-data`"
        )
    return None


def robot_entry(name: str) -> RobotEntry:
    """The registry entry of a name or alias.

    Raises:
        UnknownNameError: the name is not registered; the message lists close names, or says which package
            brings it when example-robot-data or icub-models is not installed.
    """
    names = registry()
    key = aliases().get(name, name)
    if key in names:
        return names[key]
    err = UnknownNameError("robot", name, available())
    hint = _missing_hint(name)
    if hint is not None:
        err.message = f"{err.message}; {hint}"
    raise err


def robot_path(name: str) -> Path:
    """URDF path of a registered robot name or alias (see :func:`robot_entry`)."""
    return robot_entry(name).urdf


def load_robot(name_or_path: str | Path, **kwargs: Any) -> RobotModel:
    """Load a robot by registry name, URDF path, URDF XML string or MJCF path.

    Keyword arguments go to :meth:`RobotModel.from_urdf` (``floating_base``, ``gravity``, ``srdf``,
    ``check_physics``...) and override the entry's defaults (free-flyer for legged robots and humanoids,
    SRDF, package folders, physics checks as warnings for third-party models); ``package_dirs`` given for a
    registered name are searched before the entry's.

    An MJCF file (``.xml`` or ``.mjcf`` with a ``<mujoco>`` root element) is loaded with
    :meth:`RobotModel.from_mjcf`: the file defines its own base (a free joint or none), so only ``name``
    is taken, and ``floating_base``, ``package_dirs`` are ignored when false or empty.

    Raises:
        UnknownNameError: a bare name (no path separator, no ``.urdf``) that is not registered.
        URDFError: the file is missing, unreadable, malformed or physically invalid.
        MJCFError: an MJCF file Pinocchio cannot read, or URDF-only options given for one (the option
            is named).
    """
    text = str(name_or_path)
    if "<robot" not in text and is_mjcf(name_or_path):
        return _load_mjcf(name_or_path, kwargs)
    looks_like_path = isinstance(name_or_path, Path) or "/" in text or "\\" in text or text.endswith(".urdf")
    if "<robot" in text or looks_like_path:
        return RobotModel.from_urdf(name_or_path, **kwargs)
    entry = robot_entry(text)
    defaults = entry.load_kwargs()
    if kwargs.get("package_dirs") and defaults.get(
        "package_dirs"
    ):  # the caller's folders first, then the entry's
        kwargs = {**kwargs, "package_dirs": [*kwargs["package_dirs"], *defaults["package_dirs"]]}
    return RobotModel.from_urdf(entry.urdf, **{**defaults, **kwargs})


def _load_mjcf(path: str | Path, kwargs: dict[str, Any]) -> RobotModel:
    unused = [k for k, v in kwargs.items() if k != "name" and v not in (None, False, [], ())]
    if unused:
        raise MJCFError(str(path), f"{', '.join(unused)}: URDF options, an MJCF file defines its own model")
    return RobotModel.from_mjcf(path, name=kwargs.get("name"))


def _deepest_frame(robot: RobotModel) -> str:
    """The BODY frame with the most DOF between it and the root (the last such frame in URDF order)."""
    model = robot.model
    depth = [0] * model.njoints
    for j in range(1, model.njoints):
        depth[j] = depth[model.parents[j]] + model.joints[j].nv
    bodies = [f for f in model.frames if f.type == pin.FrameType.BODY]
    best = max(depth[f.parentJoint] for f in bodies)
    deepest: str = [f.name for f in bodies if depth[f.parentJoint] == best][-1]
    return deepest


def default_end_effector(robot: RobotModel, name: str | None = None) -> str:
    """The default tip frame of ``wbcpy reach``: the registry's end effector of ``name`` when it names one
    that ``robot`` has, else the body frame deepest in the tree (most DOF from the root; the last in URDF
    order among equals: a tool frame such as UR's ``tool0`` after its wrist link)."""
    if name is not None:
        try:
            tip = robot_entry(name).end_effector
        except UnknownNameError:
            tip = None
        if tip is not None and tip in robot.frame_names:
            return tip
    return _deepest_frame(robot)
