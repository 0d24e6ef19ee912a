"""Scene files with contacts, ``wbcpy scene`` on a physical plant, and the contact plant itself.

Oracles: the plant's recorded excesses against the cone rows evaluated here on the simulated wrenches;
an inelastic impact against its closed form v⁺ = v − M⁻¹Jᵀ(JM⁻¹Jᵀ)⁻¹Jv (raw Pinocchio and numpy).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest
from _contact_oracle import contact_jacobian, talos_half_sitting

from wbcpy import InverseDynamicsScene
from wbcpy.cli import main
from wbcpy.contacts import SurfaceContact
from wbcpy.errors import ConfigError, ConfigKeyError
from wbcpy.scenes import load_scene_file
from wbcpy.sim import SceneSimulation
from wbcpy.sim.contact_plant import ContactPlant
from wbcpy.sim.contact_simulation import ContactSimulation

ROOT = Path(__file__).resolve().parents[2]
TALOS_YAML = ROOT / "examples" / "talos_balance.yaml"
SOLES = ("left_sole_link", "right_sole_link")


@pytest.fixture(scope="module")
def talos():
    return talos_half_sitting()


def _doc(**changes) -> dict:
    doc = {
        "robot": "talos",
        "q0": "half_sitting",
        "dt": 0.01,
        "steps": 5,
        "contacts": [{"type": "surface", "frame": f, "half_size": [0.1, 0.065], "mu": 0.3} for f in SOLES],
        "tasks": [
            {"name": "com", "type": "com", "target": {"offset": [0.0, 0.0, -0.01]}, "kp": 30, "kd": 11}
        ],
    }
    doc.update(changes)
    return doc


def test_the_example_runs_on_the_contact_plant(talos, capsys) -> None:
    assert main(["scene", str(TALOS_YAML), "--steps", "60", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "contacts on left_sole_link, right_sole_link" in out
    assert "inverse-dynamics (contact) scene" in out and "acceleration scene" not in out  # issue 29.8
    assert "contact wrenches and torques: within limits" in out
    setup = load_scene_file(TALOS_YAML, steps=60)
    assert isinstance(setup.scene, InverseDynamicsScene) and setup.scene.effort_limit is not None
    result = SceneSimulation(setup).run()
    # the plant is the robot: the state it reached is consistent with the scene's last q̈ and τ
    assert result.limit_violation["friction cone"] < 1e-6 * setup.robot.total_mass * 9.81
    share = result.status["left_share"]
    assert share.state == "active" and share.y_solution[2] == pytest.approx(487.0, abs=30.0)


def test_contacts_in_files_are_validated(talos) -> None:
    bad = _doc(contacts=[{"type": "surface", "frame": "left_sole_link", "half_size": [0.1, 0.065], "mu": -1}])
    with pytest.raises(ConfigError) as info:
        load_scene_file(bad)
    assert info.value.field == "contacts[0].mu"
    with pytest.raises(ConfigKeyError):
        load_scene_file(
            _doc(contacts=[{"type": "surface", "frame": "no_such_frame", "half_size": [1, 1], "mu": 1}])
        )
    wrench = {
        "name": "f",
        "type": "wrench",
        "frame": "left_sole_link",
        "target": [0, 0, 100, 0, 0, 0],
        "kp": 3,
    }
    with pytest.raises(ConfigKeyError) as info:
        load_scene_file(_doc(tasks=[wrench]))
    assert info.value.field == "tasks[0].kp"
    wrench.pop("kp")
    wrench["target"] = [0, 0, 100]
    with pytest.raises(ConfigError, match="target"):
        load_scene_file(_doc(tasks=[wrench]))
    setup = load_scene_file(_doc(contacts=[], effort_limits={"leg_left_4_joint": 50.0}))
    assert isinstance(setup.scene, InverseDynamicsScene) and setup.scene.active_contact_frames == []


class _BrokenController:
    """What a ContactPlant reads from a scene, with zero torques."""

    def __init__(self, robot) -> None:
        self.robot = robot
        self.contacts = [SurfaceContact(f, (0.1, 0.065), 0.3) for f in SOLES]
        self.active_contact_frames = list(SOLES)
        self.effort_limit = robot.effort_limit[6:]

    def get_joint_torques(self) -> np.ndarray:
        return np.zeros(self.robot.nv - 6)


def test_plant_records_how_far_the_simulated_wrenches_leave_their_cones(talos) -> None:
    """Zero torques: Talos buckles; the rigid soles then need wrenches outside their cones, and the plant
    reports exactly the largest excess of the unit cone rows over the simulated wrenches."""
    robot, q = talos
    plant = ContactPlant(_BrokenController(robot), q, np.zeros(robot.nv), 0.01)
    U = SurfaceContact(SOLES[0], (0.1, 0.065), 0.3).cone()
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    worst = 0.0
    for _ in range(20):
        plant.step()
        worst = max(worst, *(float((U @ w).max()) for w in plant.sim.wrenches.values()))
    assert worst > 1.0 and plant.violation["friction cone"] == pytest.approx(worst, rel=1e-12)
    assert plant.violation["effort"] == 0.0


def test_putting_a_foot_down_is_an_inelastic_impact(talos) -> None:
    robot, q = talos
    model = robot.model
    rng = np.random.default_rng(12)
    v = rng.normal(size=model.nv) * 0.3
    sim = ContactSimulation(robot, [SurfaceContact(f, (0.1, 0.065), 0.3) for f in SOLES], q, v)
    sim.set_contact_active(SOLES[1], False)
    v_before = sim.v.copy()
    sim.set_contact_active(SOLES[1], True)
    J = contact_jacobian(model, q, list(SOLES), [6, 6])
    M = pin.crba(model, model.createData(), q)
    M = np.triu(M) + np.triu(M, 1).T
    MiJt = np.linalg.solve(M, J.T)
    expected = v_before - MiJt @ np.linalg.solve(J @ MiJt, J @ v_before)
    np.testing.assert_allclose(sim.v, expected, rtol=0, atol=1e-9 * (1 + np.abs(v_before).max()))
    np.testing.assert_allclose(J @ sim.v, 0.0, atol=1e-9)
    assert sim.v @ M @ sim.v < v_before @ M @ v_before  # it dissipates energy
    sim.set_contact_active(SOLES[1], False)
    sim.v = v_before.copy()
    sim.set_contact_active(SOLES[1], True, impact=False)
    np.testing.assert_array_equal(sim.v, v_before)
