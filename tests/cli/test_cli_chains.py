"""``wbcpy info NAME --chains CONFIG``: the chain table, and one-line errors with exit code 2.

Oracle: the configuration read with PyYAML and the URDF read with xml.etree (joint paths, limits).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from _urdf_oracle import need_example_robot, parse_joints, path_joints, urdf_file

from wbcpy.cli import main
from wbcpy.model.registry import shipped_robots_dir

BIMANUAL_YAML = shipped_robots_dir() / "bimanual_chains.yaml"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["info", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _table_rows(out: str, chain_names: list[str]) -> dict[str, list[str]]:
    """Rows of the chain table keyed by chain name, split on runs of 2+ spaces."""
    rows = {}
    for line in out.splitlines():
        cells = [c for c in line.strip().split("  ") if c.strip()]
        if cells and cells[0].strip() in chain_names:
            rows[cells[0].strip()] = [c.strip() for c in cells]
    return rows


def _check_table(out: str, cfg: dict, urdf: Path) -> None:
    joints = parse_joints(urdf)
    names = [c["name"] for c in cfg["chains"]]
    paths = {c["name"]: path_joints(urdf, c["base"], c["tip"]) for c in cfg["chains"]}
    global_names = [j for c in cfg["chains"][: cfg["main_chains"]] for j in paths[c["name"]]]
    rows = _table_rows(out, names)
    assert list(rows) == names
    for i, c in enumerate(cfg["chains"]):
        _chain, main_flag, base_tip, n, joint_list, global_list, limits = rows[c["name"]]
        path = paths[c["name"]]
        assert main_flag == ("yes" if i < cfg["main_chains"] else "no")
        assert base_tip == f"{c['base']} -> {c['tip']}"
        assert int(n) == len(path)
        assert joint_list.split(",") == path
        assert [int(g) for g in global_list.split(",")] == [global_names.index(j) for j in path]
        pairs = [p.strip("[]").split(",") for p in limits.split()]
        assert len(pairs) == len(path)
        for (lo, hi), j in zip(pairs, path, strict=True):
            assert float(lo) == pytest.approx(joints[j].lower, rel=1e-3)
            assert float(hi) == pytest.approx(joints[j].upper, rel=1e-3)


def test_bimanual_chain_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "bimanual", "--chains", str(BIMANUAL_YAML))
    assert code == 0, err
    cfg = yaml.safe_load(BIMANUAL_YAML.read_text())
    _check_table(out, cfg, BIMANUAL_YAML.parent / cfg["urdf"])
    assert "17 chains, 3 main, 15 joints" in out


def test_baxter_chain_table_with_locked_grippers(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    need_example_robot("baxter")
    cfg = {
        "name": "baxter",
        "main_chains": 3,
        "chains": [
            {"name": "left_arm", "base": "torso", "tip": "left_gripper"},
            {"name": "right_arm", "base": "torso", "tip": "right_gripper"},
            {"name": "head", "base": "torso", "tip": "head"},
            {"name": "left_elbow", "base": "torso", "tip": "left_lower_elbow"},
        ],
        "locked_joints": [f"{s}_gripper_{f}_finger_joint" for s in "lr" for f in "lr"],
    }
    path = tmp_path / "baxter_chains.yaml"
    path.write_text(yaml.safe_dump(cfg))
    code, out, err = _run(capsys, "baxter", "--chains", str(path))
    assert code == 0, err
    _check_table(out, cfg, urdf_file("baxter"))


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("main_chains: 2\nchains:\n  - {name: a, base: base_link, tip: left_ee}\n"
         "  - {name: b, base: base_link, tip: right_ee}\n", "torso_joint"),  # overlap
        ("main_chains: 1\nchains:\n  - {name: a, base: torso_link, tip: left_ee}\n", "not in any main chain"),
        ("main_chains: 1\nchains:\n  - {name: a, base: base_link, tip: left_eee}\n", "left_eee"),
        ("main_chains: 1\nchains: [unclosed\n", "invalid YAML"),
        ("main_chains: 1\nchainz: []\n", "chainz"),
    ],
)  # fmt: skip
def test_bad_config_is_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, pattern: str
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    code, _out, err = _run(capsys, "bimanual", "--chains", str(path))
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and pattern in err
    assert "Traceback" not in err


def test_missing_config_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = _run(capsys, "bimanual", "--chains", str(tmp_path / "nope.yaml"))
    assert code == 2 and len(err.strip().splitlines()) == 1 and "no such" in err
