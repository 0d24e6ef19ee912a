"""A bad URDF raises URDFError naming element, attribute, value and line; never a silently wrong model.

Issue 12 item 9 (``<mass value="two"/>`` gave mass 0), item 10 (missing file) and issue 14 class 7
(physically invalid models, 17 malformations with one message, size guards).
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pinocchio as pin
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wbcpy import RobotModel, URDFError, URDFNotFoundError, URDFWarning, load_robot
from wbcpy.description import urdf_checks
from wbcpy.description._urdf_loading import captured_stderr

INERTIAL = (
    '<inertial><origin xyz="0 0 0.1" rpy="0 0 0"/><mass value="{mass}"/>'
    '<inertia ixx="{ixx}" ixy="0" ixz="0" iyy="{iyy}" iyz="0" izz="{izz}"/></inertial>'
)


def two_link(
    mass: str = "1", ixx: str = "1", iyy: str = "1", izz: str = "1", axis: str = "0 0 1", limit: str = ""
) -> str:
    """A one-joint URDF, one element per line (so the test knows every element's line)."""
    limit = limit or 'lower="-1" upper="1" effort="10" velocity="2"'
    lines = [
        '<robot name="r">',
        '<link name="base"/>',
        '<link name="arm">',
        INERTIAL.format(mass=mass, ixx=ixx, iyy=iyy, izz=izz).replace("><", ">\n<"),
        "</link>",
        '<joint name="hinge" type="revolute">',
        '<parent link="base"/>',
        '<child link="arm"/>',
        '<origin xyz="0 0 0.5" rpy="0 0 0"/>',
        f'<axis xyz="{axis}"/>',
        f"<limit {limit}/>",
        "</joint>",
        "</robot>",
    ]
    return "\n".join(lines)


def line_of(text: str, needle: str) -> int:
    """1-based line of the first occurrence of ``needle`` (independent of the code under test)."""
    return text[: text.index(needle)].count("\n") + 1


# attribute occurrences of two_link(): (element text that identifies it, attribute, element tag)
NUMERIC_SITES = [
    ("<mass ", "value", "mass"),
    ("<inertia ", "ixx", "inertia"),
    ("<inertia ", "izz", "inertia"),
    ('<origin xyz="0 0 0.1"', "xyz", "origin"),
    ('<origin xyz="0 0 0.5"', "rpy", "origin"),
    ("<axis ", "xyz", "axis"),
    ("<limit ", "lower", "limit"),
    ("<limit ", "upper", "limit"),
    ("<limit ", "effort", "limit"),
    ("<limit ", "velocity", "limit"),
]


def _corrupt(text: str, element: str, attr: str, bad: str) -> tuple[str, int]:
    start = text.index(element)
    end = text.index(">", start)
    tag = re.sub(rf'{attr}="[^"]*"', f'{attr}="{bad}"', text[start:end], count=1)
    return text[:start] + tag + text[end:], line_of(text, element)


def test_the_mass_typo_of_the_issue_raises_with_element_attribute_value_and_line() -> None:
    text = two_link(mass="two")
    with pytest.raises(URDFError) as info:
        RobotModel.from_urdf(text)
    msg = str(info.value)
    assert "<mass>" in msg and "value=" in msg and "'two'" in msg and f"line {line_of(text, '<mass ')}" in msg


@pytest.mark.parametrize(("element", "attr", "tag"), NUMERIC_SITES)
@pytest.mark.parametrize("bad", ["two", "nan", "1e400", "1 2 3 4 5", "inf"])
def test_every_unreadable_number_raises(element: str, attr: str, tag: str, bad: str) -> None:
    text, line = _corrupt(two_link(), element, attr, bad)
    with pytest.raises(URDFError) as info:
        RobotModel.from_urdf(text)
    msg = str(info.value)
    assert f"<{tag}>" in msg and f"{attr}=" in msg and repr(bad) in msg and f"line {line}" in msg


def test_urdfdom_prints_nothing_and_its_messages_are_captured(capfd: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(URDFError):
        RobotModel.from_urdf(two_link(mass="two"))
    with captured_stderr() as log:
        os.write(2, b"Error: from C++\n")
    assert capfd.readouterr().err == ""
    assert "from C++" in "".join(log)


MALFORMED = {
    "robot without name": ('<robot name="r">', "<robot>", "no name"),
    "unknown joint type": ('type="revolute"', 'type="hinge"', "unknown type"),
    "unknown parent": ('<parent link="base"/>', '<parent link="bse"/>', "parent link 'bse' is not defined"),
    "unknown child": ('<child link="arm"/>', '<child link="amr"/>', "child link 'amr' is not defined"),
    "self loop": ('<parent link="base"/>', '<parent link="arm"/>', "same link"),
    "missing parent": ('<parent link="base"/>', "", "missing <parent"),
    "no limit": ("<limit ", "<nolimit ", "needs <limit"),
    "limit without effort": ('effort="10"', "", "'effort'"),
    "limit without velocity": ('velocity="2"', "", "'velocity'"),
    "inertial without mass": ('<mass value="1"/>', "", "without <mass>"),
    "inertial without inertia": ("<inertia ", "<inertiaX ", "without <inertia>"),
    "inertia without izz": ('izz="1"', "", "'izz'"),
    "mass without value": ('<mass value="1"/>', "<mass/>", "'value'"),
    "duplicate link": ('<link name="base"/>', '<link name="base"/><link name="base"/>', "defined twice"),
    "link without name": ('<link name="base"/>', '<link name="base"/><link/>', "without a name"),
    "two roots": ('<link name="base"/>', '<link name="base"/><link name="loose"/>', "several root links"),
    "not xml": ("</robot>", "</robt>", "malformed XML"),
    "joint without name": ('<joint name="hinge"', "<joint", "without a name"),
    "missing mimic joint": ('<axis xyz="0 0 1"/>', '<axis xyz="0 0 1"/><mimic multiplier="2"/>', "'joint'"),
    "box without size": ("</link>", "<visual><geometry><box/></geometry></visual></link>", "'size'"),
}


def test_malformations_have_distinct_messages() -> None:
    seen: dict[str, str] = {}
    for case, (old, new, expected) in MALFORMED.items():
        text = two_link().replace(old, new, 1)
        with pytest.raises(URDFError) as info:
            RobotModel.from_urdf(text)
        msg = info.value.reason
        assert expected in msg, (case, msg)
        assert "does not contain a valid URDF model" not in msg
        seen[case] = msg
    assert len(set(seen.values())) == len(seen)


def test_a_joint_cycle_is_named() -> None:
    text = two_link().replace(
        "</robot>",
        '<link name="c"/><joint name="k" type="fixed"><parent link="arm"/><child link="c"/></joint>'
        '<joint name="m" type="fixed"><parent link="c"/><child link="base"/></joint></robot>',
    )
    with pytest.raises(URDFError, match="cycle"):
        RobotModel.from_urdf(text)


PHYSICS = {
    "mass": dict(mass="-1"),
    "inertia": dict(ixx="1", iyy="-2", izz="1"),
    "triangle": dict(ixx="0.1", iyy="0.1", izz="1"),
    "axis": dict(axis="0 0 0"),
    "limits": dict(limit='lower="1" upper="-1" effort="10" velocity="2"'),
}


@pytest.mark.parametrize("check", list(PHYSICS))
def test_physically_invalid_models_raise_unless_opted_out(check: str) -> None:
    text = two_link(**PHYSICS[check])
    with pytest.raises(URDFError) as info:
        RobotModel.from_urdf(text)
    assert info.value.reason.startswith(f"physically invalid: {check}:")
    robot = RobotModel.from_urdf(text, check_physics=False)
    raw = pin.buildModelFromXML(text)  # what Pinocchio alone makes of the file: loaded as written
    assert robot.model.inertias[1].mass == raw.inertias[1].mass
    with pytest.warns(URDFWarning, match=check):
        RobotModel.from_urdf(text, check_physics="warn")
    others = [c for c in PHYSICS if c not in (check, "triangle")]  # a non-PSD inertia breaks both
    RobotModel.from_urdf(text, check_physics=others)  # only the named checks run


def test_a_point_mass_is_physical() -> None:
    robot = RobotModel.from_urdf(two_link(ixx="0", iyy="0", izz="0"))
    assert robot.total_mass == 1.0


def test_the_puma_exemption_is_per_link(robots_dir: Path) -> None:
    puma = (robots_dir / "puma560.urdf").read_text()
    assert load_robot(robots_dir / "puma560.urdf").nq == 6  # exempt: Izz includes rotor inertia
    without = re.sub(r"\s*<wbcpy_exempt [^>]*/>", "", puma, count=1)
    with pytest.raises(URDFError, match="triangle: link 'base'"):
        RobotModel.from_urdf(without)
    marker = '<wbcpy_exempt check="triangle" reason="test"/>'
    text = two_link(ixx="0.1", iyy="0.1", izz="1").replace("</inertial>", marker + "</inertial>")
    assert RobotModel.from_urdf(text).nq == 1
    other = (
        two_link().replace("</inertial>", marker + "</inertial>").replace('mass value="1"', 'mass value="-1"')
    )
    with pytest.raises(URDFError, match="mass: link 'arm'"):
        RobotModel.from_urdf(other)


def _star(n: int, kind: str, chain: bool = False) -> str:
    parts = ['<robot name="big"><link name="l0"/>']
    for i in range(1, n + 1):
        parent = f"l{i - 1}" if chain else "l0"
        limit = '<limit lower="-1" upper="1" effort="1" velocity="1"/>' if kind == "revolute" else ""
        parts.append(
            f'<link name="l{i}"/><joint name="j{i}" type="{kind}"><parent link="{parent}"/>'
            f'<child link="l{i}"/>{limit}</joint>'
        )
    return "".join(parts) + "</robot>"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (_star(urdf_checks.MAX_DOF + 1, "revolute"), "degrees of freedom"),
        (_star(urdf_checks.MAX_DEPTH + 1, "fixed", chain=True), "joints deep"),
        (_star(urdf_checks.MAX_LINKS, "fixed"), "links"),
    ],
    ids=["dof", "depth", "links"],
)
def test_size_guards_answer_quickly(text: str, expected: str) -> None:
    t0 = time.perf_counter()
    with pytest.raises(URDFError, match=expected):
        RobotModel.from_urdf(text)
    assert time.perf_counter() - t0 < 30  # the guard answers before Pinocchio (not a timing benchmark)


def test_missing_file_names_similar_files(tmp_path: Path, robots_dir: Path) -> None:
    (tmp_path / "three_link.urdf").write_text((robots_dir / "planar3r.urdf").read_text())
    with pytest.raises(URDFNotFoundError) as info:
        load_robot(tmp_path / "three_lnk.urdf")
    msg = str(info.value)
    assert "no such file" in msg and "three_link.urdf" in msg and "Errno" not in msg
    assert isinstance(info.value, FileNotFoundError)


@st.composite
def random_tree(draw: st.DrawFn) -> tuple[str, int]:
    """A random valid URDF tree (one element per line) and its number of velocity DOF."""
    n = draw(st.integers(1, 12))
    lines = ['<robot name="rand">', '<link name="l0"/>']
    dof = 0
    for i in range(1, n + 1):
        kind = draw(st.sampled_from(["revolute", "continuous", "prismatic", "fixed", "planar", "floating"]))
        parent = draw(st.integers(0, i - 1))
        m, a, b = draw(st.floats(0.1, 5)), draw(st.floats(0.01, 1)), draw(st.floats(0.01, 1))
        lines += [
            f'<link name="l{i}">',
            "<inertial>",
            f'<origin xyz="{a} 0 {b}" rpy="0 {a} 0"/>',
            f'<mass value="{m}"/>',
            f'<inertia ixx="{a + b}" ixy="0" ixz="0" iyy="{a + b}" iyz="0" izz="{a + b}"/>',
            "</inertial>",
            "</link>",
            f'<joint name="j{i}" type="{kind}">',
            f'<parent link="l{parent}"/>',
            f'<child link="l{i}"/>',
            f'<origin xyz="0 {b} {a}" rpy="{b} 0 0"/>',
            f'<axis xyz="{a} 0 {b}"/>',
            '<limit lower="-1" upper="1" effort="3" velocity="4"/>',
            "</joint>",
        ]
        dof += urdf_checks.JOINT_DOF[kind]
    lines.append("</robot>")
    return "\n".join(lines), dof


@settings(max_examples=40, deadline=None)
@given(tree=random_tree(), data=st.data())
def test_random_trees_load_and_any_corrupted_number_is_reported(
    tree: tuple[str, int], data: st.DataObject
) -> None:
    text, dof = tree
    robot = RobotModel.from_urdf(text)
    assert robot.nv == dof == pin.buildModelFromXML(text).nv
    sites = [(m.start(), m.group(1)) for m in re.finditer(r' (\w+)="[-0-9.e ]+"', text)]
    start, attr = data.draw(st.sampled_from(sites))
    bad = data.draw(st.sampled_from(["x", "1,2", "nan", "", "0x1p3", "1_0"]))
    end = text.index('"', text.index('"', start) + 1)
    corrupted = text[: text.index('"', start) + 1] + bad + text[end:]
    line = text[:start].count("\n") + 1
    with pytest.raises(URDFError) as info:
        RobotModel.from_urdf(corrupted)
    assert f"line {line}" in str(info.value) and attr in str(info.value)
