"""The robot registry is built from the installed files; every listed name loads (issue 12 items 1 and 2)."""

from __future__ import annotations

import importlib.machinery
import sys
import types
import warnings
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pinocchio as pin
import pytest

import wbcpy.model.registry as robots
from wbcpy import UnknownNameError, URDFWarning
from wbcpy.model.registry import ALIASES, aliases, available, load_robot, registry, robot_entry, robot_path

ERD = robots.example_robot_data_dir()
needs_erd = pytest.mark.skipif(ERD is None, reason="example-robot-data is not installed")


@pytest.fixture
def fresh_registry() -> Iterator[None]:
    """Forget the cached scan before and after a test that fakes the installed packages."""
    robots.refresh()
    yield
    robots.refresh()


def _urdfs_with_links(root: Path) -> set[Path]:
    """Independent scan: every <package>/{urdf,robots}/*.urdf whose XML has at least one <link>."""
    out = set()
    for path in root.glob("*/*/*.urdf"):
        if path.parent.name in ("urdf", "robots") and ET.parse(path).getroot().find("link") is not None:
            out.add(path)
    return out


def test_every_listed_name_loads() -> None:
    """Each registry entry loads once; sizes match raw Pinocchio; SRDF postures and end effectors work."""
    for name, entry in registry().items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            robot = load_robot(name)
        implausible = [w for w in caught if issubclass(w.category, URDFWarning)]
        if entry.source == "wbcpy":
            assert not implausible, (name, [str(w.message) for w in implausible])
        try:  # the oracle: Pinocchio alone (mimic joints coupled where Pinocchio can)
            raw = pin.buildModelFromUrdf(str(entry.urdf), mimic=True)
        except ValueError:
            raw = pin.buildModelFromUrdf(str(entry.urdf))
        independent = len(robot.joint_names) - (1 if entry.floating_base else 0)
        assert len(robot.mimic_joints) == raw.njoints - 1 - independent, name
        extra_q, extra_v = (7, 6) if entry.floating_base else (0, 0)
        assert (robot.nq, robot.nv) == (raw.nq + extra_q, raw.nv + extra_v), name
        assert robot.floating_base == entry.floating_base
        assert robot.urdf_path == entry.urdf.resolve()
        assert robot.srdf_path == (entry.srdf.resolve() if entry.srdf else None)
        for posture in robot.reference_configuration_names():
            q = robot.reference_configuration(posture)
            assert q.shape == (robot.nq,) and (q == q).all(), (name, posture)
        if entry.end_effector is not None:
            assert robot.chain(robot.root_link, entry.end_effector).n >= 1, name


def test_aliases_resolve_to_listed_entries_and_never_hide_a_file_name() -> None:
    names = registry()
    for alias, target in aliases().items():
        assert alias not in names and target in names
        assert robot_path(alias) == names[target].urdf
        assert alias in available()
    for alias in ALIASES:
        if alias in names:  # a file of that stem exists: the name is the file's, not the alias's
            assert robot_entry(alias).name == alias


@needs_erd
def test_registry_lists_every_example_robot_data_file() -> None:
    assert ERD is not None
    listed = {e.urdf for e in registry().values() if e.source == "example-robot-data"}
    assert listed == _urdfs_with_links(ERD)
    assert len(listed) >= 40


@needs_erd
@pytest.mark.parametrize(
    ("name", "file_name"),
    [
        ("g1", "g1_29dof_rev_1_0.urdf"),
        ("so_arm", "so100.urdf"),
        ("a1", "a1.urdf"),
        ("anymal", "anymal.urdf"),
        ("anymal_c", "anymal.urdf"),
        ("go2", "go2.urdf"),
        ("romeo", "romeo.urdf"),
        ("pr2", "pr2.urdf"),
        ("talos", "talos_reduced.urdf"),
        ("ur5", "ur5_robot.urdf"),
    ],
)
def test_well_known_names(name: str, file_name: str) -> None:
    assert robot_path(name).name == file_name


@needs_erd
def test_legged_and_humanoid_robots_float_arms_do_not() -> None:
    for name in ("talos", "icub", "go1", "a1", "solo12", "romeo", "g1"):
        assert robot_entry(name).floating_base, name
    for name in ("panda", "ur5", "kinova", "baxter", "talos_arm", "xarm7"):
        assert not robot_entry(name).floating_base, name


def _fake_erd(root: Path) -> Path:
    """A small example-robot-data tree: a name clash, SRDF rules, an empty file, a legged package."""
    robots_dir = root / "robots"
    arm = (
        '<robot name="{n}"><link name="base"/><link name="tip"/><joint name="j" type="revolute">'
        '<parent link="base"/><child link="tip"/><limit lower="-1" upper="1" effort="1" velocity="1"/>'
        "</joint></robot>"
    )
    files = {
        "dog_b_simple_description/robots/dog.urdf": arm.format(n="dog"),
        "dog_c_simple_description/urdf/dog.urdf": arm.format(n="dog"),
        "go1_description/urdf/go1.urdf": arm.format(n="go1"),
        "go1_description/srdf/go1.srdf": "<robot name='go1'/>",
        "arm_description/urdf/arm-x.urdf": arm.format(n="arm"),
        "arm_description/urdf/arm_x_long.urdf": arm.format(n="arm"),
        "arm_description/srdf/arm.srdf": "<robot name='arm'/>",
        "arm_description/srdf/arm-x.srdf": "<robot name='arm'/>",
        "ur_description/urdf/empty.urdf": '<robot xmlns:xacro="x"></robot>',
        "ur_description/meshes/not_a_robot.urdf": arm.format(n="x"),
    }
    for rel, text in files.items():
        (robots_dir / rel).parent.mkdir(parents=True, exist_ok=True)
        (robots_dir / rel).write_text(text)
    return robots_dir


def test_names_are_derived_from_files(
    fresh_registry: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _fake_erd(tmp_path)
    monkeypatch.setattr(robots, "example_robot_data_dir", lambda: folder)
    entries = {e.name: e for e in registry().values() if e.source == "example-robot-data"}
    assert set(entries) == {"dog_b_simple", "dog_c_simple", "go1", "arm_x", "arm_x_long"}
    assert entries["arm_x"].srdf.name == "arm-x.srdf"  # same stem
    assert entries["arm_x_long"].srdf.name == "arm-x.srdf"  # longest stem that prefixes the URDF's
    assert entries["go1"].srdf.name == "go1.srdf" and entries["go1"].floating_base
    assert not entries["arm_x"].floating_base and entries["dog_b_simple"].srdf is None
    assert entries["go1"].end_effector == "FL_foot"
    assert load_robot("arm_x").nq == 1


def test_missing_example_robot_data_says_how_to_install_it(
    fresh_registry: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(robots, "example_robot_data_dir", lambda: None)
    assert "panda" not in available()
    with pytest.raises(UnknownNameError) as info:
        load_robot("panda")
    assert "pip install example-robot-data" in str(info.value)


def test_icub_models_float_like_example_robot_data(
    fresh_registry: None, tmp_path: Path, robots_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    share = tmp_path / "share" / "iCub" / "robots"
    for model in ("iCubTest01", "left_hand_test"):
        (share / model).mkdir(parents=True)
        (share / model / "model.urdf").write_text((robots_dir / "rr_unit_mass.urdf").read_text())
    fake = types.ModuleType("icub_models")
    fake.get_models_path = lambda: share  # type: ignore[attr-defined]
    fake.get_robot_names = lambda: ["iCubTest01", "left_hand_test"]  # type: ignore[attr-defined]
    fake.get_model_file = lambda n: share / n / "model.urdf"  # type: ignore[attr-defined]
    fake.__spec__ = importlib.machinery.ModuleSpec("icub_models", None)
    monkeypatch.setitem(sys.modules, "icub_models", fake)
    whole, part = robot_entry("icub-models:iCubTest01"), robot_entry("icub-models:left_hand_test")
    assert whole.source == "icub-models" and whole.floating_base and not part.floating_base
    assert load_robot("icub-models:iCubTest01").nv == 2 + 6


def test_the_docs_robot_table_is_the_registry_output() -> None:
    """The robot list of docs/robots.md is `wbcpy robots --markdown` output for the example-robot-data it
    names."""
    import importlib.metadata
    import re

    from wbcpy.cli.robots import markdown_table

    page = (Path(__file__).resolve().parents[2] / "docs" / "robots.md").read_text(encoding="utf-8")
    version = re.search(r"example-robot-data (\d[\w.]*)\):", page)
    assert version is not None
    installed = None if ERD is None else importlib.metadata.version("example-robot-data")
    if installed != version.group(1):
        pytest.skip(f"the table is for example-robot-data {version.group(1)}, installed: {installed}")
    table = page.split("<!-- robots table: generated, do not edit -->\n")[1].split("\n<!-- end")[0]
    assert table.strip() == markdown_table(["wbcpy", "example-robot-data"]).strip()
